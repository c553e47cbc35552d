"""The report job: check the catalog, render every output in memory, then write or compare.

Rendering never touches the output directory; :func:`write_report` writes the finished
files one by one, each atomically, and :func:`stale_files` compares them with what is on
disk without writing anything. A failing run (a LaTeX error, a broken template) therefore
leaves the previous report untouched.

The PDF depends on the TeX installation, so it is not compared byte for byte: the LaTeX
source carries a fingerprint (a SHA-256 of the source and its figures) into the PDF's
metadata, and a PDF is current when it carries the fingerprint of the current source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lnsym.catalog import Section
from lnsym.claims import DerivationResult, Options, Result
from lnsym.errors import UserInputError
from lnsym.files import atomic_write
from lnsym.report.figures import FIGURES, FigureSpec, render_figure
from lnsym.report.model import ReportModel
from lnsym.report.pdf import TEX_PACKAGES, PdfBuild, build_pdf, missing_tools
from lnsym.report.render import FINGERPRINT_PLACEHOLDER, render
from lnsym.runner import run, select

#: The report formats, in the order they are built.
FORMATS = ("md", "tex", "pdf")
#: The base name of the report files.
NAME = "layernorm"
FIGURE_DIR = "figures"
_FIGURE_FORMAT = {"md": "svg", "tex": "pdf", "pdf": "pdf"}
_FINGERPRINT_PREFIX = b"lnsym-fingerprint-"


@dataclass
class Rendered:
    """The report files rendered in memory (relative POSIX path → bytes).

    ``pdf_fingerprint`` is set when the PDF belongs to the report: the PDF itself is in
    ``files`` only when it was built.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    pdf_fingerprint: str | None = None
    notices: list[str] = field(default_factory=list)
    overfull: list[str] = field(default_factory=list)


def parse_formats(value: str) -> tuple[str, ...]:
    """The formats of a ``--format`` value such as ``"md,tex"``, in build order.

    Raises:
        UserInputError: for an empty list or an unknown format.

    >>> parse_formats("pdf, md")
    ('md', 'pdf')
    """
    names = [part.strip() for part in value.split(",") if part.strip()]
    unknown = sorted(set(names) - set(FORMATS))
    if unknown or not names:
        raise UserInputError(
            f"unknown format {', '.join(unknown) or repr(value)}: choose from {','.join(FORMATS)}"
        )
    return tuple(f for f in FORMATS if f in names)


def check_catalog(
    sections: Sequence[Section],
    options: Options,
    *,
    jobs: int = 1,
    total_timeout: float | None = None,
) -> dict[str, Result | DerivationResult]:
    """Every claim and derivation of ``sections`` checked, keyed by id, in catalog order."""
    items = select(list(sections))
    outcomes = run(items, options, jobs=jobs, total_timeout=total_timeout)
    return {item.id: outcome for item, outcome in zip(items, outcomes, strict=True)}


def fingerprint(tex: str, figures: dict[str, bytes]) -> str:
    """The SHA-256 of a LaTeX source (with the placeholder) and the figures it includes."""
    digest = hashlib.sha256(tex.encode("utf-8"))
    for path in sorted(figures):
        digest.update(b"\0" + path.encode("utf-8") + b"\0" + figures[path])
    return digest.hexdigest()


def render_report(
    model: ReportModel,
    formats: Iterable[str] = FORMATS,
    *,
    build: bool = True,
    pdf_builder: Callable[[str, dict[str, bytes]], PdfBuild] | None = None,
) -> Rendered:
    """Render ``model`` into the files of ``formats``, in memory.

    Args:
        model: the report content.
        formats: a subset of :data:`FORMATS`.
        build: whether to run latexmk for the PDF (``False`` only computes its fingerprint,
            which is all :func:`stale_files` needs).
        pdf_builder: compiles LaTeX (default: :func:`~lnsym.report.pdf.build_pdf`).

    Raises:
        PdfBuildError: when the PDF is asked for, the tools are there, and the build fails.
    """
    formats = tuple(formats)
    out = Rendered()
    figure_formats = sorted({_FIGURE_FORMAT[f] for f in formats})
    figures: dict[str, dict[str, bytes]] = {fmt: {} for fmt in figure_formats}
    for spec in _used_figures(model):
        for fmt in figure_formats:
            figures[fmt][f"{FIGURE_DIR}/{spec.name}.{fmt}"] = render_figure(spec, fmt)

    if "md" in formats:
        out.files[f"{NAME}.md"] = render(model, "md").encode("utf-8")
        out.files.update(figures["svg"])
    if "tex" not in formats and "pdf" not in formats:
        return out
    draft = render(model, "tex")
    digest = fingerprint(draft, figures["pdf"])
    tex = draft.replace(FINGERPRINT_PLACEHOLDER, digest)
    if "tex" in formats:
        out.files[f"{NAME}.tex"] = tex.encode("utf-8")
        out.files.update(figures["pdf"])
    if "pdf" in formats:
        out.pdf_fingerprint = digest
        missing = missing_tools()
        if build and missing:
            out.notices.append(
                f"{' and '.join(missing)} not found: {NAME}.pdf was not built or updated "
                f"(Debian: apt-get install {' '.join(TEX_PACKAGES)})"
            )
        elif build:
            result = (pdf_builder or build_pdf)(tex, figures["pdf"])
            out.files[f"{NAME}.pdf"] = result.pdf
            out.overfull = result.overfull
    return out


def _used_figures(model: ReportModel) -> list[FigureSpec]:
    names = [f.name for s in model.sections for f in s.figures]
    names += [f.name for f in model.extra_figures]
    by_name = {spec.name: spec for spec in (*model.figures, *FIGURES)}
    return [by_name[n] for n in names]


def write_report(rendered: Rendered, out: Path) -> list[Path]:
    """Write every rendered file below ``out`` atomically; returns the paths written.

    Figures go first and the documents last, so a reader never sees a document whose
    figures are missing.
    """
    order = sorted(rendered.files, key=lambda rel: (not rel.startswith(FIGURE_DIR + "/"), rel))
    written = []
    for rel in order:
        path = out / rel
        atomic_write(path, rendered.files[rel])
        written.append(path)
    return written


def stale_files(rendered: Rendered, out: Path, formats: Iterable[str] = FORMATS) -> list[str]:
    """What in ``out`` differs from ``rendered``: ``"<path> (<why>)"`` lines, sorted.

    A file is stale when it is missing, differs, or (in ``figures/``) is no longer
    generated; the PDF when it is missing or lacks the current fingerprint. Nothing is
    written.
    """
    problems: list[str] = []
    for rel in sorted(rendered.files):
        if rel == f"{NAME}.pdf":
            continue
        path = out / rel
        if not path.is_file():
            problems.append(f"{path} (missing)")
        elif path.read_bytes() != rendered.files[rel]:
            problems.append(f"{path} (differs from what the current code renders)")
    if rendered.pdf_fingerprint is not None:
        path = out / f"{NAME}.pdf"
        if not path.is_file():
            problems.append(f"{path} (missing)")
        elif _FINGERPRINT_PREFIX + rendered.pdf_fingerprint.encode() not in path.read_bytes():
            problems.append(f"{path} (built from another version of {NAME}.tex)")
    # Figure files belong to the md (SVG) and tex (PDF) outputs; the PDF embeds its own.
    extensions = {"." + _FIGURE_FORMAT[f] for f in formats if f != "pdf"}
    figure_dir = out / FIGURE_DIR
    if figure_dir.is_dir():
        for path in sorted(figure_dir.iterdir()):
            rel = f"{FIGURE_DIR}/{path.name}"
            if path.suffix in extensions and rel not in rendered.files:
                problems.append(f"{path} (no longer generated)")
    return problems
