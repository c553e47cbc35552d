r"""Writing an exercise's mathematics: @-names, prose, numbers and the forward-pass steps.

The kinds write LaTeX with short ``@``-names for the bold vectors (``@z``, ``@gamma``, …),
which :func:`tex` expands to the notation of the reports; :func:`prose` splits text with
``$...$`` math into :class:`~lnsym.exact.exercise_model.Segment` s. Numbers, vectors and
matrices are written by :mod:`lnsym.printing.numbers`. :func:`forward_steps` writes the
steps μ, Pz, q, s, u that most kinds start from.

>>> [(segment.text, segment.math) for segment in prose("Let $@z = 0$.")]
[('Let ', False), ('\\mathbf{z} = 0', True), ('.', False)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from lnsym.exact.closed_form import Vec, squared_norm
from lnsym.exact.exercise_model import Prose, Segment
from lnsym.printing.numbers import latex_number, latex_vector
from lnsym.printing.printer import Math

_NAMES = {
    "z": r"\mathbf{z}",
    "u": r"\mathbf{u}",
    "y": r"\mathbf{y}",
    "g": r"\mathbf{g}",
    "h": r"\mathbf{h}",
    "v": r"\mathbf{v}",
    "a": r"\mathbf{a}",
    "b": r"\mathbf{b}",
    "1": r"\mathbf{1}",
    "gamma": r"\boldsymbol{\gamma}",
    "beta": r"\boldsymbol{\beta}",
    "ghat": r"\hat{\mathbf{g}}",
    "eps": r"\varepsilon",
}


def tex(source: str) -> str:
    r"""LaTeX with ``@z``, ``@gamma``, … replaced by the notation of the reports.

    >>> tex("P@z = @z - \\mu @1")
    'P\\mathbf{z} = \\mathbf{z} - \\mu \\mathbf{1}'
    """
    return re.sub(r"@(ghat|gamma|beta|eps|[zuyghvab1])", lambda m: _NAMES[m.group(1)], source)


def prose(source: str) -> Prose:
    """Text with ``$...$`` math, split into segments (math with @-names expanded)."""
    pieces = source.split("$")
    if len(pieces) % 2 == 0:
        raise ValueError(f"unbalanced $ in {source!r}")
    return tuple(
        Segment(Math(tex(p)) if i % 2 else p, bool(i % 2)) for i, p in enumerate(pieces) if p
    )


def listing(items: list[str]) -> str:
    """``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def inline_vector(values: Vec) -> str:
    """A vector in running text, where it may break across lines."""
    return latex_vector(values, inline=True)


def sum_text(values: Sequence[Fraction]) -> str:
    """``1 + 2 - 4``: a sum of exact numbers as written by hand."""
    out = ""
    for i, x in enumerate(values):
        text = latex_number(abs(x)) if i else latex_number(x)
        out += text if i == 0 else (f" - {text}" if x < 0 else f" + {text}")
    return out


def slash(x: Fraction) -> str:
    """``8/9``: a rational inline, for numerators and denominators of a fraction."""
    return str(x)


def forward_steps(z: Vec, table: dict[str, Any]) -> list[tuple[str, str]]:
    """The worked steps μ, Pz, q, s, u of the forward pass at ``z``.

    Args:
        z: the input.
        table: the closed forms at z (:func:`lnsym.exact.closed_form.quantities`).

    Returns:
        (lhs, rhs) LaTeX pairs with @-names.
    """
    d = len(z)
    _n, _v = latex_number, latex_vector
    mu, pz, q, s = table["mean"], table["centered"], table["variance"], table["scale"]
    return [
        (r"\mu", rf"\tfrac{{1}}{{{d}}} ({sum_text(z)}) = {_n(mu)}"),
        (r"P@z", rf"@z - \mu @1 = {_v(pz)}"),
        (
            r"q",
            rf"\tfrac{{1}}{{{d}}} \lVert P@z \rVert^{{2}} = "
            rf"\tfrac{{1}}{{{d}}} \cdot {_n(squared_norm(pz))} = {_n(q)}",
        ),
        (r"s", rf"\sqrt{{q + @eps}} = \sqrt{{{_n(table['variance_plus_eps'])}}} = {_n(s)}"),
        (r"@u", rf"P@z / s = {_v(table['core'])}"),
    ]
