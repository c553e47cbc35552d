"""No derivative through a kink (lnsym.ir.kinks; issue 32, class 5).

SymPy differentiates |x| to sign(x) with sign(0) = 0, so every engine agreed that
∂_a|a| at a = 0 is 0 (and, written as a Piecewise, 1). The property tested here: a claim
whose derivative runs through a kink whose argument moves with the variable — whatever the
kink (|x|, sign, Heaviside, max, min, floor, ceiling, frac, a Piecewise, √(x²)), however it
is wrapped (sums, products, substitutions, user-defined nodes, nested derivatives) and
whatever point it is evaluated at — is never PROVED, VERIFIED or REFUTED: it is an ERROR that
names the kink. Kinks whose argument does not move, stays away from the kink by the sign
rules, or lies outside every derivative change nothing: true claims are still PROVED.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar
from unittest import mock

import pytest
import sympy
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lnsym import (
    Claim,
    Eq,
    check,
    core,
    dot,
    eps,
    mean,
    nonconstant,
    ones,
    scalar,
    var,
    vector,
)
from lnsym.checking import catalog
from lnsym.checking.claims import derivation_claims
from lnsym.checking.verdicts import Verdict
from lnsym.derive import derive
from lnsym.errors import LnsymError
from lnsym.ir import Const, Defined, Expr, ScalarNode
from lnsym.ir.calculus import diff, grad, jvp, opnorm, vjp
from lnsym.ir.kinks import kink_under_derivative
from lnsym.ir.matrices import matrix, total
from lnsym.ir.names import d, n
from lnsym.ir.nodes import power, sqrt

z, h = vector("z"), vector("h")
a, b, c, t = scalar("a"), scalar("b"), scalar("c"), scalar("t")

Kink = Callable[[sympy.Expr], sympy.Expr]

#: Each kink by the name its refusal must show, as a function of its argument x.
KINKS: dict[str, Kink] = {
    "Abs": sympy.Abs,
    "sign": sympy.sign,
    "Heaviside": sympy.Heaviside,
    "Max": lambda x: sympy.Max(x, 0),
    "Min": lambda x: sympy.Min(x, 1 - x),
    "floor": sympy.floor,
    "ceiling": sympy.ceiling,
    "frac": sympy.frac,
    "Piecewise": lambda x: sympy.Piecewise((x, x >= 0), (-2 * x, True)),
}


@dataclass(frozen=True, slots=True, repr=False)
class Magnitude(Defined, ScalarNode):
    """A user-defined |x| = √(x²): its kink is in the definition only."""

    arg: Expr
    symbol: ClassVar[str] = "magnitude"

    def definition(self) -> Expr:
        return sqrt(power(self.arg, 2))


@dataclass(frozen=True, slots=True, repr=False)
class Hinge(Defined, ScalarNode):
    """A user-defined ReLU (x + |x|)/2, through another user-defined node."""

    arg: Expr
    symbol: ClassVar[str] = "hinge"

    def definition(self) -> Expr:
        return (self.arg + Magnitude(self.arg)) / 2


kink_names = st.sampled_from(sorted(KINKS))
_x = sympy.Symbol("x", real=True)
#: Arguments that change sign as the variable x runs over the reals: k·x + m or k·x² + m.
arguments = st.builds(
    lambda k, m, square: k * (_x**2 if square else _x) + m,
    st.sampled_from([sympy.Integer(1), sympy.Integer(-1), sympy.Integer(2), sympy.Rational(-1, 3)]),
    st.sampled_from([sympy.Integer(0), sympy.Integer(1), sympy.Integer(-1), sympy.Rational(1, 2)]),
    st.booleans(),
).filter(lambda e: e.is_nonnegative is not True and e.is_nonpositive is not True)
points = st.sampled_from([sympy.Integer(k) for k in (0, 1, -1)] + [sympy.Rational(-3, 2)])
#: Smooth wraps of a SymPy constant u in the variable v: the kink stays in them.
sympy_wraps = st.sampled_from(
    [
        lambda u, v: u,
        lambda u, v: 3 * u + v**2,
        lambda u, v: u * sympy.exp(v),
        lambda u, v: (v**2 + 1) * u - sympy.sin(v),
    ]
)
#: Where a moving statistic of z may sit at the kink.
statistics = st.sampled_from([mean(z), dot(z, h), mean(z * z) - 1, var(z) - c**2])


def kink(name: str, argument: sympy.Expr, variable: sympy.Symbol) -> sympy.Expr:
    """The kink ``name`` at ``argument`` written in ``variable``; SymPy must have kept it
    (min(x, 1 − x) is x where SymPy sees x ≤ 1 − x: no kink is left to refuse)."""
    built = KINKS[name](argument.subs(_x, variable))
    assume(built.has(getattr(sympy, name)))
    return built


def refused(statement: Eq, name: str, assumptions: tuple[object, ...] = ()) -> None:
    """The claim is an ERROR from the differentiability check, naming the kink ``name``."""
    result = check(Claim("kink", statement, list(assumptions)))  # type: ignore[arg-type]
    assert result.verdict == Verdict.ERROR, (statement, result.verdict, result.reason)
    assert [(e.engine, e.outcome) for e in result.evidence] == [("differentiability", "error")]
    assert result.reason is not None
    assert result.reason.startswith("no derivative through a kink")
    assert name in result.reason, result.reason


# -- the examples ---------------------------------------------------------------


def test_the_derivative_of_abs_at_zero_is_not_proved_zero() -> None:
    refused(Eq(diff(Const(sympy.Abs(a)), a).subs(a, 0), 0), "Abs(a)")


def test_the_derivative_of_a_piecewise_abs_at_zero_is_not_proved_one() -> None:
    piecewise = sympy.Piecewise((a, a >= 0), (-a, True))
    refused(Eq(diff(Const(piecewise), a).subs(a, 0), 1), "Piecewise")


def test_a_root_of_a_square_is_an_absolute_value() -> None:
    """√(c²·var z) = |c|·√(var z): the general engine took |c| out and said ∂_c = 0 at 0."""
    refused(Eq(diff(sqrt(Const(c) ** 2 * var(z)), c).subs(c, 0), 0), "the square of c")
    refused(Eq(jvp(sqrt(mean(z) * mean(z) * var(z)), z, h), 0), "the square of mean(z)")


# -- every kink, every wrapping, every derivative ---------------------------------------


@given(kink_names, arguments, sympy_wraps, points, st.booleans())
def test_a_kink_in_the_variable_of_diff_is_refused(
    name: str,
    argument: sympy.Expr,
    wrap: Callable[[sympy.Expr, sympy.Expr], sympy.Expr],
    point: sympy.Expr,
    in_ir: bool,
) -> None:
    inner = wrap(kink(name, argument, a), a)
    expr = Const(inner) * var(z) + mean(z) if in_ir else Const(inner)
    refused(Eq(diff(expr, a).subs(a, point), Const(point) * mean(z) if in_ir else 0), name)


@given(kink_names, arguments, statistics, st.sampled_from(["jvp", "grad", "vjp", "opnorm"]))
def test_a_kink_at_a_statistic_of_the_atom_is_refused(
    name: str, argument: sympy.Expr, statistic: Expr, derivative: str
) -> None:
    """|t| at t = mean(z) under a derivative in z: t moves with z through the substitution."""
    k = Const(kink(name, argument, t))
    if derivative == "grad":
        statement = Eq(grad((k * var(z)).subs(t, statistic), z), 0 * ones)
    elif derivative == "opnorm":
        statement = Eq(opnorm((k * z + h).subs(t, statistic), z), 1)
    else:
        build = jvp if derivative == "jvp" else vjp
        statement = Eq(build((k * core(z)).subs(t, statistic), z, h), 0 * ones)
    refused(statement, name)


@given(kink_names, arguments)
def test_a_kink_at_a_total_of_a_matrix_is_refused_under_its_gradient(
    name: str, argument: sympy.Expr
) -> None:
    x = matrix("X", n, d)
    statement = Eq(total(grad(Const(kink(name, argument, t)).subs(t, total(x)), x)), 0)
    refused(statement, name)


@given(st.sampled_from([mean(z), dot(z, h) + 1, mean(z) - 2]), st.booleans())
def test_a_kink_inside_a_user_defined_node_is_refused(statistic: Expr, hinge: bool) -> None:
    node = Hinge(statistic) if hinge else Magnitude(statistic)
    refused(Eq(grad(node, z), 0 * ones), "the square of")
    refused(Eq(diff(Magnitude(Const(a) - b), a).subs(a, b), 0), "the square of a - b")


@given(kink_names, arguments)
def test_a_kink_met_by_an_outer_derivative_is_refused(name: str, argument: sympy.Expr) -> None:
    """∂_b ∂_a [k(b)·a]: the inner derivative is smooth in a, the outer one meets k(b)."""
    inner = diff(Const(kink(name, argument, b) * a), a)
    refused(Eq(diff(inner, b), 0), name)


@given(kink_names, arguments)
def test_a_kink_written_in_a_sympy_derivative_is_refused(name: str, argument: sympy.Expr) -> None:
    derivative = sympy.Derivative(kink(name, argument, a), a)
    refused(Eq(Const(derivative).subs(a, 0), 0), name)


def test_derive_refuses_a_kink_before_it_derives() -> None:
    with pytest.raises(LnsymError, match="no derivative through a kink: Abs"):
        derive(diff(Const(sympy.Abs(a)) * var(z), a))
    with pytest.raises(LnsymError, match="no derivative through a kink: Max"):
        derive(jvp((Const(sympy.Max(t, 0)) * z).subs(t, mean(z)), z, h))


# -- what stays allowed -------------------------------------------------------------------


#: Positive statistics: var(z) + ε > 0 always, var(z) > 0 for a non-constant z.
positives = st.sampled_from([var(z) + eps, var(z) + c**2 + eps, dot(z, z) + eps])


@given(st.sampled_from(["Abs", "sign", "Heaviside", "Max", "Min"]), positives, st.booleans())
def test_a_kink_kept_away_by_the_sign_rules_is_allowed(
    name: str, positive: Expr, negated: bool
) -> None:
    """The argument is t or −t − 1 at t > 0: never 0 (max(t, 0) and min(t, 0): t ≠ 0)."""

    def at(argument: sympy.Expr, value: Expr) -> Expr:
        k = {"Max": sympy.Max(argument, 0), "Min": sympy.Min(argument, 0)}.get(
            name, KINKS[name](argument)
        )
        return jvp((Const(k) * z).subs(t, value), z, h)

    assert kink_under_derivative(at(-t - 1 if negated else t, positive)) is None
    # var(z) is 0 at a constant z, unless z is assumed non-constant; −var(z) − 1 never is.
    assert kink_under_derivative(at(t, var(z))) is not None
    assert kink_under_derivative(at(t, var(z)), [nonconstant(z)]) is None
    assert kink_under_derivative(at(-t - 1, var(z))) is None


def unchanged(statement: Eq) -> Verdict:
    """The verdict of ``statement``, the same with the differentiability check switched off."""
    assert kink_under_derivative(statement) is None
    result = check(Claim("unchanged", statement))
    with mock.patch("lnsym.checking.checker.kink_under_derivative", return_value=None):
        before = check(Claim("unchanged", statement))
    assert (result.verdict, result.reason) == (before.verdict, before.reason)
    assert "differentiability" not in {e.engine for e in result.evidence}
    return result.verdict


@settings(max_examples=20)
@given(kink_names, arguments, st.integers(min_value=1, max_value=4))
def test_a_kink_that_does_not_move_leaves_true_claims_proved(
    name: str, argument: sympy.Expr, power_of_a: int
) -> None:
    """∂_a[k(c)·aⁿ] = n·aⁿ⁻¹·k(c): the kink is in c, which does not move with a."""
    k = kink(name, argument, c)
    lhs = diff(Const(k * a**power_of_a) * var(z), a)
    statement = Eq(lhs, Const(power_of_a * a ** (power_of_a - 1) * k) * var(z))
    # The general engine holds no Heaviside (its derivative would be a Dirac delta).
    expected = Verdict.VERIFIED if name == "Heaviside" else Verdict.PROVED
    assert unchanged(statement) == expected


@settings(max_examples=20)
@given(kink_names, arguments, points)
def test_a_kink_outside_every_derivative_is_unaffected(
    name: str, argument: sympy.Expr, point: sympy.Expr
) -> None:
    k = kink(name, argument, a)
    lhs = Const(k).subs(a, point) * var(z) + diff(Const(a**2), a)
    assert unchanged(Eq(lhs, Const(k.subs(a, point)) * var(z) + 2 * a)) == Verdict.PROVED


def test_a_substituted_constant_of_fixed_sign_is_allowed() -> None:
    """SymPy already drops |·| of a positive constant; a bound symbol is read as its value."""
    assert kink_under_derivative(diff(Const(sympy.Abs(eps + c**2) * a), a)) is None
    assert kink_under_derivative(diff(Const(sympy.Abs(c) * a), a)) is None
    statement = Eq(diff(Const(sympy.Abs(eps + c**2) * a), a), eps + Const(c**2))
    assert check(Claim("fixed.sign", statement)).verdict == Verdict.PROVED
    at_positive = jvp((Const(sympy.Abs(t)) * z).subs(t, var(z) + eps), z, h)
    result = check(Claim("allowed", Eq(at_positive, jvp((var(z) + eps) * z, z, h))))
    assert "differentiability" not in {e.engine for e in result.evidence}
    assert result.verdict not in (Verdict.ERROR, Verdict.REFUTED), result.reason


def test_a_kink_evaluated_after_the_derivative_is_not_under_it() -> None:
    """D_z[|t|·z](h) at t = mean(z): t is fixed while z moves, then evaluated."""
    expr = jvp(Const(sympy.Abs(t)) * z, z, h).subs(t, mean(z))
    assert kink_under_derivative(expr) is None
    assert kink_under_derivative(jvp((Const(sympy.Abs(t)) * z).subs(t, mean(z)), z, h))


def test_no_catalog_claim_is_refused() -> None:
    """Every catalog claim keeps its verdict: none of them meets the check."""
    found = []
    for section in catalog.load():
        claims = [*section.claims]
        for derivation in section.derivations:
            claims.extend(derivation_claims(derivation))
        found += [(cl.id, kink_under_derivative(cl.statement, cl.assumptions)) for cl in claims]
    assert len(found) > 100
    assert [pair for pair in found if pair[1] is not None] == []


def test_a_substitution_starts_or_stops_the_motion_of_its_symbol() -> None:
    """|t| at t = a + 1 moves with a; |a| at a = 0 is a constant, whose derivative is 0."""
    moving = diff(Const(sympy.Abs(t)).subs(t, Const(a) + 1), a)
    assert "Abs(t) under ∂_a: its argument t moves with a" in str(kink_under_derivative(moving))
    assert kink_under_derivative(diff(Const(sympy.Abs(a)).subs(a, 0), a)) is None
    assert kink_under_derivative(diff(Const(sympy.Abs(a) * b).subs(b, 2), a)) is not None


@given(st.sampled_from(["Abs", "sign", "Heaviside", "Max", "Min"]))
def test_an_assumption_on_an_atom_says_nothing_where_a_substitution_rebinds_it(
    name: str,
) -> None:
    """k(var(z)) with z = w: non-constant z keeps var(z) off 0, yet inside the substitution
    z stands for w, whose variance may be 0 — the sign rules must not use the assumption."""
    w = vector("w")
    at_var = {"Max": sympy.Max(t, 0), "Min": sympy.Min(t, 0)}.get(name, KINKS[name](t))
    rebound = (Const(at_var) * ones).subs(t, var(z)).subs(z, w)
    statement = Eq(jvp(rebound, w, h), 0 * ones)
    refused(statement, name, (nonconstant(z),))
    # Written with w itself, the assumption on w keeps the kink away.
    direct = jvp((Const(at_var) * ones).subs(t, var(w)), w, h)
    assert kink_under_derivative(direct, [nonconstant(w)]) is None
    # Met first outside a substitution, where the assumption holds, the same part keeps
    # its own answer inside one (the walk's memo is per assumptions, not only per node).
    part = (Const(at_var) * ones).subs(t, var(z))
    assert kink_under_derivative(jvp(part, z, h), [nonconstant(z)]) is None
    inside = jvp(part.subs(z, 2 * z), z, h)
    assert kink_under_derivative(inside, [nonconstant(z)]) is not None
    assert kink_under_derivative(jvp(part + part.subs(z, 2 * z), z, h), [nonconstant(z)])
