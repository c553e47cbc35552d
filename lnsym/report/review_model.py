"""The source review as format-neutral data: the review's content checked against this run.

:func:`build_review` takes the checked catalog (a :class:`~lnsym.report.model.ReportModel`,
the same one the layernorm report shows) and the content of :mod:`lnsym.report.review`, and
returns a :class:`ReviewModel` for the templates:

- every claim id the content cites, with the verdict and the evidence it got in this run;
- every worked example recomputed exactly with :func:`lnsym.exact.examples.worked_example`
  (through the IR engines), next to the number the source prints, marked ``agrees`` or
  ``differs`` by an exact comparison (:mod:`lnsym.report.review_examples`, whose marks are
  re-exported here);
- every missing display, typeset by the report's printer or filled with exact values;
- for the wrong formulas of the notes, the counterexample the engines found in this run.

Formulas are :class:`~lnsym.report.model.Math` made by the printers; all other text is plain
Unicode that each format escapes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from lnsym.printing.printer import latex
from lnsym.report.evidence_view import Entry
from lnsym.report.model import ClaimView, DerivationView, Math, ReportModel
from lnsym.report.review import (
    SOURCES,
    Correction,
    Display,
    Paragraph,
    Source,
    Statement,
    cited_ids,
)
from lnsym.report.review_examples import AGREES as AGREES
from lnsym.report.review_examples import DIFFERS as DIFFERS
from lnsym.report.review_examples import RECONSTRUCTED as RECONSTRUCTED
from lnsym.report.review_examples import ExampleView, ValueView, example_view

#: The title of the review document.
TITLE = "Source review: the layer-normalization article and the backpropagation notes"


@dataclass(frozen=True)
class ClaimRef:
    """A catalog item cited by the review, with what this run found.

    ``number`` is the item's number in the layernorm report; ``evidence`` summarizes the
    engines' outcomes.
    """

    id: str
    number: str
    title: str
    statement: Math
    verdict: str
    passed: bool
    refutation_expected: bool
    evidence: str

    @property
    def outcome(self) -> str:
        """The verdict as a reader should take it: ``PROVED``, ``REFUTED (as expected)``…"""
        if not self.passed:
            return f"{self.verdict} — FAILS"
        return f"{self.verdict} (as expected)" if self.refutation_expected else self.verdict


#: What the run found about a source's statement.
CONFIRMED, WRONG, UNCHECKED, PROBLEM = "confirmed", "wrong", "unchecked", "problem"


@dataclass(frozen=True)
class StatementView:
    """A restated statement, the items that check it, and the finding.

    ``status`` is one of :data:`CONFIRMED`, :data:`WRONG` (the source is wrong and the run
    shows it), :data:`UNCHECKED` (nothing mathematical to check) and :data:`PROBLEM` (an
    item lacks its expected verdict or an example value differs).
    """

    text: str
    claims: tuple[ClaimRef, ...]
    finding: str
    status: str

    @property
    def ok(self) -> bool:
        return self.status != PROBLEM


@dataclass(frozen=True)
class DisplayView:
    """A missing display, reconstructed; ``number`` counts the displays of the whole review."""

    number: int
    where: str
    cue: str
    what: str
    formulas: tuple[Math, ...]
    example: ExampleView | None
    claims: tuple[ClaimRef, ...]
    note: str

    @property
    def ok(self) -> bool:
        """Every citing claim is PROVED."""
        return bool(self.claims) and all(c.verdict == "PROVED" for c in self.claims)


@dataclass(frozen=True)
class CorrectionView:
    """A wrong formula of the notes: the refutation from this run and the right formulas."""

    wrong: ClaimRef
    point: tuple[Entry, ...]
    lhs_words: str
    lhs: Entry | None
    rhs_words: str
    rhs: Entry | None
    correct: tuple[ClaimRef, ...]
    readings: tuple[ClaimRef, ...]


@dataclass(frozen=True)
class ParagraphView:
    """A reviewed paragraph or step."""

    label: str
    topic: str
    summary: str
    statements: tuple[StatementView, ...]
    examples: tuple[ExampleView, ...]
    displays: tuple[DisplayView, ...]
    correction: CorrectionView | None
    shown: tuple[ClaimRef, ...]

    @property
    def heading(self) -> str:
        return f"{self.label} — {self.topic}"


@dataclass(frozen=True)
class SourceView:
    """A reviewed source document."""

    number: int
    key: str
    title: str
    file: str
    about: str
    paragraphs: tuple[ParagraphView, ...]


@dataclass(frozen=True)
class ReviewModel:
    """Everything the review templates show."""

    title: str
    sources: tuple[SourceView, ...]
    displays: tuple[DisplayView, ...]
    claims: tuple[ClaimRef, ...]
    engines: tuple[str, ...]

    @property
    def statements(self) -> list[StatementView]:
        return [s for src in self.sources for p in src.paragraphs for s in p.statements]

    @property
    def values(self) -> list[ValueView]:
        return [
            v for src in self.sources for p in src.paragraphs for e in p.examples for v in e.values
        ]

    def count(self, mark: str) -> int:
        """How many compared values carry ``mark``."""
        return sum(1 for v in self.values if v.mark == mark)

    def with_status(self, status: str) -> int:
        """How many statements have ``status``."""
        return sum(1 for s in self.statements if s.status == status)

    @property
    def failed(self) -> int:
        """Cited items without their expected verdict, plus values that differ."""
        return len(self.problems)

    @property
    def problems(self) -> list[str]:
        """One line per cited item without its expected verdict and per differing value."""
        lines = [f"{c.id} is {c.verdict}" for c in self.claims if not c.passed]
        for source in self.sources:
            for p in source.paragraphs:
                lines += [
                    f"{p.label}: {v.article_text} differs from lnsym's value"
                    for e in p.examples
                    for v in e.values
                    if v.mark == DIFFERS
                ]
        return lines


# ---------------------------------------------------------------------------------------
# Claims


def _evidence(view: ClaimView | DerivationView) -> str:
    if isinstance(view, DerivationView):
        verdicts = sorted({step.verdict for step in view.steps})
        return f"{len(view.steps)} steps, each {' or '.join(verdicts)}"
    return "; ".join(f"{e.engine}: {e.outcome}" for e in view.evidence)


def _claim_index(report: ReportModel) -> dict[str, ClaimRef]:
    index: dict[str, ClaimRef] = {}
    for section in report.sections:
        for claim in section.claims:
            index[claim.id] = ClaimRef(
                claim.id, claim.number, claim.title, claim.statement, claim.verdict,
                claim.passed, claim.expected == "a refutation", _evidence(claim),
            )  # fmt: skip
        for deriv in section.derivations:
            index[deriv.id] = ClaimRef(
                deriv.id, deriv.number, deriv.title, deriv.conclusion, deriv.verdict,
                deriv.passed, False, _evidence(deriv),
            )  # fmt: skip
    return index


def _counterexamples(report: ReportModel) -> dict[str, tuple[Entry, ...]]:
    return {c.id: c.counterexample for s in report.sections for c in s.claims}


# ---------------------------------------------------------------------------------------
# Statements, displays, corrections


def _finding(
    statement: Statement, claims: Sequence[ClaimRef], examples: Sequence[ExampleView]
) -> tuple[str, str]:
    """What the run says about a statement, in a few words, and its status."""
    note = f" — {statement.note}" if statement.note else ""
    failing = [c for c in claims if not c.passed]
    if failing:
        return "FAILS: " + ", ".join(f"{c.id} is {c.verdict}" for c in failing), PROBLEM
    if statement.wrong:
        return "wrong as written (corrected below)" + note, WRONG
    if statement.by_example and any(v.mark == DIFFERS for e in examples for v in e.values):
        return "lnsym's example values differ" + note, PROBLEM
    if claims and statement.by_example:
        return "confirmed, and the example agrees" + note, CONFIRMED
    if claims:
        return "confirmed" + note, CONFIRMED
    if statement.by_example:
        return "the example agrees" + note, CONFIRMED
    return "not checked" + note, UNCHECKED


def _display_view(
    number: int, where: str, display: Display, claims: Mapping[str, ClaimRef]
) -> DisplayView:
    return DisplayView(
        number=number,
        where=where,
        cue=display.cue,
        what=display.what,
        formulas=tuple(Math(latex(f, display.abbreviations)) for f in display.formulas),
        example=None if display.example is None else example_view(display.example),
        claims=tuple(claims[i] for i in display.claims),
        note=display.note,
    )


def _correction_view(
    correction: Correction,
    claims: Mapping[str, ClaimRef],
    counterexamples: Mapping[str, tuple[Entry, ...]],
) -> CorrectionView:
    entries = counterexamples.get(correction.wrong, ())
    sides = {e.label: e for e in entries if e.label in ("lhs", "rhs")}
    # The decimals repeat the exact sides; the point is what a reader recomputes.
    point = tuple(e for e in entries if e.label not in ("lhs", "rhs") and "decimal" not in e.label)
    return CorrectionView(
        wrong=claims[correction.wrong],
        point=point,
        lhs_words=correction.lhs,
        lhs=sides.get("lhs"),
        rhs_words=correction.rhs,
        rhs=sides.get("rhs"),
        correct=tuple(claims[i] for i in correction.correct),
        readings=tuple(claims[i] for i in correction.readings),
    )


def _paragraph_view(
    paragraph: Paragraph,
    claims: Mapping[str, ClaimRef],
    counterexamples: Mapping[str, tuple[Entry, ...]],
    first_display: int,
) -> ParagraphView:
    examples = tuple(example_view(e) for e in paragraph.examples)
    statements = []
    for statement in paragraph.statements:
        refs = tuple(claims[i] for i in statement.claims)
        finding, status = _finding(statement, refs, examples)
        statements.append(StatementView(statement.text, refs, finding, status))
    displays = tuple(
        _display_view(first_display + k, paragraph.label, display, claims)
        for k, display in enumerate(paragraph.displays)
    )
    correction = (
        None
        if paragraph.correction is None
        else _correction_view(paragraph.correction, claims, counterexamples)
    )
    return ParagraphView(
        paragraph.label, paragraph.topic, paragraph.summary, tuple(statements), examples,
        displays, correction, tuple(claims[i] for i in paragraph.shown),
    )  # fmt: skip


def build_review(report: ReportModel, sources: tuple[Source, ...] = SOURCES) -> ReviewModel | None:
    """The source review, checked against the catalog results in ``report``.

    Args:
        report: the checked catalog, as for the layernorm report.
        sources: the reviewed content (default: :data:`lnsym.report.review.SOURCES`).

    Returns:
        The review, or None when the catalog lacks an item the review cites (a report of
        the user's own derivation modules has no source review).

    Raises:
        UserInputError, CrossCheckError: when a worked example of the content cannot be
            computed (a mistake in the content or a bug in lnsym).
    """
    claims = _claim_index(report)
    cited = cited_ids(sources)
    if any(i not in claims for i in cited):
        return None
    counterexamples = _counterexamples(report)
    views: list[SourceView] = []
    displays: list[DisplayView] = []
    for number, source in enumerate(sources, 1):
        paragraphs = []
        for paragraph in source.paragraphs:
            view = _paragraph_view(paragraph, claims, counterexamples, len(displays) + 1)
            displays.extend(view.displays)
            paragraphs.append(view)
        views.append(
            SourceView(number, source.key, source.title, source.file, source.about,
                       tuple(paragraphs))
        )  # fmt: skip
    order = [row.id for row in report.rows if row.id in set(cited)]
    return ReviewModel(
        title=TITLE,
        sources=tuple(views),
        displays=tuple(displays),
        claims=tuple(claims[i] for i in order),
        engines=report.engines,
    )
