"""The soundness suite: adversarial false claims that must never come out PROVED.

Each case is false. Where an exact counterexample exists within the concrete engine's
reach (d ≤ 8, exact rational points) the verdict must be REFUTED with it; the few that
cannot be refuted there say why (`UNREFUTABLE`) and must still not be PROVED or VERIFIED.
The mutation tests at the end break each sign rule of the trusted kernel in turn and show
that some case of this suite then changes verdict — so the suite can fail.
"""

from __future__ import annotations

import pytest
import sympy
from sympy import Rational

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
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim
from lnsym.checking.lemmas import MEAN_VALUE_INEQUALITY, SPECTRAL_NORM
from lnsym.checking.proof import by_lemma
from lnsym.errors import ExpressionError
from lnsym.ir import as_scalar, signs

z, h, a, b, v = vector("z"), vector("h"), vector("a"), vector("b"), vector("v")
g = vector("g")
gamma, beta = vector("gamma"), vector("beta")
c, k = scalar("c"), scalar("k")
p = scalar("p", positive=True)
half = Rational(1, 2)
u, q = core(z), var(z)
s = (q + eps) ** half
lambda_u = eps / ((q + eps) * s)


def root(x):
    return ir.power(x, half)


def false_le(lhs, rhs, *certificate):
    return Le(lhs, rhs, certificate=list(certificate))


# --- proved premises for the lemma cases -------------------------------------------------
SYMMETRIC = Claim("p.symmetric", Eq(dot(jvp(u, z, a), b), dot(a, jvp(u, z, b))))
KILLS_ONES = Claim("p.kills_ones", Eq(jvp(u, z, ones), 0))
EIGEN_CORE = Claim("p.eigen_core", Eq(jvp(u, z, u), lambda_u * u))
EIGEN_REST = Claim(
    "p.eigen_rest", Eq(jvp(u, z, v), v / s), assumptions=[centered(v), orthogonal(v, z)]
)
ORDER = Claim("p.order", Le(lambda_u, 1 / s, certificate=[q / ((q + eps) * s)]))
JH = jvp(u, z, h)
BOUND = Claim(
    "p.bound",
    Le(
        norm(JH) ** 2,
        norm(h) ** 2 / eps,
        certificate=[
            norm(h) ** 2 * q / (eps * (q + eps)),
            d * mean(h) ** 2 / (q + eps),
            dot(u, h) ** 2 * (q + 2 * eps) / (d * (q + eps) ** 2),
        ],
    ),
)
CENTERED_BOUND = Claim(
    "p.centered_bound",
    Le(norm(JH) ** 2, norm(h) ** 2 / eps, certificate=BOUND.statement.certificate),
    assumptions=[centered(h)],
)
SPECTRAL_PREMISES = (SYMMETRIC, KILLS_ONES, EIGEN_CORE, EIGEN_REST, ORDER)
SPAN = [ones, mean(z) * ones + s * u]
# A sign function in disguise: its derivative vanishes wherever it is defined.
SIGNUM = mean(z) * (mean(z) ** 2) ** Rational(-1, 2) * ones
FLAT_BOUND = Claim("p.flat", Le(norm(jvp(SIGNUM, z, h)) ** 2, 0 * norm(h) ** 2, certificate=[0]))


def lemma_claim(statement, lemma, *premises, assumptions=(), **hints):
    return Claim("lemma_case", statement, assumptions, proof=by_lemma(lemma, *premises, **hints))


def _spectral_with_narrowed_symmetry() -> Claim:
    """‖D_x f‖₂ = 3P for a J that is not symmetric: the symmetry premise holds for centered a
    and b only, which the claim 'assumes' of atoms its statement never mentions. P is 0 at
    every dimension the concrete and numeric engines check."""
    x = vector("x")
    big = ir.Const(sympy.Max(0, d - 8) * (d - 16) ** 2 * (d - 64) ** 2 * (d - 768) ** 2)
    m = mean(x)
    f = big * (3 * m * ones + (m + 1) ** 2 * center(x))
    e1, e2 = ones + x, x
    premises = (
        Claim("sym", Eq(dot(jvp(f, x, a), b), dot(a, jvp(f, x, b))), [centered(a), centered(b)]),
        Claim("fam", Eq(jvp(f, x, v), (big * (m + 1) ** 2) * v), [centered(v)]),
        Claim("eig1", Eq(jvp(f, x, e1), (3 * big) * e1), [centered(x)]),
        Claim("eig2", Eq(jvp(f, x, e2), big * e2), [centered(x)]),
        Claim("bnd", Le(big * (m + 1) ** 2, 3 * big, certificate=[2 * big]), [centered(x)]),
    )
    witness = ir.VectorSum((e1, ir.Scaled(ir.Const(sympy.Integer(-1)), e2)))
    return lemma_claim(
        Eq(opnorm(f, x), 3 * big),
        SPECTRAL_NORM,
        *premises,
        assumptions=[centered(x), centered(a), centered(b)],
        witnesses=[witness],
        nonzero=d + dot(x, x),
    )


#: (id, claim) — false claims with an exact counterexample within d ≤ 8: must be REFUTED.
REFUTABLE = {
    # sign traps: squares of roots of possibly negative radicands, odd powers, unpaired dots
    "sign.root_of_var_minus_one": false_le(q, 1, root(1 - q) ** 2),
    "sign.root_of_one_minus_c": false_le(c, 1, root(as_scalar(1) - c) ** 2),
    "sign.root_of_negated_mean": false_le(mean(z), 0, root(-mean(z)) ** 2),
    "sign.root_of_product": false_le(mean(z) * mean(h), 0, root(-(mean(z) * mean(h))) ** 2),
    "sign.unknown_constant": false_le(0, c, c),
    "sign.mean": false_le(0, mean(z), mean(z)),
    "sign.unpaired_dot": false_le(0, dot(z, h), dot(z, h)),
    "sign.three_factors": false_le(0, dot(z, z * h), dot(z, z * h)),
    "sign.negated_variance": false_le(0, -q, -q),
    "sign.odd_power": false_le(0, c**3, c**3),
    "sign.odd_power_of_mean": false_le(0, mean(z) ** 3, mean(z) ** 3),
    "sign.negative_power_of_unknown": false_le(0, mean(z) ** -1, mean(z) ** -1),
    "sign.difference_of_squares": false_le(mean(z) ** 2, q, q - mean(z) ** 2),
    "sign.c_below_c_squared": Le(c, c**2),
    "sign.c_squared_below_c": Le(c**2, c),
    "sign.variance_below_one": Le(q, 1),
    "sign.norm_of_core_below_d_minus_one": Le(norm(u) ** 2, d - 1),
    "sign.core_variance_below_half": Le(var(u), half),
    "sign.half_lipschitz": Le(norm(JH) ** 2, norm(h) ** 2 / (2 * eps)),
    "sign.mean_square_below_variance": Le(mean(z) ** 2, q),
    "sign.wrong_certificate_identity": false_le(q, 1, 1 - q),
    # substitution must not carry the replaced symbol's assumptions (a positive symbol is
    # never replaced by a value not known positive: REFUSED_AT_BUILD; a real one may be)
    "subs.real_negative_in_norm": Eq(norm(k * z).subs(k, -1), -norm(z)),
    "subs.real_by_unknown": false_le(0, as_scalar(k).subs(k, c), as_scalar(k).subs(k, c)),
    "subs.real_root_of_square": Eq(root(k**2).subs(k, -1), -1),
    "subs.real_in_core_root": Eq(core(z, root(k**2)).subs(k, -1), core(z, -1)),
    "subs.vector_value": Eq(var(z).subs(z, c * ones + h), var(z)),
    "subs.vector_value_sign": false_le(0, mean(z).subs(z, h), mean(z).subs(z, h)),
    # small-d-only truths (true at d = 1, false from d = 2 on)
    "small_d.variance_zero": Eq(q, 0),
    "small_d.center_zero": Eq(center(z), 0),
    "small_d.core_zero": Eq(u, 0),
    "small_d.jacobian_zero": Eq(JH, 0),
    "small_d.cauchy_schwarz_equality": Eq(dot(z, h) ** 2, dot(z, z) * dot(h, h)),
    "small_d.norm_is_mean": Eq(norm(z) ** 2, d * mean(z) ** 2),
    "small_d.opnorm_every_dimension": Claim(
        "x", Eq(opnorm(u, z), 1 / s), [dimension_at_least(2)]
    ).statement,
    # undefined points: undefined at d = 1 (or at constant z), refutable elsewhere
    "undefined.divided_by_d_minus_one": Eq(q / (d - 1), q),
    "undefined.inverse_variance_shifted": Eq(1 / q, 1 / q + 1),
    "undefined.idealized_core_scale": Eq(core(2 * z, 0), 2 * core(z, 0)),
    "undefined.idealized_core_is_core": Eq(core(z, 0), u),
    "undefined.inverse_mean": Eq(1 / mean(z), mean(z)),
    # the false statements of the design: scale invariance, unit variance, zero mean
    "layer.scale_invariance": Eq(core(2 * z), u),
    "layer.unit_variance_of_output": Eq(var(layer_norm(z, gamma, beta)), 1),
    "layer.zero_mean_of_output": Eq(mean(layer_norm(z, gamma, beta)), 0),
    "layer.unit_variance_of_core": Eq(var(u), 1),
    "layer.gradient_sums_over_features": Eq(dot(ones, gamma * h) * u, gamma * h * u),
    "layer.jacobian_without_uuT": Eq(JH, center(h) / s),
    "layer.core_is_additive": Eq(core(z + h), u + core(h)),
    "layer.shift_moves_core": Eq(core(z + c * ones), u + c * ones),
    "layer.variance_is_linear": Eq(var(c * z), c * q),
    "layer.mean_is_multiplicative": Eq(mean(z * h), mean(z) * mean(h)),
    "layer.gain_gradient_sums_over_features": Eq(
        vjp(layer_norm(z, gamma, beta), gamma, g), dot(g, u) * ones
    ),
    "subs.idealized_by_substitution": Eq(core(z, k).subs(k, 0), core(z, k)),
    "sign.d_minus_two": false_le(2, d, d - 2),
}

#: False claims that the lemma schemas must refuse; each also has a counterexample.
LEMMA_REFUTABLE = {
    "lemma.spectral_every_dimension": lemma_claim(
        Eq(opnorm(u, z), 1 / s),
        SPECTRAL_NORM,
        *SPECTRAL_PREMISES,
        assumptions=[dimension_at_least(2)],
        witnesses=SPAN,
    ),
    "lemma.spectral_wrong_top": lemma_claim(
        Eq(opnorm(u, z), lambda_u),
        SPECTRAL_NORM,
        *SPECTRAL_PREMISES,
        assumptions=[dimension_at_least(3)],
        witnesses=SPAN,
    ),
}

#: False claims no engine can refute with a point it reaches; they must stay unproved.
UNREFUTABLE = {
    # false only for d ≥ 1000: beyond d ≤ 8
    "sign.root_of_999_minus_d": false_le(d, 999, root(as_scalar(999) - d) ** 2),
    "subs.real_symbol_by_999_minus_d": false_le(d, 999, root(k**2).subs(k, 999 - d)),
    "small_d.true_up_to_eight": Eq(
        sympy.prod([d - i for i in range(1, 9)]) * q, sympy.Integer(0) * q
    ),
    # lemma misuse: the conclusion is not the lemma's (false only for d ≥ 1000)
    "lemma.spectral_for_unrelated_claim": lemma_claim(Le(d, 999), SPECTRAL_NORM, SYMMETRIC),
    "lemma.mean_value_for_unrelated_claim": lemma_claim(Le(d, 999), MEAN_VALUE_INEQUALITY, BOUND),
    "lemma.mean_value_wrong_constant": lemma_claim(
        Le(norm(core(z + h) - u) ** 2, norm(h) ** 2 / (4 * eps)), MEAN_VALUE_INEQUALITY, BOUND
    ),
    "lemma.spectral_symmetry_narrowed_by_other_atoms": _spectral_with_narrowed_symmetry(),
    "lemma.mean_value_premise_with_assumption": lemma_claim(
        Le(norm(core(z + h) - u) ** 2, norm(h) ** 2 / (4 * eps)),
        MEAN_VALUE_INEQUALITY,
        CENTERED_BOUND,
    ),
}

#: Lemma applications missing a side condition: never PROVED by the lemma (the claim itself
#: may be true — at d = 2 the norm is λ_u even for constant z — but nothing shows it).
UNJUSTIFIED = {
    "lemma.spectral_two_without_nonconstant": lemma_claim(
        Eq(opnorm(u, z), lambda_u),
        SPECTRAL_NORM,
        SYMMETRIC,
        KILLS_ONES,
        EIGEN_CORE,
        assumptions=[dimension(2)],
        nonzero=d * q / (q + eps),
    ),
}

#: Vacuous assumptions: ERROR, never PROVED.
INCONSISTENT = {
    "vacuous.fixed_and_minimum": Claim("x", Eq(mean(z), 1), [dimension(2), dimension_at_least(3)]),
    "vacuous.two_fixed": Claim("x", Eq(mean(z), 1), [dimension(2), dimension(3)]),
    "vacuous.nonconstant_at_one": Claim("x", Eq(q, 0), [dimension(1), nonconstant(z)]),
}


#: A symbol with an assumption beyond real (ε, a positive p) replaced by a value not known
#: to satisfy it: refused when the expression is built, since SymPy may already have used
#: the assumption (√(p²) is built as p, √(ε²) as ε).
REFUSED_AT_BUILD = {
    "subs.eps_negative_in_norm": lambda: Eq(norm(eps * z).subs(eps, -1), -norm(z)),
    "subs.positive_symbol_negative_in_norm": lambda: Eq(norm(p * z).subs(p, -1), -norm(z)),
    "subs.positive_symbol_by_unknown": lambda: false_le(
        0, as_scalar(p).subs(p, c), as_scalar(p).subs(p, c)
    ),
    "subs.eps_by_negative": lambda: false_le(
        0, as_scalar(eps).subs(eps, -1), as_scalar(eps).subs(eps, -1)
    ),
    "subs.eps_by_minus_var": lambda: false_le(
        0, as_scalar(eps).subs(eps, -q), as_scalar(eps).subs(eps, -q)
    ),
    "subs.eps_by_zero": lambda: Eq(u.subs(eps, 0), u),
    "subs.positive_symbol_by_999_minus_d": lambda: false_le(
        d, 999, as_scalar(p).subs(p, 999 - d)
    ),
    "subs.root_of_square_of_eps": lambda: Eq(root(eps**2).subs(eps, -1), -1),
    "subs.root_of_square_in_core": lambda: Eq(
        core(z, root(eps**2)).subs(eps, -1), core(z, -1)
    ),
    "subs.positive_root_of_square_by_real": lambda: false_le(
        0, -root(p**2).subs(p, c), -root(p**2).subs(p, c)
    ),
}


@pytest.mark.parametrize("case_id", sorted(REFUSED_AT_BUILD))
def test_a_substitution_breaking_an_assumption_is_refused_when_built(case_id):
    with pytest.raises(ExpressionError, match="cannot evaluate at"):
        REFUSED_AT_BUILD[case_id]()


def _claim(case_id: str, subject) -> Claim:
    if isinstance(subject, Claim):
        return Claim(case_id, subject.statement, subject.assumptions, proof=subject.proof)
    return Claim(case_id, subject)


CHECKER = Checker(Options(engines=("general", "concrete"), timeout=None))


def test_the_suite_is_large_enough():
    total = len(REFUTABLE) + len(LEMMA_REFUTABLE) + len(UNREFUTABLE) + len(INCONSISTENT)
    total += len(UNJUSTIFIED) + len(REFUSED_AT_BUILD)
    assert total >= 60


@pytest.mark.parametrize("case_id", sorted(REFUTABLE) + sorted(LEMMA_REFUTABLE))
def test_false_claim_is_refuted_with_an_exact_counterexample(case_id):
    subject = REFUTABLE.get(case_id) or LEMMA_REFUTABLE[case_id]
    result = CHECKER.check(_claim(case_id, subject))
    assert result.verdict == "REFUTED", (result.verdict, result.reason)
    assert result.counterexample, result.reason


@pytest.mark.parametrize("case_id", sorted(UNREFUTABLE) + sorted(UNJUSTIFIED))
def test_false_claim_beyond_reach_is_not_proved(case_id):
    subject = UNREFUTABLE.get(case_id) or UNJUSTIFIED[case_id]
    result = CHECKER.check(_claim(case_id, subject))
    # VERIFIED is honest for a claim exact at d = 1..8 that fails only beyond.
    assert result.verdict != "PROVED", result.reason


@pytest.mark.parametrize("case_id", sorted(INCONSISTENT))
def test_inconsistent_assumptions_are_an_error(case_id):
    result = CHECKER.check(_claim(case_id, INCONSISTENT[case_id]))
    assert result.verdict == "ERROR"
    assert "inconsistent" in result.reason


@pytest.mark.parametrize(
    "case_id", sorted(LEMMA_REFUTABLE) + sorted(UNREFUTABLE) + sorted(UNJUSTIFIED)
)
def test_the_general_engine_and_lemmas_alone_do_not_prove_it(case_id):
    subject = {**LEMMA_REFUTABLE, **UNREFUTABLE, **UNJUSTIFIED}[case_id]
    result = Checker(Options(engines=("general",))).check(_claim(case_id, subject))
    assert result.verdict != "PROVED", result.reason


def test_every_premise_of_the_lemma_cases_is_proved():
    """Otherwise the lemma cases would fail for the wrong reason."""
    checker = Checker(Options(engines=("general",)))
    premises = {*SPECTRAL_PREMISES, BOUND, CENTERED_BOUND}
    assert {p.id: checker.check(p).verdict for p in premises} == {p.id: "PROVED" for p in premises}


def test_the_mean_value_schema_refuses_a_map_that_is_not_differentiable_everywhere():
    """x ↦ sign(mean(x))·1 has derivative 0 wherever defined but jumps at mean(x) = 0."""
    from lnsym.engines.general import GeneralEngine

    statement = Le(norm(SIGNUM.subs(z, z + h) - SIGNUM) ** 2, 0 * norm(h) ** 2)
    application = by_lemma(MEAN_VALUE_INEQUALITY, FLAT_BOUND)
    outcome = MEAN_VALUE_INEQUALITY.schema(statement, (), application, GeneralEngine())
    assert not outcome.proved
    assert "differentiable" in outcome.detail


# ---------------------------------------------------------------------------------------
# Non-real and unsafe input is refused when the expression is built


@pytest.mark.parametrize(
    "build",
    [
        lambda: sympy.I * z,
        lambda: dot(sympy.I * z, sympy.I * z),
        lambda: sympy.sqrt(-1) * z,
        lambda: as_scalar(-8) ** Rational(1, 3),
        lambda: as_scalar(sympy.Symbol("x")),  # a SymPy symbol of unknown (complex) kind
        lambda: as_scalar(sympy.oo),
        lambda: as_scalar(sympy.zoo),
        lambda: as_scalar(sympy.nan),
        lambda: as_scalar(sympy.Symbol("d")),  # not lnsym's dimension
        lambda: as_scalar(sympy.Dummy("t", real=True)),
        lambda: as_scalar(sympy.Symbol(r"}\input{/etc/passwd}\iffalse{", real=True)),
        lambda: as_scalar(sympy.Symbol("<script>", real=True)),
        lambda: vector("a\x00b"),
        lambda: vector("a\x1b[31m"),
        lambda: vector("γ"),
        lambda: vector("z\u202e"),
        lambda: ir.VectorAtom("}{"),
        lambda: scalar("x" * 40),
    ],
)
def test_non_real_or_unsafe_input_is_refused_at_construction(build):
    with pytest.raises(ExpressionError):
        build()


def test_the_vanilla_case_of_item_three_is_refused():
    """Le(0, ⟨iz, iz⟩) was PROVED: ⟨iz, iz⟩ = −‖z‖² is a 'square' of non-real vectors."""
    with pytest.raises(ExpressionError, match="not real"):
        Le(0, dot(sympy.I * z, sympy.I * z), certificate=[dot(sympy.I * z, sympy.I * z)])


# ---------------------------------------------------------------------------------------
# Mutation: break each rule of the kernel and watch the suite catch it


def _a_proved_case(cases: dict) -> str | None:
    """The first case (in id order) that the general engine proves, or None: one false case
    PROVED is what shows a broken rule, so the cases after it need not be checked. The
    kernel's rules are tested here on their own: without translation validation, which
    would catch many broken rules by itself (tests/checking/test_validation.py)."""
    checker = Checker(Options(engines=("general",), validation=False))
    proved = (i for i in sorted(cases) if checker.check(_claim(i, cases[i])).verdict == "PROVED")
    return next(proved, None)


ALL_CASES = {**REFUTABLE, **LEMMA_REFUTABLE, **UNREFUTABLE, **UNJUSTIFIED}


@pytest.mark.parametrize(
    "rule",
    [ir.Const, ir.Dot, ir.ScalarSum, ir.ScalarProduct, ir.Power, ir.Substitution, ir.Defined],
)
def test_breaking_a_sign_rule_makes_the_suite_fail(monkeypatch, rule):
    monkeypatch.setitem(signs.RULES, rule, lambda e, assumptions: signs.NONNEGATIVE)
    assert _a_proved_case(ALL_CASES), f"no case notices a broken {rule.__name__} rule"


@pytest.mark.parametrize(
    "name, broken",
    [
        ("is_real", lambda e: True),
        ("admissible", lambda target, value: True),
        ("_pairs_up", lambda factors: True),
    ],
)
def test_breaking_a_realness_or_pairing_check_makes_the_suite_fail(monkeypatch, name, broken):
    monkeypatch.setattr(signs, name, broken)
    cases = dict(ALL_CASES)
    if name == "admissible":  # broken, it lets the substitutions refused when built be built
        cases.update({case_id: build() for case_id, build in REFUSED_AT_BUILD.items()})
    assert _a_proved_case(cases), f"no case notices a broken {name}"


def test_breaking_a_lemma_schema_makes_the_suite_fail():
    from dataclasses import replace

    from lnsym.engines.general import Decision

    def blind(*args):
        return Decision(True, "trusted blindly")

    for case_id in ("lemma.spectral_for_unrelated_claim", "lemma.mean_value_for_unrelated_claim"):
        claim = UNREFUTABLE[case_id]
        broken = replace(claim.proof, lemma=replace(claim.proof.lemma, schema=blind))
        mutant = Claim(case_id, claim.statement, claim.assumptions, proof=broken)
        unvalidated = Options(engines=("general",), validation=False)
        assert Checker(unvalidated).check(mutant).verdict == "PROVED"
