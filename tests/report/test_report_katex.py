"""Every formula of the Markdown reports renders with KaTeX, strictly (GitHub-style math)."""

from __future__ import annotations

from dataclasses import replace

from report_support import (
    catalog_model,
    katex_available,
    katex_errors,
    markdown_formulas,
    need,
    review_model,
)
from test_report import _refuted_result

from lnsym.report.model import claim_view
from lnsym.report.render import render


def test_formula_extraction():
    md = "a $x$ and `$not$` and \\$5\n\n$$\n\\frac{1}{2}\n$$\n\n- $y_{1}$ — b\n"
    assert markdown_formulas(md) == [
        {"tex": "\\frac{1}{2}", "display": True},
        {"tex": "x", "display": False},
        {"tex": "y_{1}", "display": False},
    ]


def test_katex_rejects_what_it_cannot_render():
    need(katex_available(), "node with the npm package katex")
    result = katex_errors(
        [
            {"tex": "\\frac{1}{2}", "display": True},
            {"tex": "\\undefinedmacro", "display": False},
            {"tex": "é", "display": False},  # an error only in strict mode
        ]
    )
    assert result["checked"] == 3
    assert [e["index"] for e in result["errors"]] == [1, 2]


def test_every_report_formula_renders_with_katex():
    need(katex_available(), "node with the npm package katex")
    model = catalog_model()
    # the catalog, plus a refuted claim with a counterexample, in one batch
    demo_section = replace(model.sections[1], claims=(claim_view("2.99", _refuted_result()),))
    demo = replace(model, sections=(demo_section,))
    formulas = markdown_formulas(render(model, "md")) + markdown_formulas(render(demo, "md"))
    displays = sum(1 for f in formulas if f["display"])
    # one display per item (its statement or chain), and the demo claim's
    assert displays >= model.total + 1
    # the source review, in the same batch: at least one display per reconstructed display
    review = markdown_formulas(render(review_model(), "md", document="source-review"))
    assert sum(1 for f in review if f["display"]) >= len(review_model().displays)
    formulas += review
    result = katex_errors(formulas)
    assert result["checked"] == len(formulas)
    failures = [(formulas[e["index"]]["tex"], e["error"]) for e in result["errors"]]
    assert failures == []
