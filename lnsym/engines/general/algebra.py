"""Scalar algebra modulo the root relations: square roots, fractions, the zero test.

Holds :func:`root` (which makes root symbols), the reduction r² → R, the deterministic
size limits (:data:`TERM_LIMIT`, :data:`ROOT_DEPTH_LIMIT`, :data:`RESIDUAL_LIMIT`), and the
two questions every verdict rests on: :func:`is_zero` and :func:`canonical`. Nothing here
calls ``simplify``: a difference is brought to one fraction, reduced modulo r² − R for
every root, and expanded.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache

import sympy

from lnsym.engines.general.symbols import Root, exact_sqrt, roots_in
from lnsym.errors import DomainError, UnsupportedError

#: The general engine's deterministic work limit: an upper bound on the number of terms of
#: an expanded numerator and denominator (see :func:`term_bound`). Past it the engine gives
#: up ("too large"), the same way on every machine, and the other engines decide.
TERM_LIMIT = 50_000
#: Square roots nested deeper than this (a layer of a layer of a layer) are beyond the
#: engine's deterministic limit: SymPy's arithmetic on them takes minutes.
ROOT_DEPTH_LIMIT = 2
#: Residuals (shown to users, not needed for a verdict) are canonicalized up to this size.
#: The catalog's residuals stay below 100; rationalizing the nested roots of a false claim
#: about composed layers at 300–2,000 terms took 2–15 s per residual, for display only.
RESIDUAL_LIMIT = 200


@lru_cache(maxsize=4096)
def root(radicand: sympy.Expr) -> sympy.Expr:
    """√radicand: an exact SymPy root for numbers, otherwise a root symbol.

    Remembered per radicand as written (the same variance is rooted by claim after claim):
    the result is a function of the radicand's structure alone, so nothing of one claim
    reaches another through it.

    Raises:
        DomainError: for a negative number.
        UnsupportedError: past :data:`ROOT_DEPTH_LIMIT`.
    """
    depth = 1 + max((r.depth for r in roots_in(radicand)), default=0)
    if depth > ROOT_DEPTH_LIMIT:
        raise UnsupportedError(
            f"too large for the general engine: square roots nested {depth} deep "
            f"(limit {ROOT_DEPTH_LIMIT})"
        )
    radicand = canonical(radicand)
    if radicand.is_number:
        if radicand.is_negative:
            raise DomainError(f"square root of the negative number {radicand}")
        return exact_sqrt(radicand)
    outside, radicand = _square_factors(radicand)
    if radicand.is_number:  # the whole radicand was a square
        return outside * exact_sqrt(radicand)
    return outside * Root(radicand)


def _square_factors(radicand: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """Split a canonical R = a²·R' into (|a|, R') for the square factors a SymPy can see.

    √(c²·q) must become |c|·√q (c·√q for c > 0), or the idealized core would not be
    provably scale invariant; a positive rational factor k leaves as √k.
    """
    outside, inside = [], []
    for factor in sympy.Mul.make_args(sympy.factor_terms(radicand)):
        base, exponent = factor.as_base_exp()
        if factor.is_Rational and factor.is_positive:
            outside.append(exact_sqrt(factor))
        elif exponent.is_Integer and exponent % 2 == 0 and base.is_real:
            half = base if base.is_nonnegative else sympy.Abs(base)
            outside.append(half ** (exponent // 2))
        else:
            inside.append(factor)
    rest = sympy.Mul(*inside)
    # Nothing split off (most radicands): R is canonical already, and canonical(R) is R.
    return sympy.Mul(*outside), rest if rest == radicand else canonical(rest)


def _absorb_roots(value: sympy.Expr) -> sympy.Expr:
    """Rewrite SymPy's own half-integer powers of non-numbers with our root symbols."""

    def is_half_power(e: sympy.Basic) -> bool:
        return bool(e.is_Pow and e.exp.is_Rational and e.exp.q == 2 and not e.base.is_number)

    return value.replace(is_half_power, lambda e: root(e.base) ** e.exp.p)


def _reduce_powers(f: sympy.Expr) -> sympy.Expr:
    """Replace r**k (k ≥ 2) by R**(k//2)·r**(k%2) in an expanded polynomial."""
    rep = {}
    for p in f.atoms(sympy.Pow):
        if isinstance(p.base, Root) and p.exp.is_Integer and p.exp >= 2:
            rep[p] = p.base.radicand ** (p.exp // 2) * p.base ** (p.exp % 2)
    return f.xreplace(rep) if rep else f


def term_bound(f: sympy.Expr) -> int:
    """An upper bound on the terms of the expanded numerator plus denominator of ``f``.

    Computed on the unexpanded expression tree in one pass (shared subtrees once):
    a/b + c/e has at most |a||e| + |c||b| terms over |b||e|, products multiply, and an
    integer power k of a sum of n terms has at most n^k terms.

    >>> x, y = sympy.symbols("x y")
    >>> term_bound((x + y) ** 3), term_bound(1 / (x + y) + x)
    (9, 5)
    """
    memo: dict[sympy.Basic, tuple[int, int]] = {}

    def bound(e: sympy.Basic) -> tuple[int, int]:
        if e in memo:
            return memo[e]
        if e.is_Add:
            parts = [bound(a) for a in e.args]
            den = _product(d for _, d in parts)
            num = sum(n * den // max(d, 1) for n, d in parts)
            out = (num, den)
        elif e.is_Mul:
            parts = [bound(a) for a in e.args]
            out = (_product(n for n, _ in parts), _product(d for _, d in parts))
        elif e.is_Pow and e.exp.is_Integer:
            n, d = bound(e.base)
            k = int(e.exp)
            out = (n**k, d**k) if k >= 0 else (d**-k, n**-k)
        else:
            out = (1, 1)
        out = (min(out[0], _HUGE), min(out[1], _HUGE))
        memo[e] = out
        return out

    num, den = bound(f)
    return num + den


_HUGE = 10**30


def _product(values: Iterable[int]) -> int:
    out = 1
    for v in values:
        out = min(out * v, _HUGE)
    return out


def _fraction(f: sympy.Expr, limit: int = TERM_LIMIT) -> tuple[sympy.Expr, sympy.Expr]:
    """(numerator, denominator), both expanded and of degree ≤ 1 in every root symbol.

    Raises:
        UnsupportedError: when the expansion could exceed :data:`TERM_LIMIT` terms.
    """
    _check_size(f, limit)
    return _reduced(*_split(f))


def _check_size(f: sympy.Expr, limit: int) -> None:
    """Raise UnsupportedError when expanding ``f`` could exceed ``limit`` terms."""
    if (size := term_bound(f)) > limit:
        raise UnsupportedError(
            f"too large for the general engine: up to {size:.2g} terms after expansion "
            f"(limit {limit:,})"
        )


def _split(f: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """(numerator, denominator) of ``f``; a polynomial is its own numerator, without the
    cost of ``together`` (whose common-factor search dominates on polynomials in roots)."""
    if all(p.exp.is_Integer and p.exp >= 0 for p in f.atoms(sympy.Pow)):
        return f, sympy.Integer(1)
    return sympy.fraction(sympy.together(f))


def _reduced(num: sympy.Expr, den: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """num/den expanded, with every r^k (k ≥ 2) replaced by R^(k//2)·r^(k mod 2)."""
    while True:
        num, den = sympy.expand(num), sympy.expand(den)
        if num.has(sympy.zoo, sympy.nan) or den == 0:
            raise DomainError("division by zero")
        reduced_num, reduced_den = _reduce_powers(num), _reduce_powers(den)
        if reduced_num == num and reduced_den == den:
            return num, den
        n1, d1 = _split(reduced_num)
        n2, d2 = _split(reduced_den)
        num, den = n1 * d2, d1 * n2


def is_zero(f: sympy.Expr) -> bool:
    """Whether the scalar normal form ``f`` vanishes identically (modulo the root relations).

    >>> from lnsym.engines.general.symbols import power_sum
    >>> from lnsym.ir import nodes as ir
    >>> r = root(power_sum(("z", "z")) + ir.eps)
    >>> is_zero(r**2 - power_sum(("z", "z")) - ir.eps), is_zero(r - 1)
    (True, False)
    """
    return _fraction(f)[0] == 0


def canonical(f: sympy.Expr, limit: int = TERM_LIMIT) -> sympy.Expr:
    """A canonical form: Σ_T (p_T/q_T)·Π_{r∈T} r with reduced fractions p_T/q_T free of roots.

    Denominators are rationalized root by root (outermost first), so two normal forms that
    agree modulo the root relations get the same canonical form.
    """
    if not isinstance(f, sympy.Expr):
        raise UnsupportedError(f"not a scalar expression: {f!r}")
    num, den = _fraction(f, limit)
    for r in roots_in(den):
        while den.has(r):
            a, b = den.coeff(r, 0), den.coeff(r, 1)
            # num/den = num·(a − b·r) / (a² − b²·R): the same bound as one fraction, then
            # numerator and denominator split apart (each is a polynomial but for R).
            upper, lower = num * (a - b * r), a**2 - b**2 * r.radicand
            _check_size(upper / lower, limit)
            n1, d1 = _split(upper)
            n2, d2 = _split(lower)
            num, den = _reduced(n1 * d2, d1 * n2)
    roots = roots_in(num)
    if not roots:
        return sympy.cancel(num / den)
    terms = sympy.Poly(num, *roots).as_dict()
    return sympy.Add(
        *(
            sympy.cancel(coeff / den) * sympy.Mul(*map(sympy.Pow, roots, powers))
            for powers, coeff in terms.items()
        )
    )
