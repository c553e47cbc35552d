"""Re-checking a reported counterexample exactly, and making a numeric sample exact.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). The
checker re-evaluates every counterexample before it refutes a claim: :func:`recheck` evaluates
the claim afresh at the reported point, with SymPy only and none of the searches' expansions;
:func:`promote` reads a numeric engine's violating sample (floats) as rationals and hands it to
:func:`recheck`. Text from outside (``-3/4``) becomes a number without SymPy's parser
(:func:`_exact_number`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.base import Checkable, Counterexample
from lnsym.engines.concrete.arithmetic import Undefined as _Undefined
from lnsym.engines.concrete.examine import _violates
from lnsym.engines.concrete.formatting import _found
from lnsym.engines.concrete.points import _Point
from lnsym.engines.concrete.problem import _assumptions_hold, _constrain, _Problem
from lnsym.engines.concrete.sympy_numbers import _entries, _real
from lnsym.engines.concrete.values import _Evaluator
from lnsym.errors import ExpressionError

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
    claim: Checkable, counterexample: Counterexample | Mapping[str, Any]
) -> tuple[Counterexample | None, str]:
    """Evaluate ``claim`` exactly at a reported counterexample, apart from how it was found.

    The point — an engine's :class:`~lnsym.engines.base.Counterexample`, or a mapping with
    ``d``, ``vectors`` (atom name → d exact rationals, or text like ``"-3/4"``) and
    ``scalars`` (symbol name → one) — must satisfy every assumption (dimension, centered,
    orthogonal, non-constant, positive symbols), both sides must have real values there,
    computed afresh without the search's expansions, and those values must violate the
    relation.

    Returns:
        The counterexample with its recomputed values and a note, or None and why not.

    >>> from lnsym import vector, core, Claim, Eq, jvp, ones
    >>> z = vector("z")
    >>> point = {"d": 2, "vectors": {"z": ["0", "1"]}, "scalars": {"epsilon": "1"}}
    >>> found, how = recheck(Claim("scale", Eq(jvp(core(z), z, z), 0)), point)
    >>> found.lhs
    (-4*sqrt(5)/25, 4*sqrt(5)/25)
    >>> how
    're-checked exactly: both sides evaluated afresh at the point'
    >>> recheck(Claim("shift", Eq(core(z + ones), core(z))), point)[1]
    'the relation holds at the point'
    """
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    if isinstance(counterexample, Counterexample):
        counterexample = _as_point(counterexample)
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
    if not problem.satisfiable(d):
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
    found = _found(problem, _Point(d, vectors, scalars), sides)
    return found, "re-checked exactly: both sides evaluated afresh at the point"


def _as_point(found: Counterexample) -> dict[str, Any]:
    return {"d": found.d, "vectors": dict(found.vectors), "scalars": dict(found.scalars)}


#: Numeric samples in dimensions up to this are re-evaluated exactly.
PROMOTE_MAX_D = 64


def promote(claim: Checkable, sample: Mapping[str, Any]) -> tuple[Counterexample | None, str]:
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
        point = {"d": d, "vectors": constrained, "scalars": scalars}
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
