"""The concrete engine's symbolic zero test: fractions over a sparse polynomial ring.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). Both sides
of an identity at a fixed d, as SymPy expressions, become num/den over ``sympy.polys.rings`` (no
gcds), square roots becoming generators r with r² = R; the identity holds when num reduces to 0
modulo those relations. A deterministic work limit hands larger cases to exact points.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import sympy
from sympy.core.sorting import default_sort_key
from sympy.polys.domains import QQ
from sympy.polys.rings import PolyElement, PolyRing, ring

from lnsym.errors import DomainError, UnsupportedError

#: Term products allowed in one symbolic reduction before exact points take over.
SYMBOLIC_WORK = 50_000


class _TooLarge(UnsupportedError):
    """The symbolic reduction would be slower than exact random points."""


class _Fractions:
    """SymPy expressions as num / Π fᵏ over QQ[roots, s, symbols], without any gcd.

    ``definitions`` maps names (and ε ↦ s² − q) to what they stand for. Square roots become
    ring generators r with r² = R, outermost first, so that the relations form a Gröbner
    basis in lex order (their leading terms r² are coprime); √(s²) is s itself.
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
        self.ring, *ring_gens = ring(gens or [sympy.Dummy("unused")], QQ)
        self.gen = dict(zip(gens, ring_gens, strict=False))
        self.slot = {r: self.gen[root] for r, root in zip(order, root_symbols, strict=True)}
        self.s = self.gen.get(s) if s is not None else None
        # Generators known positive (s, ε, declared scalars): their squares leave a root.
        self.positive = [i for i, g in enumerate(gens) if g.is_positive]
        # (n·D, D) → the generator r = √(n·D) that stands for √(n/D)·D.
        self.roots: dict[tuple[PolyElement, PolyElement], PolyElement] = {}
        self._memo: dict[sympy.Expr, tuple[PolyElement, dict[PolyElement, int]]] = {}
        self.work = 0

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

    def convert(self, e: sympy.Expr) -> tuple[PolyElement, dict[PolyElement, int]]:
        found = self._memo.get(e)
        if found is None:
            found = self._memo[e] = self._convert(e)
        return found

    def _convert(self, e: sympy.Expr) -> tuple[PolyElement, dict[PolyElement, int]]:
        R = self.ring
        if e.is_Rational:
            return R(QQ(int(e.p), int(e.q))), {}
        if e.is_Symbol:
            if e in self.definitions:
                return self.convert(self.definitions[e])
            return self.gen[e], {}
        if e.is_Add:
            parts = [self.convert(a) for a in e.args]
            common: dict[PolyElement, int] = {}
            for _, den in parts:
                for f, k in den.items():
                    common[f] = max(common.get(f, 0), k)
            nums = []
            for n, den in parts:
                for f, k in common.items():
                    if k > den.get(f, 0):
                        n = self._mul(n, self._pow(f, k - den.get(f, 0)))
                nums.append(n)
            return _plus(R, nums), common
        if e.is_Mul:
            num, den = R.one, {}
            for a in e.args:
                n, dd = self.convert(a)
                num = self._mul(num, n)
                for f, k in dd.items():
                    den[f] = den.get(f, 0) + k
            return num, den
        if isinstance(e, sympy.Abs):
            return self._root(e.args[0] ** 2, 1)
        if e.is_Pow and e.exp.is_Rational:
            if e.exp.q == 1:
                n, dd = self.convert(e.base)
                k = int(e.exp)
                if k >= 0:
                    return self._pow(n, k), {f: j * k for f, j in dd.items()}
                return self._over(self._product(dd, -k), n, -k)
            if e.exp.q == 2:
                return self._root(e.base, int(e.exp.p))
        raise UnsupportedError(f"no polynomial reduction for {type(e).__name__} ({e})")

    def _root(self, radicand: sympy.Expr, p: int) -> tuple[PolyElement, dict[PolyElement, int]]:
        """(√radicand)^p, with √(n/D) written r/D for a generator r with r² = n·D.

        (That is √(n·D)/|D| up to the sign of D; reducing modulo r² − n·D proves an identity
        for both signs of r, so the sign cannot matter. Only √(s²) is replaced by s > 0.)
        """
        n, dd = self.convert(radicand)
        den = self._product(dd, 1)
        rad = self._mul(n, den)
        if not rad:
            if p < 0:
                raise DomainError("division by the square root of 0")
            return self.ring.zero, {}
        # √(m²·rad) = m·√rad for a monomial m in positive generators.
        m = self.ring.one
        for i in self.positive:
            k = min(monomial[i] for monomial in rad.itermonoms()) // 2
            m = m * self.ring.gens[i] ** k
        if m != 1:  # divide every exponent by m² (what exquo does, without its search)
            (shift,) = m.itermonoms()
            rad = self.ring.from_dict(
                {
                    tuple(e - 2 * k for e, k in zip(mon, shift, strict=True)): c
                    for mon, c in rad.iterterms()
                }
            )
        if self.s is not None and den == 1 and rad == self.s**2:
            root = m * self.s
        else:
            root = m * self.roots.setdefault((rad, den), self.slot[radicand])
        if p >= 0:
            return self._over(self._pow(root, p), den, p)
        return self._over(self._pow(den, -p), root, -p)

    def _over(
        self, num: PolyElement, f: PolyElement, k: int
    ) -> tuple[PolyElement, dict[PolyElement, int]]:
        """num / fᵏ with f made monic, so equal factors are equal keys."""
        if k == 0:
            return num, {}
        if f.is_ground:
            if f == 0:
                raise DomainError("division by zero")
            return num.quo_ground(f.LC**k), {}
        return num.quo_ground(f.LC**k), {f.monic(): k}

    def _mul(self, a: PolyElement, b: PolyElement) -> PolyElement:
        # A deterministic size guard: past it, exact random points are the cheaper check.
        self.work += len(a) * len(b)
        if self.work > SYMBOLIC_WORK:
            raise _TooLarge("the expansion is too large for the symbolic reduction")
        return _times(a, b)

    def _pow(self, a: PolyElement, k: int) -> PolyElement:
        out = self.ring.one
        for _ in range(k):
            out = self._mul(out, a)
        return out

    def _product(self, factors: Mapping[PolyElement, int], times: int) -> PolyElement:
        out = self.ring.one
        for f, k in factors.items():
            out = self._mul(out, self._pow(f, k * times))
        return out

    def vanishes(self, e: sympy.Expr) -> bool:
        """Whether ``e`` is identically zero (True is exact; False may mean "not canonical")."""
        num, den = self.convert(e)
        if any(self.reduce(f) == 0 for f in den):
            raise DomainError("a denominator vanishes identically")
        return bool(self.reduce(num) == 0)

    def reduce(self, p: PolyElement) -> PolyElement:
        """``p`` modulo the relations r² = R: every r^k becomes R^(k//2)·r^(k mod 2).

        The relations are a Gröbner basis with leading terms r², so this is the normal form
        that division by them gives, found by substitution instead: outermost root first,
        since a radicand holds only roots nested deeper, which come later.
        """
        gens = self.ring.gens
        relations = {gens.index(root): rad for (rad, _), root in self.roots.items()}
        for i in sorted(relations):
            p = self._substitute(p, i, relations[i])
        return p

    def _substitute(self, p: PolyElement, i: int, rad: PolyElement) -> PolyElement:
        """``p`` with the generator i's square replaced by ``rad``."""
        by_half: dict[int, dict[tuple[int, ...], object]] = {}
        for monom, coeff in p.iterterms():
            k = monom[i]
            by_half.setdefault(k // 2, {})[monom[:i] + (k % 2,) + monom[i + 1 :]] = coeff
        out = self.ring.zero
        for half, terms in sorted(by_half.items()):
            part = self.ring.from_dict(terms)
            out += self._mul(part, self._pow(rad, half)) if half else part
        return out


def _times(a: PolyElement, b: PolyElement) -> PolyElement:
    """``a * b`` over QQ — the same polynomial — with the products taken over the integers.

    SymPy's rational numbers (pure Python without gmpy2) reduce by a gcd after every one of
    the len(a)·len(b) coefficient products and sums; here each factor is scaled to integer
    coefficients once, the products are summed as Python integers, and each coefficient of
    the result is reduced once (≈ 30 % faster on the catalog's products).
    """
    R = a.ring
    if not a or not b:
        return R.zero
    for one, other in ((a, b), (b, a)):  # 1·p = p (the first factor of every product)
        if len(one) == 1 and one.get(R.zero_monom) == 1:
            return other
    scale_a = math.lcm(*(c.denominator for c in a.values()))
    scale_b = math.lcm(*(c.denominator for c in b.values()))
    ints_b = [(m, c.numerator * (scale_b // c.denominator)) for m, c in b.items()]
    monomial_mul = R.monomial_mul
    out: dict[tuple[int, ...], int] = {}
    get = out.get
    for ma, ca in a.items():
        ia = ca.numerator * (scale_a // ca.denominator)
        for mb, ib in ints_b:
            m = monomial_mul(ma, mb)
            out[m] = get(m, 0) + ia * ib
    scale = scale_a * scale_b
    rational = QQ.dtype
    product = R.zero
    if scale == 1:  # integer coefficients: no gcd to take
        for m, c in out.items():
            if c:
                product[m] = rational(c)
        return product
    for m, c in out.items():
        if c:
            product[m] = rational(c, scale)
    return product


def _plus(R: PolyRing, polys: Sequence[PolyElement]) -> PolyElement:
    """The sum of ``polys`` over QQ — the same polynomial as adding them in turn — summed in
    one pass over the integers: each summand scaled once to the common denominator of all
    coefficients, each coefficient of the result reduced once (instead of a copy of the
    running sum and a rational gcd for every term of every summand)."""
    if len(polys) == 1:
        return polys[0]
    scale = math.lcm(*(c.denominator for p in polys for c in p.values()))
    out: dict[tuple[int, ...], int] = {}
    get = out.get
    for p in polys:
        for m, c in p.items():
            out[m] = get(m, 0) + c.numerator * (scale // c.denominator)
    rational = QQ.dtype
    total = R.zero
    for m, c in out.items():
        if c:
            total[m] = rational(c, scale)
    return total


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
