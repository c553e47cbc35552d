"""Claims, verdicts, evidence and budgets."""

from __future__ import annotations

import time

import pytest
import sympy

from lnsym import (
    Claim,
    Eq,
    Le,
    centered,
    check,
    core,
    d,
    dimension,
    dimension_at_least,
    eps,
    jvp,
    layer_norm_rows,
    matrix,
    n,
    nonconstant,
    ones,
    ones_matrix,
    orthogonal,
    scalar,
    var,
    vector,
)
from lnsym.checking import checker as checker_module
from lnsym.checking import claims as claims_module
from lnsym.checking.checker import Checker, Options, combine, inconsistency
from lnsym.checking.claims import Evidence
from lnsym.checking.proof import Derivation, Step
from lnsym.engines.base import Counterexample
from lnsym.errors import ExpressionError
from lnsym.ir import center, mean

z, h = vector("z"), vector("h")
c = scalar("c")
u = core(z)
Z = matrix("Z", n, d)


def test_a_true_user_claim_about_jvp_is_proved():
    result = check(Claim("user.along_z", Eq(jvp(u, z, z), eps / (var(z) + eps) * u)))
    assert result.verdict == "PROVED"
    assert result.passed
    assert [e.engine for e in result.evidence][0] == "general"
    assert result.evidence[0].outcome == "proved"


def test_a_false_user_claim_is_not_proved():
    result = check(Claim("user.wrong", Eq(jvp(u, z, z), 0)))
    assert result.verdict != "PROVED"
    assert not result.passed
    assert result.evidence[0].outcome == "not proved"
    assert "residual" in result.evidence[0].data


@pytest.mark.parametrize(
    "statement",
    [
        Eq(jvp(u, z, z), 0),  # a vector equality
        Eq(var(z) * c, var(z)),  # a scalar one
        Le(var(z), var(z) - c**2, (c**2,)),  # an inequality whose certificate is wrong
        Eq(layer_norm_rows(Z + ones_matrix(n, d)), layer_norm_rows(Z) + ones_matrix(n, d)),
    ],
    ids=["vector", "scalar", "certificate", "matrix"],
)
def test_without_residuals_the_verdict_and_every_word_are_the_same(statement):
    # Options(residuals=False) (lnsym verify without --json, lnsym report) skips only the
    # canonical residual of a failed proof, never anything a verdict or a report shows.
    claim = Claim("user.residual", statement)
    engines = ("general", "concrete")
    full = Checker(Options(engines=engines)).check(claim)
    bare = Checker(Options(engines=engines, residuals=False)).check(claim)
    assert full.verdict == bare.verdict == "REFUTED"
    assert "residual" in full.evidence[0].data and "residual_latex" in full.evidence[0].data
    assert "residual" not in bare.evidence[0].data
    for a, b in zip(full.evidence, bare.evidence, strict=True):
        assert (a.engine, a.outcome, a.detail) == (b.engine, b.outcome, b.detail)
        assert {k: v for k, v in a.data.items() if not k.startswith("residual")} == b.data
    assert full.counterexample == bare.counterexample


def test_expect_refuted_passes_only_on_refutation():
    claim = Claim("user.refuted", Eq(core(c * z), core(z)), expect="refuted")
    result = check(claim, engines=["general"])
    # The general engine alone cannot refute (no exact counterexample): not a pass.
    assert result.verdict == "ERROR"
    assert not result.passed


def test_claim_validation():
    with pytest.raises(ExpressionError):
        Claim("bad id!", Eq(u, u))
    with pytest.raises(ExpressionError):
        Claim("x", u)  # type: ignore[arg-type]
    with pytest.raises(ExpressionError):
        Claim("x", Eq(u, u), expect="maybe")
    with pytest.raises(ExpressionError):
        Claim("x", Eq(u, u), require="REFUTED")
    with pytest.raises(ExpressionError):
        Claim("x", Eq(u, u), assumptions=[u])


_POINT = Counterexample(
    2, {"z": (sympy.Integer(0), sympy.Integer(1))}, {}, sympy.Integer(0), sympy.Integer(1), "eq"
)


def evidence(engine: str, outcome: str, **data) -> Evidence:
    found = _POINT if data.get("exact") else None
    return Evidence(engine, outcome, f"{engine} {outcome}", 0.0, data, found)


@pytest.mark.parametrize(
    ("outcomes", "verdict"),
    [
        ([evidence("general", "proved")], "PROVED"),
        ([evidence("general", "proved"), evidence("concrete", "holds")], "PROVED"),
        ([evidence("general", "not proved"), evidence("concrete", "holds")], "VERIFIED"),
        ([evidence("general", "not proved"), evidence("numeric", "consistent")], "CONSISTENT"),
        (
            [evidence("general", "not proved"), evidence("concrete", "counterexample", exact=True)],
            "REFUTED",
        ),
        (
            [evidence("general", "proved"), evidence("concrete", "counterexample", exact=True)],
            "ERROR",
        ),
        (
            [
                evidence("general", "proved"),
                evidence("concrete", "counterexample", exact=True, rechecked="exactly"),
            ],
            "REFUTED",
        ),
        (
            [evidence("general", "not proved"), evidence("concrete", "error")],
            "ERROR",
        ),
        (
            [evidence("general", "proved"), evidence("numeric", "counterexample", exact=False)],
            "ERROR",
        ),
        ([evidence("general", "timeout")], "TIMEOUT"),
        ([evidence("general", "not proved")], "ERROR"),
        ([evidence("general", "error")], "ERROR"),
    ],
)
def test_combine(outcomes, verdict):
    assert combine(outcomes)[0] == verdict


def test_requirement_levels():
    claim = Claim("x", Eq(u, u), require="VERIFIED")
    verified = claims_module.Result(claim, "VERIFIED", (), 0.0)
    consistent = claims_module.Result(claim, "CONSISTENT", (), 0.0)
    assert verified.passed and not consistent.passed


def test_a_slow_engine_becomes_timeout(monkeypatch):
    def slow(claim, checker):
        time.sleep(5)
        raise AssertionError("the budget should have interrupted the engine")

    monkeypatch.setitem(checker_module.ENGINES, "slow", slow)
    checker = Checker(Options(timeout=0.3, engines=("slow",)))
    start = time.perf_counter()
    result = checker.check(Claim("x", Eq(u, u)))
    assert time.perf_counter() - start < 1.3
    assert result.verdict == "TIMEOUT"
    assert "0.3" in result.reason


@pytest.mark.parametrize(
    "exc", [ValueError("boom"), KeyError("boom"), NameError("boom"), Exception("boom")]
)
def test_engine_failures_become_error_evidence(monkeypatch, exc):
    def broken(claim, checker):
        raise exc

    monkeypatch.setitem(checker_module.ENGINES, "broken", broken)
    result = Checker(Options(engines=("broken",))).check(Claim("x", Eq(u, u)))
    assert result.verdict == "ERROR"
    assert result.evidence[0].detail == f"internal {type(exc).__name__}: {exc}"


def test_system_exit_is_not_an_engine_failure(monkeypatch):
    def leaving(claim, checker):
        raise SystemExit(3)

    monkeypatch.setitem(checker_module.ENGINES, "leaving", leaving)
    with pytest.raises(SystemExit):
        Checker(Options(engines=("leaving",))).check(Claim("x", Eq(u, u)))


@pytest.mark.parametrize(
    ("assumptions", "reason"),
    [
        ((dimension(2), dimension_at_least(3)), "dimension(2) contradicts dimension_at_least(3)"),
        ((dimension(4), dimension(2)), "dimension(2) contradicts dimension(4)"),
        ((dimension(1), nonconstant(z)), "nonconstant(z) needs d ≥ 2"),
        ((dimension(3), dimension_at_least(3), nonconstant(z)), None),
        ((dimension(2), centered(z), nonconstant(z)), None),
        ((orthogonal(z, h), nonconstant(z), nonconstant(h), dimension_at_least(2)), None),
        ((dimension_at_least(5), nonconstant(z)), None),
        ((), None),
    ],
)
def test_inconsistent_assumptions_are_detected(assumptions, reason):
    found = inconsistency(assumptions)
    if reason is None:
        assert found is None
    else:
        assert found is not None and reason in found
        result = check(Claim("vacuous", Eq(var(z) * 0, 0), assumptions))
        assert result.verdict == "ERROR"
        assert result.reason == f"assumptions are inconsistent: {found}"


def test_derivation_results():
    chain = Derivation(
        "t.core",
        "core shift",
        core(z + c * ones),
        [Step(core(z), "shift invariance"), Step(core(z) + 0 * ones, "add zero")],
    )
    result = Checker().check_derivation(chain)
    assert result.verdict == "PROVED" and result.passed
    assert [r.claim.id for r in result.steps] == ["t.core#1", "t.core#2"]
    broken = Derivation("t.bad", "bad", core(2 * z), [Step(core(z), "scale invariance?")])
    assert not Checker().check_derivation(broken).passed


def test_inequality_claims_go_through_certificates():
    assert check(Claim("x", Le(0, var(z), [var(z)]))).verdict == "PROVED"
    assert check(Claim("y", Le(0, var(z)))).verdict != "PROVED"


def test_json_has_the_documented_fields():
    data = check(Claim("user.shift", Eq(core(z + c * ones), u), source="mine")).to_json()
    assert data["id"] == "user.shift"
    assert data["verdict"] == "PROVED"
    assert data["statement"].startswith(r"u_{\varepsilon}")
    assert data["evidence"][0]["engine"] == "general"
    assert data["source"] == "mine"


def test_a_broken_derivative_rule_is_caught_by_the_concrete_engine(monkeypatch):
    """Treat √(q + ε) as a constant when differentiating — SymPy's matrix-calculus bug."""
    import sympy

    from lnsym import center, d, dot
    from lnsym.engines.general import derivatives, radicand_of

    original = derivatives._d_symbol

    def roots_are_constants(sym, wrt, direction):
        if radicand_of(sym) is not None:
            return sympy.Integer(0)
        return original(sym, wrt, direction)

    monkeypatch.setattr(derivatives, "_d_symbol", roots_are_constants)
    h = vector("h")
    s = (var(z) + eps) ** sympy.Rational(1, 2)
    # The concrete engine's own cross-check, without translation validation (which catches
    # it too: tests/checking/test_validation.py).
    options = Options(engines=("general", "concrete"), max_d=3, validation=False)

    wrong = Claim("broken.wrong", Eq(jvp(u, z, h), center(h) / s))
    result = Checker(options).check(wrong)
    general_evidence, concrete_evidence = result.evidence
    assert general_evidence.outcome == "proved"  # the broken rule "proves" the wrong form
    assert concrete_evidence.outcome == "counterexample"
    # The counterexample was evaluated again, exactly: the claim is false, the proof wrong.
    assert concrete_evidence.data["rechecked"].startswith("re-checked exactly")
    assert result.verdict == "REFUTED" and "disagree" in result.reason
    assert "general engine's proof is contradicted" in result.reason

    right = Claim("broken.right", Eq(jvp(u, z, h), (center(h) - u * dot(u, h) / d) / s))
    result = Checker(options).check(right)
    assert [e.outcome for e in result.evidence] == ["not proved", "holds"]
    assert result.verdict == "VERIFIED" and not result.passed


def test_a_genuinely_slow_claim_ends_as_timeout_within_its_safety_net():
    # A true identity whose proof needs a huge polynomial expansion. The general engine
    # refuses it at once for its size (a deterministic limit); exact points (numbers of
    # ~10⁶ digits) take the concrete engine past the wall-clock safety net; the numeric
    # engine still gets its turn (each engine gets the budget afresh), but its agreement
    # cannot make the verdict, which would then depend on the load.
    h, k = vector("h"), scalar("k")
    from lnsym import dot, mean

    base = dot(z, h) + mean(z) + var(h) + c + k + eps
    n = 30_000
    slow = Claim("slow.expand", Eq(base**n * (base + 1) ** n, (base**2 + base) ** n))
    start = time.perf_counter()
    result = Checker(Options(timeout=1.0)).check(slow)
    assert time.perf_counter() - start < 3 * 1.0 + 1.0
    assert result.verdict == "TIMEOUT"
    general, concrete, numeric = result.evidence
    assert general.outcome == "error" and "too large" in general.detail
    assert concrete.outcome == "timeout"
    assert numeric.outcome == "consistent"
    assert result.reason == (
        "the wall-clock safety net of 1 s ran out before the engine reached a deterministic limit"
    )


def test_user_mistakes_are_one_clear_error():
    from lnsym import centered
    from lnsym.checking.checker import check as check_one
    from lnsym.errors import ExpressionError

    for mistake, message in [
        (lambda: check_one(Eq(mean(z), 0)), "takes a Claim"),
        (lambda: Claim("a", Eq(mean(z), 0), centered(z)), "assumptions are a list"),
        (lambda: Le(0, var(z), certificate=var(z)), "certificate is a list"),
        (lambda: check_one(Claim("a", Eq(mean(z), 0)), engines=["bogus"]), "unknown engine"),
        (lambda: check_one(Claim("a", Eq(mean(z), 0)), engines="general"), "list of engine"),
        (lambda: check_one(Claim("a", Eq(mean(z), 0)), engines=["validation"]), "unknown"),
    ]:
        with pytest.raises(ExpressionError, match=message):
            mistake()


def test_a_statement_too_deep_for_the_engines_is_refused_when_built():
    from lnsym.checking.claims import MAX_DEPTH
    from lnsym.errors import ExpressionError

    deep = z
    for _ in range(MAX_DEPTH):
        deep = center(deep)
    with pytest.raises(ExpressionError, match="levels deep"):
        Claim("deep", Eq(mean(deep), 0))
    shallow = z
    for _ in range(MAX_DEPTH - 5):
        shallow = center(shallow)
    assert check(Claim("ok", Eq(mean(shallow), 0))).verdict == "PROVED"


def test_a_function_of_vector_statistics_is_validated():
    """exp(mean z) has no IR of its own: its normal form is written back as exp(t) at
    t = mean z (validation could not, and the true claim was an ERROR)."""
    import sympy as sp

    from lnsym import ir as lnsym_ir

    c = scalar("c")
    e = lnsym_ir.Const(sp.exp(c)).subs(c, mean(z))
    assert check(Claim("exp", Eq(2 * e, e + e))).verdict == "PROVED"
