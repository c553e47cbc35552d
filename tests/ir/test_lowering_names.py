"""One namespace per claim in the lowering (issue 32, items 2 and 3).

A matrix statement is written entry by entry: γ's entries become gamma1, gamma2, …, a matrix
X's entries X11, X12, …. Counterexamples and re-checks name entries by name, so a name must
stand for one quantity: an entry named like a scalar of the statement, two atoms with one
name (shapes, a vector and a matrix, positivity), an atom named like a scalar, and one scalar
name with two sets of assumptions are refused with one error naming both — and such a claim
is never VERIFIED or PROVED (before the fix, ``γ₁ = gamma1`` was VERIFIED: the lowered entry
*was* the user's scalar).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym import Claim, Eq, centered, check, ir, scalar, vector
from lnsym.checking.verdicts import Verdict
from lnsym.errors import LnsymError, UnsupportedError
from lnsym.ir.calculus import diff
from lnsym.ir.lowering import entry_name, lower, lower_claim, sizes_for
from lnsym.ir.matrices import column, first_case, matrix, ones_matrix, row, total
from lnsym.ir.names import d, m, n
from lnsym.ir.relations import Relation

#: Atom names: short identifiers, a digit or two inside allowed (X1, W_2).
names = st.from_regex(r"[A-Za-z][A-Za-z0-9_]{0,5}", fullmatch=True).filter(
    lambda name: name not in ("d", "n", "m", "epsilon")  # reserved for the sizes and ε
)
SIDES = (sympy.Integer(1), n, d, m)
shapes = st.tuples(st.sampled_from(SIDES), st.sampled_from(SIDES))
SIZES = {n: 2, d: 3, m: 2}


def _sum(x: object) -> object:
    """Every entry of a matrix added up: a scalar, whatever the shape."""
    rows, cols = x.shape  # type: ignore[attr-defined]
    return total(ones_matrix(1, rows) @ x @ ones_matrix(cols, 1))


def _never_accepted(make: Callable[[], Claim]) -> None:
    """The claim is refused when built, or checked to anything but VERIFIED or PROVED."""
    try:
        claim = make()
    except LnsymError:
        return
    result = check(claim)
    assert result.verdict not in (Verdict.VERIFIED, Verdict.PROVED), result.reason


def _lowers(statement: Relation, assumptions: tuple = ()) -> None:
    for sizes in sizes_for(statement, assumptions):
        lower_claim(statement, sizes, assumptions)


# ---------------------------------------------------------------------------------------
# An entry named like a scalar of the statement


def test_the_issue_example_is_refused_not_verified() -> None:
    gamma = vector("gamma")
    statement = Eq(total(row(gamma) @ first_case(d)), scalar("gamma1"))
    with pytest.raises(UnsupportedError, match=r"entry gamma1 of the vector gamma.*scalar gamma1"):
        lower_claim(statement, SIZES)
    _never_accepted(lambda: Claim("x3", statement))


@given(name=names, index=st.integers(1, 3), positive=st.booleans())
@settings(max_examples=25)
def test_a_vector_entry_named_like_a_scalar_is_refused(
    name: str, index: int, positive: bool
) -> None:
    gamma = vector(name)
    label = entry_name(name, index)
    clash = scalar(label, positive=positive)
    # the entry equals the scalar exactly where the two are merged: a false claim that a
    # merged lowering would verify
    statement = Eq(total(row(gamma) @ column(gamma)), total(row(gamma) @ column(gamma)) + clash)
    with pytest.raises(UnsupportedError) as error:
        lower_claim(statement, SIZES)
    assert f"entry {label} of the vector {name}" in str(error.value)
    assert f"scalar {label}" in str(error.value)


@given(name=names, shape=shapes, i=st.integers(1, 2), j=st.integers(1, 2))
@settings(max_examples=25)
def test_a_matrix_entry_named_like_a_scalar_is_refused(
    name: str, shape: tuple, i: int, j: int
) -> None:
    x = matrix(name, *shape)
    rows, cols = (int(side.xreplace(SIZES)) for side in shape)
    if i > rows or j > cols:
        return
    label = entry_name(name, i, j)
    statement = Eq(_sum(x), _sum(x) + scalar(label))
    with pytest.raises(UnsupportedError, match=f"entry {label} of the .* matrix {name}"):
        lower_claim(statement, SIZES)


@pytest.mark.parametrize("positive", [False, True])
def test_entry_clash_claims_are_never_accepted(positive: bool) -> None:
    # true if (and only if) the lowered entry and the user's scalar were one symbol
    gamma, z = vector("gamma"), matrix("Z", n, d, positive=positive)
    _never_accepted(lambda: Claim("g", Eq(total(row(gamma) @ first_case(d)), scalar("gamma1"))))
    _never_accepted(
        lambda: Claim(
            "z",
            Eq(total(first_case(n).T @ z @ first_case(d)), scalar("Z11", positive=positive)),
        )
    )


def test_an_entry_named_like_a_scalar_of_a_derivative_is_refused() -> None:
    gamma = vector("gamma")
    g1 = scalar("gamma1")
    with pytest.raises(UnsupportedError, match="gamma1"):
        lower_claim(Eq(diff(total(row(gamma) @ column(gamma)) * g1, g1), 0), SIZES)


# ---------------------------------------------------------------------------------------
# One name, two atoms


@given(name=names, first=shapes, second=shapes, positive=st.booleans())
@settings(max_examples=40)
def test_two_matrices_with_one_name_are_refused(
    name: str, first: tuple, second: tuple, positive: bool
) -> None:
    a, b = matrix(name, *first), matrix(name, *second, positive=positive)
    statement = Eq(_sum(a), _sum(b))
    if a == b:
        _lowers(statement)  # one atom used twice: nothing to refuse
        return
    with pytest.raises(UnsupportedError) as error:
        lower_claim(statement, SIZES)
    message = str(error.value)
    assert message.count(f"matrix {name}") == 2, message
    assert f"share the name {name}" in message


@given(name=names, shape=shapes, in_assumption=st.booleans())
@settings(max_examples=30)
def test_a_vector_and_a_matrix_with_one_name_are_refused(
    name: str, shape: tuple, in_assumption: bool
) -> None:
    x, v = matrix(name, *shape), vector(name)
    if in_assumption:  # the vector only in an assumption (issue 32, item 2's Z_tj)
        statement, assumptions = Eq(_sum(x), 0), (centered(v),)
    else:
        statement, assumptions = Eq(_sum(x), total(row(v) @ ones_matrix(d, 1))), ()
    with pytest.raises(UnsupportedError) as error:
        lower_claim(statement, SIZES, assumptions)
    message = str(error.value)
    assert f"the vector {name}" in message and f"matrix {name}" in message


def test_the_two_shapes_of_the_issue_are_never_accepted() -> None:
    z1, zd = matrix("Z", n, 1), matrix("Z", n, d)
    # equal if Z (n × 1) were the first column of Z (n × d), as a merged lowering makes it
    statement = Eq(total(z1), total(zd @ first_case(d)))
    with pytest.raises(UnsupportedError, match=r"n × 1 matrix Z and the n × d matrix Z"):
        lower_claim(statement, SIZES)
    _never_accepted(lambda: Claim("z", statement))
    _never_accepted(lambda: Claim("t", Eq(total(matrix("Z", n, d)), 0), [centered(vector("Z"))]))


@given(name=names)
@settings(max_examples=20)
def test_an_atom_named_like_a_scalar_is_refused(name: str) -> None:
    with pytest.raises(UnsupportedError, match=f"share the name {name}"):
        lower_claim(Eq(total(row(vector(name)) @ column(vector(name))), scalar(name)), SIZES)
    with pytest.raises(UnsupportedError, match=f"share the name {name}"):
        lower_claim(Eq(_sum(matrix(name, n, d)), scalar(name)), SIZES)


def test_one_scalar_name_with_two_assumptions_is_refused() -> None:
    z = matrix("Z", n, d)
    real, positive = scalar("c"), scalar("c", positive=True)
    with pytest.raises(UnsupportedError, match="two scalars share the name c"):
        lower_claim(Eq(_sum(z) * real, _sum(z) * positive), SIZES)


@pytest.mark.parametrize("name", ["n", "d", "m"])
def test_a_scalar_named_like_a_size_is_refused(name: str) -> None:
    # refused when the IR is built (the names are reserved), else by the lowering
    z = matrix("Z", n, d)
    with pytest.raises(LnsymError, match=f"'{name}' is reserved|the size {name}"):
        lower_claim(Eq(_sum(z), sympy.Symbol(name, real=True)), SIZES)


# ---------------------------------------------------------------------------------------
# What is not a clash lowers as before


@given(first=names, second=names, shape=shapes)
@settings(max_examples=40)
def test_distinct_names_whose_entries_differ_lower(first: str, second: str, shape: tuple) -> None:
    x, v = matrix(first, *shape), vector(second)
    statement = Eq(_sum(x), total(row(v) @ column(v)) + scalar("c"))
    labels = {entry_name(first, i, j) for i in range(1, 4) for j in range(1, 4)}
    labels |= {entry_name(second, j) for j in range(1, 4)}
    if first == second or "c" in (first, second) or labels & {first, second, "c"}:
        return
    if {entry_name(first, i, j) for i in range(1, 4) for j in range(1, 4)} & {
        entry_name(second, j) for j in range(1, 4)
    }:
        return
    written = lower_claim(statement, SIZES, (centered(v),))
    assert [s.name for s in written.vectors[second]] == [entry_name(second, j) for j in (1, 2, 3)]


def test_assumption_atoms_absent_from_the_statement_are_written_out() -> None:
    # their entries are in the namespace (and in a counterexample's point)
    h = vector("h")
    written = lower_claim(Eq(_sum(matrix("Z", n, d)), 0), SIZES, (centered(h),))
    assert [s.name for s in written.vectors["h"]] == ["h1", "h2", "h3"]
    with pytest.raises(UnsupportedError, match="entry h1 of the vector h"):
        lower_claim(Eq(_sum(matrix("Z", n, d)), scalar("h1")), SIZES, (centered(h),))


def test_an_expression_lowered_alone_is_checked_too() -> None:
    gamma = vector("gamma")
    with pytest.raises(UnsupportedError, match="entry gamma2 of the vector gamma"):
        lower(total(row(gamma) @ column(gamma)) + scalar("gamma2"), SIZES)


@given(size=st.integers(1, 4))
@settings(max_examples=4)
def test_d_in_an_exponent_is_the_size(size: int) -> None:
    # an exponent is written at the sizes like every constant (else an entry would keep d)
    x = matrix("Z", 1, 1)
    written = lower(ir.power(total(x), d + 1), {n: 2, d: size, m: 1})
    assert written.exponent == size + 1
    assert d not in written.exponent.free_symbols


@given(name=names, shape=shapes, other=shapes, positive=st.booleans())
@settings(max_examples=12)
def test_generated_clashes_are_never_verified_or_proved(
    name: str, shape: tuple, other: tuple, positive: bool
) -> None:
    # each claim is true exactly when the two quantities of one name are merged
    gamma, label = vector(name), entry_name(name, 1)
    _never_accepted(
        lambda: Claim("e", Eq(total(row(gamma) @ first_case(d)), scalar(label, positive=positive)))
    )
    a, b = matrix(name, *shape), matrix(name, *other, positive=positive)
    if a != b:
        _never_accepted(lambda: Claim("s", Eq(_corner(a), _corner(b))))


def _corner(x: object) -> object:
    """The entry (1, 1) of a matrix, as a scalar."""
    rows, cols = x.shape  # type: ignore[attr-defined]
    return total(first_case(rows).T @ x @ first_case(cols))
