"""Soundness of the engines together: false claims are never PROVED or VERIFIED, and are
REFUTED with an exact, re-checked counterexample wherever the concrete engine can reach one.

Each group reproduces a reported failure (issue 9, items 5–8) and then the class of problem
behind it with a few variants:

- inequalities: the concrete engine checks an inequality by its own means (exact points,
  fractions, negatives, boundary values), never only through a certificate that shares the
  general engine's sign rules;
- undefined points: a claim undefined at d = 1 (or at some points) is decided where it is
  defined; non-real values (roots of negatives) mean "undefined there", never a crash;
- contradictory assumptions are an ERROR before any engine runs, never a vacuous proof;
- isolation: an exception inside an engine is that engine's error evidence for that claim
  only;
- every exact counterexample is evaluated again, exactly, before it may refute.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import sympy
from sympy import Rational

from lnsym import (
    Claim,
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
    mean,
    nonconstant,
    ones,
    orthogonal,
    scalar,
    var,
    vector,
)
from lnsym.checking import checker as checker_module
from lnsym.checking.catalog import Section
from lnsym.checking.checker import Checker, Options, check
from lnsym.checking.claims import Evidence
from lnsym.checking.proof import Derivation, Step
from lnsym.checking.runner import Item, run
from lnsym.cli import main
from lnsym.engines.base import Counterexample
from lnsym.ir import Const, as_scalar
from lnsym.printing.evidence import counterexample_record

z, h, a, b = vector("z"), vector("h"), vector("a"), vector("b")
c = scalar("c")
k = scalar("k", positive=True)
BOTH = ("general", "concrete")
DEFAULT = ("general", "concrete", "numeric")


def refuted(claim: Claim, engines: tuple[str, ...]) -> dict:
    """Check ``claim``; it must be REFUTED with an exact counterexample that was re-checked."""
    result = check(claim, engines=engines)
    assert result.verdict == "REFUTED", (result.reason, [e.detail for e in result.evidence])
    assert result.counterexample is not None
    assert any(e.data.get("rechecked") for e in result.evidence)
    return counterexample_record(result.counterexample)


def sqrt(x):
    return x ** Rational(1, 2)


# ---------------------------------------------------------------------------------------
# Item 5: an inequality is checked by its own means, not only through its certificate


FALSE_INEQUALITIES = {
    # The reported cases: a certificate whose only term is the "square" of a root that is
    # not real where the claim fails.
    "var_below_1": (Le(var(z), 1, certificate=[sqrt(1 - var(z)) ** 2]), {"d": 2}),
    "c_below_1": (Le(c, 1, certificate=[sqrt(1 - c) ** 2]), {"d": 1, "c": "2"}),
    "c_below_c2": (Le(c, c**2, certificate=[sqrt(c**2 - c) ** 2]), {"d": 1, "c": "1/2"}),
    # Variants: other bounds, a fraction only, a negative fraction only, a vector whose
    # entries must be fractions (d = 1), a positive symbol, a boundary just above 1.
    "var_below_2": (Le(var(z), 2, certificate=[sqrt(2 - var(z)) ** 2]), {"d": 2}),
    "mean_vs_square": (Le(mean(z), mean(z) ** 2), {"d": 1}),
    "negative_fraction": (Le(-c, c**2, certificate=[sqrt(c**2 + c) ** 2]), {"c": "-1/2"}),
    "positive_fraction": (Le(k, k**2, certificate=[sqrt(k**2 - k) ** 2]), {"k": "1/2"}),
    "just_above_one": (Le(0, (c - 1) * (c - Rational(101, 100))), {"c": "1001/1000"}),
    "fraction_norm": (Le(dot(z, z), mean(z)), {"d": 1}),
}


@pytest.mark.parametrize("engines", [BOTH, DEFAULT], ids=["general+concrete", "default"])
@pytest.mark.parametrize("name", sorted(FALSE_INEQUALITIES))
def test_false_inequalities_are_refuted_exactly(name, engines):
    statement, expected = FALSE_INEQUALITIES[name]
    found = refuted(Claim(f"false.{name}", statement), engines)
    for key, value in expected.items():
        if key == "d":  # a degenerate d = 1 point gives way to an informative d = 2 one
            assert found["d"] in (value, 2)
        elif key in found["scalars"]:
            assert found["scalars"][key] == value
        else:
            assert found["vectors"][key] == value
    lhs, rhs = sympy.Rational(found["lhs"]), sympy.Rational(found["rhs"])
    assert lhs > rhs


def test_a_bound_on_d_beyond_max_d_is_refuted_where_it_fails():
    # d ≤ 999 holds for d = 1..8; a claim without vectors is also tried at large d.
    statement = Le(d, 999, certificate=[sqrt(as_scalar(999) - d) ** 2])
    for engines in (BOTH, DEFAULT):
        found = refuted(Claim("false.d_below_999", statement), engines)
        assert (found["d"], found["lhs"], found["rhs"]) == (1000, "1000", "999")
    found = refuted(Claim("false.d_squared", Le(d**2, 10**6 + 1)), BOTH)
    assert found["d"] ** 2 > 10**6 + 1


def test_a_certificate_term_that_is_negative_somewhere_is_never_corroborated():
    # True inequalities, wrong certificates: the identity holds symbolically (SymPy writes
    # (√x)² as x) and the sign rules may accept the "square", but at some exact point a
    # term is not real, or negative: the concrete engine must not call that a proof.
    from lnsym.engines.concrete.engine import evidence

    q = var(z)
    cases = [
        Le(0, q, certificate=[sqrt(q - 1) ** 2, 1]),
        Le(c**2, c**2 + 1, certificate=[sqrt(c - 1) ** 2, 2 - c]),
        Le(0, q + eps, certificate=[sqrt(q - eps) ** 2, 2 * eps]),
    ]
    for statement in cases:
        result = evidence(Claim("wrong.certificate", statement), max_d=3)
        assert result.outcome == "consistent", result.detail
        assert "certificate is wrong" in result.detail
        assert result.data["certificate_failure"].startswith("t1 ")


def test_a_valid_certificate_is_corroborated_only_after_a_search():
    from lnsym.engines.concrete.engine import evidence

    result = evidence(Claim("ok", Le(var(z), var(z) + eps, certificate=[eps])), max_d=3)
    assert result.outcome == "holds"
    assert "no violation and no negative tₖ" in result.detail
    assert result.data["samples"] > 100


# ---------------------------------------------------------------------------------------
# Item 6: undefined points are skipped, non-real values are undefined, internal names


UNDEFINED_AT_D1 = {
    "over_d_minus_1": Eq(mean(z) / (d - 1), 0),
    "idealized_core": Eq(core(z, 0), center(z)),
    "over_variance": Eq(mean(z) / var(z), mean(z)),
    "over_d_minus_1_le": Le(1, 1 / (d - 1)),
}


@pytest.mark.parametrize("engines", [BOTH, DEFAULT], ids=["general+concrete", "default"])
@pytest.mark.parametrize("name", sorted(UNDEFINED_AT_D1))
def test_claims_undefined_at_d1_are_refuted_at_larger_d(name, engines):
    found = refuted(Claim(f"undefined.{name}", UNDEFINED_AT_D1[name]), engines)
    assert found["d"] >= 2


def test_a_true_claim_undefined_somewhere_is_verified_where_defined():
    from lnsym.engines.concrete.engine import evidence

    result = evidence(Claim("ratio", Eq(var(z) / var(z), 1)), max_d=4)
    assert result.outcome == "holds"
    assert result.data["dimensions"] == [2, 3, 4]
    assert result.data["undefined_dimensions"] == [1]
    assert "skipped d = 1, undefined at every point tried" in result.detail
    result = check(Claim("ratio", Eq(var(z) / var(z), 1)), engines=BOTH)
    assert result.verdict in ("PROVED", "VERIFIED")


def test_a_claim_undefined_everywhere_is_an_error_that_says_so():
    result = check(Claim("nowhere", Eq(mean(z) / (var(z) - var(z)), 0)), engines=("concrete",))
    assert result.verdict == "ERROR"
    assert "undefined at every point tried at d = 1..8" in result.reason


def test_scalars_range_over_fractions_and_negatives():
    assert refuted(Claim("c_c2", Le(c, c**2)), BOTH)["scalars"] == {"c": "1/2"}
    assert refuted(Claim("c_c3", Le(c**3, c)), BOTH)["scalars"] == {"c": "2"}
    assert refuted(Claim("negative", Le(c, c**3)), BOTH)["scalars"] == {"c": "-2"}
    assert refuted(Claim("within", Le(-c, c**2)), BOTH)["scalars"] == {"c": "-1/2"}


def test_user_scalars_cannot_collide_with_coordinates():
    # z_1 is a valid user name; the first coordinate of z is not that scalar.
    z_1 = scalar("z_1")
    claim = Claim("collide", Eq(dot(z, ones), z_1), [dimension(1)])
    for engines in (("concrete",), BOTH, DEFAULT):
        found = refuted(claim, engines)
        assert found["d"] == 1
    found = refuted(Claim("collide2", Eq(dot(z, z), z_1**2), [dimension(2)]), BOTH)
    assert found["d"] == 2


NON_REAL = {
    "cube_root_scalar": Eq((c - 9) ** Rational(1, 3) * c, c),
    "cube_root_mean": Eq((mean(z) - 8) ** Rational(1, 3), mean(z)),
    "root_of_negative": Eq(sqrt(c) * c, c),
    "fourth_root": Le((c - 16) ** Rational(1, 4), 1),
}


@pytest.mark.parametrize("engines", [BOTH, DEFAULT], ids=["general+concrete", "default"])
@pytest.mark.parametrize("name", sorted(NON_REAL))
def test_non_real_values_are_undefined_points_not_crashes(name, engines):
    result = check(Claim(f"nonreal.{name}", NON_REAL[name]), engines=engines)
    assert not any("internal" in e.detail for e in result.evidence), result.evidence
    assert result.verdict == "REFUTED", result.reason


def test_a_true_claim_with_a_real_root_is_not_refuted_by_complex_roots():
    # ((μ − 9)^(1/3))³ is μ − 9 where the root is real (μ ≥ 9): never a counterexample.
    claim = Claim("cube", Eq(((mean(z) - 9) ** Rational(1, 3)) ** 3, mean(z) - 9))
    result = check(claim, engines=BOTH)
    assert result.verdict in ("PROVED", "VERIFIED"), result.reason


# ---------------------------------------------------------------------------------------
# Item 7: contradictory assumptions are never a vacuous proof


CONTRADICTIONS = {
    "fixed_vs_lower_bound": ([dimension(2), dimension_at_least(3)], "dimension(2) contradicts"),
    "two_fixed": ([dimension(2), dimension(3)], "dimension(2) contradicts dimension(3)"),
    "nonconstant_in_1d": ([nonconstant(z), dimension(1)], "nonconstant(z) needs d ≥ 2"),
    "nonconstant_centered_1d": (
        [centered(z), nonconstant(z), dimension(1)],
        "nonconstant(z) needs d ≥ 2",
    ),
}


@pytest.mark.parametrize("name", sorted(CONTRADICTIONS))
def test_inconsistent_assumptions_are_an_error_before_any_engine(name, monkeypatch):
    assumptions, why = CONTRADICTIONS[name]

    def never(claim, checker):
        raise AssertionError("no engine may run on contradictory assumptions")

    # d = 2 under d = 2 is "provable"; d = 2 under d ≥ 3 is vacuous.
    vacuous = Claim(f"vacuous.{name}", Eq(as_scalar(d) * var(z), 2 * var(z)), assumptions)
    result = check(vacuous)
    assert result.verdict == "ERROR"
    assert result.reason.startswith("assumptions are inconsistent: ")
    assert why in result.reason
    assert [e.engine for e in result.evidence] == ["assumptions"]
    monkeypatch.setitem(checker_module.ENGINES, "general", never)
    assert Checker().check(vacuous).verdict == "ERROR"


def test_consistent_assumptions_still_reach_the_engines():
    cases = [
        (Eq(mean(h), 0), [centered(h), nonconstant(h), dimension(2)]),
        (Eq(dot(a, b), 0), [orthogonal(a, b), dimension_at_least(2)]),
        (Eq(var(z) * 0, 0), [dimension(3), dimension_at_least(2), dimension(3)]),
    ]
    for statement, assumptions in cases:
        result = check(Claim("fine", statement, assumptions), engines=BOTH)
        assert result.verdict == "PROVED", result.reason


def test_derivations_under_contradictory_assumptions_are_errors():
    chain = Derivation(
        "t.vacuous", "vacuous", var(z), [Step(var(z) * 0, "d = 1")], [dimension(2), dimension(5)]
    )
    result = Checker().check_derivation(chain)
    assert [r.verdict for r in result.steps] == ["ERROR"]
    assert "inconsistent" in result.steps[0].reason


# ---------------------------------------------------------------------------------------
# Item 8: an exception inside an engine is that engine's error for that claim only


@pytest.mark.parametrize(
    "exc",
    [KeyError("k"), NameError("name 'f' is not defined"), AttributeError("a"), LookupError("l"),
     AssertionError("assert"), RuntimeError("r"), NotImplementedError("n")],
)  # fmt: skip
def test_any_engine_exception_becomes_error_evidence(exc, monkeypatch):
    def broken(claim, checker):
        raise exc

    monkeypatch.setitem(checker_module.ENGINES, "numeric", broken)
    result = Checker(Options(engines=DEFAULT, max_d=3)).check(
        Claim("shift", Eq(core(z + c * ones), core(z)))
    )
    assert result.verdict == "PROVED"
    numeric = result.evidence[-1]
    assert numeric.outcome == "error"
    assert numeric.detail.startswith(f"internal {type(exc).__name__}: ")


def test_keyboard_interrupt_is_not_swallowed(monkeypatch):
    def interrupted(claim, checker):
        raise KeyboardInterrupt

    monkeypatch.setitem(checker_module.ENGINES, "numeric", interrupted)
    with pytest.raises(KeyboardInterrupt):
        Checker(Options(engines=("numeric",))).check(Claim("x", Eq(var(z), var(z))))


def _section(*claims: Claim) -> Section:
    return Section(Path("isolation.py"), "Isolation", "", tuple(claims), ())


def test_one_failing_claim_does_not_lose_the_others_in_a_run(monkeypatch):
    bad = Claim("bad.function", Eq(Const(sympy.Function("f")(c)), c))
    good = Claim("good.shift", Eq(core(z + c * ones), core(z)))
    false = Claim("false.scale", Eq(core(2 * z), core(z)), expect="refuted")
    section = _section(bad, good, false)
    items = [Item(section, claim) for claim in section.claims]
    results = run(items, Options(max_d=3, samples=40))
    assert [r.verdict for r in results] == ["ERROR", "PROVED", "REFUTED"]

    # Whatever an engine raises, only its own claim is affected.
    original = checker_module.ENGINES["concrete"]

    def fragile(claim, checker):
        if claim.id == "good.shift":
            raise ZeroDivisionError("boom")
        return original(claim, checker)

    monkeypatch.setitem(checker_module.ENGINES, "concrete", fragile)
    results = run(items, Options(max_d=3, samples=40))
    assert [r.verdict for r in results] == ["ERROR", "PROVED", "REFUTED"]
    concrete = next(e for e in results[1].evidence if e.engine == "concrete")
    assert concrete.detail == "internal ZeroDivisionError: boom"


MODULE = '''"""Isolation

One claim no engine can evaluate, beside claims that must keep their results.
"""
import sympy
from lnsym import Claim, Eq, core, ones, scalar, vector
from lnsym.ir import Const
z, c = vector("z"), scalar("c")
CLAIMS = [
    Claim("mine.undefined_function", Eq(Const(sympy.Function("f")(c)), c)),
    Claim("mine.shift", Eq(core(z + c * ones), core(z))),
    Claim("mine.scale", Eq(core(2 * z), core(z)), expect="refuted"),
]
'''


def test_the_cli_reports_every_claim_when_one_cannot_be_evaluated(tmp_path, capsys):
    path = tmp_path / "isolation.py"
    path.write_text(MODULE, encoding="utf-8")
    code = main(["verify", str(path), "--json", "-", "--max-d", "3", "--samples", "40"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    report = json.loads(captured.out)
    verdicts = {r["id"]: r["verdict"] for r in report["results"]}
    assert verdicts == {
        "mine.undefined_function": "ERROR",
        "mine.shift": "PROVED",
        "mine.scale": "REFUTED",
    }
    assert code == 1  # the undefined function fails its expectation, nothing else


# ---------------------------------------------------------------------------------------
# Every exact counterexample is re-checked before it refutes


def _number(text: str) -> sympy.Expr:
    return sympy.Float(text) if "." in text else sympy.Rational(text)


def _fake_concrete(point: dict):
    """An engine that reports ``point`` (written as text) as an exact counterexample."""
    found = Counterexample(
        d=point["d"],
        vectors={a: tuple(_number(x) for x in v) for a, v in point["vectors"].items()},
        scalars={s: _number(v) for s, v in point["scalars"].items()},
        lhs=sympy.Integer(0),
        rhs=sympy.Integer(1),
        relation="eq",
    )

    def engine(claim, checker):
        return Evidence("concrete", "counterexample", "fake", 0.0, {"exact": True}, found)

    return engine


@pytest.mark.parametrize(
    ("statement", "assumptions", "point", "why"),
    [
        # The relation holds at the point.
        (Eq(core(z + c * ones), core(z)), [],
         {"d": 2, "vectors": {"z": ["0", "1"]}, "scalars": {"c": "1", "epsilon": "1"}},
         "the relation holds at the point"),
        # The point violates the claim but not the assumptions it was given.
        (Eq(mean(h), 0), [centered(h)],
         {"d": 1, "vectors": {"h": ["1"]}, "scalars": {}},
         "the point does not satisfy the assumptions"),
        (Eq(var(z), 0), [nonconstant(z)],
         {"d": 2, "vectors": {"z": ["1", "1"]}, "scalars": {}},
         "the point does not satisfy the assumptions"),
        (Eq(mean(h), 0), [dimension(3)],
         {"d": 1, "vectors": {"h": ["1"]}, "scalars": {}},
         "d = 1 is outside the assumptions"),
        # ε must be positive; the claim must be defined there; the point must be exact.
        (Eq(core(2 * z), core(z)), [],
         {"d": 2, "vectors": {"z": ["0", "1"]}, "scalars": {"epsilon": "-1"}},
         "the positive scalar epsilon is -1"),
        (Eq(core(z, 0), core(2 * z, 0)), [],
         {"d": 2, "vectors": {"z": ["1", "1"]}, "scalars": {}},
         "the claim is undefined at the point"),
        (Eq(mean(z), 0), [],
         {"d": 1, "vectors": {"z": ["0.5"]}, "scalars": {}},
         "malformed point"),
        (Eq(mean(z), 0), [],
         {"d": 2, "vectors": {"z": ["1"]}, "scalars": {}},
         "the vector z does not have 2 entries"),
    ],
)  # fmt: skip
def test_a_counterexample_that_fails_the_exact_recheck_never_refutes(
    statement, assumptions, point, why, monkeypatch
):
    monkeypatch.setitem(checker_module.ENGINES, "concrete", _fake_concrete(point))
    result = Checker(Options(engines=("concrete",))).check(Claim("x", statement, assumptions))
    assert result.verdict == "ERROR"
    (concrete,) = result.evidence
    assert concrete.outcome == "error"
    assert "did not survive the exact re-check" in concrete.detail
    assert why in concrete.data["recheck_failed"]


def test_a_genuine_counterexample_is_rechecked_and_refutes():
    result = check(Claim("scale", Eq(core(2 * z), core(z))), engines=BOTH)
    assert result.verdict == "REFUTED"
    concrete = result.evidence[1]
    assert concrete.data["rechecked"].startswith("re-checked exactly")


def test_a_rechecked_counterexample_overrides_a_wrong_proof(monkeypatch):
    def wrong_proof(claim, checker):
        return Evidence("general", "proved", "by a broken rule", 0.0)

    monkeypatch.setitem(checker_module.ENGINES, "general", wrong_proof)
    result = check(Claim("scale", Eq(core(2 * z), core(z))), engines=BOTH)
    assert result.verdict == "REFUTED"
    assert "engines disagree" in result.reason
    assert result.counterexample.d == 2


def test_numeric_counterexamples_are_made_exact_when_they_are():
    result = check(Claim("scale", Eq(core(2 * z), core(z))), engines=("numeric",))
    assert result.verdict == "REFUTED", result.reason
    exact = result.evidence[-1]
    assert exact.engine == "exact" and exact.data["from"] == "numeric"
    assert exact.data["exact"] is True
    found = result.counterexample
    assert found.d >= 2
    result = check(Claim("c_c2", Le(c, c**2)), engines=("general", "numeric"))
    assert result.verdict == "REFUTED", result.reason
