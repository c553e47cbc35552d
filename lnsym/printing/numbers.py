r"""Exact rationals, vectors and matrices as LaTeX math (for KaTeX and pdfLaTeX alike).

A vector or matrix with fractional entries is written as a fraction times coprime integers,
the way one would write it by hand:

>>> from fractions import Fraction as F
>>> latex_number(F(-7, 3))
'-\\frac{7}{3}'
>>> latex_vector([F(-4, 3), F(-1, 3), F(5, 3)])
'\\frac{1}{3}\\left(-4, -1, 5\\right)'
>>> latex_vector([F(-4, 3), F(2, 3), F(2, 3)])
'\\frac{2}{3}\\left(-2, 1, 1\\right)'
>>> latex_vector([1, F(1, 2), 0])
'\\left(1, \\tfrac{1}{2}, 0\\right)'
>>> latex_matrix([[F(1, 2), F(-1, 2)], [F(-1, 2), F(1, 2)]])
'\\frac{1}{2}\\begin{pmatrix} 1 & -1 \\\\ -1 & 1 \\end{pmatrix}'
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

Rational = int | Fraction


def latex_number(x: Rational, *, small: bool = False) -> str:
    """An exact rational: ``3``, ``-3``, ``\\frac{7}{3}`` (``\\tfrac`` when ``small``).

    Args:
        x: an int or a Fraction.
        small: use ``\\tfrac`` (for entries inside a vector or matrix).

    Returns:
        The LaTeX math text.
    """
    value = Fraction(x)
    if value.denominator == 1:
        return str(value.numerator)
    sign = "-" if value < 0 else ""
    frac = r"\tfrac" if small else r"\frac"
    return f"{sign}{frac}{{{abs(value.numerator)}}}{{{value.denominator}}}"


def _common_factor(values: Sequence[Rational]) -> Fraction:
    """c = g/D to write the entries as c times coprime integers, or 1 to leave them alone.

    D is the lcm of the denominators and g the gcd of the numerators over D; entries are
    factored only when at least two of them are fractions.
    """
    fractions = [Fraction(v) for v in values]
    if sum(1 for v in fractions if v.denominator > 1) < 2:
        return Fraction(1)
    denominator = math.lcm(*(v.denominator for v in fractions))
    numerator = math.gcd(*(int(v * denominator) for v in fractions))
    return Fraction(numerator, denominator)


def _factored(body: str, factor: Fraction) -> str:
    return body if factor == 1 else latex_number(factor) + body


def latex_vector(values: Sequence[Rational], *, inline: bool = False) -> str:
    """A vector as a parenthesized tuple, with a common fraction pulled out.

    Args:
        values: the entries.
        inline: for running text: plain parentheses, which (unlike ``\\left(...\\right)``)
            do not make the vector one unbreakable box, and small fractions.

    Returns:
        The LaTeX math text.

    >>> print(latex_vector([1, 2]), latex_vector([1, 2], inline=True))
    \\left(1, 2\\right) (1, 2)
    """
    factor = _common_factor(values)
    entries = ", ".join(latex_number(Fraction(v) / factor, small=True) for v in values)
    if inline:
        return ("" if factor == 1 else latex_number(factor, small=True)) + f"({entries})"
    return _factored(r"\left(" + entries + r"\right)", factor)


def latex_matrix(rows: Sequence[Sequence[Rational]]) -> str:
    """A matrix as ``pmatrix``, with a common fraction pulled out.

    Args:
        rows: the rows, each a sequence of entries.

    Returns:
        The LaTeX math text.
    """
    factor = _common_factor([v for row in rows for v in row])
    lines = [
        " & ".join(latex_number(Fraction(v) / factor, small=True) for v in row) for row in rows
    ]
    return _factored(r"\begin{pmatrix} " + r" \\ ".join(lines) + r" \end{pmatrix}", factor)


def latex_value(value: Rational | Sequence[Rational] | Sequence[Sequence[Rational]]) -> str:
    """A number, a vector (a flat sequence) or a matrix (a sequence of rows) as LaTeX.

    >>> print(latex_value((1, 2)), latex_value(Fraction(1, 2)))
    \\left(1, 2\\right) \\frac{1}{2}
    """
    if isinstance(value, int | Fraction):
        return latex_number(value)
    if value and not isinstance(value[0], int | Fraction):
        return latex_matrix(value)  # type: ignore[arg-type]
    return latex_vector(value)  # type: ignore[arg-type]
