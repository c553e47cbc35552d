"""The general-d engine: normal forms over power sums, derivatives, and equality for every d.

A vector's normal form is a linear combination Σ c_m·m of Hadamard monomials m of vector
atoms (the ones vector is the empty monomial). A scalar's normal form is a SymPy expression
in d, ε, user scalars, *power-sum symbols* S[m] = Σᵢ Πₐ aᵢ (so ⟨a, b⟩ = S[a·b], S[] = d) and
*root symbols* r standing for √R with the relation r² = R. The dimension d stays a symbol
throughout, so every identity proved here holds for every d.

Derivatives are computed, never looked up: the directional derivative along h is the
derivation that sends an atom z to h, a power sum S[m] to the power sums with one z of m
replaced by h, and a root r to D(R)/(2r) — exactly d/dt at t = 0 of z ↦ z + t·h. A gradient
is read off the linear form in a fresh probe atom.

Equality is decided without ``simplify``: bring the difference to one fraction, reduce the
numerator modulo r² − R for every root, and expand. A zero numerator proves the identity;
a nonzero one is a residual (for independent power sums, i.e. large enough d, the identity
is then false). Power sums are never assumed positive; only squares are nonnegative.

>>> from lnsym import vector, core, jvp, var, eps, Eq
>>> z = vector("z")
>>> engine = GeneralEngine()
>>> engine.decide(Eq(jvp(core(z), z, z), eps / (var(z) + eps) * core(z))).proved
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from dataclasses import replace as dataclass_replace
from functools import lru_cache
from typing import Any

import sympy
from sympy.core.sorting import default_sort_key

from lnsym.errors import DomainError, ExpressionError, UnsupportedError
from lnsym.ir import nodes as ir
from lnsym.ir import signs as signs
from lnsym.ir.calculus import Grad, Jvp, Vjp
from lnsym.ir.layers import Core, LayerNorm

Monomial = tuple[str, ...]
#: The atom used to read gradients off directional derivatives; users cannot name it.
PROBE = "_probe"

# ---------------------------------------------------------------------------------------
# Power-sum and root symbols. Both are interned, so equal objects are the same symbol.

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

    (sympy/sympy#28621: ``sqrt`` may raise "… is not a prime factor of …".)
    """
    try:
        return sympy.sqrt(x)
    except ValueError:
        return sympy.Pow(x, sympy.Rational(1, 2), evaluate=False)


def root(radicand: sympy.Expr) -> sympy.Expr:
    """√radicand: an exact SymPy root for numbers, otherwise an interned root symbol.

    Raises:
        DomainError: for a negative number.
        UnsupportedError: past :data:`ROOT_DEPTH_LIMIT`.
    """
    depth = 1 + max((_DEPTH[r] for r in _roots_in(radicand)), default=0)
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
    sym = _ROOT_OF.get(radicand)
    if sym is None:
        depth = 1 + max((_DEPTH[r] for r in _roots_in(radicand)), default=0)
        sym = sympy.Symbol(f"√({sympy.sstr(radicand)})", nonnegative=True)
        _ROOTS[sym] = radicand
        _ROOT_OF[radicand] = sym
        _DEPTH[sym] = depth
    return outside * sym


def _square_factors(radicand: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """Split R = a²·R' into (|a|, R') for the square factors a SymPy can see.

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
    return sympy.Mul(*outside), canonical(sympy.Mul(*inside))


def _roots_in(f: sympy.Expr) -> list[sympy.Symbol]:
    """Root symbols of ``f``, outermost (deepest nesting) first."""
    found = [s for s in f.free_symbols if s in _ROOTS]
    return sorted(found, key=lambda s: (-_DEPTH[s], default_sort_key(s)))


def _absorb_roots(value: sympy.Expr) -> sympy.Expr:
    """Rewrite SymPy's own half-integer powers of non-numbers with our root symbols."""

    def is_half_power(e: sympy.Basic) -> bool:
        return bool(e.is_Pow and e.exp.is_Rational and e.exp.q == 2 and not e.base.is_number)

    return value.replace(is_half_power, lambda e: root(e.base) ** e.exp.p)


# ---------------------------------------------------------------------------------------
# Scalar algebra modulo the root relations


def _reduce_powers(f: sympy.Expr) -> sympy.Expr:
    """Replace r**k (k ≥ 2) by R**(k//2)·r**(k%2) in an expanded polynomial."""
    rep = {}
    for p in f.atoms(sympy.Pow):
        if p.base in _ROOTS and p.exp.is_Integer and p.exp >= 2:
            rep[p] = _ROOTS[p.base] ** (p.exp // 2) * p.base ** (p.exp % 2)
    return f.xreplace(rep) if rep else f


#: The general engine's deterministic work limit: an upper bound on the number of terms of
#: an expanded numerator and denominator (see :func:`term_bound`). Past it the engine gives
#: up ("too large"), the same way on every machine, and the other engines decide.
TERM_LIMIT = 50_000
#: Square roots nested deeper than this (a layer of a layer of a layer) are beyond the
#: engine's deterministic limit: SymPy's arithmetic on them takes minutes.
ROOT_DEPTH_LIMIT = 2
#: Residuals (shown to users, not needed for a verdict) are canonicalized up to this size.
RESIDUAL_LIMIT = 2_000


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
    if (size := term_bound(f)) > limit:
        raise UnsupportedError(
            f"too large for the general engine: up to {size:.2g} terms after expansion "
            f"(limit {limit:,})"
        )
    num, den = sympy.fraction(sympy.together(f))
    while True:
        num, den = sympy.expand(num), sympy.expand(den)
        if num.has(sympy.zoo, sympy.nan) or den == 0:
            raise DomainError("division by zero")
        reduced_num, reduced_den = _reduce_powers(num), _reduce_powers(den)
        if reduced_num == num and reduced_den == den:
            return num, den
        n1, d1 = sympy.fraction(sympy.together(reduced_num))
        n2, d2 = sympy.fraction(sympy.together(reduced_den))
        num, den = n1 * d2, d1 * n2


def is_zero(f: sympy.Expr) -> bool:
    """Whether the scalar normal form ``f`` vanishes identically (modulo the root relations).

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
    for r in _roots_in(den):
        while den.has(r):
            a, b = den.coeff(r, 0), den.coeff(r, 1)
            num, den = _fraction((num * (a - b * r)) / (a**2 - b**2 * _ROOTS[r]), limit)
    roots = _roots_in(num)
    if not roots:
        return sympy.cancel(num / den)
    terms = sympy.Poly(num, *roots).as_dict()
    return sympy.Add(
        *(
            sympy.cancel(coeff / den) * sympy.Mul(*map(sympy.Pow, roots, powers))
            for powers, coeff in terms.items()
        )
    )


# ---------------------------------------------------------------------------------------
# Vector normal forms


@dataclass(frozen=True, slots=True)
class VectorForm:
    """Σ c_m · m as a tuple of (monomial, coefficient), sorted by monomial."""

    terms: tuple[tuple[Monomial, sympy.Expr], ...]

    @staticmethod
    def of(mapping: dict[Monomial, sympy.Expr]) -> VectorForm:
        return VectorForm(tuple(sorted((m, c) for m, c in mapping.items() if c != 0)))

    @staticmethod
    def atom(name: str) -> VectorForm:
        return VectorForm((((name,), sympy.Integer(1)),))

    @staticmethod
    def monomial(m: Monomial) -> VectorForm:
        return VectorForm(((tuple(sorted(m)), sympy.Integer(1)),))

    def __add__(self, other: VectorForm) -> VectorForm:
        out = dict(self.terms)
        for m, c in other.terms:
            out[m] = out.get(m, 0) + c
        return VectorForm.of(out)

    def scale(self, c: sympy.Expr) -> VectorForm:
        return VectorForm.of({m: c * k for m, k in self.terms})

    def hadamard(self, other: VectorForm) -> VectorForm:
        out: dict[Monomial, sympy.Expr] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, 0) + c1 * c2
        return VectorForm.of(out)

    def map(self, fn: Callable[[sympy.Expr], sympy.Expr]) -> VectorForm:
        return VectorForm.of({m: fn(c) for m, c in self.terms})

    def total(self) -> sympy.Expr:
        """⟨1, v⟩ = Σ c_m S[m]."""
        return sympy.Add(*(c * power_sum(m) for m, c in self.terms))


Form = VectorForm | sympy.Expr


def _without_one(m: Monomial, atom: str) -> Monomial:
    i = m.index(atom)
    return m[:i] + m[i + 1 :]


# ---------------------------------------------------------------------------------------
# Directional derivatives


def derivative(f: Form, wrt: str, direction: VectorForm) -> Form:
    """D_wrt f along ``direction``: d/dt f(wrt + t·direction) at t = 0."""
    if isinstance(f, VectorForm):
        out = VectorForm(())
        for m, c in f.terms:
            out = out + VectorForm.monomial(m).scale(_d_scalar(c, wrt, direction))
            k = m.count(wrt)
            if k:
                rest = VectorForm.monomial(_without_one(m, wrt))
                out = out + rest.hadamard(direction).scale(k * c)
        return out
    return _d_scalar(f, wrt, direction)


def _d_scalar(f: sympy.Expr, wrt: str, direction: VectorForm) -> sympy.Expr:
    total = sympy.Integer(0)
    for sym in sorted(f.free_symbols, key=default_sort_key):
        ds = _d_symbol(sym, wrt, direction)
        if ds != 0:
            total += sympy.diff(f, sym) * ds
    return total


@lru_cache(maxsize=4096)
def _d_symbol(sym: sympy.Symbol, wrt: str, direction: VectorForm) -> sympy.Expr:
    m = _POWER_SUMS.get(sym)
    if m is not None:
        k = m.count(wrt)
        if not k:
            return sympy.Integer(0)
        rest = VectorForm.monomial(_without_one(m, wrt))
        return k * rest.hadamard(direction).total()
    radicand = _ROOTS.get(sym)
    if radicand is not None:
        dr = _d_scalar(radicand, wrt, direction)
        return dr / (2 * sym) if dr != 0 else sympy.Integer(0)
    return sympy.Integer(0)


def gradient(f: sympy.Expr, wrt: str) -> VectorForm:
    """∇_wrt f: the vector whose power sums against a probe h give D_wrt f(h)."""
    return _read_gradient(_d_scalar(f, wrt, VectorForm.atom(PROBE)))


def _read_gradient(df: sympy.Expr) -> VectorForm:
    """The vector g with df = ⟨g, probe⟩, for df linear in the probe atom."""
    out: dict[Monomial, sympy.Expr] = {}
    for sym in sorted(df.free_symbols, key=default_sort_key):
        m = _POWER_SUMS.get(sym)
        if m is None or PROBE not in m:
            continue
        coefficient = sympy.diff(df, sym)
        rest = _without_one(m, PROBE)
        if PROBE in rest or any(
            PROBE in (_POWER_SUMS.get(s) or ()) for s in coefficient.free_symbols
        ):
            raise UnsupportedError("the derivative is not linear in its direction")
        out[rest] = out.get(rest, 0) + coefficient
    return VectorForm.of(out)


# ---------------------------------------------------------------------------------------
# Rewriting: substitution of atoms or symbols, and assumptions


class Rewriter:
    """Maps power sums and plain symbols to new scalars; roots follow their radicands."""

    def power_sum(self, m: Monomial) -> sympy.Expr | None:
        return None

    def symbol(self, sym: sympy.Symbol) -> sympy.Expr | None:
        return None

    def monomial(self, m: Monomial) -> VectorForm | None:
        return None

    def __init__(self) -> None:
        self._memo: dict[sympy.Symbol, sympy.Expr] = {}

    def _rewrite_symbol(self, sym: sympy.Symbol) -> sympy.Expr:
        if sym in self._memo:
            return self._memo[sym]
        new: sympy.Expr | None
        if sym in _POWER_SUMS:
            new = self.power_sum(_POWER_SUMS[sym])
        elif sym in _ROOTS:
            radicand = _ROOTS[sym]
            rewritten = self.scalar(radicand)
            new = None if rewritten == radicand else root(rewritten)
        else:
            new = self.symbol(sym)
        result = sym if new is None else new
        self._memo[sym] = result
        return result

    def scalar(self, f: sympy.Expr) -> sympy.Expr:
        rep = {s: self._rewrite_symbol(s) for s in f.free_symbols}
        rep = {s: v for s, v in rep.items() if v != s}
        return f.xreplace(rep) if rep else f

    def vector(self, v: VectorForm) -> VectorForm:
        out = VectorForm(())
        for m, c in v.terms:
            image = self.monomial(m) or VectorForm.monomial(m)
            out = out + image.scale(self.scalar(c))
        return out

    def form(self, f: Form) -> Form:
        return self.vector(f) if isinstance(f, VectorForm) else self.scalar(f)


class AtomSubstitution(Rewriter):
    """atom := value for a vector atom."""

    def __init__(self, atom: str, value: VectorForm) -> None:
        super().__init__()
        self.atom, self.value = atom, value

    def monomial(self, m: Monomial) -> VectorForm | None:
        k = m.count(self.atom)
        if not k:
            return None
        image = VectorForm.monomial(tuple(a for a in m if a != self.atom))
        for _ in range(k):
            image = image.hadamard(self.value)
        return image

    def power_sum(self, m: Monomial) -> sympy.Expr | None:
        image = self.monomial(m)
        return None if image is None else image.total()


class SymbolSubstitution(Rewriter):
    """symbol := value for a scalar symbol."""

    def __init__(self, target: sympy.Symbol, value: sympy.Expr) -> None:
        super().__init__()
        self.target, self.value = target, value

    def symbol(self, sym: sympy.Symbol) -> sympy.Expr | None:
        return self.value if sym == self.target else None


class Hypotheses(Rewriter):
    """Assumptions as rewrites: centered atoms and orthogonal pairs zero their power sums;
    a fixed dimension replaces d (sound, but power sums are then no longer independent)."""

    def __init__(self, assumptions: Iterable[ir.Assumption]) -> None:
        super().__init__()
        self.zero: set[Monomial] = set()
        for a in assumptions:
            if isinstance(a, ir.Centered):
                self.zero.add((a.atom.name,))
            elif isinstance(a, ir.Orthogonal):
                self.zero.add(tuple(sorted((a.left.name, a.right.name))))
        fixed = {a.value for a in assumptions if isinstance(a, ir.FixedDimension)}
        self.dimension = sympy.Integer(fixed.pop()) if len(fixed) == 1 else None

    def symbol(self, sym: sympy.Symbol) -> sympy.Expr | None:
        return self.dimension if sym == ir.d else None

    def power_sum(self, m: Monomial) -> sympy.Expr | None:
        return sympy.Integer(0) if m in self.zero else None


# ---------------------------------------------------------------------------------------
# The interpreter


@dataclass(frozen=True)
class Outcome:
    """What the general engine concluded about a statement.

    ``proved`` is True only for an exact identity valid for every d; otherwise ``residual``
    is the nonzero canonical difference (lhs − rhs) it found, as an IR expression.
    """

    proved: bool
    detail: str
    residual: ir.Expr | None = None


class GeneralEngine:
    """Interprets IR expressions as normal forms, with memoization per engine."""

    def __init__(self) -> None:
        self._memo: dict[ir.Expr, Form] = {}

    def form(self, e: ir.Expr) -> Form:
        """The normal form of an IR expression."""
        cached = self._memo.get(e)
        if cached is None:
            cached = self._memo[e] = self._form(e)
        return cached

    def _form(self, e: ir.Expr) -> Form:
        match e:
            case ir.VectorAtom(name=name):
                return VectorForm.atom(name)
            case ir.Ones():
                return VectorForm.monomial(())
            case ir.VectorSum(terms=terms):
                out = VectorForm(())
                for t in terms:
                    out = out + self.vector(t)
                return out
            case ir.Scaled(coefficient=c, vector=v):
                return self.vector(v).scale(self.scalar(c))
            case ir.Hadamard(left=a, right=b):
                return self.vector(a).hadamard(self.vector(b))
            case ir.Const(value=value):
                return _absorb_roots(value)
            case ir.Dot(left=a, right=b):
                return self.vector(a).hadamard(self.vector(b)).total()
            case ir.ScalarSum(terms=terms):
                return sympy.Add(*(self.scalar(t) for t in terms))
            case ir.ScalarProduct(factors=factors):
                return sympy.Mul(*(self.scalar(f) for f in factors))
            case ir.Power(base=base, exponent=n):
                return _power(self.scalar(base), n)
            case ir.Defined():
                return self.form(e.definition())
            case Jvp(expr=f, wrt=wrt, direction=h):
                return derivative(self.form(f), wrt.name, self.vector(h))
            case Vjp() | Grad() if PROBE in ir.vector_atoms(e):
                raise UnsupportedError(f"the atom name {PROBE} is reserved for lnsym")
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                # Jᵀg with g held fixed: pair g with the derivative of f, not of ⟨g, f⟩.
                moved = derivative(self.vector(f), wrt.name, VectorForm.atom(PROBE))
                return _read_gradient(moved.hadamard(self.vector(g)).total())
            case Grad(expr=f, wrt=wrt):
                return gradient(self.scalar(f), wrt.name)
            case ir.Substitution(expr=f, target=ir.VectorAtom(name=name), value=value):
                return AtomSubstitution(name, self.vector(value)).form(self.form(f))
            case ir.Substitution(expr=f, target=ir.Const(value=sym), value=value):
                if signs.admissible(e.target, value):
                    return SymbolSubstitution(sym, self.scalar(value)).form(self.form(f))
                # The normal form of f may use the symbol's assumptions (√(ε²q) = ε√q); at a
                # value that breaks them it is no longer f's value: substitute in the IR.
                if isinstance(value, ir.Const):
                    return self.form(_replace_symbol(f, sym, value.value))
                raise UnsupportedError(
                    f"{sym} = {value!r} is not known to satisfy the assumptions of {sym}"
                )
        raise UnsupportedError(f"the general engine cannot interpret {type(e).__name__}")

    def vector(self, e: ir.Expr) -> VectorForm:
        f = self.form(e)
        assert isinstance(f, VectorForm), e
        return f

    def scalar(self, e: ir.Expr) -> sympy.Expr:
        f = self.form(e)
        assert not isinstance(f, VectorForm), e
        return f

    def difference(
        self, lhs: ir.Expr, rhs: ir.Expr, assumptions: Iterable[ir.Assumption] = ()
    ) -> Form:
        """The normal form of lhs − rhs with the assumptions applied."""
        hyp = Hypotheses(assumptions)
        left, right = self.form(lhs), self.form(rhs)
        if isinstance(left, VectorForm) and isinstance(right, VectorForm):
            return hyp.vector(left + right.scale(sympy.Integer(-1)))
        return hyp.scalar(left - right)

    def residual(
        self, lhs: ir.Expr, rhs: ir.Expr, assumptions: Iterable[ir.Assumption] = ()
    ) -> Form | None:
        """None when lhs = rhs for every d; otherwise the canonical nonzero difference."""
        diff = self.difference(lhs, rhs, assumptions)
        if isinstance(diff, VectorForm):
            left_over = {m: c for m, c in diff.terms if not is_zero(c)}
            if not left_over:
                return None
            return VectorForm.of({m: _shown(c) for m, c in left_over.items()})
        return None if is_zero(diff) else _shown(diff)

    def decide(self, statement: ir.Eq, assumptions: Iterable[ir.Assumption] = ()) -> Outcome:
        """Prove an equality for every d, or report the residual that blocks it.

        Sides that apply the same operation to arguments equal for every d are equal
        (congruence), which proves e.g. shift invariance of nested layers without
        normalizing the whole nest; otherwise the normal forms decide.
        """
        if not isinstance(statement, ir.Eq):
            raise UnsupportedError(
                "GeneralEngine.decide handles equalities; see lnsym.checking.proof"
            )
        assumptions = tuple(assumptions)
        lhs, rhs = chain_rule(statement.lhs), chain_rule(statement.rhs)
        if lhs == rhs:
            with contextlib.suppress(UnsupportedError):  # a form too large is still x = x,
                self.form(lhs)  # but a side undefined everywhere (1/0) is a DomainError
            if statement.lhs == statement.rhs:
                return Outcome(True, "both sides are the same expression")
            return Outcome(True, "both sides are the same expression after the chain rule")
        statement = ir.Eq(lhs, rhs)
        if self._congruent(lhs, rhs, assumptions):
            return Outcome(True, "the same operations applied to arguments equal for symbolic d")
        rest = self.residual(lhs, rhs, assumptions)
        if rest is None:
            return Outcome(True, "normal forms agree for symbolic d")
        residual = to_expr(rest)
        return Outcome(False, "lhs − rhs does not vanish for symbolic d", residual)

    def _congruent(self, a: ir.Expr, b: ir.Expr, assumptions: tuple[ir.Assumption, ...]) -> bool:
        """Whether a and b are one pointwise operation applied to equal arguments.

        Only operations that act pointwise qualify: equal values give equal results there.
        Binders (derivatives, substitutions) do not, since arguments equal under the
        assumptions need not have equal derivatives or values elsewhere.
        """
        if type(a) is not type(b) or not isinstance(a, _POINTWISE):
            return False
        differing = [(x, y) for x, y in zip(_fields(a), _fields(b), strict=True) if x != y]
        if not differing or not all(isinstance(x, ir.Expr) for pair in differing for x in pair):
            return False
        return all(
            x.kind == y.kind
            and (self._congruent(x, y, assumptions) or self.residual(x, y, assumptions) is None)
            for x, y in differing
        )


#: Operations that act pointwise on their arguments (congruence applies to them).
_POINTWISE = (
    ir.Mean, ir.Var, ir.Center, ir.Norm, ir.Dot, ir.Hadamard, ir.Scaled, ir.Power, Core, LayerNorm,
)  # fmt: skip


def chain_rule(e: ir.Expr) -> ir.Expr:
    """``e`` with every derivative of a composition rewritten by the chain rule:

    D_z[F|_{y=G}](h) = (D_y F[D_z G(h)] + D_z F(h))|_{y=G}

    for a vector atom y ≠ z that occurs in neither G nor h (the second term only when F
    itself contains z). Both sides of a claim are rewritten alike, so a chain rule stated
    as a claim is decided without normalizing the whole composition.

    >>> from lnsym import vector, core
    >>> z, y, h = vector("z"), vector("y"), vector("h")
    >>> chain_rule(Jvp(core(y).subs(y, core(z)), z, h))
    D_y[core(y)](D_z[core(z)](h))|_{y=core(z)}
    """

    def rewrite(x: Any) -> Any:
        if not isinstance(x, ir.Expr):
            return x
        x = _rebuild(x, rewrite)
        match x:
            case Jvp(
                expr=ir.Substitution(expr=f, target=ir.VectorAtom() as y, value=g),
                wrt=z,
                direction=h,
            ) if y != z and y.name not in ir.vector_atoms(g) | ir.vector_atoms(h):
                body: ir.Expr = Jvp(f, y, Jvp(g, z, h))
                if z.name in ir.vector_atoms(f):
                    body = ir.add(body, Jvp(f, z, h))
                return ir.Substitution(body, y, g)
        return x

    return rewrite(e)  # type: ignore[no-any-return]


def _replace_symbol(e: ir.Expr, sym: sympy.Symbol, value: sympy.Expr) -> ir.Expr:
    """``e`` with the scalar symbol replaced by a constant in every node (an inner
    substitution for the same symbol binds it: only its value is rewritten).

    Raises:
        UnsupportedError: when a constant is not real at the value (√ε at ε = −1).
    """

    def rewrite(x: Any) -> Any:
        if isinstance(x, sympy.Basic):
            return x.xreplace({sym: value})
        if not isinstance(x, ir.Expr):
            return x
        if isinstance(x, ir.Substitution) and x.target == ir.Const(sym):
            return ir.Substitution(x.expr, x.target, rewrite(x.value))
        return _rebuild(x, rewrite)

    try:
        return rewrite(e)  # type: ignore[no-any-return]
    except ExpressionError as exc:
        raise UnsupportedError(f"at {sym} = {value}: {exc}") from exc


def _rebuild(e: ir.Expr, fn: Callable[[Any], Any]) -> ir.Expr:
    """``e`` with ``fn`` applied to each of its fields (to each item of a tuple field)."""
    changes = {
        f.name: tuple(map(fn, v)) if isinstance(v, tuple) else fn(v)
        for f in dataclass_fields(e)  # type: ignore[arg-type]
        for v in (getattr(e, f.name),)
    }
    return dataclass_replace(e, **changes)  # type: ignore[type-var, no-any-return]


def _fields(e: ir.Expr) -> tuple[Any, ...]:
    return tuple(getattr(e, f.name) for f in dataclass_fields(e))  # type: ignore[arg-type]


def _shown(residual: sympy.Expr) -> sympy.Expr:
    """A nonzero residual in canonical form when that is cheap; it is only shown to users,
    so a large one stays as it is rather than costing the verdict time."""
    try:
        return canonical(residual, RESIDUAL_LIMIT)
    except UnsupportedError:
        return residual


def _power(base: sympy.Expr, n: sympy.Expr) -> sympy.Expr:
    if n.is_Rational and n.q == 2:
        return root(base) ** n.p
    return base**n


# ---------------------------------------------------------------------------------------
# Back from normal forms to IR (for display, and to test that normalization is idempotent)


def to_expr(f: Form) -> ir.Expr:
    """An IR expression whose normal form is ``f``."""
    if isinstance(f, VectorForm):
        if not f.terms:
            return ir.Scaled(ir.Const(sympy.Integer(0)), ir.Ones())
        return sum(
            (ir.multiply(_scalar_expr(c), _monomial_expr(m)) for m, c in f.terms),
            start=0,  # type: ignore[arg-type]
        )
    return _scalar_expr(f)


def _monomial_expr(m: Monomial) -> ir.Expr:
    if not m:
        return ir.Ones()
    out: ir.Expr = ir.VectorAtom(m[0])
    for a in m[1:]:
        out = ir.Hadamard(out, ir.VectorAtom(a))
    return out


def _has_special(f: sympy.Expr) -> bool:
    return any(s in _POWER_SUMS or s in _ROOTS for s in f.free_symbols)


def mentions_vectors(f: sympy.Expr) -> bool:
    """Whether a scalar normal form depends on a vector (a power sum, or a root of one).

    >>> mentions_vectors(power_sum(("z",)) / ir.d), mentions_vectors(root(ir.eps + 1))
    (True, False)
    """
    return any(
        s in _POWER_SUMS or (s in _ROOTS and mentions_vectors(_ROOTS[s])) for s in f.free_symbols
    )


def _scalar_expr(f: sympy.Expr) -> ir.Expr:
    if not _has_special(f):
        return ir.Const(f)
    if f.is_Symbol:
        if f in _ROOTS:
            return ir.Power(_scalar_expr(_ROOTS[f]), sympy.Rational(1, 2))
        m = _POWER_SUMS[f]
        if len(m) == 1:
            return ir.Dot(ir.Ones(), ir.VectorAtom(m[0]))
        return ir.Dot(ir.VectorAtom(m[0]), _monomial_expr(m[1:]))
    if f.is_Add or f.is_Mul:
        # Keep the parts free of power sums and roots together as one constant.
        parts = f.as_ordered_terms() if f.is_Add else f.as_ordered_factors()
        plain = f.func(*(p for p in parts if not _has_special(p)))
        nodes = [_scalar_expr(p) for p in parts if _has_special(p)]
        if plain != f.func.identity:
            nodes.insert(0, ir.Const(plain))
        return (ir.ScalarSum if f.is_Add else ir.ScalarProduct)(tuple(nodes))
    if f.is_Pow:
        return ir.power(_scalar_expr(f.base), f.exp)
    raise UnsupportedError(f"cannot express {f} in the IR")


__all__ = [
    "GeneralEngine",
    "Outcome",
    "VectorForm",
    "canonical",
    "derivative",
    "gradient",
    "is_zero",
    "mentions_vectors",
    "power_sum",
    "root",
    "to_expr",
]


def instantiate(
    f: Form, atoms: dict[str, list[Any]], scalars: dict[sympy.Symbol, Any] | None = None
) -> Any:
    """Evaluate a normal form exactly at concrete vectors (all of one length d) and scalars.

    Returns a SymPy scalar, or a list of SymPy scalars for a vector form.

    >>> from lnsym import vector, var, core
    >>> z = vector("z")
    >>> engine = GeneralEngine()
    >>> instantiate(engine.form(core(z)), {"z": [1, 2, 3]}, {ir.eps: sympy.Rational(1, 3)})
    [-1, 0, 1]
    """
    lengths = {len(v) for v in atoms.values()}
    if len(lengths) > 1:
        raise DomainError("all vectors must have the same length")
    dim = lengths.pop() if lengths else None
    values: dict[sympy.Symbol, sympy.Expr] = dict(scalars or {})
    if dim is not None:
        values[ir.d] = sympy.Integer(dim)

    def coordinate(m: Monomial, i: int) -> sympy.Expr:
        return sympy.Mul(*(ir.as_scalar(atoms[a][i]).value for a in m))  # type: ignore[attr-defined]

    def value_of(sym: sympy.Symbol) -> sympy.Expr:
        if sym not in values:
            if sym in _POWER_SUMS:
                m = _POWER_SUMS[sym]
                missing = [a for a in m if a not in atoms]
                if missing or dim is None:
                    raise DomainError(
                        f"no value given for the vector {missing[0] if missing else m}"
                    )
                values[sym] = sympy.Add(*(coordinate(m, i) for i in range(dim)))
            elif sym in _ROOTS:
                values[sym] = exact_sqrt(scalar_value(_ROOTS[sym]))
            else:
                raise DomainError(f"no value given for the symbol {sym}")
        return values[sym]

    def scalar_value(g: sympy.Expr) -> sympy.Expr:
        result = g.xreplace({s: value_of(s) for s in g.free_symbols})
        if result.has(sympy.zoo, sympy.nan):
            raise DomainError("division by zero at this point")
        return result

    if isinstance(f, VectorForm):
        if dim is None:
            raise DomainError("a vector needs at least one vector value to fix d")
        # The coefficients do not depend on the coordinate: evaluate each one once.
        coefficients = [(m, scalar_value(c)) for m, c in f.terms]
        return [sympy.Add(*(c * coordinate(m, i) for m, c in coefficients)) for i in range(dim)]
    return scalar_value(f)
