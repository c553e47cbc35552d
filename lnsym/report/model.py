"""The report's content as plain, format-neutral data: what the templates lay out.

:func:`build_model` turns checked sections into a :class:`ReportModel`. Every formula in it
is a :class:`Math` string made by the LaTeX printer; everything else is plain Unicode text
that each output format escapes in its own way.

Only content that is identical on every machine goes in; the engines' evidence is made so
by :mod:`lnsym.report.evidence_view` (its :class:`Entry`, :func:`evidence_entries` and
:func:`shorten` are re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from lnsym.checking.catalog import Section
from lnsym.checking.claims import Claim, DerivationResult, Result
from lnsym.printing.printer import (
    Math,
    abbreviations_for,
    latex,
    latex_certificate,
    latex_chain,
    notation,
)
from lnsym.report.appendix import CommonLine, EvidenceLine, common_lines, evidence_lines
from lnsym.report.document import BUILTIN, Document
from lnsym.report.evidence_view import Entry as Entry
from lnsym.report.evidence_view import (
    EvidenceView,
    badge,
    counterexample_entries,
    evidence_views,
)
from lnsym.report.evidence_view import evidence_entries as evidence_entries
from lnsym.report.evidence_view import shorten as shorten
from lnsym.report.figures import FIGURES, FigureSpec
from lnsym.report.narrative import FIGURE_NAMES, build_narrative
from lnsym.report.narrative_blocks import Chapter, MissingItem, Ref
from lnsym.report.tables import GridView, checked_tables, grid_view

#: What each verdict means, in words, for the item headers.
VERDICT_WORDS = {
    "PROVED": "proved for every d",
    "VERIFIED": "verified exactly for the dimensions listed",
    "CONSISTENT": "consistent with numeric samples only",
    "REFUTED": "refuted by an exact counterexample",
    "ERROR": "undecided (error)",
    "TIMEOUT": "undecided (time budget exceeded)",
}
_REQUIRE_WORDS = {
    "PROVED": "a proof",
    "VERIFIED": "an exact check",
    "CONSISTENT": "numeric support",
}


@dataclass(frozen=True)
class FigureView:
    """A placed figure: its number in the report and its caption."""

    number: int
    name: str
    title: str
    caption: str


@dataclass(frozen=True)
class ClaimView:
    """A checked claim as shown in a report."""

    number: str
    id: str
    title: str
    statement: Math
    assumptions: tuple[Math, ...]
    certificate: tuple[Math, ...]
    source: str
    expected: str
    verdict: str
    verdict_words: str
    passed: bool
    reason: str
    evidence: tuple[EvidenceView, ...]
    counterexample: tuple[Entry, ...]
    #: The statement as (left side, relation, right side), for a display that breaks
    #: before the relation when one line is too wide.
    sides: tuple[Math, Math, Math] | None = None
    #: The verdict's strongest evidence in a few words ("all d").
    badge: str = ""
    #: The evidence as the appendix lists it (built-in report only).
    appendix: tuple[EvidenceLine, ...] = ()


@dataclass(frozen=True)
class StepView:
    """One justified link of a derivation with its verdict."""

    number: int
    relation: str
    why: str
    verdict: str
    passed: bool
    reason: str
    certificate: tuple[Math, ...]


@dataclass(frozen=True)
class DerivationView:
    """A checked derivation: the numbered chain and its steps."""

    number: str
    id: str
    title: str
    description: str
    assumptions: tuple[Math, ...]
    chain: Math
    conclusion: Math
    steps: tuple[StepView, ...]
    source: str
    verdict: str
    passed: bool
    badge: str = ""


@dataclass(frozen=True)
class SectionView:
    """One derivation module: introduction, items and figures."""

    number: int
    name: str
    title: str
    paragraphs: tuple[str, ...]
    claims: tuple[ClaimView, ...]
    derivations: tuple[DerivationView, ...]
    figures: tuple[FigureView, ...]
    tables: tuple[GridView, ...] = ()


@dataclass(frozen=True)
class SummaryRow:
    """One row of the summary table."""

    number: str
    id: str
    kind: str
    title: str
    verdict: str
    expected: str
    passed: bool


@dataclass(frozen=True)
class NotationEntry:
    """One line of the notation block."""

    formula: Math
    text: str


@dataclass(frozen=True)
class ReportModel:
    """Everything the templates show.

    ``name`` is the base name of its files; ``builtin`` marks the built-in catalog's report,
    the only one with narrative ``chapters`` before the catalog; a report with chapters
    shows each claim's evidence in an appendix, whose shared lines are ``common``.
    """

    title: str
    sections: tuple[SectionView, ...]
    rows: tuple[SummaryRow, ...]
    notation: tuple[NotationEntry, ...]
    extra_figures: tuple[FigureView, ...]
    engines: tuple[str, ...]
    verdict_counts: tuple[tuple[str, int], ...]
    passed: int
    failed: int
    figures: tuple[FigureSpec, ...] = field(default=FIGURES)
    name: str = BUILTIN.name
    builtin: bool = True
    chapters: tuple[Chapter, ...] = ()
    common: tuple[CommonLine, ...] = ()

    @property
    def total(self) -> int:
        return self.passed + self.failed


# ---------------------------------------------------------------------------------------
# Items


def _expected(claim: Claim) -> str:
    return "a refutation" if claim.expect == "refuted" else _REQUIRE_WORDS[claim.require]


def _sides(statement: Any, short: Any) -> tuple[Math, Math, Math] | None:
    """(lhs, relation, rhs) as LaTeX, read off the printed statement."""
    whole = latex(statement, short)
    left, right = latex(statement.lhs, short), latex(statement.rhs, short)
    if not (whole.startswith(left) and whole.endswith(right)) or len(left) + len(right) >= len(
        whole
    ):
        return None
    return Math(left), Math(whole[len(left) : len(whole) - len(right)].strip()), Math(right)


def claim_view(number: str, result: Result) -> ClaimView:
    """The report view of one checked claim (``number`` like ``"2.3"``)."""
    claim = result.claim
    short = abbreviations_for(claim.statement, *claim.assumptions)
    certificate = getattr(claim.statement, "certificate", ())
    views = evidence_views(result.evidence)
    return ClaimView(
        number=number,
        id=claim.id,
        title=claim.title or claim.id,
        statement=Math(latex(claim.statement, short)),
        sides=_sides(claim.statement, short),
        assumptions=tuple(Math(latex(a, short)) for a in claim.assumptions),
        certificate=tuple(Math(t) for t in latex_certificate(certificate, short)),
        source=claim.source or "",
        expected=_expected(claim),
        verdict=result.verdict,
        verdict_words=VERDICT_WORDS.get(result.verdict, result.verdict),
        passed=result.passed,
        reason=shorten(result.reason),
        evidence=views,
        counterexample=counterexample_entries(result.counterexample),
        badge=badge(result.verdict, result.evidence, result.counterexample),
        appendix=evidence_lines(views, ()),
    )


def derivation_view(number: str, result: DerivationResult) -> DerivationView:
    """The report view of one checked derivation."""
    deriv = result.derivation
    certificates = [t for step in deriv.steps for t in step.certificate]
    short = abbreviations_for(
        deriv.start, *(s.expr for s in deriv.steps), *certificates, *deriv.assumptions
    )
    steps = tuple(
        StepView(
            number=i,
            relation=step.relation,
            why=step.why,
            verdict=r.verdict,
            passed=r.passed,
            reason="" if r.passed else shorten(r.reason),
            certificate=tuple(Math(t) for t in latex_certificate(step.certificate, short)),
        )
        for i, (step, r) in enumerate(zip(deriv.steps, result.steps, strict=True), 1)
    )
    return DerivationView(
        number=number,
        id=deriv.id,
        title=deriv.title,
        description=deriv.description,
        assumptions=tuple(Math(latex(a, short)) for a in deriv.assumptions),
        chain=Math(latex_chain(deriv.start, [(s.relation, s.expr) for s in deriv.steps], short)),
        conclusion=Math(latex(deriv.conclusion(), short)),
        steps=steps,
        source=deriv.source or "",
        verdict=result.verdict,
        passed=result.passed,
        badge=_steps_badge(result),
    )


def _steps_badge(result: DerivationResult) -> str:
    proved = sum(r.verdict == "PROVED" for r in result.steps)
    if proved == len(result.steps):
        return "every step proved for all d"
    return f"{proved} of {len(result.steps)} steps proved"


def paragraphs(text: str) -> tuple[str, ...]:
    """Blank-line separated paragraphs of a docstring, each joined into one line.

    >>> paragraphs("One\\ntwo.\\n\\nThree.")
    ('One two.', 'Three.')
    """
    blocks = re.split(r"\n\s*\n", text.strip())
    return tuple(" ".join(b.split()) for b in blocks if b.strip())


def build_model(
    sections: Sequence[Section],
    results: Mapping[str, Result | DerivationResult],
    document: Document = BUILTIN,
) -> ReportModel:
    """The report for ``sections`` from the checked ``results`` (keyed by item id).

    ``document`` gives the title, file name and figures
    (:func:`~lnsym.report.document.document_for`). A figure goes into the first section
    that holds one of its ``near`` ids, else into the section whose module lists it in
    ``FIGURES``, else into a closing section; the built-in report's narrative keeps its own
    figures (:data:`~lnsym.report.narrative.FIGURE_NAMES`), numbered first. The narrative
    is left out when the sections lack an item it cites. A module's ``TABLES`` become
    verdict grids in its section.

    Raises:
        KeyError: when an item of a section has no result.
        UserInputError: when a module's ``TABLES`` holds something that is not a TableSpec.
    """
    figure_number = 0
    narrative_figures: dict[str, FigureView] = {}
    placed: dict[str, list[FigureSpec]] = {}
    extra: list[FigureSpec] = []
    for spec in document.figures:
        if document.builtin and spec.name in FIGURE_NAMES:
            figure_number += 1
            narrative_figures[spec.name] = _figure_view(figure_number, spec)
            continue
        home = next(
            (s.name for s in sections if any(i.id in spec.near for i in s.items)),
            next((s.name for s in sections if spec in s.figures), None),
        )
        (placed.setdefault(home, []) if home else extra).append(spec)

    views: list[SectionView] = []
    rows: list[SummaryRow] = []
    for n, section in enumerate(sections, 1):
        claims: list[ClaimView] = []
        derivations: list[DerivationView] = []
        k = 0
        for claim in section.claims:
            k += 1
            view = claim_view(f"{n}.{k}", results[claim.id])  # type: ignore[arg-type]
            claims.append(view)
            rows.append(
                SummaryRow(view.number, view.id, "claim", view.title, view.verdict,
                           view.expected, view.passed)
            )  # fmt: skip
        for deriv in section.derivations:
            k += 1
            dview = derivation_view(f"{n}.{k}", results[deriv.id])  # type: ignore[arg-type]
            derivations.append(dview)
            rows.append(
                SummaryRow(dview.number, dview.id, "derivation", dview.title, dview.verdict,
                           "every step", dview.passed)
            )  # fmt: skip
        section_figures = []
        for spec in placed.get(section.name, []):
            figure_number += 1
            section_figures.append(_figure_view(figure_number, spec))
        views.append(
            SectionView(
                n, section.name, section.title, paragraphs(section.description),
                tuple(claims), tuple(derivations), tuple(section_figures),
            )
        )  # fmt: skip
    extra_views = []
    for spec in extra:
        figure_number += 1
        extra_views.append(_figure_view(figure_number, spec))

    refs = _refs(views)
    views = [
        replace(view, tables=tuple(
            grid_view(spec, refs) for spec in checked_tables(section.tables, str(section.path))
        ))
        for view, section in zip(views, sections, strict=True)
    ]  # fmt: skip
    chapters: tuple[Chapter, ...] = ()
    common: tuple[CommonLine, ...] = ()
    if document.builtin:
        try:
            chapters = build_narrative(refs, narrative_figures)
        except MissingItem:  # a part of the catalog only (tests): no narrative to link
            extra_views = [*narrative_figures.values(), *extra_views]
    if chapters:
        common = common_lines(c.evidence for v in views for c in v.claims)
        views = [
            replace(v, claims=tuple(
                replace(c, appendix=evidence_lines(c.evidence, common)) for c in v.claims
            ))
            for v in views
        ]  # fmt: skip

    engines = sorted(
        {
            e.engine
            for r in results.values()
            for step in (r.steps if isinstance(r, DerivationResult) else (r,))
            for e in step.evidence
        }
    )
    counts: dict[str, int] = {}
    for row in rows:
        counts[row.verdict] = counts.get(row.verdict, 0) + 1
    passed = sum(row.passed for row in rows)
    return ReportModel(
        title=document.title,
        sections=tuple(views),
        rows=tuple(rows),
        notation=tuple(NotationEntry(Math(f), t) for f, t in notation()),
        extra_figures=tuple(extra_views),
        engines=tuple(engines),
        verdict_counts=tuple((v, counts[v]) for v in VERDICT_WORDS if v in counts),
        passed=passed,
        failed=len(rows) - passed,
        figures=document.figures,
        name=document.name,
        builtin=document.builtin,
        chapters=chapters,
        common=common,
    )


def _figure_view(number: int, spec: FigureSpec) -> FigureView:
    return FigureView(number, spec.name, spec.title, spec.caption)


def _refs(sections: Sequence[SectionView]) -> dict[str, Ref]:
    """Every item of ``sections`` by id, as a link with its number and verdict."""
    refs = {}
    for s in sections:
        for c in s.claims:
            refs[c.id] = Ref("Claim", c.number, c.id, c.title, c.verdict, c.passed, c.statement)
        for dv in s.derivations:
            refs[dv.id] = Ref(
                "Derivation", dv.number, dv.id, dv.title, dv.verdict, dv.passed, dv.conclusion
            )
    return refs
