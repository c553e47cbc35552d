"""Safe parsing of user numbers and vectors — no ``eval``, no SymPy parser.

Accepted forms: integers (``-3``), decimals (``0.25``, ``1e-4``), fractions (``2/3``).
Everything else is refused with a :class:`~lnsym.errors.UserInputError` naming the input.

>>> parse_number("2/3"), parse_number("-0.25"), parse_number("1e-4")
(Fraction(2, 3), Fraction(-1, 4), Fraction(1, 10000))
"""

from __future__ import annotations

import re
from fractions import Fraction

from lnsym.errors import UserInputError

_INTEGER = r"[+-]?\d+"
_DECIMAL = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
_NUMBER = re.compile(rf"(?:{_DECIMAL})|(?:{_INTEGER}/\d+)")
_MAX_LENGTH = 100
_MAX_EXPONENT = 400


def parse_number(value: str) -> Fraction:
    """An exact rational from an integer, decimal or fraction ``a/b``.

    Raises:
        UserInputError: for anything else, including a zero denominator.
    """
    if not isinstance(value, str):
        raise UserInputError(f"expected text, got {type(value).__name__}")
    token = value.strip()
    if len(token) > _MAX_LENGTH or not _NUMBER.fullmatch(token):
        raise UserInputError(
            f"not a number: {value!r} (use an integer, a decimal like 0.25, or a fraction like 2/3)"
        )
    _, _, exponent = token.lower().partition("e")
    if exponent and abs(int(exponent)) > _MAX_EXPONENT:
        raise UserInputError(f"exponent out of range in {value!r} (at most ±{_MAX_EXPONENT})")
    if "/" in token:
        numerator, denominator = token.split("/")
        if int(denominator) == 0:
            raise UserInputError(f"zero denominator in {value!r}")
        return Fraction(int(numerator), int(denominator))
    return Fraction(token)


def parse_positive_float(value: str) -> float:
    """A positive number as a float (for budgets and tolerances)."""
    number = parse_number(value)
    if number <= 0:
        raise UserInputError(f"expected a positive number, got {value!r}")
    return float(number)
