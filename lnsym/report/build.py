"""The report job: check the catalog, render every output in memory, then write or compare.

One run checks the catalog once and renders two documents from it: the derivation report
(``layernorm.*`` for the built-in catalog, named after the modules otherwise, see
:mod:`lnsym.report.document`; with its figures) and, when the catalog holds every item it
cites, the source review (``source-review.*``, see :mod:`lnsym.report.review_model`).

Rendering never touches the output directory; :func:`write_report` writes the finished
files as one set, all or nothing, and :func:`stale_files` compares them with what is on
disk without writing anything. A failing or interrupted run (a LaTeX error, a broken
template, Ctrl-C) therefore leaves the previous report untouched.

The PDF depends on the TeX installation, so it is not compared byte for byte: the LaTeX
source carries a fingerprint (a SHA-256 of the source and its figures) into the PDF's
metadata, and a PDF is current when it carries the fingerprint of the current source.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from lnsym.checking.catalog import Section
from lnsym.checking.checker import Options
from lnsym.checking.claims import DerivationResult, Result
from lnsym.checking.runner import run, select
from lnsym.checking.verdicts import Verdict
from lnsym.errors import UserInputError
from lnsym.files import staged_outputs
from lnsym.report.document import BUILTIN_NAME
from lnsym.report.figures import FigureSpec, render_figures
from lnsym.report.model import ReportModel
from lnsym.report.pdf import TEX_PACKAGES, PdfBuild, build_pdf, missing_tools
from lnsym.report.render import FINGERPRINT_PLACEHOLDER, render
from lnsym.report.review_model import ReviewModel

#: The report formats, in the order they are built.
FORMATS = ("md", "tex", "pdf")
#: The base name of the built-in catalog's report files.
NAME = BUILTIN_NAME
#: The base name of the source review's files.
REVIEW_NAME = "source-review"
FIGURE_DIR = "figures"
_FIGURE_FORMAT = {"md": "svg", "tex": "pdf", "pdf": "pdf"}
_FINGERPRINT_PREFIX = b"lnsym-fingerprint-"


@dataclass
class Rendered:
    """The report files rendered in memory (relative POSIX path → bytes).

    ``pdf_fingerprints`` maps each PDF that belongs to the output (``layernorm.pdf``,
    ``source-review.pdf``) to the fingerprint of its LaTeX; the PDF itself is in ``files``
    only when it was built. ``overfull`` holds the overfull-line warnings of every PDF,
    each prefixed with its file name.
    """

    files: dict[str, bytes] = field(default_factory=dict)
    pdf_fingerprints: dict[str, str] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    overfull: list[str] = field(default_factory=list)

    def add_pdfs(self, builds: Mapping[str, Callable[[], PdfBuild]]) -> None:
        """Run the PDF builds (name → build) and add each ``name.pdf`` with its overfull
        lines, in the order given. Each is a separate pdflatex process: they run side by
        side."""
        with ThreadPoolExecutor(max_workers=max(1, len(builds))) as pool:
            started = {name: pool.submit(build) for name, build in builds.items()}
            for name, future in started.items():
                result = future.result()
                self.files[f"{name}.pdf"] = result.pdf
                self.overfull.extend(f"{name}.pdf: {line}" for line in result.overfull)


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
    meanwhile: Callable[[], object] | None = None,
) -> dict[str, Result | DerivationResult]:
    """Every claim and derivation of ``sections`` checked, keyed by id, in catalog order
    (``meanwhile``: as for :func:`lnsym.checking.runner.run`)."""
    items = select(list(sections))
    outcomes = run(items, options, jobs=jobs, total_timeout=total_timeout, meanwhile=meanwhile)
    return {item.id: outcome for item, outcome in zip(items, outcomes, strict=True)}


def timed_out(results: dict[str, Result | DerivationResult]) -> list[str]:
    """Ids of the claims (or derivation links) stopped by the wall-clock safety net.

    A report never shows such a verdict: it would depend on the machine's load.
    """
    out = []
    for outcome in results.values():
        steps = outcome.steps if isinstance(outcome, DerivationResult) else (outcome,)
        out += [r.claim.id for r in steps if r.verdict == Verdict.TIMEOUT]
    return out


def fingerprint(tex: str, figures: dict[str, bytes]) -> str:
    """The SHA-256 of a LaTeX source (with the placeholder) and the figures it includes."""
    digest = hashlib.sha256(tex.encode("utf-8"))
    for path in sorted(figures):
        digest.update(b"\0" + path.encode("utf-8") + b"\0" + figures[path])
    return digest.hexdigest()


def figure_formats(formats: Iterable[str]) -> list[str]:
    """The figure formats the report formats ``formats`` embed (SVG for Markdown, PDF for
    LaTeX and its PDF), in a fixed order."""
    return sorted({_FIGURE_FORMAT[f] for f in formats})


def render_report(
    model: ReportModel,
    formats: Iterable[str] = FORMATS,
    *,
    build: bool = True,
    pdf_builder: Callable[[str, dict[str, bytes]], PdfBuild] | None = None,
    review: ReviewModel | None = None,
    reuse: Path | None = None,
) -> Rendered:
    """Render ``model`` (and ``review``, if given) into the files of ``formats``, in memory.

    Args:
        model: the report content.
        formats: a subset of :data:`FORMATS`.
        build: whether to run pdflatex for the PDFs (``False`` only computes their
            fingerprints, which is all :func:`stale_files` needs).
        pdf_builder: compiles LaTeX (default: :func:`~lnsym.report.pdf.build_pdf`).
        review: the source review, rendered as ``source-review.*`` beside the report.
        reuse: a directory whose PDFs are kept instead of rebuilt when they carry the
            fingerprint of the current LaTeX and figures (the PDF is a function of them).

    Raises:
        PdfBuildError: when a PDF is asked for, the tools are there, and the build fails.
    """
    formats = tuple(formats)
    out = Rendered()
    figures: dict[str, dict[str, bytes]] = {fmt: {} for fmt in figure_formats(formats)}
    for spec in _used_figures(model):
        for fmt, data in render_figures(spec, tuple(figures)).items():
            figures[fmt][f"{FIGURE_DIR}/{spec.name}.{fmt}"] = data
    if "md" in formats:
        out.files.update(figures["svg"])
    if "tex" in formats:
        out.files.update(figures["pdf"])

    # (file base name, template, content, figures of its PDF)
    documents: list[tuple[str, str, ReportModel | ReviewModel, dict[str, bytes]]] = [
        (model.name, NAME, model, figures.get("pdf", {}))
    ]
    if review is not None:
        documents.append((REVIEW_NAME, REVIEW_NAME, review, {}))  # the review has no figures
    latex_sources: dict[str, tuple[str, dict[str, bytes]]] = {}
    for name, template, content, pdf_figures in documents:
        if "md" in formats:
            out.files[f"{name}.md"] = render(content, "md", document=template).encode("utf-8")
        if "tex" not in formats and "pdf" not in formats:
            continue
        draft = render(content, "tex", document=template)
        digest = fingerprint(draft, pdf_figures)
        tex = draft.replace(FINGERPRINT_PLACEHOLDER, digest)
        if "tex" in formats:
            out.files[f"{name}.tex"] = tex.encode("utf-8")
        if "pdf" in formats:
            out.pdf_fingerprints[f"{name}.pdf"] = digest
            latex_sources[name] = (tex, pdf_figures)

    if reuse is not None:
        for name in list(latex_sources):
            found = _current_pdf(reuse / f"{name}.pdf", out.pdf_fingerprints[f"{name}.pdf"])
            if found is not None:
                out.files[f"{name}.pdf"] = found
                del latex_sources[name]
    if not latex_sources or not build:
        return out
    missing = missing_tools()
    if missing:
        pdfs = " and ".join(f"{name}.pdf" for name in latex_sources)
        out.notices.append(
            f"{' and '.join(missing)} not found: {pdfs} "
            f"{'was' if len(latex_sources) == 1 else 'were'} not built or updated "
            f"(Debian: apt-get install {' '.join(TEX_PACKAGES)})"
        )
        return out
    builder = pdf_builder or build_pdf
    out.add_pdfs({name: partial(builder, *source) for name, source in latex_sources.items()})
    return out


def _current_pdf(path: Path, digest: str) -> bytes | None:
    """The bytes of the PDF at ``path`` if it was built from the source of ``digest``."""
    try:
        pdf = path.read_bytes()
    except OSError:
        return None
    return pdf if _FINGERPRINT_PREFIX + digest.encode() in pdf else None


def _used_figures(model: ReportModel) -> list[FigureSpec]:
    names = [b.figure.name for c in model.chapters for b in c.blocks if b.kind == "figure"]  # type: ignore[attr-defined]
    names += [f.name for s in model.sections for f in s.figures]
    names += [f.name for f in model.extra_figures]
    by_name = {spec.name: spec for spec in model.figures}
    return [by_name[n] for n in names]


def write_report(rendered: Rendered, out: Path) -> list[Path]:
    """Write every rendered file below ``out``, all or nothing; returns the paths written.

    The files are staged beside their targets and renamed into place only once every one
    is written (:func:`~lnsym.files.staged_outputs`), so an interrupted or failing write
    leaves ``out`` as it was. Figures are renamed first and the documents last, so a reader
    never sees a document whose figures are missing.

    Raises:
        UserInputError: when a target exists and is not a regular file.
        OSError: when the files cannot be written (``out`` is then unchanged).
    """
    order = sorted(rendered.files, key=lambda rel: (not rel.startswith(FIGURE_DIR + "/"), rel))
    with staged_outputs(out) as stage:
        for rel in order:
            stage.write(rel, rendered.files[rel])
    return stage.written


def stale_files(rendered: Rendered, out: Path, formats: Iterable[str] = FORMATS) -> list[str]:
    """What in ``out`` differs from ``rendered``: ``"<path> (<why>)"`` lines, sorted.

    A file is stale when it is missing, differs, or (in ``figures/``) is no longer
    generated; the PDF when it is missing or lacks the current fingerprint. Nothing is
    written.
    """
    problems: list[str] = []
    for rel in sorted(rendered.files):
        if rel in rendered.pdf_fingerprints:
            continue
        path = out / rel
        if not path.is_file():
            problems.append(f"{path} (missing)")
        elif path.read_bytes() != rendered.files[rel]:
            problems.append(f"{path} (differs from what the current code renders)")
    for rel, digest in sorted(rendered.pdf_fingerprints.items()):
        path = out / rel
        if not path.is_file():
            problems.append(f"{path} (missing)")
        elif _current_pdf(path, digest) is None:
            source = rel.removesuffix(".pdf") + ".tex"
            problems.append(f"{path} (built from another version of {source})")
    # Figure files belong to the md (SVG) and tex (PDF) outputs; the PDF embeds its own.
    extensions = {"." + _FIGURE_FORMAT[f] for f in formats if f != "pdf"}
    figure_dir = out / FIGURE_DIR
    if figure_dir.is_dir():
        for path in sorted(figure_dir.iterdir()):
            rel = f"{FIGURE_DIR}/{path.name}"
            if path.suffix in extensions and rel not in rendered.files:
                problems.append(f"{path} (no longer generated)")
    return problems
