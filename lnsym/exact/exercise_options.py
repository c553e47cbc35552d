"""The options of an exercise sheet: count, seed and range of d, read and checked.

The ``lnsym exercises`` options arrive as text (:func:`parse_count`, :func:`parse_seed`,
:func:`parse_dimensions`); :func:`check_options` holds the same bounds for callers of the
API. Every refusal is a :class:`~lnsym.errors.UserInputError` naming the option.
"""

from __future__ import annotations

import re

from lnsym.errors import UserInputError

#: The most exercises one sheet may have.
MAX_COUNT = 100
#: The largest dimension an exercise may have (matrices have d² entries).
MAX_D = 8
#: The default range of dimensions.
DEFAULT_DIMENSIONS = (2, 4)
#: The largest seed accepted.
MAX_SEED = 2**32 - 1


def parse_dimensions(text: str) -> tuple[int, int]:
    """A ``--d`` value: a range ``A..B`` (or one dimension ``A``) within 1..:data:`MAX_D`.

    Exercises need d ≥ 2 (at d = 1 every centered quantity is zero), so the range must
    reach 2; a range starting at 1 draws from 2 upwards.

    Raises:
        UserInputError: for anything else.

    >>> parse_dimensions("2..4"), parse_dimensions(" 3 ")
    ((2, 4), (3, 3))
    """
    match = re.fullmatch(r"\s*([0-9]+)\s*(?:\.\.\s*([0-9]+)\s*)?", text, flags=re.ASCII)
    if match is None or len(text) > 20:
        raise UserInputError(f"--d: expected a range such as 2..4 within 1..{MAX_D}, got {text!r}")
    low = int(match.group(1))
    high = int(match.group(2)) if match.group(2) is not None else low
    if not 1 <= low <= high <= MAX_D:
        raise UserInputError(f"--d: the range must satisfy 1 ≤ A ≤ B ≤ {MAX_D}, got {text!r}")
    if high < 2:
        raise UserInputError(f"--d {text.strip()}: every exercise needs d ≥ 2")
    return low, high


def parse_count(text: str) -> int:
    """A ``--count`` value: an integer from 1 to :data:`MAX_COUNT`.

    Raises:
        UserInputError: for anything else.

    >>> parse_count("12")
    12
    """
    return _parse_integer(text, "--count", 1, MAX_COUNT)


def parse_seed(text: str) -> int:
    """A ``--seed`` value: an integer from 0 to :data:`MAX_SEED`.

    Raises:
        UserInputError: for anything else.
    """
    return _parse_integer(text, "--seed", 0, MAX_SEED)


def _parse_integer(text: str, option: str, low: int, high: int) -> int:
    token = text.strip()
    if len(token) > 20 or not re.fullmatch(r"\+?[0-9]+", token, flags=re.ASCII):
        raise UserInputError(f"{option}: expected an integer from {low} to {high}, got {text!r}")
    value = int(token)
    if not low <= value <= high:
        raise UserInputError(f"{option}: expected an integer from {low} to {high}, got {text!r}")
    return value


def check_options(count: int, seed: int, dimensions: tuple[int, int]) -> None:
    """The arguments of :func:`~lnsym.exact.exercises.generate_sheet`, checked.

    Raises:
        UserInputError: for a count, seed or range out of bounds (worded as the options).
    """
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
        raise UserInputError(f"--count: expected 1 to {MAX_COUNT} exercises, got {count!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise UserInputError(f"--seed: expected an integer from 0 to {MAX_SEED}, got {seed!r}")
    low, high = dimensions
    parse_dimensions(f"{low}..{high}")
