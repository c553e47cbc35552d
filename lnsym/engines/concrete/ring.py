"""The concrete engine's symbolic zero test: fractions over a sparse polynomial ring.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). Both sides
of an identity at a fixed d become num/den over FLINT's multivariate polynomials with rational
coefficients (python-flint ``fmpq_mpoly``, no gcds), square roots becoming generators r with
r² = R; the identity holds when num reduces to 0 modulo those relations. A deterministic work
limit hands larger cases to exact points.

:class:`_Ring` holds that arithmetic and the reduction. The values are usually built in the
ring directly (:mod:`lnsym.engines.concrete.ring_values`); :class:`_Fractions` converts SymPy
expressions instead, for the values that cannot be built so.

FLINT rather than ``sympy.polys.rings``: the same polynomials, multiplied in C instead of
pure-Python dictionaries of rationals (the products were the largest part of the reduction);
the work limit counts term products as before, so every decision is the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import flint
import sympy
from sympy.core.sorting import default_sort_key

from lnsym.errors import DomainError, UnsupportedError

#: Term products allowed in one symbolic reduction before exact points take over.
SYMBOLIC_WORK = 50_000

Poly = flint.fmpq_mpoly


class _TooLarge(UnsupportedError):
    """The symbolic reduction would be slower than exact random points."""


class _Key:
    """A polynomial as a dictionary key (FLINT's polynomials are mutable, so unhashable)."""

    __slots__ = ("poly", "_hash")

    def __init__(self, poly: Poly) -> None:
        self.poly = poly
        self._hash = hash(poly.str())  # canonical in the ring's term order

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Key) and self.poly == other.poly


#: A fraction num / Π fᵏ: the numerator and the denominator's monic factors f with exponents.
Pair = tuple[Poly, dict[_Key, int]]


class _Ring:
    """QQ[roots, s, symbols] with the relations r² = R: the arithmetic of both symbolic routes.

    Fractions are :data:`Pair` s, never reduced by a gcd. The generators come first in lex
    order as roots (outermost first, so that the relations form a Gröbner basis: their
    leading terms r² are coprime), then s, then the rest. ``limit`` bounds the term products
    of one reduction (:attr:`work`), a deterministic size guard.
    """

    def __init__(self, count: int, s: int | None, positive: Sequence[int], limit: int) -> None:
        self.context = flint.fmpq_mpoly_ctx.get(
            [f"g{i}" for i in range(count)] or ["unused"], "lex"
        )
        self.gens = self.context.gens()
        self.zero, self.one = self.context.constant(0), self.context.constant(1)
        self.s = self.gens[s] if s is not None else None
        #: Generators known positive (s, ε, declared scalars): their squares leave a root.
        self.positive = list(positive)
        #: (n·D, D) → the index of the generator r = √(n·D) that stands for √(n/D)·D.
        self.roots: dict[tuple[_Key, _Key], int] = {}
        self.limit = limit
        self.work = 0

    def add(self, parts: Sequence[Pair]) -> Pair:
        """The sum, over the least common product of the denominators' factors."""
        common: dict[_Key, int] = {}
        for _, den in parts:
            for f, k in den.items():
                common[f] = max(common.get(f, 0), k)
        total: Poly | None = None
        for n, den in parts:
            for f, k in common.items():
                if k > den.get(f, 0):
                    n = self._mul(n, self._pow(f.poly, k - den.get(f, 0)))
            total = n if total is None else total + n
        return (self.zero if total is None else total), common

    def multiply(self, parts: Sequence[Pair]) -> Pair:
        num: Poly | None = None
        den: dict[_Key, int] = {}
        for n, dd in parts:
            num = self._times(num, n)
            for f, k in dd.items():
                den[f] = den.get(f, 0) + k
        return (self.one if num is None else num), den

    def power(self, x: Pair, k: int) -> Pair:
        """x to an integer power k."""
        n, dd = x
        if k >= 0:
            return self._pow(n, k), {f: j * k for f, j in dd.items()}
        return self._over(self._product(dd, -k), n, -k)

    def root(self, x: Pair, p: int, slot: Callable[[], int]) -> Pair:
        """(√x)^p, with √(n/D) written r/D for a generator r with r² = n·D; ``slot`` gives
        the index of a new generator.

        (That is √(n·D)/|D| up to the sign of D; reducing modulo r² − n·D proves an identity
        for both signs of r, so the sign cannot matter. Only √(s²) is replaced by s > 0.)
        """
        n, dd = x
        den = self._product(dd, 1)
        rad = self._mul(n, den)
        if rad.is_zero():
            if p < 0:
                raise DomainError("division by the square root of 0")
            return self.zero, {}
        # √(m²·rad) = m·√rad for a monomial m in positive generators: m² is the largest
        # even part of the monomial dividing every term of rad (its term content).
        content = rad.term_content().monoms()[0]
        shift = [0] * self.context.nvars()
        for i in self.positive:
            shift[i] = content[i] // 2
        m = self.one
        if any(shift):
            m = self.context.term(exp_vec=tuple(shift))
            rad = rad / (m * m)  # exact: m² divides every term
        if self.s is not None and den.is_one() and rad == self.s**2:
            root = m * self.s
        else:
            key = (_Key(rad), _Key(den))
            index = self.roots.get(key)
            if index is None:
                index = self.roots[key] = slot()
            root = m * self.gens[index]
        if p >= 0:
            return self._over(self._pow(root, p), den, p)
        return self._over(self._pow(den, -p), root, -p)

    def _over(self, num: Poly, f: Poly, k: int) -> Pair:
        """num / fᵏ with f made monic, so equal factors are equal keys."""
        if k == 0:
            return num, {}
        if f.is_zero():
            raise DomainError("division by zero")
        lc = f.leading_coefficient()
        return num / lc**k, {} if f.is_constant() else {_Key(f / lc): k}

    def _charge(self, products: int) -> None:
        # A deterministic size guard: past it, exact random points are the cheaper check.
        self.work += products
        if self.work > self.limit:
            raise _TooLarge("the expansion is too large for the symbolic reduction")

    def _mul(self, a: Poly, b: Poly) -> Poly:
        self._charge(len(a) * len(b))
        return a * b

    def _times(self, out: Poly | None, a: Poly) -> Poly:
        """out·a; None stands for the 1 a product starts from, which is not multiplied but
        charged as if it were (so the work limit decides as it always has)."""
        if out is not None:
            return self._mul(out, a)
        self._charge(len(a))
        return a

    def _pow(self, a: Poly, k: int) -> Poly:
        out = None
        for _ in range(k):
            out = self._times(out, a)
        return self.one if out is None else out

    def _product(self, factors: Mapping[_Key, int], times: int) -> Poly:
        out = None
        for f, k in factors.items():
            out = self._times(out, self._pow(f.poly, k * times))
        return self.one if out is None else out

    def is_zero(self, x: Pair) -> bool:
        """Whether the fraction is identically zero (True is exact; False may mean "not
        canonical")."""
        num, den = x
        if any(self.reduce(f.poly).is_zero() for f in den):
            raise DomainError("a denominator vanishes identically")
        return self.reduce(num).is_zero()

    def reduce(self, p: Poly) -> Poly:
        """``p`` modulo the relations r² = R: every r^k becomes R^(k//2)·r^(k mod 2).

        The relations are a Gröbner basis with leading terms r², so this is the normal form
        that division by them gives, found by substitution instead: outermost root first,
        since a radicand holds only roots nested deeper, which come later.
        """
        relations = {index: rad.poly for (rad, _), index in self.roots.items()}
        for i in sorted(relations):
            if p.degrees()[i] >= 2:  # (else p is its own remainder: nothing to replace)
                p = self._substitute(p, i, relations[i])
        return p

    def _substitute(self, p: Poly, i: int, rad: Poly) -> Poly:
        """``p`` with the generator i's square replaced by ``rad``: p = Σₕ partₕ·(r²)ʰ with
        partₕ of degree < 2 in r (divisions by the monomial r², in FLINT), then Σₕ partₕ·radʰ."""
        square = self.gens[i] ** 2
        p, out = divmod(p, square)
        half = 1
        while not p.is_zero():
            p, part = divmod(p, square)
            if not part.is_zero():
                out = out + self._mul(part, self._pow(rad, half))
            half += 1
        return out


class _Fractions(_Ring):
    """SymPy expressions as fractions over the ring (the SymPy route's reduction).

    ``definitions`` maps names (and ε ↦ s² − q) to what they stand for. Square roots become
    generators, ordered by how deeply they nest; |x| is √(x²).
    """

    def __init__(
        self,
        exprs: Sequence[sympy.Expr],
        s: sympy.Symbol | None,
        definitions: Mapping[sympy.Symbol, sympy.Expr],
    ) -> None:
        self.definitions = definitions
        everything = [*exprs, *definitions.values()]
        depth: dict[sympy.Expr, int] = {}
        radicands, symbols = _radicands_and_symbols(everything)
        order = sorted(radicands, key=lambda r: (-self._depth(r, depth), default_sort_key(r)))
        symbols -= {s, *definitions}
        root_symbols = [sympy.Dummy(f"r{i}") for i in range(len(order))]
        gens = [*root_symbols, *([s] if s is not None else []), *sorted(symbols, key=str)]
        positive = [i for i, g in enumerate(gens) if g.is_positive]
        super().__init__(len(gens), len(order) if s is not None else None, positive, SYMBOLIC_WORK)
        self.gen = dict(zip(gens, self.gens, strict=False))
        self.slot = {r: i for i, r in enumerate(order)}  # the generator index of each root
        self._memo: dict[sympy.Expr, Pair] = {}

    def _depth(self, e: sympy.Expr, memo: dict[sympy.Expr, int]) -> int:
        """How deeply square roots nest inside ``e`` (through names too)."""
        if e not in memo:
            found = 0
            for node in sympy.preorder_traversal(e):
                if node in self.definitions:
                    found = max(found, self._depth(self.definitions[node], memo))
                elif _is_radical(node):
                    found = max(found, 1 + self._depth(node.args[0], memo))
            memo[e] = found
        return memo[e]

    def convert(self, e: sympy.Expr) -> Pair:
        found = self._memo.get(e)
        if found is None:
            found = self._memo[e] = self._convert(e)
        return found

    def _convert(self, e: sympy.Expr) -> Pair:
        if e.is_Rational:
            return self.context.constant(flint.fmpq(int(e.p), int(e.q))), {}
        if e.is_Symbol:
            if e in self.definitions:
                return self.convert(self.definitions[e])
            return self.gen[e], {}
        if e.is_Add:
            return self.add([self.convert(a) for a in e.args])
        if e.is_Mul:
            return self.multiply([self.convert(a) for a in e.args])
        if isinstance(e, sympy.Abs):
            return self._root(e.args[0] ** 2, 1)
        if e.is_Pow and e.exp.is_Rational:
            if e.exp.q == 1:
                return self.power(self.convert(e.base), int(e.exp))
            if e.exp.q == 2:
                return self._root(e.base, int(e.exp.p))
        raise UnsupportedError(f"no polynomial reduction for {type(e).__name__} ({e})")

    def _root(self, radicand: sympy.Expr, p: int) -> Pair:
        return self.root(self.convert(radicand), p, lambda: self.slot[radicand])

    def vanishes(self, e: sympy.Expr) -> bool:
        """Whether ``e`` is identically zero (True is exact; False may mean "not canonical")."""
        return self.is_zero(self.convert(e))


def _is_radical(e: sympy.Basic) -> bool:
    return isinstance(e, sympy.Abs) or bool(e.is_Pow and e.exp.is_Rational and e.exp.q == 2)


def _radicands_and_symbols(
    exprs: Sequence[sympy.Expr],
) -> tuple[set[sympy.Expr], set[sympy.Symbol]]:
    """The radicands of every square root (and |x|, the root of x²) in ``exprs``, and
    their symbols, in one walk that looks at each distinct subexpression once: the values
    and the names' definitions share most of their parts. (No node here binds a symbol, so
    the symbols met are the free ones.)"""
    radicands: set[sympy.Expr] = set()
    symbols: set[sympy.Symbol] = set()
    seen: set[sympy.Basic] = set()
    stack = list(exprs)
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        if node.is_Symbol:
            symbols.add(node)
        elif isinstance(node, sympy.Abs):
            radicands.add(node.args[0] ** 2)
        elif _is_radical(node):
            radicands.add(node.base)
        stack.extend(node.args)
    return radicands, symbols
