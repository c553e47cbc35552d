"""One exact point of a claim: both sides evaluated, the relation decided, SymPy to confirm.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). It
holds :func:`_examine` — exact arithmetic (:mod:`lnsym.engines.concrete.exact`) decides, a
point it cannot express is evaluated with SymPy, and a violation or a failing certificate
term is evaluated again with SymPy, which must agree — with the SymPy route
(:func:`_evaluate`), the comparison of the two (:func:`_compare_with_sympy`), the tests of a
violation (:func:`_violates`, :func:`_violated_exactly`) and of the certificate terms, and
what the points tried at one dimension showed (:class:`_Scan`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

import lnsym.engines.concrete.exact as exact
from lnsym.engines.concrete.arithmetic import Undefined as _Undefined
from lnsym.engines.concrete.formatting import _tidy, _where
from lnsym.engines.concrete.points import _exact_point, _Point
from lnsym.engines.concrete.problem import _Problem
from lnsym.engines.concrete.sympy_numbers import (
    SympyValue,
    _agree,
    _differences,
    _entries,
    _real,
    _sign,
)
from lnsym.engines.concrete.values import _Evaluator
from lnsym.errors import CrossCheckError


@dataclass
class _Scan:
    """What the points tried at one dimension showed, beyond a violation.

    Attributes:
        defined: points where both sides have a real value.
        undefined: points where they do not (skipped).
        term_failure: the first point where a certificate term was negative or had no real
            value although both sides had one ("" if none): the certificate is wrong there.
        cross_check: whether the next random point's values are to be compared with SymPy's
            (:func:`~lnsym.engines.concrete.engine.evidence` asks for it once per claim);
            ``cross_checked`` once done.
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
) -> tuple[SympyValue, SympyValue] | None:
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
    violation: tuple[SympyValue, SympyValue] | None = None


def _examine(
    problem: _Problem,
    point: _Point,
    radicands: list[sympy.Expr] | None = None,
    scan: _Scan | None = None,
    cross_check: bool = False,
    *,
    exact_points: bool = True,
) -> _Look:
    """Evaluate both sides at ``point`` exactly and decide the relation there.

    The arithmetic of :mod:`lnsym.engines.concrete.exact` decides; a point it cannot express (a cube
    root, say) is evaluated with SymPy instead. ``radicands`` and ``scan`` are filled as by
    :func:`_evaluate`. With ``cross_check``, SymPy evaluates the point too and must agree.
    Without ``exact_points`` SymPy evaluates every point (the slower route, same values).
    """
    if exact_points:
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


def _violates(problem: _Problem, sides: tuple[SympyValue, SympyValue]) -> bool:
    """Whether exact values of the two sides violate the relation (never where a difference
    turns out not to be real: that point is outside the claim's domain)."""
    diffs = _differences(*sides)
    try:
        if problem.relation == "le":
            return _sign(diffs[0]) > 0
        return any(_sign(x) != 0 for x in diffs)
    except _Undefined:
        return False
