"""Safe parsing of user numbers and vectors — no ``eval``, no SymPy parser.

Accepted numbers: integers (``-3``), decimals (``0.25``, ``1e-4``), fractions (``2/3``), all
in ASCII digits. A vector is a comma-separated list of such numbers, optionally inside one
pair of parentheses or brackets. Everything else is refused with a
:class:`~lnsym.errors.UserInputError` naming the input.

>>> parse_number("2/3"), parse_number("-0.25"), parse_number("1e-4")
(Fraction(2, 3), Fraction(-1, 4), Fraction(1, 10000))
>>> parse_vector("(1, -2/3, 0.5)")
[Fraction(1, 1), Fraction(-2, 3), Fraction(1, 2)]
"""

from __future__ import annotations

import re
from fractions import Fraction

from lnsym.errors import UserInputError

_INTEGER = r"[+-]?\d+"
_DECIMAL = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"
# ASCII only: with Unicode \d, digits such as "٣" would slip through as numbers.
_NUMBER = re.compile(rf"(?:{_DECIMAL})|(?:{_INTEGER}/\d+)", re.ASCII)
_MAX_LENGTH = 100
_MAX_EXPONENT = 400
#: The most entries :func:`parse_vector` accepts.
MAX_ENTRIES = 10_000
_CLOSING = {"(": ")", "[": "]"}


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
            f"not a number: {_shown(value)} "
            "(use an integer, a decimal like 0.25, or a fraction like 2/3)"
        )
    _, _, exponent = token.lower().partition("e")
    if exponent and abs(int(exponent)) > _MAX_EXPONENT:
        raise UserInputError(f"exponent out of range in {_shown(value)} (at most ±{_MAX_EXPONENT})")
    if "/" in token:
        numerator, denominator = token.split("/")
        if int(denominator) == 0:
            raise UserInputError(f"zero denominator in {_shown(value)}")
        return Fraction(int(numerator), int(denominator))
    return Fraction(token)


def parse_vector(text: str) -> list[Fraction]:
    """Exact rationals from a comma-separated list such as ``1, -2/3, 0.5``.

    One pair of surrounding parentheses or brackets is allowed: ``(1,2,3)``, ``[1,2,3]``.

    Args:
        text: the user's text.

    Returns:
        The entries as fractions, at least one and at most :data:`MAX_ENTRIES`.

    Raises:
        UserInputError: for an empty vector or entry, unbalanced brackets, too many entries,
            or an entry that :func:`parse_number` refuses.

    >>> parse_vector("1,2,3")
    [Fraction(1, 1), Fraction(2, 1), Fraction(3, 1)]
    >>> parse_vector("1,,2")
    Traceback (most recent call last):
    ...
    lnsym.errors.UserInputError: empty entry 2 in the vector '1,,2'
    """
    if not isinstance(text, str):
        raise UserInputError(f"expected text, got {type(text).__name__}")
    body = text.strip()
    # Refuse absurd input before splitting it (each entry takes at least one character).
    if len(body) > MAX_ENTRIES * (_MAX_LENGTH + 2) or body.count(",") >= MAX_ENTRIES:
        raise UserInputError(f"too many entries in the vector (at most {MAX_ENTRIES})")
    if body[:1] in _CLOSING:
        if body[-1:] != _CLOSING[body[0]]:
            raise UserInputError(f"unbalanced brackets in the vector {_shown(text)}")
        body = body[1:-1].strip()
    elif body[-1:] in _CLOSING.values():
        raise UserInputError(f"unbalanced brackets in the vector {_shown(text)}")
    if not body:
        raise UserInputError(f"empty vector {_shown(text)}: give numbers such as 1,2,3")
    entries: list[Fraction] = []
    for index, part in enumerate(body.split(","), start=1):
        if not part.strip():
            raise UserInputError(f"empty entry {index} in the vector {_shown(text)}")
        try:
            entries.append(parse_number(part))
        except UserInputError as exc:
            raise UserInputError(f"entry {index} of the vector: {exc}") from None
    return entries


def _shown(text: str, limit: int = 60) -> str:
    """``repr`` of user text, shortened so that an error stays one readable line."""
    return repr(text if len(text) <= limit else text[:limit] + "…")


#: The longest time budget, in seconds (about 11.6 days): the interval timer that enforces
#: budgets overflows a little beyond 10⁹ s, and no check needs that long.
MAX_SECONDS = 1_000_000


def parse_seconds(value: str) -> float:
    """A time budget in seconds: a number (as :func:`parse_number` reads it)
    that is positive, at most :data:`MAX_SECONDS`, and not rounded to 0 as a float.

    Used by ``--timeout``, ``--total-timeout`` and the pytest plugin's ``lnsym_timeout``.

    Raises:
        UserInputError: for anything else (``nan``, ``inf``, ``0``, ``1e400``, ``1e-400``).

    >>> parse_seconds("1/4"), parse_seconds("1e3")
    (0.25, 1000.0)
    """
    number = parse_number(value)  # exact: refuses nan and inf, and never overflows
    if number <= 0:
        raise UserInputError(f"expected a positive number of seconds, got {value!r}")
    if number > MAX_SECONDS:
        raise UserInputError(f"{value!r}: a time budget is at most {MAX_SECONDS} seconds")
    seconds = float(number)
    if seconds == 0:
        raise UserInputError(f"{value!r}: too small, it rounds to 0 seconds")
    return seconds
