"""Rich display in Jupyter (``_repr_markdown_`` / ``_repr_latex_``)."""

from __future__ import annotations

from fractions import Fraction

from lnsym import Claim, Eq, centered, core, jvp, ones, scalar, vector, worked_example
from lnsym.checking.checker import Checker, Options
from lnsym.checking.proof import Derivation, Step

z, h, c = vector("z"), vector("h"), scalar("c")


def test_expressions_and_relations_show_as_latex():
    assert core(z)._repr_latex_() == r"$u_{\varepsilon}(\mathbf{z})$"
    assert Eq(jvp(core(z), z, ones), 0)._repr_latex_().startswith("$D_{\\mathbf{z}}")


def test_claims_and_results_show_as_markdown():
    claim = Claim("mine.zero", Eq(jvp(core(z), z, z), 0), [centered(h)], title="Jz = 0?")
    shown = claim._repr_markdown_()
    assert shown.splitlines()[0] == "**`mine.zero`** — Jz = 0?"
    assert "assuming $\\mu(\\mathbf{h}) = 0$" in shown
    result = Checker(Options(engines=("general", "concrete"), max_d=3)).check(claim)
    shown = result._repr_markdown_()
    assert "**REFUTED** (**fails** its expectation)" in shown
    assert "- concrete — counterexample: violated at an exact point at d = 2" in shown
    assert "Counterexample: d = 2, h = (1, -1), z = (0, 1), ε = 1: lhs = " in shown


def test_derivations_show_their_chain_and_verdicts():
    chain = Derivation("mine.chain", "Shift", core(z + c * ones), [Step(core(z), "P1 = 0")])
    assert "\\overset{(1)}{=}" in chain._repr_markdown_()
    assert chain._repr_markdown_().endswith("1. P1 = 0")
    result = Checker(Options(engines=("general",))).check_derivation(chain)
    assert "1. P1 = 0 — **PROVED**" in result._repr_markdown_()


def test_worked_examples_show_as_markdown():
    example = worked_example([1, 2, 3], Fraction(1, 3))
    assert example._repr_markdown_() == example.to_markdown()
    assert "-1" in example.to_markdown()
