"""What the concrete engine compares, and the exact points it tries.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole): the problem
(both sides, the claim's variables and assumptions, linear constraints solved exactly), the degree
bounds behind the Schwartz–Zippel probability, and the points — small ones in order of size,
adversarial ones (fractions, negatives, boundary values, large and tiny magnitudes, structured
vectors), and random ones whose layer root √(q + ε) is rational.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, reduce
from typing import Any

import sympy
from sympy.core.function import AppliedUndef
from sympy.core.sorting import default_sort_key

from lnsym.engines.concrete import exact as exact
from lnsym.engines.concrete.values import _Evaluator, _free_variables
from lnsym.errors import UnsupportedError
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import Grad, Jvp, OperatorNorm, Vjp
from lnsym.ir.layers import Core, LayerNorm

#: Random points draw integers from [−N, N] (positive quantities from [1, N]).
SAMPLE_RANGE = 10**15
#: Symbols in exponents take values in [−SMALL_EXPONENT, SMALL_EXPONENT] at random points.
SMALL_EXPONENT = 6
#: Candidates of the grid of small points considered per dimension.
GRID_CANDIDATES = 5_000

_ZERO, _ONE = sympy.Integer(0), sympy.Integer(1)


# ---------------------------------------------------------------------------------------
# The problem: what is compared, over which variables, under which assumptions


def _principal(e: ir.Expr) -> ir.Expr | None:
    """The argument a of the first free layer √(q(a) + ε): the root the checks make rational."""
    match e:
        case Core(arg=a, eps=ir.Const(value=v)) | LayerNorm(arg=a, eps=ir.Const(value=v)):
            plain = not any(
                isinstance(n, Jvp | Vjp | Grad | OperatorNorm | ir.Substitution) for n in ir.walk(a)
            )
            if v == ir.eps and plain and ir.eps not in _free_variables(a)[1]:
                return a
        case ir.Substitution():
            return None  # a root under a substitution is not the claim's own root
    for child in e.children():
        found = _principal(child)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class _Problem:
    """``lhs`` against ``rhs`` (equal, or lhs ≤ rhs) with the claim's variables and hypotheses."""

    lhs: ir.Expr
    rhs: ir.Expr
    relation: str  # "eq" | "le"
    atoms: tuple[str, ...]
    symbols: tuple[sympy.Symbol, ...]
    assumptions: tuple[ir.Assumption, ...]
    principal: ir.Expr | None
    #: Whether an operator norm occurs: it has a value only at numeric points.
    pointwise: bool = False
    #: Further scalars evaluated at every point: the terms of an inequality's certificate.
    extras: tuple[ir.Expr, ...] = ()

    @staticmethod
    def of(
        lhs: ir.Expr,
        rhs: ir.Expr,
        relation: str,
        assumptions: Sequence[ir.Assumption],
        extras: Sequence[ir.Expr] = (),
    ) -> _Problem:
        for n in (n for e in (lhs, rhs, *extras) for n in ir.walk(e)):
            undefined = n.value.atoms(AppliedUndef) if isinstance(n, ir.Const) else set()
            if undefined:
                name = sorted(str(f.func) for f in undefined)[0]
                raise UnsupportedError(f"the constant {n.value} uses the undefined function {name}")
        atoms, symbols = _free_variables(ir.add(lhs, ir.negate(rhs)))
        for term in extras:
            a, s = _free_variables(term)
            atoms, symbols = atoms | a, symbols | s
        for a in assumptions:
            atoms |= {v.name for v in vars(a).values() if isinstance(v, ir.VectorAtom)}
        principal = _principal(lhs) or _principal(rhs)
        if ir.eps not in symbols:
            principal = None
        return _Problem(
            lhs,
            rhs,
            relation,
            tuple(sorted(atoms)),
            tuple(sorted(symbols, key=lambda s: s.name)),
            tuple(assumptions),
            principal,
            any(isinstance(n, OperatorNorm) for side in (lhs, rhs) for n in ir.walk(side)),
            tuple(extras),
        )

    @cached_property
    def interned(self) -> tuple[ir.Expr, ir.Expr, tuple[ir.Expr, ...]]:
        """lhs, rhs and the extra terms, interned for :mod:`lnsym.engines.concrete.exact`."""
        return (
            exact.intern(self.lhs),
            exact.intern(self.rhs),
            tuple(exact.intern(t) for t in self.extras),
        )

    def nodes(self) -> list[ir.Expr]:
        """Every node of both sides and of the extra terms."""
        return [n for e in (self.lhs, self.rhs, *self.extras) for n in ir.walk(e)]

    def constants(self) -> list[sympy.Rational]:
        """The rational numbers written in the claim (where its boundaries tend to be)."""
        found: set[sympy.Rational] = set()
        for n in self.nodes():
            if isinstance(n, ir.Const):
                found |= {abs(r) for r in n.value.atoms(sympy.Rational) if 0 < abs(r) <= 10**12}
        return sorted(found)

    def exponents(self) -> set[sympy.Symbol]:
        """Symbols in an exponent: they take small values only (2^(10¹⁵) is not computable)."""
        found: set[sympy.Symbol] = set()
        for n in self.nodes():
            if isinstance(n, ir.Power):
                found |= n.exponent.free_symbols
            elif isinstance(n, ir.Const):
                for p in n.value.atoms(sympy.Pow):
                    found |= p.exp.free_symbols
        return found

    def scalar_only(self) -> bool:
        """Whether no vector occurs: then d is just a number and any d is cheap to try."""
        return not self.atoms and all(n.kind == "scalar" for n in self.nodes())

    def constraints(self, atom: str) -> list[str | None]:
        """Rows of the linear constraints on ``atom``: None for ⟨1, atom⟩ = 0, else a partner."""
        rows: list[str | None] = []
        for a in self.assumptions:
            if isinstance(a, ir.Centered) and a.atom.name == atom:
                rows.append(None)
            if isinstance(a, ir.Orthogonal) and a.right.name == atom:
                rows.append(a.left.name)
        return rows

    def satisfiable(self, d: int) -> bool:
        """Whether some point satisfies the assumptions at ``d`` (a non-constant needs d ≥ 2)."""
        return d >= 2 or not any(isinstance(a, ir.Nonconstant) for a in self.assumptions)


def _constrain(
    problem: _Problem, vectors: dict[str, tuple[sympy.Expr, ...]], d: int
) -> dict[str, tuple[sympy.Expr, ...]] | None:
    """Solve the last coordinates of constrained atoms from their linear constraints.

    Returns None where the constraints are degenerate (a vanishing determinant).
    """
    out = dict(vectors)
    for atom in problem.atoms:
        rows = [(_ONE,) * d if r is None else out[r] for r in problem.constraints(atom)]
        if not rows:
            continue
        k = len(rows)
        if k >= d:  # the constraints leave only the zero vector (generically)
            out[atom] = (_ZERO,) * d
            continue
        free = out[atom][: d - k]
        matrix = sympy.Matrix([list(row[d - k :]) for row in rows])
        det = sympy.expand(matrix.det())
        if det == 0:
            return None
        rhs = sympy.Matrix(
            [-sympy.Add(*(r * x for r, x in zip(row, free, strict=False))) for row in rows]
        )
        solved = matrix.adjugate() * rhs / det
        out[atom] = (*free, *solved)
    return out


def _assumptions_hold(problem: _Problem, vectors: Mapping[str, tuple[sympy.Expr, ...]]) -> bool:
    for a in problem.assumptions:
        if isinstance(a, ir.Centered) and sum(vectors[a.atom.name]) != 0:
            return False
        if isinstance(a, ir.Orthogonal):
            left, right = vectors[a.left.name], vectors[a.right.name]
            if sum(x * y for x, y in zip(left, right, strict=True)) != 0:
                return False
        if isinstance(a, ir.Nonconstant) and len(set(vectors[a.atom.name])) < 2:
            return False
    return True


# ---------------------------------------------------------------------------------------
# Degree bound for Schwartz–Zippel


@dataclass(frozen=True)
class _Degree:
    """Bounds on the degrees of num and den of a value num/den (common den for vectors).

    Square roots r = √(N·M) of a radicand N/M count with weight (deg N + deg M)/2 and are
    listed in ``roots`` as (key, weight); ε has weight 2 since it is replaced by s² − q.
    """

    num: Fraction
    den: Fraction
    roots: frozenset[tuple[Any, Fraction]] = frozenset()

    @property
    def weight(self) -> Fraction:
        return sum((w for _, w in self.roots), Fraction(0))


_CONSTANT = _Degree(Fraction(0), Fraction(0))


def _plus(a: _Degree, b: _Degree) -> _Degree:
    return _Degree(max(a.num + b.den, b.num + a.den), a.den + b.den, a.roots | b.roots)


def _times(a: _Degree, b: _Degree) -> _Degree:
    return _Degree(a.num + b.num, a.den + b.den, a.roots | b.roots)


def _raise(a: _Degree, n: sympy.Expr, key: Any) -> _Degree:
    if not n.is_Rational or n.q not in (1, 2):
        raise UnsupportedError(f"no degree bound for the exponent {n}")
    p = int(n.p)
    if n.q == 1:
        return (
            _Degree(p * a.num, p * a.den, a.roots)
            if p >= 0
            else _Degree(-p * a.den, -p * a.num, a.roots)
        )
    w = (a.num + a.den) / 2  # √(n/m) = √(n·m)/m
    roots = a.roots | {(key, w)}
    return _Degree(p * w, p * a.den, roots) if p > 0 else _Degree(-p * a.den, -p * w, roots)


def _derivative(f: _Degree, h: _Degree) -> _Degree:
    """D_h(P/Q) = (D_h P·Q − P·D_h Q)/Q², where D_h of a root r adds D_h(r²)/(2r)."""
    w = f.weight
    return _Degree(
        max(f.num + f.den - 1, Fraction(0)) + h.num + w, 2 * f.den + w + h.den, f.roots | h.roots
    )


def _compose(e: _Degree, v: _Degree) -> _Degree:
    """Degrees after replacing variables of weight ≤ c by values v = V/Q of degree ≤ c."""
    c = max(Fraction(1), v.num, v.den)
    scale = c + v.den
    roots = frozenset((key, w * scale) for key, w in e.roots) | v.roots
    return _Degree(e.num * c + e.den * v.den, e.den * c + e.num * v.den, roots)


def _sympy_degree(v: sympy.Expr) -> _Degree:
    if v.is_Rational:
        return _CONSTANT
    if v.is_Symbol:  # d is a number here; ε = s² − q has degree 2
        return _CONSTANT if v == ir.d else _Degree(Fraction(2 if v == ir.eps else 1), Fraction(0))
    if v.is_Add:
        return reduce(_plus, map(_sympy_degree, v.args))
    if v.is_Mul:
        return reduce(_times, map(_sympy_degree, v.args))
    if v.is_Pow:
        return _raise(_sympy_degree(v.base), v.exp, ("const", v.base))
    raise UnsupportedError(f"no degree bound for {v}")


def _degree(e: ir.Expr, frame: tuple[ir.Expr, ...] = ()) -> _Degree:
    """Degree bounds of ``e`` as a rational function of the coordinates, scalars, ε and roots."""
    match e:
        case ir.VectorAtom():
            return _Degree(Fraction(1), Fraction(0))
        case ir.Ones():
            return _CONSTANT
        case ir.Const(value=v):
            return _sympy_degree(v)
        case ir.VectorSum(terms=terms) | ir.ScalarSum(terms=terms):
            return reduce(_plus, (_degree(t, frame) for t in terms))
        case ir.Scaled() | ir.Hadamard() | ir.Dot() | ir.ScalarProduct():
            return reduce(_times, (_degree(c, frame) for c in e.children()))
        case ir.Power(base=base, exponent=n):
            return _raise(_degree(base, frame), n, (base, frame))
        case ir.Substitution(expr=inner, value=bound):
            return _compose(_degree(inner, (*frame, e)), _degree(bound, frame))
        case Jvp(expr=f, direction=h):
            return _derivative(_degree(f, frame), _degree(h, frame))
        case Grad(expr=f):
            return _derivative(_degree(f, frame), _CONSTANT)
        case Vjp(expr=f, cotangent=g):
            return _derivative(_times(_degree(g, frame), _degree(f, frame)), _CONSTANT)
        case ir.Defined():
            return _degree(e.definition(), frame)
    if isinstance(e, OperatorNorm):
        raise UnsupportedError("an operator norm is not a rational function of its inputs")
    raise UnsupportedError(f"no degree bound for {type(e).__name__}")


def _degrees(problem: _Problem) -> tuple[int, int]:
    """(D, D_r): degree bounds of lhs − rhs and of any radicand, as rational functions.

    Raises:
        UnsupportedError: for expressions without a degree bound (e.g. operator norms).
    """
    diff = _plus(_degree(problem.lhs), _degree(problem.rhs))
    num, den = diff.num, diff.den
    for atom in problem.atoms:  # constrained coordinates are ratios of degree (e + 1, e)
        rows = problem.constraints(atom)
        if rows:
            e = sum(1 for row in rows if row is not None)
            num, den = num * (e + 1) + den * e, den * (e + 1) + num * e
    widest = max((w for _, w in diff.roots), default=Fraction(0))
    return math.ceil(num), math.ceil(4 * widest)


def _certified(radicands: Sequence[sympy.Expr], square: sympy.Expr | None) -> int | None:
    """The number k of independent square roots at a point, or None if that is not certain.

    Schwartz–Zippel needs the values to lie in a field of degree 2^k over the rational
    functions. It is if the radicands' values are positive rationals of which no product is a
    square (if a product of radicands were a square function, its value would be a square).
    Equal values are taken for one root, and the value s² for the rational root s; the bound
    pays for these identifications.
    """
    values = {r for r in radicands if r != square}
    if len(values) > 8 or not all(v.is_Rational and v > 0 for v in values):
        return None
    ordered = sorted(values, key=default_sort_key)
    for mask in range(1, 2 ** len(ordered)):
        product = sympy.Mul(*(v for i, v in enumerate(ordered) if mask >> i & 1))
        if _is_square(product):
            return None
    return len(ordered)


def _is_square(r: sympy.Rational) -> bool:
    p, q = int(r.p), int(r.q)
    return p >= 0 and math.isqrt(p) ** 2 == p and math.isqrt(q) ** 2 == q


# ---------------------------------------------------------------------------------------
# Exact points


@dataclass(frozen=True)
class _Point:
    d: int
    vectors: dict[str, tuple[sympy.Expr, ...]]
    scalars: dict[sympy.Symbol, sympy.Expr]
    #: s² = q + ε for the claim's own layer, when ε was chosen to make its root rational.
    square: sympy.Expr | None = None


def _exact_point(point: _Point) -> tuple[dict[str, tuple[Any, ...]], dict[sympy.Symbol, Any]]:
    vectors = {a: tuple(exact.rational(x) for x in v) for a, v in point.vectors.items()}
    return vectors, {s: exact.rational(v) for s, v in point.scalars.items()}


def _integer(k: int) -> sympy.Integer:
    """0, 1, −1, 2, −2, … for k = 0, 1, 2, …"""
    return sympy.Integer((k + 1) // 2 if k % 2 else -(k // 2))


def _positive(k: int) -> sympy.Rational:
    """1, 2, 1/2, 3, 1/3, … for k = 0, 1, 2, …"""
    if k == 0:
        return _ONE
    m = (k + 1) // 2 + 1
    return sympy.Integer(m) if k % 2 else sympy.Rational(1, m)


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _grid(problem: _Problem, d: int) -> Iterator[_Point]:
    """Points in order of size that satisfy the assumptions (the last entries grow first)."""
    n = len(problem.symbols) + len(problem.atoms) * d
    candidates = 0
    for total in range(0, 64):
        for index in _compositions(total, n) if n else [()]:
            candidates += 1
            if candidates > GRID_CANDIDATES:
                return
            scalars = {
                s: (_positive(k) if s.is_positive else _integer(k))
                for s, k in zip(problem.symbols, index, strict=False)
            }
            rest = index[len(problem.symbols) :]
            vectors = {
                a: tuple(_integer(k) for k in rest[i * d : (i + 1) * d])
                for i, a in enumerate(problem.atoms)
            }
            if _assumptions_hold(problem, vectors):
                yield _Point(d, vectors, scalars)
        if not n:
            return


#: Values beside the integers of the grid: fractions, values just off 0 and ±1, large and
#: tiny magnitudes (scalars that are not declared positive take the negatives too).
_ADVERSARIAL_VALUES = tuple(
    sympy.Rational(p, q)
    for p, q in [
        (1, 2), (1, 3), (3, 2), (2, 3), (1, 10), (1, 1000), (999, 1000), (1001, 1000),
        (10, 1), (1000, 1), (1, 10**6), (10**6, 1), (5, 2), (1, 4),
    ]
)  # fmt: skip
#: Offsets of the claim's own constants k tried as well: k, k ± 1/1000, k ± 1, k/2, 2k.
_NEAR = (
    (1, 0), (1, sympy.Rational(-1, 1000)), (1, sympy.Rational(1, 1000)), (1, -1), (1, 1),
    (sympy.Rational(1, 2), 0), (2, 0),
)  # fmt: skip
#: Adversarial points per dimension for an inequality (or an undecided equality).
ADVERSARIAL_POINTS = 48
#: An inequality's search in the dimensions between the two smallest and the largest
#: (where violations concentrate) is lighter: this many grid and adversarial points.
LIGHT_SEARCH = (12, 12)
#: Dimensions beyond max_d tried for claims without vectors, where d is just a number.
LARGE_DIMENSIONS = (10, 16, 64, 100, 1000, 10**4, 10**6, 10**9)


def _pools(problem: _Problem) -> tuple[list[sympy.Rational], list[sympy.Rational]]:
    """Values to try for real scalars and vector entries, and for positive scalars."""
    positive = list(_ADVERSARIAL_VALUES)
    for k in problem.constants():
        positive += [k * a + b for a, b in _NEAR if k * a + b > 0]
    positive = list(dict.fromkeys(positive))
    real = [x for v in positive for x in (v, -v)] + [_ZERO, _ONE, -_ONE]
    return list(dict.fromkeys(real)), positive


def _pattern(i: int, d: int, pool: Sequence[sympy.Rational], rng: random.Random) -> list:
    """Entries of an adversarial vector: random, a spike, constant, nearly constant, two
    blocks, or a large offset (kinds cycle with ``i``)."""
    x, y = rng.choice(pool), rng.choice(pool)
    kind = i % 6
    if kind == 0:
        return [rng.choice(pool) for _ in range(d)]
    if kind == 1:
        out = [_ZERO] * d
        out[rng.randrange(d)] = x
        return out
    if kind == 2:
        return [x] * d
    if kind == 3:
        return [x] * (d - 1) + [x + sympy.Rational(1, 1000)]
    if kind == 4:
        return [x] * (d // 2) + [y] * (d - d // 2)
    return [1000 + rng.choice(pool) for _ in range(d)]


def _adversarial(problem: _Problem, d: int, rng: random.Random) -> Iterator[_Point]:
    """Points built from fractions, negatives, boundary values (the claim's constants and
    values just beside them), large and tiny magnitudes, and structured vectors.

    The first points give every scalar the same value in turn (so that a one-scalar claim
    meets each value of the pool); later ones mix values at random.
    """
    real, positive = _pools(problem)
    small = problem.exponents()
    pools = {
        s: [v for v in (positive if s.is_positive else real) if s not in small or abs(v) <= 10]
        for s in problem.symbols
    }
    for i in range(4 * ADVERSARIAL_POINTS):
        diagonal = i < len(real)
        scalars = {
            s: pool[i % len(pool)] if diagonal else rng.choice(pool) for s, pool in pools.items()
        }
        vectors = {a: tuple(_pattern(i + j, d, real, rng)) for j, a in enumerate(problem.atoms)}
        constrained = _constrain(problem, vectors, d)
        if constrained is not None and _assumptions_hold(problem, constrained):
            yield _Point(d, constrained, scalars)


def _large_dimensions(problem: _Problem, max_d: int) -> list[int]:
    """Dimensions beyond ``max_d`` worth trying when no vector occurs: a few large ones and
    those next to the claim's integer constants (where a bound such as d ≤ 999 fails)."""
    found = set(LARGE_DIMENSIONS)
    for k in problem.constants():
        if k.is_Integer:
            found |= {int(k) - 1, int(k), int(k) + 1}
    return [k for k in sorted(found) if k > max_d and _admissible(problem.assumptions, k)]


def _admissible(assumptions: Sequence[ir.Assumption], d: int) -> bool:
    """Whether the dimension assumptions allow ``d`` (as :func:`lnsym.ir.nodes.dimensions`)."""
    return all(
        d >= a.value if isinstance(a, ir.MinDimension) else d == a.value
        for a in assumptions
        if isinstance(a, ir.MinDimension | ir.FixedDimension)
    )


def _random_point(problem: _Problem, d: int, rng: random.Random, size: int) -> _Point | None:
    """A random point (entries in [−size, size]) satisfying the assumptions, or None.

    With a principal root, s is drawn above √q and ε = s² − q, so that √(q + ε) = s.
    """
    vectors = {
        a: tuple(sympy.Integer(rng.randint(-size, size)) for _ in range(d)) for a in problem.atoms
    }
    constrained = _constrain(problem, vectors, d)
    if constrained is None or not _assumptions_hold(problem, constrained):
        return None
    small = problem.exponents()
    scalars = {
        s: sympy.Integer(rng.randint(1 if s.is_positive else -limit, limit))
        for s in problem.symbols
        for limit in [min(size, SMALL_EXPONENT) if s in small else size]
    }
    if problem.principal is not None:
        q = _variance(problem.principal, _Point(d, constrained, scalars))
        s = math.isqrt(int(q.p) // int(q.q)) + rng.randint(1, size)
        scalars[ir.eps] = sympy.Integer(s) ** 2 - q
        return _Point(d, constrained, scalars, sympy.Integer(s) ** 2)
    return _Point(d, constrained, scalars)


def _variance(principal: ir.Expr, point: _Point) -> sympy.Rational:
    """q of the claim's own layer input at ``point`` (a rational number)."""
    try:
        vectors, scalars = _exact_point(point)
        q = exact.Evaluator(point.d, vectors, scalars, exact.Tower()).value(ir.Var(principal))
        if isinstance(q, exact.Q):
            return exact.to_sympy(q)
    except exact.Inexpressible:
        pass
    ev = _Evaluator(point.d, point.vectors, point.scalars, expand=True)
    found = ev.value(ir.Var(principal))
    assert isinstance(found, sympy.Rational)
    return found
