r"""Exercise sheets on layer normalization with exact answers, each checked through the IR.

:func:`generate_sheet` draws ``count`` exercises from a seed. There are seven kinds
(:data:`KINDS`): the forward statistics; shifting versus scaling the input; the effect of
gain and bias on the output; the Jacobians; the gradients for an upstream g; choosing an
input for a target core variance; and the sensitivity at a constant input. Each exercise
comes with worked steps for the answer key.

Numbers are chosen "nice": inputs, gains, biases and upstream gradients are small integers,
and ε is chosen so that q + ε is the square of a rational, so s = √(q + ε) and every answer
is rational. Every answer is computed twice — from its closed form in exact ``Fraction``
arithmetic, and from the IR expression of the asked quantity (``core(z)``,
``vjp(layer_norm(z, gamma, beta), z, g)``, …) evaluated by the concrete engine
(:mod:`lnsym.engines.concrete.engine`, SymPy's own calculus) — and a disagreement raises
:class:`~lnsym.errors.CrossCheckError` before anything is printed.

>>> sheet = generate_sheet(count=3, seed=1)
>>> [(e.number, e.kind, e.d) for e in sheet.exercises]
[(1, 'jacobian', 3), (2, 'inverse-variance', 3), (3, 'sensitivity', 2)]
>>> jacobian = sheet.exercises[0]
>>> [str(x) for x in jacobian.params["z"]], jacobian.params["eps"], jacobian.answers["scale"]
(['0', '2', '0'], Fraction(1, 9), Fraction(1, 1))
>>> [str(x) for x in jacobian.answers["core"]]
['-2/3', '4/3', '-2/3']
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeAlias

import sympy

from lnsym.engines.concrete import engine as concrete
from lnsym.errors import CrossCheckError, UserInputError
from lnsym.exact import exercise_math as xm
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import jvp, vjp
from lnsym.ir.layers import core, layer_norm
from lnsym.printing.numbers import latex_matrix, latex_number, latex_vector
from lnsym.printing.printer import Math

Vec, Mat = xm.Vec, xm.Mat
Value: TypeAlias = Fraction | Vec | Mat

#: The exercise kinds, in the order a sheet presents them.
KINDS = (
    "statistics",
    "shift-scale",
    "gain-bias",
    "jacobian",
    "gradients",
    "inverse-variance",
    "sensitivity",
)
#: The most exercises one sheet may have.
MAX_COUNT = 100
#: The largest dimension an exercise may have (matrices have d² entries).
MAX_D = 8
#: The default range of dimensions.
DEFAULT_DIMENSIONS = (2, 4)
#: The largest seed accepted.
MAX_SEED = 2**32 - 1


# ---------------------------------------------------------------------------------------
# The sheet as format-neutral data


@dataclass(frozen=True)
class Segment:
    """A piece of prose: plain text (escaped by the renderer) or LaTeX math."""

    text: str
    math: bool


Prose: TypeAlias = tuple[Segment, ...]


@dataclass(frozen=True)
class Step:
    """One line of a worked answer, ``lhs = rhs`` (LaTeX), aligned at the equals sign."""

    lhs: Math
    rhs: Math


@dataclass(frozen=True)
class Part:
    """A question (a), (b), … with its worked steps and concluding sentence for the key."""

    question: Prose
    steps: tuple[Step, ...]
    conclusion: Prose


@dataclass(frozen=True)
class Exercise:
    """One exercise: its data (``params``) and its checked exact answers (``answers``).

    Vectors are tuples of ``Fraction``, matrices tuples of rows; the names of ``params``
    (z, eps, gamma, …) and ``answers`` (core, grad_z, …) mean the same in every kind.
    """

    number: int
    kind: str
    title: str
    d: int
    setting: Prose
    parts: tuple[Part, ...]
    params: dict[str, Value]
    answers: dict[str, Value]


@dataclass(frozen=True)
class Sheet:
    """A generated exercise sheet (its answer key is in the same data)."""

    seed: int
    dimensions: tuple[int, int]
    exercises: tuple[Exercise, ...]

    @property
    def count(self) -> int:
        """The number of exercises."""
        return len(self.exercises)

    @property
    def command(self) -> str:
        """The command line that generates this sheet again.

        >>> generate_sheet(count=1, seed=5).command
        'lnsym exercises --seed 5 --count 1 --d 2..4'
        """
        low, high = self.dimensions
        return f"lnsym exercises --seed {self.seed} --count {self.count} --d {low}..{high}"


TITLES = {
    "statistics": "Mean, variance and the normalized core",
    "shift-scale": "Shifting versus scaling the input",
    "gain-bias": "What gain and bias do to the output",
    "jacobian": "The Jacobian of the core and of the layer",
    "gradients": "Gradients for a given upstream gradient",
    "inverse-variance": "An input for a target core variance",
    "sensitivity": "Sensitivity at a constant input",
}


# ---------------------------------------------------------------------------------------
# Input checking


def parse_dimensions(text: str) -> tuple[int, int]:
    """A ``--d`` value: a range ``A..B`` (or one dimension ``A``) within 1..:data:`MAX_D`.

    Exercises need d ≥ 2 (at d = 1 every centered quantity is zero), so the range must
    reach 2; a range starting at 1 draws from 2 upwards.

    Raises:
        UserInputError: for anything else.

    >>> parse_dimensions("2..4"), parse_dimensions(" 3 ")
    ((2, 4), (3, 3))
    """
    match = re.fullmatch(r"\s*([0-9]+)\s*(?:\.\.\s*([0-9]+)\s*)?", text, flags=re.ASCII)
    if match is None or len(text) > 20:
        raise UserInputError(f"--d: expected a range such as 2..4 within 1..{MAX_D}, got {text!r}")
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) is not None else low
    if not 1 <= low <= high <= MAX_D:
        raise UserInputError(f"--d: the range must satisfy 1 ≤ A ≤ B ≤ {MAX_D}, got {text!r}")
    if high < 2:
        raise UserInputError(f"--d {text.strip()}: every exercise needs d ≥ 2")
    return low, high


def parse_count(text: str) -> int:
    """A ``--count`` value: an integer from 1 to :data:`MAX_COUNT`.

    Raises:
        UserInputError: for anything else.

    >>> parse_count("12")
    12
    """
    return _parse_integer(text, "--count", 1, MAX_COUNT)


def parse_seed(text: str) -> int:
    """A ``--seed`` value: an integer from 0 to :data:`MAX_SEED`.

    Raises:
        UserInputError: for anything else.
    """
    return _parse_integer(text, "--seed", 0, MAX_SEED)


def _parse_integer(text: str, option: str, low: int, high: int) -> int:
    token = text.strip()
    if len(token) > 20 or not re.fullmatch(r"\+?[0-9]+", token, flags=re.ASCII):
        raise UserInputError(f"{option}: expected an integer from {low} to {high}, got {text!r}")
    value = int(token)
    if not low <= value <= high:
        raise UserInputError(f"{option}: expected an integer from {low} to {high}, got {text!r}")
    return value


def _check_options(count: int, seed: int, dimensions: tuple[int, int]) -> None:
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise UserInputError(f"--count: expected 1 to {MAX_COUNT} exercises, got {count!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise UserInputError(f"--seed: expected an integer from 0 to {MAX_SEED}, got {seed!r}")
    low, high = dimensions
    parse_dimensions(f"{low}..{high}")


# ---------------------------------------------------------------------------------------
# Checking a closed form against the IR, evaluated by the concrete engine

_X = sympy.Dummy("x")
_Z, _GAMMA, _BETA = ir.vector("z"), ir.vector("gamma"), ir.vector("beta")
_G, _H, _V = ir.vector("g"), ir.vector("h"), ir.vector("v")
_ATOMS = {"z": _Z, "gamma": _GAMMA, "beta": _BETA, "g": _G, "h": _H, "v": _V}
_U = core(_Z)
_Y = layer_norm(_Z, _GAMMA, _BETA)


def _exactly(got: sympy.Expr, want: Fraction) -> bool:
    """Whether the algebraic number ``got`` equals the rational ``want``, decided exactly."""
    target = sympy.Rational(want.numerator, want.denominator)
    diff = sympy.expand(got - target)
    if diff.is_Rational:
        return bool(diff == 0)
    if diff.free_symbols:
        return False
    return sympy.minimal_polynomial(diff, _X) == _X


def _entries(value: Value) -> list[Fraction]:
    if isinstance(value, Fraction):
        return [value]
    if value and isinstance(value[0], tuple):
        return [x for row in value for x in row]  # type: ignore[union-attr]
    return list(value)  # type: ignore[arg-type]


class _Draft:
    """An exercise being built: its data, its checked answers and its parts."""

    def __init__(
        self, number: int, kind: str, d: int, rng: random.Random, novelty: xm.Novelty
    ) -> None:
        self.number, self.kind, self.d, self.rng, self.novelty = number, kind, d, rng, novelty
        self.params: dict[str, Value] = {}
        self.answers: dict[str, Value] = {}
        self.parts: list[Part] = []
        self.setting: Prose = ()

    def given(self, **values: Value) -> None:
        """Record the data of the exercise (vectors named like IR atoms are bound to them)."""
        self.params.update(values)

    def _binding(self) -> dict[Any, Any]:
        binding: dict[Any, Any] = {
            _ATOMS[k]: list(v) for k, v in self.params.items() if k in _ATOMS
        }
        if "eps" in self.params:
            binding[ir.eps] = self.params["eps"]
        return binding

    def answer(
        self,
        name: str,
        closed: Value,
        expr: ir.Expr,
        *,
        wrt: ir.VectorAtom | None = None,
        at: dict[str, Vec] | None = None,
    ) -> Any:
        """Record an answer after checking its closed form against the IR.

        Args:
            name: the answer's name (the same meaning in every kind).
            closed: the value from the closed form.
            expr: the IR expression of the asked quantity, evaluated by the concrete engine
                at the exercise's data (or its Jacobian with respect to ``wrt``).
            at: values of further vector atoms (e.g. an input found by the student).

        Returns:
            ``closed``.

        Raises:
            CrossCheckError: when the concrete engine's value differs.
        """
        binding = self._binding()
        binding.update({_ATOMS[k]: list(v) for k, v in (at or {}).items()})
        if wrt is None:
            got = concrete.instantiate(expr, self.d, binding)
        else:
            got = concrete.jacobian(expr, wrt, self.d, binding)
        values = list(got) if isinstance(got, sympy.MatrixBase) else [got]
        want = _entries(closed)
        where = f"exercise {self.number} ({self.kind}), {name}"
        if len(values) != len(want):
            raise CrossCheckError(f"{where}: {len(values)} entries from the IR, {len(want)} closed")
        for i, (a, b) in enumerate(zip(values, want, strict=True)):
            if not _exactly(a, b):
                raise CrossCheckError(
                    f"{where}[{i}]: the IR gives {sympy.sstr(a)} but the closed form gives {b}"
                )
        self.answers[name] = closed
        return closed

    def part(self, question: str, steps: Sequence[tuple[str, str]], conclusion: str = "") -> None:
        """Add a part; ``steps`` are (lhs, rhs) LaTeX pairs, prose uses ``$...$`` for math."""
        self.parts.append(
            Part(
                _prose(question),
                tuple(Step(Math(_tex(lhs)), Math(_tex(rhs))) for lhs, rhs in steps),
                _prose(conclusion),
            )
        )

    def done(self) -> Exercise:
        """The finished exercise."""
        return Exercise(
            self.number,
            self.kind,
            TITLES[self.kind],
            self.d,
            self.setting,
            tuple(self.parts),
            dict(self.params),
            dict(self.answers),
        )


# ---------------------------------------------------------------------------------------
# Writing mathematics: @-names for the bold vectors, numbers through lnsym.printing.numbers

_NAMES = {
    "z": r"\mathbf{z}",
    "u": r"\mathbf{u}",
    "y": r"\mathbf{y}",
    "g": r"\mathbf{g}",
    "h": r"\mathbf{h}",
    "v": r"\mathbf{v}",
    "1": r"\mathbf{1}",
    "gamma": r"\boldsymbol{\gamma}",
    "beta": r"\boldsymbol{\beta}",
    "ghat": r"\hat{\mathbf{g}}",
    "eps": r"\varepsilon",
}


def _tex(source: str) -> str:
    r"""LaTeX with ``@z``, ``@gamma``, … replaced by the notation of the reports.

    >>> _tex("P@z = @z - \\mu @1")
    'P\\mathbf{z} = \\mathbf{z} - \\mu \\mathbf{1}'
    """
    return re.sub(r"@(ghat|gamma|beta|eps|[zuyghv1])", lambda m: _NAMES[m.group(1)], source)


def _prose(source: str) -> Prose:
    """Text with ``$...$`` math, split into segments (math with @-names expanded)."""
    pieces = source.split("$")
    if len(pieces) % 2 == 0:
        raise ValueError(f"unbalanced $ in {source!r}")
    return tuple(
        Segment(Math(_tex(p)) if i % 2 else p, bool(i % 2)) for i, p in enumerate(pieces) if p
    )


_n, _v, _m = latex_number, latex_vector, latex_matrix


def _vi(values: Vec) -> str:
    """A vector in running text, where it may break across lines."""
    return latex_vector(values, inline=True)


def _sum_text(values: Sequence[Fraction]) -> str:
    """``1 + 2 - 4``: a sum of exact numbers as written by hand."""
    out = ""
    for i, x in enumerate(values):
        text = _n(abs(x)) if i else _n(x)
        out += text if i == 0 else (f" - {text}" if x < 0 else f" + {text}")
    return out


def _slash(x: Fraction) -> str:
    """``8/9``: a rational inline, for numerators and denominators of a fraction."""
    return str(x)


# ---------------------------------------------------------------------------------------
# The kinds


def _setting(draft: _Draft, *items: str) -> None:
    draft.setting = _prose("Let $d = " + str(draft.d) + "$, " + _and(list(items)) + ".")


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _forward(z: Vec, eps: Fraction) -> dict[str, Any]:
    """The forward pass μ, Pz, q, s, u of ``z`` with its worked steps (nothing checked)."""
    d = len(z)
    mu, pz = xm.mean(z), xm.center(z)
    sq = xm.squared_norm(pz)
    q = sq / d
    s = xm.rational_sqrt(q + eps)
    u = xm.times(1 / s, pz)
    steps = [
        (r"\mu", rf"\tfrac{{1}}{{{d}}} ({_sum_text(z)}) = {_n(mu)}"),
        (r"P@z", rf"@z - \mu @1 = {_v(pz)}"),
        (
            r"q",
            rf"\tfrac{{1}}{{{d}}} \lVert P@z \rVert^{{2}} = "
            rf"\tfrac{{1}}{{{d}}} \cdot {_n(sq)} = {_n(q)}",
        ),
        (r"s", rf"\sqrt{{q + @eps}} = \sqrt{{{_n(q + eps)}}} = {_n(s)}"),
        (r"@u", rf"P@z / s = {_v(u)}"),
    ]
    return {"steps": steps, "mu": mu, "pz": pz, "q": q, "s": s, "u": u}


def _statistics(draft: _Draft) -> None:
    z, eps = xm.nice_input(draft.rng, draft.d, draft.novelty)
    draft.given(z=z, eps=eps)
    _setting(draft, f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$")
    f = _forward(z, eps)
    draft.answer("mean", f["mu"], ir.mean(_Z))
    draft.answer("centered", f["pz"], ir.center(_Z))
    draft.answer("variance", f["q"], ir.var(_Z))
    draft.answer("scale", f["s"], (ir.var(_Z) + ir.eps) ** sympy.Rational(1, 2))
    draft.answer("core", f["u"], _U)
    core_mean = draft.answer("core_mean", xm.mean(f["u"]), ir.mean(_U))
    core_var = draft.answer("core_variance", xm.variance(f["u"]), ir.var(_U))
    ratio, s = f["q"] / (f["q"] + eps), f["s"]
    steps = f["steps"]
    draft.part("Compute the mean $\\mu$ and the centered vector $P@z = @z - \\mu @1$.", steps[:2])
    draft.part(
        "Compute the variance $q = \\lVert P@z \\rVert^2 / d$ and $s = \\sqrt{q + @eps}$.",
        steps[2:4],
    )
    draft.part("Compute the normalized core $@u = P@z / s$.", steps[4:])
    draft.part(
        "Check that $\\mu(@u) = 0$ and that $q(@u) = q / (q + @eps)$.",
        [
            (r"\mu(@u)", _n(core_mean)),
            (r"q(@u)", rf"\tfrac{{1}}{{{draft.d}}} \lVert @u \rVert^{{2}} = {_n(core_var)}"),
            (r"\frac{q}{q + @eps}", rf"\frac{{{_slash(f['q'])}}}{{{_slash(s * s)}}} = {_n(ratio)}"),
        ],
        "The core is centered, and its variance is $q/(q + @eps) < 1$: it would be $1$ only "
        "for $@eps = 0$.",
    )


def _shift_scale(draft: _Draft) -> None:
    z, eps, a = xm.scalable_input(draft.rng, draft.d, draft.novelty)
    c = Fraction(xm.nonzero(draft.rng, 9))
    draft.given(z=z, eps=eps, c=c, a=Fraction(a))
    _setting(draft, f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$")
    f = _forward(z, eps)
    u = draft.answer("core", f["u"], _U)
    shifted = xm.add(z, xm.times(c, xm.vec([1] * draft.d)))
    u_shift = draft.answer("shifted_core", xm.core(shifted, eps), core(_Z + c * ir.ones))
    scaled = xm.times(Fraction(a), z)
    q_a = draft.answer("scaled_variance", xm.variance(scaled), ir.var(a * _Z))
    s_a = draft.answer(
        "scaled_scale", xm.scale(scaled, eps), (ir.var(a * _Z) + ir.eps) ** sympy.Rational(1, 2)
    )
    u_scale = draft.answer("scaled_core", xm.core(scaled, eps), core(a * _Z))
    draft.part("Compute the core $@u(@z)$.", f["steps"])
    draft.part(
        f"Compute $@u(@z + c @1)$ for the shift $c = {_n(c)}$.",
        [
            (r"@z + c @1", _v(shifted)),
            (r"\mu(@z + c @1)", rf"\mu + c = {_n(xm.mean(shifted))}"),
            (r"P(@z + c @1)", rf"P@z + c P @1 = P@z = {_v(xm.center(shifted))}"),
            (r"@u(@z + c @1)", rf"P@z / s = {_v(u_shift)}"),
        ],
        "$@u(@z + c @1) = @u(@z)$: a shift moves the mean by $c$ and leaves $P@z$, $q$ and "
        "$s$ unchanged.",
    )
    if u_shift != u or u_scale == u:  # pragma: no cover - shift invariance, ε > 0
        raise CrossCheckError(f"exercise {draft.number}: shift and scale behave unexpectedly")
    conclusion = (
        f"$@u(a @z) \\neq @u(@z)$: scaling multiplies $P@z$ by $a = {a}$ but $s$ only by "
        f"${_n(s_a / f['s'])}$, because of $@eps > 0$. With $@eps = 0$ the factor $a$ would "
        "cancel."
    )
    draft.part(
        f"Compute $@u(a @z)$ for the scale $a = {a}$.",
        [
            (r"a @z", _v(scaled)),
            (r"P(a @z)", rf"a P@z = {_v(xm.center(scaled))}"),
            (r"q(a @z)", rf"a^{{2}} q = {a * a} \cdot {_n(f['q'])} = {_n(q_a)}"),
            (r"s(a @z)", rf"\sqrt{{q(a @z) + @eps}} = \sqrt{{{_n(q_a + eps)}}} = {_n(s_a)}"),
            (r"@u(a @z)", rf"a P@z / s(a @z) = {_v(u_scale)}"),
        ],
        conclusion,
    )


def _gain_bias(draft: _Draft) -> None:
    rng, d = draft.rng, draft.d
    z, eps = xm.nice_input(draft.rng, draft.d, draft.novelty, slack=2)
    gamma, beta = xm.gain(rng, d), xm.small_vector(rng, d, 2)
    gamma0, beta0 = Fraction(rng.choice((-2, 2, 3))), Fraction(xm.nonzero(rng, 3))
    draft.given(z=z, eps=eps, gamma=gamma, beta=beta, gamma0=gamma0, beta0=beta0)
    _setting(
        draft, f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$",
        f"$@beta = {_vi(beta)}$",
    )  # fmt: skip
    f = _forward(z, eps)
    u = draft.answer("core", f["u"], _U)
    gu = xm.hadamard(gamma, u)
    y = draft.answer("output", xm.add(gu, beta), _Y)
    y_mean = draft.answer("output_mean", xm.mean(y), ir.mean(_Y))
    y_var = draft.answer("output_variance", xm.variance(y), ir.var(_Y))
    u_var = draft.answer("core_variance", xm.variance(u), ir.var(_U))
    flat = layer_norm(_Z, gamma0 * ir.ones, beta0 * ir.ones)
    y0 = draft.answer("uniform_output", xm.add(xm.times(gamma0, u), xm.vec([beta0] * d)), flat)
    y0_mean = draft.answer("uniform_output_mean", xm.mean(y0), ir.mean(flat))
    y0_var = draft.answer("uniform_output_variance", xm.variance(y0), ir.var(flat))
    draft.part(
        "Compute the core $@u$ and the output $@y = @gamma \\odot @u + @beta$.",
        [*f["steps"], (r"@gamma \odot @u", _v(gu)), (r"@y", rf"@gamma \odot @u + @beta = {_v(y)}")],
    )
    centered = "is" if y_mean == 0 else "is not"
    draft.part(
        "Compute the mean $\\mu(@y)$. Is the output centered like the core? Compare with "
        "$\\mu(@beta)$.",
        [
            (
                r"\mu(@y)",
                rf"\mu(@gamma \odot @u) + \mu(@beta) = {_sum_text([xm.mean(gu), xm.mean(beta)])} "
                rf"= {_n(y_mean)}",
            ),
        ],
        f"The output {centered} centered here: its mean is $\\mu(@beta) = {_n(xm.mean(beta))}$ "
        "plus $\\mu(@gamma \\odot @u)$, which vanishes when the gain is constant but not in "
        "general.",
    )
    draft.part(
        "Compute the variance $q(@y)$ and compare it with the core's $q(@u)$.",
        [
            (r"P@y", rf"@y - \mu(@y) @1 = {_v(xm.center(y))}"),
            (r"q(@y)", rf"\tfrac{{1}}{{{d}}} \lVert P@y \rVert^{{2}} = {_n(y_var)}"),
            (r"q(@u)", rf"\frac{{q}}{{q + @eps}} = {_n(u_var)}"),
        ],
        (
            "$q(@y) = q(@u)$ here, but only by coincidence: in general"
            if y_var == u_var
            else "$q(@y) \\neq q(@u)$:"
        )
        + " the gain reweights the coordinates and the bias adds a spread of its own, so the "
        "output does not keep the variance of the core.",
    )
    draft.part(
        f"Now take the constant gain $\\gamma_0 @1$ and bias $\\beta_0 @1$ with "
        f"$\\gamma_0 = {_n(gamma0)}$ and $\\beta_0 = {_n(beta0)}$. Compute the output and "
        "its mean and variance.",
        [
            (r"@y", rf"\gamma_0 @u + \beta_0 @1 = {_v(y0)}"),
            (r"\mu(@y)", rf"\gamma_0 \mu(@u) + \beta_0 = {_n(y0_mean)}"),
            (
                r"q(@y)",
                rf"\gamma_0^{{2}} q(@u) = {_n(gamma0 * gamma0)} \cdot {_n(u_var)} = "
                rf"{_n(y0_var)}",
            ),
        ],  # fmt: skip
        "A constant bias sets the mean and a constant gain multiplies the variance by "
        "$\\gamma_0^2$.",
    )


def _jacobian_kind(draft: _Draft) -> None:
    rng, d = draft.rng, draft.d
    z, eps = xm.nice_input(draft.rng, draft.d, draft.novelty, slack=2)
    gamma = xm.gain(rng, d)
    draft.given(z=z, eps=eps, gamma=gamma, beta=xm.vec([0] * d))
    _setting(draft, f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$")
    f = _forward(z, eps)
    u = draft.answer("core", f["u"], _U)
    s = draft.answer("scale", f["s"], (ir.var(_Z) + ir.eps) ** sympy.Rational(1, 2))
    jac = draft.answer("jacobian", xm.jacobian(u, s), _U, wrt=_Z)
    ones = draft.answer("jacobian_ones", xm.vec([0] * d), jvp(_U, _Z, ir.ones))
    full = tuple(tuple(g * x for x in row) for g, row in zip(gamma, jac, strict=True))
    full = draft.answer("output_jacobian", full, _Y, wrt=_Z)
    symmetric = all(jac[i][j] == jac[j][i] for i in range(d) for j in range(d))
    if not symmetric:  # pragma: no cover - the closed form is symmetric by construction
        raise CrossCheckError(f"exercise {draft.number}: J is not symmetric")
    outer = tuple(tuple(a * b for b in u) for a in u)
    draft.part("Compute $s$ and the core $@u$.", f["steps"])
    draft.part(
        "Compute the Jacobian of the core, $J = (P - @u @u^{\\top} / d) / s$.",
        [
            (r"P", rf"I - @1 @1^{{\top}} / {d} = {_m(xm.centering(d))}"),
            (r"@u @u^{\top}", _m(outer)),
            (r"J", _m(jac)),
        ],
    )
    draft.part(
        "Check that $J @1 = 0$ and that $J$ is symmetric.",
        [(r"J @1", _v(ones))],
        "Every row sums to $0$ (a shift of the input does not move the core), and "
        "$J^{\\top} = J$ because $P$ and $@u @u^{\\top}$ are symmetric.",
    )
    draft.part(
        "Compute the Jacobian $\\operatorname{diag}(@gamma) J$ of the output "
        "$@y = @gamma \\odot @u + @beta$.",
        [(r"\operatorname{diag}(@gamma) J", _m(full))],
        "Row $i$ of $J$ is multiplied by $\\gamma_i$; the bias does not appear, and the "
        "result is no longer symmetric unless the gain is constant.",
    )


def _gradients(draft: _Draft) -> None:
    rng, d = draft.rng, draft.d
    z, eps = xm.nice_input(draft.rng, draft.d, draft.novelty, slack=2)
    gamma, beta = xm.gain(rng, d), xm.small_vector(rng, d, 2)
    g = xm.upstream(rng, d)
    draft.given(z=z, eps=eps, gamma=gamma, beta=beta, g=g)
    _setting(
        draft, f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$",
        f"$@beta = {_vi(beta)}$",
    )  # fmt: skip
    draft.setting += _prose(
        " A loss $\\ell$ has the upstream gradient "
        f"$@g = \\partial \\ell / \\partial @y = {_vi(g)}$ at the output "
        "$@y = @gamma \\odot @u + @beta$."
    )
    f = _forward(z, eps)
    u = draft.answer("core", f["u"], _U)
    s = f["s"]
    gb = draft.answer("grad_beta", g, vjp(_Y, _BETA, _G))
    gg = draft.answer("grad_gamma", xm.hadamard(g, u), vjp(_Y, _GAMMA, _G))
    g_hat = draft.answer("scaled_upstream", xm.hadamard(gamma, g), ir.hadamard(_GAMMA, _G))
    gz = draft.answer("grad_z", xm.grad_z(u, s, g_hat), vjp(_Y, _Z, _G))
    # ⟨1, ∂ℓ/∂z⟩ is the derivative of ℓ = ⟨g, y⟩ along 1: another route through the IR.
    total = draft.answer("grad_z_sum", sum(gz, Fraction(0)), jvp(ir.dot(_G, _Y), _Z, ir.ones))
    gu = xm.hadamard(g_hat, u)
    draft.part("Compute the core $@u$.", f["steps"])
    draft.part(
        "Compute $\\partial \\ell / \\partial @beta$ and $\\partial \\ell / \\partial @gamma$.",
        [
            (r"\partial \ell / \partial @beta", rf"@g = {_v(gb)}"),
            (r"\partial \ell / \partial @gamma", rf"@g \odot @u = {_v(gg)}"),
        ],
    )
    draft.part(
        "Compute $\\partial \\ell / \\partial @z = (@ghat - \\mu(@ghat) @1 - "
        "\\mu(@ghat \\odot @u) @u) / s$ with $@ghat = @gamma \\odot @g$.",
        [
            (r"@ghat", rf"@gamma \odot @g = {_v(g_hat)}"),
            (r"\mu(@ghat)", _n(xm.mean(g_hat))),
            (r"@ghat \odot @u", _v(gu)),
            (r"\mu(@ghat \odot @u)", _n(xm.mean(gu))),
            (r"\partial \ell / \partial @z", _v(gz)),
        ],
    )
    draft.part(
        "What is the sum of the entries of $\\partial \\ell / \\partial @z$, and why?",
        [(r"\langle @1, \partial \ell / \partial @z \rangle", _n(total))],
        "It is $0$: $\\partial \\ell / \\partial @z = J^{\\top} @ghat$ and "
        "$\\langle @1, J^{\\top} @ghat \\rangle = \\langle J @1, @ghat \\rangle = 0$.",
    )


def _inverse_variance(draft: _Draft) -> None:
    d = draft.d
    v, t, r, eps = xm.inverse_data(draft.rng, draft.d, draft.novelty)
    draft.given(eps=eps, r=r, v=v)
    _setting(draft, f"$@eps = {_n(eps)}$", f"the target core variance $r = {_n(r)}$")
    z = xm.times(t, v)
    at = {"z": z}  # the input found in (b), where the IR checks the answers
    q = draft.answer("required_variance", eps * r / (1 - r), ir.var(_Z), at=at)
    q_v = draft.answer("direction_variance", xm.variance(v), ir.var(_V))
    root = (ir.var(_Z) / ir.var(_V)) ** sympy.Rational(1, 2)
    t = draft.answer("scale_factor", xm.rational_sqrt(q / q_v), root, at=at)
    draft.answer("input", z, t * _V)
    q_z = draft.answer("input_variance", xm.variance(z), ir.var(_Z), at=at)
    r_z = draft.answer("core_variance", q_z / (q_z + eps), ir.var(_U), at=at)
    draft.part(
        "Which input variance $q$ gives the core variance $q / (q + @eps) = r$?",
        [
            (r"q", r"r (q + @eps)"),
            (r"q (1 - r)", r"@eps r"),
            (
                r"q",
                rf"\frac{{@eps r}}{{1 - r}} = \frac{{{_slash(eps)} \cdot {_slash(r)}}}"
                rf"{{{_slash(1 - r)}}} = {_n(q)}",
            ),
        ],  # fmt: skip
    )
    draft.part(
        f"Find $t > 0$ such that $@z = t @v$ has variance $q$, for $@v = {_vi(v)}$.",
        [
            (r"P@v", _v(xm.center(v))),
            (r"q(@v)", rf"\tfrac{{1}}{{{d}}} \lVert P@v \rVert^{{2}} = {_n(q_v)}"),
            (r"t^{2}", rf"q / q(@v) = {_n(q / q_v)}"),
            (r"t", _n(t)),
            (r"@z", rf"t @v = {_v(z)}"),
        ],
        "Any shift $@z + c @1$ works as well, and so does any $@z$ with "
        "$\\lVert P@z \\rVert^2 = d q$.",
    )
    draft.part(
        "Check your input: compute $q(@z)$ and the variance of its core $@u$.",
        [
            (r"q(@z)", rf"t^{{2}} q(@v) = {_n(q_z)}"),
            (r"q(@u)", rf"\frac{{q(@z)}}{{q(@z) + @eps}} = {_n(r_z)}"),
        ],
        f"The core variance is $r = {_n(r)}$, as asked.",
    )


def _sensitivity(draft: _Draft) -> None:
    rng, d = draft.rng, draft.d
    h, e, s = xm.sensitivity_data(draft.rng, draft.d, draft.novelty)
    q_h = xm.squared_norm(h) / d
    c = Fraction(xm.nonzero(rng, 5))
    z = xm.vec([c] * d)
    eps = e * e
    draft.given(z=z, eps=eps, h=h, c=c)
    _setting(
        draft, f"the constant input $@z = {_vi(z)}$", f"the centered perturbation $@h = {_vi(h)}$",
        f"$@eps = {_n(eps)}$",
    )  # fmt: skip
    # The closed forms come from the definitions, not from the construction of e and s.
    u0 = draft.answer("core", xm.core(z, eps), _U)
    u1 = draft.answer("moved_core", xm.core(xm.add(z, h), eps), core(_Z + _H))
    moved = xm.add(u1, xm.times(Fraction(-1), u0))
    ratio = draft.answer(
        "ratio", xm.norm_ratio(moved, h), ir.norm(core(_Z + _H) - _U) / ir.norm(_H)
    )
    bound = draft.answer(
        "bound", 1 / xm.rational_sqrt(eps), ir.as_scalar(ir.eps) ** sympy.Rational(-1, 2)
    )
    jh = xm.apply(xm.jacobian(u0, xm.scale(z, eps)), h)
    slope = draft.answer(
        "derivative_ratio", xm.norm_ratio(jh, h), ir.norm(jvp(_U, _Z, _H)) / ir.norm(_H)
    )
    if (ratio, bound, slope) != (1 / s, 1 / e, 1 / e):  # pragma: no cover - the construction
        raise CrossCheckError(f"exercise {draft.number}: the sensitivity data are not as built")
    draft.part(
        "Compute $@u(@z)$ and $@u(@z + @h)$.",
        [
            (r"@u(@z)", rf"P@z / s = {_v(u0)}"),
            (r"P(@z + @h)", r"@h \quad (\text{as } \langle @1, @h \rangle = 0)"),
            (
                r"q(@z + @h)",
                rf"\tfrac{{1}}{{{d}}} \lVert @h \rVert^{{2}} = \tfrac{{1}}{{{d}}} \cdot "
                rf"{_n(xm.squared_norm(h))} = {_n(q_h)}",
            ),
            (r"s(@z + @h)", rf"\sqrt{{{_n(q_h)} + {_n(eps)}}} = {_n(s)}"),
            (r"@u(@z + @h)", rf"@h / s(@z + @h) = {_v(u1)}"),
        ],
    )
    draft.part(
        "Compute $\\rho = \\lVert @u(@z + @h) - @u(@z) \\rVert / \\lVert @h \\rVert$ and compare "
        "it with the Lipschitz bound $1 / \\sqrt{@eps}$.",
        [
            (r"\rho", rf"\frac{{\lVert @h \rVert / s(@z + @h)}}{{\lVert @h \rVert}} = {_n(ratio)}"),
            (r"1 / \sqrt{@eps}", _n(bound)),
        ],
        f"$\\rho = {_n(ratio)} < {_n(bound)}$: the finite ratio $1 / \\sqrt{{q(@h) + @eps}}$ "
        "stays below the bound and approaches it as $@h$ shrinks.",
    )
    draft.part(
        "At this $@z$ the Jacobian of the core is $J = P / \\sqrt{@eps}$. Compute "
        "$\\lVert J @h \\rVert / \\lVert @h \\rVert$.",
        [
            (r"J @h", r"P @h / \sqrt{@eps} = @h / \sqrt{@eps}"),
            (r"\lVert J @h \rVert / \lVert @h \rVert", rf"1 / \sqrt{{@eps}} = {_n(slope)}"),
        ],
        "The derivative attains the bound $1 / \\sqrt{@eps}$: at a constant input the core is "
        "as sensitive as it can be.",
    )


_BUILDERS: dict[str, Callable[[_Draft], None]] = {
    "statistics": _statistics,
    "shift-scale": _shift_scale,
    "gain-bias": _gain_bias,
    "jacobian": _jacobian_kind,
    "gradients": _gradients,
    "inverse-variance": _inverse_variance,
    "sensitivity": _sensitivity,
}


# ---------------------------------------------------------------------------------------
# The sheet


def _kinds(rng: random.Random, count: int) -> list[str]:
    """``count`` kinds: shuffled rounds of all kinds (so each appears once per 7), presented
    in the order of :data:`KINDS`, from the basics to the sensitivity."""
    drawn: list[str] = []
    while len(drawn) < count:
        round_ = list(KINDS)
        rng.shuffle(round_)
        drawn += round_
    return sorted(drawn[:count], key=KINDS.index)


def generate_sheet(
    count: int = 12, seed: int = 0, dimensions: tuple[int, int] = DEFAULT_DIMENSIONS
) -> Sheet:
    """Draw an exercise sheet; the same arguments always give the same sheet.

    Args:
        count: the number of exercises, 1 to :data:`MAX_COUNT`.
        seed: the seed, 0 to :data:`MAX_SEED`.
        dimensions: the range (low, high) of d, within 1..:data:`MAX_D`; d = 1 is skipped.

    Returns:
        The sheet, every answer checked through the IR.

    Raises:
        UserInputError: for a count, seed or range out of bounds.
        CrossCheckError: if a closed form disagrees with the IR (a bug in lnsym).
    """
    _check_options(count, seed, dimensions)
    rng = random.Random(seed)
    low, high = max(dimensions[0], 2), dimensions[1]
    exercises = []
    novelty = xm.Novelty()  # no two exercises of the sheet share an input
    for number, kind in enumerate(_kinds(rng, count), start=1):
        draft = _Draft(number, kind, rng.randint(low, high), rng, novelty)
        _BUILDERS[kind](draft)
        exercises.append(draft.done())
    return Sheet(seed, dimensions, tuple(exercises))
