"""Exact values of a worked example: their entries, certified decimals and exact equality.

A value is a SymPy number, a vector (a tuple of them) or a Jacobian (an
``ImmutableMatrix``). Decimals are computed only to digits SymPy guarantees, and equality is
decided exactly (by a numeric screen that can only prove a difference, then the minimal
polynomial), never by rounding.

>>> decimal_text(1000 / sympy.sqrt(101)), same(sympy.sqrt(8), 2 * sympy.sqrt(2))
('99.50371902', True)
"""

from __future__ import annotations

from typing import TypeAlias

import sympy
from sympy.core.evalf import PrecisionExhausted

Vector: TypeAlias = tuple[sympy.Expr, ...]
#: A quantity of a worked example: a number, a vector or a Jacobian, all exact SymPy.
ExampleValue: TypeAlias = sympy.Expr | Vector | sympy.ImmutableMatrix

_X = sympy.Symbol("x")


def entries(value: ExampleValue) -> list[sympy.Expr]:
    """The entries of a scalar, vector or matrix (a matrix row by row)."""
    if isinstance(value, sympy.MatrixBase):
        return list(value)
    if isinstance(value, tuple):
        return list(value)
    return [value]


# ---------------------------------------------------------------------------------------
# Certified decimals


def numeric(v: sympy.Expr, digits: int = 30) -> sympy.Float | None:
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


def fits_float(n: sympy.Float) -> bool:
    """Whether a float holds ``n`` (zero, or between 10^−300 and 10^300 in magnitude)."""
    return bool(n.is_zero) or sympy.Float("1e-300") < abs(n) < sympy.Float("1e300")


def decimal(v: sympy.Expr) -> float | None:
    """A float, or None where no float holds the value (beyond 10^±300, or not certain)."""
    n = numeric(v)
    return float(n) if n is not None and fits_float(n) else None


def decimal_text(v: sympy.Expr, digits: int = 10) -> str:
    """``digits`` significant digits of ``v`` as text (``?`` where none are certain)."""
    n = numeric(v)
    if n is None:
        return "?"
    if not fits_float(n):  # inputs may reach 10^±400: let SymPy print those
        return sympy.sstr(sympy.N(n, digits))
    return f"{float(n):.{digits}g}"


# ---------------------------------------------------------------------------------------
# Exact comparison


def same(a: sympy.Expr, b: sympy.Expr) -> bool:
    """Whether two real algebraic numbers are equal, decided exactly."""
    diff = sympy.expand(a - b)
    if diff == 0:
        return True
    # A cheap certain answer first: SymPy's strict evaluation returns a value only when its
    # digits are guaranteed, so a nonzero value proves a ≠ b. It fails near an exact zero,
    # which the minimal polynomial then decides.
    value = numeric(diff, 15)
    if value is not None and not value.is_zero:
        return False
    return sympy.minimal_polynomial(diff, _X) == _X


def same_value(a: ExampleValue, b: ExampleValue) -> bool:
    """Whether two exact scalars, vectors or matrices are equal, decided exactly.

    >>> same_value((sympy.sqrt(sympy.Rational(9, 10)),), (3 * sympy.sqrt(10) / 10,))
    True
    """
    left, right = entries(a), entries(b)
    if isinstance(a, sympy.MatrixBase) and isinstance(b, sympy.MatrixBase):
        if a.shape != b.shape:
            return False
    elif isinstance(a, sympy.MatrixBase) or isinstance(b, sympy.MatrixBase):
        return False
    elif isinstance(a, tuple) != isinstance(b, tuple):
        return False
    return len(left) == len(right) and all(map(same, left, right))
