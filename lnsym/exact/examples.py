"""Exact worked examples of layer normalization at a given point.

Given z, ε and optionally γ, β, an upstream gradient g (or the loss ℓ = ½‖y‖², so g = y)
and a perturbation h, :func:`worked_example` computes every intermediate quantity exactly:
μ, Pz, q, q + ε, s = √(q + ε), the core u = Pz/s, y = γ ⊙ u + β, the Jacobians
J = (P − uuᵀ/d)/s and diag(γ)J, and the gradients ∂ℓ/∂β = g, ∂ℓ/∂γ = g ⊙ u and
∂ℓ/∂z = (ĝ − μ(ĝ)1 − μ(ĝ ⊙ u)u)/s with ĝ = γ ⊙ g.

The values are computed through the IR — e.g. ``jvp(core(z), z, e)`` for the columns of J,
``vjp(layer_norm(z, gamma, beta), z, g)`` for ∂ℓ/∂z — by the general-d engine evaluated at
the point, so an example exercises the same machinery as the proofs. They are then checked
against the closed forms computed here with plain SymPy matrices; a disagreement is a bug in
lnsym and raises :class:`CrossCheckError`.

>>> ex = worked_example([1, 2, 4], Fraction(1, 3))
>>> ex.variance, ex.scale
(14/9, sqrt(17)/3)
>>> ex.format_value(ex.core)
'(-4, -1, 5)/√17'
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy
from sympy.core.evalf import PrecisionExhausted

from lnsym.engines.general import GeneralEngine, instantiate
from lnsym.errors import CrossCheckError, ExactArithmeticError, UserInputError
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import grad, jvp, vjp
from lnsym.ir.layers import core, layer_norm
from lnsym.printing.printer import latex as _ir_latex

Number = int | Fraction | sympy.Rational
Vector = tuple[sympy.Expr, ...]
Value = sympy.Expr | Vector | sympy.ImmutableMatrix

#: The named losses :func:`worked_example` understands (ℓ = ½‖y‖², whose gradient is g = y).
LOSSES = ("half-squared-norm",)
#: Jacobian matrices are computed and shown only up to this dimension (they have d² entries).
MAX_MATRIX_DIMENSION = 16
#: The largest d :func:`worked_example` accepts. At d = 64 an example with every option
#: takes a second or two and prints pages; the cost grows quickly with d (d = 10000: 92 s).
MAX_DIMENSION = 64

__all__ = [
    "LOSSES",
    "MAX_DIMENSION",
    "MAX_MATRIX_DIMENSION",
    "CrossCheckError",
    "ExactArithmeticError",
    "PerturbationRatio",
    "Row",
    "WorkedExample",
    "perturbation_ratio",
    "required_variance",
    "same_value",
    "worked_example",
]


# ---------------------------------------------------------------------------------------
# The IR expressions an example evaluates. Atom names are ours, never the user's.

_Z, _GAMMA, _BETA = ir.vector("z"), ir.vector("gamma"), ir.vector("beta")
_G, _E, _H = ir.vector("g"), ir.vector("e"), ir.vector("h")
_U = core(_Z)
_Y = layer_norm(_Z, _GAMMA, _BETA)
_HALF_SQUARED_NORM = ir.dot(_Y, _Y) / 2
_RATIO = ir.norm(layer_norm(_Z + _H, _GAMMA, _BETA) - _Y) / ir.norm(_H)

# One engine for the module: its memo holds only the handful of forms above.
_ENGINE = GeneralEngine()
_X = sympy.Symbol("x")


def _evaluate(e: ir.Expr, atoms: dict[str, list[sympy.Expr]], eps: sympy.Expr) -> Any:
    """``e`` evaluated exactly at the given vectors and ε, through the general engine."""
    return instantiate(_ENGINE.form(e), atoms, {ir.eps: eps})


# ---------------------------------------------------------------------------------------
# Input checking


def _rational(x: Any, what: str) -> sympy.Rational:
    if isinstance(x, bool):
        raise UserInputError(f"{what}: booleans are not numbers")
    if isinstance(x, int):
        return sympy.Integer(x)
    if isinstance(x, Fraction):
        return sympy.Rational(x.numerator, x.denominator)
    if isinstance(x, sympy.Rational):
        return x
    if isinstance(x, float):
        raise UserInputError(
            f"{what}: the float {x!r} is inexact; use fractions.Fraction or lnsym.parse"
        )
    raise UserInputError(f"{what}: expected an exact rational number, got {type(x).__name__}")


def _vector(values: Any, what: str, length: int | None = None) -> Vector:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise UserInputError(f"{what} must be a sequence of numbers (parse text with lnsym.parse)")
    out = tuple(_rational(v, f"{what}[{i}]") for i, v in enumerate(values))
    if not out:
        raise UserInputError(f"{what} is empty: give at least one coordinate")
    if length is not None and len(out) != length:
        entries = "entry" if len(out) == 1 else "entries"
        raise UserInputError(f"{what} has {len(out)} {entries}, but z has {length}")
    return out


def _epsilon(eps: Any, idealized: bool) -> sympy.Rational:
    value = _rational(eps, "eps")
    if idealized and value != 0:
        raise UserInputError(f"the idealized variant means ε = 0, but ε = {value} was given")
    if not idealized and value <= 0:
        raise UserInputError(
            f"ε must be positive, got {value} (ε = 0 only when the idealized variant is requested)"
        )
    return value


def _is_constant(v: Vector) -> bool:
    return all(x == v[0] for x in v)


def _check_idealized(v: Vector, eps: sympy.Expr, what: str) -> None:
    if eps == 0 and _is_constant(v):
        raise UserInputError(
            f"{what} is constant, so its variance is 0 and the idealized core (ε = 0) "
            "is undefined there; use ε > 0"
        )


# ---------------------------------------------------------------------------------------
# Exact comparison


def _same(a: sympy.Expr, b: sympy.Expr) -> bool:
    """Whether two real algebraic numbers are equal, decided exactly."""
    diff = sympy.expand(a - b)
    if diff == 0:
        return True
    # A cheap certain answer first: SymPy's strict evaluation returns a value only when its
    # digits are guaranteed, so a nonzero value proves a ≠ b. It fails near an exact zero,
    # which the minimal polynomial then decides.
    value = _numeric(diff, 15)
    if value is not None and not value.is_zero:
        return False
    return sympy.minimal_polynomial(diff, _X) == _X


def same_value(a: Value, b: Value) -> bool:
    """Whether two exact scalars, vectors or matrices are equal, decided exactly.

    >>> same_value((sympy.sqrt(sympy.Rational(9, 10)),), (3 * sympy.sqrt(10) / 10,))
    True
    """
    left, right = _entries(a), _entries(b)
    if isinstance(a, sympy.MatrixBase) and isinstance(b, sympy.MatrixBase):
        if a.shape != b.shape:
            return False
    elif isinstance(a, sympy.MatrixBase) or isinstance(b, sympy.MatrixBase):
        return False
    elif isinstance(a, tuple) != isinstance(b, tuple):
        return False
    return len(left) == len(right) and all(map(_same, left, right))


def _entries(value: Value) -> list[sympy.Expr]:
    if isinstance(value, sympy.MatrixBase):
        return list(value)
    if isinstance(value, tuple):
        return list(value)
    return [value]


def _cross_check(through_ir: dict[str, Value | None], closed: dict[str, Value | None]) -> None:
    for key, expected in closed.items():
        got = through_ir[key]
        if (got is None) != (expected is None):
            raise CrossCheckError(f"{key}: one computation is missing")
        if got is None or expected is None:
            continue
        left, right = _entries(got), _entries(expected)
        if len(left) != len(right):
            raise CrossCheckError(f"{key}: {len(left)} entries from the IR, {len(right)} closed")
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            if not _same(a, b):
                where = f"{key}[{index}]" if len(left) > 1 else key
                raise CrossCheckError(
                    f"{where}: the IR gives {sympy.sstr(a)} but the closed form gives "
                    f"{sympy.sstr(b)}"
                )


# ---------------------------------------------------------------------------------------
# The two computations


@dataclass(frozen=True)
class _Inputs:
    z: Vector
    eps: sympy.Rational
    gamma: Vector
    beta: Vector
    upstream: Vector | None
    loss: str | None
    perturbation: Vector | None

    @property
    def d(self) -> int:
        return len(self.z)

    def atoms(self) -> dict[str, list[sympy.Expr]]:
        atoms = {"z": list(self.z), "gamma": list(self.gamma), "beta": list(self.beta)}
        if self.upstream is not None:
            atoms["g"] = list(self.upstream)
        if self.perturbation is not None:
            atoms["h"] = list(self.perturbation)
        return atoms


def _unit(d: int, j: int) -> list[sympy.Expr]:
    return [sympy.Integer(int(i == j)) for i in range(d)]


def _through_ir(x: _Inputs) -> dict[str, Value | None]:
    """Every quantity of the example, evaluated from IR expressions by the general engine."""
    atoms = x.atoms()

    def at(e: ir.Expr) -> Any:
        value = _evaluate(e, atoms, x.eps)
        return tuple(value) if isinstance(value, list) else value

    def matrix(e: ir.Expr) -> sympy.ImmutableMatrix:
        # Column j of the Jacobian is the directional derivative along the unit vector e_j.
        columns = [
            _evaluate(jvp(e, _Z, _E), {**atoms, "e": _unit(x.d, j)}, x.eps) for j in range(x.d)
        ]
        return sympy.ImmutableMatrix(x.d, x.d, lambda i, j: columns[j][i])

    q_plus_eps = ir.var(_Z) + ir.eps
    out: dict[str, Value | None] = {
        "mean": at(ir.mean(_Z)),
        "centered": at(ir.center(_Z)),
        "variance": at(ir.var(_Z)),
        "variance_plus_eps": at(q_plus_eps),
        "scale": at(q_plus_eps ** sympy.Rational(1, 2)),
        "core": at(_U),
        "core_mean": at(ir.mean(_U)),
        "core_variance": at(ir.var(_U)),
        "output": at(_Y),
        "output_mean": at(ir.mean(_Y)),
        "output_variance": at(ir.var(_Y)),
        "jacobian": matrix(_U) if x.d <= MAX_MATRIX_DIMENSION else None,
        "output_jacobian": matrix(_Y) if x.d <= MAX_MATRIX_DIMENSION else None,
        "loss_value": None,
        "upstream": x.upstream,
        "grad_beta": None,
        "grad_gamma": None,
        "scaled_upstream": None,
        "grad_z": None,
        "perturbation_ratio": at(_RATIO) if x.perturbation is not None else None,
    }
    if x.loss is not None:
        # ℓ = ½‖y‖²: differentiate the loss itself; its output gradient is g = y.
        out["loss_value"] = at(_HALF_SQUARED_NORM)
        out["upstream"] = out["output"]
        out["scaled_upstream"] = at(ir.hadamard(_GAMMA, _Y))
        for key, atom in (("grad_beta", _BETA), ("grad_gamma", _GAMMA), ("grad_z", _Z)):
            out[key] = at(grad(_HALF_SQUARED_NORM, atom))
    elif x.upstream is not None:
        out["scaled_upstream"] = at(ir.hadamard(_GAMMA, _G))
        for key, atom in (("grad_beta", _BETA), ("grad_gamma", _GAMMA), ("grad_z", _Z)):
            out[key] = at(vjp(_Y, atom, _G))
    return out


def _column(v: Sequence[sympy.Expr]) -> sympy.Matrix:
    return sympy.Matrix(list(v))


def _closed_form(x: _Inputs) -> dict[str, Value | None]:
    """The same quantities from the textbook formulas, with plain SymPy matrices."""
    d = x.d
    one = sympy.ones(d, 1)
    z, gamma, beta = _column(x.z), _column(x.gamma), _column(x.beta)

    def mean(v: sympy.Matrix) -> sympy.Expr:
        return sympy.Add(*v) / d  # one n-ary Add, not n pairwise ones

    def variance(v: sympy.Matrix) -> sympy.Expr:
        centered = v - mean(v) * one
        return centered.dot(centered) / d

    mu = mean(z)
    pz = z - mu * one
    q = pz.dot(pz) / d
    s = sympy.sqrt(q + x.eps)
    u = pz / s
    y = gamma.multiply_elementwise(u) + beta
    out: dict[str, Value | None] = {
        "mean": mu,
        "centered": tuple(pz),
        "variance": q,
        "variance_plus_eps": q + x.eps,
        "scale": s,
        "core": tuple(u),
        "core_mean": mean(u),
        "core_variance": variance(u),
        "output": tuple(y),
        "output_mean": mean(y),
        "output_variance": variance(y),
        "jacobian": None,
        "output_jacobian": None,
        "loss_value": None,
        "upstream": x.upstream,
        "grad_beta": None,
        "grad_gamma": None,
        "scaled_upstream": None,
        "grad_z": None,
        "perturbation_ratio": None,
    }
    full = None
    if d <= MAX_MATRIX_DIMENSION:
        p = sympy.eye(d) - one * one.T / d
        jac = (p - u * u.T / d) / s
        full = sympy.diag(*x.gamma) * jac
        out["jacobian"] = sympy.ImmutableMatrix(jac)
        out["output_jacobian"] = sympy.ImmutableMatrix(full)
    if x.loss is not None or x.upstream is not None:
        g = y if x.loss is not None else _column(x.upstream or ())
        g_hat = gamma.multiply_elementwise(g)
        grad_z = (g_hat - mean(g_hat) * one - mean(g_hat.multiply_elementwise(u)) * u) / s
        if full is not None and not all(map(_same, grad_z, full.T * g)):
            raise CrossCheckError("the gradient formula disagrees with Jᵀ·diag(γ)·g")
        out.update(
            upstream=tuple(g),
            grad_beta=tuple(g),
            grad_gamma=tuple(g.multiply_elementwise(u)),
            scaled_upstream=tuple(g_hat),
            grad_z=tuple(grad_z),
        )
        if x.loss is not None:
            out["loss_value"] = y.dot(y) / 2
    if x.perturbation is not None:
        out["perturbation_ratio"] = _closed_ratio(x.z, x.perturbation, x.eps, x.gamma)
    return out


def _closed_ratio(z: Vector, h: Vector, eps: sympy.Expr, gamma: Vector) -> sympy.Expr:
    """‖γ ⊙ (u(z + h) − u(z))‖/‖h‖ from the definitions (β cancels in the difference)."""

    def core_of(v: Sequence[sympy.Expr]) -> sympy.Matrix:
        col = _column(v)
        centered = col - (sympy.Add(*col) / len(v)) * sympy.ones(len(v), 1)
        return centered / sympy.sqrt(centered.dot(centered) / len(v) + eps)

    moved = [a + b for a, b in zip(z, h, strict=True)]
    diff = _column(gamma).multiply_elementwise(core_of(moved) - core_of(z))
    return sympy.sqrt(diff.dot(diff)) / sympy.sqrt(_column(h).dot(_column(h)))


def _lipschitz_bound(gamma: Vector, eps: sympy.Expr) -> sympy.Expr | None:
    """max|γᵢ|/√ε, the Lipschitz constant of z ↦ y (none for the idealized ε = 0)."""
    return max(abs(g) for g in gamma) / sympy.sqrt(eps) if eps != 0 else None


# ---------------------------------------------------------------------------------------
# Formatting of exact values


def _surd(v: sympy.Expr) -> tuple[sympy.Rational, int] | None:
    """(r, k) with v = r·√k, k a squarefree integer ≥ 1, or None if v is not of that form."""
    coefficient, rest = v.as_coeff_Mul()
    if not coefficient.is_Rational:
        return None
    if rest == 1:
        return coefficient, 1
    if rest.is_Pow and rest.exp == sympy.Rational(1, 2) and rest.base.is_Integer:
        return coefficient, int(rest.base)
    return None


@dataclass(frozen=True)
class _Factored:
    """values = factor · entries (``divide``: values = entries / √k)."""

    entries: list[sympy.Expr]
    root: int  # k in √k
    factor: sympy.Expr  # for the "times" form
    divide: bool


def _factor(values: list[sympy.Expr]) -> _Factored | None:
    """Pull a common surd out of values that are all rational multiples of the same √k."""
    if sum(1 for v in values if v != 0) < 2:
        return None
    parts = [(sympy.Integer(0), 0) if v == 0 else _surd(v) for v in values]
    if any(p is None for p in parts):
        return None
    roots = {k for (_, k) in parts if k}  # type: ignore[misc]
    if len(roots) != 1 or roots == {1}:
        return None
    k = roots.pop()
    coefficients = [r for (r, _) in parts]  # type: ignore[misc]
    scaled = [r * k for r in coefficients]
    if all(a.is_Integer for a in scaled):
        # The article's style: (−4, −1, 5)/√17.
        return _Factored(scaled, k, sympy.Integer(1) / sympy.sqrt(k), divide=True)
    numerators = math.gcd(*(int(r.p) for r in coefficients))
    denominators = math.lcm(*(int(r.q) for r in coefficients))
    content = sympy.Rational(numerators, denominators)
    return _Factored([r / content for r in coefficients], k, content * sympy.sqrt(k), divide=False)


def _text_number(v: sympy.Expr) -> str:
    out = sympy.sstr(v).replace("**", "^")
    out = re.sub(r"sqrt\((\d+)\)", r"√\1", out).replace("sqrt(", "√(")
    return out.replace("*", "·")


def _latex_number(v: sympy.Expr) -> str:
    return sympy.latex(v)


def _numeric(v: sympy.Expr, digits: int = 30) -> sympy.Float | None:
    """``v`` with ``digits`` guaranteed digits, or None where SymPy cannot guarantee them."""
    if v.is_Rational:
        return sympy.Float(v, digits)
    # Nested roots of huge inputs cancel badly: raise the working precision until SymPy
    # vouches for the digits (strict=True), instead of printing noise.
    for maxn in (100, 1_000, 10_000):
        try:
            return sympy.N(v, digits, maxn=maxn, strict=True)
        except PrecisionExhausted:
            continue
    return None


def _fits_float(n: sympy.Float) -> bool:
    return bool(n.is_zero) or sympy.Float("1e-300") < abs(n) < sympy.Float("1e300")


def _decimal(v: sympy.Expr) -> float | None:
    """A float, or None where no float holds the value (beyond 10^±300, or not certain)."""
    n = _numeric(v)
    return float(n) if n is not None and _fits_float(n) else None


def _decimal_text(v: sympy.Expr, digits: int = 10) -> str:
    n = _numeric(v)
    if n is None:
        return "?"
    if not _fits_float(n):  # inputs may reach 10^±400: let SymPy print those
        return sympy.sstr(sympy.N(n, digits))
    return f"{float(n):.{digits}g}"


def _is_integer(v: sympy.Expr) -> bool:
    return bool(v.is_Integer)


def _tuple_text(values: Sequence[str]) -> str:
    return "(" + ", ".join(values) + ")"


def _text_value(value: Value) -> str:
    """One-line text of an exact scalar or vector (matrices: see :func:`_text_matrix`)."""
    if isinstance(value, tuple):
        factored = _factor(list(value))
        if factored is None:
            return _tuple_text([_text_number(v) for v in value])
        inner = _tuple_text([_text_number(v) for v in factored.entries])
        if factored.divide:
            return f"{inner}/√{factored.root}"
        return f"({_text_number(factored.factor)})·{inner}"
    if isinstance(value, sympy.MatrixBase):
        return "\n".join(_text_matrix(value))
    return _text_number(value)


def _grid(cells: list[list[str]]) -> list[str]:
    width = max(len(c) for row in cells for c in row)
    return ["[" + "  ".join(c.rjust(width) for c in row) + "]" for row in cells]


def _text_matrix(m: sympy.MatrixBase) -> list[str]:
    factored = _factor(list(m))
    if factored is None:
        return _grid([[_text_number(v) for v in m.row(i)] for i in range(m.rows)])
    entries = factored.entries
    cells = [[_text_number(entries[i * m.cols + j]) for j in range(m.cols)] for i in range(m.rows)]
    prefix = f"1/√{factored.root}" if factored.divide else _text_number(factored.factor)
    return [f"({prefix}) ·", *_grid(cells)]


def _latex_matrix_body(cells: list[list[str]]) -> str:
    rows = [" & ".join(row) for row in cells]
    return r"\begin{pmatrix} " + r" \\ ".join(rows) + r" \end{pmatrix}"


def _latex_value(value: Value) -> str:
    if isinstance(value, tuple):
        factored = _factor(list(value))
        if factored is None:
            return r"\left(" + ", ".join(_latex_number(v) for v in value) + r"\right)"
        inner = r"\left(" + ", ".join(_latex_number(v) for v in factored.entries) + r"\right)"
        if factored.divide:
            return rf"{inner} / \sqrt{{{factored.root}}}"
        return rf"{_latex_number(factored.factor)} {inner}"
    if isinstance(value, sympy.MatrixBase):
        factored = _factor(list(value))
        entries = list(value) if factored is None else factored.entries
        cells = [
            [_latex_number(entries[i * value.cols + j]) for j in range(value.cols)]
            for i in range(value.rows)
        ]
        body = _latex_matrix_body(cells)
        if factored is None:
            return body
        prefix = (
            rf"\frac{{1}}{{\sqrt{{{factored.root}}}}}"
            if factored.divide
            else _latex_number(factored.factor)
        )
        return f"{prefix} {body}"
    return _latex_number(value)


def _decimal_value_text(value: Value) -> str | None:
    """The decimal rendering, or None when every entry is an integer (nothing to add)."""
    entries = _entries(value)
    if all(_is_integer(v) for v in entries):
        return None
    if isinstance(value, sympy.MatrixBase):
        # Fewer digits in a matrix keep its columns readable.
        cells = [[_decimal_text(v, 6) for v in value.row(i)] for i in range(value.rows)]
        return "\n".join(_grid(cells))
    if isinstance(value, tuple):
        return _tuple_text([_decimal_text(v) for v in value])
    return _decimal_text(value)


def _json_value(value: Value) -> dict[str, Any]:
    if isinstance(value, sympy.MatrixBase):
        exact: Any = [[sympy.sstr(v) for v in value.row(i)] for i in range(value.rows)]
        decimal: Any = [[_decimal(v) for v in value.row(i)] for i in range(value.rows)]
    elif isinstance(value, tuple):
        exact = [sympy.sstr(v) for v in value]
        decimal = [_decimal(v) for v in value]
    else:
        exact, decimal = sympy.sstr(value), _decimal(value)
    return {"exact": exact, "decimal": decimal, "display": _text_value(value)}


# ---------------------------------------------------------------------------------------
# The example


_SECTIONS = {
    "input": "Input",
    "forward": "Forward pass",
    "jacobian": "Jacobian with respect to z",
    "backward": "Gradients",
    "perturbation": "Finite perturbation",
}


@dataclass(frozen=True)
class Row:
    """One displayed quantity: its key, section, symbol and formula (text and LaTeX), value.

    ``formula`` and ``latex_formula`` are empty for inputs.
    """

    key: str
    section: str
    symbol: str
    formula: str
    latex_symbol: str
    latex_formula: str
    value: Value


def _labels() -> dict[str, tuple[str, str, str, str, str]]:
    """key → (section, text symbol, text formula, LaTeX symbol, LaTeX formula)."""
    # Bold vector names exactly as the IR's LaTeX printer writes them.
    z, gamma, beta, u, y, g, h = (
        _ir_latex(ir.vector(n)) for n in ("z", "gamma", "beta", "u", "y", "g", "h")
    )
    g_hat, one = rf"\hat{{{g}}}", r"\mathbf{1}"
    return {
        "z": ("input", "z", "", z, ""),
        "gamma": ("input", "γ", "", gamma, ""),
        "beta": ("input", "β", "", beta, ""),
        "perturbation": ("input", "h", "", h, ""),
        "mean": (
            "forward",
            "μ",
            "⟨1, z⟩/d",
            r"\mu",
            rf"\frac{{1}}{{d}} \langle {one}, {z} \rangle",
        ),
        "centered": ("forward", "Pz", "z - μ·1", f"P {z}", rf"{z} - \mu {one}"),
        "variance": ("forward", "q", "‖Pz‖²/d", "q", rf"\frac{{1}}{{d}} \lVert P {z} \rVert^{{2}}"),
        "variance_plus_eps": ("forward", "q + ε", "", r"q + \varepsilon", ""),
        "scale": ("forward", "s", "√(q + ε)", "s", r"\sqrt{q + \varepsilon}"),
        "core": ("forward", "u", "Pz/s", u, rf"u_{{\varepsilon}}({z}) = \frac{{P {z}}}{{s}}"),
        "core_mean": ("forward", "μ(u)", "", rf"\mu({u})", ""),
        "core_variance": ("forward", "q(u)", "q/(q + ε)", f"q({u})", r"\frac{q}{q + \varepsilon}"),
        "output": ("forward", "y", "γ ⊙ u + β", y, rf"{gamma} \odot {u} + {beta}"),
        "output_mean": ("forward", "μ(y)", "", rf"\mu({y})", ""),
        "output_variance": ("forward", "q(y)", "", f"q({y})", ""),
        "jacobian": (
            "jacobian",
            "J",
            "(P - u·uᵀ/d)/s",
            "J",
            rf"\frac{{1}}{{s}} \left(P - \frac{{{u} {u}^{{\mathsf{{T}}}}}}{{d}}\right)",
        ),
        "output_jacobian": ("jacobian", "diag(γ)·J", "", rf"\operatorname{{diag}}({gamma}) J", ""),
        "loss_value": (
            "backward",
            "ℓ",
            "½‖y‖²",
            r"\ell",
            rf"\frac{{1}}{{2}} \lVert {y} \rVert^{{2}}",
        ),
        "upstream": ("backward", "g", "∂ℓ/∂y = y", g, rf"\partial \ell / \partial {y} = {y}"),
        "grad_beta": ("backward", "∂ℓ/∂β", "g", rf"\partial \ell / \partial {beta}", g),
        "grad_gamma": (
            "backward",
            "∂ℓ/∂γ",
            "g ⊙ u",
            rf"\partial \ell / \partial {gamma}",
            rf"{g} \odot {u}",
        ),
        "scaled_upstream": ("backward", "ĝ", "γ ⊙ g", g_hat, rf"{gamma} \odot {g}"),
        "grad_z": (
            "backward",
            "∂ℓ/∂z",
            "(ĝ - μ(ĝ)·1 - μ(ĝ ⊙ u)·u)/s",
            rf"\partial \ell / \partial {z}",
            rf"\frac{{1}}{{s}} \left({g_hat} - \mu({g_hat}) {one}"
            rf" - \mu({g_hat} \odot {u}) {u}\right)",
        ),
        "perturbation_ratio": (
            "perturbation",
            "‖y(z + h) - y(z)‖/‖h‖",
            "",
            rf"\lVert {y}({z} + {h}) - {y}({z}) \rVert / \lVert {h} \rVert",
            "",
        ),
        "lipschitz_bound": (
            "perturbation",
            "L",
            "max|γᵢ|/√ε",
            "L",
            r"\max_i \lvert \gamma_i \rvert / \sqrt{\varepsilon}",
        ),
    }


_LABELS = _labels()


@dataclass(frozen=True)
class WorkedExample:
    """An exact worked example of layer normalization at one point.

    Scalars are SymPy numbers, vectors tuples of them, Jacobians ``ImmutableMatrix``
    (``None`` when d > :data:`MAX_MATRIX_DIMENSION`). The gradient fields are ``None``
    unless an upstream gradient or a loss was given, ``perturbation_ratio`` and
    ``lipschitz_bound`` (max|γᵢ|/√ε) unless a perturbation was given; the bound is also
    ``None`` for the idealized ε = 0, where no finite bound exists.
    """

    z: Vector
    eps: sympy.Rational
    gamma: Vector
    beta: Vector
    idealized: bool
    loss: str | None
    perturbation: Vector | None
    mean: sympy.Expr
    centered: Vector
    variance: sympy.Expr
    variance_plus_eps: sympy.Expr
    scale: sympy.Expr
    core: Vector
    core_mean: sympy.Expr
    core_variance: sympy.Expr
    output: Vector
    output_mean: sympy.Expr
    output_variance: sympy.Expr
    jacobian: sympy.ImmutableMatrix | None
    output_jacobian: sympy.ImmutableMatrix | None
    loss_value: sympy.Expr | None
    upstream: Vector | None
    grad_beta: Vector | None
    grad_gamma: Vector | None
    scaled_upstream: Vector | None
    grad_z: Vector | None
    perturbation_ratio: sympy.Expr | None
    lipschitz_bound: sympy.Expr | None

    @property
    def d(self) -> int:
        """The dimension."""
        return len(self.z)

    @staticmethod
    def format_value(value: Value) -> str:
        """The exact value as text, with a common surd pulled out where all entries share it.

        >>> WorkedExample.format_value((-2 / sympy.sqrt(3), sympy.Integer(0), 2 / sympy.sqrt(3)))
        '(-2, 0, 2)/√3'
        """
        if isinstance(value, tuple):  # allow plain ints and Fractions among the entries
            value = tuple(v if isinstance(v, sympy.Basic) else _rational(v, "entry") for v in value)
        return _text_value(value)

    @staticmethod
    def format_latex(value: Value) -> str:
        r"""The exact value as LaTeX (math mode), in the same style as :meth:`format_value`.

        >>> print(WorkedExample.format_latex((-4 / sympy.sqrt(17), -1 / sympy.sqrt(17))))
        \left(-4, -1\right) / \sqrt{17}
        """
        return _latex_value(value)

    @staticmethod
    def format_decimal(value: Value) -> str | None:
        """The value's decimals as text; None when every entry is an integer.

        >>> WorkedExample.format_decimal(1000 / sympy.sqrt(101))
        '99.50371902'
        """
        return _decimal_value_text(value)

    def rows(self) -> list[Row]:
        """The quantities to display, in order, skipping those not computed."""
        out = []
        for key, (section, symbol, formula, latex_symbol, latex_formula) in _LABELS.items():
            value = getattr(self, key)
            if value is None:
                continue
            if key == "upstream" and self.loss is None:
                section, formula, latex_formula = "input", "", ""  # given, not computed
            out.append(Row(key, section, symbol, formula, latex_symbol, latex_formula, value))
        return out

    def _title(self) -> tuple[str, str]:
        eps_text = "0 (idealized)" if self.idealized else _text_number(self.eps)
        eps_latex = r"0 \text{ (idealized)}" if self.idealized else _latex_number(self.eps)
        return f"d = {self.d}, ε = {eps_text}", rf"d = {self.d},\ \varepsilon = {eps_latex}"

    def _notes(self) -> list[str]:
        notes = []
        if self.loss is not None:
            notes.append("Loss: ℓ = ½‖y‖², so the upstream gradient is g = y.")
        if self.jacobian is None:
            notes.append(f"Jacobians omitted: d = {self.d} > {MAX_MATRIX_DIMENSION}.")
        return notes

    def _sections(self) -> list[tuple[str, list[Row]]]:
        rows = self.rows()
        return [
            (title, [r for r in rows if r.section == key])
            for key, title in _SECTIONS.items()
            if any(r.section == key for r in rows)
        ]

    def to_text(self) -> str:
        """Plain text: one quantity per line, exact value then its decimal.

        >>> print(worked_example([-1, 1], 3).to_text().splitlines()[0])
        Worked example of layer normalization: d = 2, ε = 3
        """
        lines = [f"Worked example of layer normalization: {self._title()[0]}"]
        lines += self._notes()
        for title, rows in self._sections():
            lines += ["", title]
            for row in rows:
                head = f"  {row.symbol} = " + (f"{row.formula} = " if row.formula else "")
                exact = _text_value(row.value)
                approx = _decimal_value_text(row.value)
                if isinstance(row.value, sympy.MatrixBase):
                    lines.append(head.rstrip())
                    lines += ["      " + line for line in exact.splitlines()]
                    if approx is not None:
                        lines.append("    ≈")
                        lines += ["      " + line for line in approx.splitlines()]
                else:
                    lines.append(head + exact + (f"  ≈ {approx}" if approx else ""))
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_markdown(self) -> str:
        """Markdown: one table per section, exact values as inline LaTeX, decimals as text.

        >>> print(worked_example([1, 2, 3], Fraction(1, 3)).to_markdown().splitlines()[0])
        ### Worked example of layer normalization ($d = 3,\\ \\varepsilon = \\frac{1}{3}$)
        """
        lines = [f"### Worked example of layer normalization (${self._title()[1]}$)"]
        lines += ["", *self._notes()] if self._notes() else []
        for title, rows in self._sections():
            lines += ["", f"#### {title}", "", "| Quantity | Exact | Decimal |", "|---|---|---|"]
            for row in rows:
                quantity = row.latex_symbol + (
                    f" = {row.latex_formula}" if row.latex_formula else ""
                )
                approx = _decimal_value_text(row.value) or ""
                approx = approx.replace("\n", "<br>")
                lines.append(f"| ${quantity}$ | ${_latex_value(row.value)}$ | {approx} |")
        return "\n".join(lines) + "\n"

    def to_latex(self) -> str:
        r"""A LaTeX body (needs amsmath): one ``align*`` block per section.

        >>> print(worked_example([1, 2, 3], Fraction(1, 3)).to_latex().splitlines()[0])
        % Worked example of layer normalization: $d = 3,\ \varepsilon = \frac{1}{3}$
        """
        lines = [f"% Worked example of layer normalization: ${self._title()[1]}$"]
        lines += [f"% {note}" for note in self._notes()]
        for title, rows in self._sections():
            lines += [rf"\paragraph{{{title}.}}", r"\begin{align*}"]
            body = []
            for row in rows:
                line = f"  {row.latex_symbol} &= "
                if row.latex_formula:
                    line += f"{row.latex_formula} = "
                line += _latex_value(row.value)
                if not isinstance(row.value, tuple | sympy.MatrixBase) and not _is_integer(
                    row.value
                ):
                    line += rf" \approx {_decimal_text(row.value)}"
                body.append(line)
            lines.append(" \\\\\n".join(body))
            lines.append(r"\end{align*}")
        return "\n".join(lines) + "\n"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: exact values as SymPy strings, decimals as floats (or None).

        >>> worked_example([1, 2, 3], Fraction(1, 3)).to_dict()["values"]["variance"]["exact"]
        '2/3'
        """
        return {
            "schema_version": 1,
            "d": self.d,
            "eps": sympy.sstr(self.eps),
            "idealized": self.idealized,
            "loss": self.loss,
            "values": {
                row.key: {
                    "symbol": row.symbol,
                    "formula": row.formula,
                    **_json_value(row.value),
                }
                for row in self.rows()
            },
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text (deterministic key order).

        Decimals are floats, or ``null`` where no float holds the value.

        >>> print(worked_example([7, 7], 1).to_json().splitlines()[2])
          "d": 2,
        """
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


def worked_example(
    z: Sequence[Number],
    eps: Number,
    *,
    gamma: Sequence[Number] | None = None,
    beta: Sequence[Number] | None = None,
    upstream: Sequence[Number] | None = None,
    loss: str | None = None,
    perturbation: Sequence[Number] | None = None,
    idealized: bool = False,
) -> WorkedExample:
    """Compute an exact worked example of layer normalization at z.

    Args:
        z: the input, 1 ≤ d ≤ :data:`MAX_DIMENSION` exact rationals (int, Fraction or
            SymPy Rational).
        eps: ε > 0; ``0`` only together with ``idealized=True`` and a non-constant z.
        gamma: the gain γ (default all ones).
        beta: the bias β (default zero).
        upstream: an upstream gradient g = ∂ℓ/∂y; exclusive with ``loss``.
        loss: a named loss from :data:`LOSSES` (``"half-squared-norm"``: ℓ = ½‖y‖²).
        perturbation: a nonzero h for the finite ratio ‖y(z + h) − y(z)‖/‖h‖.
        idealized: allow ε = 0 (the idealized layer without stabilizer).

    Returns:
        The example; every value was computed through the IR and cross-checked.

    Raises:
        UserInputError: for inexact or malformed numbers, d > :data:`MAX_DIMENSION`,
            vectors of the wrong length, ε ≤ 0 without ``idealized``, ε = 0 at a constant
            z, both ``upstream`` and ``loss``, an unknown loss, or h = 0.
        CrossCheckError: if the IR and the closed forms disagree (a bug in lnsym).
        ExactArithmeticError: if SymPy fails on the exact arithmetic (sympy/sympy#28621).

    >>> ex = worked_example([1, 1, -2], 2, gamma=[2, 0, -1], loss="half-squared-norm")
    >>> ex.core, ex.output, ex.output_mean, ex.output_variance
    ((1/2, 1/2, -1), (1, 0, 1), 2/3, 2/9)
    >>> ex.grad_gamma
    (1/2, 0, -1)
    """
    zv = _vector(z, "z")
    d = len(zv)
    if d > MAX_DIMENSION:
        raise UserInputError(
            f"z has {d} entries, but a worked example takes at most d = {MAX_DIMENSION}"
        )
    eps_value = _epsilon(eps, idealized)
    _check_idealized(zv, eps_value, "z")
    if upstream is not None and loss is not None:
        raise UserInputError("give either an upstream gradient or a loss, not both")
    if loss is not None and loss not in LOSSES:
        raise UserInputError(f"unknown loss {loss!r}; known: {', '.join(LOSSES)}")
    h = None if perturbation is None else _vector(perturbation, "perturbation", d)
    if h is not None:
        if all(v == 0 for v in h):
            raise UserInputError("the perturbation h must be nonzero")
        _check_idealized(tuple(a + b for a, b in zip(zv, h, strict=True)), eps_value, "z + h")
    inputs = _Inputs(
        z=zv,
        eps=eps_value,
        gamma=_vector(gamma, "gamma", d) if gamma is not None else (sympy.Integer(1),) * d,
        beta=_vector(beta, "beta", d) if beta is not None else (sympy.Integer(0),) * d,
        upstream=None if upstream is None else _vector(upstream, "upstream", d),
        loss=loss,
        perturbation=h,
    )
    try:
        values = _through_ir(inputs)
        _cross_check(values, _closed_form(inputs))
        bound = _lipschitz_bound(inputs.gamma, eps_value) if h is not None else None
    except ValueError as exc:
        # SymPy 1.14's factorint, used by sqrt to pull out square factors, can fail on some
        # large integers (sympy/sympy#28621): report that in one line, not a traceback.
        if isinstance(exc, UserInputError) or "is not a prime factor" not in str(exc):
            raise
        raise ExactArithmeticError(
            "SymPy failed to take an exact square root for these numbers "
            "(SymPy bug sympy/sympy#28621); try inputs with fewer digits"
        ) from None
    return WorkedExample(
        z=inputs.z,
        eps=inputs.eps,
        gamma=inputs.gamma,
        beta=inputs.beta,
        idealized=idealized,
        loss=loss,
        perturbation=h,
        lipschitz_bound=bound,
        **values,  # type: ignore[arg-type]
    )


# ---------------------------------------------------------------------------------------
# Finite perturbations and the inverse variance relation


@dataclass(frozen=True)
class PerturbationRatio:
    """‖y(z + h) − y(z)‖/‖h‖ exactly, its decimal, and the bound max|γᵢ|/√ε.

    ``decimal`` is None only where no float holds the value; ``bound`` is None at ε = 0.
    """

    exact: sympy.Expr
    decimal: float | None
    bound: sympy.Expr | None


def perturbation_ratio(
    z: Sequence[Number],
    h: Sequence[Number],
    eps: Number,
    gamma: Sequence[Number] | None = None,
    *,
    idealized: bool = False,
) -> PerturbationRatio:
    """The exact finite amplification ‖y(z + h) − y(z)‖/‖h‖ of layer normalization.

    β cancels in the difference, so only γ (default all ones) matters. The value is
    computed through the IR and cross-checked against the definitions.

    Args:
        z: the base point.
        h: a nonzero perturbation of the same length.
        eps: ε > 0 (0 only with ``idealized=True`` and non-constant z, z + h).
        gamma: the gain γ.
        idealized: allow ε = 0.

    Returns:
        The exact ratio, its decimal and the Lipschitz bound max|γᵢ|/√ε.

    Raises:
        UserInputError: for malformed input (as :func:`worked_example`).
        CrossCheckError: if the IR and the definitions disagree.

    >>> from fractions import Fraction
    >>> r = perturbation_ratio([7, 7], [Fraction(1, 1000), Fraction(-1, 1000)], Fraction(1, 10**4))
    >>> r.exact, round(r.decimal, 4), r.bound
    (1000*sqrt(101)/101, 99.5037, 100)
    """
    ex = worked_example(z, eps, gamma=gamma, perturbation=h, idealized=idealized)
    assert ex.perturbation_ratio is not None
    return PerturbationRatio(
        ex.perturbation_ratio, _decimal(ex.perturbation_ratio), ex.lipschitz_bound
    )


def required_variance(r: Number, eps: Number) -> sympy.Rational:
    """The input variance q with core variance q/(q + ε) = r, i.e. q = εr/(1 − r).

    Args:
        r: the target core variance, 0 ≤ r < 1 (r = 1 is never reached for ε > 0).
        eps: ε > 0.

    Returns:
        q as an exact rational.

    Raises:
        UserInputError: for r outside [0, 1) or ε ≤ 0.

    >>> from fractions import Fraction
    >>> required_variance(Fraction(9, 10), Fraction(1, 25))
    9/25
    """
    target, eps_value = _rational(r, "r"), _epsilon(eps, idealized=False)
    if not 0 <= target < 1:
        raise UserInputError(f"the core variance must satisfy 0 ≤ r < 1, got {target}")
    q = eps_value * target / (1 - target)
    if q / (q + eps_value) != target:  # the defining relation, checked exactly
        raise CrossCheckError(f"q = {q} does not give core variance {target}")
    return q
