"""The PDF: pdflatex builds it without errors or overfull lines, reproducibly."""

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
    need(tex_available(), "pdflatex (texlive)")
    model = catalog_model()
    render_report(model, ("tex",))  # the figures, drawn once (matplotlib is not thread-safe)
    with ThreadPoolExecutor(max_workers=2) as pool:  # two pdflatex builds side by side
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
    need(tex_available(), "pdflatex (texlive)")
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


# A document whose table of contents moves its sections: pass 2 reads the contents pass 1
# wrote and pushes every section down a page, so only pass 3 reads its own final state.
SETTLING = (
    "\\documentclass{article}\n\\begin{document}\n\\tableofcontents\n"
    + "".join(
        f"\\section{{Part {i}}}\\label{{p{i}}}On page \\pageref{{p{i}}}.\n" for i in range(40)
    )
    + "\\end{document}\n"
)

# A document that writes into its .aux one more than it read: it never settles.
RESTLESS = r"""\documentclass{article}
\makeatletter
\providecommand\passes{0}
\AtEndDocument{\immediate\write\@auxout{\gdef\string\passes{\the\numexpr\passes+1\relax}}}
\makeatother
\begin{document}
Pass \passes.
\end{document}
"""


def test_passes_run_until_a_pass_reads_its_own_final_state(monkeypatch):
    import lnsym.report.pdf as pdf

    need(tex_available(), "pdflatex (texlive)")
    passes = []  # the auxiliary files each pass read and wrote
    run = pdf._pdflatex

    def counted(root, name, *args, **kwargs):
        read = pdf._auxiliary_state(root, name)
        done = run(root, name, *args, **kwargs)
        passes.append((read, pdf._auxiliary_state(root, name)))
        return done

    monkeypatch.setattr(pdf, "_pdflatex", counted)
    built = pdf.build_pdf(SETTLING, {}, "settling")
    assert built.pdf.startswith(b"%PDF-")
    assert len(passes) == 3  # not one pass fewer, not one more
    assert all(read != wrote for read, wrote in passes[:-1])
    assert passes[-1][0] == passes[-1][1]  # the PDF's pass read what it wrote
    assert pdf.build_pdf(SETTLING, {}, "settling").pdf == built.pdf


def test_a_document_that_never_settles_fails_loudly():
    import pytest

    from lnsym.report.pdf import MAX_PASSES, PdfBuildError, build_pdf

    need(tex_available(), "pdflatex (texlive)")
    with pytest.raises(PdfBuildError, match=f"did not settle in {MAX_PASSES} passes"):
        build_pdf(RESTLESS, {}, "restless")


def test_a_tex_error_names_the_first_error_of_the_log():
    import pytest

    from lnsym.report.pdf import PdfBuildError, build_pdf

    need(tex_available(), "pdflatex (texlive)")
    broken = "\\documentclass{article}\\begin{document}\\undefinedmacro\\end{document}"
    with pytest.raises(PdfBuildError, match="pdflatex failed: Undefined control sequence"):
        build_pdf(broken, {}, "broken")
