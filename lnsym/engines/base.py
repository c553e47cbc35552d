"""What every engine shares: the evidence it returns and what it checks.

An engine checks anything with a ``statement`` (an IR relation) and ``assumptions`` — a
:class:`Checkable`; :class:`lnsym.checking.claims.Claim` is one. Engines know nothing of
claims, verdicts or scheduling: :mod:`lnsym.checking` owns those.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol, TypeAlias

import sympy

from lnsym import ir

#: An exact value: one SymPy number for a scalar, a tuple of d of them for a vector.
ExactValue: TypeAlias = sympy.Expr | tuple[sympy.Expr, ...]


class Checkable(Protocol):
    """A statement with its assumptions: what an engine checks."""

    @property
    def statement(self) -> ir.Relation: ...

    @property
    def assumptions(self) -> tuple[ir.Assumption, ...]: ...


class Outcome(StrEnum):
    """What one engine concluded about a statement (a string enum: JSON shows the words)."""

    PROVED = "proved"  # for every d (general engine, lemma schema)
    NOT_PROVED = "not proved"  # no proof found; says nothing against the claim
    HOLDS = "holds"  # exactly, at the dimensions listed
    CONSISTENT = "consistent"  # no violation among the points tried
    COUNTEREXAMPLE = "counterexample"  # a violating point (exact, or a numeric sample)
    ERROR = "error"  # the engine could not check the statement
    TIMEOUT = "timeout"  # the wall-clock safety net stopped it


@dataclass(frozen=True)
class Statement:
    """A bare :class:`Checkable`: a statement and its assumptions, no claim around them
    (e.g. one entry of a matrix statement, checked on its own)."""

    statement: ir.Relation
    assumptions: tuple[ir.Assumption, ...] = ()


@dataclass(frozen=True)
class Counterexample:
    """An exact point where a statement fails, with both sides' exact values there.

    The values are SymPy numbers — rationals for the point, algebraic numbers such as
    4√5/25 for the sides. Engines make no text of them: :mod:`lnsym.printing.evidence`
    writes the sentences, the JSON record and the LaTeX.
    """

    d: int
    vectors: Mapping[str, tuple[sympy.Expr, ...]]  # atom name → its d entries
    scalars: Mapping[str, sympy.Expr]  # symbol name → its value
    lhs: ExactValue
    rhs: ExactValue
    relation: Literal["eq", "le"]  # the statement violated: lhs = rhs, or lhs ≤ rhs
    #: For a matrix statement: the sizes (n, d, m by name) and the 1-based index of the
    #: entry that differs; the point's matrix entries are scalars named X11, X12, ….
    sizes: Mapping[str, int] = field(default_factory=dict)
    entry: tuple[int, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """What one engine concluded about a claim, and at what cost.

    ``detail`` must read the same on every machine (reports quote it): counts, ranges,
    tolerances only. Measurements — timings, floating-point errors — belong in ``data``
    (and ``seconds``), which ``lnsym verify --json`` shows in full. An exact violating point
    is ``counterexample``, with exact values (not text).
    """

    engine: str
    outcome: Outcome
    detail: str
    seconds: float
    data: dict[str, Any] = field(default_factory=dict, compare=False)
    counterexample: Counterexample | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "outcome", Outcome(self.outcome))  # refuses unknown words
