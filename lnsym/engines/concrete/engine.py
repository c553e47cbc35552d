"""The concrete engine: the IR at a fixed dimension d, with SymPy's own calculus and exact checks.

A vector atom ``z`` becomes d real coordinates (or numbers at a point) — Dummy symbols inside
checks, so that no user scalar (``z_1`` is a valid name) can be one of them — ``ones`` the
all-ones tuple and ``lnsym.d`` the integer d; scalar constants stay SymPy expressions and
defined nodes (mean, var, center, norm, core, layer norm) expand through ``definition()``.

Derivatives are SymPy's own (nothing here uses the rules of :mod:`lnsym.engines.general`, so the two
engines check each other). D_z[f](h) is ``sympy.diff`` in a fresh symbol t of f(z + t·h) at
t = 0. A gradient, a vector-Jacobian product and a Jacobian are read off one such derivative
along a generic direction w = (w_1, …, w_d): D_w f is linear in w and its coefficients are the
partial derivatives. :func:`jacobian` uses ``Matrix.jacobian``. Three devices keep SymPy's
expressions short, none of which changes a value: an inner product Σᵢ aᵢbᵢ is written as a
polynomial in t (and w) whose t-free coefficients get names (symbolic checks) or are expanded
numbers (at points); a power that depends on t is differentiated once, as F(t), instead of
once per coordinate; and terms of order t² are dropped, as they cannot change d/dt at t = 0.
With numbers for z and h only t is symbolic, which is what keeps d = 64 fast. The symbolic
values of a node at d are shared by the checks of all claims (:class:`_Shared`): the
Jacobian-vector product of the core is differentiated once per d, not once per claim.

The searches evaluate a claim at many exact points; they do it with the exact arithmetic of
:mod:`lnsym.engines.concrete.exact` — rationals, towers of real square roots with exact signs, and
forward-mode jets for derivatives — tens of times faster than SymPy numbers and ``diff`` in
t, and equal to them (a point it cannot express, such as a cube root, is evaluated with
SymPy). What is reported is SymPy's: the values of a counterexample, and of a certificate
term found negative, are computed again with SymPy at that point and must agree
(:class:`~lnsym.errors.CrossCheckError` otherwise), and so are the values at the first
random point of every claim. :func:`recheck` uses SymPy only.

The engine's parts: :mod:`lnsym.engines.concrete.values` (SymPy values of the IR, names, shared
values, :func:`instantiate`, :func:`jacobian`), :mod:`lnsym.engines.concrete.ring` (the symbolic
zero test), :mod:`lnsym.engines.concrete.points` (the problem, degree bounds, the points tried),
:mod:`lnsym.engines.concrete.exact` (exact arithmetic at points) and this module (checking a claim,
evidence, counterexamples, :func:`recheck`, :func:`promote`).

An identity is decided at each d without ``simplify`` (cheap on true claims, explosive on
false ones — and false claims are what a checker must reject fast):

- *symbolic* (d ≤ ``symbolic_up_to`` and while the expansion stays small): ε is
  reparametrized as s² − q with a new positive symbol s, for the variance q of the claim's
  layer input, so that √(q + ε) = s; any other square root becomes a generator r with
  r² = R. Both sides become num/den over a sparse polynomial ring (``sympy.polys.rings``,
  no gcds); they are equal when num reduces to 0 modulo the relations r² − R.
- *random-rational* (otherwise): both sides are evaluated exactly at random integer points,
  with s drawn first and ε = s² − q so that the root stays rational. By the Schwartz–Zippel
  lemma a false identity survives one point with probability at most 2^(k+2)·D/N, where D
  bounds the degree of the difference (:func:`_degree`), k counts the other square roots
  (the product of the conjugates is a polynomial) and N = 10¹⁵ is the sample range; the
  factor 4 pays for drawing s after the other variables and for redrawing points where a
  denominator vanishes. That needs the k roots to be independent, which each point
  certifies (:func:`_certified`: no product of radicand values is a rational square);
  otherwise — √(h²) = |h| is a polynomial on half the space only — the outcome is at best
  "consistent". The evidence states the bound.

A failing identity is refuted by an exact counterexample at the smallest failing d: the first
point in order of size (entries 0, 1, −1, 2, …; ε and positive scalars 1, 2, 1/2, 3, …) that
satisfies the assumptions and violates the claim.

An inequality is always checked by its own means, since a certificate's signs come from
:func:`lnsym.ir.signs.sign`, the general engine's rules: it is evaluated exactly at small
points, then at adversarial ones (:func:`_adversarial`: fractions, negatives, the claim's constants
and values just beside them, large and tiny magnitudes, spiky and nearly constant vectors), then at
random ones, and refuted by the first violation. The certificate terms are evaluated at the same
points; one that is negative or not real where the sides are defined shows the certificate wrong.
Only without either may a certificate whose identity holds exactly at every d (every term
nonnegative by the sign rules) make the inequality "holds"; otherwise it is at best consistent. So
are operator norms, evaluated only at exact points.

The IR is real: a point where a value is not real (a root of a negative number — SymPy's
principal (−8)^(1/3) is 1 + √3·i) or not finite is outside the claim's domain and skipped,
like one with a zero denominator. A dimension where every point tried is undefined (1/(d − 1)
at d = 1) is skipped and noted; only a claim undefined at every d is an error. A claim
without vectors is also tried at large d, where d is just a number. :func:`recheck`
evaluates a claim afresh at a reported counterexample, which the checker does before any
refutation; :func:`promote` makes a numeric engine's violating sample exact.

>>> from lnsym import vector, core, Eq, eps, jvp, ones
>>> z = vector("z")
>>> instantiate(core(z), 3, {z: [1, 2, 3], eps: sympy.Rational(1, 3)}).T
Matrix([[-1, 0, 1]])
>>> evidence(Claim("kills_ones", Eq(jvp(core(z), z, ones), 0)), max_d=4).detail
'exact for d = 1..4 (symbolic reduction with s² = q + ε)'
>>> refuted = evidence(Claim("scale", Eq(jvp(core(z), z, z), 0)))
>>> refuted.outcome, refuted.data["counterexample"]["d"], refuted.data["counterexample"]["vectors"]
('counterexample', 2, {'z': ['0', '1']})
"""

from __future__ import annotations

import itertools
import math
import random
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

import sympy

from lnsym.engines.base import Checkable, Evidence
from lnsym.engines.concrete import exact as exact
from lnsym.engines.concrete.exact import Undefined as _Undefined
from lnsym.engines.concrete.points import ADVERSARIAL_POINTS as ADVERSARIAL_POINTS
from lnsym.engines.concrete.points import GRID_CANDIDATES as GRID_CANDIDATES
from lnsym.engines.concrete.points import LARGE_DIMENSIONS as LARGE_DIMENSIONS
from lnsym.engines.concrete.points import LIGHT_SEARCH as LIGHT_SEARCH
from lnsym.engines.concrete.points import SAMPLE_RANGE as SAMPLE_RANGE
from lnsym.engines.concrete.points import SMALL_EXPONENT as SMALL_EXPONENT
from lnsym.engines.concrete.points import (
    _admissible,
    _assumptions_hold,
    _certified,
    _constrain,
    _degrees,
    _exact_point,
    _grid,
    _large_dimensions,
    _Point,
    _Problem,
    _random_point,
)
from lnsym.engines.concrete.points import (
    _adversarial as _adversarial,
)
from lnsym.engines.concrete.ring import SYMBOLIC_WORK as SYMBOLIC_WORK
from lnsym.engines.concrete.ring import _Fractions, _TooLarge
from lnsym.engines.concrete.values import _SHARED as _SHARED
from lnsym.engines.concrete.values import Value as Value
from lnsym.engines.concrete.values import _agree, _entries, _Evaluator, _real, _Shared, _sign
from lnsym.engines.concrete.values import _Names as _Names
from lnsym.engines.concrete.values import instantiate as instantiate
from lnsym.engines.concrete.values import jacobian as jacobian
from lnsym.errors import CrossCheckError, DomainError, ExpressionError, UnsupportedError
from lnsym.ir import nodes as ir
from lnsym.ir.signs import UNKNOWN, sign
from lnsym.printing.printer import text

#: Random points per dimension for a random-rational check.
POINTS = 2
#: Limits of the counterexample search per dimension (deterministic, not timed).
GRID_EVALUATIONS = 120
MODERATE_POINTS = 10
#: A smaller search where random points already support the claim but cannot prove it.
SPOT_CHECKS = 2
#: Evaluate exact points with :mod:`lnsym.engines.concrete.exact` (else with SymPy numbers, as
#: :func:`recheck` does; the benchmarks compare the two, the values are the same).
EXACT_POINTS = True
#: Share symbolic values between the checks of different claims (:class:`_Shared`).
SHARE_SYMBOLIC = True


# ---------------------------------------------------------------------------------------
# Symbolic decision: SymPy values reduced in a polynomial ring (lnsym.engines.concrete.ring)


def _differences(lhs: Value, rhs: Value) -> list[sympy.Expr]:
    if isinstance(lhs, tuple):
        return [a - b for a, b in zip(lhs, rhs, strict=True)]
    return [lhs - rhs]


def _symbolic_zero(problem: _Problem, d: int) -> bool:
    """Whether lhs − rhs reduces to 0 at ``d`` for symbolic atoms (s² = q + ε).

    Raises:
        UnsupportedError: for expressions without a polynomial form (e.g. operator norms).
    """
    shared = _SHARED if SHARE_SYMBOLIC else _Shared()
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
        eps_value = s**2 - ev.value(ir.Var(problem.principal))
    definitions = names.needed([*diffs, *([eps_value] if eps_value is not None else [])])
    if eps_value is not None:
        definitions[ir.eps] = eps_value
    fractions = _Fractions(diffs, s, definitions)
    return all(fractions.vanishes(x) for x in diffs)


# ---------------------------------------------------------------------------------------
# Evaluating a point


@dataclass
class _Scan:
    """What the points tried at one dimension showed, beyond a violation.

    Attributes:
        defined: points where both sides have a real value.
        undefined: points where they do not (skipped).
        term_failure: the first point where a certificate term was negative or had no real
            value although both sides had one ("" if none): the certificate is wrong there.
        cross_check: whether the next random point's values are to be compared with SymPy's
            (:func:`evidence` asks for it once per claim); ``cross_checked`` once done.
    """

    defined: int = 0
    undefined: int = 0
    term_failure: str = ""
    cross_check: bool = False
    cross_checked: bool = False


def _evaluate(
    problem: _Problem,
    point: _Point,
    radicands: list[sympy.Expr] | None = None,
    scan: _Scan | None = None,
) -> tuple[Value, Value] | None:
    """Both sides at ``point``, or None where they have no real value (0 in a denominator, a
    root of a negative number). With ``scan``, the certificate terms are evaluated there too.

    Raises:
        UnsupportedError: for a value that is not a number (e.g. an undefined function).
    """
    ev = _Evaluator(point.d, point.vectors, point.scalars, expand=True, radicands=radicands)
    try:
        sides = ev.value(problem.lhs), ev.value(problem.rhs)
        defined = all(_real(x) for side in sides for x in _entries(side))
    except (ZeroDivisionError, _Undefined):
        defined = False
    if scan is not None:
        if not defined:
            scan.undefined += 1
            return None
        scan.defined += 1
        if problem.extras and not scan.term_failure:
            ev.radicands = None  # the terms' roots do not enter the claim's bound
            scan.term_failure = _term_failure(problem, point, ev)
    return sides if defined else None


@dataclass(frozen=True)
class _Look:
    """What one point showed: whether both sides have a real value there and, if they
    violate the relation, their exact values (SymPy numbers, as a counterexample shows them)."""

    defined: bool
    violation: tuple[Value, Value] | None = None


def _examine(
    problem: _Problem,
    point: _Point,
    radicands: list[sympy.Expr] | None = None,
    scan: _Scan | None = None,
    cross_check: bool = False,
) -> _Look:
    """Evaluate both sides at ``point`` exactly and decide the relation there.

    The arithmetic of :mod:`lnsym.engines.concrete.exact` decides; a point it cannot express (a cube
    root, say) is evaluated with SymPy instead. ``radicands`` and ``scan`` are filled as by
    :func:`_evaluate`. With ``cross_check``, SymPy evaluates the point too and must agree.
    """
    if EXACT_POINTS:
        try:
            return _examine_exactly(problem, point, radicands, scan, cross_check)
        except exact.Inexpressible:
            pass
    sides = _evaluate(problem, point, radicands, scan)
    if sides is None:
        return _Look(False)
    return _Look(True, sides if _violates(problem, sides) else None)


def _examine_exactly(
    problem: _Problem,
    point: _Point,
    radicands: list[sympy.Expr] | None,
    scan: _Scan | None,
    cross_check: bool = False,
) -> _Look:
    """:func:`_examine` in exact arithmetic (nothing is recorded if it raises).

    A violation, or a certificate term found negative or undefined, is evaluated again with
    SymPy, which gives the values shown and must agree; with ``cross_check`` every value is
    compared with SymPy's.

    Raises:
        Inexpressible: for a value outside the rationals extended by square roots.
        CrossCheckError: if SymPy disagrees (a bug in lnsym).
    """
    found: list[Any] = []
    vectors, scalars = _exact_point(point)
    ev = exact.Evaluator(point.d, vectors, scalars, exact.Tower(), radicands=found)
    lhs, rhs, _ = problem.interned
    try:
        sides = ev.value(lhs), ev.value(rhs)
    except (ZeroDivisionError, _Undefined):
        sides = None
    failing = 0  # the first certificate term that is negative or undefined (1-based)
    if sides is not None and scan is not None and problem.extras and not scan.term_failure:
        ev.radicands = None  # the terms' roots do not enter the claim's bound
        failing = _failing_term(problem, ev)
    violated = sides is not None and _violated_exactly(problem, *sides)
    if cross_check:
        _compare_with_sympy(problem, point, sides)
    if radicands is not None:
        radicands.extend(exact.to_sympy(r) for r in found)
    if scan is not None:
        if sides is None:
            scan.undefined += 1
        else:
            scan.defined += 1
    if sides is None:
        return _Look(False)
    if failing and scan is not None:
        sympy_ev = _Evaluator(point.d, point.vectors, point.scalars, expand=True)
        scan.term_failure = _term_failure(problem, point, sympy_ev)
        if not scan.term_failure:
            raise CrossCheckError(
                f"exact arithmetic finds the certificate term t{failing} negative or undefined "
                f"at {_where(point)}, SymPy does not"
            )
    if not violated:
        return _Look(True)
    again = _evaluate(problem, point)
    if again is None or not _violates(problem, again):
        raise CrossCheckError(
            f"exact arithmetic finds the claim violated at {_where(point)}, SymPy does not"
        )
    return _Look(True, again)


def _compare_with_sympy(problem: _Problem, point: _Point, sides: tuple[Any, Any] | None) -> None:
    """Raise CrossCheckError unless SymPy gives ``sides`` (exact values, or None) at ``point``."""
    expected = _evaluate(problem, point)
    if (sides is None) != (expected is None):
        how = "has" if sides is not None else "has no"
        raise CrossCheckError(
            f"exact arithmetic {how} values at {_where(point)}, SymPy's route disagrees"
        )
    if sides is None or expected is None:
        return
    for found, value in zip(sides, expected, strict=True):
        for x, y in zip(_entries(found), _entries(value), strict=True):
            if not _agree(exact.to_sympy(x), y):
                raise CrossCheckError(
                    f"exact arithmetic gives {exact.to_sympy(x)}, SymPy {y} at {_where(point)}"
                )


def _failing_term(problem: _Problem, ev: exact.Evaluator) -> int:
    """The index (from 1) of the first certificate term negative or undefined, else 0."""
    for i, term in enumerate(problem.interned[2], 1):
        try:
            if exact.sign(ev.value(term)) < 0:
                return i
        except (ZeroDivisionError, _Undefined):
            return i
    return 0


def _violated_exactly(problem: _Problem, lhs: Any, rhs: Any) -> bool:
    """Whether exact values (:mod:`lnsym.engines.concrete.exact`) of the sides violate the
    relation."""
    if isinstance(lhs, tuple):
        return any(exact.sign(a - b) != 0 for a, b in zip(lhs, rhs, strict=True))
    if problem.relation == "le":
        return exact.sign(lhs - rhs) > 0
    return exact.sign(lhs - rhs) != 0


def _term_failure(problem: _Problem, point: _Point, ev: _Evaluator) -> str:
    """Where a certificate term is negative or undefined at ``point`` ("" if none is)."""
    for i, term in enumerate(problem.extras, 1):
        try:
            value = ev.value(term)
            assert not isinstance(value, tuple)
            bad = "" if _real(value) and _sign(value) >= 0 else f"= {_tidy(value)}"
        except (ZeroDivisionError, _Undefined):
            bad = "has no real value"
        if bad:
            return f"t{i} {bad} at {_where(point)}"
    return ""


def _violates(problem: _Problem, sides: tuple[Value, Value]) -> bool:
    """Whether exact values of the two sides violate the relation (never where a difference
    turns out not to be real: that point is outside the claim's domain)."""
    diffs = _differences(*sides)
    try:
        if problem.relation == "le":
            return _sign(diffs[0]) > 0
        return any(_sign(x) != 0 for x in diffs)
    except _Undefined:
        return False


# ---------------------------------------------------------------------------------------
# Checking one dimension


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
    sides: tuple[Value, Value] | None = None
    too_large: bool = False
    note: str = ""


def _search(
    problem: _Problem,
    d: int,
    rng: random.Random,
    limit: int = GRID_EVALUATIONS,
    adversarial: int = 0,
    scan: _Scan | None = None,
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
        look = _examine(problem, point, scan=scan)
        evaluated += 1
        if look.violation is not None:
            found = DimensionCheck(
                d, "counterexample", "samples", evaluated, 0.0, point, look.violation
            )
            return found, 0
    moderate = MODERATE_POINTS if limit >= GRID_EVALUATIONS else min(limit, 4)
    for _ in range(moderate):
        drawn = _random_point(problem, d, rng, 9)
        look = _Look(False) if drawn is None else _examine(problem, drawn, scan=scan)
        evaluated += 1
        if drawn is not None and look.violation is not None:
            sides = look.violation
            if limit < GRID_EVALUATIONS:  # the claim is false: look for a smaller point
                smaller, _ = _search(problem, d, rng, GRID_EVALUATIONS)
                if smaller is not None:
                    return smaller, 0
            found = DimensionCheck(d, "counterexample", "samples", evaluated, 0.0, drawn, sides)
            return found, 0
    return None, evaluated


def _random_rational(
    problem: _Problem, d: int, rng: random.Random, points: int, scan: _Scan | None = None
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
        look = _Look(False) if point is None else _examine(problem, point, radicands, scan, check)
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
) -> DimensionCheck:
    """Decide ``problem`` at dimension ``d``; see the module docstring for the strategy.

    An inequality is searched for a violation at ``search`` = (small, adversarial) points and
    a few random ones (its certificate, if any, is checked separately by :func:`evidence`);
    ``scan`` records what the points showed.
    """
    scan = scan if scan is not None else _Scan()
    too_large = False
    if problem.relation == "eq" and d <= symbolic_up_to and not problem.pointwise:
        try:
            if _symbolic_zero(problem, d):
                return DimensionCheck(d, "holds", "symbolic")
        except _TooLarge:
            too_large = True
        except (UnsupportedError, DomainError):
            pass  # e.g. an operator norm, or a vanishing denominator: exact points decide
    if problem.relation == "le":  # no identity to test: search for a violation
        found, n = _search(problem, d, rng, search[0], search[1], scan)
        if found is not None:
            return found
        sampled = _random_rational(problem, d, rng, points, scan)
        if sampled.status == "counterexample":
            return sampled
        return _undecided(d, scan, n + sampled.samples, sampled.note)
    sampled = _random_rational(problem, d, rng, points, scan)
    if sampled.status == "holds":
        return replace(sampled, too_large=too_large)
    # False, or not decided by random points: look for the smallest violating point.
    false = sampled.status == "counterexample"
    undefined = sampled.status == "undefined"
    limit = GRID_EVALUATIONS if false or undefined else SPOT_CHECKS
    found, n = _search(
        problem, d, rng, limit, adversarial=ADVERSARIAL_POINTS if undefined else 0, scan=scan
    )
    if found is not None or false:
        return found or sampled
    if undefined:
        note = "the claim is undefined at every random point; small points agree"
        return _undecided(d, scan, n, note)
    return replace(sampled, samples=n + sampled.samples)


def _undecided(d: int, scan: _Scan, samples: int, note: str) -> DimensionCheck:
    """Consistent after exact samples without a violation; undefined if none had a value."""
    if not scan.defined:
        return DimensionCheck(d, "undefined", "samples", samples, note="undefined at every point")
    return DimensionCheck(d, "consistent", "samples", samples, note=note)


def check_dimension(
    claim: Checkable, d: int, *, seed: int = 0, symbolic_up_to: int = 8, points: int = POINTS
) -> DimensionCheck:
    """Check the equality (or search the inequality for a violation) of ``claim`` at ``d``.

    An inequality's certificate is not used here; :func:`evidence` checks certificates.

    Args:
        claim: the claim.
        d: the dimension.
        seed: seed of the random points.
        symbolic_up_to: try the symbolic reduction first when d is at most this.
        points: random points for a random-rational check.

    Returns:
        The outcome at ``d``.

    >>> from lnsym import vector, core, Eq, mean
    >>> z = vector("z")
    >>> result = check_dimension(Claim("mean0", Eq(mean(core(z)), 0)), 64)
    >>> result.status, result.method, result.bound < 1e-20
    ('holds', 'random-rational', True)
    """
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    rng = random.Random(seed * 1_000_003 + d)
    return _check(problem, d, rng, symbolic_up_to, points, _Scan(cross_check=True))


# ---------------------------------------------------------------------------------------
# Evidence


def evidence(
    claim: Checkable, *, max_d: int = 8, seed: int = 0, symbolic_up_to: int = 8
) -> Evidence:
    """Check ``claim`` exactly at every d in 1..``max_d`` allowed by its assumptions.

    A claim without vectors is also tried at a few larger d (:data:`LARGE_DIMENSIONS` and
    next to its integer constants), where d is just a number.

    An inequality is always searched for a violation by its own means — integer points in
    order of size, then fractions, negatives, boundary values and large magnitudes, then
    random points — and every term of its certificate is evaluated at the same points. Its
    outcome is "holds" only if no violation was found, no term was negative or undefined at
    a point where the sides are defined, and the identity rhs − lhs = Σ tₖ holds exactly at
    every d with every tₖ ≥ 0 by the sign rules.

    A dimension where every point tried is undefined (e.g. 1/(d − 1) at d = 1) is skipped
    and noted in the evidence.

    Args:
        claim: the claim.
        max_d: the largest dimension checked.
        seed: seed of the random points (results are deterministic for a seed).
        symbolic_up_to: dimensions up to this try the symbolic reduction first.

    Returns:
        Evidence with outcome ``"holds"`` (exact at every d), ``"counterexample"`` (an exact
        counterexample at the smallest failing d), or ``"consistent"`` (exact samples without
        a violation: an inequality without a valid certificate, or an operator norm).

    Raises:
        UnsupportedError: for constructs the engine cannot evaluate, or no admissible d.
        DomainError: when the claim is undefined at every point tried at every d.
    """
    start = time.perf_counter()
    statement = claim.statement
    is_le = isinstance(statement, ir.Le)
    terms: tuple[ir.Expr, ...] = statement.certificate if isinstance(statement, ir.Le) else ()
    relation = "le" if is_le else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions, terms)
    # d = 1 has no non-constant vector: such a claim says nothing there.
    dims = [d for d in ir.dimensions(claim.assumptions, max_d) if problem.satisfiable(d)]
    if problem.scalar_only():
        dims += _large_dimensions(problem, max_d)
    if not dims:
        raise UnsupportedError(f"no dimension in 1..{max_d} satisfies the assumptions")
    identity, reason = _certificate(statement, claim.assumptions) if is_le else (problem, "")

    results: list[DimensionCheck] = []
    undefined: list[int] = []
    failure = ""  # the first point where a certificate term is negative or undefined
    samples = 0
    thorough = {*dims[:2], max(d for d in dims if d <= max_d)} if dims[0] <= max_d else set(dims)
    # The first random point of the claim (and of its certificate identity) is evaluated
    # by SymPy as well, as a check of the exact arithmetic that decides the others.
    cross_check = {"claim": True, "identity": True}
    for d in dims:
        rng = random.Random(seed * 1_000_003 + d)
        scan = _Scan(cross_check=cross_check["claim"])
        search = (GRID_EVALUATIONS, ADVERSARIAL_POINTS) if d in thorough else LIGHT_SEARCH
        result = _check(problem, d, rng, symbolic_up_to, POINTS, scan, search)
        cross_check["claim"] &= not scan.cross_checked
        if result.status == "counterexample":
            refuted = _refuted(problem, result, [r.d for r in results] + [d], start)
            if undefined:
                refuted.data["undefined_dimensions"] = undefined
            return refuted
        if result.status == "undefined":
            undefined.append(d)
            continue
        if result.too_large:  # larger d only grow: go straight to exact points
            symbolic_up_to = d - 1
        if is_le:
            samples += result.samples
            failure = failure or scan.term_failure
            if identity is not None and not failure:
                identity_scan = _Scan(cross_check=cross_check["identity"])
                certified = _check(identity, d, rng, symbolic_up_to, POINTS, identity_scan)
                cross_check["identity"] &= not identity_scan.cross_checked
                if certified.too_large:
                    symbolic_up_to = d - 1
                if certified.status == "holds":
                    result = certified
                else:  # a wrong certificate proves nothing; the inequality may still hold
                    how = {"counterexample": "fails", "undefined": "is undefined"}.get(
                        certified.status, "is not exact"
                    )
                    reason = f"the certificate identity {how} at d = {d}"
                    identity = None
        results.append(result)
    if not results:
        raise DomainError(
            f"the claim is undefined at every point tried at d = {_ranges(undefined)}"
        )

    checked = [r.d for r in results]
    data: dict[str, Any] = {
        "exact": True,
        "dimensions": checked,
        "methods": {r.d: r.method for r in results},
    }
    skipped = ""
    if undefined:
        data["undefined_dimensions"] = undefined
        skipped = f"; skipped d = {_ranges(undefined)}, undefined at every point tried"
    if failure:
        reason = f"the certificate is wrong: {failure}"
        data["certificate_failure"] = failure
    if is_le:
        data["samples"] = samples
    if failure or any(r.status != "holds" for r in results):
        if not is_le:
            data["samples"] = sum(r.samples for r in results if r.status != "holds")
        why = reason or next((r.note for r in results if r.note), "not decided")
        detail = (
            f"no violation in {data['samples']} exact samples for d = {_ranges(checked)} "
            f"({why}{skipped})"
        )
        return Evidence("concrete", "consistent", detail, time.perf_counter() - start, data)
    detail = "exact for " + _describe(results, identity or problem)
    random_checks = [r for r in results if r.method == "random-rational"]
    if random_checks:
        data["points"] = POINTS
        data["false_positive_bound"] = sum(r.bound for r in random_checks)
    if is_le:
        detail += (
            ": rhs − lhs = Σ tₖ, and every tₖ ≥ 0 by the sign rules; no violation and no "
            f"negative tₖ at {samples} exact points (integers, fractions, boundary values)"
        )
    return Evidence("concrete", "holds", detail + skipped, time.perf_counter() - start, data)


def _certificate(
    statement: ir.Relation, assumptions: Sequence[ir.Assumption]
) -> tuple[_Problem | None, str]:
    """The identity rhs − lhs = Σ tₖ to check, or None with the reason it cannot prove."""
    terms: tuple[ir.Expr, ...] = getattr(statement, "certificate", ())
    if not terms:
        return None, "no certificate"
    unknown = [f"t{i}" for i, t in enumerate(terms, 1) if sign(t) == UNKNOWN]
    if unknown:
        return None, "sign not established for " + ", ".join(unknown)
    gap = ir.add(statement.rhs, ir.negate(statement.lhs))
    total = terms[0] if len(terms) == 1 else ir.ScalarSum(terms)
    return _Problem.of(gap, total, "eq", assumptions), ""


def _ranges(dims: Sequence[int]) -> str:
    """'1..8', '2, 4, 6..9'."""
    out, i = [], 0
    while i < len(dims):
        j = i
        while j + 1 < len(dims) and dims[j + 1] == dims[j] + 1:
            j += 1
        out.append(f"{dims[i]}..{dims[j]}" if j > i + 1 else ", ".join(map(str, dims[i : j + 1])))
        i = j + 1
    return ", ".join(out)


def _describe(results: Sequence[DimensionCheck], problem: _Problem) -> str:
    symbolic = [r.d for r in results if r.method == "symbolic"]
    sampled = [r for r in results if r.method == "random-rational"]
    parts = []
    if symbolic:
        how = "with s² = q + ε" if problem.principal is not None else "in a polynomial ring"
        parts.append(f"d = {_ranges(symbolic)} (symbolic reduction {how})")
    if sampled:
        bound = sum(r.bound for r in sampled)
        parts.append(
            f"d = {_ranges([r.d for r in sampled])} ({POINTS} random rational points per d, "
            f"false-positive probability ≤ {bound:.1e})"
        )
    return " and ".join(parts)


def _refuted(problem: _Problem, result: DimensionCheck, dims: list[int], start: float) -> Evidence:
    assert result.point is not None and result.sides is not None
    counterexample, detail = _counterexample(problem, result.point, result.sides)
    data = {"exact": True, "dimensions": dims, "counterexample": counterexample}
    return Evidence("concrete", "counterexample", detail, time.perf_counter() - start, data)


def _counterexample(
    problem: _Problem, point: _Point, sides: tuple[Value, Value]
) -> tuple[dict[str, Any], str]:
    """The exact point and both sides' values as text, and a one-line description."""
    lhs, rhs = sides
    counterexample: dict[str, Any] = {
        "d": point.d,
        "vectors": {a: [str(x) for x in v] for a, v in sorted(point.vectors.items())},
        "scalars": {s.name: str(v) for s, v in sorted(point.scalars.items(), key=_by_name)},
        "lhs": _show(lhs, str),
        "rhs": _show(rhs, str),
        "lhs_latex": _latex(lhs),
        "rhs_latex": _latex(rhs),
        "lhs_decimal": _show(lhs, lambda x: str(sympy.N(x, 12))),
        "rhs_decimal": _show(rhs, lambda x: str(sympy.N(x, 12))),
    }
    relation = ">" if problem.relation == "le" else "≠"
    detail = (
        f"{_where(point)}: lhs = {_short(counterexample['lhs'])} {relation} "
        f"rhs = {_short(counterexample['rhs'])}"
    )
    return counterexample, detail


def _where(point: _Point) -> str:
    """``d = 2, z = (0, 1), ε = 1``."""
    where = [f"d = {point.d}"]
    where += [
        f"{text(ir.VectorAtom(a))} = {_show(v, str)}" for a, v in sorted(point.vectors.items())
    ]
    where += [f"{text(ir.Const(s))} = {v}" for s, v in sorted(point.scalars.items(), key=_by_name)]
    return ", ".join(where)


# ---------------------------------------------------------------------------------------
# Re-checking a counterexample


_EXACT_NUMBER = re.compile(r"[+-]?\d{1,4000}(?:/\d{1,4000})?", re.ASCII)


def _exact_number(value: Any) -> sympy.Rational:
    """An exact rational from an int, a Fraction, a SymPy rational or text like ``-3/4``.

    Raises:
        ExpressionError: for anything else (floats included; no text reaches SymPy's parser).
    """
    if isinstance(value, bool):
        raise ExpressionError("booleans are not numbers")
    if isinstance(value, int | sympy.Rational):
        return sympy.Rational(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, str) and _EXACT_NUMBER.fullmatch(value.strip()):
        numerator, _, denominator = value.strip().partition("/")
        if denominator and int(denominator) == 0:
            raise ExpressionError(f"zero denominator in {value!r}")
        return sympy.Rational(int(numerator), int(denominator or 1))
    raise ExpressionError(f"not an exact rational number: {value!r}")


def recheck(
    claim: Checkable, counterexample: Mapping[str, Any]
) -> tuple[dict[str, Any] | None, str]:
    """Evaluate ``claim`` exactly at a reported counterexample, apart from how it was found.

    The point — ``d``, ``vectors`` (atom name → d exact rationals) and ``scalars`` (symbol
    name → an exact rational), as in :attr:`Evidence.data` ``["counterexample"]`` — must
    satisfy every assumption (dimension, centered, orthogonal, non-constant, positive
    symbols), both sides must have real values there, computed afresh without the search's
    expansions, and those values must violate the relation.

    Returns:
        The counterexample with its recomputed values and a note, or None and why not.

    >>> from lnsym import vector, core, Eq, jvp, ones
    >>> z = vector("z")
    >>> point = {"d": 2, "vectors": {"z": ["0", "1"]}, "scalars": {"epsilon": "1"}}
    >>> found, how = recheck(Claim("scale", Eq(jvp(core(z), z, z), 0)), point)
    >>> found["lhs"]
    '(-4*sqrt(5)/25, 4*sqrt(5)/25)'
    >>> how
    're-checked exactly: both sides evaluated afresh at the point'
    >>> recheck(Claim("shift", Eq(core(z + ones), core(z))), point)[1]
    'the relation holds at the point'
    """
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    try:
        d = counterexample["d"]
        if not isinstance(d, int) or isinstance(d, bool) or d < 1:
            return None, f"the dimension {d!r} is not a positive integer"
        given = counterexample.get("vectors", {})
        vectors: dict[str, tuple[sympy.Expr, ...]] = {}
        for atom in problem.atoms:
            if atom not in given:
                return None, f"no value for the vector {atom}"
            vectors[atom] = tuple(_exact_number(x) for x in given[atom])
            if len(vectors[atom]) != d:
                return None, f"the vector {atom} does not have {d} entries"
        named = counterexample.get("scalars", {})
        scalars: dict[sympy.Symbol, sympy.Expr] = {}
        for symbol in problem.symbols:
            if symbol.name not in named:
                return None, f"no value for the scalar {symbol.name}"
            scalars[symbol] = _exact_number(named[symbol.name])
            if symbol.is_positive and scalars[symbol] <= 0:
                return None, f"the positive scalar {symbol.name} is {scalars[symbol]}"
    except (ExpressionError, KeyError, TypeError) as exc:
        return None, f"malformed point: {exc}"
    if not _admissible(problem.assumptions, d) or not problem.satisfiable(d):
        return None, f"d = {d} is outside the assumptions"
    if not _assumptions_hold(problem, vectors):
        return None, "the point does not satisfy the assumptions"
    ev = _Evaluator(d, vectors, scalars)  # plain: none of the search's expansions
    try:
        sides = ev.value(problem.lhs), ev.value(problem.rhs)
        defined = all(_real(x) for side in sides for x in _entries(side))
    except (ZeroDivisionError, _Undefined):
        defined = False
    if not defined:
        return None, "the claim is undefined at the point"
    if not _violates(problem, sides):
        return None, "the relation holds at the point"
    found, _ = _counterexample(problem, _Point(d, vectors, scalars), sides)
    return found, "re-checked exactly: both sides evaluated afresh at the point"


#: Numeric samples in dimensions up to this are re-evaluated exactly.
PROMOTE_MAX_D = 64


def promote(claim: Checkable, sample: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """Make a numeric engine's violating sample (floats) an exact counterexample, if it is one.

    The floats are read as rationals — first rounded to 6 significant digits, then exactly —
    the coordinates that linear assumptions fix are solved again exactly, and the claim is
    evaluated exactly there by :func:`recheck`.

    Returns:
        The exact counterexample and a note, or None and why not.
    """
    d = sample.get("d")
    if not isinstance(d, int) or not 1 <= d <= PROMOTE_MAX_D:
        return None, f"samples are re-evaluated exactly only for d ≤ {PROMOTE_MAX_D}"
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    why = "no sample"
    for digits in (6, None):
        try:
            given = sample.get("vectors", {})
            vectors = {  # an atom only in the assumptions gets 0 (if the assumptions allow it)
                a: tuple(_rational(x, digits) for x in given.get(a, [0] * d)) for a in problem.atoms
            }
            scalars = {
                s.name: _rational(sample["scalars"][s.name], digits) for s in problem.symbols
            }
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            return None, f"the sample cannot be read exactly: {exc}"
        if any(len(v) != d for v in vectors.values()):
            return None, "the sample's vectors do not have d entries"
        constrained = _constrain(problem, vectors, d)
        if constrained is None:
            why = "the assumptions are degenerate at the sample"
            continue
        point = {
            "d": d,
            "vectors": {a: [str(x) for x in v] for a, v in constrained.items()},
            "scalars": {name: str(v) for name, v in scalars.items()},
        }
        found, why = recheck(claim, point)
        if found is not None:
            how = "rounded to 6 significant digits" if digits else "read exactly"
            return found, f"the numeric sample, {how}, violates the claim exactly"
    return None, why


def _rational(x: Any, digits: int | None) -> sympy.Rational:
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"{x!r} is not finite")
    exact = Fraction(f"{value:.{digits}g}") if digits else Fraction(value)
    return sympy.Rational(exact.numerator, exact.denominator)


def _by_name(item: tuple[sympy.Symbol, Any]) -> str:
    return item[0].name


def _tidy(x: sympy.Expr) -> sympy.Expr:
    return sympy.radsimp(x) if not x.is_Rational else x


def _show(value: Value, fmt: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(fmt(_tidy(x)) for x in value) + ")"
    return fmt(_tidy(value))


def _latex(value: Value) -> str:
    if isinstance(value, tuple):
        return r"\left(" + ", ".join(sympy.latex(_tidy(x)) for x in value) + r"\right)"
    return sympy.latex(_tidy(value))


def _short(s: str, limit: int = 80) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"
