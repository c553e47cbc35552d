"""What every engine shares: the evidence it returns and what it checks.

An engine checks anything with a ``statement`` (an IR relation) and ``assumptions`` — a
:class:`Checkable`; :class:`lnsym.checking.claims.Claim` is one. Engines know nothing of
claims, verdicts or scheduling: :mod:`lnsym.checking` owns those.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from lnsym.ir import nodes as ir


class Checkable(Protocol):
    """A statement with its assumptions: what an engine checks."""

    @property
    def statement(self) -> ir.Relation: ...

    @property
    def assumptions(self) -> tuple[ir.Assumption, ...]: ...


@dataclass(frozen=True)
class Evidence:
    """What one engine concluded about a claim, and at what cost.

    ``detail`` must read the same on every machine (reports quote it): counts, ranges,
    tolerances and exact values only. Measurements — timings, floating-point errors —
    belong in ``data`` (and ``seconds``), which ``lnsym verify --json`` shows in full.
    """

    engine: str
    outcome: str
    detail: str
    seconds: float
    data: dict[str, Any] = field(default_factory=dict, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "outcome": self.outcome,
            "detail": self.detail,
            "seconds": round(self.seconds, 6),
            **self.data,
        }
