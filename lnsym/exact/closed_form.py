"""Layer normalization in closed form: the named quantities at one point, exactly.

This is the one oracle that the worked examples (:mod:`lnsym.exact.examples`) and the
exercises (:mod:`lnsym.exact.exercises`) check the IR against. It holds:

- :data:`QUANTITIES`, the table of named quantities — μ, Pz, q, s, u, y, J = (P − uuᵀ/d)/s,
  the gradients, … — whose names the worked example's fields and the exercises' answers
  share;
- :func:`quantities`, which computes that table at a point from the textbook formulas;
- the formulas themselves (:func:`mean`, :func:`core`, :func:`jacobian`, :func:`grad_z`, …)
  and a few more the exercises ask for (:func:`normalized_variance`, :func:`variance_for`).

Nothing here touches the IR or its engines, so the two computations stay independent. The
arithmetic is generic: ``Fraction`` entries (the exercises' nice data, where every square
root is rational — :func:`rational_sqrt` insists on it) or SymPy numbers (the worked
examples, where square roots stay surds).

>>> z = vec([1, 2, 3])
>>> mean(z), variance(z), core(z, Fraction(1, 3))
(Fraction(2, 1), Fraction(2, 3), (Fraction(-1, 1), Fraction(0, 1), Fraction(1, 1)))
>>> table = quantities(tuple(sympy.Integer(v) for v in (1, 2, 4)), sympy.Rational(1, 3))
>>> table["scale"], table["core"]
(sqrt(17)/3, (-4*sqrt(17)/17, -sqrt(17)/17, 5*sqrt(17)/17))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, TypeAlias, TypeVar

import sympy

from lnsym.errors import CrossCheckError

#: An exact number: a Fraction (exercises) or a SymPy number (worked examples).
N = TypeVar("N", Fraction, sympy.Expr)
Vec: TypeAlias = tuple[Fraction, ...]
Mat: TypeAlias = tuple[Vec, ...]

#: The named quantities of layer normalization at one point, in the order they are shown,
#: with their closed forms. :func:`quantities` returns exactly these keys (None where a
#: quantity was not asked for); the worked example has a field of each name, and an
#: exercise answer of the same name means the same quantity.
QUANTITIES: dict[str, str] = {
    "mean": "μ = ⟨1, z⟩/d",
    "centered": "Pz = z − μ1",
    "variance": "q = ‖Pz‖²/d",
    "variance_plus_eps": "q + ε",
    "scale": "s = √(q + ε)",
    "core": "u = Pz/s",
    "core_mean": "μ(u), which is 0",
    "core_variance": "q(u), which is q/(q + ε)",
    "output": "y = γ ⊙ u + β",
    "output_mean": "μ(y)",
    "output_variance": "q(y)",
    "jacobian": "J = (P − uuᵀ/d)/s, the Jacobian of the core",
    "output_jacobian": "diag(γ)J, the Jacobian of the layer",
    "loss_value": "ℓ = ½‖y‖², for the named loss",
    "upstream": "g = ∂ℓ/∂y (g = y for ℓ = ½‖y‖²)",
    "grad_beta": "∂ℓ/∂β = g",
    "grad_gamma": "∂ℓ/∂γ = g ⊙ u",
    "scaled_upstream": "ĝ = γ ⊙ g",
    "grad_z": "∂ℓ/∂z = (ĝ − μ(ĝ)1 − μ(ĝ ⊙ u)u)/s",
    "perturbation_ratio": "‖y(z + h) − y(z)‖/‖h‖",
}


# ---------------------------------------------------------------------------------------
# Numbers: the few places where Fractions and SymPy numbers differ


def vec(values: Sequence[int | Fraction]) -> Vec:
    """A vector of Fractions."""
    return tuple(Fraction(v) for v in values)


def _symbolic(values: Sequence[Any]) -> bool:
    return any(isinstance(x, sympy.Basic) for x in values)


def _one_like(x: N) -> N:
    return sympy.Integer(1) if isinstance(x, sympy.Basic) else Fraction(1)


def total(v: Sequence[N]) -> N:
    """The sum of the entries."""
    if _symbolic(v):
        return sympy.Add(*v)  # one n-ary Add, not d pairwise ones
    return sum(v, Fraction(0))


def rational_sqrt(x: Fraction) -> Fraction:
    """The exact square root of the square of a rational.

    Raises:
        CrossCheckError: when ``x`` is not one (nice data always gives one, so this is a bug).

    >>> rational_sqrt(Fraction(16, 9))
    Fraction(4, 3)
    """
    p, q = math.isqrt(max(x.numerator, 0)), math.isqrt(x.denominator)
    if x < 0 or p * p != x.numerator or q * q != x.denominator:
        raise CrossCheckError(f"{x} is not the square of a rational: the data are not nice")
    return Fraction(p, q)


def square_root(x: N) -> N:
    """√x: a Fraction for a Fraction (see :func:`rational_sqrt`), else a SymPy surd."""
    if isinstance(x, Fraction):
        return rational_sqrt(x)
    return sympy.sqrt(x)


def norm_ratio(a: Sequence[N], b: Sequence[N]) -> N:
    """‖a‖/‖b‖: rational for Fractions (nice data make it so), a quotient of surds otherwise."""
    if _symbolic(a) or _symbolic(b):
        return sympy.sqrt(squared_norm(a)) / sympy.sqrt(squared_norm(b))
    return rational_sqrt(squared_norm(a) / squared_norm(b))


# ---------------------------------------------------------------------------------------
# Vectors and matrices


def hadamard(a: Sequence[N], b: Sequence[N]) -> tuple[N, ...]:
    """a ⊙ b."""
    return tuple(x * y for x, y in zip(a, b, strict=True))


def add(a: Sequence[N], b: Sequence[N]) -> tuple[N, ...]:
    """a + b."""
    return tuple(x + y for x, y in zip(a, b, strict=True))


def subtract(a: Sequence[N], b: Sequence[N]) -> tuple[N, ...]:
    """a − b."""
    return tuple(x - y for x, y in zip(a, b, strict=True))


def times(c: N, v: Sequence[N]) -> tuple[N, ...]:
    """c·v."""
    return tuple(c * x for x in v)


def squared_norm(v: Sequence[N]) -> N:
    """‖v‖²."""
    return total([x * x for x in v])


def apply(m: Sequence[Sequence[N]], v: Sequence[N]) -> tuple[N, ...]:
    """The matrix-vector product m·v."""
    return tuple(total([a * b for a, b in zip(row, v, strict=True)]) for row in m)


def transpose(m: Sequence[Sequence[N]]) -> tuple[tuple[N, ...], ...]:
    """mᵀ."""
    return tuple(zip(*m, strict=True))


def centering(d: int, one: N = Fraction(1)) -> tuple[tuple[N, ...], ...]:
    """P = I − 11ᵀ/d, in the number type of ``one``."""
    return tuple(tuple(one * int(i == j) - one / d for j in range(d)) for i in range(d))


# ---------------------------------------------------------------------------------------
# The layer


def mean(v: Sequence[N]) -> N:
    """μ(v) = ⟨1, v⟩/d."""
    return total(v) / len(v)


def center(v: Sequence[N]) -> tuple[N, ...]:
    """Pv = v − μ(v)1."""
    mu = mean(v)
    return tuple(x - mu for x in v)


def variance(v: Sequence[N]) -> N:
    """q(v) = ‖Pv‖²/d."""
    return squared_norm(center(v)) / len(v)


def scale(v: Sequence[N], eps: N) -> N:
    """s = √(q(v) + ε), which nice data make rational."""
    return square_root(variance(v) + eps)


def core(v: Sequence[N], eps: N) -> tuple[N, ...]:
    """u = Pv/s."""
    s = scale(v, eps)
    return tuple(x / s for x in center(v))


def output(u: Sequence[N], gamma: Sequence[N], beta: Sequence[N]) -> tuple[N, ...]:
    """y = γ ⊙ u + β."""
    return add(hadamard(gamma, u), beta)


def jacobian(u: Sequence[N], s: N) -> tuple[tuple[N, ...], ...]:
    """J = (P − uuᵀ/d)/s, the Jacobian of the core at the input with core u and scale s."""
    d = len(u)
    p = centering(d, _one_like(s))
    return tuple(tuple((p[i][j] - u[i] * u[j] / d) / s for j in range(d)) for i in range(d))


def grad_z(u: Sequence[N], s: N, g_hat: Sequence[N]) -> tuple[N, ...]:
    """∂ℓ/∂z = (ĝ − μ(ĝ)1 − μ(ĝ ⊙ u)u)/s for ĝ = γ ⊙ g."""
    m, mu = mean(g_hat), mean(hadamard(g_hat, u))
    return tuple((gh - m - mu * ui) / s for gh, ui in zip(g_hat, u, strict=True))


def lipschitz_bound(gamma: Sequence[N], eps: N) -> N | None:
    """max|γᵢ|/√ε, the Lipschitz constant of z ↦ y (none for the idealized ε = 0)."""
    return max(abs(g) for g in gamma) / square_root(eps) if eps != 0 else None


def normalized_variance(q: N, eps: N) -> N:
    """q/(q + ε): the variance of the core of an input with variance q."""
    return q / (q + eps)


def variance_for(r: N, eps: N) -> N:
    """εr/(1 − r): the input variance q whose core has variance r (the inverse of the above)."""
    return eps * r / (1 - r)


def quantities(
    z: Sequence[N],
    eps: N,
    gamma: Sequence[N] | None = None,
    beta: Sequence[N] | None = None,
    *,
    upstream: Sequence[N] | None = None,
    half_squared_norm: bool = False,
    perturbation: Sequence[N] | None = None,
    jacobians: bool = True,
) -> dict[str, Any]:
    """Every quantity of :data:`QUANTITIES` at z, from the closed forms.

    Args:
        z: the input.
        eps: ε (0 for the idealized layer; then z must not be constant).
        gamma: the gain γ (default all ones).
        beta: the bias β (default zero).
        upstream: an upstream gradient g = ∂ℓ/∂y, for the gradients.
        half_squared_norm: the loss ℓ = ½‖y‖² instead, whose upstream gradient is g = y.
        perturbation: a nonzero h, for ‖y(z + h) − y(z)‖/‖h‖ (β cancels in it).
        jacobians: whether to compute J and diag(γ)J (they have d² entries).

    Returns:
        Vectors as tuples, matrices as tuples of rows, None for what was not asked for.
    """
    d = len(z)
    one = _one_like(z[0])
    gamma = tuple(gamma) if gamma is not None else (one,) * d
    beta = tuple(beta) if beta is not None else (0 * one,) * d
    pz = center(z)
    q = squared_norm(pz) / d
    s = square_root(q + eps)
    u = tuple(x / s for x in pz)
    y = output(u, gamma, beta)
    table: dict[str, Any] = dict.fromkeys(QUANTITIES)
    table.update(
        mean=mean(z),
        centered=pz,
        variance=q,
        variance_plus_eps=q + eps,
        scale=s,
        core=u,
        core_mean=mean(u),
        core_variance=variance(u),
        output=y,
        output_mean=mean(y),
        output_variance=variance(y),
    )
    if jacobians:
        jac = jacobian(u, s)
        table["jacobian"] = jac
        table["output_jacobian"] = tuple(
            tuple(g * x for x in row) for g, row in zip(gamma, jac, strict=True)
        )
    g = y if half_squared_norm else upstream
    if g is not None:
        g_hat = hadamard(gamma, g)
        table.update(
            upstream=tuple(g),
            grad_beta=tuple(g),
            grad_gamma=hadamard(g, u),
            scaled_upstream=g_hat,
            grad_z=grad_z(u, s, g_hat),
        )
    if half_squared_norm:
        table["loss_value"] = squared_norm(y) / 2
    if perturbation is not None:
        moved = subtract(core(add(z, perturbation), eps), u)
        table["perturbation_ratio"] = norm_ratio(hadamard(gamma, moved), perturbation)
    return table
