"""The evidence appendix of the built-in report: every engine's conclusion, said once.

Many claims get the same evidence line from an engine (the same sampling, the same exact
method). Such a line — one that recurs at least :data:`COMMON` times — is given a short
label (G1, C1, N1, … by engine) and stated once at the head of the appendix; each claim
then lists its engines with the label or, for a line of its own, the line itself.

>>> from lnsym.report.evidence_view import EvidenceView
>>> views = [(EvidenceView("numeric", "consistent", "200 samples"),)] * 3
>>> [(c.label, c.count) for c in common_lines(views)]
[('N1', 3)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lnsym.report.evidence_view import EvidenceView

#: How often a line must recur to be stated once at the head of the appendix.
COMMON = 3


@dataclass(frozen=True)
class CommonLine:
    """An evidence line shared by several claims, with its label."""

    label: str
    engine: str
    outcome: str
    detail: str
    count: int


@dataclass(frozen=True)
class EvidenceLine:
    """One engine's conclusion about one claim; ``label`` names a common line (else empty)."""

    engine: str
    outcome: str
    detail: str
    label: str


def common_lines(evidence: Iterable[Sequence[EvidenceView]]) -> tuple[CommonLine, ...]:
    """The lines that recur at least :data:`COMMON` times, most frequent first per engine."""
    counts = Counter(
        (e.engine, e.outcome, e.detail) for views in evidence for e in views if e.detail
    )
    frequent = sorted(
        (key for key, n in counts.items() if n >= COMMON),
        key=lambda key: (key[0], -counts[key], key[1], key[2]),
    )
    out, numbers = [], Counter[str]()
    for engine, outcome, detail in frequent:
        numbers[engine] += 1
        label = f"{engine[0].upper()}{numbers[engine]}"
        out.append(CommonLine(label, engine, outcome, detail, counts[engine, outcome, detail]))
    return tuple(out)


def evidence_lines(
    views: Sequence[EvidenceView], common: Sequence[CommonLine]
) -> tuple[EvidenceLine, ...]:
    """``views`` with the label of the common line each one repeats, if any."""
    labels = {(c.engine, c.outcome, c.detail): c.label for c in common}
    return tuple(
        EvidenceLine(e.engine, e.outcome, e.detail, labels.get((e.engine, e.outcome, e.detail), ""))
        for e in views
    )
