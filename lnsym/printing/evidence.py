"""Engine evidence in words: a counterexample's point and values as text, LaTeX and JSON.

Engines return exact values (:class:`~lnsym.engines.base.Counterexample`); this module is
where they become text. Reports are compared byte for byte, so this text is part of them.
Sentences for people write the values with the readable text printer (``8·√(5)/25``); the
JSON record keeps SymPy's text (``8*sqrt(5)/25``), which programs parse, beside LaTeX and
decimals.

>>> import sympy
>>> from lnsym.engines.base import Counterexample
>>> found = Counterexample(2, {"z": (sympy.Integer(0), sympy.Integer(1))},
...                        {"epsilon": sympy.Integer(1)}, sympy.sqrt(8) / 4, sympy.Integer(1), "eq")
>>> point_text(found)
'd = 2, z = (0, 1), ε = 1'
>>> counterexample_text(found)
'd = 2, z = (0, 1), ε = 1: lhs = √(2)/2 ≠ rhs = 1'
>>> counterexample_record(found)["lhs"], counterexample_record(found)["lhs_decimal"]
('sqrt(2)/2', '0.707106781187')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import sympy

from lnsym.engines.base import Counterexample, Evidence, ExactValue
from lnsym.ir.names import unicode_name
from lnsym.printing.text_printer import text

#: Digits of the decimal approximations shown next to exact values.
DECIMAL_DIGITS = 12


def point_text(found: Counterexample) -> str:
    """``d = 2, z = (0, 1), ε = 1``: the point, vectors then scalars, each by name."""
    where = [f"d = {found.d}"]
    where += [f"{unicode_name(a)} = {value_words(v)}" for a, v in sorted(found.vectors.items())]
    where += [f"{unicode_name(s)} = {value_words(v)}" for s, v in sorted(found.scalars.items())]
    return ", ".join(where)


def counterexample_text(found: Counterexample, limit: int = 80) -> str:
    """The point and both sides, each side cut to about ``limit`` characters."""
    relation = ">" if found.relation == "le" else "≠"
    lhs, rhs = (_short(value_words(side), limit) for side in (found.lhs, found.rhs))
    return f"{point_text(found)}: lhs = {lhs} {relation} rhs = {rhs}"


def counterexample_record(found: Counterexample) -> dict[str, Any]:
    """The JSON record of a counterexample: exact values as text, LaTeX and decimals."""
    return {
        "d": found.d,
        "vectors": {a: [str(x) for x in v] for a, v in sorted(found.vectors.items())},
        "scalars": {s: str(v) for s, v in sorted(found.scalars.items())},
        "lhs": value_text(found.lhs),
        "rhs": value_text(found.rhs),
        "lhs_latex": value_latex(found.lhs),
        "rhs_latex": value_latex(found.rhs),
        "lhs_decimal": value_decimal(found.lhs),
        "rhs_decimal": value_decimal(found.rhs),
    }


def evidence_json(evidence: Evidence) -> dict[str, Any]:
    """One engine's evidence as JSON (``lnsym verify --json``)."""
    record = {
        "engine": evidence.engine,
        "outcome": evidence.outcome,
        "detail": evidence.detail,
        "seconds": round(evidence.seconds, 6),
        **evidence.data,
    }
    if evidence.counterexample is not None:
        record["counterexample"] = counterexample_record(evidence.counterexample)
    return record


def value_text(value: ExactValue) -> str:
    """``(-sqrt(2)/2, sqrt(2)/2)``: SymPy's text of each (tidied) entry, for programs."""
    return _each(value, str)


def value_words(value: ExactValue) -> str:
    """``(-√(2)/2, √(2)/2)``: each (tidied) entry by the readable text printer, for people."""
    return _each(value, lambda x: text(x, readable=True))


def value_latex(value: ExactValue) -> str:
    if isinstance(value, tuple):
        return r"\left(" + ", ".join(sympy.latex(_tidy(x)) for x in value) + r"\right)"
    return sympy.latex(_tidy(value))


def value_decimal(value: ExactValue) -> str:
    return _each(value, lambda x: str(sympy.N(x, DECIMAL_DIGITS)))


def _each(value: ExactValue, fmt: Callable[[sympy.Expr], str]) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(fmt(_tidy(x)) for x in value) + ")"
    return fmt(_tidy(value))


def _tidy(x: sympy.Expr) -> sympy.Expr:
    # Denominators free of roots: 1/√5 reads √5/5, as in the worked examples.
    return x if x.is_Rational else sympy.radsimp(x)


def _short(s: str, limit: int) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"
