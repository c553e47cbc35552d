"""The IR: construction, type checks, coercion, substitution and printing."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from fractions import Fraction

import pytest
import sympy

from lnsym import (
    Eq,
    Le,
    center,
    centered,
    d,
    dimension,
    dimension_at_least,
    dot,
    eps,
    hadamard,
    ir,
    layer_norm,
    mean,
    norm,
    ones,
    orthogonal,
    scalar,
    var,
    vector,
)
from lnsym.errors import ExpressionError

z, h = vector("z"), vector("h")
c = scalar("c")


def test_symbols_have_the_documented_assumptions():
    assert d.is_integer and d.is_positive
    assert eps.is_positive
    assert c.is_real and c.is_positive is None
    assert scalar("k", positive=True).is_positive


def test_operators_build_the_expected_nodes():
    assert z + h == ir.VectorSum((z, h))
    assert z + h + ones == ir.VectorSum((z, h, ones))
    assert z * h == ir.Hadamard(z, h) == hadamard(z, h)
    assert c * z == ir.Scaled(ir.Const(c), z)
    assert z * 2 == ir.Scaled(ir.Const(sympy.Integer(2)), z)
    assert 2 * (3 * z) == ir.Scaled(ir.Const(sympy.Integer(6)), z)
    assert mean(z) * dot(z, h) == ir.ScalarProduct((mean(z), dot(z, h)))
    assert (var(z) + eps).kind == "scalar"
    assert (z / c).kind == "vector"
    assert sum([z, h]) == z + h


def test_sympy_on_the_left_reaches_our_operators():
    assert sympy.Rational(1, 2) * z == ir.Scaled(ir.Const(sympy.Rational(1, 2)), z)
    assert (eps + var(z)) == ir.ScalarSum((ir.Const(eps), var(z)))
    assert (1 / var(z)) == ir.Power(var(z), sympy.Integer(-1))


@pytest.mark.parametrize(
    "build",
    [
        lambda: z + mean(z),
        lambda: mean(z) + z,
        lambda: z**2,
        lambda: mean(z) ** z,
        lambda: z / h,
        lambda: 0.5 * z,
        lambda: "2" * z,
        lambda: dot(z, mean(z)),
        lambda: Eq(z, mean(z)),
        lambda: Le(z, h),
        lambda: vector("2z"),
        lambda: vector("_hidden"),
        lambda: scalar("d"),
        lambda: orthogonal(z, z),
        lambda: centered(z + h),
        lambda: dimension_at_least(0),
        lambda: dimension(True),
        lambda: z.subs(ir.d, 3),
        lambda: True * z,
    ],
)
def test_meaningless_expressions_are_refused(build):
    with pytest.raises(ExpressionError):
        build()


def test_exact_numbers_are_accepted():
    assert Fraction(1, 3) * z == ir.Scaled(ir.Const(sympy.Rational(1, 3)), z)


def test_relations_accept_a_literal_zero_vector():
    relation = Eq(center(ones), 0)
    assert relation.rhs == ir.Scaled(ir.Const(sympy.Integer(0)), ones)
    assert Le(0, var(z)).lhs == ir.Const(sympy.Integer(0))


def test_substitution_nodes():
    node = mean(z).subs(z, c * ones)
    assert node == ir.Substitution(mean(z), z, c * ones)
    assert var(z).subs(c, 2).target == ir.Const(c)


def test_definitions_expand_to_primitives():
    assert mean(z).definition() == ir.ScalarProduct((ir.Const(1 / d), dot(ones, z)))
    assert norm(z).definition() == ir.Power(dot(z, z), sympy.Rational(1, 2))
    assert var(z).definition() == mean(center(z) * center(z))


def test_nodes_are_hashable_and_structural():
    assert {z + h, z + h, h + z} == {z + h, h + z}
    assert ir.vector_atoms(dot(z, h) * mean(ones)) == {"z", "h"}


def test_cached_hashes_and_children_stay_out_of_pickles_and_copies():
    # A node keeps its hash and its children once found; neither may travel with it (a hash
    # of strings differs in a process with another hash seed).
    e = layer_norm(z + c * ones, hadamard(h, h), h) - mean(z) * h
    hash(e)
    for node in ir.distinct_nodes(e):
        node.children()
    data = pickle.dumps(e)
    assert b"_hash" not in data and b"_children" not in data
    for twin in (pickle.loads(data), copy.deepcopy(e), copy.copy(e)):
        assert twin == e and hash(twin) == hash(e)
        assert twin.children() == e.children()


def test_children_are_the_fields_that_are_expressions_in_order():
    e = dot(center(z), layer_norm(z, h, h)) * var(z + h) + 2 * mean(hadamard(z, h))
    for node in ir.distinct_nodes(e, definitions=True):
        expected = []
        for f in dataclasses.fields(node):
            value = getattr(node, f.name)
            expected += [v for v in (value if isinstance(value, tuple) else (value,))
                         if isinstance(v, ir.Expr)]  # fmt: skip
        assert node.children() == tuple(expected)
        assert node.children() is node.children()  # found once


def test_dimensions_follow_assumptions():
    assert ir.dimensions((), 4) == [1, 2, 3, 4]
    assert ir.dimensions((dimension_at_least(3),), 5) == [3, 4, 5]
    assert ir.dimensions((dimension(2),), 8) == [2]


def test_text_printing():
    assert repr(z - 2 * h) == "z - 2·h"
    assert repr(mean(z) - dot(z, h)) == "mean(z) - ⟨z, h⟩"
    assert repr(Le(norm(z) ** 2, eps)) == "‖z‖^2 ≤ ε"
    assert repr(centered(h)) == "mean(h) = 0"


# -- what assumptions mean, stated once ----------------------------------------------------


def test_assumptions_state_their_meaning_at_exact_points_and_dimensions():
    from fractions import Fraction

    from lnsym import centered, dimension, dimension_at_least, nonconstant, orthogonal
    from lnsym.ir import admits, dimensions

    z, h = vector("z"), vector("h")
    point = {"z": (Fraction(1, 2), Fraction(-1, 2)), "h": (3, 3)}
    assert centered(z).holds(point) and not centered(h).holds(point)
    assert orthogonal(z, h).holds(point)
    assert nonconstant(z).holds(point) and not nonconstant(h).holds(point)
    assert not orthogonal(z, h).holds({"z": (1, 0), "h": (1, 0)})
    # Dimensions: a non-constant atom needs d ≥ 2; dimension limits bound d.
    assert [admits((nonconstant(z),), k) for k in (1, 2)] == [False, True]
    assert admits((dimension(3),), 3) and not admits((dimension(3),), 4)
    assert dimensions((dimension_at_least(3), dimension(5)), 8) == [5]
    assert dimensions((nonconstant(z),), 3) == [1, 2, 3]  # only dimension limits count here


def test_sqrt_is_the_half_power_and_stays_sound():
    from lnsym import Claim, Eq, check, dot, eps, latex, sqrt, var

    z, c = vector("z"), scalar("c")
    assert sqrt(var(z) + eps) == (var(z) + eps) ** sympy.Rational(1, 2)
    assert latex(sqrt(var(z) + eps)) == r"\sqrt{q(\mathbf{z}) + \varepsilon}"
    assert sqrt(4) == ir.Const(sympy.Integer(2))
    assert check(Claim("sqrt.square", Eq(sqrt(dot(z, z)) ** 2, dot(z, z)))).verdict == "PROVED"
    # √(c²) = |c|, not c: refuted at a negative c.
    wrong = check(Claim("sqrt.abs", Eq(sqrt(c**2), c), expect="refuted"))
    assert wrong.verdict == "REFUTED" and wrong.counterexample.scalars["c"] < 0


def test_a_float_literal_is_refused_with_the_exact_number_to_write():
    import math

    from lnsym import core, vector

    z = vector("z")
    with pytest.raises(ExpressionError, match=r"write Fraction\(1, 2\) .* sympy.Rational\(1, 2\)"):
        0.5 * z
    with pytest.raises(ExpressionError, match=r"Fraction\(1, 100000\)"):
        core(z, 1e-5)
    with pytest.raises(ExpressionError, match=r"0.1 is inexact .* Fraction\(1, 10\)"):
        z * 0.1
    with pytest.raises(ExpressionError, match=r"2.0 is inexact .*; write 2$"):
        z / 2.0
    with pytest.raises(ExpressionError, match="not a number"):
        math.nan * z
