"""The narrative chapters of the built-in report: a text to read before the catalog.

Six chapters lead a student from where the layer sits to the code that implements it:
motivation, one worked example (forward, Jacobian, backward), the geometry, the backward
pass as a staged graph, numerical stability, and the code. Every number is computed when
the report is built — the worked example by :func:`lnsym.exact.examples.worked_example`
(the function behind ``lnsym example``, exact and cross-checked), the floating-point table
by :mod:`lnsym.report.stability` — and every statement links the claim that proves or
refutes it, with the verdict from the checked results.

:func:`build_narrative` returns the chapters; :data:`EXAMPLE` holds the worked example's
inputs, :func:`staged_backward` the adjoints of the staged graph.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from importlib import resources
from typing import Any

import numpy as np
import sympy

from lnsym.exact.examples import WorkedExample, worked_example
from lnsym.report.narrative_blocks import Chapter, Ref, Writer
from lnsym.report.stability import DEVIATIONS, core_first_entry, naive_variance, variance_table

#: The worked example: the article's gain example, z = (1, 1, −2), ε = 2, γ = (2, 0, −1),
#: β = 0, with the loss ℓ = ½‖y‖² (so g = y).
EXAMPLE: Mapping[str, Any] = {
    "z": (1, 1, -2),
    "eps": 2,
    "gamma": (2, 0, -1),
    "loss": "half-squared-norm",
}
#: The article's shift and scaling example: z = (1, 2, 3) with ε = 1/3.
SHIFT_EXAMPLE = ((1, 2, 3), Fraction(1, 3))
#: The figure shown in the geometry chapter (not in a catalog section).
FIGURE_NAMES = ("geometry",)
#: The file printed in the chapter "Code".
CODE_PACKAGE, CODE_FILE = "lnsym.reference", "layernorm_numpy.py"
#: Stabilizers used in practice.
PRACTICAL_EPS = (1e-5, 1e-6)


def example() -> WorkedExample:
    """The worked example of the narrative (:data:`EXAMPLE`), exact and cross-checked."""
    return worked_example(
        EXAMPLE["z"], EXAMPLE["eps"], gamma=EXAMPLE["gamma"], loss=EXAMPLE["loss"]
    )


def _tex(value: Any) -> str:
    return WorkedExample.format_latex(value)


def staged_backward(ex: WorkedExample) -> dict[str, Any]:
    """The adjoints (v̄ = ∂ℓ/∂v) of the staged graph μ → Pz → q → 1/s → u → y at ``ex``.

    Each is computed from its local derivative alone, exactly, so the last one, z̄, is an
    independent check of the closed-form input gradient ``ex.grad_z``.
    """
    d = ex.d
    c = sympy.Matrix(ex.centered)
    r = 1 / ex.scale  # the stage 1/s
    g = sympy.Matrix(ex.upstream)
    u_bar = sympy.Matrix(ex.gamma).multiply_elementwise(g)  # y = γ ⊙ u + β
    r_bar = (u_bar.T * c)[0]  # u = r·c
    q_bar = -(r**3) / 2 * r_bar  # r = (q + ε)^(−1/2)
    c_bar = r * u_bar + 2 * q_bar / d * c  # c feeds u and q = ‖c‖²/d
    mu_bar = -sum(c_bar)  # c = z − μ1
    z_bar = c_bar + mu_bar / d * sympy.ones(d, 1)  # μ = ⟨1, z⟩/d; together z̄ = P c̄
    simple = sympy.nsimplify
    return {
        "u_bar": tuple(simple(x) for x in u_bar),
        "r_bar": simple(r_bar),
        "q_bar": simple(q_bar),
        "c_bar": tuple(simple(x) for x in c_bar),
        "mu_bar": simple(mu_bar),
        "z_bar": tuple(simple(x) for x in z_bar),
    }


def code_text() -> str:
    """The source of the reference implementation, verbatim."""
    return resources.files(CODE_PACKAGE).joinpath(CODE_FILE).read_text(encoding="utf-8")


def build_narrative(refs: Mapping[str, Ref], figures: Mapping[str, object]) -> tuple[Chapter, ...]:
    """The narrative chapters; ``refs`` maps item ids to their checked references,
    ``figures`` figure names to their placed views.

    Raises:
        MissingItem: when a chapter cites an item that is not in ``refs``.
        KeyError: when the geometry figure is not in ``figures``.
    """
    w = Writer(refs)
    ex = example()
    return (
        _motivation(w),
        _worked_example(w, ex),
        _geometry(w, ex, figures["geometry"]),
        _backward_graph(w, ex),
        _stability(w),
        _code(w),
    )


def _motivation(w: Writer) -> Chapter:
    z, eps = SHIFT_EXAMPLE
    base = worked_example(z, eps)
    shifted = worked_example([x + 10 for x in z], eps)
    scaled = worked_example([2 * x for x in z], eps)
    w.para(
        """A transformer turns a sequence of tokens into a sequence of vectors, one vector
        $\\mathbf{z} \\in \\mathbb{R}^{d}$ of d features per token. Layer normalization
        rescales each of these vectors on its own: it takes the mean and the variance of the
        d features of that one token — never of the other tokens, and never of the other
        examples in the batch — centers the vector, divides by its stabilized standard
        deviation, and then applies a learned gain γ and bias β, one number per feature:"""
    )
    w.display(
        "\\mathbf{y} = \\boldsymbol{\\gamma} \\odot \\frac{\\mathbf{z} - \\mu(\\mathbf{z})"
        "\\mathbf{1}}{\\sqrt{q(\\mathbf{z}) + \\varepsilon}} + \\boldsymbol{\\beta}, \\qquad "
        "\\mu(\\mathbf{z}) = \\frac{1}{d} \\sum_{i} z_{i}, \\quad q(\\mathbf{z}) = "
        "\\frac{1}{d} \\sum_{i} \\bigl(z_{i} - \\mu(\\mathbf{z})\\bigr)^{2}."
    )
    w.para(
        """Because the statistics belong to one token, the layer computes the same thing
        in training and at inference, for any batch size, and for every position of a
        sequence independently. Batch normalization, by contrast, takes each feature's
        statistics over the batch; [[§invariance.batch_norm.dataset_rescaling]] compares the
        two by what they leave unchanged, and [[§batch.backprop.gamma]] states both on a
        batch. The gain and bias are shared by all
        positions, so their gradients add up over positions and over the batch — never over
        the features ([[batch.backprop.gamma]]; the sum over the features in the
        backpropagation notes is refuted in [[batch.backprop.gamma_feature_sum]])."""
    )
    w.para(
        """Where does the layer sit? A transformer block adds the output of a sublayer F
        (attention or a feed-forward network) to a residual stream x. The original
        transformer normalizes after the addition (post-LN); most recent models normalize the
        input of the sublayer and leave the residual stream alone (pre-LN):"""
    )
    w.display(
        "\\text{post-LN:}\\ \\mathbf{x}_{l+1} = \\operatorname{LN}\\bigl(\\mathbf{x}_{l} + "
        "F(\\mathbf{x}_{l})\\bigr), \\qquad \\text{pre-LN:}\\ \\mathbf{x}_{l+1} = "
        "\\mathbf{x}_{l} + F\\bigl(\\operatorname{LN}(\\mathbf{x}_{l})\\bigr)."
    )
    w.para(
        """In pre-LN the gradient reaches earlier blocks through the identity of the residual
        path; in post-LN every gradient passes through the layer's Jacobian, which this
        report computes exactly ([[§jacobian.closed_form]]) and bounds by 1/√ε
        ([[§sensitivity.bound]])."""
    )
    w.para(
        f"""What does the layer remove? Take the article's example $\\mathbf{{z}} =
        {_tex(base.z)}$ with $\\varepsilon = {_tex(base.eps)}$: the mean is ${_tex(base.mean)}$, the
        variance ${_tex(base.variance)}$, and the core is $\\mathbf{{u}} = {_tex(base.core)}$.
        Adding 10 to every feature gives the same core ${_tex(shifted.core)}$ — a common shift
        is removed exactly, even with ε > 0 ([[core.shift_invariant]]). Doubling the input
        does not: the variance becomes ${_tex(scaled.variance)}$ and the core
        ${_tex(scaled.core)}$, because ε does not scale with the input
        ([[core.scale_invariant]]; without ε the core would be scale invariant,
        [[core.scale_invariant_idealized]])."""
    )
    return w.chapter("motivation", "Why normalize, and where the layer sits")


def _worked_example(w: Writer, ex: WorkedExample) -> Chapter:
    rows = {r.key: r for r in ex.rows()}

    def table(section: str, lead: str) -> None:
        lines = []
        for r in ex.rows():
            if r.section != section or r.key in ("loss_value",):
                continue
            formula = f" = {r.latex_formula}" if r.latex_formula else ""
            lines.append([f"${r.latex_symbol}{formula}$", f"${_tex(r.value)}$"])
        w.table(["Quantity", "Exact value"], lines, (0.62, 0.34), lead)

    w.para(
        f"""We follow one input through the layer, forward and back. The numbers are those of
        the article's gain example: $\\mathbf{{z}} = {_tex(ex.z)}$, $\\varepsilon =
        {_tex(ex.eps)}$, gain $\\boldsymbol{{\\gamma}} = {_tex(ex.gamma)}$, bias 0, and the
        loss $\\ell = \\frac{{1}}{{2}} \\lVert \\mathbf{{y}} \\rVert^{{2}}$, whose upstream
        gradient is $\\mathbf{{g}} = \\mathbf{{y}}$ ([[gradient.half_squared_norm]]). Every
        value is computed exactly by the function behind `lnsym example`, through the same
        expressions the proofs use, and cross-checked against the closed forms. To see every
        step yourself, run"""
    )
    w.code("lnsym example --z 1,1,-2 --eps 2 --gamma 2,0,-1 --loss half-squared-norm\n", "")
    w.heading("Forward pass")
    table("forward", "The statistics first, then the core and the output:")
    w.para(
        f"""The core has mean 0 ([[core.mean_zero]]) and variance $q/(q + \\varepsilon) =
        {_tex(ex.core_variance)}$, below 1 ([[core.variance_below_one]]) — so it does not
        have unit variance ([[core.unit_variance]]). The output has neither property: its mean
        is ${_tex(ex.output_mean)}$ and its variance ${_tex(ex.output_variance)}$, because the
        gains differ ([[layer.output_zero_mean]], [[layer.output_unit_variance]]). The negative
        gain $\\gamma_{{3}} = -1$ flips the sign of the third coordinate
        ([[source.gain_sign]])."""
    )
    w.heading("Jacobian")
    w.para(
        """The derivative of the core is $J = (P - \\mathbf{u}
        \\mathbf{u}^{\\mathsf{T}}/d)/s$ ([[jacobian.closed_form]]); here"""
    )
    w.display(
        f"J = {_tex(ex.jacobian)}, \\qquad \\operatorname{{diag}}(\\boldsymbol{{\\gamma}}) J = "
        f"{_tex(ex.output_jacobian)}."
    )
    jz = ex.jacobian * sympy.Matrix(ex.z)
    w.para(
        f"""Every row of J sums to zero: $J \\mathbf{{1}} = \\mathbf{{0}}$, a common shift has
        no first-order effect ([[jacobian.kills_ones]]). J is symmetric
        ([[jacobian.symmetric]]), so backpropagation multiplies by J itself. Along the input,
        $J \\mathbf{{z}} = {_tex(tuple(jz))} = \\frac{{\\varepsilon}}{{q + \\varepsilon}}
        \\mathbf{{u}}$ ([[jacobian.along_input]]). The full layer's Jacobian
        $\\operatorname{{diag}}(\\boldsymbol{{\\gamma}}) J$ ([[layer.output_jacobian]]) has a
        zero second row, since $\\gamma_{{2}} = 0$ silences the second output — yet its second
        column is not zero: the second input still moves the other outputs through the shared
        mean and variance."""
    )
    w.heading("Backward pass")
    table("backward", "From the upstream gradient to the parameters and the input:")
    w.para(
        f"""The bias gradient is g and the gain gradient g ⊙ u, one entry per feature
        ([[gradient.bias]], [[gradient.gain]]); summing them over the features, as the
        backpropagation notes do, gives a different vector ([[gradient.bias_summed_over_features]],
        [[gradient.gain_summed_over_features]]). The input gradient
        ${rows["grad_z"].latex_symbol} = {_tex(ex.grad_z)}$ follows from the closed form
        ([[gradient.input]]) and sums to zero ([[gradient.input_sums_to_zero]]); the next two
        chapters explain why, once as geometry and once as a graph of local derivatives."""
    )
    return w.chapter("worked-example", "A worked example, forward and backward")


def _geometry(w: Writer, ex: WorkedExample, figure: object) -> Chapter:
    radius_sq = ex.d * ex.core_variance
    w.heading("Centering is a projection")
    w.para(
        """$P = I - \\mathbf{1} \\mathbf{1}^{\\mathsf{T}}/d$
        subtracts the mean from every coordinate; it maps 𝟏 to zero ([[centering.kills_ones]]),
        changes nothing when applied twice ([[centering.idempotent]]) and is symmetric
        ([[centering.symmetric]]): the orthogonal projection onto the hyperplane
        $\\mathbf{1}^{\\perp}$ of vectors with mean zero. A common shift c·𝟏 is exactly the
        part of z that P discards."""
    )
    w.heading("The core lives on a sphere")
    w.para(
        """Since u has mean zero, its squared length is d times
        its variance ([[core.variance]]):"""
    )
    w.display(
        "\\lVert \\mathbf{u} \\rVert^{2} = d \\, q(\\mathbf{u}) = \\frac{d \\, q}{q + "
        "\\varepsilon} < d, \\qquad \\lVert \\mathbf{u} \\rVert = \\sqrt{\\frac{d\\,q}{q + "
        "\\varepsilon}} \\to \\sqrt{d} \\quad (\\varepsilon \\to 0)."
    )
    w.para(
        f"""So u lies in $\\mathbf{{1}}^{{\\perp}}$, on the sphere of radius
        $\\sqrt{{dq/(q + \\varepsilon)}}$ — close to √d once the input's variance is large
        compared with ε. In the worked example $\\lVert \\mathbf{{u}} \\rVert^{{2}} =
        {_tex(radius_sq)}$ against d = {ex.d}. For d = 3 the hyperplane is a plane and the
        sphere meets it in a circle (Figure {getattr(figure, "number", "")})."""
    )
    w.figure(figure)
    w.heading("The Jacobian is a tangent projection, scaled")
    w.para(
        """$J = (P - \\mathbf{u}
        \\mathbf{u}^{\\mathsf{T}}/d)/s$ first projects a step h onto $\\mathbf{1}^{\\perp}$,
        then shrinks its component along u by the factor ε/(q + ε), and divides by s. Its
        eigenvectors say it exactly: 𝟏 goes to 0 ([[jacobian.kills_ones]]); every centered direction
        orthogonal to u — tangent to the sphere — is multiplied by 1/s
        ([[jacobian.eigen_orthogonal]]); the radial direction u only by
        $\\varepsilon/((q + \\varepsilon)s)$ ([[jacobian.eigen_core]]), which is smaller
        ([[jacobian.eigenvalue_order]]). Hence $\\lVert J \\rVert_{2} = 1/s$ for d ≥ 3
        ([[jacobian.norm]]), while for d = 2 (and q > 0) there is no tangent direction left
        and the norm is the radial eigenvalue ([[jacobian.norm_two_coordinates]])."""
    )
    w.heading("What ε leaves behind")
    w.para("Along the input itself the Jacobian gives ([[jacobian.along_input]])")
    w.statement("jacobian.along_input")
    w.para(
        """which tends to 0 as ε → 0: without the stabilizer, stretching z along itself does
        not move u at all, which is the scale invariance of the idealized layer
        ([[core.scale_invariant_idealized]]); with ε > 0 it moves a little
        ([[core.scale_invariant]])."""
    )
    return w.chapter("geometry", "The geometry: a projection, a sphere and a tangent map")


def _backward_graph(w: Writer, ex: WorkedExample) -> Chapter:
    adj = staged_backward(ex)
    w.para(
        """Backpropagation runs the forward computation backwards, one stage at a time. The
        forward pass is a chain of small stages, from the input to the loss:"""
    )
    w.display(
        "\\mathbf{z} \\to \\mu \\to \\mathbf{c} = P\\mathbf{z} \\to q \\to r = \\frac{1}{s} "
        "\\to \\mathbf{u} = r\\,\\mathbf{c} \\to \\mathbf{y} \\to \\ell"
    )
    w.para(
        """(the centered vector c also feeds u directly, and z feeds c). Write
        $\\bar{v} = \\partial \\ell / \\partial v$ for the adjoint of an intermediate v. Each
        stage needs only its own local derivative; a quantity used by two later stages, like
        c, collects the sum of their contributions. The table visits the stages from the
        output back to the input, in the order backpropagation does, and evaluates every
        adjoint at the worked example."""
    )
    w.table(
        ["Stage", "Forward", "Local derivative (backward)", "Example"],
        [
            ["output", "$\\mathbf{y} = \\boldsymbol{\\gamma} \\odot \\mathbf{u} + "
             "\\boldsymbol{\\beta}$",
             "$\\bar{\\mathbf{u}} = \\boldsymbol{\\gamma} \\odot \\mathbf{g}$, "
             "$\\bar{\\boldsymbol{\\gamma}} = \\mathbf{g} \\odot \\mathbf{u}$, "
             "$\\bar{\\boldsymbol{\\beta}} = \\mathbf{g}$",
             f"$\\bar{{\\mathbf{{u}}}} = {_tex(adj['u_bar'])}$"],
            ["core", "$\\mathbf{u} = r \\, \\mathbf{c}$",
             "$\\bar{r} = \\langle \\bar{\\mathbf{u}}, \\mathbf{c} \\rangle$; "
             "$\\bar{\\mathbf{c}}$ receives $r \\, \\bar{\\mathbf{u}}$",
             f"$\\bar{{r}} = {_tex(adj['r_bar'])}$"],
            ["1/s", "$r = (q + \\varepsilon)^{-1/2}$",
             "$\\bar{q} = -\\frac{1}{2} (q + \\varepsilon)^{-3/2} \\, \\bar{r}$",
             f"$\\bar{{q}} = {_tex(adj['q_bar'])}$"],
            ["variance", "$q = \\lVert \\mathbf{c} \\rVert^{2} / d$",
             "$\\bar{\\mathbf{c}} = r \\, \\bar{\\mathbf{u}} + \\frac{2}{d} \\bar{q} \\, "
             "\\mathbf{c}$",
             f"$\\bar{{\\mathbf{{c}}}} = {_tex(adj['c_bar'])}$"],
            ["centering", "$\\mathbf{c} = \\mathbf{z} - \\mu \\mathbf{1}$",
             "$\\bar{\\mu} = -\\langle \\mathbf{1}, \\bar{\\mathbf{c}} \\rangle$; "
             "$\\bar{\\mathbf{z}}$ receives $\\bar{\\mathbf{c}}$",
             f"$\\bar{{\\mu}} = {_tex(adj['mu_bar'])}$"],
            ["mean", "$\\mu = \\langle \\mathbf{1}, \\mathbf{z} \\rangle / d$",
             "$\\bar{\\mathbf{z}} = \\bar{\\mathbf{c}} + \\frac{\\bar{\\mu}}{d} \\mathbf{1} = "
             "P \\bar{\\mathbf{c}}$",
             f"$\\bar{{\\mathbf{{z}}}} = {_tex(adj['z_bar'])}$"],
        ],
        (0.12, 0.25, 0.37, 0.22),
    )  # fmt: skip
    w.para(
        f"""The last adjoint, $\\bar{{\\mathbf{{z}}}} = {_tex(adj["z_bar"])}$, is the input
        gradient of the worked example, found here without the closed form. Substituting the
        stages into one another, with $r = 1/s$ and $\\mathbf{{u}} = r\\mathbf{{c}}$, gives that
        closed form in general, $\\bar{{\\mathbf{{z}}}} = J \\hat{{\\mathbf{{g}}}}$ with
        $\\hat{{\\mathbf{{g}}}} = \\boldsymbol{{\\gamma}} \\odot \\mathbf{{g}}$; as the
        catalog states and proves it ([[gradient.input]]):"""
    )
    w.statement("gradient.input")
    w.para(
        """The mean of the upstream term is removed by the centering stage, the component
        along u by the variance stage; what remains is the tangent projection of the
        geometry chapter ([[derivation.input_gradient]], [[jacobian.transpose_product]]).
        The γ and β rows are the notes' steps 1 and 2 read correctly: one entry per feature
        ([[gradient.gain]], [[gradient.bias]])."""
    )
    return w.chapter("backward", "The backward pass as a staged graph")


def _float(value: float, digits: int) -> str:
    text = np.format_float_positional(value, precision=digits, unique=True, trim="-")
    return text.replace("-", "−")  # a minus sign, not a hyphen


def _stability(w: Writer) -> Chapter:
    table = variance_table()
    w.para(
        """The formulas are exact; computers are not. Two places need care: how the variance
        is computed, and how large ε is."""
    )
    w.heading("The naive variance")
    w.para(
        """Expanding the square gives $q = \\mu(\\mathbf{z} \\odot
        \\mathbf{z}) - \\mu(\\mathbf{z})^{2}$, a one-pass formula. It subtracts two numbers
        of the size of the squared offset, and in floating point their difference is lost
        once that size exceeds the precision. The two-pass formula centers first and squares
        the small deviations. The table computes both, in float32 and float64, for
        z = c·𝟏 + (1, 2, 3), whose variance is 2/3 for every offset c (a common shift does
        not change it: [[variance.shift_invariant]])."""
    )
    rows = [
        [
            _offset_text(row.offset),
            _float(row.float32_naive, 8),
            _float(row.float32_two_pass, 8),
            _float(row.float64_naive, 16),
            _float(row.float64_two_pass, 16),
        ]
        for row in table
    ]
    w.table(["offset c", "float32 naive", "float32 two-pass", "float64 naive",
             "float64 two-pass"], rows, (0.12, 0.18, 0.18, 0.24, 0.24))  # fmt: skip
    worst = next(r for r in table if r.offset == 1e4)
    negative = next(r for r in table if r.float32_naive < 0)
    z = [worst.offset + t for t in DEVIATIONS]
    eps = PRACTICAL_EPS[0]
    naive_u = core_first_entry(z, naive_variance(z, np.float32), eps)
    good_u = core_first_entry(z, worst.float32_two_pass, eps)
    w.para(
        f"""At c = 10⁴ in float32 the naive variance is {_float(worst.float32_naive, 8)}, so
        with ε = 10⁻⁵ the first coordinate of the core comes out as {_float(naive_u, 6)}
        instead of {_float(good_u, 6)}. At c = {_offset_text(negative.offset)} it is even
        negative, {_float(negative.float32_naive, 8)}, and the square root of q + ε fails.
        (At c = 10⁸ float32 cannot hold the inputs themselves: 10⁸ + 1 rounds to 10⁸,
        and both formulas see a constant vector.) The variance is nonnegative as a real
        number ([[variance.nonnegative]]); the two-pass formula keeps it so in floating
        point."""
    )
    inv = [(e, 1 / np.sqrt(e)) for e in PRACTICAL_EPS]
    w.heading("The size of ε")
    w.para(
        f"""Libraries use small stabilizers: 10⁻⁵ is the default of PyTorch's
        layer norm, 10⁻⁶ is common in transformer code. ε keeps the division defined at a
        constant input, where the core is 0 and the layer outputs its bias
        ([[layer.constant_input]]), and it bounds the sensitivity: no step h moves the core
        by more than ‖h‖/√ε ([[sensitivity.bound]], [[sensitivity.lipschitz]]), and the
        bound is attained at a constant input ([[sensitivity.attained]]). In practice
        1/√ε ≈ {_float(inv[0][1], 4)} at ε = 10⁻⁵ and {_float(inv[1][1], 4)} at
        ε = 10⁻⁶: near-constant inputs, whose variance is comparable with ε, are where the
        layer amplifies noise most. For typical inputs q ≫ ε and the core's variance
        q/(q + ε) differs from 1 only in the fifth or sixth digit — close to, but never
        exactly, unit variance ([[core.unit_variance]])."""
    )
    return w.chapter("stability", "Numerical stability")


def _offset_text(offset: float) -> str:
    if offset == 0:
        return "0"
    exponent = int(round(np.log10(offset)))
    if offset != 10.0**exponent:
        return f"{offset:g}"
    superscript = str(exponent).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))
    return f"10{superscript}"


def _code(w: Writer) -> Chapter:
    w.para(
        """The formulas above, written as numpy code: the forward pass of a batch of rows
        (one token per row) and its backward pass. Each line names, in brackets, the claims
        that prove it. The code is printed here verbatim from the file of the package; the
        tests run this same file against the exact worked examples."""
    )
    w.code(code_text(), f"{CODE_PACKAGE.replace('.', '/')}/{CODE_FILE}")
    point = HESSIAN_POINT
    w.heading("Second derivatives, and a check of PyTorch")
    w.para(
        rf"""Frameworks also differentiate twice (Hessian-vector products, higher-order
        optimizers). lnsym derives the second derivative of the core in closed form and
        proves it for every d ([[derived.second_derivative]]); for the loss
        $\ell(\mathbf{{z}}) = \langle \mathbf{{w}}, \mathbf{{y}}(\mathbf{{z}}) \rangle$
        with $\mathbf{{a}} = \boldsymbol{{\gamma}} \odot \mathbf{{w}}$ it gives the
        Hessian below. At $\mathbf{{z}} = {_tex(point["z"])}$, $\varepsilon =
        {_tex(point["eps"])}$, $\boldsymbol{{\gamma}} = {_tex(point["gamma"])}$ and
        $\mathbf{{w}} = {_tex(point["w"])}$, exactly:"""
    )
    w.display(
        r"H = -\frac{P\mathbf{a}\mathbf{u}^{\mathsf{T}} + \mathbf{u}(P\mathbf{a})^{"
        r"\mathsf{T}} + \langle \mathbf{a}, \mathbf{u} \rangle (P - 3\mathbf{u}"
        rf"\mathbf{{u}}^{{\mathsf{{T}}}}/d)}}{{d s^{{2}}}} = {_tex(loss_hessian(**point))}."
    )
    w.para(
        """The optional test `tests/reference/test_against_torch.py` (install the extra
        `torch`; it is skipped otherwise) compares PyTorch's Hessians of `F.layer_norm`
        with this matrix. Run with torch 2.13.0 when this chapter was written, reverse mode
        (`jacrev(jacrev)`, `torch.func.hessian`) agreed to rounding, while forward over
        forward (`jacfwd(jacfwd)`) was off by up to 0.55 and not even symmetric — the defect
        reported as pytorch/pytorch#196700; the same layer written with elementary torch
        operations is exact in every mode. The test records this as an expected failure
        that turns into an error once a fixed torch is installed; `docs/reference_code.md` has
        the numbers."""
    )
    return w.chapter("code", "Code")


#: The point of the Hessian shown in the chapter "Code" (also the optional PyTorch test's).
_R = sympy.Rational
HESSIAN_POINT: Mapping[str, Any] = {
    "z": (_R(1), _R(2), _R(4)),
    "eps": _R(1, 3),
    "gamma": (_R(2), _R(-1), _R(1, 2)),
    "w": (_R(1), _R(-2), _R(1, 3)),
}


def loss_hessian(z: Any, eps: Any, gamma: Any, w: Any) -> sympy.Matrix:
    """∂²⟨w, y⟩/∂z², exactly, from the proved second derivative of the core:
    H = −(Pa uᵀ + u (Pa)ᵀ + ⟨a, u⟩(P − 3uuᵀ/d))/(d s²) with a = γ ⊙ w."""
    d = len(z)
    zv = sympy.Matrix([sympy.nsimplify(x) for x in z])
    a = sympy.Matrix(
        [sympy.nsimplify(g) * sympy.nsimplify(x) for g, x in zip(gamma, w, strict=True)]
    )
    p = sympy.eye(d) - sympy.ones(d, d) / d
    s2 = (p * zv).dot(p * zv) / d + sympy.nsimplify(eps)
    u = p * zv / sympy.sqrt(s2)
    pa = p * a
    h = -(pa * u.T + u * pa.T + a.dot(u) * (p - 3 * u * u.T / d)) / (d * s2)
    return h.applyfunc(sympy.radsimp)
