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
random point of every claim (of a matrix statement, the first that any of its entries
reaches). :func:`recheck` uses SymPy only.

The engine's parts, each a module of :mod:`lnsym.engines.concrete`: this module (the switches
of the routes, :func:`check_dimension`, and :func:`evidence`, which checks a claim at every d
and assembles what it found); ``dimension`` (checking one d); ``examine`` (one exact point);
``recheck`` (:func:`recheck`, :func:`promote`); ``formatting`` (the typed counterexample;
a point in error messages); ``problem``, ``degrees`` and ``points`` (what is compared, the degree
bounds, the points tried); ``ring`` and ``ring_values`` (the symbolic zero test, and its
values built in the ring); ``values``, ``shared``, ``monomials``, ``sympy_numbers`` and
``instantiate`` (SymPy values of the IR, names and shared values, inner products split by
monomial, exact SymPy numbers, :func:`instantiate` and :func:`jacobian`); ``exact``,
``arithmetic`` and ``interning`` (exact evaluation at points: the evaluator, its numbers and
jets, interned nodes).

An identity is decided at each d without ``simplify`` (cheap on true claims, explosive on
false ones — and false claims are what a checker must reject fast):

- *symbolic* (d ≤ ``symbolic_up_to`` and while the expansion stays small): ε is
  reparametrized as s² − q with a new positive symbol s, for the variance q of the claim's
  layer input, so that √(q + ε) = s; any other square root becomes a generator r with
  r² = R. Both sides become num/den over a sparse polynomial ring (FLINT's ``fmpq_mpoly``,
  no gcds); they are equal when num reduces to 0 modulo the relations r² − R. The values
  are built in the ring directly — the exact evaluator of the points below, with its jets
  for derivatives, run over polynomial fractions (:mod:`~lnsym.engines.concrete.ring_values`)
  — and through SymPy (the devices above, then a conversion) only where a value cannot be
  written there (a sign, a cube root).
- *random-rational* (otherwise): both sides are evaluated exactly at random integer points,
  with s drawn first and ε = s² − q so that the root stays rational. By the Schwartz–Zippel
  lemma a false identity survives one point with probability at most 2^(k+2)·D/N, where D
  bounds the degree of the difference (:func:`~lnsym.engines.concrete.degrees._degree`), k
  counts the other square roots (the product of the conjugates is a polynomial) and
  N = 10¹⁵ is the sample range; the factor 4 pays for drawing s after the other variables
  and for redrawing points where a denominator vanishes. That needs the k roots to be
  independent, which each point certifies (:func:`~lnsym.engines.concrete.degrees._certified`:
  no product of radicand values is a rational square); otherwise — √(h²) = |h| is a
  polynomial on half the space only — the outcome is at best "consistent". The evidence
  states the bound.

A failing identity is refuted by an exact counterexample at the smallest failing d: the first
point in order of size (entries 0, 1, −1, 2, …; ε and positive scalars 1, 2, 1/2, 3, …) that
satisfies the assumptions and violates the claim — unless that point is degenerate (d = 1, a
zero vector or scalar) and an informative one violates it at the smallest d ≥ 2
(:mod:`lnsym.engines.concrete.informative`).

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


>>> import sympy
>>> from lnsym import vector, core, Claim, Eq, eps, jvp, ones
>>> z = vector("z")
>>> instantiate(core(z), 3, {z: [1, 2, 3], eps: sympy.Rational(1, 3)}).T
Matrix([[-1, 0, 1]])
>>> evidence(Claim("kills_ones", Eq(jvp(core(z), z, ones), 0)), max_d=4).detail
'exact for d = 1..4 (symbolic reduction with s² = q + ε)'
>>> refuted = evidence(Claim("scale", Eq(jvp(core(z), z, z), 0)))
>>> found = refuted.counterexample
>>> print(refuted.outcome, found.d, found.vectors)
counterexample 2 {'z': (0, 1)}
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from typing import Any

# Names imported "as" themselves (or marked re-export) are re-exported: lnsym, the benchmarks
# and the tests import them from this module, where they were defined before the split.
import lnsym.engines.concrete.exact as exact  # noqa: F401 (re-export)
from lnsym import ir
from lnsym.engines.base import Checkable, Evidence, Outcome
from lnsym.engines.concrete.arithmetic import Undefined as _Undefined  # noqa: F401 (re-export)
from lnsym.engines.concrete.dimension import GRID_EVALUATIONS as GRID_EVALUATIONS
from lnsym.engines.concrete.dimension import MODERATE_POINTS as MODERATE_POINTS
from lnsym.engines.concrete.dimension import POINTS as POINTS
from lnsym.engines.concrete.dimension import SPOT_CHECKS as SPOT_CHECKS
from lnsym.engines.concrete.dimension import DimensionCheck as DimensionCheck
from lnsym.engines.concrete.dimension import Routes, _check
from lnsym.engines.concrete.examine import _Scan
from lnsym.engines.concrete.formatting import _found
from lnsym.engines.concrete.informative import informative_counterexample
from lnsym.engines.concrete.instantiate import instantiate as instantiate
from lnsym.engines.concrete.instantiate import jacobian as jacobian
from lnsym.engines.concrete.points import ADVERSARIAL_POINTS as ADVERSARIAL_POINTS
from lnsym.engines.concrete.points import GRID_CANDIDATES as GRID_CANDIDATES
from lnsym.engines.concrete.points import LARGE_DIMENSIONS as LARGE_DIMENSIONS
from lnsym.engines.concrete.points import LIGHT_SEARCH as LIGHT_SEARCH
from lnsym.engines.concrete.points import SAMPLE_RANGE as SAMPLE_RANGE
from lnsym.engines.concrete.points import SMALL_EXPONENT as SMALL_EXPONENT
from lnsym.engines.concrete.points import _adversarial as _adversarial
from lnsym.engines.concrete.points import _large_dimensions
from lnsym.engines.concrete.problem import _Problem as _Problem
from lnsym.engines.concrete.recheck import PROMOTE_MAX_D as PROMOTE_MAX_D
from lnsym.engines.concrete.recheck import promote as promote
from lnsym.engines.concrete.recheck import recheck as recheck
from lnsym.engines.concrete.ring import SYMBOLIC_WORK as SYMBOLIC_WORK
from lnsym.engines.concrete.shared import _SHARED as _SHARED
from lnsym.engines.concrete.shared import _Names as _Names
from lnsym.engines.concrete.shared import _Shared as _Shared
from lnsym.engines.concrete.sympy_numbers import SympyValue as SympyValue
from lnsym.engines.concrete.sympy_numbers import _entries as _entries
from lnsym.engines.concrete.sympy_numbers import _real as _real
from lnsym.engines.concrete.sympy_numbers import _sign as _sign
from lnsym.engines.concrete.values import _Evaluator as _Evaluator
from lnsym.errors import DomainError, UnsupportedError
from lnsym.ir.signs import UNKNOWN, sign

#: Evaluate exact points with :mod:`lnsym.engines.concrete.exact` (else with SymPy numbers, as
#: :func:`recheck` does; the benchmarks compare the two, the values are the same).
EXACT_POINTS = True
#: Share symbolic values between the checks of different claims (:class:`_Shared`).
SHARE_SYMBOLIC = True
#: Build the symbolic reduction's values in the polynomial ring directly
#: (:mod:`lnsym.engines.concrete.ring_values`); else every value goes through SymPy, which
#: proves fewer cases within its work limit.
DIRECT_RING = True


def _routes() -> Routes:
    """The routes as the switches of this module (and its :data:`_SHARED`) stand now.

    Read here at the start of every check and passed down, so that a switch set on this
    module — as the benchmarks and tests do — takes effect in the modules that use it.
    """
    return Routes(
        exact_points=EXACT_POINTS,
        shared=_SHARED if SHARE_SYMBOLIC else None,
        direct=DIRECT_RING,
    )


# ---------------------------------------------------------------------------------------
# Checking a claim


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

    >>> from lnsym import vector, core, Claim, Eq, mean
    >>> z = vector("z")
    >>> result = check_dimension(Claim("mean0", Eq(mean(core(z)), 0)), 64)
    >>> result.status, result.method, result.bound < 1e-20
    ('holds', 'random-rational', True)
    """
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    rng = random.Random(seed * 1_000_003 + d)
    return _check(
        problem, d, rng, symbolic_up_to, points, _Scan(cross_check=True), routes=_routes()
    )


def cross_checks() -> dict[str, bool]:
    """The SymPy cross-checks still owed by a claim (or by every entry of a matrix statement
    together): at its first random point, and at its certificate identity's."""
    return {"claim": True, "identity": True}


def evidence(
    claim: Checkable,
    *,
    max_d: int = 8,
    seed: int = 0,
    symbolic_up_to: int = 8,
    cross_check: dict[str, bool] | None = None,
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
        cross_check: which SymPy cross-checks are still owed (:func:`cross_checks`),
            updated here: the entries of a matrix statement share one, so that the
            statement's first random point is cross-checked, as a scalar claim's is.

    Returns:
        Evidence with outcome ``"holds"`` (exact at every d), ``"counterexample"`` (an exact
        counterexample at the smallest failing d), or ``"consistent"`` (exact samples without
        a violation: an inequality without a valid certificate, or an operator norm).

    Raises:
        UnsupportedError: for constructs the engine cannot evaluate, or no admissible d.
        DomainError: when the claim is undefined at every point tried at every d.
    """
    start = time.perf_counter()
    routes = _routes()
    statement = claim.statement
    is_le = isinstance(statement, ir.Le)
    terms: tuple[ir.Expr, ...] = statement.certificate if isinstance(statement, ir.Le) else ()
    relation = "le" if is_le else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions, terms)
    # d = 1 has no non-constant vector: such a claim says nothing there.
    dims = [d for d in ir.dimensions(claim.assumptions, max_d) if problem.satisfiable(d)]
    if problem.scalar_only() and _mentions_d(statement):
        dims += _large_dimensions(problem, max_d)
    if not dims:
        raise UnsupportedError(f"no dimension in 1..{max_d} satisfies the assumptions")
    identity, reason = _certificate(statement, claim.assumptions) if is_le else (problem, "")

    results: list[DimensionCheck] = []
    undefined: list[int] = []
    special: list[int] = []  # dimensions where an atom meets d or more linear constraints
    failure = ""  # the first point where a certificate term is negative or undefined
    samples = 0
    thorough = {*dims[:2], max(d for d in dims if d <= max_d)} if dims[0] <= max_d else set(dims)
    # The first random point of the claim (and of its certificate identity) is evaluated
    # by SymPy as well, as a check of the exact arithmetic that decides the others.
    if cross_check is None:
        cross_check = cross_checks()
    for d in dims:
        rng = random.Random(seed * 1_000_003 + d)
        scan = _Scan(cross_check=cross_check["claim"])
        search = (GRID_EVALUATIONS, ADVERSARIAL_POINTS) if d in thorough else LIGHT_SEARCH
        result = _check(problem, d, rng, symbolic_up_to, POINTS, scan, search, routes=routes)
        cross_check["claim"] &= not scan.cross_checked
        if result.status == "counterexample":
            result = informative_counterexample(problem, result, dims, routes)
            refuted = _refuted(problem, result, [r.d for r in results] + [d], start)
            if undefined:
                refuted.data["undefined_dimensions"] = undefined
            return refuted
        if result.status == "undefined":
            undefined.append(d)
            continue
        if result.status == "holds" and problem.overdetermined(d):
            special.append(d)  # what held there was only the special point 0: nothing shown
            continue
        if result.too_large:  # larger d only grow: go straight to exact points
            symbolic_up_to = d - 1
        if is_le:
            samples += result.samples
            failure = failure or scan.term_failure
            if identity is not None and not failure:
                identity_scan = _Scan(cross_check=cross_check["identity"])
                certified = _check(
                    identity, d, rng, symbolic_up_to, POINTS, identity_scan, routes=routes
                )
                cross_check["identity"] &= not identity_scan.cross_checked
                if certified.too_large:
                    symbolic_up_to = d - 1
                if certified.status == "holds" and not problem.overdetermined(d):
                    result = certified
                else:  # a wrong certificate proves nothing; the inequality may still hold
                    how = {"counterexample": "fails", "undefined": "is undefined"}.get(
                        certified.status, "is not exact"
                    )
                    reason = f"the certificate identity {how} at d = {d}"
                    identity = None
        results.append(result)
    if not results and special:
        detail = f"no violation at the points reached for d = {_ranges(special)}: {OVERDETERMINED}"
        nothing = {"exact": True, "dimensions": [], "special_dimensions": special}
        seconds = time.perf_counter() - start
        return Evidence("concrete", Outcome.CONSISTENT, detail, seconds, nothing)
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
    if special:
        data["special_dimensions"] = special
        skipped += f"; d = {_ranges(special)} decide nothing: {OVERDETERMINED}"
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
        return Evidence("concrete", Outcome.CONSISTENT, detail, time.perf_counter() - start, data)
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
    return Evidence("concrete", Outcome.HOLDS, detail + skipped, time.perf_counter() - start, data)


#: Why a dimension where an atom meets d or more linear constraints decides nothing.
OVERDETERMINED = (
    "an atom meets as many linear constraints as d: the points drawn make it 0, and its "
    "other admissible values, at special points of its partners, are not reached"
)


def _mentions_d(statement: ir.Relation) -> bool:
    """Whether d occurs: a scalar claim without it (a matrix entry) is the same at every d."""
    sides = (statement.lhs, statement.rhs, *getattr(statement, "certificate", ()))
    return any(isinstance(x, ir.Const) and x.value.has(ir.d) for x in ir.distinct_nodes(*sides))


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
        how = "in a polynomial ring"
        if problem.principal is not None:  # the layer's root, s² = statistic + ε
            how = (
                "with s² = q + ε"
                if isinstance(problem.principal, ir.Var)
                else "with s² = t + ε, t the layer's statistic"
            )
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
    found = _found(problem, result.point, result.sides)
    detail = f"violated at an exact point at d = {found.d}"
    data = {"exact": True, "dimensions": dims}
    seconds = time.perf_counter() - start
    return Evidence("concrete", Outcome.COUNTEREXAMPLE, detail, seconds, data, found)
