"""Derivatives with respect to a scalar symbol: ``diff(expr, eps)``, ``diff(expr, a)``.

Every identity is checked by all three engines (the general engine's normal forms, the
concrete engine's SymPy calculus at d = 1..8 and the numeric engine's complex step), and
every false one is refuted with an exact counterexample whose values are recomputed here.
"""

from __future__ import annotations

import pytest
import sympy

import lnsym
from lnsym import (
    Claim,
    Eq,
    check,
    core,
    d,
    diff,
    eps,
    ir,
    jvp,
    latex,
    layer_norm,
    nonconstant,
    ones,
    scalar,
    sqrt,
    text,
    var,
    vector,
)
from lnsym.engines.concrete import engine as concrete
from lnsym.engines.concrete.exact import Evaluator, Q, Tower, to_sympy
from lnsym.engines.concrete.instantiate import instantiate
from lnsym.engines.general import GeneralEngine, chain_rule
from lnsym.engines.numeric import engine as numeric
from lnsym.errors import ExpressionError
from lnsym.ir.calculus import Diff, Jvp

z, h, y = vector("z"), vector("h"), vector("y")
gamma, beta = vector("gamma"), vector("beta")
a, b = scalar("a"), scalar("b")
k = scalar("k", positive=True)
s = sqrt(var(z) + eps)


def proved_by_every_engine(claim: Claim) -> lnsym.Result:
    result = check(claim)
    assert result.verdict == "PROVED", result.reason
    outcomes = {e.engine: e.outcome for e in result.evidence}
    assert outcomes == {
        "general": "proved",
        "validation": "holds",
        "concrete": "holds",
        "numeric": "consistent",
    }
    return result


def refuted(claim: Claim) -> lnsym.Counterexample:
    result = check(claim)
    assert result.verdict == "REFUTED", result.reason
    assert result.counterexample is not None
    assert {e.engine: e.outcome for e in result.evidence}["general"] == "not proved"
    return result.counterexample


# -- the node ------------------------------------------------------------------------


def test_diff_is_a_node_whose_kind_follows_the_expression():
    assert diff(core(z), eps) == Diff(core(z), ir.Const(eps))
    assert diff(core(z), ir.Const(eps)) == diff(core(z), eps)
    assert diff(core(z), eps).kind == "vector"
    assert diff(var(z) + eps, eps).kind == "scalar"
    assert diff(var(z), a).wrt == ir.Const(a)
    assert diff(core(z, k), k).wrt.value.is_positive
    assert lnsym.diff is diff and "diff" in lnsym.__all__


def test_diff_prints_as_a_partial_derivative():
    assert text(diff(core(z), eps)) == "∂_ε[core(z)]"
    assert text(diff(var(z) * a, a)) == "∂_a[var(z)·a]"
    assert latex(diff(core(z), eps)) == r"\partial_{\varepsilon} [u_{\varepsilon}(\mathbf{z})]"
    assert latex(diff(var(z) / (var(z) + eps), eps)).startswith(
        r"\partial_{\varepsilon} \left[ \frac"
    )


@pytest.mark.parametrize(
    ("wrt", "message"),
    [
        (d, "dimension"),
        (ir.Const(d), "dimension"),
        (2 * eps, "scalar symbol"),
        (eps + a, "scalar symbol"),
        (2, "scalar symbol"),
        (var(z), "scalar symbol"),
        (z, "use jvp"),
        (core(z), "use jvp"),
        (sympy.Symbol("x"), "not known to be real"),
    ],
)
def test_diff_refuses_anything_but_a_scalar_symbol(wrt, message):
    with pytest.raises(ExpressionError, match=message):
        diff(core(z), wrt)


def test_the_node_itself_refuses_d_and_a_bare_symbol():
    with pytest.raises(ExpressionError, match="dimension"):
        Diff(core(z), ir.Const(d))
    with pytest.raises(ExpressionError, match="constant node"):
        Diff(core(z), eps)  # type: ignore[arg-type]


def test_jvp_with_respect_to_a_scalar_points_to_diff():
    with pytest.raises(ExpressionError, match=r"diff\(expr, symbol\)"):
        lnsym.jvp(core(z), eps, h)


# -- proved identities ---------------------------------------------------------------


@pytest.mark.parametrize(
    "claim",
    [
        # ∂u_ε/∂ε = −u/(2(q + ε))
        Claim("core.eps", Eq(diff(core(z), eps), -core(z) / (2 * (var(z) + eps)))),
        # a gain a·1 shared by every coordinate: ∂y/∂a = u; a bias b·1: ∂y/∂b = 1
        Claim("layer.gain", Eq(diff(layer_norm(z, a * ones, beta), a), core(z))),
        Claim("layer.bias", Eq(diff(layer_norm(z, gamma, b * ones), b), ones)),
        # ∂s/∂ε = 1/(2s) and ∂²s/∂ε² = −1/(4s³) for s = √(q + ε)
        Claim("root.eps", Eq(diff(s, eps), 1 / (2 * s))),
        Claim("root.eps2", Eq(diff(diff(s, eps), eps), -(s**-3) / 4)),
        # ∂²u/∂ε² = 3u/(4(q + ε)²)
        Claim(
            "core.eps2", Eq(diff(diff(core(z), eps), eps), 3 * core(z) / (4 * (var(z) + eps) ** 2))
        ),
        # var(u) = q/(q + ε), so ∂ var(u)/∂ε = −q/(q + ε)²
        Claim("var_core.eps", Eq(diff(var(core(z)), eps), -var(z) / (var(z) + eps) ** 2)),
        # a positive symbol inside the stabilizer: ∂u_{k²}/∂k = −k·u/(q + k²)
        Claim("core.k", Eq(diff(core(z, k**2), k), -k * core(z, k**2) / (var(z) + k**2))),
    ],
    ids=lambda claim: claim.id,
)
def test_identities_are_proved_with_every_engine_agreeing(claim):
    proved_by_every_engine(claim)


def test_derivatives_in_a_scalar_and_along_a_vector_commute():
    claim = Claim("mixed", Eq(jvp(diff(core(z), eps), z, h), diff(jvp(core(z), z, h), eps)))
    result = proved_by_every_engine(claim)
    numeric_evidence = next(e for e in result.evidence if e.engine == "numeric")
    assert "Ridders" in numeric_evidence.data["method"]  # a derivative of a derivative


def test_the_chain_rule_through_a_vector_substitution():
    # ∂_ε[core(y)|_{y=core(z)}] = (D_y core(y)[∂_ε core(z)] + ∂_ε core(y))|_{y=core(z)}
    lhs = diff(core(y).subs(y, core(z)), eps)
    rhs = (jvp(core(y), y, diff(core(z), eps)) + diff(core(y), eps)).subs(y, core(z))
    assert chain_rule(lhs) == chain_rule(rhs)
    decision = GeneralEngine().decide(Eq(lhs, rhs))
    assert decision.proved and "after the chain rule" in decision.detail
    proved_by_every_engine(Claim("chain.eps", Eq(lhs, rhs)))
    # a scalar the outer function does not mention contributes no second term
    assert chain_rule(diff(var(y).subs(y, core(z)), a)) == jvp(var(y), y, diff(core(z), a)).subs(
        y, core(z)
    )


def test_no_derivative_is_taken_through_a_kink():
    # √(a²) is |a|: its derivative sign(a) does not exist at a = 0, where SymPy says 0 —
    # every engine would agree on it. Refused before any engine runs (lnsym.ir.kinks).
    for statement in (Eq(diff(sqrt(a**2), a), sympy.sign(a)), Eq(diff(sqrt(a**2), a) ** 2, 1)):
        result = check(Claim("abs.a", statement))
        assert result.verdict == "ERROR"
        assert [e.engine for e in result.evidence] == ["differentiability"]
        assert "Abs(a)" in result.reason and "a ≠ 0" in result.reason
    # Kept away from the kink by its assumptions (k > 0), the derivative exists.
    assert check(Claim("abs.k", Eq(diff(sqrt(k**2), k), 1))).verdict == "PROVED"


# -- substitutions around and inside a derivative ------------------------------------


def test_a_derivative_is_taken_before_its_symbol_is_evaluated():
    # (∂u_t/∂t)|_{t=0} = −u₀/(2q): differentiate, then set t = 0 (t a real stabilizer:
    # ε itself is positive and may not be set to 0) ...
    at_zero = diff(core(z, a), a).subs(a, 0)
    proved_by_every_engine(
        Claim("core.eps_at_0", Eq(at_zero, -core(z, 0) / (2 * var(z))), (nonconstant(z),))
    )
    # ... whereas u₀ = u_t|_{t=0} no longer depends on t at all.
    proved_by_every_engine(Claim("core0.eps", Eq(diff(core(z, a).subs(a, 0), a), 0)))
    found = refuted(Claim("swap", Eq(at_zero, diff(core(z, a).subs(a, 0), a)), expect="refuted"))
    assert found.rhs == (0,) * found.d and found.lhs != found.rhs


def test_evaluating_at_a_value_that_holds_the_symbol_does_not_capture_it():
    # (∂(ab + b²)/∂a)|_{b=a} = b|_{b=a} = a, not ∂(a·a + a²)/∂a = 4a.
    lhs = diff(a * b + b**2, a).subs(b, a)
    engine = GeneralEngine()
    assert engine.decide(Eq(lhs, a)).proved
    assert not engine.decide(Eq(lhs, 4 * a)).proved
    proved_by_every_engine(Claim("capture", Eq(lhs, a)))
    # the same for a substitution inside: ((ba)|_{a=1})|_{b=a} = b|_{b=a} = a
    inner = (b * a + var(z)).subs(a, 1).subs(b, a)
    assert engine.decide(Eq(inner, a + var(z))).proved


def test_a_positive_symbol_is_not_evaluated_where_it_is_not_positive():
    # ε's positivity may already be used by SymPy (√(ε²) is ε): ε = 0 is refused when built.
    with pytest.raises(ExpressionError, match="epsilon is positive"):
        diff(core(z), eps).subs(eps, 0)
    with pytest.raises(ExpressionError, match="k is positive"):
        sqrt(k**2).subs(k, a)


# -- refuted claims, with exact counterexamples --------------------------------------


def core_derivative_at(found: lnsym.Counterexample) -> tuple[sympy.Expr, ...]:
    """−u/(2(q + ε)) at the counterexample's point, computed here from the formula."""
    x = sympy.Matrix(found.vectors["z"])
    epsilon = found.scalars["epsilon"]
    centered = x - sympy.ones(found.d, 1) * sum(x) / found.d
    q = (centered.T * centered)[0, 0] / found.d
    return tuple(
        sympy.nsimplify(c) for c in -centered / (2 * (q + epsilon) ** sympy.Rational(3, 2))
    )


@pytest.mark.parametrize(
    "wrong",
    [
        0 * ones,  # "the core does not depend on ε"
        -core(z) / (var(z) + eps),  # the factor 1/2 missing
        core(z) / (2 * (var(z) + eps)),  # the sign wrong
    ],
    ids=["zero", "missing_half", "sign"],
)
def test_wrong_derivatives_of_the_core_are_refuted_exactly(wrong):
    found = refuted(Claim("core.eps.wrong", Eq(diff(core(z), eps), wrong), expect="refuted"))
    assert found.d >= 2 and found.scalars["epsilon"] > 0
    assert tuple(sympy.simplify(v) for v in found.lhs) == core_derivative_at(found)
    assert found.lhs != found.rhs


def test_wrong_scalar_derivatives_are_refuted_exactly():
    found = refuted(Claim("root.half", Eq(diff(s, eps), 1 / s), expect="refuted"))
    assert sympy.simplify(found.lhs - found.rhs / 2) == 0  # lhs = 1/(2s), rhs = 1/s
    found = refuted(
        Claim(
            "gain.wrong", Eq(diff(layer_norm(z, a * ones, beta), a), a * core(z)), expect="refuted"
        )
    )
    assert found.scalars["a"] != 1  # at a = 1 the two sides agree
    found = refuted(
        Claim("eps2.wrong", Eq(diff(diff(s, eps), eps), 1 / (4 * s**3)), expect="refuted")
    )
    assert sympy.simplify(found.lhs + found.rhs) == 0


# -- each engine on its own ----------------------------------------------------------


def test_the_concrete_engines_exact_and_sympy_routes_agree_on_a_derivative():
    point = {"z": (Q(0), Q(1), Q(3))}
    for f in (diff(core(z), eps), diff(diff(core(z), eps), eps), diff(var(z) * a**2, a)):
        exact = Evaluator(3, point, {eps: Q(1, 3), a: Q(-2)}, Tower()).value(f)
        exact = tuple(map(to_sympy, exact)) if isinstance(exact, tuple) else to_sympy(exact)
        values = {z: [0, 1, 3], eps: sympy.Rational(1, 3), a: -2}
        symbolic = instantiate(f, 3, values)
        symbolic = tuple(symbolic) if isinstance(symbolic, sympy.Matrix) else symbolic
        assert exact == symbolic


def test_random_rational_points_bound_a_scalar_derivative():
    claim = Claim("core.eps", Eq(diff(core(z), eps), -core(z) / (2 * (var(z) + eps))))
    found = concrete.evidence(claim, max_d=4, symbolic_up_to=0)
    assert found.outcome == "holds"
    assert "random rational points" in found.detail  # a degree bound exists for ∂/∂ε


def test_the_numeric_engine_differentiates_in_the_scalar_in_forward_mode():
    claim = Claim("core.eps", Eq(diff(core(z), eps), -core(z) / (2 * (var(z) + eps))))
    found = numeric.evidence(claim, samples=60)
    assert found.outcome == "consistent"
    assert found.data["method"].startswith("forward mode (dual numbers)")
    wrong = Claim("core.eps.wrong", Eq(diff(core(z), eps), -core(z) / (var(z) + eps)))
    assert numeric.evidence(wrong, samples=60).outcome == "counterexample"


def test_the_general_engine_differentiates_roots_of_the_symbol():
    engine = GeneralEngine()
    assert engine.decide(Eq(diff(sqrt(eps), eps), 1 / (2 * sqrt(eps)))).proved
    assert engine.decide(Eq(diff(sqrt(var(z) + a**2), a), a / sqrt(var(z) + a**2))).proved
    assert not engine.decide(Eq(diff(sqrt(var(z) + a**2), a), 1 / sqrt(var(z) + a**2))).proved
    # a derivative of a Jvp along an ε-dependent direction
    assert engine.decide(Eq(diff(Jvp(var(z), z, eps * h), eps), jvp(var(z), z, h))).proved
