r"""Exact values written out: text, LaTeX, decimals and JSON, in the article's style.

A vector or matrix whose entries are all rational multiples of one surd √k shows it once:
``(-4, -1, 5)/√17`` rather than three fractions with √17 in each. Decimals come from
:mod:`lnsym.exact.values` and are printed only where they add something (not for integers).

>>> text_value((-4 / sympy.sqrt(17), -1 / sympy.sqrt(17), 5 / sympy.sqrt(17)))
'(-4, -1, 5)/√17'
>>> print(latex_value((sympy.Rational(1, 2) * sympy.sqrt(3), sympy.sqrt(3))))
\frac{\sqrt{3}}{2} \left(1, 2\right)
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sympy

from lnsym.exact.values import ExampleValue, decimal, decimal_text, entries


def _surd(v: sympy.Expr) -> tuple[sympy.Rational, int] | None:
    """(r, k) with v = r·√k, k a squarefree integer ≥ 1, or None if v is not of that form."""
    coefficient, rest = v.as_coeff_Mul()
    if not coefficient.is_Rational:
        return None
    if rest == 1:
        return coefficient, 1
    if rest.is_Pow and rest.exp == sympy.Rational(1, 2) and rest.base.is_Integer:
        return coefficient, int(rest.base)
    return None


@dataclass(frozen=True)
class _Factored:
    """values = factor · entries (``divide``: values = entries / √k)."""

    entries: list[sympy.Expr]
    root: int  # k in √k
    factor: sympy.Expr  # for the "times" form
    divide: bool


def _factor(values: list[sympy.Expr]) -> _Factored | None:
    """Pull a common surd out of values that are all rational multiples of the same √k."""
    if sum(1 for v in values if v != 0) < 2:
        return None
    parts = [(sympy.Integer(0), 0) if v == 0 else _surd(v) for v in values]
    if any(p is None for p in parts):
        return None
    roots = {k for (_, k) in parts if k}  # type: ignore[misc]
    if len(roots) != 1 or roots == {1}:
        return None
    k = roots.pop()
    coefficients = [r for (r, _) in parts]  # type: ignore[misc]
    scaled = [r * k for r in coefficients]
    if all(a.is_Integer for a in scaled):
        # The article's style: (−4, −1, 5)/√17.
        return _Factored(scaled, k, sympy.Integer(1) / sympy.sqrt(k), divide=True)
    numerators = math.gcd(*(int(r.p) for r in coefficients))
    denominators = math.lcm(*(int(r.q) for r in coefficients))
    content = sympy.Rational(numerators, denominators)
    return _Factored([r / content for r in coefficients], k, content * sympy.sqrt(k), divide=False)


def text_number(v: sympy.Expr) -> str:
    """One exact number as text: ``√17/3``, ``2·√3``."""
    out = sympy.sstr(v).replace("**", "^")
    out = re.sub(r"sqrt\((\d+)\)", r"√\1", out).replace("sqrt(", "√(")
    return out.replace("*", "·")


def latex_number(v: sympy.Expr) -> str:
    """One exact number as LaTeX."""
    return sympy.latex(v)


def is_integer(v: sympy.Expr) -> bool:
    """Whether ``v`` is an integer (then no decimal is shown for it)."""
    return bool(v.is_Integer)


def _tuple_text(values: Sequence[str]) -> str:
    return "(" + ", ".join(values) + ")"


def text_value(value: ExampleValue) -> str:
    """One-line text of an exact scalar or vector (a matrix: one line per row)."""
    if isinstance(value, tuple):
        factored = _factor(list(value))
        if factored is None:
            return _tuple_text([text_number(v) for v in value])
        inner = _tuple_text([text_number(v) for v in factored.entries])
        if factored.divide:
            return f"{inner}/√{factored.root}"
        return f"({text_number(factored.factor)})·{inner}"
    if isinstance(value, sympy.MatrixBase):
        return "\n".join(_text_matrix(value))
    return text_number(value)


def _grid(cells: list[list[str]]) -> list[str]:
    width = max(len(c) for row in cells for c in row)
    return ["[" + "  ".join(c.rjust(width) for c in row) + "]" for row in cells]


def _text_matrix(m: sympy.MatrixBase) -> list[str]:
    factored = _factor(list(m))
    if factored is None:
        return _grid([[text_number(v) for v in m.row(i)] for i in range(m.rows)])
    shown = factored.entries
    cells = [[text_number(shown[i * m.cols + j]) for j in range(m.cols)] for i in range(m.rows)]
    prefix = f"1/√{factored.root}" if factored.divide else text_number(factored.factor)
    return [f"({prefix}) ·", *_grid(cells)]


def _latex_matrix_body(cells: list[list[str]]) -> str:
    rows = [" & ".join(row) for row in cells]
    return r"\begin{pmatrix} " + r" \\ ".join(rows) + r" \end{pmatrix}"


def latex_value(value: ExampleValue) -> str:
    """An exact scalar, vector or matrix as LaTeX (math mode)."""
    if isinstance(value, tuple):
        factored = _factor(list(value))
        if factored is None:
            return r"\left(" + ", ".join(latex_number(v) for v in value) + r"\right)"
        inner = r"\left(" + ", ".join(latex_number(v) for v in factored.entries) + r"\right)"
        if factored.divide:
            return rf"{inner} / \sqrt{{{factored.root}}}"
        return rf"{latex_number(factored.factor)} {inner}"
    if isinstance(value, sympy.MatrixBase):
        factored = _factor(list(value))
        shown = list(value) if factored is None else factored.entries
        cells = [
            [latex_number(shown[i * value.cols + j]) for j in range(value.cols)]
            for i in range(value.rows)
        ]
        body = _latex_matrix_body(cells)
        if factored is None:
            return body
        prefix = (
            rf"\frac{{1}}{{\sqrt{{{factored.root}}}}}"
            if factored.divide
            else latex_number(factored.factor)
        )
        return f"{prefix} {body}"
    return latex_number(value)


def decimal_value_text(value: ExampleValue) -> str | None:
    """The decimal rendering, or None when every entry is an integer (nothing to add)."""
    if all(is_integer(v) for v in entries(value)):
        return None
    if isinstance(value, sympy.MatrixBase):
        # Fewer digits in a matrix keep its columns readable.
        cells = [[decimal_text(v, 6) for v in value.row(i)] for i in range(value.rows)]
        return "\n".join(_grid(cells))
    if isinstance(value, tuple):
        return _tuple_text([decimal_text(v) for v in value])
    return decimal_text(value)


def json_value(value: ExampleValue) -> dict[str, Any]:
    """``exact`` (SymPy strings), ``decimal`` (floats or None) and ``display`` (the text)."""
    if isinstance(value, sympy.MatrixBase):
        exact: Any = [[sympy.sstr(v) for v in value.row(i)] for i in range(value.rows)]
        decimals: Any = [[decimal(v) for v in value.row(i)] for i in range(value.rows)]
    elif isinstance(value, tuple):
        exact = [sympy.sstr(v) for v in value]
        decimals = [decimal(v) for v in value]
    else:
        exact, decimals = sympy.sstr(value), decimal(value)
    return {"exact": exact, "decimal": decimals, "display": text_value(value)}
