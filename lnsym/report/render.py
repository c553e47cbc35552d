"""Laying out the report documents as Markdown and as LaTeX with Jinja2.

Each document of :data:`DOCUMENTS` has a Markdown and a LaTeX template in
``lnsym/report/templates``: the layernorm report lays out a
:class:`~lnsym.report.model.ReportModel`, the source review a
:class:`~lnsym.report.review_model.ReviewModel`. Both environments use
``StrictUndefined`` (a typo in a template is an error, not an empty string) and a
``finalize`` hook that escapes every value for its format — except :class:`Math` (from the
printer) and :class:`Raw` (markup made by this module's filters) — so plain text can never
inject markup. The LaTeX templates use ``\\VAR{...}``, ``\\BLOCK{...}`` and ``\\#{...}``
delimiters, which do not clash with TeX's braces.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import jinja2

from lnsym.report.escape import latex_escape, markdown_escape
from lnsym.report.model import Math, ReportModel

if TYPE_CHECKING:
    from lnsym.report.review_model import ReviewModel

TEMPLATES = Path(__file__).parent / "templates"
#: The documents rendered from templates, ``<name>.md.j2`` and ``<name>.tex.j2`` each (the
#: PDF is built from the LaTeX).
DOCUMENTS = ("layernorm", "source-review")
#: Replaced in the LaTeX by a digest of the LaTeX itself and its figures.
FINGERPRINT_PLACEHOLDER = "LNSYMFINGERPRINTPLACEHOLDER"
#: Marks a blank line of verbatim code, so that collapsing blank lines leaves it alone.
_BLANK = "\x00"


class Raw(str):
    """Markup produced by this module's filters from escaped parts."""

    __slots__ = ()


def _finalizer(escape: Any) -> Any:
    def finalize(value: Any) -> str:
        if isinstance(value, Math | Raw):
            return value
        return escape(str(value))

    return finalize


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a Markdown heading.

    >>> github_slug("2. The normalized core and the layer output")
    '2-the-normalized-core-and-the-layer-output'
    """
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


#: An item id in running text (``jacobian.kills_ones``): dotted lowercase words, the first of
#: two letters or more (so "e.g." is none).
ITEM_ID = re.compile(r"(?<![\w.\-/])[a-z][a-z0-9_]+(?:\.[a-z][a-z0-9_]*)+(?![\w])")


def _md_code(value: str) -> Raw:
    return Raw(f"`{value}`") if "`" not in value else Raw(markdown_escape(value))


def _md_detail(value: str) -> Raw:
    """Escaped text whose item ids are set as code (engine details name premises by id)."""
    return Raw(_with_ids(value, markdown_escape, _md_code))


def _tex_breakable(value: str) -> Raw:
    """Escaped text that may also break after operators (engine details hold long formulas),
    never before a closing bracket or punctuation (a lone ")" on a line) nor inside a number
    such as 1e+02, with item ids set as code.

    >>> print(_tex_breakable("1e+02 (see ab.c_d)"))
    1e+02 (see \\texttt{ab.\\allowbreak{}c\\_\\allowbreak{}d})
    """

    def breakable(text: str) -> str:
        parts = re.split(r"(?<=[*+=,/)])(?<![0-9]e[+])(?=[^\s)\].,;:])", text)
        return r"\allowbreak{}".join(latex_escape(p) for p in parts)

    return Raw(_with_ids(value, breakable, _tex_code))


def _with_ids(value: str, text: Any, code: Any) -> str:
    out, start = [], 0
    for match in ITEM_ID.finditer(value):
        out += [text(value[start : match.start()]), code(match.group())]
        start = match.end()
    return "".join(out) + text(value[start:])


def _tex_code(value: str) -> Raw:
    # Long ids may break after a dot or underscore (e.g. in narrow table columns).
    parts = re.split(r"(?<=[._])", value)
    return Raw(r"\texttt{" + r"\allowbreak{}".join(latex_escape(p) for p in parts) + "}")


def _verbatim(code: str) -> Raw:
    """Code as it is, its blank lines marked so that :func:`render` keeps every one."""
    return Raw("\n".join(line or _BLANK for line in code.rstrip("\n").split("\n")))


# In code, keep spaces (each as wide as a letter) and ASCII quotes (not typographic ones).
_CODE_CHARS = {" ": "~", '"': r"{\char34}", "'": r"\textquotesingle{}"}


def _tex_code_lines(code: str) -> Raw:
    """Code as LaTeX lines, one ``\\lnsymcode{...}`` each: escaped, spaces kept, blank lines
    marked so that :func:`render` keeps every one."""
    lines = []
    for line in code.rstrip("\n").split("\n"):
        text = "".join(_CODE_CHARS.get(ch) or latex_escape(ch) for ch in line)
        lines.append(r"\lnsymcode{\texttt{" + text + "}}" if line else _BLANK)
    return Raw("\n".join(lines))


def _file_name(value: str) -> Raw:
    """A file or label name, used verbatim: only letters, digits, ``_``, ``-`` and ``.``."""
    if not re.fullmatch(r"[A-Za-z0-9_.\-]+", value):
        raise ValueError(f"unsafe name in a report: {value!r}")
    return Raw(value)


@cache
def environment(fmt: str) -> jinja2.Environment:
    """The Jinja2 environment for ``"md"`` or ``"tex"``.

    Raises:
        ValueError: for another format.
    """
    common: dict[str, Any] = {
        "loader": jinja2.FileSystemLoader(TEMPLATES),
        "undefined": jinja2.StrictUndefined,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "keep_trailing_newline": True,
        "autoescape": False,
    }
    if fmt == "md":
        env = jinja2.Environment(finalize=_finalizer(markdown_escape), **common)
        env.filters["code"] = _md_code
        env.filters["slug"] = lambda heading: Raw(github_slug(heading))
        env.filters["para"] = lambda text: Raw(markdown_escape(text, line_start=True))
        env.filters["detail"] = _md_detail
    elif fmt == "tex":
        env = jinja2.Environment(
            block_start_string=r"\BLOCK{",
            block_end_string="}",
            variable_start_string=r"\VAR{",
            variable_end_string="}",
            comment_start_string=r"\#{",
            comment_end_string="}",
            line_comment_prefix="%#",
            finalize=_finalizer(latex_escape),
            **common,
        )
        env.filters["code"] = _tex_code
        env.filters["detail"] = _tex_breakable
        env.filters["para"] = lambda text: Raw(latex_escape(text))
        env.filters["code_lines"] = _tex_code_lines
    else:
        raise ValueError(f"no template for format {fmt!r}")
    # Macro output was escaped piece by piece while the macro ran; mark it as markup.
    env.filters["raw"] = Raw
    env.filters["verbatim"] = _verbatim
    env.filters["name"] = _file_name
    return env


def render(
    model: ReportModel | ReviewModel,
    fmt: str,
    fingerprint: str = FINGERPRINT_PLACEHOLDER,
    document: str = "layernorm",
) -> str:
    """The report ``model`` as Markdown (``"md"``) or LaTeX (``"tex"``) source.

    Args:
        model: the content: a :class:`ReportModel` for ``"layernorm"``, a
            :class:`ReviewModel` for ``"source-review"``.
        fmt: ``"md"`` or ``"tex"``.
        fingerprint: written into the PDF metadata by the LaTeX template.
        document: which of :data:`DOCUMENTS` to render.

    Raises:
        ValueError: for another format or document.
    """
    if document not in DOCUMENTS:
        raise ValueError(f"no templates for the document {document!r}")
    template = environment(fmt).get_template(f"{document}.{fmt}.j2")
    text = template.render(report=model, fingerprint=Raw(fingerprint))
    # Templates may leave runs of blank lines around optional blocks; in both formats one
    # blank line means the same, so the output keeps exactly one.
    text = re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"
    return text.replace(_BLANK + "\n", "\n" if fmt == "md" else "\\lnsymcodeblank\n")
