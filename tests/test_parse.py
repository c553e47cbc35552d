"""Tests for lnsym.parse: exact numbers and vectors from user text, without any evaluator."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym.errors import UserInputError
from lnsym.parse import MAX_ENTRIES, parse_number, parse_vector


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,2,3", [1, 2, 3]),
        ("1, -2/3, 0.5", [1, Fraction(-2, 3), Fraction(1, 2)]),
        ("(1,2,3)", [1, 2, 3]),
        ("[1, 2, 3]", [1, 2, 3]),
        ("  ( -0.6 , 0.6 )  ", [Fraction(-3, 5), Fraction(3, 5)]),
        ("7", [7]),
        ("1e-3,-1e-3", [Fraction(1, 1000), Fraction(-1, 1000)]),
        ("+4/6, .25, 3.", [Fraction(2, 3), Fraction(1, 4), 3]),
    ],
)
def test_parse_vector_accepts(text: str, expected: list[Fraction | int]) -> None:
    result = parse_vector(text)
    assert result == [Fraction(x) for x in expected]
    assert all(type(x) is Fraction for x in result)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty vector"),
        ("   ", "empty vector"),
        ("()", "empty vector"),
        ("[ ]", "empty vector"),
        ("1,,2", "empty entry 2"),
        (",1", "empty entry 1"),
        ("1,2,", "empty entry 3"),
        ("(1,2]", "unbalanced"),
        ("(1,2", "unbalanced"),
        ("1,2)", "unbalanced"),
        ("[[1,2]]", "entry 1"),
        ("1;2", "not a number"),
        ("1 2", "not a number"),
        ("x", "not a number"),
        ("1,sqrt(2),3", "entry 2 of the vector: not a number"),
        ("2**3", "not a number"),
        ("__import__('os').system('true')", "unbalanced"),
        ("exec('1') + 1", "not a number"),
        ("1/0", "zero denominator"),
        ("3/-4", "not a number"),
        ("0x10", "not a number"),
        ("1_000", "not a number"),
        ("nan", "not a number"),
        ("inf", "not a number"),
        ("\u0663", "not a number"),  # ARABIC-INDIC DIGIT THREE is not an ASCII digit
        ("1e999", "exponent out of range"),
    ],
)
def test_parse_vector_refuses(text: str, message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        parse_vector(text)


def test_parse_vector_entry_limit() -> None:
    assert len(parse_vector(",".join(["1"] * MAX_ENTRIES))) == MAX_ENTRIES
    with pytest.raises(UserInputError, match="too many entries"):
        parse_vector(",".join(["1"] * (MAX_ENTRIES + 1)))


def test_parse_vector_refuses_non_text() -> None:
    with pytest.raises(UserInputError, match="expected text"):
        parse_vector([1, 2])  # type: ignore[arg-type]


def test_error_messages_stay_short() -> None:
    with pytest.raises(UserInputError) as info:
        parse_vector("1," + "x" * 5000)
    assert len(str(info.value)) < 200
    assert "\n" not in str(info.value)


def test_parse_number_unchanged() -> None:
    assert parse_number("2/3") == Fraction(2, 3)
    assert parse_number(" -0.25 ") == Fraction(-1, 4)
    assert parse_number("1e-4") == Fraction(1, 10_000)
    with pytest.raises(UserInputError, match="not a number"):
        parse_number("1/2/3")


_fractions = st.fractions(max_denominator=10**6).filter(lambda f: abs(f.numerator) < 10**12)


@settings(max_examples=60, deadline=None)
@given(st.lists(_fractions, min_size=1, max_size=8), st.sampled_from(["{}", "({})", "[{}]"]))
def test_fraction_round_trip(values: list[Fraction], wrapper: str) -> None:
    text = wrapper.format(", ".join(str(v) for v in values))
    assert parse_vector(text) == values


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_arbitrary_text_gives_a_vector_or_a_user_error(text: str) -> None:
    try:
        result = parse_vector(text)
    except UserInputError:
        return
    assert result and all(isinstance(x, Fraction) for x in result)


def test_padding_does_not_bloat_messages() -> None:
    for text in ["1e999" + " " * 10_000, "1/0" + " " * 10_000]:
        with pytest.raises(UserInputError) as info:
            parse_number(text)
        assert len(str(info.value)) < 200
