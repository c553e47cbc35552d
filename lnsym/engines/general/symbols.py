"""Power-sum and root symbols: the SymPy symbols a scalar normal form is built of.

A power sum S[m] = Σᵢ Πₐ∈m aᵢ stands for a monomial m of vector atoms; a root symbol r
stands for √R (the relation r² = R is used by :mod:`lnsym.engines.general.algebra`, which
also makes the roots). Each symbol *is* what it stands for: its identity (equality, hash) is
its monomial or its radicand, structurally — a radicand in a real c and one in a positive c
are two roots, however alike they print — and nothing is kept in a registry, so no state
passes from one claim to the next.

>>> from lnsym import ir
>>> power_sum(("z", "z")), power_sum(("z", "z")).monomial
(S[z·z], ('z', 'z'))
>>> r = Root(power_sum(("z",)) + ir.eps)
>>> r, r.radicand, r == Root(power_sum(("z",)) + ir.eps)
(√(S[z] + epsilon), S[z] + epsilon, True)
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

import sympy
from sympy.core.sorting import default_sort_key

from lnsym import ir

Monomial = tuple[str, ...]


def _is_square(m: Monomial) -> bool:
    return all(m.count(a) % 2 == 0 for a in set(m))


class PowerSum(sympy.Symbol):
    """S[m] for a sorted monomial m of atom names: nonnegative when m is a square.

    Its name is written from m (atom names never contain "·" or "]", so it is unique to m),
    but what makes two power sums equal is the monomial itself.
    """

    __slots__ = ("monomial",)

    monomial: Monomial

    def __new__(cls, monomial: Monomial) -> PowerSum:
        name = "S[" + "·".join(monomial) + "]"
        if _is_square(monomial):
            obj = sympy.Symbol.__xnew__(cls, name, nonnegative=True)
        else:
            obj = sympy.Symbol.__xnew__(cls, name, real=True)
        obj.monomial = monomial
        return obj

    def __getnewargs_ex__(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return ((self.monomial,), {})

    def _hashable_content(self) -> tuple[Any, ...]:
        return (self.monomial,)


class Root(sympy.Symbol):
    """r = √radicand, nonnegative, for a canonical radicand that is not a number.

    Equal exactly when the radicands are equal as SymPy expressions (symbols with their
    assumptions, floats with their binary value). ``depth`` counts the nesting of roots.
    """

    __slots__ = ("radicand", "depth")

    radicand: sympy.Expr
    depth: int

    def __new__(cls, radicand: sympy.Expr) -> Root:
        # The name is a digest of the radicand's structure: SymPy orders symbols by name, so
        # two roots never tie, and the order never depends on how a radicand prints.
        obj = sympy.Symbol.__xnew__(cls, "√" + structural_digest(radicand), nonnegative=True)
        obj.radicand = radicand
        obj.depth = 1 + max((r.depth for r in roots_in(radicand)), default=0)
        return obj

    def __getnewargs_ex__(self) -> tuple[tuple[Any, ...], dict[str, Any]]:
        return ((self.radicand,), {})

    def _hashable_content(self) -> tuple[Any, ...]:
        return (self.radicand,)

    def _sympystr(self, printer: Any) -> str:
        return f"√({printer._print(self.radicand)})"

    def _latex(self, printer: Any) -> str:
        return rf"\sqrt{{{printer._print(self.radicand)}}}"


@lru_cache(maxsize=4096)
def structural_digest(e: sympy.Basic) -> str:
    """16 hex digits of a digest of ``e``'s structure: classes, and atoms by their hashable
    content (a symbol's name and assumptions, a number's exact parts, a root's radicand)."""
    if isinstance(e, Root):
        content = "Root:" + structural_digest(e.radicand)
    elif e.args:
        content = type(e).__name__ + "(" + ",".join(structural_digest(a) for a in e.args) + ")"
    elif isinstance(e, sympy.Float):
        content = f"Float:{e._mpf_!r}:{e._prec}"
    else:
        content = f"{type(e).__name__}:{e._hashable_content()!r}"
    return hashlib.blake2b(content.encode(), digest_size=8).hexdigest()


@lru_cache(maxsize=4096)
def power_sum(m: Monomial) -> sympy.Expr:
    """S[m] = Σᵢ Πₐ∈m aᵢ; the empty monomial gives d.

    >>> power_sum(("z", "z"))
    S[z·z]
    """
    if not m:
        return ir.d
    return PowerSum(tuple(sorted(m)))


def monomial_of(sym: sympy.Basic) -> Monomial | None:
    """m for a power sum S[m], or None for any other symbol."""
    return sym.monomial if isinstance(sym, PowerSum) else None


def radicand_of(sym: sympy.Basic) -> sympy.Expr | None:
    """R for a root symbol r = √R, or None for any other symbol."""
    return sym.radicand if isinstance(sym, Root) else None


def exact_sqrt(x: sympy.Expr) -> sympy.Expr:
    """SymPy's exact square root, unevaluated where SymPy 1.14 fails on large integers.

    (sympy/sympy#28621: ``sqrt`` may raise "… is not a prime factor of …"; with gmpy2
    ground types, ``factorint`` takes ``math.log`` of an mpz and raises OverflowError.)
    """
    try:
        return sympy.sqrt(x)
    except (ValueError, OverflowError):
        return sympy.Pow(x, sympy.Rational(1, 2), evaluate=False)


def roots_in(f: sympy.Expr) -> list[Root]:
    """Root symbols of ``f``, outermost (deepest nesting) first."""
    found = [s for s in f.free_symbols if isinstance(s, Root)]
    return sorted(found, key=lambda s: (-s.depth, default_sort_key(s)))


def has_special(f: sympy.Expr) -> bool:
    """Whether ``f`` holds a power sum or a root symbol."""
    return any(isinstance(s, PowerSum | Root) for s in f.free_symbols)


def mentions_vectors(f: sympy.Expr) -> bool:
    """Whether a scalar normal form depends on a vector (a power sum, or a root of one).

    >>> from lnsym.engines.general.algebra import root
    >>> mentions_vectors(power_sum(("z",)) / ir.d), mentions_vectors(root(ir.eps + 1))
    (True, False)
    """
    return any(
        isinstance(s, PowerSum) or (isinstance(s, Root) and mentions_vectors(s.radicand))
        for s in f.free_symbols
    )
