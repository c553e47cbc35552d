"""Tests for lnsym.exact.surds (the exact arithmetic of the batch example's cross-check) and
lnsym.exact.batch_format (its fast text and decimals)."""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import lnsym.exact.batch_format as batch_format
import lnsym.exact.value_format as value_format
import lnsym.exact.values as exact_values
from lnsym.exact.surds import Surd, from_sympy

F = Fraction
rationals = st.fractions(min_value=-50, max_value=50, max_denominator=12)
radicands = st.integers(min_value=1, max_value=60)
surds = st.lists(st.tuples(radicands, rationals), max_size=3).map(
    lambda terms: sum((Surd({r: c}) for r, c in terms), Surd.rational(0))
)


def test_square_roots_of_rationals() -> None:
    assert Surd.sqrt(F(9, 4)).as_rational() == F(3, 2)
    assert Surd.sqrt(F(2, 3)).to_sympy() == sympy.sqrt(6) / 3
    assert Surd.sqrt(F(17, 9)).terms == {17: F(1, 3)}
    with pytest.raises(ValueError, match="negative"):
        Surd.sqrt(F(-1))


def test_equality_merges_radicands_of_one_square_class() -> None:
    assert Surd({8: F(1)}) == Surd({2: F(2)})
    assert (Surd({12: F(1)}) - Surd({27: F(1)}) + Surd({3: F(1)})).is_zero()  # 2√3 - 3√3 + √3
    assert Surd({2: F(1)}) != Surd({3: F(1)})
    assert not (Surd({2: F(1)}) + Surd({3: F(-1)})).is_zero()


def test_powers() -> None:
    x = Surd.rational(F(17, 9))
    assert x.power(F(-1, 2)).to_sympy() == 3 / sympy.sqrt(17)
    assert x.power(F(-3, 2)).to_sympy() == 27 * sympy.sqrt(17) / 289
    assert Surd({5: F(2)}).power(F(-2)).as_rational() == F(1, 20)
    with pytest.raises(ValueError):
        Surd.rational(0).power(F(-1, 2))
    with pytest.raises(ValueError):
        (Surd({2: F(1)}) + 1).power(F(1, 2))


@given(surds, surds)
def test_arithmetic_agrees_with_sympy(a: Surd, b: Surd) -> None:
    assert sympy.expand((a * b).to_sympy() - a.to_sympy() * b.to_sympy()) == 0
    assert sympy.expand((a - b).to_sympy() - (a.to_sympy() - b.to_sympy())) == 0
    assert (a - b).is_zero() == (sympy.expand(a.to_sympy() - b.to_sympy()) == 0)
    converted = from_sympy(a.to_sympy())
    assert converted is not None and converted == a


def test_from_sympy_refuses_other_forms() -> None:
    assert from_sympy(sympy.sqrt(1 + sympy.sqrt(2))) is None
    assert from_sympy(sympy.pi) is None


# ---------------------------------------------------------------------------------------
# The fast text and decimals of lnsym.exact.batch_format agree with lnsym.exact.value_format

small_rationals = st.fractions(min_value=-30, max_value=30, max_denominator=9)
entries = st.one_of(
    small_rationals.map(lambda c: sympy.Rational(c.numerator, c.denominator)),
    st.tuples(small_rationals, st.sampled_from([2, 3, 6, 17])).map(
        lambda ck: sympy.Rational(ck[0].numerator, ck[0].denominator) * sympy.sqrt(ck[1])
    ),
    st.tuples(small_rationals, small_rationals).map(
        lambda ab: (
            sympy.Rational(ab[0].numerator, ab[0].denominator)
            + sympy.Rational(ab[1].numerator, ab[1].denominator) * sympy.sqrt(5)
        )
    ),
)


@given(st.lists(entries, min_size=1, max_size=4))
def test_fast_text_and_decimals_agree_with_the_vector_style(values: list[sympy.Expr]) -> None:
    row = tuple(values)
    assert batch_format.row_text(row) == value_format.text_value(row)
    assert batch_format.row_decimals(row) == value_format.decimal_value_text(row)
    for v in values:
        assert batch_format.number_text(v) == value_format.text_number(v)
        assert batch_format.exact_text(v) == sympy.sstr(v)
        assert batch_format.number_latex(v) == value_format.latex_number(v)
        assert batch_format.float_value(v) == exact_values.decimal(v)
    assert batch_format.value_latex(row) == value_format.latex_value(row)
    matrix = sympy.ImmutableMatrix([list(row), list(reversed(row))])
    assert batch_format.value_latex(matrix) == value_format.latex_value(matrix)


def test_fast_decimals_stay_certain_where_digits_cancel_or_overflow() -> None:
    close = sympy.sqrt(10**12 + 1) - 10**6  # ≈ 5·10⁻⁷, from terms of 10⁶
    assert batch_format.number_decimal(close) == exact_values.decimal_text(close)
    huge = sympy.Rational(10**400)
    assert batch_format.number_decimal(huge) == exact_values.decimal_text(huge)
