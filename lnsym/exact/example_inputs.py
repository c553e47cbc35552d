"""The inputs of a worked example: exact rationals, checked before anything is computed.

:func:`read_inputs` turns what a caller gives :func:`lnsym.exact.examples.worked_example`
(ints, Fractions or SymPy Rationals; never floats) into :class:`Inputs`, or raises
:class:`~lnsym.errors.UserInputError` with a one-line reason. It also holds the limits of a
worked example (:data:`MAX_DIMENSION`, :data:`MAX_MATRIX_DIMENSION`) and its named losses.

>>> read_inputs([1, 2, 3], 1).gamma
(1, 1, 1)
>>> read_inputs([1, 2], 1, gamma=[1])
Traceback (most recent call last):
...
lnsym.errors.UserInputError: gamma has 1 entry, but z has 2
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, TypeAlias

import sympy

from lnsym.errors import UserInputError
from lnsym.exact.values import Vector

Number: TypeAlias = int | Fraction | sympy.Rational

#: The named losses :func:`worked_example` understands (ℓ = ½‖y‖², whose gradient is g = y).
LOSSES = ("half-squared-norm",)
#: Jacobian matrices are computed and shown only up to this dimension (they have d² entries).
MAX_MATRIX_DIMENSION = 16
#: The largest d :func:`worked_example` accepts. At d = 64 an example with every option
#: takes a second or two and prints pages; the cost grows quickly with d (d = 10000: 92 s).
MAX_DIMENSION = 64


def rational(x: Any, what: str) -> sympy.Rational:
    """``x`` as a SymPy Rational; ``what`` names it in the error."""
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


def vector(values: Any, what: str, length: int | None = None) -> Vector:
    """A nonempty vector of Rationals (of ``length`` entries, if given)."""
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise UserInputError(f"{what} must be a sequence of numbers (parse text with lnsym.parse)")
    out = tuple(rational(v, f"{what}[{i}]") for i, v in enumerate(values))
    if not out:
        raise UserInputError(f"{what} is empty: give at least one coordinate")
    if length is not None and len(out) != length:
        entries = "entry" if len(out) == 1 else "entries"
        raise UserInputError(f"{what} has {len(out)} {entries}, but z has {length}")
    return out


def epsilon(eps: Any, idealized: bool) -> sympy.Rational:
    """ε > 0, or exactly 0 for the idealized layer."""
    value = rational(eps, "eps")
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


@dataclass(frozen=True)
class Inputs:
    """The checked inputs of one worked example."""

    z: Vector
    eps: sympy.Rational
    gamma: Vector
    beta: Vector
    upstream: Vector | None
    loss: str | None
    perturbation: Vector | None

    @property
    def d(self) -> int:
        """The dimension."""
        return len(self.z)

    def atoms(self) -> dict[str, list[sympy.Expr]]:
        """The given vectors, by the names of the IR atoms they bind."""
        atoms = {"z": list(self.z), "gamma": list(self.gamma), "beta": list(self.beta)}
        if self.upstream is not None:
            atoms["g"] = list(self.upstream)
        if self.perturbation is not None:
            atoms["h"] = list(self.perturbation)
        return atoms


def read_inputs(
    z: Sequence[Number],
    eps: Number,
    *,
    gamma: Sequence[Number] | None = None,
    beta: Sequence[Number] | None = None,
    upstream: Sequence[Number] | None = None,
    loss: str | None = None,
    perturbation: Sequence[Number] | None = None,
    idealized: bool = False,
) -> Inputs:
    """The inputs of :func:`~lnsym.exact.examples.worked_example`, checked.

    Raises:
        UserInputError: as documented for :func:`~lnsym.exact.examples.worked_example`.
    """
    # The checks run in this order so that the first problem of the input is the one shown.
    zv = vector(z, "z")
    d = len(zv)
    if d > MAX_DIMENSION:
        raise UserInputError(
            f"z has {d} entries, but a worked example takes at most d = {MAX_DIMENSION}"
        )
    eps_value = epsilon(eps, idealized)
    _check_idealized(zv, eps_value, "z")
    if upstream is not None and loss is not None:
        raise UserInputError("give either an upstream gradient or a loss, not both")
    if loss is not None and loss not in LOSSES:
        raise UserInputError(f"unknown loss {loss!r}; known: {', '.join(LOSSES)}")
    h = None if perturbation is None else vector(perturbation, "perturbation", d)
    if h is not None:
        if all(v == 0 for v in h):
            raise UserInputError("the perturbation h must be nonzero")
        _check_idealized(tuple(a + b for a, b in zip(zv, h, strict=True)), eps_value, "z + h")
    return Inputs(
        z=zv,
        eps=eps_value,
        gamma=vector(gamma, "gamma", d) if gamma is not None else (sympy.Integer(1),) * d,
        beta=vector(beta, "beta", d) if beta is not None else (sympy.Integer(0),) * d,
        upstream=None if upstream is None else vector(upstream, "upstream", d),
        loss=loss,
        perturbation=h,
    )
