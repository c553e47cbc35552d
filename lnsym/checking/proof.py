"""Proof objects: sign certificates for inequalities, and step-by-step derivations.

An inequality lhs ≤ rhs is proved from a certificate [t₁, …, tₙ]: the checker verifies the
identity rhs − lhs = Σ tₖ with the general engine, and that every tₖ is nonnegative by the
structural sign rules below. The certificate is a hint; the checker decides.

The sign rules live in :mod:`lnsym.ir.signs` (part of the trusted kernel, docs/trust.md).

>>> from lnsym import vector, var, center, dot, d, Le
>>> z = vector("z")
>>> sign(var(z)), sign(dot(z, center(z)))
('nonnegative', 'unknown')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from lnsym import ir
from lnsym.engines.general import Decision, GeneralEngine
from lnsym.errors import ExpressionError
from lnsym.ir.signs import POSITIVE, UNKNOWN, sign

__all__ = ["ByLemma", "Derivation", "Lemma", "Step", "by_lemma", "prove_inequality", "sign"]


def prove_inequality(
    statement: ir.Le,
    assumptions: Iterable[ir.Assumption],
    engine: GeneralEngine,
    *,
    shown: bool = True,
) -> Decision:
    """Prove lhs ≤ rhs from its certificate, checking the identity and every sign; with
    ``shown`` False a failed identity comes without its residual (as in
    :meth:`~lnsym.engines.general.GeneralEngine.decide`)."""
    if not statement.certificate:
        return Decision(False, "no certificate given; inequalities are proved only from one")
    total = (
        ir.ScalarSum(statement.certificate)
        if len(statement.certificate) > 1
        else (statement.certificate[0])
    )
    gap = ir.add(statement.rhs, ir.negate(statement.lhs))
    equal, residual = engine.compare(gap, total, tuple(assumptions), shown=shown)
    if not equal:
        return Decision(
            False,
            "certificate identity fails: rhs − lhs − Σ tₖ does not vanish for symbolic d",
            residual,
        )
    signs = [(term, sign(term)) for term in statement.certificate]
    unknown = [f"t{i + 1} = {term!r}" for i, (term, s) in enumerate(signs) if s == UNKNOWN]
    if unknown:
        return Decision(False, "sign not established for " + "; ".join(unknown))
    listed = "; ".join(f"t{i + 1} {s}" for i, (_, s) in enumerate(signs))
    strict = " (strict: a term is positive)" if POSITIVE in dict(signs).values() else ""
    return Decision(True, f"rhs − lhs = Σ tₖ for symbolic d, and {listed}{strict}")


# ---------------------------------------------------------------------------------------
# Lemmas: standard facts cited, not re-proved, applied as schemas to proved premises

#: A lemma's schema: given the claim's statement and assumptions, the application (with its
#: premises already PROVED) and the general engine, it decides whether the lemma's
#: conclusion, instantiated from the premises, is the statement, and whether every side
#: condition holds. It never trusts the application's words.
Schema = Callable[[ir.Relation, tuple[ir.Assumption, ...], "ByLemma", GeneralEngine], Decision]


@dataclass(frozen=True)
class Lemma:
    """A standard mathematical fact that lnsym cites rather than proves, as a schema.

    Args:
        id: a short identifier, e.g. ``"spectral-norm"``.
        statement: the fact in words.
        citation: where it is proved.
        schema: matches the fact's conclusion against a claim (see :data:`Schema`).
    """

    id: str
    statement: str
    citation: str
    schema: Schema = field(repr=False)  # compared: a claim citing another schema is another claim


@dataclass(frozen=True)
class ByLemma:
    """A proof of a claim by a lemma whose hypotheses are other claims.

    The checker proves every premise first; the claim counts as proved only when every
    premise is PROVED *and* the lemma's schema matches the claim (conclusion and side
    conditions). ``how`` is shown to readers; it is never trusted.

    Args:
        lemma: the lemma.
        premises: the claims it is applied to.
        how: a sentence for readers.
        witnesses: expressions the schema checks and uses (e.g. each constraint vector of an
            eigenvector family written as a combination of explicit eigenvectors).
        nonzero: for an eigenvalue attained on an explicit vector e, an expression equal to
            ‖e‖² that the sign rules show positive.
    """

    lemma: Lemma
    premises: tuple[Any, ...]  # lnsym.checking.claims.Claim objects
    how: str = ""
    witnesses: tuple[ir.Expr, ...] = ()
    nonzero: ir.Expr | None = None


def by_lemma(
    lemma: Lemma,
    *premises: Any,
    how: str = "",
    witnesses: Iterable[ir.Expr] = (),
    nonzero: ir.Expr | None = None,
) -> ByLemma:
    """Prove a claim from ``premises`` (claims) by ``lemma``; see :class:`ByLemma`."""
    if not isinstance(lemma, Lemma):
        raise ExpressionError(f"{lemma!r} is not a Lemma")
    if not premises:
        raise ExpressionError(f"applying {lemma.id} needs at least one premise")
    return ByLemma(lemma, tuple(premises), how, tuple(witnesses), nonzero)


# ---------------------------------------------------------------------------------------
# Derivations


@dataclass(frozen=True)
class Step:
    """One link ``previous <relation> expr`` of a derivation, with its justification.

    Args:
        expr: the new expression.
        why: a one-line justification shown in reports.
        relation: ``"="`` or ``"≤"``.
        certificate: for ``"≤"``, terms tₖ with expr − previous = Σ tₖ (as in
            :class:`~lnsym.ir.nodes.Le`).
    """

    expr: ir.Expr
    why: str
    relation: str = "="
    certificate: tuple[Any, ...] = ()

    def __post_init__(self) -> None:
        if self.relation not in ("=", "≤"):
            raise ExpressionError(f"a step relation is '=' or '≤', not {self.relation!r}")
        if not isinstance(self.expr, ir.Expr):
            object.__setattr__(self, "expr", ir.as_scalar(self.expr))


@dataclass(frozen=True)
class Derivation:
    """A titled chain start = e₁ = e₂ ≤ … where every link is checked like a claim.

    >>> from lnsym import vector, mean, ones, scalar, dot, d
    >>> z, c = vector("z"), scalar("c")
    >>> chain = Derivation("mean.shift", "Mean of a shifted vector", mean(z + c * ones), [
    ...     Step(dot(ones, z + c * ones) / d, "definition of the mean"),
    ...     Step(mean(z) + c, "linearity, ⟨1, 1⟩ = d"),
    ... ])
    >>> chain.conclusion()
    mean(z + c·1) = mean(z) + c
    """

    id: str
    title: str
    start: ir.Expr
    steps: tuple[Step, ...]
    assumptions: tuple[ir.Assumption, ...] = ()
    source: str | None = None
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "steps", tuple(self.steps))
        object.__setattr__(self, "assumptions", tuple(self.assumptions))
        if not self.steps:
            raise ExpressionError(f"derivation {self.id!r} has no steps")

    def _repr_markdown_(self) -> str:
        from lnsym.printing.display import derivation_markdown

        return derivation_markdown(self)

    def links(self) -> list[ir.Relation]:
        """Each step as a relation between the previous expression and the new one."""
        out: list[ir.Relation] = []
        previous = self.start
        for step in self.steps:
            if step.relation == "=":
                out.append(ir.Eq(previous, step.expr))
            else:
                out.append(ir.Le(previous, step.expr, step.certificate))
            previous = step.expr
        return out

    def conclusion(self) -> ir.Relation:
        """start = last (or start ≤ last when any link is an inequality), by transitivity."""
        last = self.steps[-1].expr
        if any(s.relation == "≤" for s in self.steps):
            return ir.Le(self.start, last)
        return ir.Eq(self.start, last)
