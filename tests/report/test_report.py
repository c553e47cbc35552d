"""The report job: content, determinism, --check and atomic writes (lnsym.report, lnsym report)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
import sympy
from load_support import every_cpu_busy
from report_support import catalog_model, catalog_results, review_model

from lnsym import Eq, core, scalar, vector
from lnsym.checking.catalog import load
from lnsym.checking.checker import Options
from lnsym.checking.claims import Claim, Evidence, Result
from lnsym.cli import main
from lnsym.engines.base import Counterexample
from lnsym.report.build import (
    FORMATS,
    check_catalog,
    parse_formats,
    render_report,
    stale_files,
    write_report,
)
from lnsym.report.document import document_for
from lnsym.report.evidence_view import counterexample_entries
from lnsym.report.model import build_model, claim_view, evidence_entries, shorten
from lnsym.report.pdf import PdfBuildError
from lnsym.report.render import render

REPO = Path(__file__).resolve().parents[2]

MODULE = '''"""Tiny catalog

A module for the report tests: one claim and one derivation.
"""

from lnsym import Eq, core, mean, ones, scalar, vector, dot, d
from lnsym.checking.claims import Claim
from lnsym.checking.proof import Derivation, Step
from lnsym.report.figures import FIGURES as LAYER_NORM_FIGURES

z, c = vector("z"), scalar("c")
FIGURES = LAYER_NORM_FIGURES[:2]  # asked for: the geometry and sensitivity figures

CLAIMS = [Claim("tiny.shift", Eq(core(z + c * ones), core(z)), title="Shift: u(z + c1) = u(z)")]
DERIVATIONS = [
    Derivation("tiny.mean", "Mean of a shift", mean(z + c * ones), [
        Step(dot(ones, z + c * ones) / d, "definition of the mean"),
        Step(mean(z) + c, "⟨1, 1⟩ = d"),
    ]),
]
'''
FAILING = MODULE.replace(
    'title="Shift: u(z + c1) = u(z)")]',
    'title="Shift: u(z + c1) = u(z)"),\n          Claim("tiny.scale", Eq(core(2 * z), core(z)))]',
)


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.py"
    path.write_text(MODULE)
    return path


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


# ---------------------------------------------------------------------------------------
# Content


def test_markdown_shows_summary_notation_claims_derivations_and_figures():
    md = render(catalog_model(), "md")
    assert md.startswith("# Layer normalization: derivations and checks\n")
    notation = md.index("## Notation")
    assert notation < md.index("## Summary") < md.index("## 1. Centering, mean and variance")
    assert "| 3.1 | `jacobian.closed_form` | J h = (Ph − u⟨u, h⟩/d)/s" in md
    assert r"$s = \sqrt{q + \varepsilon}$" in md
    claim = md.index("### Claim 3.1: J h")
    block = md[claim : md.index("### ", claim + 5)]
    assert "`jacobian.closed_form` · **PROVED** · all d" in block
    assert (
        "$$\nJ \\mathbf{h} = \\frac{1}{s} \\left( P \\mathbf{h} - "
        "\\frac{\\langle \\mathbf{u}, \\mathbf{h} \\rangle}{d} \\mathbf{u} \\right)\n$$"
    ) in block
    assert "**general**" not in block  # the engines' evidence is in the appendix
    assert "Source: article, Jacobian paragraph" in block
    appendix = md[md.index("## Appendix: the evidence") :]
    assert "normal forms agree for symbolic d" in appendix
    assert "`jacobian.closed_form`, PROVED: **general** proved [G" in appendix
    # a derivation: numbered chain, justifications, certificate terms of ≤ steps
    sens = md[md.index("### Derivation 5.") :]
    assert r"&\overset{(2)}{\le} \frac{\lVert \mathbf{h} \rVert^{2}}{q + \varepsilon}" in sens
    assert "2. drop the two subtracted squares — PROVED" in sens
    assert r"$t_{1} = \frac{d \mu(\mathbf{h})^{2}}{q + \varepsilon}$" in sens
    # figures: SVG with a caption; the geometry figure in its chapter, the others in the
    # section of the claim they illustrate
    geometry = md[md.index("## The geometry") : md.index("## The backward pass")]
    assert "![The geometry of the core for d = 3](figures/geometry.svg)" in geometry
    assert "*Figure 1.* Left: three inputs z (dots)" in geometry
    sensitivity = md[md.index("## 5. ") : md.index("## 6. ")]
    assert "*Figure 3.* How much the core amplifies" in sensitivity
    assert "figures/core_variance" not in md
    assert "epsilon" not in md.replace("varepsilon", "")


def test_latex_uses_only_printer_math_and_escaped_text():
    tex = render(catalog_model(), "tex")
    assert tex.startswith("%# ") is False and r"\documentclass" in tex
    assert r"\tableofcontents" in tex and r"\begin{longtable}" in tex
    assert r"\section{Centering, mean and variance}" in tex
    assert (
        r"\lnsymfitrel{J \mathbf{h}}{=}{\frac{1}{s} \left( P \mathbf{h} - "
        r"\frac{\langle \mathbf{u}, \mathbf{h} \rangle}{d} \mathbf{u} \right)}"
    ) in tex
    # Unicode text is escaped into LaTeX commands, never passed through
    assert tex.isascii()
    assert r"J h = (Ph \ensuremath{-} u\ensuremath{\langle}u, h\ensuremath{\rangle}/d)/s" in tex
    assert r"\includegraphics[width=0.92\linewidth]{figures/geometry.pdf}" in tex
    assert "\\VAR{" not in tex and "\\BLOCK{" not in tex


def _refuted_result() -> Result:
    """A refuted claim with evidence shaped like the concrete and numeric engines' data."""
    claim = Claim(
        "demo.scale",
        Eq(core(scalar("k", positive=True) * vector("z")), core(vector("z"))),
        expect="refuted",
        title="False: scaling does nothing",
    )
    counterexample = Counterexample(
        d=2,
        vectors={"z": (sympy.Integer(1), sympy.Integer(2))},
        scalars={"epsilon": sympy.Rational(1, 3), "k": sympy.Integer(2)},
        lhs=(-sympy.sqrt(3) / 2, sympy.sqrt(3) / 2),
        rhs=(-1 / sympy.sqrt(sympy.Rational(7, 3)), 1 / sympy.sqrt(sympy.Rational(7, 3))),
        relation="eq",
    )
    evidence = (
        Evidence("general", "not proved", "lhs − rhs ≠ 0", 0.25, {"dimension": "symbolic d"}),
        Evidence(
            "concrete",
            "counterexample",
            "violated at an exact point at d = 2",
            1.5,
            {"exact": True, "dimensions": [1, 2]},
            counterexample,
        ),
        Evidence(
            "numeric",
            "counterexample",
            "violated beyond tolerance 1e-09, first at d = 2",
            0.7,
            {
                "exact": False,
                "samples": 200,
                "tolerance": 1e-9,
                "dimensions": [1, 2, 3],
                "sample": {"d": 2, "vectors": {"z": [1.5, -0.25]}, "error": 0.0713},
                "violations": 57,
                "seconds_per_sample": 0.01,
            },
        ),
    )
    return Result(claim, "REFUTED", evidence, 2.5, "exact counterexample", counterexample)


def test_evidence_is_rendered_generically_without_machine_dependent_numbers():
    view = claim_view("9.1", _refuted_result())
    assert view.passed and view.verdict == "REFUTED"
    counter = [(e.label, e.label_math, e.math or e.text) for e in view.counterexample]
    assert counter == [
        ("", "d", "2"),
        ("", r"\mathbf{z}", r"(1, 2)"),
        ("", r"\varepsilon", r"\frac{1}{3}"),
        ("", "k", "2"),
        ("lhs", None, r"\left(- \frac{\sqrt{3}}{2}, \frac{\sqrt{3}}{2}\right)"),
        ("rhs", None, r"\left(- \frac{\sqrt{21}}{7}, \frac{\sqrt{21}}{7}\right)"),
        ("lhs decimal", None, "(-0.866025403784, 0.866025403784)"),
        ("rhs decimal", None, "(-0.654653670708, 0.654653670708)"),
    ]
    general, concrete, numeric = view.evidence
    assert general.detail == "lhs − rhs ≠ 0"
    assert concrete.detail == "violated at an exact point at d = 2"
    # Engines keep measurements out of their detail line; the raw data (worst errors,
    # timings) is not shown at all.
    assert numeric.detail == "violated beyond tolerance 1e-09, first at d = 2"
    assert not hasattr(numeric, "entries")


def test_refuted_claim_renders_counterexample_in_both_formats():
    model = catalog_model()
    section = replace(model.sections[1], claims=(claim_view("2.99", _refuted_result()),))
    demo = replace(model, sections=(section,))
    md = render(demo, "md")
    assert "`demo.scale` · **REFUTED** · exact counterexample at d = 2" in md
    assert "Counterexample: $d$ = 2; $\\mathbf{z} = (1, 2)$; $\\varepsilon = \\frac{1}{3}$;" in md
    assert "**numeric** counterexample (violated beyond tolerance 1e-09, first at d = 2)" in md
    block = md[md.index("### Claim 2.99") : md.index("### ", md.index("### Claim 2.99") + 4)]
    assert "Counterexample:" in block
    for measured in ("0.071", "0.0713", "1.5", "-0.25", "0.7", "seconds"):
        assert measured not in block
    tex = render(demo, "tex")
    assert r"Counterexample: $d$ = 2; $\mathbf{z} = (1, 2)$;" in tex
    assert "0.071" not in tex


def test_a_matrix_counterexample_names_its_sizes_and_entry():
    found = Counterexample(
        2, {}, {"Z11": sympy.Integer(0), "c12": sympy.Integer(1)}, sympy.Integer(-1),
        sympy.Integer(0), "eq", sizes={"n": 2, "d": 2, "m": 1}, entry=(1, 2),
    )  # fmt: skip
    shown = [(e.label, e.label_math, e.text) for e in counterexample_entries(found)[:4]]
    assert shown == [("", "n", "2"), ("", "d", "2"), ("", "m", "1"), ("entry", None, "(1, 2)")]


def test_evidence_entries_and_shorten():
    entries = evidence_entries(
        {"elapsed_time": 3.0, "atol": 1e-12, "values": {"lhs": 1, "rhs": 2}, "ok": True}
    )
    assert [(e.label, e.math or e.text) for e in entries] == [
        ("atol", "1e-12"),
        ("values lhs", "1"),
        ("values rhs", "2"),
        ("ok", "yes"),
    ]
    long = "x " * 400
    assert len(shorten(long)) < 360 and shorten(long).endswith("lnsym verify --json)")
    assert shorten("short") == "short"


def test_failing_items_are_marked(tmp_path):
    path = tmp_path / "failing.py"
    path.write_text(FAILING)
    sections = load([path])
    model = build_model(sections, check_catalog(sections, Options()))
    assert (model.passed, model.failed) == (2, 1)
    md = render(model, "md")
    assert "| 1.2 | `tiny.scale` |" in md and "| REFUTED — FAILS |" in md
    assert "1 of them does **not** have the verdict it is expected to have" in md
    tex = render(model, "tex")
    assert r"\lnsymfails{REFUTED}" in tex


# ---------------------------------------------------------------------------------------
# Determinism


def test_two_renders_are_byte_identical():
    first = render_report(catalog_model(), ("md", "tex"))
    second = render_report(catalog_model(), ("md", "tex"))
    assert sorted(first.files) == [
        "figures/geometry.pdf",
        "figures/geometry.svg",
        "figures/jacobian_eigenvalues.pdf",
        "figures/jacobian_eigenvalues.svg",
        "figures/sensitivity.pdf",
        "figures/sensitivity.svg",
        "layernorm.md",
        "layernorm.tex",
    ]
    assert first.files == second.files


def test_committed_reports_are_what_the_checked_catalog_renders():
    """reports/ is current: what `lnsym report --check` compares (md, tex, svg, the PDFs'
    fingerprints), rendered from the session's check of the whole catalog."""
    rendered = render_report(catalog_model(), FORMATS, build=False, review=review_model())
    assert stale_files(rendered, REPO / "reports") == []


#: Heavy items of every kind, where a wall-clock budget once decided (the costliest claims
#: of each engine; a proof, a certificate, a VERIFIED claim, a derivation, exact refutations
#: of a vector and a matrix claim).
LOADED_ITEMS = (
    "batch.backprop.input_group_norm",
    "gradient.input",
    "derived.second_derivative",
    "source.uniform_gain_bound",
    "source.first_order_exact",
    "invariance.layer_norm.dataset_recentering",
)
LOADED_MODULE = f"""\"\"\"Heavy items of the built-in catalog\"\"\"

from lnsym.checking.catalog import load

_IDS = {LOADED_ITEMS!r}
_ITEMS = {{item.id: item for section in load() for item in section.items}}
CLAIMS = [_ITEMS[i] for i in _IDS if not hasattr(_ITEMS[i], "steps")]
DERIVATIONS = [_ITEMS[i] for i in _IDS if hasattr(_ITEMS[i], "steps")]
"""


def test_report_check_passes_with_every_cpu_busy_and_another_hash_seed(tmp_path):
    """`lnsym report --check` in a process whose string hashing differs from this one's,
    while other processes keep every CPU busy, on the catalog's heaviest items, against the
    report this process renders from its own check (on idle CPUs, the session's catalog
    check): the words of a report do not depend on the load or the process."""
    module = tmp_path / "heavy.py"
    module.write_text(LOADED_MODULE)
    out = tmp_path / "reports"
    sections = load([module])
    assert sorted(item.id for section in sections for item in section.items) == sorted(LOADED_ITEMS)
    results = {item.id: catalog_results()[item.id] for s in sections for item in s.items}
    model = build_model(sections, results, document_for(sections, [module]))
    write_report(render_report(model, ("md", "tex"), build=False), out)
    command = [sys.executable, "-m", "lnsym", "report", str(module), "--out", str(out)]
    command += ["--format", "md,tex", "-j", "2", "--timeout", "600", "--no-cache", "--check"]
    env = {**os.environ, "PYTHONHASHSEED": "12345", "MPLBACKEND": "pdf"}
    with every_cpu_busy():
        checked = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.strip().endswith("reports is up to date")


def test_a_report_cut_by_the_safety_net_writes_nothing(tiny, tmp_path, capsys, monkeypatch):
    import lnsym.checking.checker as checker_module
    from lnsym.errors import BudgetExceeded

    def stalled(claim, checker):
        raise BudgetExceeded("time budget of 1 s exceeded")

    monkeypatch.setitem(checker_module.ENGINES, "concrete", stalled)
    out = tmp_path / "reports"
    assert main(["report", str(tiny), "--out", str(out), "--format", "md"]) == 1
    err = capsys.readouterr().err
    assert "wall-clock safety net (--timeout 60) stopped tiny.shift" in err
    assert "nothing written" in err
    assert not out.exists()
    assert main(["report", str(tiny), "--out", str(out), "--format", "md", "--check"]) == 1
    assert "could not check" in capsys.readouterr().err


def test_figures_carry_no_date_or_version():
    files = render_report(catalog_model(), ("md", "tex")).files
    svg = files["figures/geometry.svg"].decode()
    assert "<dc:date>" not in svg and "Matplotlib v" not in svg
    pdf = files["figures/geometry.pdf"]
    assert b"CreationDate" not in pdf and b"Producer" not in pdf


# ---------------------------------------------------------------------------------------
# Writing, --check, atomicity, usage


def test_report_then_check_then_detect_changes(tiny, tmp_path, capsys):
    out = tmp_path / "reports"
    assert main(["report", str(tiny), "--out", str(out), "--format", "md,tex"]) == 0
    written = _snapshot(out)
    assert set(written) == {
        "tiny.md",
        "tiny.tex",
        "figures/geometry.svg",
        "figures/geometry.pdf",
        "figures/sensitivity.svg",
        "figures/sensitivity.pdf",
    }
    capsys.readouterr()

    assert main(["report", str(tiny), "--out", str(out), "--format", "md,tex", "--check"]) == 0
    assert "is up to date" in capsys.readouterr().out

    (out / "tiny.md").write_text("edited by hand\n")
    (out / "figures" / "sensitivity.pdf").unlink()
    (out / "figures" / "old.svg").write_text("<svg/>")
    before = _snapshot(out)
    assert main(["report", str(tiny), "--out", str(out), "--format", "md,tex", "--check"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert f"stale: {out / 'tiny.md'} (differs from what the current code renders)" in lines
    assert f"stale: {out / 'figures' / 'sensitivity.pdf'} (missing)" in lines
    assert f"stale: {out / 'figures' / 'old.svg'} (no longer generated)" in lines
    assert not any("tiny.tex" in line for line in lines)
    assert _snapshot(out) == before  # --check wrote nothing
    assert not list(out.rglob(".*.tmp"))


def test_check_of_missing_directory_names_every_file_and_creates_nothing(tiny, tmp_path, capsys):
    out = tmp_path / "nowhere"
    assert main(["report", str(tiny), "--out", str(out), "--format", "md", "--check"]) == 1
    stale = [line for line in capsys.readouterr().out.splitlines() if line.startswith("stale")]
    assert len(stale) == 3  # tiny.md and the two SVG figures it asks for
    assert not out.exists()


def test_pdf_is_checked_by_fingerprint(tiny, tmp_path, capsys):
    rendered = render_report(build_model(*_checked(tiny)), ("tex", "pdf"), build=False)
    fingerprint = rendered.pdf_fingerprints["layernorm.pdf"]
    assert fingerprint and len(fingerprint) == 64
    tex = rendered.files["layernorm.tex"].decode()
    assert f"pdfkeywords={{lnsym-fingerprint-{fingerprint}}}" in tex
    write_report(rendered, tmp_path)
    assert stale_files(rendered, tmp_path, ("tex", "pdf")) == [
        f"{tmp_path / 'layernorm.pdf'} (missing)"
    ]
    (tmp_path / "layernorm.pdf").write_bytes(b"%PDF-1.5 lnsym-fingerprint-0000")
    assert stale_files(rendered, tmp_path, ("tex", "pdf")) == [
        f"{tmp_path / 'layernorm.pdf'} (built from another version of layernorm.tex)"
    ]
    marker = f"/Keywords(lnsym-fingerprint-{fingerprint})"
    (tmp_path / "layernorm.pdf").write_bytes(b"%PDF-1.5 " + marker.encode())
    assert stale_files(rendered, tmp_path, ("tex", "pdf")) == []


def _checked(path: Path):
    sections = load([path])
    return sections, check_catalog(sections, Options())


def test_failed_pdf_build_writes_nothing(tiny, tmp_path, monkeypatch, capsys):
    import lnsym.report.build as build

    def broken(tex: str, files: dict[str, bytes]):
        raise PdfBuildError("pdflatex failed: Undefined control sequence.")

    monkeypatch.setattr(build, "build_pdf", broken)
    monkeypatch.setattr(build, "missing_tools", lambda: [])
    out = tmp_path / "reports"
    assert main(["report", str(tiny), "--out", str(out)]) == 1
    assert "pdflatex failed: Undefined control sequence." in capsys.readouterr().err
    assert not out.exists()


def test_missing_tex_tools_give_one_notice_and_md_tex(tiny, tmp_path, monkeypatch, capsys):
    import lnsym.report.build as build

    monkeypatch.setattr(build, "missing_tools", lambda: ["pdflatex"])
    out = tmp_path / "reports"
    assert main(["report", str(tiny), "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("lnsym: note: pdflatex not found")
    assert (out / "tiny.md").is_file() and (out / "tiny.tex").is_file()
    assert not (out / "tiny.pdf").exists()


def test_failing_claims_exit_1_but_still_write(tmp_path, capsys):
    path = tmp_path / "failing.py"
    path.write_text(FAILING)
    out = tmp_path / "reports"
    assert main(["report", str(path), "--out", str(out), "--format", "md"]) == 1
    captured = capsys.readouterr()
    assert "FAIL REFUTED    tiny.scale  <- expected a proof" in captured.err
    assert captured.out.splitlines()[-1] == "2 passed, 1 failed"
    assert (out / "failing.md").is_file()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--format", "md,html"], "unknown format html: choose from md,tex,pdf"),
        (["--format", ","], "unknown format ',': choose from md,tex,pdf"),
        (["missing_module.py"], "missing_module.py: no such file or directory"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["report", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
    assert not (tmp_path / "reports").exists()


def test_out_must_be_a_directory(tiny, tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("x")
    assert main(["report", str(tiny), "--out", str(target)]) == 2
    assert capsys.readouterr().err == f"lnsym: error: --out {target}: not a directory\n"


def test_parse_formats():
    assert parse_formats("pdf,md") == ("md", "pdf")
    assert parse_formats(" tex ") == ("tex",)


def test_timeouts_hide_their_detail_text():
    claim = Claim("demo.slow", Eq(core(vector("z")), core(vector("z"))))
    evidence = (
        Evidence("general", "timeout", "stopped after 1.23 s: the budget of 1 s ran out", 1.23),
        Evidence("numeric", "consistent", "200 samples", 0.1, {"worst_error": 2.2e-16}),
    )
    view = claim_view("1.1", Result(claim, "TIMEOUT", evidence, 1.5, "stopped after 1.23 s"))
    # Details are machine-independent by contract, except a timeout's, which says how long
    # it ran; measured data never reaches the report.
    assert [e.detail for e in view.evidence] == ["", "200 samples"]
    assert view.verdict_words == "undecided (time budget exceeded)"
