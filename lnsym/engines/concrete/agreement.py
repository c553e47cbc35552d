"""Whether expressions agree at one random exact point of a given dimension.

The concrete engine's half of translation validation (:mod:`lnsym.checking.validation`):
each pair of IR expressions is evaluated by this engine's own exact arithmetic and its own
forward-mode derivatives — none of the general engine's rules — at one random rational point
of dimension d that satisfies the assumptions (drawn as the engine's random-rational checks
draw theirs: the claim's layer root made rational, linear assumptions solved exactly), and
compared exactly. A point where some expression has no real value is drawn again.

By the Schwartz–Zippel lemma, two different rational functions of the point's coordinates of
degree at most D agree at a random point of entries in [−N, N] with probability at most
D/(2N + 1), N = 10¹⁵ (:data:`~lnsym.engines.concrete.points.SAMPLE_RANGE`).

>>> from lnsym import vector, core, mean, ir
>>> z = vector("z")
>>> agree_at([(mean(core(z)), ir.as_scalar(0), "eq")], (), 23, seed=1).status
'agree'
>>> found = agree_at([(mean(z), ir.as_scalar(1), "eq")], (), 23, seed=1)
>>> found.status, found.differing, found.point.d
('differ', 0, 23)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.base import Checkable, Counterexample
from lnsym.engines.concrete import exact
from lnsym.engines.concrete.arithmetic import Undefined
from lnsym.engines.concrete.engine import OVERDETERMINED
from lnsym.engines.concrete.formatting import _found
from lnsym.engines.concrete.matrices import _problem_of, _Under, _vector_assumptions
from lnsym.engines.concrete.points import SAMPLE_RANGE, _exact_point, _Point, _random_point
from lnsym.engines.concrete.problem import _Problem
from lnsym.engines.concrete.sympy_numbers import _entries, _real
from lnsym.engines.concrete.sympy_numbers import _sign as _sympy_sign
from lnsym.engines.concrete.values import _Evaluator
from lnsym.ir.lowering import lower_claim

#: Points drawn before a dimension counts as undefined for the expressions.
ATTEMPTS = 20
#: The range of a point's entries when a constant applies a function (exp, sin, …).
SMALL_RANGE = 20

#: One comparison: the two expressions and the relation that must hold ("eq" or "le").
Pair = tuple[ir.Expr, ir.Expr, str]


@dataclass(frozen=True)
class Agreement:
    """The outcome at the point.

    Attributes:
        status: ``"agree"`` (every pair holds there), ``"differ"`` (pair ``differing``
            does not), ``"undefined"`` (no point drawn gave every expression a real value)
            (values beyond rationals and square roots are SymPy's numbers).
        differing: the index of the first pair that does not hold.
        point: the point, with the differing pair's exact values as its sides.
        note: why the point could not be evaluated.
    """

    status: str
    differing: int | None = None
    point: Counterexample | None = None
    note: str = ""


def agree_at(
    pairs: Sequence[Pair], assumptions: Sequence[ir.Assumption], d: int, *, seed: int
) -> Agreement:
    """Evaluate every pair at one random point of dimension ``d`` under ``assumptions``.

    The point is drawn for the first pair (its layer root made rational); the atoms and
    symbols of every pair are given values.
    """
    first, *others = pairs
    extras = [x for a, b, _ in others for x in (a, b)]
    problem = _Problem.of(first[0], first[1], first[2], assumptions, extras)
    if problem.overdetermined(d):
        return Agreement("undefined", note=OVERDETERMINED)
    rng = random.Random(seed)
    size = SMALL_RANGE if _functions(pairs) else SAMPLE_RANGE
    for _ in range(ATTEMPTS):
        point = _random_point(problem, d, rng, size)
        if point is None:
            continue
        values = _values(pairs, point)
        if values is None:
            continue  # outside the domain: draw again
        for k, ((a, b), (_, _, relation)) in enumerate(zip(values, pairs, strict=True)):
            if not _holds(a, b, relation):
                sides = (_sympy(a), _sympy(b))
                kind = _Problem.of(pairs[k][0], pairs[k][1], relation, assumptions)
                return Agreement("differ", k, _found(kind, point, sides))
        return Agreement("agree")
    return Agreement("undefined", note=f"no real value at {ATTEMPTS} random points")


def _functions(pairs: Sequence[Pair]) -> bool:
    """Whether a constant applies a function (exp, sin, Mod, …): no degree bound makes large
    points better there, and SymPy's evaluation of exp(10¹⁵) inside one does not end."""
    nodes = ir.distinct_nodes(*(x for a, b, _ in pairs for x in (a, b)))
    return any(isinstance(x, ir.Const) and x.value.atoms(sympy.Function) for x in nodes)


def _values(pairs: Sequence[Pair], point: _Point) -> list[tuple[Any, Any]] | None:
    """Every pair's values at ``point`` by the exact arithmetic, or by SymPy's numbers where
    that cannot express them (a max, a cube root); None where one has no real value."""
    vectors, scalars = _exact_point(point)
    ev = exact.Evaluator(point.d, vectors, scalars, exact.Tower())
    try:
        return [(ev.value(a), ev.value(b)) for a, b, _ in pairs]
    except (ZeroDivisionError, Undefined):
        return None
    except exact.Inexpressible:
        pass
    sympy_ev = _Evaluator(point.d, point.vectors, point.scalars, expand=True)
    try:
        values = [(sympy_ev.value(a), sympy_ev.value(b)) for a, b, _ in pairs]
        if all(_real(x) for pair in values for side in pair for x in _entries(side)):
            return values
    except (ZeroDivisionError, Undefined):
        pass
    return None


def _holds(a: Any, b: Any, relation: str) -> bool:
    """Whether exact values (of the exact arithmetic, or SymPy numbers) satisfy the relation."""
    if isinstance(a, tuple):
        return all(_sign(x - y) == 0 for x, y in zip(a, b, strict=True))
    if relation == "le":
        return _sign(a - b) <= 0
    return _sign(a - b) == 0


def _sign(x: Any) -> int:
    return _sympy_sign(x) if isinstance(x, sympy.Basic) else exact.sign(x)


def _sympy(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_sympy(x) for x in value)
    return value if isinstance(value, sympy.Basic) else exact.to_sympy(value)


def entries_agree_at(
    claim: Checkable, sizes: Mapping[sympy.Symbol, int], *, seed: int
) -> Agreement:
    """Every entry of a matrix statement at one random exact point of ``sizes``.

    The statement is written entry by entry (:mod:`lnsym.ir.lowering`: no rule of the
    general engine's slices), the entries its vector assumptions' linear constraints fix are
    solved exactly, and the other entries are drawn at random (positive where declared so).
    A differing entry comes with the point, its sizes and its index, as the concrete
    engine's counterexamples do.
    """
    if _problem_of(claim).overdetermined(sizes[ir.d]):
        return Agreement("undefined", note=OVERDETERMINED)
    written = lower_claim(claim.statement, sizes, claim.assumptions)
    under = _Under.of(claim, written, sizes) if _vector_assumptions(claim.assumptions) else None
    relations = [(index, r if under is None else under.wrap(r)) for index, r in written.entries]
    symbols = sorted(
        {s for _, r in relations for x in ir.distinct_nodes(r.lhs, r.rhs)
         if isinstance(x, ir.Const) for s in x.value.free_symbols} - {ir.d},
        key=lambda s: s.name,
    )  # fmt: skip
    pairs = [(r.lhs, r.rhs, "le" if isinstance(r, ir.Le) else "eq") for _, r in relations]
    rng = random.Random(seed)
    for _ in range(ATTEMPTS):
        values = {
            s: sympy.Integer(rng.randint(1 if s.is_positive else -SAMPLE_RANGE, SAMPLE_RANGE))
            for s in symbols
        }
        sides = _values(pairs, _Point(sizes[ir.d], {}, values))
        if sides is None:
            continue
        for k, ((a, b), (_, _, relation)) in enumerate(zip(sides, pairs, strict=True)):
            if not _holds(a, b, relation):
                point = Counterexample(
                    sizes[ir.d],
                    {},
                    {s.name: v for s, v in values.items()},
                    _sympy(a),
                    _sympy(b),
                    "le" if relation == "le" else "eq",
                    {str(axis): size for axis, size in sizes.items()},
                    relations[k][0],
                )
                return Agreement("differ", k, point)
        return Agreement("agree")
    return Agreement("undefined", note=f"no real value at {ATTEMPTS} random points")
