"""Names and constants of the IR: d, ε, user scalars, and the checks every constant passes.

A constant must be a real, finite SymPy expression in real, validly named symbols, without
floats (part of the trusted kernel, docs/trust.md): ``I``, ``(-8)**(1/3)``, complex or
unnamed symbols, infinities, floats and names that could inject LaTeX or HTML are refused
when a node is built.

>>> scalar("c").is_real, d.is_positive
(True, True)
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import sympy
from sympy.printing.pretty.pretty_symbology import greek_unicode

from lnsym.errors import ExpressionError

#: The dimension: a positive integer symbol, never replaced by a number in proofs.
d = sympy.Symbol("d", integer=True, positive=True)
#: The stabilizer ε > 0 added to the variance.
eps = sympy.Symbol("epsilon", positive=True)
#: The second axis: n rows of a batch (cases or positions) and m inputs of a weight matrix,
#: positive integer symbols like d (lnsym.ir.matrices).
n = sympy.Symbol("n", integer=True, positive=True)
m = sympy.Symbol("m", integer=True, positive=True)

_REAL = sympy.Symbol("x", real=True).assumptions0
_POSITIVE = sympy.Symbol("x", positive=True).assumptions0

#: User names: ASCII letters first, then letters, digits, _ and ' (safe in LaTeX and Markdown).
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_']{0,31}\Z")
#: Atom names lnsym itself may use (a leading _ marks an internal atom such as a probe).
_ATOM_NAME = re.compile(r"_?[A-Za-z][A-Za-z0-9_']{0,31}\Z")
_RESERVED = {"d": "lnsym.d", "epsilon": "lnsym.eps", "n": "lnsym.n", "m": "lnsym.m"}


def scalar(name: str, *, positive: bool = False) -> sympy.Symbol:
    """A real scalar symbol (a SymPy ``Symbol``), optionally known to be positive.

    >>> c = scalar("c")
    >>> c.is_real, c.is_positive
    (True, None)
    """
    _check_name(name)
    if name in _RESERVED:
        raise ExpressionError(f"the name {name!r} is reserved: use {_RESERVED[name]}")
    if positive:
        return sympy.Symbol(name, positive=True)
    return sympy.Symbol(name, real=True)


@lru_cache(maxsize=8192)
def free_symbols(value: sympy.Basic) -> frozenset[sympy.Symbol]:
    """``value.free_symbols``, kept: SymPy walks the whole expression at every call, and the
    interpreters ask it of the same constants at every point and for every entry."""
    return frozenset(value.free_symbols)


@lru_cache(maxsize=8192)
def _check_constant(value: Any) -> None:
    """Refuse a constant that is not a real, finite SymPy expression in known symbols."""
    if not isinstance(value, sympy.Expr) or isinstance(value, sympy.MatrixBase):
        raise ExpressionError(f"a constant must be a SymPy expression, got {type(value).__name__}")
    if value.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):
        raise ExpressionError(f"the constant {value} is not a finite number")
    floats = sorted(value.atoms(sympy.Float), key=float)
    if floats:
        # SymPy rounds every operation on a float, and every engine would round alike:
        # 10²⁰·c + c = 10²⁰·c would hold in each of them.
        exact = sympy.Rational(floats[0])
        raise ExpressionError(
            f"the constant {value} holds the float {floats[0]}, which is rounded in every "
            f"operation; write an exact number instead (its binary value is {exact})"
        )
    for sym in value.free_symbols:
        if not isinstance(sym, sympy.Symbol) or sym.is_Dummy:
            raise ExpressionError(f"the constant {value} uses the unnamed symbol {sym!r}")
        if sym.name in _RESERVED and sym not in (d, eps, n, m):
            raise ExpressionError(f"the symbol {sym.name!r} is reserved: use {_RESERVED[sym.name]}")
        _check_name(sym.name)
        if sym.is_real is not True:
            raise ExpressionError(
                f"the symbol {sym.name!r} is not known to be real: create it with "
                f"lnsym.scalar({sym.name!r})"
            )
        if sym not in (d, eps, n, m) and sym.assumptions0 not in (_REAL, _POSITIVE):
            # The engines draw real or positive values: an integer or nonnegative symbol
            # would be evaluated where SymPy's simplifications with it do not hold.
            raise ExpressionError(
                f"the symbol {sym.name!r} has assumptions lnsym does not use (integer, "
                f"nonnegative, …): create it with lnsym.scalar({sym.name!r}) or "
                f"lnsym.scalar({sym.name!r}, positive=True)"
            )
    if value.is_real is False or value.is_extended_real is False:
        raise ExpressionError(
            f"the constant {value} is not real (SymPy takes principal complex roots; the IR "
            "is real)"
        )


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise ExpressionError(
            f"invalid name {name!r}: use an ASCII letter followed by at most 31 letters, "
            "digits, _ or '"
        )
    return name


def unicode_name(name: str) -> str:
    """How a name reads in plain text: Greek letter names as letters (``gamma`` → ``γ``).

    >>> unicode_name("gamma"), unicode_name("epsilon"), unicode_name("z")
    ('γ', 'ε', 'z')
    """
    return greek_unicode.get(name, name)
