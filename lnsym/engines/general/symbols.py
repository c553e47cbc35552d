"""Power-sum and root symbols: the interned SymPy symbols a scalar normal form is built of.

A power sum S[m] = Σᵢ Πₐ∈m aᵢ stands for a monomial m of vector atoms; a root symbol r
stands for √R and remembers R (the relation r² = R is used by
:mod:`lnsym.engines.general.algebra`, which also makes the roots). Both kinds are interned
in the registries below, so equal objects are the same symbol; every module of the engine
reads them from here.
"""

from __future__ import annotations

import sympy
from sympy.core.sorting import default_sort_key

from lnsym import ir

Monomial = tuple[str, ...]

# Interned symbols: what each power sum sums, and each root's radicand and nesting depth.
_POWER_SUMS: dict[sympy.Symbol, Monomial] = {}
_ROOTS: dict[sympy.Symbol, sympy.Expr] = {}
_ROOT_OF: dict[sympy.Expr, sympy.Symbol] = {}
_DEPTH: dict[sympy.Symbol, int] = {}


def _is_square(m: Monomial) -> bool:
    return all(m.count(a) % 2 == 0 for a in set(m))


def power_sum(m: Monomial) -> sympy.Expr:
    """S[m] = Σᵢ Πₐ∈m aᵢ; the empty monomial gives d.

    >>> power_sum(("z", "z"))
    S[z·z]
    """
    if not m:
        return ir.d
    m = tuple(sorted(m))
    name = "S[" + "·".join(m) + "]"
    sym = sympy.Symbol(name, nonnegative=True) if _is_square(m) else sympy.Symbol(name, real=True)
    _POWER_SUMS.setdefault(sym, m)
    return sym


def radicand_of(sym: sympy.Symbol) -> sympy.Expr | None:
    """R for a root symbol r = √R, or None for any other symbol."""
    return _ROOTS.get(sym)


def exact_sqrt(x: sympy.Expr) -> sympy.Expr:
    """SymPy's exact square root, unevaluated where SymPy 1.14 fails on large integers.

    (sympy/sympy#28621: ``sqrt`` may raise "… is not a prime factor of …"; with gmpy2
    ground types, ``factorint`` takes ``math.log`` of an mpz and raises OverflowError.)
    """
    try:
        return sympy.sqrt(x)
    except (ValueError, OverflowError):
        return sympy.Pow(x, sympy.Rational(1, 2), evaluate=False)


def _roots_in(f: sympy.Expr) -> list[sympy.Symbol]:
    """Root symbols of ``f``, outermost (deepest nesting) first."""
    found = [s for s in f.free_symbols if s in _ROOTS]
    return sorted(found, key=lambda s: (-_DEPTH[s], default_sort_key(s)))


def _has_special(f: sympy.Expr) -> bool:
    return any(s in _POWER_SUMS or s in _ROOTS for s in f.free_symbols)


def mentions_vectors(f: sympy.Expr) -> bool:
    """Whether a scalar normal form depends on a vector (a power sum, or a root of one).

    >>> from lnsym.engines.general.algebra import root
    >>> mentions_vectors(power_sum(("z",)) / ir.d), mentions_vectors(root(ir.eps + 1))
    (True, False)
    """
    return any(
        s in _POWER_SUMS or (s in _ROOTS and mentions_vectors(_ROOTS[s])) for s in f.free_symbols
    )
