"""The tokens of the expression language, and the limits on the text it reads.

A token is a number (an exact SymPy ``Integer`` or ``Rational`` made from ``int()`` of its
digits), a name (a Greek letter stands for the name it abbreviates), an operator, or the
end of the input:

>>> [(t.kind, t.text, t.value) for t in tokenize("0.5*ε")]
[('number', '0.5', 1/2), ('op', '*', None), ('name', 'ε', 'eps'), ('end', '', None)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import sympy

from lnsym.language.messages import language_error, quote

#: The longest text :func:`~lnsym.language.parse_expression` reads, in characters.
MAX_LENGTH = 2000
#: The deepest nesting of parentheses, calls and powers, and the deepest IR tree it builds.
MAX_DEPTH = 100
#: The longest name, in characters (the IR's limit).
MAX_NAME = 32
#: The longest number, in characters, and the largest power of ten in ``1e-5`` notation.
MAX_NUMBER = 100
MAX_DECIMAL_EXPONENT = 400
#: Exponents of ``^`` are rationals p/q with |p| and q at most this.
MAX_EXPONENT = 1000
#: A power of a number may not need more bits than this (``(10^500)^1000`` is refused).
MAX_BITS = 100_000

_WHITESPACE = " \t\r\n"
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
#: A name of the language (names starting with ``_`` are then refused).
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WORD = re.compile(r"[A-Za-z0-9_.]+")
_OPERATORS = ("**", "+", "-", "*", "/", "^", "(", ")", ",")
#: One-letter synonyms: ε for eps, γ and β for the names gamma and beta.
GREEK = {"ε": "eps", "ϵ": "eps", "γ": "gamma", "β": "beta"}


@dataclass(frozen=True, slots=True)
class Token:
    """A token: ``kind`` is "number", "name", "op" or "end"; ``start`` is a 0-based index."""

    kind: str
    text: str
    start: int
    value: Any = None  # the exact number, or the name a Greek letter stands for


def tokenize(text: str) -> list[Token]:
    """The tokens of ``text``, ending with an "end" token; a character outside the language
    (or a reserved, too long or malformed name or number) is a LanguageError at once."""
    out: list[Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            i += 1
            continue
        if ch.isascii() and (ch.isdigit() or ch == "."):
            out.append(_number(text, i))
        elif ch.isascii() and (ch.isalpha() or ch == "_"):
            match = NAME.match(text, i)
            assert match is not None
            word = match.group()
            if word.startswith("_"):
                raise language_error(
                    text, i, f'names starting with "_" are reserved for lnsym ({quote(word)})'
                )
            if len(word) > MAX_NAME:
                raise language_error(
                    text, i, f"the name {quote(word)} is too long (at most {MAX_NAME} characters)"
                )
            out.append(Token("name", word, i, word))
        elif ch in GREEK:
            out.append(Token("name", ch, i, GREEK[ch]))
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is None:
                raise language_error(text, i, f"unexpected character {quote(ch)}")
            out.append(Token("op", op, i))
        i = out[-1].start + len(out[-1].text)
    out.append(Token("end", "", n))
    return out


def _number(text: str, i: int) -> Token:
    """The number at ``text[i]``: digits, an optional fraction and an optional e-exponent."""
    match = _NUMBER.match(text, i)
    if match is None or _WORD.match(text, match.end()):
        # "2z", "1.2.3", "1e", "." — a product needs *, a number has one point.
        word = _WORD.match(text, i)
        assert word is not None
        raise language_error(
            text,
            i,
            f"malformed number {quote(word.group())} (numbers look like 3, 0.25 or 1e-5; "
            "a product needs *)",
        )
    literal = match.group()
    if len(literal) > MAX_NUMBER:
        raise language_error(
            text, i, f"the number {quote(literal)} is too long (at most {MAX_NUMBER} characters)"
        )
    mantissa, _, exponent_text = literal.lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    exponent = int(exponent_text) if exponent_text else 0
    if abs(exponent) > MAX_DECIMAL_EXPONENT:
        raise language_error(
            text,
            i,
            f"the exponent of {quote(literal)} is out of range (at most ±{MAX_DECIMAL_EXPONENT})",
        )
    digits = int((whole or "0") + fraction)
    shift = exponent - len(fraction)
    if shift >= 0:
        value = sympy.Integer(digits * 10**shift)
    else:
        value = sympy.Rational(digits, 10**-shift)
    return Token("number", literal, i, value)
