"""The concrete engine's exact counterexample, and a point named in an error message.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole).
:func:`_found` makes the typed :class:`~lnsym.engines.base.Counterexample` (exact values;
:mod:`lnsym.printing.evidence` writes them out). :func:`_where` names a point in the
messages of internal errors (``d = 2, z = (0, 1), ε = 1``), which are not evidence.
"""

from __future__ import annotations

from typing import Any

import sympy

from lnsym.engines.base import Counterexample
from lnsym.engines.concrete.points import _Point
from lnsym.engines.concrete.problem import _Problem
from lnsym.engines.concrete.sympy_numbers import SympyValue
from lnsym.ir.names import unicode_name


def _found(
    problem: _Problem, point: _Point, sides: tuple[SympyValue, SympyValue]
) -> Counterexample:
    """The violating point and both sides' exact values."""
    return Counterexample(
        d=point.d,
        vectors={a: tuple(v) for a, v in sorted(point.vectors.items())},
        scalars={s.name: v for s, v in sorted(point.scalars.items(), key=_by_name)},
        lhs=sides[0],
        rhs=sides[1],
        relation="le" if problem.relation == "le" else "eq",
    )


def _where(point: _Point) -> str:
    """``d = 2, z = (0, 1), ε = 1``."""
    where = [f"d = {point.d}"]
    where += [f"{unicode_name(a)} = {_show(v)}" for a, v in sorted(point.vectors.items())]
    where += [
        f"{unicode_name(s.name)} = {v}" for s, v in sorted(point.scalars.items(), key=_by_name)
    ]
    return ", ".join(where)


def _by_name(item: tuple[sympy.Symbol, Any]) -> str:
    return item[0].name


def _tidy(x: sympy.Expr) -> sympy.Expr:
    return sympy.radsimp(x) if not x.is_Rational else x


def _show(value: SympyValue) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(str(_tidy(x)) for x in value) + ")"
    return str(_tidy(value))
