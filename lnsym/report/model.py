"""The report's content as plain, format-neutral data: what the templates lay out.

:func:`build_model` turns checked sections into a :class:`ReportModel`. Every formula in it
is a :class:`Math` string made by the LaTeX printer; everything else is plain Unicode text
that each output format escapes in its own way.

Only content that is identical on every machine goes in. No timings: keys such as
``seconds`` or ``elapsed_time`` are dropped. Of the evidence data only exact values,
counts, strings and tolerances remain: a float is taken for a measurement (and left out)
unless its key names a tolerance. An engine that reports a measurement usually quotes it in
its ``detail`` text as well, so that text is left out for it, as it is for a timeout (which
states how long it ran). Engines that want their detail shown keep it free of measurements.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import sympy

from lnsym import ir
from lnsym.checking.catalog import Section
from lnsym.checking.claims import Claim, DerivationResult, Evidence, Result
from lnsym.engines.base import Counterexample
from lnsym.errors import UserInputError
from lnsym.parse import parse_number
from lnsym.printing.evidence import value_decimal, value_latex
from lnsym.printing.printer import (
    Math,
    abbreviations_for,
    latex,
    latex_certificate,
    latex_chain,
    latex_value,
    notation,
)
from lnsym.report.figures import FIGURES, FigureSpec

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
# Evidence data that describes a run rather than the mathematics: never shown.
_VOLATILE_KEY = re.compile(r"(^|_)(seconds|time|times|elapsed|duration|wall|cpu|cost)($|_)")
_TOLERANCE_KEY = re.compile(r"tol")
# Keys already shown elsewhere: the counterexample block, and the general engine's residual
# (LaTeX source in data; the detail line states it in words).
_SHOWN_ELSEWHERE = {"counterexample", "exact", "residual"}
#: Engine details longer than this are cut (a residual can run to pages); the full text is
#: in ``lnsym verify --json``.
MAX_DETAIL = 300
_SYMBOL_KEYS = {"eps": ir.eps, "epsilon": ir.eps, "d": ir.d}
_NAME = re.compile(r"(?:[A-Za-z]|alpha|beta|gamma|delta|lambda|mu|sigma|theta)\Z")


@dataclass(frozen=True)
class Entry:
    """One line of evidence: ``label: value`` or ``label: $name = value$``.

    ``label`` is text (possibly empty); ``label_math`` names a variable; the value is
    ``math`` when exact, else ``text``.
    """

    label: str = ""
    label_math: Math | None = None
    text: str = ""
    math: Math | None = None


@dataclass(frozen=True)
class EvidenceView:
    """What one engine concluded, as shown in a report."""

    engine: str
    outcome: str
    detail: str


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
    """Everything the templates show."""

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

    @property
    def total(self) -> int:
        return self.passed + self.failed


# ---------------------------------------------------------------------------------------
# Evidence values


def _entry_value(value: Any) -> tuple[str, Math | None]:
    """(text, math) for one evidence value; exactly one of them is set."""
    if isinstance(value, bool):
        return ("yes" if value else "no"), None
    if isinstance(value, str):
        return value, None
    if isinstance(value, int):
        return str(value), None  # a count reads best as plain text
    if isinstance(value, float):
        return f"{value:g}", None
    try:
        return "", Math(latex_value(value))
    except TypeError:
        pass
    if isinstance(value, list | tuple):
        return ", ".join(_entry_value(v)[0] or str(v) for v in value), None
    return str(value), None


def _label(key: str, value: Any) -> tuple[str, Math | None]:
    """A math label (𝐳, ε, d) for keys that name a variable, else readable text."""
    if key in _SYMBOL_KEYS:
        return "", Math(latex(_SYMBOL_KEYS[key]))
    if _NAME.match(key):
        if isinstance(value, list | tuple):
            return "", Math(latex(ir.VectorAtom(key)))
        return "", Math(latex(sympy.Symbol(key)))
    return key.replace("_", " "), None


def _has_float(value: Any) -> bool:
    if isinstance(value, float):
        return True
    if isinstance(value, Mapping):
        return any(_has_float(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_float(v) for v in value)
    return False


def _keep(key: str, value: Any) -> bool:
    if _VOLATILE_KEY.search(key) or key in _SHOWN_ELSEWHERE or value is None:
        return False
    # Floats are measurements (machine-dependent) unless the key names a tolerance; a
    # mapping is kept for its float-free entries.
    if isinstance(value, Mapping) or _TOLERANCE_KEY.search(key):
        return True
    return not _has_float(value)


def _exact(value: Any) -> Any:
    """Numbers written as text ("1/3", ["1", "-2"]) as exact Fractions; else unchanged."""
    try:
        if isinstance(value, str):
            return parse_number(value)
        if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
            return [parse_number(v) for v in value]
    except UserInputError:
        pass
    return value


def evidence_entries(data: Mapping[str, Any], prefix: str = "") -> tuple[Entry, ...]:
    """The machine-independent part of an evidence record's data, in insertion order.

    Nested mappings are flattened into ``outer inner`` labels. Keys naming a variable
    (``d``, ``z``, ``epsilon``) become math labels, and their values exact numbers where
    the text is one. A key ``<name>_latex`` holds LaTeX made by an lnsym engine for
    ``<name>``, which it replaces.

    >>> [e.text for e in evidence_entries({"samples": "200", "max_error": 1e-16, "rtol": 1e-9})]
    ['200', '1e-09']
    >>> [entry] = evidence_entries({"vectors": {"z": ["1", "1/2"]}})
    >>> print(entry.label_math, "=", entry.math)
    \\mathbf{z} = \\left( 1, \\frac{1}{2} \\right)
    """
    out: list[Entry] = []
    for key, value in data.items():
        key = str(key)
        if not _keep(key, value) or f"{key}_latex" in data:
            continue
        if isinstance(value, Mapping):
            out.extend(evidence_entries(value, f"{prefix}{key.replace('_', ' ')} "))
            continue
        if key.endswith("_latex") and key[: -len("_latex")] in data and isinstance(value, str):
            label = prefix + key[: -len("_latex")].replace("_", " ")
            out.append(Entry(label, None, "", Math(value)))
            continue
        label, label_math = _label(key, value)
        if label_math is None:
            label = prefix + label
        else:
            label, value = prefix.strip(), _exact(value)
        text, math = _entry_value(value)
        out.append(Entry(label, label_math, text, math))
    return tuple(out)


def shorten(text: str, limit: int = MAX_DETAIL) -> str:
    """``text`` cut to about ``limit`` characters at a space, marked when cut.

    >>> shorten("a b c d", 4)
    'a b … (cut; the full text is in lnsym verify --json)'
    """
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", 0, limit)
    kept = text[: cut if cut > 0 else limit].rstrip()
    return kept + " … (cut; the full text is in lnsym verify --json)"


def _evidence(evidence: Sequence[Evidence]) -> tuple[EvidenceView, ...]:
    # Engines keep their detail line free of measurements (see lnsym.checking.claims.Evidence), so
    # it is what the report shows; the raw data (timings, worst errors, per-d methods)
    # stays in lnsym verify --json. A timeout's detail quotes how long it ran: left out.
    return tuple(
        EvidenceView(e.engine, e.outcome, "" if e.outcome == "timeout" else shorten(e.detail))
        for e in evidence
    )


def _counterexample(found: Counterexample | None) -> tuple[Entry, ...]:
    """The point as plain assignments (z = (0, 1); ε = 1), then both sides exactly and in
    decimals."""
    if found is None:
        return ()
    entries = [Entry("", Math(latex(ir.d)), str(found.d))]
    entries += [
        Entry("", Math(latex(ir.VectorAtom(a))), math=Math(latex_value([_fraction(x) for x in v])))
        for a, v in found.vectors.items()
    ]
    entries += [
        Entry("", Math(latex(sympy.Symbol(s))), math=Math(latex_value(_fraction(v))))
        for s, v in found.scalars.items()
    ]
    sides = {"lhs": found.lhs, "rhs": found.rhs}
    entries += [Entry(side, math=Math(value_latex(v))) for side, v in sides.items()]
    entries += [Entry(f"{side} decimal", text=value_decimal(v)) for side, v in sides.items()]
    return tuple(entries)


def _fraction(x: sympy.Expr) -> Fraction:
    assert isinstance(x, sympy.Rational)  # a counterexample's point is rational
    return Fraction(int(x.p), int(x.q))


# ---------------------------------------------------------------------------------------
# Items


def _expected(claim: Claim) -> str:
    return "a refutation" if claim.expect == "refuted" else _REQUIRE_WORDS[claim.require]


def claim_view(number: str, result: Result) -> ClaimView:
    """The report view of one checked claim (``number`` like ``"2.3"``)."""
    claim = result.claim
    short = abbreviations_for(claim.statement, *claim.assumptions)
    certificate = getattr(claim.statement, "certificate", ())
    return ClaimView(
        number=number,
        id=claim.id,
        title=claim.title or claim.id,
        statement=Math(latex(claim.statement, short)),
        assumptions=tuple(Math(latex(a, short)) for a in claim.assumptions),
        certificate=tuple(Math(t) for t in latex_certificate(certificate, short)),
        source=claim.source or "",
        expected=_expected(claim),
        verdict=result.verdict,
        verdict_words=VERDICT_WORDS.get(result.verdict, result.verdict),
        passed=result.passed,
        reason=shorten(result.reason),
        evidence=_evidence(result.evidence),
        counterexample=_counterexample(result.counterexample),
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
    )


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
    title: str = "Layer normalization: derivations and checks",
    figures: Sequence[FigureSpec] = FIGURES,
) -> ReportModel:
    """The report for ``sections`` from the checked ``results`` (keyed by item id).

    Figures go into the first section that holds one of their ``near`` ids, the rest into
    a closing section.

    Raises:
        KeyError: when an item of a section has no result.
    """
    placed: dict[str, list[FigureSpec]] = {}
    extra: list[FigureSpec] = []
    for spec in figures:
        home = next(
            (s.name for s in sections if any(i.id in spec.near for i in s.items)),
            None,
        )
        (placed.setdefault(home, []) if home else extra).append(spec)

    figure_number = 0
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
            section_figures.append(FigureView(figure_number, spec.name, spec.title, spec.caption))
        views.append(
            SectionView(
                n, section.name, section.title, paragraphs(section.description),
                tuple(claims), tuple(derivations), tuple(section_figures),
            )
        )  # fmt: skip
    extra_views = []
    for spec in extra:
        figure_number += 1
        extra_views.append(FigureView(figure_number, spec.name, spec.title, spec.caption))

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
        title=title,
        sections=tuple(views),
        rows=tuple(rows),
        notation=tuple(NotationEntry(Math(f), t) for f, t in notation()),
        extra_figures=tuple(extra_views),
        engines=tuple(engines),
        verdict_counts=tuple((v, counts[v]) for v in VERDICT_WORDS if v in counts),
        passed=passed,
        failed=len(rows) - passed,
        figures=tuple(figures),
    )
