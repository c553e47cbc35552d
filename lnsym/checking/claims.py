"""Claims and the results of checking them: what is claimed, and what the engines found.

A :class:`Claim` is a statement (an :class:`~lnsym.ir.nodes.Eq` or :class:`~lnsym.ir.nodes.Le`) with
assumptions and an expectation. :func:`lnsym.checking.checker.check` runs the engines and returns a
:class:`Result` whose verdict (:class:`~lnsym.checking.verdicts.Verdict`) is one of

- ``PROVED``: the general-d engine proved it for every d (and no other engine objects);
- ``VERIFIED``: exact checks hold for the listed dimensions only;
- ``CONSISTENT``: only numeric samples support it;
- ``REFUTED``: an exact counterexample was found;
- ``ERROR`` / ``TIMEOUT``: no decision, with the reason.

Evidence lists every engine that ran, what it concluded and what it cost. A numeric check
is never promoted to a proof.

>>> from lnsym import vector, core, ones, scalar, Eq, check
>>> z, c = vector("z"), scalar("c")
>>> result = check(Claim("core.shift", Eq(core(z + c * ones), core(z))))
>>> print(result.verdict, result.passed)
PROVED True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from lnsym import ir
from lnsym.checking.proof import ByLemma, Derivation
from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Counterexample
from lnsym.engines.base import Evidence as Evidence
from lnsym.errors import ExpressionError
from lnsym.ir.namespace import check_namespace
from lnsym.ir.nodes import depth
from lnsym.printing.evidence import counterexample_record, evidence_json
from lnsym.printing.printer import latex, text

#: The verdicts a claim may require (``Claim.require``).
_REQUIRABLE = {v.value for v in Verdict if v.support}
_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-#]*\Z")
#: The deepest statement a claim may hold (the catalog's deepest is 10 levels).
MAX_DEPTH = 100


@dataclass(frozen=True)
class Claim:
    """A statement to check, with its assumptions, expectation and source.

    Args:
        id: a stable dotted identifier such as ``"jacobian.symmetric"``.
        statement: an :class:`~lnsym.ir.nodes.Eq` or :class:`~lnsym.ir.nodes.Le`.
        assumptions: hypotheses such as ``centered(h)``.
        expect: ``"holds"`` or ``"refuted"``.
        source: where the source documents state it (free text).
        title: a short human-readable name for reports.
        require: for ``expect="holds"``, the weakest verdict that counts as success
            (``"PROVED"`` by default; ``"VERIFIED"`` or ``"CONSISTENT"`` to accept less).
        proof: a :class:`~lnsym.checking.proof.ByLemma` when the general engine cannot prove the
            statement directly but a cited lemma turns proved premises into it.

    Raises:
        ExpressionError: for a malformed id, statement, assumption or option.
    """

    id: str
    statement: ir.Relation
    assumptions: tuple[ir.Assumption, ...] = ()
    expect: str = "holds"
    source: str | None = None
    title: str = ""
    require: str = "PROVED"
    proof: ByLemma | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.id, str) or not _ID.match(self.id):
            raise ExpressionError(f"invalid claim id {self.id!r}")
        if not isinstance(self.statement, ir.Eq | ir.Le):
            raise ExpressionError(f"claim {self.id}: the statement must be Eq(...) or Le(...)")
        statement = self.statement
        sides = (statement.lhs, statement.rhs, *getattr(statement, "certificate", ()))
        deepest = max(depth(side) for side in sides)
        if deepest > MAX_DEPTH:
            raise ExpressionError(
                f"claim {self.id}: the statement nests {deepest} levels deep (at most "
                f"{MAX_DEPTH}: the engines walk it recursively)"
            )
        if isinstance(self.assumptions, ir.Assumption) or not _iterable(self.assumptions):
            raise ExpressionError(
                f"claim {self.id}: assumptions are a list, e.g. [centered(h)], not "
                f"{type(self.assumptions).__name__}"
            )
        assumptions = tuple(self.assumptions)
        for a in assumptions:
            if not isinstance(a, ir.Assumption):
                raise ExpressionError(f"claim {self.id}: {a!r} is not an assumption")
        object.__setattr__(self, "assumptions", assumptions)
        try:
            check_namespace(self.statement, assumptions)
        except ExpressionError as exc:
            raise ExpressionError(f"claim {self.id}: {exc}") from None
        if self.expect not in ("holds", "refuted"):
            raise ExpressionError(f"claim {self.id}: expect must be 'holds' or 'refuted'")
        if self.require not in _REQUIRABLE:
            raise ExpressionError(f"claim {self.id}: require must be one of {sorted(_REQUIRABLE)}")
        if self.proof is not None:
            if not isinstance(self.proof, ByLemma):
                raise ExpressionError(f"claim {self.id}: proof must come from by_lemma(...)")
            for premise in self.proof.premises:
                if not isinstance(premise, Claim):
                    raise ExpressionError(f"claim {self.id}: premise {premise!r} is not a Claim")

    def __repr__(self) -> str:
        return f"Claim({self.id}: {text(self.statement)})"

    def _repr_markdown_(self) -> str:
        from lnsym.printing.display import claim_markdown

        return claim_markdown(self)


def _iterable(x: Any) -> bool:
    try:
        iter(x)
    except TypeError:
        return False
    return not isinstance(x, str)


@dataclass(frozen=True)
class Result:
    """The verdict on a claim with all its evidence."""

    claim: Claim
    verdict: Verdict
    evidence: tuple[Evidence, ...]
    seconds: float
    reason: str = ""
    counterexample: Counterexample | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", Verdict(self.verdict))  # refuses unknown words

    def _repr_markdown_(self) -> str:
        from lnsym.printing.display import result_markdown

        return result_markdown(self)

    @property
    def passed(self) -> bool:
        """Whether the verdict matches the claim's expectation."""
        if self.claim.expect == "refuted":
            return self.verdict == Verdict.REFUTED
        return self.verdict.support >= Verdict(self.claim.require).support

    def to_json(self) -> dict[str, Any]:
        claim = self.claim
        return {
            "kind": "claim",
            "id": claim.id,
            "title": claim.title,
            "statement": latex(claim.statement),
            "statement_text": text(claim.statement),
            "assumptions": [latex(a) for a in claim.assumptions],
            "source": claim.source,
            "expect": claim.expect,
            "require": claim.require,
            "verdict": self.verdict,
            "passed": self.passed,
            "reason": self.reason,
            "seconds": round(self.seconds, 6),
            "evidence": [evidence_json(e) for e in self.evidence],
            "counterexample": None
            if self.counterexample is None
            else counterexample_record(self.counterexample),
            "proof": None
            if claim.proof is None
            else {
                "lemma": claim.proof.lemma.id,
                "premises": [p.id for p in claim.proof.premises],
            },
        }


@dataclass(frozen=True)
class DerivationResult:
    """The results of every link of a derivation; it passes when every link passes."""

    derivation: Derivation
    steps: tuple[Result, ...]
    seconds: float

    def _repr_markdown_(self) -> str:
        from lnsym.printing.display import derivation_result_markdown

        return derivation_result_markdown(self)

    @property
    def verdict(self) -> Verdict:
        """The weakest verdict among the links."""
        return min((r.verdict for r in self.steps), key=lambda verdict: verdict.support)

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.steps)

    def to_json(self) -> dict[str, Any]:
        deriv = self.derivation
        return {
            "kind": "derivation",
            "id": deriv.id,
            "title": deriv.title,
            "statement": latex(deriv.conclusion()),
            "statement_text": text(deriv.conclusion()),
            "assumptions": [latex(a) for a in deriv.assumptions],
            "source": deriv.source,
            "verdict": self.verdict,
            "passed": self.passed,
            "seconds": round(self.seconds, 6),
            "steps": [
                {"why": step.why, "relation": step.relation, **r.to_json()}
                for step, r in zip(deriv.steps, self.steps, strict=True)
            ],
        }


def derivation_claims(derivation: Derivation) -> list[Claim]:
    """The links of a derivation as claims with ids ``<derivation id>#<step number>``."""
    return [
        Claim(
            f"{derivation.id}#{i}",
            link,
            derivation.assumptions,
            title=step.why,
            source=derivation.source,
        )
        for i, (step, link) in enumerate(zip(derivation.steps, derivation.links(), strict=True), 1)
    ]
