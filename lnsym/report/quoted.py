"""Numbers quoted from a source document, in the form the source writes them.

A source review compares the numbers a document prints with the exact values lnsym computes.
The document's numbers are kept as written — ``"0.36"``, ``"(-4, -1, 5)/√17"``,
``"(-√0.9, √0.9)"``, ``"≈ 9.9995"`` — so a reader finds them again in the source, and
:func:`quote` reads such a string into its exact value and its LaTeX form. The grammar is
small and parsed by hand (no ``eval``, no SymPy parser)::

    quoted  := ["≈"] (vector | scalar)
    vector  := "(" scalar ("," scalar)* ")" ["/" factor]
    scalar  := ["-"] factor ["/" factor]
    factor  := ["√"] number | "10^" ["-"] digits
    number  := digits ["." digits]

An approximate number (``≈``) agrees with an exact value that rounds to it at the digits
given; every other number must be equal exactly.

>>> q = quote("(-2/√3, 0, 2/√3)")
>>> q.value
(-2*sqrt(3)/3, 0, 2*sqrt(3)/3)
>>> print(q.latex)
\\left(-2/\\sqrt{3}, 0, 2/\\sqrt{3}\\right)
>>> quote("≈ 9.9995").agrees(1000 / sympy.sqrt(10001)), quote("0.36").agrees(sympy.Rational(9, 25))
(True, True)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

import sympy

from lnsym.exact.examples import ExampleValue, same_value

_TOKEN = re.compile(r"\s*(≈|\(|\)|,|/|√|-|−|10\^[-−]?\d+|\d+(?:\.\d+)?)", re.ASCII)


class QuoteError(ValueError):
    """A quoted number that does not follow the grammar (a mistake in the review's data)."""


@dataclass(frozen=True)
class Quoted:
    """A number as a source writes it: the text, its exact value and its LaTeX.

    ``decimals`` is the number of digits after the point of an approximate number.
    """

    text: str
    value: ExampleValue
    latex: str
    approximate: bool = False
    decimals: int = 0

    def agrees(self, exact: ExampleValue) -> bool:
        """Whether ``exact`` is this number: equal, or rounding to it when approximate."""
        if not self.approximate:
            return same_value(exact, self.value)
        if isinstance(exact, tuple | sympy.MatrixBase):
            return False
        tolerance = sympy.Rational(1, 2 * 10**self.decimals)
        return bool(sympy.Abs(exact - self.value) <= tolerance)


def quote(text: str) -> Quoted:
    """Read a quoted number (see the module docstring for the grammar).

    Raises:
        QuoteError: for text outside the grammar.
    """
    tokens = _tokens(text)
    parser = _Parser(tokens, text)
    approximate = parser.accept("≈")
    if parser.peek() == "(":
        value, latex = parser.vector()
    else:
        number, latex = parser.scalar()
        value = number
    parser.end()
    if approximate:
        if isinstance(value, tuple):
            raise QuoteError(f"{text!r}: only a single number can be approximate")
        decimals = len(text.partition(".")[2])
        return Quoted(text, value, rf"\approx {latex}", True, decimals)
    return Quoted(text, value, latex)


def _tokens(text: str) -> list[str]:
    tokens, position = [], 0
    stripped = text.rstrip()
    while position < len(stripped):
        match = _TOKEN.match(stripped, position)
        if match is None:
            raise QuoteError(f"{text!r}: cannot read {stripped[position:]!r}")
        tokens.append(match.group(1).replace("−", "-"))
        position = match.end()
    return tokens


class _Parser:
    """A recursive-descent reader over the tokens of one quoted number."""

    def __init__(self, tokens: list[str], text: str) -> None:
        self.tokens, self.text, self.index = tokens, text, 0

    def peek(self) -> str | None:
        return self.tokens[self.index] if self.index < len(self.tokens) else None

    def accept(self, token: str) -> bool:
        if self.peek() == token:
            self.index += 1
            return True
        return False

    def expect(self, token: str) -> None:
        if not self.accept(token):
            raise QuoteError(f"{self.text!r}: expected {token!r} at {self.peek()!r}")

    def end(self) -> None:
        if self.peek() is not None:
            raise QuoteError(f"{self.text!r}: unexpected {self.peek()!r}")

    def vector(self) -> tuple[tuple[sympy.Expr, ...], str]:
        self.expect("(")
        entries = [self.scalar()]
        while self.accept(","):
            entries.append(self.scalar())
        self.expect(")")
        values = tuple(v for v, _ in entries)
        latex = r"\left(" + ", ".join(t for _, t in entries) + r"\right)"
        if self.accept("/"):
            divisor, divisor_latex = self.factor()
            values = tuple(v / divisor for v in values)
            latex += f" / {divisor_latex}"
        return values, latex

    def scalar(self) -> tuple[sympy.Expr, str]:
        sign = -1 if self.accept("-") else 1
        value, latex = self.factor()
        if self.accept("/"):
            divisor, divisor_latex = self.factor()
            if value.is_Integer and divisor.is_Integer:
                latex = rf"\frac{{{latex}}}{{{divisor_latex}}}"
            else:
                latex = f"{latex}/{divisor_latex}"
            value = value / divisor
        return sign * value, ("-" if sign < 0 else "") + latex

    def factor(self) -> tuple[sympy.Expr, str]:
        root = self.accept("√")
        token = self.peek()
        if token is None or not (token[0].isdigit()):
            raise QuoteError(f"{self.text!r}: expected a number at {token!r}")
        self.index += 1
        if token.startswith("10^"):
            exponent = int(token[3:])
            value: sympy.Expr = sympy.Rational(10) ** exponent
            latex = f"10^{{{exponent}}}"
        else:
            exact = Fraction(token)  # digits with an optional decimal point, nothing else
            value = sympy.Rational(exact.numerator, exact.denominator)
            latex = token
        if root:
            return sympy.sqrt(value), rf"\sqrt{{{latex}}}"
        return value, latex
