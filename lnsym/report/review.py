"""The source review's content: both source documents, statement by statement, in our words.

This module is data. For each paragraph of the layer-normalization article (¶1–¶25, in
reading order) and each step of the backpropagation notes it lists

- the mathematical statements, each restated in one line and tied to the catalog claims
  that check it (a statement the source gets wrong is marked ``wrong``);
- the worked examples: the inputs and the numbers the source prints, quoted as written
  (see :mod:`lnsym.report.quoted`), which the review recomputes exactly with
  :mod:`lnsym.exact.examples`;
- the displayed equations that are missing from the article, found by the words just
  before each gap, with the relation or the example values that fill it and the claims
  that check it;
- for a wrong formula of the notes, the refuted claim, the corrected claims and the
  readings under which the formula holds.

Nothing here is computed; :mod:`lnsym.report.review_model` checks and lays it out. The
sources themselves are not quoted beyond the short connective that locates a gap.

>>> [source.key for source in SOURCES]
['article', 'notes']
>>> len(ARTICLE.paragraphs), sum(len(p.displays) for p in ARTICLE.paragraphs)
(25, 12)
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy

from lnsym import ir
from lnsym.ir import Eq, Le, center, eps, mean, ones, scalar, var, vector
from lnsym.ir.calculus import jvp, opnorm
from lnsym.ir.layers import core, layer_norm

# ---------------------------------------------------------------------------------------
# The shapes of the content


@dataclass(frozen=True)
class Statement:
    """One mathematical statement of a source, restated in our words.

    Args:
        text: the restatement, one line.
        claims: the ids of the catalog items that check it.
        note: how the claims relate to it, or why nothing checks it.
        by_example: the worked examples of the same paragraph check it.
        wrong: the source states it wrongly; its claims are refuted as expected.
    """

    text: str
    claims: tuple[str, ...] = ()
    note: str = ""
    by_example: bool = False
    wrong: bool = False


@dataclass(frozen=True)
class SourcePoint:
    """The inputs of an exact worked example, as the source writes them (quoted numbers)."""

    z: str
    eps: str
    gamma: str | None = None
    beta: str | None = None
    h: str | None = None
    #: ℓ = ½‖y‖², so the upstream gradient is y itself.
    half_squared_norm: bool = False


@dataclass(frozen=True)
class Target:
    """An inverse problem: the input variance q whose core has variance r (given ε)."""

    r: str
    eps: str


@dataclass(frozen=True)
class SourceQuantity:
    """One quantity of an example and the number the source prints for it.

    Args:
        quantity: a field of :class:`~lnsym.exact.examples.WorkedExample`, ``"jacobian_times"``
            (J applied to ``times``) or, at a :class:`Target`, ``"required_variance"``.
        article: the source's number as written; ``None`` when the source's display is
            missing and lnsym's value is the reconstruction.
        times: the vector J is applied to, for ``"jacobian_times"``.
        label: LaTeX for the quantity when the example's own symbol would be unclear.
    """

    quantity: str
    article: str | None = None
    times: str | None = None
    label: str | None = None


@dataclass(frozen=True)
class Example:
    """Values of one worked example at one point."""

    at: SourcePoint | Target
    values: tuple[SourceQuantity, ...]


@dataclass(frozen=True)
class Display:
    """A displayed equation that is missing from the source, and what fills the gap.

    Args:
        cue: the few words of the source just before the gap.
        what: what the display states, in our words.
        claims: the catalog items that prove it (or that it is an instance of).
        formulas: the reconstruction as IR relations, typeset by the report's printer.
        example: the reconstruction as exact example values (their ``article`` is None).
        abbreviations: the printer's short names allowed in ``formulas``.
        note: how to read the formulas, if needed.
    """

    cue: str
    what: str
    claims: tuple[str, ...]
    formulas: tuple[ir.Relation, ...] = ()
    example: Example | None = None
    abbreviations: tuple[str, ...] = ("J", "s")
    note: str = ""


@dataclass(frozen=True)
class Correction:
    """A formula of the notes that is wrong as written, and how to put it right.

    Args:
        wrong: the claim that states the formula as written; it is expected to be refuted.
        lhs: what the left side of that claim's counterexample is, in words.
        rhs: what its right side is.
        correct: the claims that state the right formula.
        readings: claims under which the formula as written is right.
    """

    wrong: str
    lhs: str
    rhs: str
    correct: tuple[str, ...]
    readings: tuple[str, ...]


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of the article or a step of the notes, reviewed."""

    label: str
    topic: str
    summary: str
    statements: tuple[Statement, ...] = ()
    examples: tuple[Example, ...] = ()
    displays: tuple[Display, ...] = ()
    correction: Correction | None = None
    #: Items whose statements are typeset under the table: the source's formula in our
    #: notation.
    shown: tuple[str, ...] = ()


@dataclass(frozen=True)
class Source:
    """One source document and its reviewed paragraphs."""

    key: str
    title: str
    file: str
    about: str
    paragraphs: tuple[Paragraph, ...]


# ---------------------------------------------------------------------------------------
# The IR atoms of the reconstructed displays

_z, _h = vector("z"), vector("h")
_gamma, _beta = vector("gamma"), vector("beta")
_c, _r = scalar("c"), scalar("r")
_u = core(_z)

_NOT_MATH = "background, not a mathematical statement"
_DEFINITION = "a definition; lnsym's IR uses the same one"

# ---------------------------------------------------------------------------------------
# The article

ARTICLE = Source(
    key="article",
    title="The article on layer normalization",
    file="sources/000_5373f6a3efc18f1a.txt",
    about="An encyclopedia-style article: who introduced layer normalization, then the layer "
    "itself — its bias, its gain, the invariance under a common shift, the centering "
    "matrix, the Jacobian, its sensitivity bound and the variance of the core — each "
    "illustrated with a small exact example. Twelve of its displayed equations are "
    "missing from the text; they are reconstructed below.",
    paragraphs=(
        Paragraph(
            "¶1",
            "The author",
            "A short biography of one of the people behind layer normalization.",
            (
                Statement(
                    "Jimmy Ba's authorship, doctoral supervisor and affiliation.", note=_NOT_MATH
                ),
            ),
        ),
        Paragraph(
            "¶2",
            "Adam",
            "The optimizer Adam, an earlier joint work, is described in two sentences.",
            (
                Statement(
                    "Adam keeps running averages of past gradients and corrects their start "
                    "from zero.",
                    note="about an optimizer, outside the scope of lnsym",
                ),
            ),
        ),
        Paragraph(
            "¶3",
            "What the layer computes",
            "Layer normalization takes its statistics over the features of one example.",
            (
                Statement(
                    "The layer takes a mean and a variance over the features of a single "
                    "example and then applies a learned gain and bias.",
                    ("source.layer_definition",),
                ),
                Statement(
                    "No other example of the mini-batch enters these statistics.",
                    note="by construction: every quantity in lnsym is a function of one "
                    "input vector z",
                ),
            ),
        ),
        Paragraph(
            "¶4",
            "A common shift, worked out",
            "With unit gain, zero bias and ε = 1/3, the input (1, 2, 3) and the same input "
            "plus 10 in every coordinate have the same output.",
            (
                Statement(
                    "At z = (1, 2, 3) and ε = 1/3: mean 2, variance 2/3, output (−1, 0, 1).",
                    by_example=True,
                ),
                Statement(
                    "Adding 10 to every coordinate gives the same output (−1, 0, 1).",
                    ("core.shift_invariant",),
                    by_example=True,
                ),
                Statement(
                    "The reason: the mean moves by the shift and the deviations from the mean "
                    "stay as they were.",
                    ("mean.shift", "source.centering_shift"),
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(1, 2, 3)", "1/3"),
                    (
                        SourceQuantity("mean", "2"),
                        SourceQuantity("variance", "2/3"),
                        SourceQuantity("core", "(-1, 0, 1)"),
                    ),
                ),
                Example(
                    SourcePoint("(11, 12, 13)", "1/3"), (SourceQuantity("core", "(-1, 0, 1)"),)
                ),
            ),
        ),
        Paragraph(
            "¶5",
            "Scaling is not a symmetry when ε > 0",
            "Doubling the same input changes the output, because ε stays fixed while the "
            "variance grows.",
            (
                Statement(
                    "At 2z = (2, 4, 6): variance 8/3, output (−2/√3, 0, 2/√3), which is not "
                    "the output at z.",
                    ("core.scale_invariant",),
                    by_example=True,
                ),
                Statement(
                    "Only the idealized layer without stabilizer (ε = 0) ignores a positive "
                    "scaling.",
                    ("core.scale_invariant_idealized",),
                ),
                Statement(
                    "The numbers are illustrations and are not taken from the paper's experiments.",
                    note=_NOT_MATH,
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(2, 4, 6)", "1/3"),
                    (SourceQuantity("variance", "8/3"), SourceQuantity("core", "(-2/√3, 0, 2/√3)")),
                ),
            ),
        ),
        Paragraph(
            "¶6",
            "The bias",
            "β is added coordinate by coordinate after the gain has multiplied the core.",
            (
                Statement(
                    "The output is y = γ ⊙ u(z) + β, with β a learned offset.",
                    ("source.layer_definition",),
                ),
                Statement(
                    "β is a parameter of the model, not the bias of a statistical estimator.",
                    note="terminology",
                ),
                Statement(
                    "PyTorch offers an optional learned additive term for every normalized "
                    "element.",
                    note="a fact about one implementation, not checked here",
                ),
            ),
            displays=(
                Display(
                    "Writing the core as",
                    "the layer output in terms of the core",
                    ("source.layer_definition",),
                    (Eq(layer_norm(_z, _gamma, _beta), _gamma * _u + _beta),),
                ),
            ),
        ),
        Paragraph(
            "¶7",
            "A constant input",
            "At a constant input only the bias is left in the output.",
            (
                Statement(
                    "At z = (3, 3, 3) the core vanishes for every ε > 0, so with "
                    "β = (1, −1, 2) the output is β, whatever the gain.",
                    ("layer.constant_input",),
                    by_example=True,
                ),
                Statement(
                    "That output has mean 2/3: the layer's output need not be centered even "
                    "though its core always is.",
                    ("layer.output_zero_mean", "core.mean_zero"),
                    by_example=True,
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(3, 3, 3)", "1", beta="(1, -1, 2)"),
                    (
                        SourceQuantity("core", "(0, 0, 0)"),
                        SourceQuantity("output", "(1, -1, 2)"),
                        SourceQuantity("output_mean", "2/3"),
                    ),
                ),
                Example(
                    SourcePoint("(3, 3, 3)", "1/100", gamma="(2, 0, -1)", beta="(1, -1, 2)"),
                    (SourceQuantity("core", "(0, 0, 0)"), SourceQuantity("output", "(1, -1, 2)")),
                ),
            ),
        ),
        Paragraph(
            "¶8",
            "The gradient of the bias",
            "Backpropagation passes the upstream gradient to the bias unchanged.",
            (
                Statement(
                    "With g = ∂ℓ/∂y, the chain rule gives ∂ℓ/∂βᵢ = gᵢ in every coordinate.",
                    ("gradient.bias",),
                ),
                Statement(
                    "For ℓ = ½‖y‖² at the constant input above, ∂ℓ/∂β = (1, −1, 2).",
                    ("gradient.half_squared_norm",),
                    by_example=True,
                ),
                Statement(
                    "A parameter vector used at several positions collects the sum of their "
                    "gradients.",
                    ("gradient.bias_shared_over_positions", "gradient.gain_shared_over_positions"),
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(3, 3, 3)", "1", beta="(1, -1, 2)", half_squared_norm=True),
                    (SourceQuantity("grad_beta", "(1, -1, 2)"),),
                ),
            ),
        ),
        Paragraph(
            "¶9",
            "Shift before, offset after",
            "A shift applied before the layer disappears; the bias, added after it, stays.",
            (
                Statement(
                    "The same shift of every input coordinate is removed by the layer.",
                    ("core.shift_invariant", "layer.shift_invariant"),
                ),
                Statement(
                    "The bias is added after normalizing, so it remains in the output.",
                    ("source.layer_definition", "layer.constant_input"),
                ),
                Statement(
                    "With the parameters held fixed, β adds nothing to the Jacobian in z.",
                    ("layer.bias_no_input_effect",),
                ),
            ),
        ),
        Paragraph(
            "¶10",
            "The gain",
            "γ multiplies the core coordinate by coordinate, before the bias is added.",
            (
                Statement(
                    "With bias β the output is y = γ ⊙ u(z) + β (⊙: coordinatewise product).",
                    ("source.layer_definition",),
                ),
                Statement(
                    "The gains may differ between coordinates and may be zero or negative.",
                    ("source.gain_sign",),
                    note="no claim assumes a sign of γ; the claim that checks it is about "
                    "negative gains",
                ),
                Statement(
                    "So the model can rescale every feature after normalizing it.",
                    note="an interpretation of the gain",
                ),
            ),
        ),
        Paragraph(
            "¶11",
            "Unequal gains, worked out",
            "An example with gains 2, 0 and −1 whose output is neither centered nor of the "
            "core's variance.",
            (
                Statement(
                    "At z = (1, 1, −2) and ε = 2: mean 0, variance 2, core (1/2, 1/2, −1).",
                    by_example=True,
                ),
                Statement(
                    "With γ = (2, 0, −1) and β = 0 the output has mean 2/3 and variance 2/9, "
                    "so unequal gains undo the core's centering and its variance.",
                    ("layer.output_zero_mean", "layer.output_unit_variance"),
                    by_example=True,
                ),
                Statement(
                    "The gain −1 turns the third coordinate of the core, −1, into +1.",
                    ("source.gain_sign",),
                    by_example=True,
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(1, 1, -2)", "2", gamma="(2, 0, -1)"),
                    (
                        SourceQuantity("mean", "0"),
                        SourceQuantity("variance", "2"),
                        SourceQuantity("core", "(1/2, 1/2, -1)"),
                        SourceQuantity("output_mean", "2/3"),
                        SourceQuantity("output_variance", "2/9"),
                    ),
                ),
            ),
            displays=(
                Display(
                    "gives",
                    "the output of the example, γ ⊙ u(z) with γ = (2, 0, −1)",
                    ("source.layer_definition",),
                    example=Example(
                        SourcePoint("(1, 1, -2)", "2", gamma="(2, 0, -1)"),
                        (SourceQuantity("output"),),
                    ),
                ),
            ),
        ),
        Paragraph(
            "¶12",
            "The gradient of the gain",
            "The gain's gradient is the upstream gradient times the core, coordinate by "
            "coordinate.",
            (
                Statement("∂ℓ/∂γᵢ = gᵢ·uᵢ with u the core of z.", ("gradient.gain",)),
                Statement(
                    "For ℓ = ½‖y‖² in the previous example, ∂ℓ/∂γ = (1/2, 0, −1).",
                    ("gradient.gain",),
                    by_example=True,
                ),
                Statement(
                    "This derivative is taken in the parameter; the Jacobian is taken in the "
                    "input with the parameters fixed.",
                    ("gradient.gain", "layer.output_jacobian"),
                    note="two different derivatives, each with its own claim",
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(1, 1, -2)", "2", gamma="(2, 0, -1)", half_squared_norm=True),
                    (SourceQuantity("grad_gamma", "(1/2, 0, -1)"),),
                ),
            ),
        ),
        Paragraph(
            "¶13",
            "A zero gain",
            "A zero gain silences one output, not one input.",
            (
                Statement(
                    "If γᵢ = 0, output i equals βᵢ.",
                    ("source.layer_definition",),
                    note="coordinate i of γ ⊙ u + β is γᵢuᵢ + βᵢ; in ¶11, γ₂ = 0 gives y₂ = 0 = β₂",
                ),
                Statement(
                    "Input i still enters the mean and the variance, so it can still move the "
                    "other outputs.",
                    ("layer.output_jacobian",),
                    note="see the matrix reconstructed in ¶19",
                ),
                Statement(
                    "The layer's Jacobian in z is the core's Jacobian multiplied on the left "
                    "by diag(γ).",
                    ("layer.output_jacobian",),
                ),
            ),
        ),
        Paragraph(
            "¶14",
            "Shift invariance in general",
            "Why a common shift never changes the output, with γ and β fixed and also for ε > 0.",
            (
                Statement(
                    "For fixed γ and β, adding one scalar c to every coordinate leaves the "
                    "output exactly as it was, for every ε > 0.",
                    ("layer.shift_invariant",),
                ),
                Statement(
                    "μ(z) = (1/d)Σᵢ zᵢ and q(z) = (1/d)Σᵢ (zᵢ − μ(z))².",
                    ("centering.subtracts_mean",),
                    note=_DEFINITION + " (q(z) = ‖Pz‖²/d)",
                ),
                Statement(
                    "Hence q(z + c1) = q(z): neither the numerator nor the denominator of the "
                    "core changes.",
                    ("variance.shift_invariant", "source.centering_shift", "core.shift_invariant"),
                ),
                Statement(
                    "ε is added to the variance before the square root is taken.",
                    note=_DEFINITION + " (s = √(q + ε))",
                ),
            ),
            displays=(
                Display(
                    "we have",
                    "the mean follows a common shift, and the deviations from the mean do not move",
                    ("mean.shift", "source.centering_shift"),
                    (
                        Eq(mean(_z + _c * ones), mean(_z) + _c),
                        Eq(center(_z + _c * ones), center(_z)),
                    ),
                ),
                Display(
                    "preserves the equality",
                    "the whole layer, with the same γ and β, ignores the shift",
                    ("layer.shift_invariant",),
                    (Eq(layer_norm(_z + _c * ones, _gamma, _beta), layer_norm(_z, _gamma, _beta)),),
                ),
            ),
        ),
        Paragraph(
            "¶15",
            "The centering matrix",
            "P = I − 11ᵀ/d removes the mean; common offsets form its kernel.",
            (
                Statement(
                    "P1 = 0 and Pz = z − μ(z)1.",
                    ("centering.kills_ones", "centering.subtracts_mean"),
                ),
                Statement(
                    "So the direction of common offsets is in the kernel of P.",
                    ("centering.kills_ones",),
                ),
                Statement(
                    "With u(z) = Pz/√(q(z) + ε) at z = (1, 2, 3), ε = 1/3: mean 2, "
                    "variance 2/3, core (−1, 0, 1).",
                    by_example=True,
                ),
                Statement(
                    "(101, 102, 103) has the very same core.",
                    ("core.shift_invariant",),
                    by_example=True,
                ),
                Statement(
                    "A shift that differs between coordinates need not cancel: (1, 2, 4) has "
                    "core (−4, −1, 5)/√17.",
                    ("source.any_shift_invariant",),
                    by_example=True,
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(1, 2, 3)", "1/3"),
                    (
                        SourceQuantity("mean", "2"),
                        SourceQuantity("variance", "2/3"),
                        SourceQuantity("core", "(-1, 0, 1)"),
                    ),
                ),
                Example(
                    SourcePoint("(101, 102, 103)", "1/3"), (SourceQuantity("core", "(-1, 0, 1)"),)
                ),
                Example(
                    SourcePoint("(1, 2, 4)", "1/3"), (SourceQuantity("core", "(-4, -1, 5)/√17"),)
                ),
            ),
        ),
        Paragraph(
            "¶16",
            "A redundant bias in front of the layer",
            "When an affine map feeds the layer, part of its bias and of its weights is wasted.",
            (
                Statement(
                    "For z = Wx + b, adding c1 to b leaves the output unchanged for every x.",
                    ("affine.bias_redundancy",),
                ),
                Statement(
                    "Shifting the raw input x by a shifts z by Wa, which in general is not a "
                    "multiple of 1.",
                    ("source.any_shift_invariant",),
                ),
                Statement(
                    "The paper's re-centering W ↦ W + 1rᵀ adds (rᵀx)1, which the layer "
                    "removes input by input.",
                    ("source.weight_recentering",),
                ),
            ),
        ),
        Paragraph(
            "¶17",
            "The Jacobian of the core",
            "J(z) = Du(z) describes how the core responds to a small change of its input.",
            (
                Statement(
                    "Entry Jᵢⱼ is the first-order effect of input j on output i.",
                    note=_DEFINITION,
                ),
            ),
            displays=(
                Display(
                    "satisfies",
                    "the closed form of the Jacobian, J = (P − uuᵀ/d)/s",
                    ("jacobian.closed_form",),
                    (
                        Eq(
                            jvp(_u, _z, _h),
                            (center(_h) - _u * ir.dot(_u, _h) / ir.d)
                            / (var(_z) + eps) ** sympy.Rational(1, 2),
                        ),
                    ),
                    abbreviations=("J", "s", "u", "q"),
                    note="Written for a direction h: J h = (Ph − u⟨u, h⟩/d)/s for every h is "
                    "the matrix identity J = (P − uuᵀ/d)/s.",
                ),
            ),
        ),
        Paragraph(
            "¶18",
            "A Jacobian with two coordinates",
            "At z = (−1, 1) and ε = 3 the Jacobian is written out and applied to two directions.",
            (
                Statement(
                    "There the variance is 1 and the core (−1/2, 1/2).",
                    by_example=True,
                ),
                Statement(
                    "The common-offset direction (1, 1) has no first-order effect; the "
                    "contrast direction (−1, 1) has one.",
                    ("jacobian.kills_ones", "jacobian.eigen_core"),
                ),
                Statement(
                    "This is a linear response near z, not an exact rule for finite steps.",
                    ("source.first_order_exact",),
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(-1, 1)", "3"),
                    (SourceQuantity("variance", "1"), SourceQuantity("core", "(-1/2, 1/2)")),
                ),
            ),
            displays=(
                Display(
                    "gives",
                    "the Jacobian at the example",
                    ("jacobian.closed_form",),
                    example=Example(SourcePoint("(-1, 1)", "3"), (SourceQuantity("jacobian"),)),
                ),
                Display(
                    "Consequently",
                    "J applied to the common-offset direction and to the contrast direction",
                    ("jacobian.kills_ones", "jacobian.eigen_core"),
                    example=Example(
                        SourcePoint("(-1, 1)", "3"),
                        (
                            SourceQuantity("jacobian_times", times="(1, 1)"),
                            SourceQuantity("jacobian_times", times="(-1, 1)"),
                        ),
                    ),
                    note="The contrast direction (−1, 1) is parallel to u, so J scales it by "
                    "ε/((q + ε)s) = 3/8.",
                ),
            ),
        ),
        Paragraph(
            "¶19",
            "The Jacobian of the whole layer",
            "The gain multiplies the core's Jacobian on the left; a zero gain removes an "
            "output row, not an input column.",
            (
                Statement(
                    "With γ and β fixed, the layer's Jacobian in z is diag(γ)J(z).",
                    ("layer.output_jacobian",),
                ),
                Statement(
                    "With γ = (0, 2) the first output does not move, yet the first input "
                    "still moves the second output.",
                    ("layer.output_jacobian",),
                    note="row 1 of the reconstructed matrix is zero, its entry (2, 1) is not",
                ),
                Statement(
                    "The derivatives in γ and β are separate from this one.",
                    ("gradient.gain", "gradient.bias"),
                ),
            ),
            displays=(
                Display(
                    "gives",
                    "the Jacobian of the layer at the same point with γ = (0, 2)",
                    ("layer.output_jacobian",),
                    example=Example(
                        SourcePoint("(-1, 1)", "3", gamma="(0, 2)"),
                        (SourceQuantity("output_jacobian"),),
                    ),
                ),
            ),
        ),
        Paragraph(
            "¶20",
            "Sensitivity",
            "How much the core can amplify a change of its input, measured by the operator "
            "norm of its Jacobian.",
            (
                Statement(
                    "The local amplification in the Euclidean norm is ‖Du(z)‖₂.",
                    note=_DEFINITION,
                ),
                Statement(
                    "Integrating the bound on the derivative gives the same constant as a "
                    "global Lipschitz bound.",
                    ("sensitivity.lipschitz",),
                ),
                Statement(
                    "For d ≥ 2 the constant is reached at constant inputs along centered "
                    "directions.",
                    ("sensitivity.attained",),
                ),
                Statement(
                    "It is the worst case, not the amplification at every input.",
                    ("jacobian.norm", "jacobian.norm_two_coordinates"),
                ),
            ),
            displays=(
                Display(
                    "the uniform bound",
                    "the operator norm of the core's Jacobian never exceeds 1/√ε",
                    ("sensitivity.bound",),
                    (Le(opnorm(_u, _z), eps ** sympy.Rational(-1, 2)),),
                    note="The claim states it as ‖J h‖² ≤ ‖h‖²/ε for every z and h.",
                ),
            ),
        ),
        Paragraph(
            "¶21",
            "A finite perturbation",
            "A small step away from the constant input (7, 7) moves the core almost as much "
            "as the bound allows.",
            (
                Statement(
                    "The core at z = (7, 7) is zero.", ("layer.constant_input",), by_example=True
                ),
                Statement(
                    "With ε = 10⁻⁴ the ratio ‖u(z + h) − u(z)‖/‖h‖ for h = (10⁻³, −10⁻³) is "
                    "just below the bound 100.",
                    ("sensitivity.finite_ratio_at_constant_input", "sensitivity.lipschitz"),
                    by_example=True,
                ),
                Statement(
                    "With ε = 10⁻² the same step gives about 9.9995, against a bound of 10.",
                    ("sensitivity.finite_ratio_at_constant_input",),
                    by_example=True,
                ),
                Statement(
                    "This probes inputs whose variance is small next to ε.",
                    note="a comment on the example",
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(7, 7)", "10^-4", h="(10^-3, -10^-3)"),
                    (
                        SourceQuantity("core", "(0, 0)"),
                        SourceQuantity("lipschitz_bound", "100"),
                    ),
                ),
                Example(
                    SourcePoint("(7, 7)", "10^-2", h="(10^-3, -10^-3)"),
                    (
                        SourceQuantity("perturbation_ratio", "≈ 9.9995"),
                        SourceQuantity("lipschitz_bound", "10"),
                    ),
                ),
            ),
            displays=(
                Display(
                    "the norm ratio is",
                    "the finite amplification at ε = 10⁻⁴",
                    ("sensitivity.finite_ratio_at_constant_input",),
                    example=Example(
                        SourcePoint("(7, 7)", "10^-4", h="(10^-3, -10^-3)"),
                        (SourceQuantity("perturbation_ratio"),),
                    ),
                ),
            ),
        ),
        Paragraph(
            "¶22",
            "The bound for the whole layer",
            "Fixed gains scale the bound; the bias does not affect it.",
            (
                Statement(
                    "With fixed gains the layer's output moves at most max|γᵢ|/√ε times as "
                    "far as its input.",
                    ("sensitivity.bound", "source.uniform_gain_bound"),
                    note="proved for a uniform gain; for unequal gains it follows from "
                    "sensitivity.bound because output i is the core's coordinate i times γᵢ "
                    "(the IR has no maximum, so this last step is argued, not machine-checked)",
                ),
                Statement(
                    "A fixed bias cancels in the difference of two outputs.",
                    ("layer.bias_no_input_effect",),
                ),
                Statement(
                    "So gains can enlarge or shrink the core's response.",
                    ("source.uniform_gain_bound",),
                ),
                Statement(
                    "These are properties of one layer in one norm, not a bound for a whole "
                    "network.",
                    note="a remark on scope",
                ),
                Statement(
                    "The two-coordinate example shows an amplification below the uniform bound.",
                    ("jacobian.norm_two_coordinates",),
                    note="there ‖J‖₂ = 3/8, while 1/√ε = 1/√3",
                ),
            ),
        ),
        Paragraph(
            "¶23",
            "The variance of the core",
            "The core has mean zero and a variance set by q and ε alone.",
            (
                Statement(
                    "The variance in question is over the coordinates of the core (divisor "
                    "d), not over training examples.",
                    note=_DEFINITION,
                ),
                Statement("The core has mean zero.", ("core.mean_zero",)),
                Statement(
                    "The divisor d is the implementation's variance without correction.",
                    note=_DEFINITION,
                ),
            ),
            displays=(
                Display(
                    "variance",
                    "the variance of the core in terms of the input variance q and ε",
                    ("core.variance",),
                    (Eq(var(_u), var(_z) / (var(_z) + eps)),),
                    abbreviations=("u", "q"),
                ),
            ),
        ),
        Paragraph(
            "¶24",
            "Inverting the core's variance",
            "Which input variance gives a prescribed core variance r < 1.",
            (
                Statement(
                    "ε = 0.04 and r = 0.9 need q = 0.36.",
                    ("core.variance_inverse",),
                    by_example=True,
                ),
                Statement(
                    "z = (−0.6, 0.6) has that variance, core (−√0.9, √0.9) and core variance "
                    "exactly 0.9.",
                    ("core.variance",),
                    by_example=True,
                ),
                Statement(
                    "r = 0.99 needs q = 99ε = 3.96.", ("core.variance_inverse",), by_example=True
                ),
                Statement(
                    "For a fixed ε > 0 no finite q gives the core unit variance.",
                    ("core.variance_below_one", "core.unit_variance"),
                ),
            ),
            examples=(
                Example(Target("0.9", "0.04"), (SourceQuantity("required_variance", "0.36"),)),
                Example(
                    SourcePoint("(-0.6, 0.6)", "0.04"),
                    (
                        SourceQuantity("variance", "0.36"),
                        SourceQuantity("core", "(-√0.9, √0.9)"),
                        SourceQuantity("core_variance", "0.9"),
                    ),
                ),
                Example(Target("0.99", "0.04"), (SourceQuantity("required_variance", "3.96"),)),
            ),
            displays=(
                Display(
                    "gives",
                    "the input variance that yields a core variance r, for 0 ≤ r < 1",
                    ("core.variance_inverse",),
                    (Eq(var(_z), eps * _r / (1 - _r)),),
                    abbreviations=("q",),
                    note="Here r = q(u) is the variance of the core.",
                ),
            ),
        ),
        Paragraph(
            "¶25",
            "After the gain and bias",
            "The bound on the variance holds for the core only; gain and bias change it.",
            (
                Statement(
                    "The limit r < 1 concerns the core, before the learned affine map.",
                    ("core.variance_below_one",),
                ),
                Statement(
                    "A uniform gain (2, 2) and zero bias turn the variance 0.9 of the "
                    "previous example into 4 · 0.9 = 3.6.",
                    ("layer.uniform_gain_variance",),
                    by_example=True,
                ),
                Statement(
                    "Unequal gains or a bias can change both mean and variance.",
                    ("layer.output_zero_mean", "layer.output_unit_variance"),
                ),
                Statement(
                    "A test that insists on unit variance of the full output would reject "
                    "correct results.",
                    ("layer.output_unit_variance",),
                ),
            ),
            examples=(
                Example(
                    SourcePoint("(-0.6, 0.6)", "0.04", gamma="(2, 2)"),
                    (SourceQuantity("output_variance", "3.6"),),
                ),
            ),
        ),
    ),
)

# ---------------------------------------------------------------------------------------
# The backpropagation notes

NOTES = Source(
    key="notes",
    title="The backpropagation notes",
    file="sources/002_2ad2d75ccc5d4208.txt",
    about="Short notes that derive the gradients of layer normalization in four steps. They "
    "write x' for the output y, x̂ for the core u, L for the loss ℓ, σ for the scale s and "
    "∂L/∂x' for the upstream gradient g. Steps 1 and 2 sum over the feature index, which "
    "is wrong for gains and biases with one entry per feature; steps 3 and 4 are right "
    "when read coordinate by coordinate.",
    paragraphs=(
        Paragraph(
            "Opening",
            "What backpropagation has to deliver",
            "The notes set out to differentiate the loss with respect to γ, β and x̂.",
            (
                Statement(
                    "Backpropagation needs ∂ℓ/∂γ, ∂ℓ/∂β and ∂ℓ/∂x̂ from the upstream gradient.",
                    note="a plan; the steps below carry it out",
                ),
            ),
        ),
        Paragraph(
            "Step 1",
            "The gradient of the gain",
            "The notes sum gᵢx̂ᵢ over all features i = 1..d to get ∂L/∂γ.",
            (
                Statement(
                    "∂L/∂γ = Σᵢ gᵢx̂ᵢ, one sum over the features, for every coordinate of γ.",
                    ("gradient.gain_summed_over_features",),
                    wrong=True,
                ),
                Statement(
                    "The gain's gradient is the upstream gradient scaled by the normalized input.",
                    ("gradient.gain",),
                    note="right per coordinate: ∂ℓ/∂γᵢ = gᵢuᵢ",
                ),
            ),
            correction=Correction(
                "gradient.gain_summed_over_features",
                lhs="∂ℓ/∂γ computed by lnsym",
                rhs="the notes' sum Σᵢ gᵢuᵢ in every coordinate",
                correct=("gradient.gain",),
                readings=("gradient.scalar_gain", "gradient.gain_shared_over_positions"),
            ),
        ),
        Paragraph(
            "Step 2",
            "The gradient of the bias",
            "The notes sum gᵢ over all features i = 1..d to get ∂L/∂β.",
            (
                Statement(
                    "∂L/∂β = Σᵢ gᵢ, one sum over the features, for every coordinate of β.",
                    ("gradient.bias_summed_over_features",),
                    wrong=True,
                ),
                Statement(
                    "β shifts the output directly, so its gradient is the upstream gradient.",
                    ("gradient.bias",),
                    note="right per coordinate: ∂ℓ/∂βᵢ = gᵢ",
                ),
            ),
            correction=Correction(
                "gradient.bias_summed_over_features",
                lhs="∂ℓ/∂β computed by lnsym",
                rhs="the notes' sum Σᵢ gᵢ in every coordinate",
                correct=("gradient.bias",),
                readings=("gradient.scalar_bias", "gradient.bias_shared_over_positions"),
            ),
        ),
        Paragraph(
            "Step 3",
            "The gradient of the normalized input",
            "The notes multiply the upstream gradient by γ.",
            (
                Statement(
                    "∂L/∂x̂ᵢ = gᵢ · γ must be read coordinatewise, ĝ = γ ⊙ g: entry i is gᵢγᵢ.",
                    ("source.normalized_input_gradient",),
                    note="with γ a vector, gᵢ·γ would be a whole vector for each i",
                ),
            ),
            shown=("source.normalized_input_gradient",),
        ),
        Paragraph(
            "Step 4",
            "The gradient of the input",
            "The notes give the input gradient in three terms.",
            (
                Statement(
                    "∂L/∂x = (ĝ − mean(ĝ)1 − x̂·mean(ĝ ⊙ x̂))/σ with ĝ from step 3.",
                    ("gradient.input", "derivation.input_gradient"),
                    note="this is gradient.input with σ = s = √(q + ε) and x̂ = u; σ must "
                    "include ε (with σ² = q it is the formula of the idealized layer, ε = 0)",
                ),
                Statement(
                    "The two averaged terms come from the dependence of the mean and the "
                    "variance on every input.",
                    ("derivation.input_gradient",),
                ),
                Statement(
                    "As a consequence the input gradient sums to zero.",
                    ("gradient.input_sums_to_zero",),
                    note="not stated by the notes; it follows from J1 = 0",
                ),
            ),
            shown=("gradient.input",),
        ),
    ),
)

#: The reviewed sources, in the order the review presents them.
SOURCES = (ARTICLE, NOTES)


def cited_ids(sources: tuple[Source, ...] = SOURCES) -> list[str]:
    """Every catalog id that ``sources`` cite, without repetitions, in order of appearance.

    >>> cited_ids()[:2]
    ['source.layer_definition', 'core.shift_invariant']
    """
    seen: dict[str, None] = {}
    for source in sources:
        for paragraph in source.paragraphs:
            for statement in paragraph.statements:
                seen.update(dict.fromkeys(statement.claims))
            for display in paragraph.displays:
                seen.update(dict.fromkeys(display.claims))
            if paragraph.correction is not None:
                c = paragraph.correction
                seen.update(dict.fromkeys((c.wrong, *c.correct, *c.readings)))
            seen.update(dict.fromkeys(paragraph.shown))
    return list(seen)
