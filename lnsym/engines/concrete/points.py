"""The exact points the concrete engine tries.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole): small
points in order of size (:func:`_grid`; those of an informative counterexample,
:func:`informative`, first where one is wanted), adversarial ones (:func:`_adversarial`: fractions,
negatives, boundary values, large and tiny magnitudes, structured vectors), and random ones
whose layer root √(q + ε) is rational (:func:`_random_point`), with the dimensions tried
beyond max_d for claims without vectors. The problem they satisfy is in
:mod:`lnsym.engines.concrete.problem`, the degree bounds in
:mod:`lnsym.engines.concrete.degrees`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

import lnsym.engines.concrete.exact as exact
from lnsym import ir
from lnsym.engines.concrete.problem import _assumptions_hold, _constrain, _Problem
from lnsym.engines.concrete.values import _Evaluator

#: Random points draw integers from [−N, N] (positive quantities from [1, N]).
SAMPLE_RANGE = 10**15
#: Symbols in exponents take values in [−SMALL_EXPONENT, SMALL_EXPONENT] at random points.
SMALL_EXPONENT = 6
#: Candidates of the grid of small points considered per dimension.
GRID_CANDIDATES = 5_000

_ZERO, _ONE = sympy.Integer(0), sympy.Integer(1)


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


def informative(point: _Point) -> bool:
    """Whether a counterexample at ``point`` says something: d ≥ 2, no vector zero and no
    scalar zero (at d = 1 the core is 0 whatever z is; γ = 0 hides the core).

    >>> informative(_Point(2, {"z": (_ZERO, _ONE)}, {}))
    True
    >>> informative(_Point(2, {"z": (_ZERO, _ONE), "gamma": (_ZERO, _ZERO)}, {}))
    False
    """
    return (
        point.d >= 2
        and all(any(x != 0 for x in v) for v in point.vectors.values())
        and all(x != 0 for x in point.scalars.values())
    )


def _informative_grid(problem: _Problem, d: int) -> Iterator[_Point]:
    """The points of :func:`_grid` at ``d`` that are :func:`informative`, in the same order."""
    return (point for point in _grid(problem, d) if informative(point))


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
    return [k for k in sorted(found) if k > max_d and problem.satisfiable(k)]


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
        q = _statistic(problem.principal, _Point(d, constrained, scalars))
        s = math.isqrt(max(0, int(q.p) // int(q.q))) + rng.randint(1, size)
        scalars[ir.eps] = sympy.Integer(s) ** 2 - q
        return _Point(d, constrained, scalars, sympy.Integer(s) ** 2)
    return _Point(d, constrained, scalars)


def _statistic(principal: ir.Expr, point: _Point) -> sympy.Rational:
    """The statistic of the claim's own layer (q of its input) at ``point``: a rational."""
    try:
        vectors, scalars = _exact_point(point)
        q = exact.Evaluator(point.d, vectors, scalars, exact.Tower()).value(principal)
        if isinstance(q, exact.Q):
            return exact.to_sympy(q)
    except exact.Inexpressible:
        pass
    ev = _Evaluator(point.d, point.vectors, point.scalars, expand=True)
    found = ev.value(principal)
    assert isinstance(found, sympy.Rational)
    return found
