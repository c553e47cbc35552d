"""A symbol with an assumption beyond real is never evaluated where the assumption fails.

SymPy simplifies a constant when it is built, with its symbols' assumptions: for a positive
p, √(p²) is built as p and |p| as p. Evaluated at p = −1, such a constant read −1, and
√(ε²)|_{ε=−1} = −1 was PROVED. So a substitution is built only when the value is known to
satisfy the symbol's assumptions. Generated: the constants SymPy simplifies that way, every
kind of value that breaks an assumption (refused when built), and values that keep them (built,
and the claims about them decided correctly).
"""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym import Claim, Eq, check, core, d, eps, scalar, var, vector
from lnsym.errors import ExpressionError
from lnsym.ir import nodes as ir

z = vector("z")
p, c = scalar("p", positive=True), scalar("c")
TARGETS = {"epsilon": eps, "positive p": p}


def _simplified(t: sympy.Symbol, shape: int) -> ir.Expr:
    """A constant SymPy builds with t's assumptions used (√(t²) → t, |t| → t, …)."""
    return ir.Const(
        [
            sympy.sqrt(t**2),
            sympy.Abs(t),
            (t**4) ** sympy.Rational(1, 4),
            t / sympy.Abs(t) + t,
            sympy.sqrt(t**2) * eps + t**3,
        ][shape]
    )


#: Values breaking the assumption of every target (p and ε are positive).
BREAKING = {
    "-1/2": lambda: ir.as_scalar(sympy.Rational(-1, 2)),
    "a real c": lambda: ir.Const(c),
    "-var(z)": lambda: -var(z),
    "999 - d": lambda: ir.Const(999 - d),
    "sqrt(c)": lambda: ir.Const(sympy.sqrt(c)),
}


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    target=st.sampled_from(sorted(TARGETS)),
    shape=st.integers(0, 4),
    value=st.sampled_from(sorted(BREAKING)),
)
def test_a_value_breaking_an_assumption_is_refused_when_built(target, shape, value):
    t = TARGETS[target]
    with pytest.raises(ExpressionError, match="cannot evaluate at"):
        _simplified(t, shape).subs(t, BREAKING[value]())
    with pytest.raises(ExpressionError, match="cannot evaluate at"):
        core(z, 1 + _simplified(t, shape)).subs(t, BREAKING[value]())


@settings(max_examples=25, deadline=None, derandomize=True)
@given(
    shape=st.integers(0, 4),
    value=st.sampled_from([sympy.Rational(1, 3), sympy.Integer(2), scalar("q", positive=True)]),
)
def test_a_value_keeping_the_assumption_is_built_and_decided_correctly(shape, value):
    # The constant's true value at t = v > 0, written without the simplification.
    truth = [value, value, value, 1 + value, value * eps + value**3][shape]
    claim = Claim("kept", Eq(_simplified(p, shape).subs(p, value), ir.Const(truth)))
    assert check(claim).verdict == "PROVED"
    wrong = Claim("wrong", Eq(_simplified(p, shape).subs(p, value), ir.Const(-truth)))
    assert check(wrong).verdict != "PROVED"


def test_symbols_with_other_assumptions_are_refused():
    # lnsym's scalars are real or positive: the engines draw nothing else.
    for assumptions in ({"integer": True}, {"nonnegative": True}, {"even": True}):
        with pytest.raises(ExpressionError, match="assumptions lnsym does not use"):
            ir.Const(sympy.Symbol("k", **assumptions))


def test_a_real_stabilizer_may_be_set_to_zero():
    a = scalar("a")
    assert check(Claim("ideal", Eq(core(z, a).subs(a, 0), core(z, 0)))).verdict == "PROVED"
    with pytest.raises(ExpressionError, match="epsilon is positive"):
        core(z).subs(eps, 0)


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    x=st.floats(allow_nan=False, allow_infinity=False, min_value=-1e30, max_value=1e30).filter(
        bool  # SymPy drops 0.0·c itself: no float is left
    )
)
def test_floats_are_refused_in_constants(x):
    """SymPy rounds every operation on a float, and every engine rounds alike: with 10²⁰ as a
    float, 10²⁰·c + c = 10²⁰·c held in all of them."""
    with pytest.raises(ExpressionError, match="write an exact number"):
        ir.Const(sympy.Float(x) * c + 1)
