"""Engine evidence in words: counterexamples are exact values, printed only here."""

from __future__ import annotations

import sympy

from lnsym import Claim, Counterexample, Eq, Le, check, core, scalar, var, vector
from lnsym.printing.evidence import (
    counterexample_record,
    counterexample_text,
    evidence_json,
    point_text,
)

z = vector("z")


def test_engines_return_exact_values_not_text():
    result = check(Claim("scale", Eq(core(2 * z), core(z))), engines=("general", "concrete"))
    found = result.counterexample
    assert isinstance(found, Counterexample)
    for value in [*found.vectors["z"], *found.scalars.values()]:
        assert isinstance(value, sympy.Rational)
    assert all(isinstance(x, sympy.Expr) for x in found.lhs)
    # The two sides really differ at the point: exact values, compared exactly.
    assert any(sympy.simplify(a - b) != 0 for a, b in zip(found.lhs, found.rhs, strict=True))
    assert result.reason == counterexample_text(found)


def test_a_counterexample_in_words_latex_and_json():
    found = Counterexample(
        d=2,
        vectors={"z": (sympy.Integer(0), sympy.Rational(-1, 2)), "gamma": (sympy.Integer(1),) * 2},
        scalars={"epsilon": sympy.Integer(1), "k": sympy.Integer(3)},
        lhs=1 / sympy.sqrt(5),
        rhs=sympy.Integer(1),
        relation="le",
    )
    assert point_text(found) == "d = 2, γ = (1, 1), z = (0, -1/2), ε = 1, k = 3"
    assert counterexample_text(found).endswith("lhs = √(5)/5 > rhs = 1")  # for people
    record = counterexample_record(found)
    assert record["lhs"] == "sqrt(5)/5"  # SymPy's text, for programs
    assert record["vectors"] == {"gamma": ["1", "1"], "z": ["0", "-1/2"]}
    assert record["lhs_latex"] == r"\frac{\sqrt{5}}{5}"
    assert record["lhs_decimal"] == "0.447213595500"


def test_long_sides_are_cut_in_the_sentence_but_not_in_the_record():
    long = tuple(sympy.sqrt(n) for n in range(2, 40))
    found = Counterexample(1, {}, {}, long, long, "eq")
    assert len(counterexample_text(found)) < 200
    assert counterexample_record(found)["lhs"].count("sqrt") == 38 - 5  # 4, 9, 16, 25, 36


def test_evidence_json_carries_the_record():
    k = scalar("k")
    result = check(Claim("k", Le(var(z) * k, 0)), engines=("general", "concrete"))
    concrete = next(e for e in result.evidence if e.counterexample is not None)
    record = evidence_json(concrete)
    assert record["outcome"] == "counterexample" and record["counterexample"]["d"] >= 1
    assert result.to_json()["counterexample"] == counterexample_record(result.counterexample)
