"""Prose and titles of the rendered reports carry no ASCII math markup: outside math and
code there is no literal ``^``, ``_`` or ``sqrt(`` in the Markdown or the LaTeX.

Mathematics in text is either typeset by the printer (``$...$``) or written in Unicode
(‖h‖², Σₜ gₜ, √ε), which the LaTeX escape typesets in math mode. A caret, an underscore or
``sqrt(`` that reaches the reader is a typesetting slip: ``(q + ε)^(3/2)``, ``u_ε(z)``,
``8*sqrt(5)/25``.
"""

from __future__ import annotations

import re

import pytest
from report_support import catalog_model, review_model

from lnsym.report.render import render

# Markdown: fenced code, display and inline math, inline code, comments, link targets.
_MD_HIDDEN = (
    re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL),
    re.compile(r"\$\$.*?\$\$", re.DOTALL),
    re.compile(r"`[^`\n]*`"),
    re.compile(r"(?<![\\$])\$(?!\$).+?(?<![\\$])\$(?!\$)"),
    re.compile(r"<!--.*?-->", re.DOTALL),
    re.compile(r"\]\([^)\s]*\)"),
)
# LaTeX: comments, math environments and verbatim, display and inline math.
_TEX_HIDDEN = (
    re.compile(r"(?<!\\)%.*"),
    re.compile(
        r"\\begin\{(equation|align|gather|multline|displaymath|math|verbatim|lstlisting)"
        r"(\*?)\}.*?\\end\{\1\2\}",
        re.DOTALL,
    ),
    re.compile(r"\\\[.*?\\\]", re.DOTALL),
    re.compile(r"\\\(.*?\\\)", re.DOTALL),
    re.compile(r"(?<!\\)\$.*?(?<!\\)\$", re.DOTALL),
)
#: Commands whose argument is math, code or a name, never prose.
_TEX_ARGUMENTS = re.compile(
    r"\\(ensuremath|texttt|lstinline|label|ref|eqref|pageref|includegraphics|url|href|lnsymfit)"
    r"(?![A-Za-z])\s*(\[[^\]]*\])?\s*\{"
)
#: A caret, an underscore (escaped or not) or SymPy's sqrt( in text.
_MARKUP = re.compile(r"[_^]|sqrt\(|\\textasciicircum|\\textunderscore")
#: \^{x} is the hat accent (ĝ), not a caret: only \^{} shows one.
_HAT_ACCENT = re.compile(r"\\\^\{\\?[A-Za-z]\}")


def markdown_prose(markdown: str) -> str:
    """The Markdown with code, math, comments and link targets blanked out."""
    for pattern in _MD_HIDDEN:
        markdown = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), markdown)
    return markdown


def latex_prose(latex: str) -> str:
    """The LaTeX document body with math, code, names and comments blanked out."""
    body = latex.split(r"\begin{document}", 1)[-1]
    for pattern in _TEX_HIDDEN:
        body = pattern.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), body)
    out, i = [], 0
    while (m := _TEX_ARGUMENTS.search(body, i)) is not None:
        end = _closing_brace(body, m.end() - 1)
        out += [body[i : m.start()], re.sub(r"[^\n]", " ", body[m.start() : end])]
        i = end
    return _HAT_ACCENT.sub("", "".join(out) + body[i:])


def _closing_brace(text: str, start: int) -> int:
    depth, i = 0, start
    while i < len(text):
        if text[i] == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(text[i], 0)
        if depth == 0:
            return i + 1
        i += 1
    raise AssertionError(f"unbalanced braces after {text[start : start + 60]!r}")


def slips(prose: str) -> list[str]:
    """``line N: text`` for every line of ``prose`` with markup in it."""
    return [
        f"line {n}: {line.strip()[:160]}"
        for n, line in enumerate(prose.splitlines(), 1)
        if _MARKUP.search(line)
    ]


def test_the_scanner_finds_slips_and_only_in_prose():
    md = "# Claim: ε/(q + ε)^(3/2)\n\n$u_{\\varepsilon}$ and `kills_ones` and $$\nx^2\n$$\n"
    assert slips(markdown_prose(md)) == ["line 1: # Claim: ε/(q + ε)^(3/2)"]
    linked = slips(markdown_prose("a [b](figures/core_variance.svg) u\\_ε(z)"))
    assert [line.split()[-1] for line in linked] == ["u\\_ε(z)"]
    tex = (
        "\\usepackage{x_y}\n\\begin{document}\n\\lnsymitem{Claim}{lhs = 8*sqrt(5)/25}\n"
        "$a_b$ \\texttt{kills\\_ones} \\label{sec:01_c} \\^{g} \\ensuremath{_{t}}\n"
        "\\[\nJ^{\\mathsf{T}}\n\\]\n% a_b comment\nD\\_z \\^{}\n"
    )
    assert slips(latex_prose(tex)) == [
        "line 2: \\lnsymitem{Claim}{lhs = 8*sqrt(5)/25}",
        "line 8: D\\_z \\^{}",
    ]


@pytest.mark.parametrize("fmt", ["md", "tex"])
@pytest.mark.parametrize("document", ["layernorm", "source-review"])
def test_reports_have_no_ascii_math_markup_in_prose(document, fmt):
    model = catalog_model() if document == "layernorm" else review_model()
    text = render(model, fmt, document=document)
    prose = markdown_prose(text) if fmt == "md" else latex_prose(text)
    assert slips(prose) == []
    assert len(prose.split()) > 2000  # the prose is there, only the markup is gone
