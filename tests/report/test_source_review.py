"""The source review (lnsym.report.review, review_model, the source-review templates).

The review is built once per session from the cached catalog (report_support), so these
tests add only the rendering and the few worked examples to the suite's time.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
import sympy
from report_support import catalog_model, need, review_model, tex_available

import lnsym.report.build as build
import lnsym.report.model as model_module
from lnsym.cli import main
from lnsym.exact.examples import same_value
from lnsym.report.build import render_report, stale_files, write_report
from lnsym.report.pdf import build_pdf
from lnsym.report.quoted import QuoteError, quote
from lnsym.report.render import render
from lnsym.report.review import (
    ARTICLE,
    Example,
    Paragraph,
    Source,
    SourcePoint,
    SourceQuantity,
    Statement,
    cited_ids,
)
from lnsym.report.review_model import AGREES, DIFFERS, PROBLEM, build_review

REPO = Path(__file__).resolve().parents[2]
SOURCES_DIR = REPO.parent / "shared" / "sources"
REPORTS = REPO / "reports"
sqrt, R = sympy.sqrt, sympy.Rational

#: The numbers the article prints in its worked examples, paragraph by paragraph, as the
#: article writes them (transcribed independently of lnsym/report/review.py).
ARTICLE_NUMBERS = {
    "¶4": ["2", "2/3", "(-1, 0, 1)", "(-1, 0, 1)"],
    "¶5": ["8/3", "(-2/√3, 0, 2/√3)"],
    "¶7": ["(0, 0, 0)", "(1, -1, 2)", "2/3", "(0, 0, 0)", "(1, -1, 2)"],
    "¶8": ["(1, -1, 2)"],
    "¶11": ["0", "2", "(1/2, 1/2, -1)", "2/3", "2/9"],
    "¶12": ["(1/2, 0, -1)"],
    "¶15": ["2", "2/3", "(-1, 0, 1)", "(-1, 0, 1)", "(-4, -1, 5)/√17"],
    "¶18": ["1", "(-1/2, 1/2)"],
    "¶21": ["(0, 0)", "100", "≈ 9.9995", "10"],
    "¶24": ["0.36", "0.36", "(-√0.9, √0.9)", "0.9", "3.96"],
    "¶25": ["3.6"],
}

#: The article's displays that are missing: (paragraph, the words before the gap).
MISSING_DISPLAYS = [
    ("¶6", "Writing the core as"),
    ("¶11", "gives"),
    ("¶14", "we have"),
    ("¶14", "preserves the equality"),
    ("¶17", "satisfies"),
    ("¶18", "gives"),
    ("¶18", "Consequently"),
    ("¶19", "gives"),
    ("¶20", "the uniform bound"),
    ("¶21", "the norm ratio is"),
    ("¶23", "variance"),
    ("¶24", "gives"),
]


def _paragraph(label: str):
    return next(p for s in review_model().sources for p in s.paragraphs if p.label == label)


def _values(label: str):
    return [v for e in _paragraph(label).examples for v in e.values]


def _display(label: str, cue: str):
    return next(d for d in review_model().displays if (d.where, d.cue) == (label, cue))


# ---------------------------------------------------------------------------------------
# Worked examples


def test_every_number_of_the_articles_examples_is_compared_and_agrees():
    review = review_model()
    found = {
        p.label: sorted(v.article_text for e in p.examples for v in e.values)
        for p in review.sources[0].paragraphs
        if p.examples
    }
    assert found == {label: sorted(numbers) for label, numbers in ARTICLE_NUMBERS.items()}
    marks = Counter(v.mark for v in review.values)
    assert marks == {AGREES: sum(map(len, ARTICLE_NUMBERS.values()))}
    assert review.failed == 0 and review.problems == []


@pytest.mark.parametrize(
    ("label", "article", "exact"),
    [
        ("¶4", "2/3", R(2, 3)),
        ("¶5", "(-2/√3, 0, 2/√3)", (-2 / sqrt(3), 0, 2 / sqrt(3))),
        ("¶7", "2/3", R(2, 3)),
        ("¶11", "2/9", R(2, 9)),
        ("¶12", "(1/2, 0, -1)", (R(1, 2), 0, -1)),
        ("¶15", "(-4, -1, 5)/√17", (-4 / sqrt(17), -1 / sqrt(17), 5 / sqrt(17))),
        ("¶21", "≈ 9.9995", 1000 / sqrt(10001)),
        ("¶24", "(-√0.9, √0.9)", (-3 * sqrt(10) / 10, 3 * sqrt(10) / 10)),
        ("¶24", "3.96", R(99, 25)),
        ("¶25", "3.6", R(18, 5)),
    ],
)
def test_recomputed_values_are_the_exact_ones(label, article, exact):
    matches = [v for v in _values(label) if v.article_text == article]
    assert matches, (label, article)
    for value in matches:
        assert same_value(value.value, exact)
        assert value.mark == AGREES


def test_the_core_of_an_unequal_shift_is_typeset_as_in_the_article():
    (value,) = [v for v in _values("¶15") if v.article_text == "(-4, -1, 5)/√17"]
    assert value.exact == r"\left(-4, -1, 5\right) / \sqrt{17}"
    assert value.article == value.exact
    md = render(review_model(), "md", document="source-review")
    assert (
        r"| $u_{\varepsilon}(\mathbf{z})$ | $\left(-4, -1, 5\right) / \sqrt{17}$ | "
        r"(-0.9701425001, -0.242535625, 1.212678125) | $\left(-4, -1, 5\right) / \sqrt{17}$ | "
        r"**agrees** |"
    ) in md


def test_quoted_numbers_compare_exactly():
    assert quote("(-4, -1, 5)/√17").agrees((-4 / sqrt(17), -1 / sqrt(17), 5 / sqrt(17)))
    assert not quote("(-4, -1, 5)/√17").agrees((-4 / sqrt(18), -1 / sqrt(18), 5 / sqrt(18)))
    assert not quote("(1, 2)").agrees((1, 2, 0))
    assert quote("≈ 9.9995").agrees(R(99995, 10000) + R(4, 100000))
    assert not quote("≈ 9.9995").agrees(R(99996, 10000))
    assert quote("(10^-3, -10^-3)").value == (R(1, 1000), R(-1, 1000))
    with pytest.raises(QuoteError):
        quote("2 + 3")


def test_a_number_that_differs_is_marked_and_counted():
    wrong = Source(
        "demo",
        "A demo source",
        "demo.txt",
        "One wrong number.",
        (
            Paragraph(
                "¶1",
                "Unequal shift",
                "A core printed wrongly.",
                (Statement("The core of (1, 2, 4).", by_example=True),),
                examples=(
                    Example(
                        SourcePoint("(1, 2, 4)", "1/3"),
                        (SourceQuantity("core", "(-4, -1, 6)/√17"),),
                    ),
                ),
            ),
        ),
    )
    review = build_review(catalog_model(), (wrong,))
    assert review is not None
    assert review.count(DIFFERS) == 1 and review.failed == 1
    (statement,) = review.statements
    assert statement.status == PROBLEM and not statement.ok
    md = render(review, "md", document="source-review")
    assert "| **differs** |" in md and "**1 problem(s)**" in md


# ---------------------------------------------------------------------------------------
# Missing displays


def test_every_missing_display_is_reconstructed_and_proved():
    review = review_model()
    assert [(d.where, d.cue) for d in review.displays] == MISSING_DISPLAYS
    article_path = SOURCES_DIR / "000_5373f6a3efc18f1a.txt"
    article = article_path.read_text(encoding="utf-8") if article_path.is_file() else None
    for d in review.displays:
        assert d.formulas or d.example is not None, d.number
        assert d.claims and all(c.verdict == "PROVED" for c in d.claims), d.number
        assert d.ok
        if d.example is not None:
            assert all(v.mark == "reconstructed" and v.article is None for v in d.example.values)
        if article is not None:  # the sources sit beside the repository in development and CI
            assert d.cue in article
    md = render(review, "md", document="source-review")
    for d in review.displays:
        assert f"**Missing display {d.number}** (the gap after “{d.cue}”) — *reconstructed*" in md


def test_the_missing_relations_are_typeset_by_the_printer_and_checked_by_their_claims():
    checked_by = {(d.where, d.cue): [c.id for c in d.claims] for d in review_model().displays}
    assert checked_by[("¶6", "Writing the core as")] == ["source.layer_definition"]
    assert checked_by[("¶14", "we have")] == ["mean.shift", "source.centering_shift"]
    assert checked_by[("¶14", "preserves the equality")] == ["layer.shift_invariant"]
    assert checked_by[("¶17", "satisfies")] == ["jacobian.closed_form"]
    assert checked_by[("¶20", "the uniform bound")] == ["sensitivity.bound"]
    assert checked_by[("¶23", "variance")] == ["core.variance"]
    assert checked_by[("¶24", "gives")] == ["core.variance_inverse"]
    assert _display("¶14", "we have").formulas == (
        r"\mu(\mathbf{z} + c \mathbf{1}) = \mu(\mathbf{z}) + c",
        r"P (\mathbf{z} + c \mathbf{1}) = P \mathbf{z}",
    )
    assert _display("¶6", "Writing the core as").formulas == (
        r"\operatorname{LN}_{\boldsymbol{\gamma}, \boldsymbol{\beta}}(\mathbf{z}) = "
        r"\boldsymbol{\gamma} \odot u_{\varepsilon}(\mathbf{z}) + \boldsymbol{\beta}",
    )
    assert _display("¶20", "the uniform bound").formulas == (
        r"\lVert J \rVert_{2} \le \frac{1}{\sqrt{\varepsilon}}",
    )
    assert _display("¶23", "variance").formulas == (r"q(\mathbf{u}) = \frac{q}{q + \varepsilon}",)
    assert _display("¶24", "gives").formulas == (r"q = \frac{\varepsilon r}{1 - r}",)


def test_the_missing_numbers_are_the_exact_example_values():
    def values(label, cue):
        example = _display(label, cue).example
        assert example is not None
        return [v.value for v in example.values]

    assert values("¶11", "gives") == [(1, 0, 1)]
    assert values("¶18", "gives") == [sympy.Matrix([[R(3, 16), R(-3, 16)], [R(-3, 16), R(3, 16)]])]
    assert values("¶18", "Consequently") == [(0, 0), (R(-3, 8), R(3, 8))]
    assert values("¶19", "gives") == [sympy.Matrix([[0, 0], [R(-3, 8), R(3, 8)]])]
    (ratio,) = values("¶21", "the norm ratio is")
    assert same_value(ratio, 1000 / sqrt(101))
    (shown,) = _display("¶21", "the norm ratio is").example.values
    assert shown.approx == r"\approx 99.50371902"


# ---------------------------------------------------------------------------------------
# The backpropagation notes


def test_the_wrong_gradient_formulas_come_with_the_runs_counterexample_and_corrections():
    notes = review_model().sources[1]
    steps = {p.label: p for p in notes.paragraphs}
    catalog = {c.id: c for s in catalog_model().sections for c in s.claims}
    expected = {
        "Step 1": ("gradient.gain_summed_over_features", "gradient.gain",
                   ["gradient.scalar_gain", "gradient.gain_shared_over_positions"]),
        "Step 2": ("gradient.bias_summed_over_features", "gradient.bias",
                   ["gradient.scalar_bias", "gradient.bias_shared_over_positions"]),
    }  # fmt: skip
    for label, (wrong, right, readings) in expected.items():
        correction = steps[label].correction
        assert correction is not None
        assert correction.wrong.id == wrong and correction.wrong.verdict == "REFUTED"
        assert correction.wrong.passed and correction.wrong.refutation_expected
        # the counterexample is the one the engines found in this run
        run = catalog[wrong].counterexample
        assert correction.lhs in run and correction.rhs in run
        assert correction.point == tuple(
            e for e in run if e.label not in ("lhs", "rhs") and "decimal" not in e.label
        )
        assert correction.lhs.math != correction.rhs.math
        assert [c.id for c in correction.correct] == [right]
        assert [c.id for c in correction.readings] == readings
        assert all(c.verdict == "PROVED" for c in (*correction.correct, *correction.readings))
        (statement, *_) = steps[label].statements
        assert statement.status == "wrong"


def test_the_counterexample_is_read_from_the_results_not_written_in():
    model = catalog_model()
    sections = []
    for section in model.sections:
        claims = tuple(
            replace(c, counterexample=(model_module.Entry("lhs", None, "", "LHSMARK"),
                                       model_module.Entry("rhs", None, "", "RHSMARK")))
            if c.id == "gradient.gain_summed_over_features" else c
            for c in section.claims
        )  # fmt: skip
        sections.append(replace(section, claims=claims))
    review = build_review(replace(model, sections=tuple(sections)))
    assert review is not None
    md = render(review, "md", document="source-review")
    assert "is $LHSMARK$, but the notes' sum Σᵢ gᵢuᵢ in every coordinate is $RHSMARK$" in md


def test_steps_3_and_4_are_read_coordinatewise_with_their_claims():
    steps = {p.label: p for p in review_model().sources[1].paragraphs}
    assert [c.id for c in steps["Step 3"].shown] == ["source.normalized_input_gradient"]
    assert [c.id for c in steps["Step 4"].shown] == ["gradient.input"]
    assert all(c.verdict == "PROVED" for c in (*steps["Step 3"].shown, *steps["Step 4"].shown))
    (step3,) = steps["Step 3"].statements
    assert "ĝ = γ ⊙ g" in step3.text
    step4 = steps["Step 4"].statements[0]
    assert "σ = s = √(q + ε) and x̂ = u" in step4.finding
    md = render(review_model(), "md", document="source-review")
    block = md[md.index("### Step 4") :]
    assert "`gradient.input` — ∂ℓ/∂z = " in block and "**PROVED**" in block


# ---------------------------------------------------------------------------------------
# Claims


def test_every_cited_item_is_in_the_catalog_with_its_expected_verdict():
    review = review_model()
    ids = [row.id for row in catalog_model().rows]
    assert set(cited_ids()) <= set(ids)
    assert [c.id for c in review.claims] == [i for i in ids if i in set(cited_ids())]
    assert all(c.passed for c in review.claims)
    statements = review.statements
    assert all(s.ok for s in statements)
    assert {s.status for s in statements} == {"confirmed", "wrong", "unchecked"}


def test_a_catalog_without_the_cited_items_has_no_review():
    model = catalog_model()
    assert build_review(replace(model, sections=model.sections[:1])) is None


# ---------------------------------------------------------------------------------------
# Own words


def _words(text: str) -> list[str]:
    return re.findall(r"[^\W\d_]+", text.lower())


def _runs(words: list[str], n: int = 8) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


def test_no_sentence_of_the_sources_is_copied():
    if not SOURCES_DIR.is_dir():
        pytest.skip(f"the source documents are not at {SOURCES_DIR}")
    source_runs = set()
    for path in sorted(SOURCES_DIR.glob("*.txt")):
        source_runs |= _runs(_words(path.read_text(encoding="utf-8")))
    assert len(source_runs) > 1000
    texts = {
        "source-review.md": render(review_model(), "md", document="source-review"),
        "review.py": (REPO / "lnsym" / "report" / "review.py").read_text(encoding="utf-8"),
        "06_source_facts.py": (REPO / "derivations" / "06_source_facts.py").read_text("utf-8"),
    }
    for name, text in texts.items():
        copied = sorted(" ".join(run) for run in _runs(_words(text)) & source_runs)
        assert copied == [], name


def test_a_copied_sentence_would_be_caught():
    sentence = "An unequal coordinate shift need not be removed by the layer at all"
    assert _runs(_words(sentence)) & _runs(_words("... " + sentence + " ..."))


# ---------------------------------------------------------------------------------------
# Rendering, determinism, --check


def test_markdown_has_title_contents_sections_and_tables():
    md = render(review_model(), "md", document="source-review")
    assert md.startswith(
        "# Source review: the layer-normalization article and the backpropagation notes\n"
    )
    assert md.index("## Contents") < md.index("## Reconstructed displays")
    assert md.index("## 1. The article") < md.index("## 2. The backpropagation notes")
    assert "  - [¶15 — The centering matrix](#15--the-centering-matrix)" in md
    for label in [f"¶{n}" for n in range(1, 26)] + ["Step 1", "Step 2", "Step 3", "Step 4"]:
        assert f"\n### {label} — " in md, label
    assert "| Statement, restated | Checked by | Finding |" in md
    assert "35 numbers of the article recomputed exactly: 35 agree, 0 differ" in md


def test_latex_is_ascii_and_complete():
    tex = render(review_model(), "tex", document="source-review")
    assert tex.isascii() and r"\tableofcontents" in tex
    assert r"\section{The article on layer normalization}" in tex
    assert r"\subsection*{\P{}15 --- The centering matrix}" in tex
    assert "\\VAR{" not in tex and "\\BLOCK{" not in tex


def test_rendering_is_deterministic_and_checked_with_the_report(tmp_path):
    first = render_report(catalog_model(), ("md", "tex", "pdf"), build=False, review=review_model())
    second = render_report(
        catalog_model(), ("md", "tex", "pdf"), build=False, review=review_model()
    )
    assert first.files == second.files and first.pdf_fingerprints == second.pdf_fingerprints
    assert {"source-review.md", "source-review.tex"} <= set(first.files)
    assert set(first.pdf_fingerprints) == {"layernorm.pdf", "source-review.pdf"}
    tex = first.files["source-review.tex"].decode()
    assert f"lnsym-fingerprint-{first.pdf_fingerprints['source-review.pdf']}" in tex

    write_report(first, tmp_path)
    assert stale_files(first, tmp_path) == [
        f"{tmp_path / 'layernorm.pdf'} (missing)",
        f"{tmp_path / 'source-review.pdf'} (missing)",
    ]
    marker = f"lnsym-fingerprint-{first.pdf_fingerprints['source-review.pdf']}"
    (tmp_path / "source-review.pdf").write_bytes(b"%PDF-1.5 " + marker.encode())
    (tmp_path / "source-review.md").write_text("edited\n")
    assert stale_files(first, tmp_path) == [
        f"{tmp_path / 'source-review.md'} (differs from what the current code renders)",
        f"{tmp_path / 'layernorm.pdf'} (missing)",
    ]
    (tmp_path / "source-review.pdf").write_bytes(b"%PDF-1.5 lnsym-fingerprint-0")
    assert (
        f"{tmp_path / 'source-review.pdf'} (built from another version of source-review.tex)"
        in (stale_files(first, tmp_path))
    )


def test_lnsym_report_writes_and_checks_the_review(tmp_path, monkeypatch, capsys):
    # The CLI path with the cached catalog instead of a fresh check of every claim.
    monkeypatch.setattr(build, "check_catalog", lambda *args, **kwargs: {})
    monkeypatch.setattr(
        model_module, "build_model", lambda sections, results, *rest, **options: catalog_model()
    )
    out = tmp_path / "reports"
    assert main(["report", "--out", str(out), "--format", "md,tex"]) == 0
    assert (out / "source-review.md").read_text() == render(
        review_model(), "md", document="source-review"
    )
    assert (out / "source-review.tex").is_file() and not list(out.rglob(".*.tmp"))
    capsys.readouterr()
    assert main(["report", "--out", str(out), "--format", "md,tex", "--check"]) == 0
    (out / "source-review.tex").write_text("stale\n")
    before = (out / "source-review.md").read_bytes()
    assert main(["report", "--out", str(out), "--format", "md,tex", "--check"]) == 1
    stale = [line for line in capsys.readouterr().out.splitlines() if line.startswith("stale")]
    assert stale == [
        f"stale: {out / 'source-review.tex'} (differs from what the current code renders)"
    ]
    assert (out / "source-review.md").read_bytes() == before


def test_committed_review_is_current():
    hint = "reports/ is stale: run `lnsym report` and commit reports/"
    committed_md = (REPORTS / "source-review.md").read_text(encoding="utf-8")
    assert committed_md == render(review_model(), "md", document="source-review"), hint
    # The review has no figures, so its LaTeX (fingerprint included) is the same everywhere.
    rendered = render_report(catalog_model(), ("tex",), review=review_model())
    committed_tex = (REPORTS / "source-review.tex").read_bytes()
    assert committed_tex == rendered.files["source-review.tex"], hint


def test_review_pdf_builds_without_overfull_lines():
    need(tex_available(), "pdflatex (texlive)")
    rendered = render_report(catalog_model(), ("tex", "pdf"), build=False, review=review_model())
    tex = rendered.files["source-review.tex"].decode()
    built = build_pdf(tex, {}, name="source-review")
    assert built.pdf.startswith(b"%PDF-")
    assert (
        f"lnsym-fingerprint-{rendered.pdf_fingerprints['source-review.pdf']}".encode() in built.pdf
    )
    assert b"/CreationDate" not in built.pdf
    assert built.overfull == []


def test_the_article_has_twenty_five_paragraphs():
    if not SOURCES_DIR.is_dir():
        pytest.skip(f"the source documents are not at {SOURCES_DIR}")
    text = (SOURCES_DIR / "000_5373f6a3efc18f1a.txt").read_text(encoding="utf-8")
    # the first line is a header, not a paragraph of the article
    paragraphs = [p for p in text.split("\n\n")[1:] if p.strip()]
    assert len(paragraphs) == len(ARTICLE.paragraphs) == 25


def test_the_worked_examples_are_computed_ahead_all_of_them():
    from lnsym.report.review import SOURCES, SourcePoint
    from lnsym.report.review_examples import _worked, compute_examples

    points = {
        example.at
        for source in SOURCES
        for paragraph in source.paragraphs
        for example in [*paragraph.examples, *(d.example for d in paragraph.displays)]
        if example is not None and isinstance(example.at, SourcePoint)
    }
    _worked.cache_clear()
    compute_examples(SOURCES)
    assert _worked.cache_info().currsize == len(points) > 10
    misses = _worked.cache_info().misses
    for point in points:  # the review finds each one computed
        _worked(point)
    assert _worked.cache_info().misses == misses
