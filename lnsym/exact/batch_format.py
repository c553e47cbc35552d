"""Fast text and decimals for the many entries of a batch example, in the vector style.

A batch of 64 × 64 has thousands of entries, nearly all of the form r·√k; SymPy's printer
and its certified evaluation take about a millisecond for each. The functions here write
such values directly — the same text as ``sympy.sstr``,
:func:`lnsym.exact.value_format.text_number` and
:func:`~lnsym.exact.value_format.text_value`, the same decimals as
:func:`lnsym.exact.values.decimal_text` (tests hold them to that) — and print every other
value once through SymPy.
Decimals are certified: each term is evaluated to 50 digits with :mod:`decimal` and the
result used only if its error bound leaves 10 significant digits certain.

>>> v = (-4 / sympy.sqrt(17), -1 / sympy.sqrt(17), 5 / sympy.sqrt(17))
>>> row_text(v), row_decimals(v)
('(-4, -1, 5)/√17', '(-0.9701425001, -0.242535625, 1.212678125)')
"""

from __future__ import annotations

import decimal
import functools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import sympy

from lnsym.exact.surds import Surd, from_sympy
from lnsym.exact.values import decimal as certified_decimal
from lnsym.exact.values import decimal_text

_CONTEXT = decimal.Context(prec=50)
_FLOAT_RANGE = (decimal.Decimal("1e-300"), decimal.Decimal("1e300"))


def _single(v: sympy.Expr) -> tuple[Fraction, int] | None:
    """(c, k) with v = c·√k (k = 1 for a rational), or None for another form."""
    s = from_sympy(v)
    if s is None or len(s.terms) > 1:
        return None
    if not s.terms:
        return Fraction(0), 1
    ((k, c),) = s.terms.items()
    return c, k


def _rational_text(c: Fraction) -> str:
    return str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"


@functools.lru_cache(maxsize=1 << 12)
def _sstr(v: sympy.Expr) -> str:
    """SymPy's text of a value of another form (such as ∂ℓ/∂γⱼ, a sum over rows of
    different surds), once: text and JSON show it twice."""
    return str(sympy.sstr(v))


def exact_text(v: sympy.Expr) -> str:
    """``sympy.sstr(v)`` (the exact strings of JSON), fast for c·√k."""
    single = _single(v)
    if single is None:
        return _sstr(v)
    c, k = single
    if k == 1:
        return _rational_text(c)
    p, q = c.numerator, c.denominator
    head = f"sqrt({k})" if abs(p) == 1 else f"{abs(p)}*sqrt({k})"
    return ("-" if p < 0 else "") + head + ("" if q == 1 else f"/{q}")


def number_text(v: sympy.Expr) -> str:
    """:func:`~lnsym.exact.value_format.text_number` of ``v``, fast for c·√k."""
    single = _single(v)
    if single is None:
        # text_number's rewriting of SymPy's text, on the cached text.
        out = _sstr(v).replace("**", "^")
        out = re.sub(r"sqrt\((\d+)\)", r"√\1", out).replace("sqrt(", "√(")
        return out.replace("*", "·")
    c, k = single
    if k == 1:
        return _rational_text(c)
    p, q = c.numerator, c.denominator
    head = "√" + str(k) if abs(p) == 1 else f"{abs(p)}·√{k}"
    return ("-" if p < 0 else "") + head + ("" if q == 1 else f"/{q}")


@dataclass(frozen=True)
class _Factored:
    """values = entries/√k (``divide``) or content·√k·entries: a common surd pulled out."""

    entries: list[Fraction]
    root: int
    content: Fraction
    divide: bool


def _factor(values: Sequence[sympy.Expr]) -> _Factored | None:
    """The common surd of values that are all rational multiples of one √k (k > 1), as
    :mod:`lnsym.exact.value_format` pulls it out; None otherwise."""
    parts = [_single(v) for v in values]
    pairs = [p for p in parts if p is not None]
    if len(pairs) < len(parts):
        return None
    roots = {k for c, k in pairs if c}
    if sum(1 for c, _ in pairs if c) < 2 or len(roots) != 1 or roots == {1}:
        return None
    (k,) = roots
    coefficients = [c for c, _ in pairs]
    scaled = [c * k for c in coefficients]
    if all(s.denominator == 1 for s in scaled):
        return _Factored(scaled, k, Fraction(1), divide=True)
    content = Fraction(
        math.gcd(*(c.numerator for c in coefficients)),
        math.lcm(*(c.denominator for c in coefficients)),
    )
    return _Factored([c / content for c in coefficients], k, content, divide=False)


def _surd(c: Fraction, k: int) -> sympy.Expr:
    return sympy.Rational(c.numerator, c.denominator) * sympy.sqrt(k)


def row_text(values: Sequence[sympy.Expr]) -> str:
    """:func:`~lnsym.exact.value_format.text_value` of a vector: a common surd pulled out."""
    factored = _factor(values)
    if factored is None:
        return "(" + ", ".join(number_text(v) for v in values) + ")"
    inner = "(" + ", ".join(_rational_text(c) for c in factored.entries) + ")"
    if factored.divide:
        return f"{inner}/√{factored.root}"
    return f"({number_text(_surd(factored.content, factored.root))})·{inner}"


def number_latex(v: sympy.Expr) -> str:
    """:func:`~lnsym.exact.value_format.latex_number` (``sympy.latex``), fast for c·√k."""
    single = _single(v)
    if single is None:
        return _latex(v)
    c, k = single
    sign = "- " if c < 0 else ""
    p, q = abs(c.numerator), c.denominator
    if k == 1:
        return (
            f"-{p}" if q == 1 and c < 0 else (str(p) if q == 1 else sign + rf"\frac{{{p}}}{{{q}}}")
        )
    top = rf"\sqrt{{{k}}}" if p == 1 else rf"{p} \sqrt{{{k}}}"
    return sign + (top if q == 1 else rf"\frac{{{top}}}{{{q}}}")


@functools.lru_cache(maxsize=1 << 12)
def _latex(v: sympy.Expr) -> str:
    return str(sympy.latex(v))


def _latex_rational(c: Fraction) -> str:
    return number_latex(sympy.Rational(c.numerator, c.denominator))


def value_latex(value: tuple[sympy.Expr, ...] | sympy.MatrixBase | sympy.Expr) -> str:
    """:func:`~lnsym.exact.value_format.latex_value`: a number, a vector or a matrix."""
    if isinstance(value, sympy.MatrixBase):
        entries = list(value)
        factored = _factor(entries)
        shown = (
            [number_latex(v) for v in entries]
            if factored is None
            else [_latex_rational(c) for c in factored.entries]
        )
        rows = [" & ".join(shown[i * value.cols : (i + 1) * value.cols]) for i in range(value.rows)]
        body = r"\begin{pmatrix} " + r" \\ ".join(rows) + r" \end{pmatrix}"
        if factored is None:
            return body
        prefix = (
            rf"\frac{{1}}{{\sqrt{{{factored.root}}}}}"
            if factored.divide
            else number_latex(_surd(factored.content, factored.root))
        )
        return f"{prefix} {body}"
    if isinstance(value, tuple):
        factored = _factor(value)
        if factored is None:
            return r"\left(" + ", ".join(number_latex(v) for v in value) + r"\right)"
        inner = r"\left(" + ", ".join(_latex_rational(c) for c in factored.entries) + r"\right)"
        if factored.divide:
            return rf"{inner} / \sqrt{{{factored.root}}}"
        return f"{number_latex(_surd(factored.content, factored.root))} {inner}"
    return number_latex(value)


def _approximate(s: Surd) -> decimal.Decimal | None:
    """The value to 50 digits, or None unless its first 15 significant digits are certain."""
    total, bound = decimal.Decimal(0), decimal.Decimal(0)
    for k, c in s.terms.items():
        root = _CONTEXT.sqrt(decimal.Decimal(k))
        term = _CONTEXT.divide(_CONTEXT.multiply(decimal.Decimal(c.numerator), root),
                               decimal.Decimal(c.denominator))  # fmt: skip
        total = _CONTEXT.add(total, term)
        bound += abs(term)
    if s.is_zero():
        return decimal.Decimal(0)
    if abs(total) <= bound * decimal.Decimal("1e-30"):  # cancellation: digits not certain
        return None
    return total


def float_value(v: sympy.Expr) -> float | None:
    """:func:`lnsym.exact.values.decimal` of ``v`` (a float, or None), fast for Σ cₖ·√kₖ."""
    s = from_sympy(v)
    value = None if s is None else _approximate(s)
    if value is None or (value and not _FLOAT_RANGE[0] < abs(value) < _FLOAT_RANGE[1]):
        return certified_decimal(v)
    return float(value)


def number_decimal(v: sympy.Expr) -> str:
    """:func:`lnsym.exact.values.decimal_text` of ``v``, fast for Σ cₖ·√kₖ."""
    s = from_sympy(v)
    value = None if s is None else _approximate(s)
    if value is None or (value and not _FLOAT_RANGE[0] < abs(value) < _FLOAT_RANGE[1]):
        return decimal_text(v)
    return f"{float(value):.10g}"


def row_decimals(values: Sequence[sympy.Expr]) -> str | None:
    """The decimals of a vector as text; None when every entry is an integer."""
    if all(v.is_Integer for v in values):
        return None
    return "(" + ", ".join(number_decimal(v) for v in values) + ")"
