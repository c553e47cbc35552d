"""Exact SymPy numbers at a point: the value type, and tests of realness, sign and agreement.

Part of the concrete engine's SymPy route (:mod:`lnsym.engines.concrete.values` computes the
values). It holds :data:`SympyValue` (a tuple of d SymPy expressions for a vector, one for a
scalar), :func:`_entries` and :func:`_differences` over such values, :func:`_real` and
:func:`_sign`, which decide exact SymPy numbers, and :func:`_agree`, the cross-check's test
that a value of the exact arithmetic equals SymPy's.
"""

from __future__ import annotations

from typing import TypeAlias

import sympy
from sympy.core.evalf import PrecisionExhausted

from lnsym.engines.concrete.arithmetic import Undefined as _Undefined
from lnsym.errors import UnsupportedError

#: A vector value is a tuple of d SymPy expressions, a scalar value one SymPy expression.
SympyValue: TypeAlias = sympy.Expr | tuple[sympy.Expr, ...]

_ZERO = sympy.Integer(0)
#: Digits to which a cross-checked value must agree with SymPy's (:func:`_agree`).
AGREEMENT_DIGITS = 100


def _entries(value: SympyValue) -> tuple[sympy.Expr, ...]:
    return value if isinstance(value, tuple) else (value,)


def _differences(lhs: SympyValue, rhs: SympyValue) -> list[sympy.Expr]:
    if isinstance(lhs, tuple):
        return [a - b for a, b in zip(lhs, rhs, strict=True)]
    return [lhs - rhs]


def _real(x: sympy.Expr) -> bool:
    """Whether an exact number is real and finite (False also for ∞ and NaN).

    Raises:
        UnsupportedError: for something that is not a number at all.
    """
    if x.is_Rational:
        return True
    if x.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return False
    if x.free_symbols or not x.is_number:
        raise UnsupportedError(f"{x} has no numeric value at a point")
    return not (x.has(sympy.I) or x.is_extended_real is False)


def _agree(x: sympy.Expr, y: sympy.Expr) -> bool:
    """Whether two exact numbers from independent routes agree (the cross-check's test).

    Rationals are compared exactly. Otherwise the difference is evaluated with certified
    digits: a nonzero result proves disagreement, and none found within SymPy's working
    precision counts as agreement. (A minimal polynomial would prove equality but costs
    tens of seconds for nested roots; an arithmetic slip does not hide below 100 digits.)
    """
    difference = x - y
    if difference.is_Rational:
        return bool(difference == 0)
    try:
        approx = difference.evalf(AGREEMENT_DIGITS, strict=True)
    except PrecisionExhausted:
        return True
    return bool(approx == 0)


def _sign(x: sympy.Expr) -> int:
    """The sign of an exact real number (nonzero values by certified evalf, zero exactly).

    Raises:
        _Undefined: if ``x`` is not real.
    """
    if x.is_Rational:
        return (x.p > 0) - (x.p < 0)
    try:
        approx = x.evalf(30, strict=True)
    except PrecisionExhausted:
        approx = _ZERO
    if not approx.is_real:
        real, imaginary = approx.as_real_imag()
        if imaginary != 0:
            raise _Undefined(f"{x} is not real")
        approx = real
    if approx != 0:
        return 1 if approx > 0 else -1
    t = sympy.Dummy("x")
    if sympy.minimal_polynomial(x, t) == t:
        return 0
    approx = x.evalf(300, strict=True)
    if not approx.is_real:
        raise _Undefined(f"{x} is not real")
    return 1 if approx > 0 else -1
