"""The built-in report as a text: narrative chapters, verdict grids, evidence appendix."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest
from report_support import catalog_model, catalog_results

from lnsym.checking.catalog import load
from lnsym.checking.checker import Options
from lnsym.cli import main
from lnsym.errors import UserInputError
from lnsym.exact.examples import WorkedExample, worked_example
from lnsym.report.build import check_catalog
from lnsym.report.document import Document
from lnsym.report.model import build_model
from lnsym.report.narrative import EXAMPLE, code_text, example, staged_backward
from lnsym.report.narrative_blocks import Ref
from lnsym.report.render import render
from lnsym.report.stability import naive_variance, two_pass_variance, variance_table
from lnsym.report.tables import TableSpec, checked_tables, grid_view

TRANSFORMATIONS = (
    "weight_matrix_rescaling",
    "weight_matrix_recentering",
    "weight_vector_rescaling",
    "dataset_rescaling",
    "dataset_recentering",
    "single_case_rescaling",
)


def _narrative_md() -> str:
    md = render(catalog_model(), "md")
    return md[md.index("## Why normalize") : md.index("## Summary")]


def test_the_narrative_comes_before_the_catalog_and_the_appendix_after():
    md = render(catalog_model(), "md")
    order = ["## Notation", "## Why normalize", "## A worked example", "## The geometry",
             "## The backward pass", "## Numerical stability", "## Code", "## Summary",
             "## 1. Centering", "## Appendix: the evidence"]  # fmt: skip
    assert [md.index(h) for h in order] == sorted(md.index(h) for h in order)


def test_worked_example_numbers_are_those_of_lnsym_example():
    ex = worked_example(EXAMPLE["z"], EXAMPLE["eps"], gamma=EXAMPLE["gamma"], loss=EXAMPLE["loss"])
    assert example() == ex
    text = _narrative_md()
    tex = WorkedExample.format_latex
    for value in (ex.core, ex.output, ex.grad_gamma, ex.grad_z, ex.jacobian, ex.output_jacobian):
        assert tex(value) in text
    assert f"its mean is ${tex(ex.output_mean)}$ and its variance ${tex(ex.output_variance)}$" in (
        text
    )
    assert "| $\\mathbf{u} = u_{\\varepsilon}(\\mathbf{z}) = \\frac{P \\mathbf{z}}{s}$ | " in text
    assert ex.grad_z == (pytest.approx(2 / 3), pytest.approx(-1 / 3), pytest.approx(-1 / 3))


def test_the_staged_graph_reproduces_the_closed_form_gradient():
    ex = example()
    adjoints = staged_backward(ex)
    assert adjoints["z_bar"] == ex.grad_z
    assert adjoints["r_bar"] == 4 and adjoints["mu_bar"] == -sum(adjoints["c_bar"])
    assert f"\\bar{{\\mathbf{{z}}}} = {WorkedExample.format_latex(ex.grad_z)}" in _narrative_md()


def test_narrative_links_show_the_checked_verdicts_not_fixed_words():
    results = catalog_results()
    model = catalog_model()
    refs = [s.ref for ch in model.chapters for b in ch.blocks for s in b.spans if s.ref]
    assert len({r.id for r in refs}) > 30
    for ref in refs:
        assert ref.verdict == results[ref.id].verdict
    # Change one verdict: the narrative says so.
    broken = dict(results)
    broken["core.mean_zero"] = replace(results["core.mean_zero"], verdict="REFUTED")
    md = render(build_model(load(), broken), "md")
    assert "[Claim 2.3](#claim-23-the-core-has-mean-zero), REFUTED — **FAILS**" in md
    assert "[Claim 2.3](#claim-23-the-core-has-mean-zero), PROVED" in _narrative_md()


def test_the_code_chapter_prints_the_reference_file_verbatim():
    md = render(catalog_model(), "md")
    blocks = re.findall(r"^```python\n(.*?)^```$", md, re.MULTILINE | re.DOTALL)
    assert blocks == [code_text()]
    command = "lnsym example --z 1,1,-2 --eps 2 --gamma 2,0,-1 --loss half-squared-norm"
    assert f"```sh\n{command}\n```" in md
    assert "def forward(" in code_text() and "def backward(" in code_text()
    tex = render(catalog_model(), "tex")
    assert r"\lnsymcode{\texttt{def~forward(z:" in tex
    assert r"\lnsymcodeblank" in tex  # blank lines survive the blank-line collapse


def test_the_variance_table_is_computed_in_floating_point():
    rows = {row.offset: row for row in variance_table()}
    assert {row.float64_two_pass for row in rows.values()} == {2 / 3}
    assert rows[1e4].float32_naive == 0.0 and rows[7e3].float32_naive < 0
    assert rows[1e4].float32_two_pass == float(np.float32(2 / 3))
    z = [1e6 + 1, 1e6 + 2, 1e6 + 3]
    assert naive_variance(z, np.float32) == 65536.0
    assert two_pass_variance(z, np.float64) == 2 / 3
    assert "| 7000 | −4 | 0.66666669 |" in _narrative_md()


def test_invariance_grids_agree_with_the_verdicts():
    results = catalog_results()
    section = next(s for s in catalog_model().sections if s.name == "09_invariance")
    plain, stabilized = section.tables
    assert [label for label, _ in plain.rows] == [
        "Batch norm", "Weight norm", "Layer norm", "RMS norm"
    ]  # fmt: skip
    assert [label for label, _ in stabilized.rows] == ["Batch norm", "Layer norm", "RMS norm"]
    words = {"PROVED": "invariant", "REFUTED": "not invariant"}
    seen = set()
    for grid, prefix in ((plain, "invariance"), (stabilized, "invariance_eps")):
        for _, cells in grid.rows:
            for cell, key in zip(cells, TRANSFORMATIONS, strict=True):
                assert cell.ref is not None and cell.ref.id.endswith(key)
                assert cell.ref.id.startswith(prefix + ".")
                assert cell.text == words[results[cell.ref.id].verdict]
                seen.add(cell.ref.id)
    assert len(seen) == 24 + 18
    # Ba et al.'s Table 1, row of layer normalization, as computed
    layer = dict(plain.rows)["Layer norm"]
    assert [c.text for c in layer] == ["invariant", "invariant", "not invariant",
                                       "invariant", "not invariant", "invariant"]  # fmt: skip
    md = render(catalog_model(), "md")
    assert "| Layer norm | [invariant](#claim-913-layer-normalization-is-invariant-under-" in md
    tex = render(catalog_model(), "tex")
    assert r"\hyperref[item:9.13]{invariant (9.13)}" in tex
    assert r"\phantomsection\label{item:9.13}" in tex


def test_a_grid_shows_a_missing_claim_and_drops_an_empty_row():
    spec = TableSpec(
        "t", "T", "", (("a", "A"), ("b", "B")), (("x", "X"), ("y", "Y")), "{row}.{column}"
    )
    refs = {"a.x": Ref("Claim", "1.1", "a.x", "A x", "PROVED", True)}
    grid = grid_view(spec, refs)
    assert [label for label, _ in grid.rows] == ["A"]
    assert [(c.text, c.ref) for c in grid.rows[0][1]] == [("holds", refs["a.x"]), ("—", None)]
    with pytest.raises(UserInputError, match="not a lnsym.report.tables.TableSpec"):
        checked_tables(("nope",), "m.py")


def test_the_appendix_holds_every_claims_evidence_once():
    model = catalog_model()
    labels = {c.label: c for c in model.common}
    md = render(model, "md")
    appendix = md[md.index("## Appendix: the evidence") :]
    body = md[: md.index("## Appendix: the evidence")]
    for section in model.sections:
        for claim in section.claims:
            assert [e.engine for e in claim.appendix] == [e.engine for e in claim.evidence]
            for line, view in zip(claim.appendix, claim.evidence, strict=True):
                if line.label:
                    common = labels[line.label]
                    assert (common.engine, common.outcome, common.detail) == (
                        view.engine, view.outcome, view.detail
                    )  # fmt: skip
            assert f"`{claim.id}`, {claim.verdict}:" in appendix
            assert f"### Claim {claim.number}: " in body
    # the engines' boilerplate is said once, in the appendix, not per claim
    assert body.count("200 samples drawn") == 0
    assert all(c.count >= 3 and appendix.count(f"**{c.label}** (") == 1 for c in model.common)
    assert any("200 samples drawn" in c.detail for c in model.common)
    assert "· **PROVED** · all d" in body and "exact counterexample at d = 2" in body


def test_a_users_report_keeps_the_plain_structure():
    sections = [s for s in load() if s.name == "01_centering"]
    model = build_model(sections, catalog_results(), Document("mine", "Mine", ()))
    assert model.chapters == () and model.common == ()
    md = render(model, "md")
    assert "## Appendix" not in md and "## Why normalize" not in md
    assert "- **general** — proved: normal forms agree for symbolic d" in md


GRID_MODULE = '''"""Grid demo

Two shift claims in a verdict grid.
"""

from lnsym import Eq, core, mean, ones, scalar, vector
from lnsym.checking.claims import Claim
from lnsym.report.tables import TableSpec

z, c = vector("z"), scalar("c")
CLAIMS = [
    Claim("grid.core.shift", Eq(core(z + c * ones), core(z)), title="core ignores a shift"),
    Claim("grid.mean.shift", Eq(mean(z + c * ones), mean(z)), expect="refuted",
          title="mean ignores a shift"),
]
TABLES = [TableSpec("demo", "Shifts", "What a shift leaves alone.",
                    (("core", "core"), ("mean", "mean")), (("shift", "common shift"),),
                    "grid.{row}.{column}", {"PROVED": "unchanged", "REFUTED": "moves"})]
'''


def test_a_users_module_lists_its_own_grid(tmp_path):
    path = tmp_path / "grid.py"
    path.write_text(GRID_MODULE)
    sections = load([path])
    results = check_catalog(sections, Options(engines=("general", "concrete")))
    model = build_model(sections, results, Document("grid", "Grid demo", ()))
    [grid] = model.sections[0].tables
    assert [(label, [c.text for c in cells]) for label, cells in grid.rows] == [
        ("core", ["unchanged"]),
        ("mean", ["moves"]),
    ]
    md = render(model, "md")
    assert "| core | [unchanged](#claim-11-core-ignores-a-shift) (1.1) |" in md


def test_the_narrative_displays_claims_as_the_printer_states_them():
    claims = {c.id: c for s in catalog_model().sections for c in s.claims}
    text = _narrative_md()
    for item in ("gradient.input", "jacobian.along_input"):
        assert f"$$\n{claims[item].statement}\n$$" in text


def test_the_command_shown_prints_the_same_worked_example(capsys):
    md = _narrative_md()
    command = re.search(r"^```sh\n(lnsym example .*)\n```", md, re.MULTILINE).group(1)
    assert main(command.split()[1:]) == 0
    assert capsys.readouterr().out == example().to_text()


def test_the_hessian_shown_is_the_general_engines_second_derivative():
    """The chapter's H (from the proved closed form) against jvp(jvp(ℓ)) normalized by the
    general engine and evaluated exactly at the same point, entry by entry."""
    import sympy

    from lnsym import ir
    from lnsym.engines.general import GeneralEngine, instantiate
    from lnsym.ir.calculus import jvp
    from lnsym.ir.layers import layer_norm
    from lnsym.report.narrative import HESSIAN_POINT, loss_hessian

    z, e, k = ir.vector("z"), ir.vector("e"), ir.vector("k")
    loss = ir.dot(ir.vector("w"), layer_norm(z, ir.vector("gamma"), ir.vector("beta")))
    form = GeneralEngine().form(jvp(jvp(loss, z, e), z, k))
    point = {
        name: [sympy.nsimplify(x) for x in HESSIAN_POINT[name]] for name in ("z", "gamma", "w")
    }
    point["beta"] = [sympy.Integer(0)] * 3
    eps = sympy.nsimplify(HESSIAN_POINT["eps"])
    shown = loss_hessian(**HESSIAN_POINT)
    for i in range(3):
        for j in range(3):
            unit_i = [sympy.Integer(int(t == i)) for t in range(3)]
            unit_j = [sympy.Integer(int(t == j)) for t in range(3)]
            value = instantiate(form, {**point, "e": unit_i, "k": unit_j}, {ir.eps: eps})
            assert sympy.simplify(value - shown[i, j]) == 0
    assert shown != shown.applyfunc(lambda x: 0)
