"""The PDF: latexmk builds it without errors or overfull lines, reproducibly."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from report_support import catalog_model, need, tex_available

from lnsym.checking.catalog import load
from lnsym.checking.checker import Options
from lnsym.report.build import check_catalog, render_report
from lnsym.report.model import build_model

# Titles and text that stress the escaping: TeX specials, Unicode math, accents, symbols.
TRICKY = '''"""Escaping: 100% of #specials & {braces} ~ ^ _ \\\\ $ < > | "quotes"

Unicode prose: ‖h‖²/ε ≤ 1/√ε, ⟨1, z⟩ = d·μ(z), Jᵀĝ, x̂, tₖ, s⁻¹, ∂ℓ/∂z, ½‖y‖², café,
naïve, Straße — and a snowman ☃ that has no LaTeX form.
"""

from lnsym import Eq, core, ones, scalar, vector
from lnsym.checking.claims import Claim

z, c = vector("z_1"), scalar("c")
CLAIMS = [
    Claim(
        "tricky.title",
        Eq(core(z + c * ones), core(z)),
        title="$x$ & 50% #1 {a} ~b^c_d \\\\ ⊙ 𝟏𝟏ᵀ ≥ ∅ → ∞",
        source="a source with `code` and *stars*",
    )
]
'''


def test_catalog_pdf_builds_without_overfull_lines_reproducibly():
    need(tex_available(), "latexmk with pdflatex (texlive)")
    model = catalog_model()
    render_report(model, ("tex",))  # the figures, drawn once (matplotlib is not thread-safe)
    with ThreadPoolExecutor(max_workers=2) as pool:  # two latexmk processes side by side
        builds = pool.map(lambda formats: render_report(model, formats), [("tex", "pdf"), ("pdf",)])
        first, second = builds
    pdf = first.files["layernorm.pdf"]
    assert pdf.startswith(b"%PDF-")
    assert first.overfull == []
    assert f"lnsym-fingerprint-{first.pdf_fingerprints['layernorm.pdf']}".encode() in pdf
    assert b"/CreationDate" not in pdf and b"/ModDate" not in pdf
    # every figure is embedded: one image XObject per figure PDF
    assert len(re.findall(rb"/Subtype\s*/Form", pdf)) >= 3
    assert second.files == {"layernorm.pdf": pdf}


def test_hostile_text_compiles(tmp_path):
    need(tex_available(), "latexmk with pdflatex (texlive)")
    path = tmp_path / "tricky.py"
    path.write_text(TRICKY)
    sections = load([path])
    model = build_model(sections, check_catalog(sections, Options()))
    rendered = render_report(model, ("tex", "pdf"))
    assert rendered.files["layernorm.pdf"].startswith(b"%PDF-")
    assert rendered.overfull == []
    tex = rendered.files["layernorm.tex"].decode()
    assert r"\section{Escaping: 100\% of \#specials \& \{braces\}" in tex
    assert "[U+2603]" in tex
