"""How the concrete engine writes a point and the values at it.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). It
holds :func:`_counterexample` (the record of a counterexample in
:attr:`~lnsym.engines.base.Evidence.data`: the point, and both sides as text, LaTeX and
decimals, with a one-line description), :func:`_where` (a point in a message, ``d = 2,
z = (0, 1), ε = 1``) and the helpers that tidy and shorten values. Reports are compared byte
for byte, so this text is part of the evidence.
"""

from __future__ import annotations

from typing import Any

import sympy

from lnsym.engines.concrete.points import _Point
from lnsym.engines.concrete.problem import _Problem
from lnsym.engines.concrete.sympy_numbers import Value
from lnsym.ir.names import unicode_name


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
    where += [f"{unicode_name(a)} = {_show(v, str)}" for a, v in sorted(point.vectors.items())]
    where += [
        f"{unicode_name(s.name)} = {v}" for s, v in sorted(point.scalars.items(), key=_by_name)
    ]
    return ", ".join(where)


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
