"""Checking a claim at one dimension d: the symbolic reduction, then exact points.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the strategy). It
holds :func:`_check`, which decides an identity at d by the symbolic reduction
(:func:`_symbolic_zero`, over :mod:`lnsym.engines.concrete.ring`) or by random rational
points with a Schwartz–Zippel bound (:func:`_random_rational`), and searches for the smallest
violating point (:func:`_search`); its outcome (:class:`DimensionCheck`); the limits of the
searches; and :class:`Routes`, the choice between equal routes that the engine's switches
make.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass, replace

import sympy

from lnsym import ir
from lnsym.engines.concrete.arithmetic import Inexpressible
from lnsym.engines.concrete.degrees import _certified, _degrees
from lnsym.engines.concrete.examine import _examine, _Look, _Scan
from lnsym.engines.concrete.points import (
    ADVERSARIAL_POINTS,
    SAMPLE_RANGE,
    _adversarial,
    _grid,
    _Point,
    _random_point,
)
from lnsym.engines.concrete.problem import _constrain, _Problem
from lnsym.engines.concrete.ring import _Fractions, _TooLarge
from lnsym.engines.concrete.ring_values import direct_zero
from lnsym.engines.concrete.shared import _Shared
from lnsym.engines.concrete.sympy_numbers import SympyValue, _differences
from lnsym.engines.concrete.values import _Evaluator
from lnsym.errors import DomainError, UnsupportedError

#: Random points per dimension for a random-rational check.
POINTS = 2
#: Limits of the counterexample search per dimension (deterministic, not timed).
GRID_EVALUATIONS = 120
MODERATE_POINTS = 10
#: A smaller search where random points already support the claim but cannot prove it.
SPOT_CHECKS = 2


@dataclass(frozen=True)
class Routes:
    """Which of the engine's equal routes a check takes (the values are the same; the
    benchmarks compare the speed). :mod:`lnsym.engines.concrete.engine` reads its switches
    into one at the start of every check, so that a switch set there takes effect here.

    Attributes:
        exact_points: evaluate exact points with :mod:`lnsym.engines.concrete.exact` (else
            with SymPy numbers, as :func:`~lnsym.engines.concrete.recheck.recheck` does).
        shared: the symbolic values shared between the checks of different claims, or None
            to compute them afresh in every reduction.
        direct: build the symbolic reduction's values in the ring directly, where they can
            be (else through SymPy).
    """

    exact_points: bool
    shared: _Shared | None
    direct: bool = True


# ---------------------------------------------------------------------------------------
# Symbolic decision: values reduced in a polynomial ring (ring, ring_values)


def _symbolic_zero(problem: _Problem, d: int, routes: Routes) -> bool:
    """Whether lhs − rhs reduces to 0 at ``d`` for symbolic atoms (s² = q + ε): with the
    values built in the ring (:func:`~lnsym.engines.concrete.ring_values.direct_zero`), or
    through SymPy where they cannot be (:func:`_sympy_zero`).

    Raises:
        UnsupportedError: for expressions without a polynomial form (e.g. operator norms).
    """
    if routes.direct:
        try:
            return direct_zero(problem, d)
        except Inexpressible:
            pass
    return _sympy_zero(problem, d, routes.shared)


def _sympy_zero(problem: _Problem, d: int, shared: _Shared | None) -> bool:
    """:func:`_symbolic_zero` through SymPy values, converted to the ring
    (:class:`~lnsym.engines.concrete.ring._Fractions`).

    ``shared`` holds the symbolic values of earlier checks (None: a fresh store).
    """
    shared = shared if shared is not None else _Shared()
    shared.trim()
    coordinates = {a: shared.coordinates_of(a, d) for a in problem.atoms}
    vectors = _constrain(problem, coordinates, d)
    if vectors is None:
        raise UnsupportedError("the assumptions are degenerate at this dimension")
    names = shared.names
    ev = _Evaluator(d, vectors, {}, names=names, shared=shared)
    diffs = _differences(ev.value(problem.lhs), ev.value(problem.rhs))
    s, eps_value = None, None
    if problem.principal is not None:
        s = sympy.Dummy("s", positive=True)
        eps_value = s**2 - ev.value(problem.principal)
    definitions = names.needed([*diffs, *([eps_value] if eps_value is not None else [])])
    if eps_value is not None:
        definitions[ir.eps] = eps_value
    fractions = _Fractions(diffs, s, definitions)
    return all(fractions.vanishes(x) for x in diffs)


# ---------------------------------------------------------------------------------------
# The outcome at one dimension, and the searches of exact points behind it


@dataclass(frozen=True)
class DimensionCheck:
    """The outcome at one dimension.

    Attributes:
        d: the dimension.
        status: ``"holds"``, ``"consistent"`` (exact samples only), ``"counterexample"``,
            or ``"undefined"`` (no point tried had a real value: the dimension is skipped).
        method: ``"symbolic"``, ``"random-rational"`` or ``"samples"``.
        samples: exact points evaluated.
        bound: for ``random-rational``, the probability that a false identity passed.
        point: the counterexample point, with ``sides`` its exact lhs and rhs values.
        too_large: whether the symbolic reduction was abandoned for its size.
        note: why a "consistent" dimension could not be decided.
    """

    d: int
    status: str
    method: str
    samples: int = 0
    bound: float = 0.0
    point: _Point | None = None
    sides: tuple[SympyValue, SympyValue] | None = None
    too_large: bool = False
    note: str = ""


def _search(
    problem: _Problem,
    d: int,
    rng: random.Random,
    limit: int = GRID_EVALUATIONS,
    adversarial: int = 0,
    scan: _Scan | None = None,
    *,
    routes: Routes,
) -> tuple[DimensionCheck | None, int]:
    """Look for a violation: ``limit`` small points in order of size, then ``adversarial``
    points (:func:`_adversarial`), then moderate random ones.

    Returns the first violation found (or None) and the number of points evaluated. A
    violation among the random points prompts the full search of small points first.
    Undefined points are skipped (and counted in ``scan``).
    """
    scan = scan if scan is not None else _Scan()
    evaluated = 0
    ordered = itertools.chain(
        itertools.islice(_grid(problem, d), limit),
        itertools.islice(_adversarial(problem, d, rng), adversarial),
    )
    for point in ordered:
        look = _examine(problem, point, scan=scan, exact_points=routes.exact_points)
        evaluated += 1
        if look.violation is not None:
            found = DimensionCheck(
                d, "counterexample", "samples", evaluated, 0.0, point, look.violation
            )
            return found, 0
    moderate = MODERATE_POINTS if limit >= GRID_EVALUATIONS else min(limit, 4)
    for _ in range(moderate):
        drawn = _random_point(problem, d, rng, 9)
        look = (
            _Look(False)
            if drawn is None
            else _examine(problem, drawn, scan=scan, exact_points=routes.exact_points)
        )
        evaluated += 1
        if drawn is not None and look.violation is not None:
            sides = look.violation
            if limit < GRID_EVALUATIONS:  # the claim is false: look for a smaller point
                smaller, _ = _search(problem, d, rng, GRID_EVALUATIONS, routes=routes)
                if smaller is not None:
                    return smaller, 0
            found = DimensionCheck(d, "counterexample", "samples", evaluated, 0.0, drawn, sides)
            return found, 0
    return None, evaluated


def _random_rational(
    problem: _Problem,
    d: int,
    rng: random.Random,
    points: int,
    scan: _Scan | None = None,
    *,
    routes: Routes,
) -> DimensionCheck:
    """Evaluate at ``points`` large random points.

    Returns a counterexample, or for an equality "holds" with the probability that a false
    identity passes every point — "consistent" when no such bound applies (no degree bound,
    or square roots that cannot be certified independent) and for an inequality; "undefined"
    when no point drawn had a real value.
    """
    scan = scan if scan is not None else _Scan()
    note = ""
    try:
        degree, root_degree = _degrees(problem)
    except UnsupportedError as exc:
        degree = root_degree = 0
        note = f"random points give no probability bound: {exc}"
    bound = 1.0
    done = attempts = 0
    while done < points:
        attempts += 1
        if attempts > 50 * points:
            if not done:
                return DimensionCheck(
                    d, "undefined", "random-rational", note="undefined at every point tried"
                )
            note = note or "the claim is undefined at most random points"
            break
        point = _random_point(problem, d, rng, SAMPLE_RANGE)
        radicands: list[sympy.Expr] = []
        check = scan.cross_check and not scan.cross_checked
        look = (
            _Look(False)
            if point is None
            else _examine(problem, point, radicands, scan, check, exact_points=routes.exact_points)
        )
        if point is None or not look.defined:
            continue  # a denominator vanished: redraw (accounted for in the bound)
        scan.cross_checked = scan.cross_checked or check
        done += 1
        if look.violation is not None:
            return DimensionCheck(
                d, "counterexample", "random-rational", done, 0, point, look.violation
            )
        k = _certified(radicands, point.square)
        if k is None:
            note = note or "square roots that random points cannot certify independent"
        else:
            bound *= min(
                1.0, (2 ** (k + 2) * degree + 2 * len(radicands) * root_degree) / SAMPLE_RANGE
            )
    if note or problem.relation == "le":
        return DimensionCheck(d, "consistent", "samples", done, note=note)
    return DimensionCheck(d, "holds", "random-rational", done, bound)


def _check(
    problem: _Problem,
    d: int,
    rng: random.Random,
    symbolic_up_to: int,
    points: int,
    scan: _Scan | None = None,
    search: tuple[int, int] = (GRID_EVALUATIONS, ADVERSARIAL_POINTS),
    *,
    routes: Routes,
) -> DimensionCheck:
    """Decide ``problem`` at dimension ``d``; :mod:`lnsym.engines.concrete.engine` describes
    the strategy.

    An inequality is searched for a violation at ``search`` = (small, adversarial) points and
    a few random ones (its certificate, if any, is checked separately by
    :func:`~lnsym.engines.concrete.engine.evidence`); ``scan`` records what the points showed.
    """
    scan = scan if scan is not None else _Scan()
    too_large = False
    if problem.relation == "eq" and d <= symbolic_up_to and not problem.pointwise:
        try:
            if _symbolic_zero(problem, d, routes):
                return DimensionCheck(d, "holds", "symbolic")
        except _TooLarge:
            too_large = True
        except (UnsupportedError, DomainError):
            pass  # e.g. an operator norm, or a vanishing denominator: exact points decide
    if problem.relation == "le":  # no identity to test: search for a violation
        found, n = _search(problem, d, rng, search[0], search[1], scan, routes=routes)
        if found is not None:
            return found
        sampled = _random_rational(problem, d, rng, points, scan, routes=routes)
        if sampled.status == "counterexample":
            return sampled
        return _undecided(d, scan, n + sampled.samples, sampled.note)
    sampled = _random_rational(problem, d, rng, points, scan, routes=routes)
    if sampled.status == "holds":
        return replace(sampled, too_large=too_large)
    # False, or not decided by random points: look for the smallest violating point.
    false = sampled.status == "counterexample"
    undefined = sampled.status == "undefined"
    limit = GRID_EVALUATIONS if false or undefined else SPOT_CHECKS
    found, n = _search(
        problem,
        d,
        rng,
        limit,
        adversarial=ADVERSARIAL_POINTS if undefined else 0,
        scan=scan,
        routes=routes,
    )
    if found is not None or false:
        return found or sampled
    if undefined:
        note = "the claim is undefined at every random point; small points agree"
        return _undecided(d, scan, n, note)
    return replace(sampled, samples=n + sampled.samples, too_large=too_large)


def _undecided(d: int, scan: _Scan, samples: int, note: str) -> DimensionCheck:
    """Consistent after exact samples without a violation; undefined if none had a value."""
    if not scan.defined:
        return DimensionCheck(d, "undefined", "samples", samples, note="undefined at every point")
    return DimensionCheck(d, "consistent", "samples", samples, note=note)
