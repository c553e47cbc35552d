"""Laying out an exercise sheet and its answer key as Markdown, LaTeX and PDF.

The two documents come from the templates ``exercises.md.j2`` and ``exercises.tex.j2`` (one
each; ``answers`` switches between the sheet and the key) in the Jinja2 environments of
:mod:`lnsym.report.render`, so text is escaped exactly as in the main report. Everything
is rendered in memory into a :class:`~lnsym.report.build.Rendered`; nothing touches the
output directory until :func:`~lnsym.report.build.write_report` writes the files, all or
nothing — a failing PDF build or an interrupted write leaves the previous sheet and key
untouched, never a sheet beside the key of another seed. Each PDF carries the fingerprint of
its LaTeX source in its metadata, as the main report does.

>>> from lnsym.exact.exercises import generate_sheet
>>> files = render_sheet(generate_sheet(count=2, seed=3), ("md",)).files
>>> sorted(files)
['answers.md', 'exercises.md']
>>> files["exercises.md"].decode().splitlines()[0]
'# Layer normalization: exercises'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import partial

from lnsym.exact.exercises import Sheet
from lnsym.report.build import FORMATS, Rendered, fingerprint
from lnsym.report.model import Math
from lnsym.report.pdf import TEX_PACKAGES, build_pdf, missing_tools
from lnsym.report.render import FINGERPRINT_PLACEHOLDER, environment

#: The two documents: the exercises and the answer key.
DOCUMENTS = ("exercises", "answers")
_TEMPLATE = {"md": "exercises.md.j2", "tex": "exercises.tex.j2"}


def render_document(
    sheet: Sheet, fmt: str, *, answers: bool, fingerprint: str = FINGERPRINT_PLACEHOLDER
) -> str:
    """The exercise sheet (or, with ``answers``, its key) as Markdown or LaTeX source.

    Args:
        sheet: the generated sheet.
        fmt: ``"md"`` or ``"tex"``.
        answers: render the answer key instead of the exercises.
        fingerprint: written into the PDF metadata by the LaTeX template.

    Raises:
        ValueError: for another format.
    """
    if fmt not in _TEMPLATE:
        raise ValueError(f"no template for format {fmt!r}")
    template = environment(fmt).get_template(_TEMPLATE[fmt])
    text = template.render(
        sheet=sheet, answers=answers, fingerprint=fingerprint, breakable=_breakable
    )
    return re.sub(r"\n{3,}", "\n\n", text).strip("\n") + "\n"


def _breakable(math: str) -> Math:
    """Inline math that TeX may break after a comma (long vectors in running text).

    Only for LaTeX: MathJax 3, which renders Markdown math on GitHub, lacks ``\\allowbreak``.
    """
    return Math(math.replace(", ", r",\allowbreak "))


def render_sheet(
    sheet: Sheet,
    formats: Iterable[str] = FORMATS,
    *,
    build: bool = True,
) -> Rendered:
    """Render both documents of ``sheet`` in ``formats`` (among md, tex, pdf), in memory.

    Args:
        sheet: the generated sheet.
        formats: a subset of :data:`~lnsym.report.build.FORMATS`.
        build: whether to run pdflatex for the PDFs (without it, the LaTeX still carries
            the fingerprint that a PDF built from it would have).

    Returns:
        The files (``exercises.md``, ``answers.md``, …), with notices and overfull lines.

    Raises:
        PdfBuildError: when a PDF is asked for, the tools are there, and the build fails.
    """
    formats = tuple(formats)
    out = Rendered()
    missing = missing_tools() if "pdf" in formats and build else []
    if missing:
        out.notices.append(
            f"{' and '.join(missing)} not found: the PDFs were not built "
            f"(Debian: apt-get install {' '.join(TEX_PACKAGES)})"
        )
    sources: dict[str, str] = {}
    for name in DOCUMENTS:
        answers = name == "answers"
        if "md" in formats:
            out.files[f"{name}.md"] = render_document(sheet, "md", answers=answers).encode()
        if "tex" not in formats and "pdf" not in formats:
            continue
        draft = render_document(sheet, "tex", answers=answers)
        tex = draft.replace(FINGERPRINT_PLACEHOLDER, fingerprint(draft, {}))
        if "tex" in formats:
            out.files[f"{name}.tex"] = tex.encode()
        if "pdf" in formats and build and not missing:
            sources[name] = tex
    out.add_pdfs({name: partial(build_pdf, tex, {}, name) for name, tex in sources.items()})
    return out
