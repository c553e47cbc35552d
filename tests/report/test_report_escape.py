"""Escaping plain text for LaTeX and Markdown (lnsym.report.escape)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lnsym.report.escape import latex_escape, markdown_escape


@pytest.mark.parametrize(
    ("raw", "tex"),
    [
        ("a_b & 50% #1 $x$", r"a\_b \& 50\% \#1 \$x\$"),
        ("{x}", r"\{x\}"),
        ("x^2~y", r"x\^{}2\~{}y"),
        ("C:\\path", r"C:\ensuremath{\backslash}path"),
        ("a < b > c | d", r"a \ensuremath{<} b \ensuremath{>} c \ensuremath{\vert} d"),
        (
            "‖h‖²/ε",
            r"\ensuremath{\Vert}h\ensuremath{\Vert}\ensuremath{^{2}}/"
            r"\ensuremath{\varepsilon}",
        ),
        ("s⁻¹ and tₖ", r"s\ensuremath{^{-1}} and t\ensuremath{_{k}}"),
        ("Jᵀ", r"J\ensuremath{^{\mathsf{T}}}"),
        ("x̂ = u, ĝ", r"\^{x} = u, \^{g}"),
        ("café — naïve", r"caf\'{e} --- na\"{\i}ve"),
        (
            "½‖y‖²",
            r"\ensuremath{\tfrac{1}{2}}\ensuremath{\Vert}y\ensuremath{\Vert}"
            r"\ensuremath{^{2}}",
        ),
        ("☃", "[U+2603]"),
        ("lnsym verify --json", "lnsym verify -{}-json"),
    ],
)
def test_latex_escape(raw, tex):
    assert latex_escape(raw) == tex


def test_latex_escape_never_emits_raw_specials_or_unicode():
    for raw in ["\\textbf{x}", "$$", "%comment", "#", "⟨1, z⟩ ∂ℓ/∂z ≤ √ε ⊙ 𝟏"]:
        out = latex_escape(raw)
        assert out.isascii()
        assert "$$" not in out and "\\textbf" not in out
        assert "%" not in out.replace("\\%", "")


@given(st.text(max_size=40))
def test_latex_escape_is_ascii_with_balanced_braces(raw):
    out = latex_escape(raw)
    assert out.isascii()
    depth = 0
    for ch in out.replace("\\{", "").replace("\\}", ""):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0


def test_markdown_escape():
    assert markdown_escape("a*b_c | $x$ [l](u) <b>") == r"a\*b\_c \| \$x\$ \[l\](u) \<b\>"
    assert markdown_escape("- item") == "- item"
    assert markdown_escape("- item", line_start=True) == r"\- item"
    assert markdown_escape("2. x\n> q", line_start=True) == "2\\. x\n\\> q"
    assert markdown_escape("‖h‖²/ε ≤ 1") == "‖h‖²/ε ≤ 1"
