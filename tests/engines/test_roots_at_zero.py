"""Roots of 0 under a derivative: no engine takes a slope first order cannot see.

‖c·x‖ = |c|·‖x‖ and √var(c·x) = |c|·√var(x) have no derivative in c at c = 0; ‖z‖ has no
gradient at z = 0; √var(z + t·h) = |t|·√var(h) at a constant z has no slope in t. SymPy's
route dropped the terms in t² before differentiating and the exact arithmetic's jets
likewise, so √(0 + 0·t) had slope 0 in every engine, and the general engine turned |c| into
sign(c) with sign(0) = 0: such claims came out PROVED or VERIFIED. Generated: the kink hidden
in a norm, a variance or an inner product of a scaled vector, at every place the derivative
can be taken.
"""

from __future__ import annotations

from unittest import mock

import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import vectors

from lnsym import Claim, Eq, d, diff, dot, grad, jvp, norm, ones, scalar, sqrt, var, vector
from lnsym.checking.checker import Checker, Options
from lnsym.ir import nodes as ir

#: Fewer samples and dimensions than the default: the verdicts here need no more.
QUICK = Options(samples=40, max_d=4)


def check(claim: Claim):
    return Checker(QUICK).check(claim)


c = scalar("c")
z, h = vector("z"), vector("h")
HIDING = {
    "norm": lambda x: norm(c * x),
    "std": lambda x: sqrt(var(c * x)),
    "rms": lambda x: sqrt(dot(c * x, c * x) / d),
    "mean square": lambda x: sqrt(ir.Mean(c * x) ** 2),
}


@settings(max_examples=16, deadline=None, derandomize=True)
@given(kind=st.sampled_from(sorted(HIDING)), x=vectors, claimed=st.sampled_from([0, 1]))
def test_a_scalar_derivative_at_a_hidden_kink_is_never_proved(kind, x, claimed):
    slope = diff(HIDING[kind](x), c).subs(c, 0)
    result = check(Claim("kink", Eq(slope, claimed * (0 * slope + 1))))
    assert result.verdict not in ("PROVED", "VERIFIED"), (kind, x, result.reason)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(at=st.sampled_from([0, 1, -2]))
def test_no_gradient_or_slope_where_a_norm_or_spread_is_zero(at):
    for statement in (
        Eq(grad(norm(z), z).subs(z, at * ones * 0), 0 * ones),
        Eq(jvp(sqrt(var(z)), z, h).subs(z, at * ones), 0),
        Eq(jvp(norm(z - at * ones), z, h).subs(z, at * ones), 0),
    ):
        result = check(Claim("flat", statement))
        assert result.verdict not in ("PROVED", "VERIFIED"), (statement, result.reason)


def test_away_from_the_kink_the_slope_is_proved():
    positive = scalar("p", positive=True)
    assert check(Claim("away", Eq(diff(norm(positive * z), positive), norm(z)))).verdict == (
        "PROVED"
    )


@given(st.sampled_from(["Abs", "sign", "Heaviside"]), st.sampled_from(["concrete", "numeric"]))
def test_a_derivative_sympy_cannot_evaluate_is_refused_not_a_crash(name: str, engine: str) -> None:
    """Past the kink check (switched off here), |t|, sign(t) and H(t) at t = var(z) under
    D_z: SymPy leaves the slope unevaluated (or a Dirac delta); the engines say so, never an
    internal error (SymPy's "derivative wrt 0", numpy's missing DiracDelta)."""
    t = scalar("t")
    kinked = ir.Const(getattr(sympy, name)(t))
    statement = Eq(jvp((kinked * ones).subs(t, var(z)), z, h), 0 * ones)
    with mock.patch("lnsym.checking.checker.kink_under_derivative", return_value=None):
        result = Checker(Options(engines=(engine,), samples=10, max_d=3)).check(
            Claim("unevaluated", statement)
        )
    (evidence,) = [e for e in result.evidence if e.engine == engine]
    # Off t = 0 a slope may exist (|t|' = sign(t), H' = 0): a verdict there is the engine's.
    assert not evidence.detail.startswith("internal"), evidence.detail
    if evidence.outcome == "error":
        assert evidence.detail.startswith("UnsupportedError"), evidence.detail
