"""Matrix claims with assumptions in the concrete and numeric engines (issue 32, item 7).

A vector atom of ℝ^d enters a matrix statement through row()/column() and is written as its
entries gamma1, …, gamma_d. Both engines must honour every assumption: sizes that the
dimension assumptions admit, and points where centered, orthogonal and non-constant hold. The
claims are generated: a true identity under an assumption is never refuted, the same identity
without it is, and a false claim under assumptions is refuted at a point that satisfies them.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym import (
    Claim,
    Eq,
    centered,
    check,
    dimension,
    dimension_at_least,
    group_norm,
    ir,
    layer_norm_rows,
    nonconstant,
    orthogonal,
    scalar,
    vector,
)
from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Counterexample, Outcome
from lnsym.engines.concrete import matrices as concrete
from lnsym.engines.numeric import matrices as numeric
from lnsym.ir.calculus import grad
from lnsym.ir.lowering import MAX_D, lower_claim, sizes_for
from lnsym.ir.matrices import (
    column,
    first_case,
    flatten,
    matrix,
    ones_matrix,
    row,
    sum_along,
    total,
)
from lnsym.ir.names import d, m, n

z = matrix("Z", n, d)
gamma, beta, h = vector("gamma"), vector("beta"), vector("h")
c = scalar("c")

#: n × 1 columns built from Z and β whose entries do not add up to 0 identically.
_BASES = [
    sum_along(z, 1),
    z @ column(beta),
    ones_matrix(n, 1),
    first_case(n),
    layer_norm_rows(z) @ column(beta),
]
_COEFFICIENTS = [sympy.Integer(1), sympy.Integer(2), sympy.Rational(1, 3), c**2 + 1]
columns = st.recursive(
    st.sampled_from(_BASES),
    lambda inner: st.one_of(
        st.builds(lambda k, a, b: k * a + b, st.sampled_from(_COEFFICIENTS), inner, inner),
        st.builds(lambda a, b: a * b, inner, inner),
    ),
    max_leaves=3,
)

#: Assumptions on γ and β (each set is satisfiable at d = 3).
ASSUMPTIONS = [
    centered(gamma),
    centered(beta),
    orthogonal(gamma, beta),
    nonconstant(gamma),
    nonconstant(beta),
    dimension_at_least(3),
]
assumption_sets = st.lists(st.sampled_from(ASSUMPTIONS), unique=True, max_size=4)


def _vectors(claim: Claim, point: Counterexample) -> dict[str, tuple[sympy.Expr, ...]]:
    """The assumptions' vectors read off a matrix counterexample's entries."""
    sizes = {{"n": n, "d": d, "m": m}[k]: v for k, v in point.sizes.items()}
    written = lower_claim(claim.statement, sizes, claim.assumptions)
    return {
        name: tuple(point.scalars[s.name] for s in symbols)
        for name, symbols in written.vectors.items()
        if all(s.name in point.scalars for s in symbols)
    }


def _admissible(claim: Claim, point: Counterexample) -> bool:
    vectors = _vectors(claim, point)
    return all(a.admits(point.d) for a in claim.assumptions) and all(
        a.holds(vectors) for a in claim.assumptions
    )


# ---------------------------------------------------------------------------------------
# True under an assumption, false without it


@given(a=columns)
@settings(max_examples=12)
def test_centered_gain_sums_vanish_and_only_under_the_assumption(a: object) -> None:
    # Σ_tj (A γᵀ)_tj = (Σ_t A_t)(Σ_j γ_j): 0 exactly when γ is centered
    statement = Eq(total(a @ row(gamma)), 0)
    under, bare = Claim("t", statement, [centered(gamma)]), Claim("f", statement)
    found = concrete.evidence(under, seed=0)
    assert found.outcome in (Outcome.HOLDS, Outcome.CONSISTENT), found.detail
    assert numeric.evidence(under, samples=60, seed=0).outcome == Outcome.CONSISTENT
    refuted = concrete.evidence(bare, seed=0)
    assert refuted.outcome == Outcome.COUNTEREXAMPLE and refuted.counterexample is not None
    assert concrete.recheck(bare, refuted.counterexample)[0] is not None
    assert numeric.evidence(bare, samples=60, seed=0).outcome == Outcome.COUNTEREXAMPLE


@given(a=columns, extra=st.sampled_from([[], [centered(beta)], [centered(gamma)]]))
@settings(max_examples=12)
def test_orthogonal_products_vanish_and_only_under_the_assumption(a: object, extra: list) -> None:
    # Σ_t A_t ⟨γ, β⟩ = 0 exactly when γ ⊥ β
    statement = Eq(total(a @ (row(gamma) @ column(beta))), 0)
    under = Claim("t", statement, [orthogonal(gamma, beta), *extra])
    bare = Claim("f", statement, extra)
    found = concrete.evidence(under, seed=0)
    assert found.outcome in (Outcome.HOLDS, Outcome.CONSISTENT), found.detail
    assert numeric.evidence(under, samples=60, seed=0).outcome == Outcome.CONSISTENT
    refuted = concrete.evidence(bare, seed=0)
    assert refuted.outcome == Outcome.COUNTEREXAMPLE and refuted.counterexample is not None
    assert _admissible(bare, refuted.counterexample)


def test_the_checker_on_true_claims_under_assumptions() -> None:
    statements = [
        (Eq(total(row(gamma) @ ones_matrix(d, 1)), 0), [centered(gamma)]),
        (Eq(total(row(gamma) @ column(beta)), 0), [orthogonal(gamma, beta)]),
        (Eq(total(z @ column(gamma) @ (row(gamma) @ column(beta))), 0), [orthogonal(beta, gamma)]),
    ]
    for statement, assumptions in statements:
        result = check(Claim("t", statement, assumptions))
        assert result.verdict in (Verdict.PROVED, Verdict.VERIFIED), result.reason
        by_engine = {e.engine: e.outcome for e in result.evidence}
        assert by_engine["concrete"] == Outcome.HOLDS
        assert by_engine["numeric"] == Outcome.CONSISTENT
        assert check(Claim("f", statement)).verdict == Verdict.REFUTED


# ---------------------------------------------------------------------------------------
# False under assumptions: refuted at a point that satisfies them


@given(a=columns, assumptions=assumption_sets)
@settings(max_examples=15)
def test_false_claims_under_assumptions_are_refuted_at_admissible_points(
    a: object, assumptions: list
) -> None:
    # (Σ_t A_t)·γ₁ = 0 fails wherever γ₁ ≠ 0, which every set of assumptions here allows
    claim = Claim("f", Eq(total(a @ row(gamma) @ first_case(d)), 0), assumptions)
    result = check(claim)
    assert result.verdict == Verdict.REFUTED, result.reason
    point = result.counterexample
    assert point is not None and _admissible(claim, point)
    # every assumption's atom has all its entries in the point
    assert set(_vectors(claim, point)) >= {
        v.name for x in assumptions for v in vars(x).values() if isinstance(v, ir.VectorAtom)
    }


def test_a_violation_outside_the_assumptions_is_never_a_counterexample() -> None:
    assumptions = [nonconstant(gamma), dimension(2)]
    # −γ₁ = 0 fails at γ₁ = 1; the entry does not use γ₂, which the lift chooses so that γ
    # is not constant (its first filling, γ₂ = 1, is constant and must be passed over)
    claim = Claim("f", Eq(total(row(gamma) @ (first_case(d) - 2 * first_case(d))), 0), assumptions)
    sizes = sizes_for(claim.statement, claim.assumptions)[0]
    under = concrete._Under.of(claim, lower_claim(claim.statement, sizes, assumptions), sizes)
    lifted = under.lift((), Counterexample(2, {}, {"gamma1": sympy.Integer(1)}, 0, 0, "eq"))
    assert lifted is not None and _admissible(claim, lifted)
    assert lifted.scalars["gamma1"] != lifted.scalars["gamma2"]
    # ⟨γ, γ⟩ = ⟨γ, γ⟩ + 1 fails everywhere, but at γ = (3, 3) outside the claim: no lift, and
    # the search finds a non-constant point
    square = total(row(gamma) @ column(gamma))
    both = Claim("g", Eq(square, square + 1), assumptions)
    under = concrete._Under.of(both, lower_claim(both.statement, sizes, assumptions), sizes)
    constant = {"gamma1": sympy.Integer(3), "gamma2": sympy.Integer(3)}
    assert under.lift((), Counterexample(2, {}, constant, 0, 0, "eq")) is None
    found = under.search(seed=0)
    assert found is not None and _admissible(both, found)


# ---------------------------------------------------------------------------------------
# Derivatives stay partial under the constraints


def test_gradients_are_partial_at_constrained_points() -> None:
    # γ_d = −Σ others is where the claim is evaluated, after differentiating: ∇Σγ² = 2γ
    square = flatten(row(grad(total((row(gamma) * row(gamma)) @ ones_matrix(d, 1)), gamma)))
    found = concrete.evidence(Claim("t", Eq(square, 2 * gamma), [centered(gamma)]), seed=0)
    assert found.outcome == Outcome.HOLDS
    # β's entries fix γ's last one, yet ∇_β⟨β, γ⟩ is γ, not the 0 of ⟨β, γ⟩ ≡ 0
    inner = flatten(row(grad(total(row(beta) @ column(gamma)), beta)))
    true = Claim("t", Eq(inner, gamma), [orthogonal(beta, gamma)])
    assert concrete.evidence(true, seed=0).outcome == Outcome.HOLDS
    assert numeric.evidence(true, samples=60, seed=0).outcome == Outcome.CONSISTENT
    false = Claim("f", Eq(inner, 0 * gamma), [orthogonal(beta, gamma)])
    result = check(false)
    assert result.verdict == Verdict.REFUTED and _admissible(false, result.counterexample)


# ---------------------------------------------------------------------------------------
# Dimension assumptions choose the sizes


@given(
    fixed=st.one_of(st.none(), st.integers(1, 16)),
    low=st.integers(1, 16),
    groups=st.sampled_from([None, 2, 3]),
    nonconstant_atom=st.booleans(),
)
@settings(max_examples=40)
def test_sizes_are_admitted_by_the_assumptions(
    fixed: int | None, low: int, groups: int | None, nonconstant_atom: bool
) -> None:
    x = z if groups is None else group_norm(z, groups)
    statement = Eq(x, x)
    assumptions = [dimension_at_least(low)]
    assumptions += [] if fixed is None else [dimension(fixed)]
    assumptions += [nonconstant(gamma)] if nonconstant_atom else []
    factor = groups or 1
    admitted = [
        k for k in range(factor, MAX_D + 1, factor) if all(a.admits(k) for a in assumptions)
    ]
    sizes = sizes_for(statement, assumptions)
    assert all(s[d] in admitted for s in sizes)
    assert bool(sizes) == bool(admitted)
    if admitted:
        assert len(sizes) >= 1 and len({tuple(s.items()) for s in sizes}) == len(sizes)
    else:
        claim = Claim("x", Eq(total(x @ ones_matrix(d, 1)), total(z)), assumptions)
        for found in (
            concrete.evidence(claim, seed=0),
            numeric.evidence(claim, samples=20, seed=0),
        ):
            assert found.outcome == Outcome.ERROR and "no size" in found.detail


def test_dimension_assumptions_decide_the_verdict() -> None:
    # Σγ = 3γ₁ is false, and stays false at d = 3 (γ = e₃); true claims at d = 3 hold
    three = Eq(total(row(gamma) @ ones_matrix(d, 1)), 3 * total(row(gamma) @ first_case(d)))
    result = check(Claim("f", three, [dimension(3)]))
    assert result.verdict == Verdict.REFUTED and result.counterexample.d == 3
    sum_d = Eq(total(ones_matrix(1, d) @ ones_matrix(d, 1)), 3)
    found = concrete.evidence(Claim("t", sum_d, [dimension(3)]), seed=0)
    assert found.outcome == Outcome.HOLDS
    assert concrete.evidence(Claim("f", sum_d), seed=0).outcome == Outcome.COUNTEREXAMPLE


# ---------------------------------------------------------------------------------------
# An atom only in the assumptions


@given(a=columns)
@settings(max_examples=8)
def test_an_assumption_on_an_absent_atom_constrains_nothing(a: object) -> None:
    true = Eq(total(a @ row(gamma)), total(a @ row(gamma)))
    false = Eq(total(a @ row(gamma)), 0)
    assumptions = [centered(h), nonconstant(h)]
    assert concrete.evidence(Claim("t", true, assumptions), seed=0).outcome != (
        Outcome.COUNTEREXAMPLE
    )
    claim = Claim("f", false, assumptions)
    result = check(claim)
    assert result.verdict == Verdict.REFUTED
    # h's entries are in the point, and satisfy the assumptions on h
    assert "h" in _vectors(claim, result.counterexample)
    assert _admissible(claim, result.counterexample)


# ---------------------------------------------------------------------------------------
# Re-checks check the assumptions at the point


def test_recheck_refuses_a_point_outside_the_assumptions() -> None:
    claim = Claim("f", Eq(total(z @ column(gamma)), 0), [centered(gamma)])
    found = concrete.evidence(claim, seed=0)
    assert found.counterexample is not None
    point = found.counterexample
    assert concrete.recheck(claim, point)[0] is not None
    moved = {**point.scalars, "gamma1": point.scalars["gamma1"] + 1}
    refused, why = concrete.recheck(claim, replace(point, scalars=moved))
    assert refused is None and "does not satisfy" in why
    missing = {k: v for k, v in point.scalars.items() if k != "gamma2"}
    refused, why = concrete.recheck(claim, replace(point, scalars=missing))
    assert refused is None and "gamma2" in why
    outside = replace(point, sizes={**point.sizes, "d": 2})
    claim3 = Claim("f", claim.statement, [centered(gamma), dimension(3)])
    assert concrete.recheck(claim3, outside)[0] is None


def test_numeric_samples_are_promoted_with_every_assumption() -> None:
    claim = Claim(
        "f",
        Eq(total(z @ column(gamma)), total(z @ column(beta))),
        [orthogonal(beta, gamma), centered(gamma)],
    )
    found = numeric.evidence(claim, samples=60, seed=0)
    assert found.outcome == Outcome.COUNTEREXAMPLE
    sample = found.data["sample"]
    # the sample carries every entry of the assumptions' atoms
    assert {"beta1", "beta2", "gamma1", "gamma2"} <= set(sample["scalars"])
    exact, how = concrete.promote(claim, sample)
    assert exact is not None and _admissible(claim, exact), how
    # a dependent entry given wrongly is solved again from the free ones
    wrong = {**sample, "scalars": {**sample["scalars"], "gamma2": 12345.0}}
    again, _ = concrete.promote(claim, wrong)
    assert again is None or _admissible(claim, again)


@given(
    assumptions=assumption_sets,
    size=st.integers(2, 6),
    seed=st.integers(0, 3),
)
@settings(max_examples=30)
def test_numeric_points_satisfy_the_linear_assumptions_exactly(
    assumptions: list, size: int, seed: int
) -> None:
    admissible = numeric._Admissible.of(assumptions)
    if admissible is None:
        return
    symbols = {
        name: tuple(sympy.Symbol(f"{name}{j}", real=True) for j in range(1, size + 1))
        for name in admissible.atoms
    }
    points = admissible.points(symbols, size, 12, seed)
    assert any(p is not None for p in points) or size < 3
    for p in points:
        if p is None:
            continue
        vectors = {name: tuple(Fraction(p[s]) for s in symbols[name]) for name in admissible.atoms}
        assert all(a.holds(vectors) for a in assumptions)


def test_the_checker_never_proves_what_the_engines_refute_under_assumptions() -> None:
    # false under centered γ (Σ_j Z_tj γ_j ≠ 0): the general engine cannot prove it, and the
    # concrete engine refutes it at a centered γ
    claim = Claim("f", Eq(total(z @ column(gamma)), 0), [centered(gamma)])
    result = check(claim)
    assert result.verdict == Verdict.REFUTED
    assert _admissible(claim, result.counterexample)
    assert sum(_vectors(claim, result.counterexample)["gamma"]) == 0


@pytest.mark.parametrize("seed", [0, 1])
def test_evidence_is_deterministic(seed: int) -> None:
    claim = Claim("t", Eq(total(layer_norm_rows(z) @ column(gamma)), 0), [centered(gamma)])
    for engine in (
        lambda: concrete.evidence(claim, seed=seed),
        lambda: numeric.evidence(claim, samples=40, seed=seed),
    ):
        first, second = engine(), engine()
        assert (first.outcome, first.detail, first.counterexample) == (
            second.outcome,
            second.detail,
            second.counterexample,
        )


def test_a_size_without_admissible_points_is_skipped_not_an_error() -> None:
    # centered, orthogonal γ and β leave γ = 0 at d = 2, so a non-constant γ needs d = 3
    assumptions = [centered(gamma), centered(beta), orthogonal(gamma, beta), nonconstant(gamma)]
    true = Claim("t", Eq(total(row(gamma) @ column(beta)), 0), assumptions)
    found = numeric.evidence(true, samples=60, seed=0)
    assert found.outcome == Outcome.CONSISTENT, found.detail
    assert concrete.evidence(true, seed=0).outcome == Outcome.HOLDS
    false = Claim("f", Eq(total(row(gamma) @ column(gamma)), 0), assumptions)
    result = check(false)
    assert result.verdict == Verdict.REFUTED and result.counterexample.d == 3
    assert _admissible(false, result.counterexample)
