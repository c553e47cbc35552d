"""Tests for the concrete engine: exact instantiation, SymPy's own derivatives, exact verdicts."""

from __future__ import annotations

from fractions import Fraction

import pytest
import strategies
import sympy
from hypothesis import event, given, settings
from hypothesis import strategies as st
from sympy.polys.domains import QQ
from sympy.polys.rings import ring

from lnsym import (
    Eq,
    Le,
    center,
    centered,
    core,
    d,
    dimension,
    dimension_at_least,
    dot,
    eps,
    grad,
    ir,
    jvp,
    layer_norm,
    mean,
    nonconstant,
    norm,
    ones,
    opnorm,
    orthogonal,
    scalar,
    var,
    vector,
    vjp,
)
from lnsym.checking.budget import time_budget
from lnsym.checking.catalog import load
from lnsym.checking.claims import Claim, DerivationResult, derivation_claims
from lnsym.engines.base import Evidence
from lnsym.engines.concrete.engine import check_dimension, evidence, instantiate, jacobian
from lnsym.errors import BudgetExceeded, DomainError, ExpressionError, UnsupportedError
from lnsym.ir.calculus import OperatorNorm
from lnsym.ir.matrices import has_matrices
from lnsym.printing.evidence import counterexample_record

z, h, a, b, g = vector("z"), vector("h"), vector("a"), vector("b"), vector("g")
gamma, beta = vector("gamma"), vector("beta")
c = scalar("c", positive=True)
u = core(z)
s = (var(z) + eps) ** sympy.Rational(1, 2)
R = sympy.Rational


def closed_form(direction: ir.Expr) -> ir.Expr:
    return (center(direction) - u * dot(u, direction) / d) / s


# ---------------------------------------------------------------------------------------
# Instantiation and derivatives


def test_core_at_rational_points_is_exact() -> None:
    assert instantiate(u, 3, {z: [1, 2, 3], eps: R(1, 3)}) == sympy.Matrix([-1, 0, 1])
    expected = sympy.Matrix([-4, -1, 5]) / sympy.sqrt(17)
    assert instantiate(u, 3, {z: [1, 2, 4], eps: Fraction(1, 3)}) == expected


def test_symbolic_instantiation_uses_coordinate_symbols() -> None:
    z1, z2 = sympy.symbols("z_1 z_2", real=True)
    assert sympy.expand(instantiate(var(z), 2) - ((z1 - z2) / 2) ** 2) == 0
    assert instantiate(ones * d, 3) == sympy.Matrix([3, 3, 3])
    # A user scalar named like a coordinate would silently become it: refused instead.
    z_1 = scalar("z_1")
    with pytest.raises(ExpressionError, match="z_1 has the name of a coordinate of the vector z"):
        instantiate(mean(z) + z_1, 2)
    with pytest.raises(ExpressionError, match="coordinate"):
        jacobian(z * z_1, z, 2)
    assert instantiate(mean(z) + z_1, 2, {z: [1, 3]}) == 2 + z_1  # no coordinates needed
    assert jacobian(z * z_1, z, 2, {z: [1, 3]}) == z_1 * sympy.eye(2)


def test_checks_use_coordinates_no_user_scalar_can_equal() -> None:
    z_1, z_2 = scalar("z_1"), scalar("z_2")
    assert check_dimension(Claim("x", Eq(dot(z, ones), z_1)), 1).status == "counterexample"
    claim = Claim("y", Eq(dot(z, ones), z_1 + z_2), [dimension(2)])
    assert counterexample_record(evidence(claim).counterexample)["d"] == 2


def test_jacobian_of_the_core_matches_the_closed_form_exactly() -> None:
    point = {z: [-1, 1], eps: 3}
    # q = 1, s = 2, u = (−1/2, 1/2): J = (P − uuᵀ/2)/2.
    P = sympy.eye(2) - sympy.ones(2, 2) / 2
    u0 = sympy.Matrix([R(-1, 2), R(1, 2)])
    expected = (P - u0 * u0.T / 2) / 2
    assert jacobian(u, z, 2, point) == expected
    assert expected == sympy.Matrix([[R(3, 16), R(-3, 16)], [R(-3, 16), R(3, 16)]])
    # The directional derivative (sympy.diff in t) agrees with Matrix.jacobian.
    columns = [instantiate(jvp(u, z, h), 2, {**point, h: e}) for e in ([1, 0], [0, 1])]
    assert sympy.Matrix.hstack(*columns) == expected


def test_vjp_and_grad_are_transposed_jacobians() -> None:
    point = {z: [0, 1, 3], gamma: [2, -1, R(1, 2)], beta: [1, 1, 1], eps: 1, g: [1, -2, 5]}
    y = layer_norm(z, gamma, beta)
    expected = jacobian(y, z, 3, point).T * sympy.Matrix([1, -2, 5])
    for value in (instantiate(vjp(y, z, g), 3, point), instantiate(grad(dot(g, y), z), 3, point)):
        assert sympy.simplify(value - expected) == sympy.zeros(3, 1)
    assert expected.free_symbols == set()


def test_operator_norm_only_at_exact_points() -> None:
    # At a constant input u = 0 and J = P/√ε, whose norm is 1/√ε = 2.
    assert instantiate(opnorm(u, z), 3, {z: [5, 5, 5], eps: R(1, 4)}) == 2
    # d = 2, z = (0, 1), ε = 1: the norm is the eigenvalue ε/((q + ε)s) on u, 8/(5√5).
    assert instantiate(opnorm(u, z), 2, {z: [0, 1], eps: 1}) == 8 * sympy.sqrt(5) / 25
    with pytest.raises(UnsupportedError):
        instantiate(opnorm(u, z), 2)


def test_values_are_exact_numbers_only() -> None:
    with pytest.raises(ExpressionError):
        instantiate(u, 2, {z: [0.5, 1]})
    with pytest.raises(ExpressionError):
        instantiate(u, 2, {z: ["1", "2"]})
    with pytest.raises(ExpressionError):
        instantiate(u, 2, {z: [1, 2, 3]})


# ---------------------------------------------------------------------------------------
# The catalog


def _catalog() -> list[Claim]:
    items: list[Claim] = []
    for section in load():
        items.extend(section.claims)
        for derivation in section.derivations:
            items.extend(derivation_claims(derivation))
    return items


#: Claims whose outer root has a square radicand (‖w‖ = √(g²) for weight normalization w):
#: at a random point its value is a rational square, which the engine cannot certify
#: independent of the other roots, so it reports "consistent"; the general engine proves them.
_ROOT_OF_A_SQUARE = {"weight_norm.norm"}


def _expected(claim: Claim) -> str:
    if claim.expect == "refuted":
        return "counterexample"
    if claim.id in _ROOT_OF_A_SQUARE:
        return "consistent"
    statement = claim.statement
    sides = (statement.lhs, statement.rhs)
    if any(isinstance(n, OperatorNorm) for side in sides for n in ir.walk(side)):
        return "consistent"  # a maximum over directions: checked at exact points only
    if isinstance(statement, Le) and not statement.certificate:
        return "consistent"
    return "holds"


def _from_the_shared_run(claim: Claim) -> Evidence:
    """The concrete engine's evidence on ``claim`` from the test session's one full check of
    the catalog (tests/report_support.py), computed here when that check did not run it."""
    from report_support import catalog_results

    for outcome in catalog_results().values():
        for result in outcome.steps if isinstance(outcome, DerivationResult) else (outcome,):
            if result.claim.id == claim.id:
                found = [e for e in result.evidence if e.engine == "concrete"]
                if found:
                    return found[0]
    return evidence(claim, max_d=8)  # e.g. both sides identical: no engine ran


@pytest.mark.parametrize("claim", _catalog(), ids=lambda claim: claim.id)
def test_catalog_claims_at_every_dimension_up_to_8(claim: Claim) -> None:
    # The full check uses the default options: the concrete engine at d = 1..8, seed 0.
    result = _from_the_shared_run(claim)
    if has_matrices(claim.statement):  # checked entry by entry at small (n, d, m)
        held = ("holds", "consistent")
        assert result.outcome in (("counterexample",) if claim.expect == "refuted" else held)
        assert result.data["exact"] is True and result.data["sizes"]
        return
    assert result.outcome == _expected(claim), result.detail
    assert result.data["exact"] is True
    if result.outcome != "counterexample":
        dims = ir.dimensions(claim.assumptions, 8)
        if any(isinstance(x, ir.Nonconstant) for x in claim.assumptions):
            dims = [k for k in dims if k >= 2]  # d = 1 has no non-constant vector
        # Where an atom meets d or more linear constraints, nothing is decided.
        from lnsym.engines.concrete.problem import _Problem

        sides = (claim.statement.lhs, claim.statement.rhs)
        problem = _Problem.of(*sides, "eq", claim.assumptions)
        special = [k for k in dims if problem.overdetermined(k)]
        assert result.data.get("special_dimensions", []) == special
        assert result.data["dimensions"] == [k for k in dims if k not in special]


# ---------------------------------------------------------------------------------------
# Exact counterexamples


def _counterexample(statement: ir.Relation, *assumptions: ir.Assumption) -> dict:
    result = evidence(Claim("false", statement, assumptions))
    assert result.outcome == "counterexample", result.detail
    assert result.data["exact"] is True
    assert result.counterexample is not None
    return counterexample_record(result.counterexample)


def test_the_core_is_not_constant_along_the_input() -> None:
    found = _counterexample(Eq(jvp(u, z, z), 0))
    # J z = ε/(q + ε)·u: at z = (0, 1), ε = 1 that is 4/5·(−1, 1)/√5.
    assert found["d"] == 2
    assert found["vectors"] == {"z": ["0", "1"]}
    assert found["scalars"] == {"epsilon": "1"}
    assert found["lhs"] == "(-4*sqrt(5)/25, 4*sqrt(5)/25)"
    assert found["rhs"] == "(0, 0)"
    assert found["lhs_decimal"] == "(-0.357770876400, 0.357770876400)"
    assert found["lhs_latex"] == r"\left(- \frac{4 \sqrt{5}}{25}, \frac{4 \sqrt{5}}{25}\right)"


def test_scale_invariance_fails_with_positive_eps() -> None:
    found = _counterexample(Eq(core(c * z), core(z)))
    assert (found["d"], found["vectors"], found["scalars"]) == (
        2,
        {"z": ["0", "1"]},
        {"c": "2", "epsilon": "1"},
    )
    assert (found["lhs"], found["rhs"]) == ("(-sqrt(2)/2, sqrt(2)/2)", "(-sqrt(5)/5, sqrt(5)/5)")


def test_the_layer_output_has_neither_unit_variance_nor_zero_mean() -> None:
    y = layer_norm(z, gamma, beta)
    # Both fail at d = 1 already (z = (0), γ = 0), where they say little: the counterexample
    # shown is the first informative one, d ≥ 2 with no vector zero.
    found = _counterexample(Eq(var(y), 1))
    assert (found["d"], found["lhs"], found["rhs"]) == (2, "sqrt(5)/10 + 3/10", "1")
    found = _counterexample(Eq(mean(y), 0))
    assert found["d"] == 2
    assert found["vectors"] == {"beta": ["0", "1"], "gamma": ["0", "1"], "z": ["0", "1"]}
    assert (found["lhs"], found["rhs"]) == ("sqrt(5)/10 + 1/2", "0")


def test_the_jacobian_without_its_rank_one_term_is_refuted() -> None:
    # SymPy 1.14's matrix-expression calculus returns J = P/s; the true J subtracts uuᵀ/(d s).
    found = _counterexample(Eq(jvp(u, z, h), center(h) / s))
    assert found["d"] == 2
    point = {
        h: [sympy.Integer(x) for x in found["vectors"]["h"]],
        z: [sympy.Integer(x) for x in found["vectors"]["z"]],
        eps: sympy.Integer(found["scalars"]["epsilon"]),
    }
    true_value = instantiate(closed_form(h), 2, point)
    dropped = instantiate(center(h) / s, 2, point)
    assert true_value != dropped
    assert found["lhs"] == "(" + ", ".join(str(x) for x in true_value) + ")"
    assert found["rhs"] == "(" + ", ".join(str(x) for x in dropped) + ")"


def test_counterexamples_respect_the_dimension_range() -> None:
    # ‖J‖₂ = 1/s fails at d = 1 (J = 0, shown at the informative d = 2) and d = 2; from
    # d = 3 the claim is consistent.
    statement = Eq(opnorm(u, z), 1 / s)
    assert _counterexample(statement)["d"] == 2
    assert _counterexample(statement, dimension_at_least(2))["d"] == 2
    assert evidence(Claim("n", statement, [dimension_at_least(3)]), max_d=4).outcome == (
        "consistent"
    )


# ---------------------------------------------------------------------------------------
# Assumptions, inequalities, large d


def test_assumptions_restrict_the_points() -> None:
    assert evidence(Claim("c", Eq(mean(h), 0), [centered(h)])).outcome == "holds"
    assert evidence(Claim("o", Eq(dot(a, b), 0), [orthogonal(a, b)])).outcome == "holds"
    both = Claim("ob", Eq(dot(a, b) + mean(b), 0), [orthogonal(a, b), centered(b)])
    assert evidence(both, max_d=4).outcome == "holds"
    assert _counterexample(Eq(mean(h), 0))["vectors"] == {"h": ["0", "1"]}
    idealized = Claim("i", Eq(core(c * z, 0), core(z, 0)), [nonconstant(z)])
    result = evidence(idealized, max_d=3)
    assert result.outcome == "holds"
    assert result.data["dimensions"] == [2, 3]  # d = 1 has no non-constant vector


def test_inequalities_need_a_true_certificate() -> None:
    found = _counterexample(Le(1, var(z)))
    assert (found["d"], found["lhs"], found["rhs"]) == (2, "1", "1/4")
    # A term of unknown sign proves nothing, and here the inequality is false.
    found = _counterexample(Le(var(z), var(z) + mean(z), certificate=[mean(z)]))
    assert (found["vectors"], found["lhs"], found["rhs"]) == ({"z": ["0", "-1"]}, "1/4", "-1/4")
    # A wrong certificate for a true inequality: consistent, never "holds".
    wrong = evidence(Claim("w", Le(var(z), var(z) + eps, certificate=[2 * eps])), max_d=2)
    assert wrong.outcome == "consistent"
    assert "certificate identity fails at d = 1" in wrong.detail
    right = evidence(Claim("r", Le(var(z), var(z) + eps, certificate=[eps])), max_d=2)
    assert right.outcome == "holds"
    assert right.data["methods"] == {1: "symbolic", 2: "symbolic"}


def test_evidence_data_for_a_symbolic_check() -> None:
    result = evidence(Claim("j", Eq(jvp(u, z, h), closed_form(h))), max_d=3)
    assert result.engine == "concrete"
    assert result.outcome == "holds"
    assert result.detail == "exact for d = 1..3 (symbolic reduction with s² = q + ε)"
    assert result.data == {
        "exact": True,
        "dimensions": [1, 2, 3],
        "methods": {1: "symbolic", 2: "symbolic", 3: "symbolic"},
    }


def test_random_rational_points_beyond_the_symbolic_range() -> None:
    claim = Claim("j", Eq(jvp(u, z, h), closed_form(h)), [dimension(12)])
    result = evidence(claim, max_d=12)
    assert result.outcome == "holds"
    assert result.data["methods"] == {12: "random-rational"}
    assert result.data["points"] == 2
    assert 0 < result.data["false_positive_bound"] < 1e-20
    large = check_dimension(claim, 64)
    assert (large.status, large.method, large.samples) == ("holds", "random-rational", 2)


def test_random_points_certify_their_square_roots() -> None:
    # √(h²) = |h| agrees with h on half the space: no random point may count as proof.
    found = _counterexample(Eq(norm(h), dot(h, ones)))
    assert (found["d"], found["vectors"], found["lhs"], found["rhs"]) == (
        2,
        {"h": ["0", "-1"]},
        "1",
        "-1",
    )
    # √(q(z + c1) + ε) takes the value s² of the layer's own root: the same root.
    shift = evidence(Claim("s", Eq(core(z + c * ones), core(z)), [dimension(12)]), max_d=12)
    assert (shift.outcome, shift.data["methods"]) == ("holds", {12: "random-rational"})
    # √(c²·q) and √q are dependent: without the symbolic reduction only "consistent".
    idealized = Claim("i", Eq(core(c * z, 0), core(z, 0)), [nonconstant(z), dimension(12)])
    result = evidence(idealized, max_d=12)
    assert result.outcome == "consistent"
    assert "cannot certify" in result.detail


def test_a_false_claim_is_refuted_beyond_the_symbolic_range() -> None:
    claim = Claim("dropped", Eq(jvp(u, z, h), center(h) / s), [dimension(10)])
    result = evidence(claim, max_d=10)
    assert result.outcome == "counterexample"
    assert counterexample_record(result.counterexample)["d"] == 10


def test_norms_and_substitutions() -> None:
    claim = Claim(
        "attained", Eq(norm(jvp(u, z, h)).subs(z, c * ones) ** 2, norm(h) ** 2 / eps), [centered(h)]
    )
    assert evidence(claim, max_d=4).outcome == "holds"
    assert (
        _counterexample(Eq(norm(jvp(u, z, h)).subs(z, c * ones) ** 2, norm(h) ** 2 / eps))["d"] == 2
    )


def test_inequalities_are_searched_even_with_a_valid_certificate() -> None:
    # The certificate identity holds at every d (SymPy writes (√x)² as x), but the
    # inequality itself is false: the search finds the violation first.
    false = Claim("f", Le(var(z), 1, certificate=[((1 - var(z)) ** R(1, 2)) ** 2]))
    found = counterexample_record(evidence(false).counterexample)
    assert (found["d"], found["vectors"], found["lhs"], found["rhs"]) == (
        2,
        {"z": ["0", "3"]},
        "9/4",
        "1",
    )
    # Fractions and negatives: c ≤ c² fails only for 0 < c < 1.
    k = scalar("k")
    found = counterexample_record(evidence(Claim("g", Le(k, k**2))).counterexample)
    assert (found["d"], found["scalars"]) == (1, {"k": "1/2"})


def test_adversarial_points_use_fractions_negatives_and_boundaries() -> None:
    import random

    from lnsym.engines.concrete.engine import _adversarial, _Problem

    k = scalar("k")
    problem = _Problem.of(mean(h) + k, ir.as_scalar(999), "le", [centered(h)])
    points = list(_adversarial(problem, 3, random.Random(0)))
    assert len(points) >= 48
    entries = {x for p in points for x in p.vectors["h"]}
    values = {p.scalars[k] for p in points}
    assert all(sum(p.vectors["h"]) == 0 for p in points)  # the assumption holds exactly
    assert any(not x.is_integer for x in entries) and any(x < 0 for x in entries)
    assert {R(1, 2), R(-1, 2), R(1, 3)} <= values
    assert {999, R(998999, 1000), R(999001, 1000), 998, 1000} <= values  # around 999
    positive = _Problem.of(ir.as_scalar(c), ir.as_scalar(1), "le", [])
    assert all(p.scalars[c] > 0 for p in _adversarial(positive, 1, random.Random(0)))


def test_claims_without_vectors_are_tried_at_large_d() -> None:
    found = counterexample_record(evidence(Claim("d", Le(d, 999))).counterexample)
    assert (found["d"], found["lhs"]) == (1000, "1000")
    result = evidence(Claim("d2", Le(d, d**2)), max_d=3)
    assert result.outcome == "consistent"
    assert result.data["dimensions"] == [1, 2, 3, 10, 16, 64, 100, 1000, 10**4, 10**6, 10**9]
    bounded = evidence(Claim("d3", Le(d, 999), [dimension_at_least(2), dimension(1000)]))
    assert counterexample_record(bounded.counterexample)["d"] == 1000
    # A vector makes d costly: only 1..max_d then.
    result = evidence(Claim("v", Eq(mean(z) * 0, 0)), max_d=2)
    assert result.data["dimensions"] == [1, 2]


def test_undefined_dimensions_are_skipped_and_noted() -> None:
    claim = Claim("ideal", Eq(core(c * z, 0), core(z, 0)))  # 0/0 at every point of d = 1
    assert check_dimension(claim, 1).status == "undefined"
    result = evidence(claim, max_d=3)
    assert result.outcome == "holds"
    assert result.data["dimensions"] == [2, 3]
    assert result.data["undefined_dimensions"] == [1]
    refuted = evidence(Claim("x", Eq(mean(z) / (d - 1), mean(z))))  # true at d = 2
    assert refuted.counterexample is not None
    assert (refuted.counterexample.d, refuted.data["dimensions"]) == (3, [2, 3])
    assert refuted.data["undefined_dimensions"] == [1]
    with pytest.raises(DomainError, match="undefined at every point tried at d = 1..3"):
        evidence(Claim("never", Eq(mean(z) / (var(z) - var(z)), 0)), max_d=3)


@pytest.mark.parametrize("direct", [True, False])
def test_a_part_undefined_everywhere_is_undefined_under_a_derivative_too(
    direct: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # core(z, k)|_{k=0} is 0/0 at every point of d = 1; its derivative in k does not hold the
    # perturbation, which must not make it 0 — on either symbolic route or at exact points.
    import lnsym.engines.concrete.engine as concrete
    from lnsym import diff

    monkeypatch.setattr(concrete, "DIRECT_RING", direct)
    k = scalar("k")  # a real stabilizer: ε is positive and may not be set to 0
    for claim in [
        Claim("core0.eps", Eq(diff(core(z, k).subs(k, 0), k), 0)),
        Claim("scaled", Eq(diff(core(z, 0) * c, c), core(z, 0))),
    ]:
        assert check_dimension(claim, 1).status == "undefined"
        result = evidence(claim, max_d=3)
        assert (result.outcome, result.data["undefined_dimensions"]) == ("holds", [1])


def test_non_real_values_are_undefined() -> None:
    # (−8)^(1/3) is 1 + √3·i in SymPy: a point outside the claim's (real) domain.
    k = scalar("k")
    found = counterexample_record(
        evidence(Claim("cbrt", Eq((mean(z) - 8) ** R(1, 3), mean(z)))).counterexample
    )
    assert found["vectors"] == {"z": ["8"]}
    found = counterexample_record(
        evidence(Claim("cbrt2", Eq((k - 9) ** R(1, 3) * k, k))).counterexample
    )
    assert found["scalars"] == {"k": "9"}
    root = evidence(Claim("root", Le((mean(z) - 4) ** R(1, 2), mean(z))), max_d=2)
    assert root.outcome == "consistent"  # true wherever defined


def test_symbolic_exponents_take_their_values() -> None:
    k = scalar("k", positive=True)
    found = counterexample_record(evidence(Claim("pow", Eq((var(z) + 1) ** k, 1))).counterexample)
    assert (found["d"], found["scalars"]) == (2, {"k": "1"})


def test_recheck_and_promote() -> None:
    from lnsym.engines.concrete.engine import promote, recheck

    false = Claim("scale", Eq(core(2 * z), core(z)))
    point = {"d": 2, "vectors": {"z": ["0", "1"]}, "scalars": {"epsilon": "1"}}
    found, how = recheck(false, point)
    assert found is not None and counterexample_record(found)["lhs"] == "(-sqrt(2)/2, sqrt(2)/2)"
    assert how.startswith("re-checked exactly")
    assert recheck(false, {**point, "vectors": {"z": ["1", "1"]}}) == (
        None,
        "the relation holds at the point",
    )
    assert recheck(false, {**point, "scalars": {}})[1] == "no value for the scalar epsilon"
    assert recheck(false, {**point, "d": 0})[1] == "the dimension 0 is not a positive integer"
    sample = {"d": 2, "vectors": {"z": [0.1, 0.7000001]}, "scalars": {"epsilon": 0.25}}
    found, how = promote(false, sample)
    assert found is not None and found.vectors == {"z": (R(1, 10), R(7, 10))}
    assert "rounded to 6 significant digits" in how
    centered_claim = Claim("c", Eq(mean(h) + 1, 0), [centered(h)])
    found, _ = promote(centered_claim, {"d": 2, "vectors": {"h": [0.3, -0.30000000001]}})
    assert found is not None and found.vectors == {"h": (R(3, 10), R(-3, 10))}
    true = Claim("t", Eq(core(z + c * ones), core(z)))
    sample = {"d": 2, "vectors": {"z": [0.1, 0.7]}, "scalars": {"epsilon": 0.25, "c": 2.0}}
    assert promote(true, sample)[0] is None
    assert promote(false, {**sample, "d": 100})[0] is None


def test_budgets_propagate() -> None:
    # Fresh names, so that no value cached by an earlier test makes the check instant.
    a, b = vector("budget_a"), vector("budget_b")
    claim = Claim("j", Eq(jvp(jvp(core(a), a, b), a, b), jvp(jvp(core(a), a, b), a, b) * 1))
    with pytest.raises(BudgetExceeded), time_budget(0.01):
        evidence(claim, max_d=8)


def test_an_expired_budget_is_not_lost_where_its_exception_is_swallowed() -> None:
    import time as clock

    swallowed = 0
    with pytest.raises(BudgetExceeded), time_budget(0.01):
        end = clock.monotonic() + 5
        while clock.monotonic() < end:
            try:
                clock.sleep(0.005)
            except BudgetExceeded:  # a library that catches too much
                swallowed += 1
                if swallowed >= 2:
                    raise
    assert swallowed == 2


# ---------------------------------------------------------------------------------------
# Exact arithmetic at points (lnsym.engines.concrete.exact) against SymPy


def test_square_root_towers_decide_signs_and_inverses_exactly() -> None:
    from lnsym.engines.concrete.exact import ONE, Q, Tower, Undefined, inverse, sign, to_sympy

    tower = Tower()
    r2 = tower.sqrt(Q(2))
    assert to_sympy(r2) == sympy.sqrt(2)
    assert tower.sqrt(Q(8)).b == 2 and tower.sqrt(Q(8)).root is r2.root  # √8 = 2√2
    assert tower.sqrt(Q(9, 4)) == Q(3, 2) and tower.sqrt(Q(0)) == 0
    assert len(tower.roots) == 1
    signs = [sign(x) for x in (1 - r2, 3 - 2 * r2, r2 * r2 - 2, 2 * r2 - 3, 3 * r2 - 4)]
    assert signs == [-1, 1, 0, -1, 1]
    assert to_sympy(inverse(1 + r2)) == sympy.sqrt(2) - 1
    # √(3 + 2√2) = 1 + √2 is adjoined as a new root (no denesting): signs stay exact, and
    # an inverse whose norm vanishes finds the root in the field below.
    r = tower.sqrt(3 + 2 * r2)
    assert len(tower.roots) == 2 and sign(r - 1 - r2) == 0 and sign(r - r2 - Q(99, 100)) == 1
    assert sign(inverse(r + 1 + r2) * (2 + 2 * r2) - ONE) == 0
    with pytest.raises(ZeroDivisionError):
        inverse(r - 1 - r2)
    # Arithmetic across levels, against SymPy's numbers.
    r3 = tower.sqrt(Q(3))
    x, y = 2 * r2 - r3 * r + Q(1, 3), r3 + r * r2 - 5
    sx = 2 * sympy.sqrt(2) - sympy.sqrt(3) * (1 + sympy.sqrt(2)) + R(1, 3)
    sy = sympy.sqrt(3) + (1 + sympy.sqrt(2)) * sympy.sqrt(2) - 5
    for found, expected in ((x + y, sx + sy), (x - y, sx - sy), (x * y, sx * sy), (x / y, sx / sy)):
        assert sympy.simplify(to_sympy(found) - expected) == 0
        assert sign(found) == (1 if expected.evalf() > 0 else -1)
    with pytest.raises(Undefined):
        tower.sqrt(1 - r2)


def test_jets_take_nested_derivatives_like_sympy() -> None:
    from lnsym.engines.concrete.exact import Evaluator, Q, Tower, rational, to_sympy

    point = {z: [1, -2, 4], h: [R(1, 2), 0, -1], a: [2, 1, R(-1, 3)], eps: R(1, 5)}
    exact_point = {v.name: tuple(rational(R(x)) for x in point[v]) for v in (z, h, a)}
    ev = Evaluator(3, exact_point, {eps: Q(1, 5)}, Tower())
    for e in (
        jvp(jvp(u, z, h), z, a),
        grad(norm(jvp(u, z, h)) ** 2, z),
        vjp(layer_norm(z, a, h), z, h),
        jvp(grad(dot(u, a), z), z, h),
    ):
        expected = instantiate(e, 3, point)
        found = sympy.Matrix([to_sympy(x) for x in ev.value(e)])
        assert sympy.simplify(found - expected) == sympy.zeros(3, 1), e


@settings(max_examples=60)
@given(
    entries=st.lists(
        st.sampled_from([R(0), R(1), R(-1), R(2), R(-1, 2), R(1, 3), R(3)]), min_size=9, max_size=9
    ),
    d=st.sampled_from([1, 2, 3]),
)
def test_largest_eigenvalue_by_flint_factors_is_sympys(entries: list, d: int) -> None:
    """The operator norm's fast route (FLINT's factors of degree 2 at most) gives SymPy's
    largest root of the characteristic polynomial exactly, and declines (None) where a
    factor of higher degree would need SymPy."""
    from lnsym.engines.concrete.exact import Tower, _largest_eigenvalue, rational, to_sympy

    a = sympy.Matrix(d, d, entries[: d * d])
    gram = a.T * a  # symmetric, positive semidefinite: real eigenvalues
    exact = [[rational(gram[i, j]) for j in range(d)] for i in range(d)]
    found = _largest_eigenvalue(exact, Tower())
    roots = sympy.roots(gram.charpoly())
    factors = sympy.factor_list(gram.charpoly().as_expr())[1]
    if any(sympy.degree(f) > 2 for f, _ in factors):
        assert found is None
        return
    assert found is not None and sum(roots.values()) == d
    largest = max(roots, key=lambda lam: sympy.re(lam.evalf(50)))
    assert sympy.simplify(to_sympy(found) - largest) == 0


def test_largest_eigenvalue_of_a_quadratic_factor_and_irrational_entries() -> None:
    """An irrational largest eigenvalue is exact; a matrix with an irrational entry is left
    to SymPy (None)."""
    from lnsym.engines.concrete.exact import Q, Tower, _largest_eigenvalue, rational, to_sympy

    gram = sympy.Matrix([[2, 1, 0], [1, 1, 0], [0, 0, R(1, 2)]])  # (x² − 3x + 1)(x − 1/2)
    exact = [[rational(gram[i, j]) for j in range(3)] for i in range(3)]
    found = _largest_eigenvalue(exact, Tower())
    assert sympy.simplify(to_sympy(found) - (3 + sympy.sqrt(5)) / 2) == 0
    tower = Tower()
    assert _largest_eigenvalue([[tower.sqrt(Q(2))]], tower) is None


@pytest.mark.parametrize("d", [2, 3, 4])
def test_operator_norm_exact_route_equals_sympys(d: int) -> None:
    """‖Du(z)‖₂ at exact points, by the exact evaluator (FLINT's factors) and by the SymPy
    route: the same number."""
    from lnsym.engines.concrete.engine import _Evaluator
    from lnsym.engines.concrete.exact import Evaluator, Tower, rational, to_sympy

    for vector_values, e in (([1, 2, -3, 5][:d], R(1, 3)), ([0, 1, 1, 4][:d], R(2))):
        point = {"z": tuple(R(x) for x in vector_values)}
        exact_point = {"z": tuple(rational(x) for x in point["z"])}
        found = Evaluator(d, exact_point, {eps: rational(e)}, Tower()).value(opnorm(u, z))
        expected = _Evaluator(d, point, {eps: e}, expand=True).value(opnorm(u, z))
        assert sympy.simplify(to_sympy(found) - expected) == 0, (d, vector_values)


def _points(d: int) -> st.SearchStrategy[dict]:
    entries = st.sampled_from([R(0), R(1), R(-1), R(2), R(-1, 2), R(1, 3), R(3)])
    vector_values = st.lists(entries, min_size=d, max_size=d).map(tuple)
    return st.fixed_dictionaries(
        {
            "vectors": st.fixed_dictionaries({name: vector_values for name in "zha"}),
            "c": st.sampled_from([R(2), R(-1), R(1, 2)]),
            "eps": st.sampled_from([R(1), R(1, 4), R(3)]),
        }
    )


def _sympy_value(e: ir.Expr, d: int, vectors: dict, scalars: dict) -> list | None:
    from lnsym.engines.concrete.engine import _entries, _Evaluator, _real, _Undefined

    try:
        value = _Evaluator(d, vectors, scalars, expand=True).value(e)
        entries = _entries(value)
        return list(entries) if all(_real(x) for x in entries) else None
    except (ZeroDivisionError, _Undefined):
        return None


@settings(max_examples=120)
@given(
    e=strategies.expressions,
    wrap=st.sampled_from(["plain", "jvp", "grad", "nested", "root", "roots"]),
    d=st.sampled_from([1, 2, 3]),
    data=st.data(),
)
def test_exact_points_equal_sympy_numbers(e: ir.Expr, wrap: str, d: int, data) -> None:
    """The exact evaluator (jets over square-root towers) gives SymPy's values exactly,
    and is undefined exactly where SymPy's values are."""
    from lnsym.engines.concrete.engine import _sign
    from lnsym.engines.concrete.exact import (
        Evaluator,
        Inexpressible,
        Tower,
        Undefined,
        rational,
        to_sympy,
    )

    zz, hh, aa = strategies.z, strategies.h, strategies.a
    scalar_e = e if e.kind == "scalar" else dot(e, aa)
    e = {
        "plain": e,
        "jvp": jvp(e, zz, hh),
        "grad": grad(scalar_e, zz),
        "nested": jvp(jvp(e, zz, hh), zz, aa),
        "root": (scalar_e * scalar_e + 1) ** R(-1, 2) * scalar_e,
        "roots": jvp(norm(zz) + (scalar_e * scalar_e + 2) ** R(1, 2) * mean(hh), zz, aa),
    }[wrap]
    point = data.draw(_points(d))
    vectors = dict(point["vectors"])
    scalars = {strategies.c: point["c"], eps: point["eps"]}
    expected = _sympy_value(e, d, vectors, scalars)
    exact_vectors = {name: tuple(rational(x) for x in v) for name, v in vectors.items()}
    exact_scalars = {k: rational(v) for k, v in scalars.items()}
    try:
        value = Evaluator(d, exact_vectors, exact_scalars, Tower()).value(e)
    except (ZeroDivisionError, Undefined):
        value = None
    except Inexpressible:
        event(f"{wrap}: inexpressible")
        return
    assert (value is None) == (expected is None), (e, point)
    event(f"{wrap}: {'undefined' if value is None else 'defined'}")
    if value is not None:
        found = value if isinstance(value, tuple) else (value,)
        assert len(found) == len(expected)
        for x, y in zip(found, expected, strict=True):
            assert _sign(to_sympy(x) - y) == 0, (e, point, x, y)


def test_exact_and_sympy_points_give_the_same_evidence(monkeypatch: pytest.MonkeyPatch) -> None:
    import lnsym.engines.concrete.engine as concrete

    k = scalar("k")
    claims = [
        Claim("le", Le(norm(jvp(u, z, h)) ** 2, norm(h) ** 2 / eps, certificate=[])),
        Claim("false", Le(var(z), 1, certificate=[((1 - var(z)) ** R(1, 2)) ** 2])),
        Claim("k", Le(k, k**2)),
        Claim("dropped", Eq(jvp(u, z, h), center(h) / s), [dimension(3)]),
        Claim("norm", Eq(opnorm(u, z), 1 / s), [dimension_at_least(2)]),
        Claim("wrong_term", Le(var(z), var(z) + eps, certificate=[eps - mean(z)])),
        Claim("cube", Eq((mean(z) - 8) ** R(1, 3), mean(z))),
    ]

    def summary(claim: Claim) -> tuple:
        found = evidence(claim, max_d=3 if claim.id == "dropped" else 2)
        return found.outcome, found.detail, found.data

    exact = [summary(claim) for claim in claims]
    monkeypatch.setattr(concrete, "EXACT_POINTS", False)
    assert [summary(claim) for claim in claims] == exact
    assert [outcome for outcome, _, _ in exact] == [
        "consistent",
        "counterexample",
        "counterexample",
        "counterexample",
        "counterexample",
        "consistent",
        "counterexample",
    ]
    assert "the certificate is wrong: t1 = " in exact[5][1]


def test_a_violation_sympy_does_not_confirm_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    import lnsym.engines.concrete.examine as examine
    from lnsym.errors import CrossCheckError

    monkeypatch.setattr(examine, "_violates", lambda problem, sides: False)
    with pytest.raises(CrossCheckError, match="exact arithmetic finds the claim violated"):
        evidence(Claim("scale", Eq(core(c * z), core(z))), max_d=2)


def test_symbolic_values_are_shared_but_do_not_depend_on_earlier_checks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import lnsym.engines.concrete.engine as concrete

    claims = [
        Claim("j", Eq(jvp(u, z, h), closed_form(h))),
        Claim("sym", Eq(dot(jvp(u, z, a), b), dot(a, jvp(u, z, b)))),
        Claim("bound", Le(norm(jvp(u, z, h)) ** 2, norm(h) ** 2 / eps)),
    ]

    def summaries(order: list[Claim]) -> dict[str, tuple]:
        out = {}
        for claim in order:
            found = evidence(claim, max_d=5)
            out[claim.id] = (found.outcome, found.detail, found.data)
        return out

    monkeypatch.setattr(concrete, "DIRECT_RING", False)  # the store serves the SymPy route
    monkeypatch.setattr(concrete, "_SHARED", concrete._Shared())
    forward = summaries(claims)
    shared = concrete._SHARED
    # D_z u(h) at d = 5 is kept for every later check that needs it.
    assert shared.atoms[jvp(u, z, h)] == ("h", "z")
    assert any(key[:2] == (jvp(u, z, h), 5) for key in shared.values)
    monkeypatch.setattr(concrete, "_SHARED", concrete._Shared())
    assert summaries(claims[::-1]) == forward
    monkeypatch.setattr(concrete, "SHARE_SYMBOLIC", False)
    assert summaries(claims) == forward
    # A name is labelled by what it stands for, whichever store made it.
    x, y = shared.coordinates_of("z", 2)
    first, second = concrete._Names(), concrete._Names()
    second.name(x + y)
    assert first.name(x * y + x).name == second.name(y * x + x).name


def test_the_switches_set_on_the_engine_reach_the_modules_that_use_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The benchmarks set EXACT_POINTS, SHARE_SYMBOLIC and DIRECT_RING on the engine module;
    # the code that reads them lives in other modules, and must see them.
    import lnsym.engines.concrete.engine as concrete
    import lnsym.engines.concrete.examine as examine

    def no_exact(*args, **kwargs):
        raise AssertionError("exact arithmetic used")

    monkeypatch.setattr(examine, "_examine_exactly", no_exact)
    claim = Claim("j", Eq(jvp(u, z, h), closed_form(h)), [dimension(9)])
    with pytest.raises(AssertionError, match="exact arithmetic used"):
        evidence(claim, max_d=9)
    monkeypatch.setattr(concrete, "EXACT_POINTS", False)
    assert evidence(claim, max_d=9).outcome == "holds"

    monkeypatch.setattr(concrete, "DIRECT_RING", False)
    monkeypatch.setattr(concrete, "_SHARED", concrete._Shared())
    monkeypatch.setattr(concrete, "SHARE_SYMBOLIC", False)
    assert evidence(Claim("m", Eq(mean(u), 0)), max_d=3).outcome == "holds"
    assert not concrete._SHARED.values
    monkeypatch.setattr(concrete, "SHARE_SYMBOLIC", True)
    assert evidence(Claim("m", Eq(mean(u), 0)), max_d=3).outcome == "holds"
    assert concrete._SHARED.values

    # With the values built in the ring, the SymPy route's store is not needed.
    monkeypatch.setattr(concrete, "DIRECT_RING", True)
    monkeypatch.setattr(concrete, "_SHARED", concrete._Shared())
    assert evidence(Claim("m", Eq(mean(u), 0)), max_d=3).outcome == "holds"
    assert not concrete._SHARED.values


def test_the_first_random_point_of_a_claim_is_checked_against_sympy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import lnsym.engines.concrete.examine as examine
    from lnsym.errors import CrossCheckError

    original = examine._evaluate
    calls = []

    def counted(*args, **kwargs):
        calls.append(args[1].d)
        return original(*args, **kwargs)

    monkeypatch.setattr(examine, "_evaluate", counted)
    claim = Claim("j", Eq(jvp(u, z, h), closed_form(h)), [dimension_at_least(9)])
    result = evidence(claim, max_d=10)
    assert result.data["methods"] == {9: "random-rational", 10: "random-rational"}
    assert calls == [9]  # once per claim: the exact arithmetic decides the other points

    def shifted(*args, **kwargs):
        sides = original(*args, **kwargs)
        return None if sides is None else (tuple(x + 1 for x in sides[0]), sides[1])

    monkeypatch.setattr(examine, "_evaluate", shifted)
    with pytest.raises(CrossCheckError, match="exact arithmetic gives"):
        evidence(claim, max_d=10)


# ---------------------------------------------------------------------------------------
# The ring reduction and the cross-check's comparison


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=6, max_size=6))
def test_reduction_by_substitution_is_the_division_normal_form(k):
    # Nested roots r0 = √(x + √(y² + 1)), r1 = √(y² + 1): reducing by r² → R must give the
    # same remainder as SymPy's division by the (Gröbner) relations r² − R.
    from lnsym.engines.concrete.ring import _Fractions

    x, y = sympy.symbols("x y", real=True)
    inner = sympy.sqrt(y**2 + 1)
    outer = sympy.sqrt(x + inner)
    e = (k[0] * outer**3 + k[1] * inner**2 * outer + k[2] * x) * (k[3] * inner**3 + k[4] * y) + k[
        5
    ] * outer**2 * inner
    fractions = _Fractions([e], None, {})
    num, _ = fractions.convert(e)
    R = ring([f"g{i}" for i in range(fractions.context.nvars())], QQ)[0]
    basis = [R.gens[index] ** 2 - _in(R, rad.poly) for (rad, _), index in fractions.roots.items()]
    assert _in(R, fractions.reduce(num)) == _in(R, num).rem(basis)


def _in(R, p):
    """A FLINT polynomial of the ring reduction as SymPy's sparse polynomial in ``R``."""
    return R.from_dict({m: QQ(int(c.p), int(c.q)) for m, c in p.terms()})


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=5, max_size=5))
def test_the_ring_finds_every_radicand_and_symbol_of_shared_parts(k):
    # The ring's generators come from one walk that skips repeated subexpressions; it must
    # find what a full traversal and free_symbols find, with roots nested, under |x| and
    # shared between the expressions (as a name's definition shares the values' parts).
    from lnsym.engines.concrete.ring import _is_radical, _radicands_and_symbols

    x, y, w = sympy.symbols("x y w", real=True)
    inner = sympy.sqrt(y**2 + k[0] ** 2 + 1)
    outer = sympy.sqrt(x**2 + inner + k[1] ** 2)
    shared = k[2] * outer * inner + sympy.Abs(x - k[3]) + y
    exprs = [shared**2 + w, (shared + k[4]) / (inner + 2), sympy.Integer(k[4])]
    radicands, symbols = _radicands_and_symbols(exprs)
    expected = set()
    for e in exprs:
        for node in sympy.preorder_traversal(e):
            if isinstance(node, sympy.Abs):
                expected.add(node.args[0] ** 2)
            elif _is_radical(node):
                expected.add(node.base)
    assert radicands == expected
    assert symbols == {v for e in exprs for v in e.free_symbols}


def _kept_polynomials():
    t, w, a, b = sympy.symbols("t w a b", real=True)
    f = sympy.Function("F")(t)
    leaves = st.sampled_from([t, w, a, b, f, sympy.Integer(2), sympy.Rational(-1, 3), a + t])
    return st.recursive(
        leaves,
        lambda inner: st.one_of(
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: sympy.Add(*xs)),
            st.lists(inner, min_size=2, max_size=3).map(lambda xs: sympy.Mul(*xs)),
            st.tuples(inner, st.integers(-1, 3)).map(lambda p: p[0] ** p[1] if p[0] else p[0]),
        ),
        max_leaves=12,
    )


@settings(max_examples=80, deadline=None)
@given(_kept_polynomials())
def test_an_inner_product_is_split_by_monomial_as_its_expansion_is(total):
    # The named coefficients of a symbolic check come from by_monomial, which multiplies out
    # the kept symbols (t, w, F(t)) only: Σ coefficient·monomial must be the expansion of the
    # sum with its terms of order t² dropped, and no coefficient may hold a kept symbol.
    from lnsym.engines.concrete.monomials import by_monomial

    t, w = sympy.symbols("t w", real=True)
    f = sympy.Function("F")(t)
    parts = by_monomial(total, {t, w, f}, t)
    assert not any(c.has(t, w, f) for c in parts.values())
    rebuilt = sympy.Add(*(c * m for m, c in parts.items()))
    kept = [x for x in sympy.Add.make_args(sympy.expand(total)) if x.as_powers_dict().get(t, 0) < 2]
    assert sympy.expand(rebuilt - sympy.Add(*kept)) == 0


def test_the_cross_check_comparison_tells_near_equal_numbers_apart():
    from lnsym.engines.concrete.values import _agree

    root = sympy.sqrt(2 + sympy.sqrt(3))
    # Equal values written differently agree; a difference of 10⁻⁶⁰ does not hide.
    assert _agree(root, (sympy.sqrt(6) + sympy.sqrt(2)) / 2)
    assert _agree(sympy.sqrt(8), 2 * sympy.sqrt(2))
    assert not _agree(root, root + sympy.Rational(1, 10**60))
    assert not _agree(sympy.sqrt(2), sympy.Rational(99, 70))
    assert _agree(sympy.Rational(1, 3), sympy.Rational(2, 6))


def _moving_parts(k):
    """t, a real exponent a, x real, y, F(t), and a base in all of them with coefficients k."""
    t = sympy.Dummy("t")
    x, y = sympy.Dummy("x", real=True), sympy.Dummy("y")
    F = sympy.Function("F0")(t)
    base = k[0] * x + k[1] * t * y + k[2] * F + 1
    return t, sympy.Dummy("a", real=True), x, y, F, base


# 20 examples: the expression's shape is fixed, k only makes its coefficients zero, negative
# or positive, and each example costs a slow sympy.diff (60 took ≈ 5 s of the suite).
@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=8, max_size=8))
def test_the_derivative_is_the_expression_sympy_diff_builds(k):
    # The rules for sums, products and powers are applied without diff's bookkeeping; the
    # result must be the very expression sympy.diff returns (same tree, same argument order),
    # so that the symbolic reduction and its work limit see exactly what they saw before.
    from lnsym.engines.concrete.values import _derivative

    t, a, x, y, F, base = _moving_parts(k)
    e = (
        base**2 * (x + k[3] * t) ** sympy.Rational(-1, 2)
        + k[4] * sympy.Abs(x + t) * F
        + (x**2 + 1) ** (a + t) * k[5]
        + k[6] * t**3 * y
        + sympy.sqrt(base) / (y + k[7] * t)
    )
    assert sympy.srepr(_derivative(e, t)) == sympy.srepr(sympy.diff(e, t))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(-3, 3), min_size=6, max_size=6),
    st.fractions(min_value=-3, max_value=3, max_denominator=4),
)
def test_powers_of_sums_are_the_expressions_sympy_builds(k, n):
    # A symbolic sum to a rational power skips SymPy's evaluation, which must not have
    # changed it: the very expression (tree and argument order) that ** builds.
    from lnsym.engines.concrete.values import _power

    t, a, x, y, F, base = _moving_parts(k)
    exponent = sympy.Rational(n.numerator, n.denominator)
    for b in (
        base,
        k[3] * x + k[4] * sympy.sqrt(y**2 + 1),
        x**2 / 3 + k[5] * sympy.Abs(y) * F,
        sympy.Integer(k[0]) + sympy.sqrt(2) * k[1],
        x + k[2],
    ):
        assert sympy.srepr(_power(b, exponent)) == sympy.srepr(b**exponent)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-3, 3), min_size=8, max_size=8), st.integers(1, 9))
def test_the_slope_at_zero_is_the_derivative_at_zero(k, n):
    # The derivative at t = 0 is built directly (factors not differentiated are taken at 0,
    # t² terms never built); it must equal the derivative taken first and then set to t = 0,
    # with F(t) and F'(t) given values at 0 — through powers of t itself, whose base is 0.
    from lnsym.engines.concrete.values import _derivative, _Slope

    t, a, x, y, F, base = _moving_parts(k)
    e = (
        base**2 * (x + k[3] * t) ** sympy.Rational(-1, 2)
        + k[4] * t**2 * F / (x + t) ** 3
        + (x**2 + 1) ** (a + t) * k[5]
        + k[6] * (t + k[7] * t**2) ** 2 * y
        + sympy.sqrt(base) / (y + k[7] * t) * t ** (n % 3)
    )
    at_zero = {t: sympy.Integer(0), F: sympy.Rational(n, 7), sympy.Derivative(F, t): k[0] - 1}
    slope = _Slope(t, at_zero).of(e)
    expected = _derivative(e, t).xreplace(at_zero)
    assert not slope.has(t, F, sympy.nan, sympy.zoo)
    point = {x: sympy.Rational(n + 2, 3), y: sympy.Rational(5, n + 1), a: sympy.Rational(1, n)}
    assert abs(sympy.N((slope - expected).xreplace(point), 60)) < sympy.Float(10) ** -40


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(-9, 9), st.integers(1, 12), st.integers(0, 3), st.integers(0, 3)),
        max_size=6,
    ),
    st.lists(
        st.tuples(st.integers(-9, 9), st.integers(1, 12), st.integers(0, 3), st.integers(0, 3)),
        max_size=6,
    ),
    st.integers(0, 3),
)
def test_the_ring_holds_the_expanded_polynomial(a, b, k):
    # Sums, products and powers of rational polynomials: the numerator the ring builds is
    # SymPy's expansion, term for term, and a polynomial has no denominator.
    from lnsym.engines.concrete.ring import _Fractions

    x, y = sympy.symbols("x y", real=True)

    def poly(terms):
        return sum((sympy.Rational(n, m) * x**i * y**j for n, m, i, j in terms), sympy.Integer(0))

    e = sympy.Mul(poly(a) + 1, poly(b) ** k + x + y, evaluate=False)
    fractions = _Fractions([e], None, {})
    num, den = fractions.convert(e)
    R = ring([x, y], QQ)[0]
    assert den == {}
    assert _in(R, num) == R(sympy.expand(e))


def test_shared_parts_are_walked_once_in_the_order_of_the_full_walk() -> None:
    # The entries of a matrix statement share their parts (a row's mean, its variance):
    # the engine walks each object once, meeting the nodes in the order ir.walk first does.
    from lnsym.engines.concrete.values import _free_variables
    from lnsym.ir.lowering import lower_relation, sizes_for

    claim = next(c for c in _catalog() if c.id == "batch.layer_norm.row_shift")
    (_, relation), *_ = lower_relation(claim.statement, sizes_for(claim.statement)[1])
    full = [*ir.walk(relation.lhs), *ir.walk(relation.rhs)]
    order = [id(x) for x in full]
    once = list(ir.distinct_nodes(relation.lhs, relation.rhs))
    assert [id(x) for x in once] == sorted(set(order), key=order.index)
    assert len(once) < len(full) / 2
    # What is read off the walk does not depend on how often a part is met.
    atoms, symbols = _free_variables(relation.lhs)
    expected = {s for x in full if isinstance(x, ir.Const) for s in x.value.free_symbols}
    assert not atoms and symbols == expected - {ir.d}


# ---------------------------------------------------------------------------------------
# Matrix statements: the entries reduced together, as each alone


def _matrix_claims() -> list[Claim]:
    found = [c for c in _catalog() if has_matrices(c.statement)]
    # true and false ones, with gradients (Diff), roots and group counts among them
    return [c for i, c in enumerate(found) if i % 6 == 0 or c.expect == "refuted"][:14]


@pytest.mark.parametrize("claim", _matrix_claims(), ids=lambda claim: claim.id)
def test_matrix_entries_proved_together_are_those_proved_alone(claim: Claim, monkeypatch) -> None:
    from lnsym.engines.base import Statement
    from lnsym.engines.concrete import matrices
    from lnsym.ir.lowering import lowered_entries, sizes_for

    for sizes in sizes_for(claim.statement)[:2]:
        relations = [relation for _, relation in lowered_entries(claim.statement, sizes)]
        together = matrices._proved_together(relations)
        alone = set()
        for k, relation in enumerate(relations):
            try:
                found = evidence(Statement(relation), max_d=1)
            except (UnsupportedError, DomainError):
                continue
            if found.outcome == "holds" and found.data["methods"] == {1: "symbolic"}:
                alone.add(k)
        assert together == alone
    # and the claim's evidence is what checking every entry alone gives
    quick = matrices.evidence(claim, seed=0)
    monkeypatch.setattr(matrices, "_proved_together", lambda relations: set())
    slow = matrices.evidence(claim, seed=0)
    assert (quick.outcome, quick.detail, quick.data) == (slow.outcome, slow.detail, slow.data)
    assert quick.counterexample == slow.counterexample
