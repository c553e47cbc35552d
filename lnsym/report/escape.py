r"""Escaping plain text for LaTeX (pdfLaTeX) and for Markdown.

Report text — titles, justifications, introductions, evidence details — is Unicode prose
with a little mathematics in it (‖h‖²/ε, ⟨1, z⟩, Jᵀĝ). :func:`latex_escape` turns it into
LaTeX that pdfLaTeX accepts with its default OT1 fonts: the special characters are
escaped, Greek letters and math symbols become ``\ensuremath{...}``, runs of super- and
subscript digits become ``^{...}`` / ``_{...}``, and combining accents become accent
commands. :func:`markdown_escape` backslash-escapes the ASCII punctuation that Markdown
(and GitHub's math extension, for ``$``) would interpret.

>>> print(latex_escape("‖h‖² ≤ ε"))
\ensuremath{\Vert}h\ensuremath{\Vert}\ensuremath{^{2}} \ensuremath{\le} \ensuremath{\varepsilon}
>>> print(latex_escape("100% & x_1"))
100\% \& x\_1
>>> print(markdown_escape("a*b_c | $x$"))
a\*b\_c \| \$x\$
"""

from __future__ import annotations

import re
import unicodedata

_LATEX_SPECIAL = {
    "\\": r"\ensuremath{\backslash}",
    "{": r"\{",
    "}": r"\}",
    "$": r"\$",
    "&": r"\&",
    "#": r"\#",
    "^": r"\^{}",
    "_": r"\_",
    "%": r"\%",
    "~": r"\~{}",
    "<": r"\ensuremath{<}",
    ">": r"\ensuremath{>}",
    "|": r"\ensuremath{\vert}",
    '"': "''",
}

_GREEK = {
    "α": r"\alpha", "β": r"\beta", "γ": r"\gamma", "δ": r"\delta", "ε": r"\varepsilon",
    "ϵ": r"\epsilon", "ζ": r"\zeta", "η": r"\eta", "θ": r"\theta", "ι": r"\iota",
    "κ": r"\kappa", "λ": r"\lambda", "μ": r"\mu", "ν": r"\nu", "ξ": r"\xi", "π": r"\pi",
    "ρ": r"\rho", "σ": r"\sigma", "τ": r"\tau", "υ": r"\upsilon", "φ": r"\phi",
    "χ": r"\chi", "ψ": r"\psi", "ω": r"\omega", "Γ": r"\Gamma", "Δ": r"\Delta",
    "Θ": r"\Theta", "Λ": r"\Lambda", "Ξ": r"\Xi", "Π": r"\Pi", "Σ": r"\Sigma",
    "Φ": r"\Phi", "Ψ": r"\Psi", "Ω": r"\Omega",
}  # fmt: skip

_MATH = {
    **_GREEK,
    "⟨": r"\langle", "⟩": r"\rangle", "‖": r"\Vert", "∥": r"\Vert", "⊙": r"\odot",
    "−": "-", "≤": r"\le", "≥": r"\ge", "≠": r"\neq", "≈": r"\approx", "±": r"\pm",
    "∂": r"\partial", "ℓ": r"\ell", "∇": r"\nabla", "∑": r"\sum", "∏": r"\prod",
    "·": r"\cdot", "⋅": r"\cdot", "×": r"\times", "∈": r"\in", "∉": r"\notin",
    "ℝ": r"\mathbb{R}", "→": r"\to", "↦": r"\mapsto", "⇒": r"\Rightarrow",
    "⇔": r"\Leftrightarrow", "∞": r"\infty", "√": r"\surd", "∘": r"\circ", "⊥": r"\perp",
    "∀": r"\forall", "∃": r"\exists", "⊗": r"\otimes", "∅": r"\emptyset", "𝟏": r"\mathbf{1}",
    "′": r"\prime", "∗": "*", "≔": ":=", "⊂": r"\subset", "⊆": r"\subseteq", "∩": r"\cap",
    "∪": r"\cup", "¬": r"\neg", "∧": r"\wedge", "∨": r"\vee", "⌊": r"\lfloor",
    "⌋": r"\rfloor", "⌈": r"\lceil", "⌉": r"\rceil", "∼": r"\sim", "≡": r"\equiv",
    "≪": r"\ll", "≫": r"\gg", "∝": r"\propto", "∫": r"\int", "ℕ": r"\mathbb{N}",
    "ℤ": r"\mathbb{Z}", "ℚ": r"\mathbb{Q}",
}  # fmt: skip

# Only characters that the default OT1 Computer Modern fonts have: no TS1 (text
# companion) symbols, which would pull in bitmap fonts.
_TEXT = {
    "–": "--", "—": "---", "…": r"\ldots{}", "\u00a0": "~", "‘": "`", "’": "'", "“": "``",
    "”": "''", "•": r"\ensuremath{\bullet}", "✓": "ok", "ß": r"\ss{}", "æ": r"\ae{}",
    "Æ": r"\AE{}", "œ": r"\oe{}", "Œ": r"\OE{}", "ø": r"\o{}", "Ø": r"\O{}", "ı": r"\i{}",
    "§": r"\S{}", "¶": r"\P{}", "£": r"\pounds{}", "¿": "?`", "¡": "!`", "©": "(c)",
    "®": "(R)", "½": r"\ensuremath{\tfrac{1}{2}}", "¼": r"\ensuremath{\tfrac{1}{4}}",
    "¾": r"\ensuremath{\tfrac{3}{4}}", "°": r"\ensuremath{^{\circ}}", "µ": r"\ensuremath{\mu}",
    "÷": r"\ensuremath{\div}", "«": r"\ensuremath{\ll}", "»": r"\ensuremath{\gg}",
}  # fmt: skip

_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵈᵏᵐᵗᵀ", "0123456789+-=()nidkmt", strict=False))
_SUPERSCRIPT["ᵀ"] = r"\mathsf{T}"
_SUBSCRIPT = dict(
    zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼ", "0123456789+-=()aeoxhklmnpstij", strict=True)
)
_ACCENTS = {
    "\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=",
    "\u0306": "u", "\u0307": ".", "\u0308": '"', "\u030a": "r", "\u030c": "v",
    "\u0327": "c",
}  # fmt: skip

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|$~&#])")
_MARKDOWN_LINE_START = re.compile(r"^(\s*(?:\d+)?)([-+=>.)])")


def latex_escape(text: str) -> str:
    """Plain Unicode text as pdfLaTeX source that typesets the same characters.

    Args:
        text: any string; it is never interpreted as LaTeX.

    Returns:
        LaTeX for text mode. Characters without a known form become a visible
        ``[U+XXXX]`` marker rather than a compilation error.
    """
    chars = unicodedata.normalize("NFC", text)
    out: list[str] = []
    i = 0
    while i < len(chars):
        ch = chars[i]
        if ch in _SUPERSCRIPT or ch in _SUBSCRIPT:
            table, script = (_SUPERSCRIPT, "^") if ch in _SUPERSCRIPT else (_SUBSCRIPT, "_")
            j = i
            while j < len(chars) and chars[j] in table:
                j += 1
            body = "".join(table[c] for c in chars[i:j])
            out.append(f"\\ensuremath{{{script}{{{body}}}}}")
            i = j
            continue
        if ch == "-" and chars[i + 1 : i + 2] == "-":
            out.append("-{}")  # keep "--" as two hyphens, not an en dash
            i += 1
            continue
        j = i + 1
        while j < len(chars) and unicodedata.combining(chars[j]):
            j += 1  # x̂: a base letter with combining accents that have no precomposed form
        out.append(_latex_char(chars[i:j]))
        i = j
    return "".join(out)


def _latex_char(cluster: str) -> str:
    """One base character with any combining marks after it."""
    ch = cluster[0]
    if len(cluster) == 1:
        if ch in _LATEX_SPECIAL:
            return _LATEX_SPECIAL[ch]
        if ch.isascii():
            return ch
        if ch in _MATH:
            return f"\\ensuremath{{{_MATH[ch]}}}"
        if ch in _TEXT:
            return _TEXT[ch]
    decomposed = unicodedata.normalize("NFD", cluster)
    base, marks = decomposed[0], decomposed[1:]
    if base.isascii() and base.isalpha() and marks and all(m in _ACCENTS for m in marks):
        out = base if base not in "ij" else "\\" + {"i": "i", "j": "j"}[base]
        for mark in marks:
            out = f"\\{_ACCENTS[mark]}{{{out}}}"
        return out
    return "".join(f"[U+{ord(c):04X}]" for c in cluster)


def markdown_escape(text: str, line_start: bool = False) -> str:
    """Plain text for a Markdown paragraph or table cell, shown literally.

    Args:
        text: any string; it is never interpreted as Markdown or as math.
        line_start: whether the text begins a line, where ``-``, ``1.`` or ``>`` would
            start a list or a quote.

    Returns:
        The text with Markdown's inline punctuation (and ``$``) backslash-escaped.

    >>> print(markdown_escape("1. not a list", line_start=True))
    1\\. not a list
    """
    escaped = _MARKDOWN_SPECIAL.sub(r"\\\1", text)
    if not line_start:
        return escaped
    return "\n".join(
        _MARKDOWN_LINE_START.sub(lambda m: m.group(1) + "\\" + m.group(2), line)
        for line in escaped.split("\n")
    )
