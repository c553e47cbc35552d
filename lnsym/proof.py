"""Proof objects: sign certificates for inequalities, and step-by-step derivations.

An inequality lhs ≤ rhs is proved from a certificate [t₁, …, tₙ]: the checker verifies the
identity rhs − lhs = Σ tₖ with the general engine, and that every tₖ is nonnegative by the
structural sign rules below. The certificate is a hint; the checker decides.

Sign rules (each justified by the definitions, never by a number): constants by SymPy's
assumptions (ε > 0, d > 0, user symbols declared positive); ⟨a, b⟩ ≥ 0 when the Hadamard
factors of a and b pair up (a sum of squares, e.g. ⟨a, a⟩, ⟨1, v ⊙ v⟩); even powers of real
scalars; sums and products of nonnegative terms; positive powers of nonnegative terms, any
power of a positive term; defined nodes (mean, var, norm) through their definitions.

>>> from lnsym import vector, var, center, dot, d, Le
>>> z = vector("z")
>>> sign(var(z)), sign(dot(z, center(z)))
('nonnegative', 'unknown')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from lnsym import expr as ir
from lnsym.errors import ExpressionError
from lnsym.general import GeneralEngine, Outcome, to_expr

POSITIVE, NONNEGATIVE, UNKNOWN = "positive", "nonnegative", "unknown"


def sign(e: ir.Expr) -> str:
    """``"positive"``, ``"nonnegative"`` or ``"unknown"`` for a scalar IR expression."""
    match e:
        case ir.Const(value=v):
            if v.is_positive:
                return POSITIVE
            return NONNEGATIVE if v.is_nonnegative else UNKNOWN
        case ir.Dot(left=a, right=b):
            return NONNEGATIVE if _pairs_up(_factors(a) + _factors(b)) else UNKNOWN
        case ir.ScalarSum(terms=terms):
            signs = [sign(t) for t in terms]
            if UNKNOWN in signs:
                return UNKNOWN
            return POSITIVE if POSITIVE in signs else NONNEGATIVE
        case ir.ScalarProduct(factors=factors):
            signs = [sign(f) for f in factors]
            if UNKNOWN in signs:
                return UNKNOWN
            return POSITIVE if all(s == POSITIVE for s in signs) else NONNEGATIVE
        case ir.Power(base=base, exponent=n):
            base_sign = sign(base)
            if base_sign == POSITIVE:
                return POSITIVE
            if n.is_integer and n.is_even and _is_real(base):
                return NONNEGATIVE
            if base_sign == NONNEGATIVE and n.is_positive:
                return NONNEGATIVE
            return UNKNOWN
        case ir.Substitution(expr=inner):
            # A sign valid for every value of the atoms is valid at this point too.
            return sign(inner)
        case ir.Defined():
            return sign(e.definition())
    return UNKNOWN


def _is_real(e: ir.Expr) -> bool:
    if isinstance(e, ir.Const):
        return bool(e.value.is_real)
    return all(_is_real(c) for c in e.children() if c.kind == "scalar")


def _factors(v: ir.Expr) -> list[ir.Expr]:
    """The Hadamard factors of a vector, with the ones vector dropped."""
    if isinstance(v, ir.Hadamard):
        return _factors(v.left) + _factors(v.right)
    return [] if isinstance(v, ir.Ones) else [v]


def _pairs_up(factors: list[ir.Expr]) -> bool:
    remaining = list(factors)
    while remaining:
        first = remaining.pop()
        if first not in remaining:
            return False
        remaining.remove(first)
    return True


def prove_inequality(
    statement: ir.Le, assumptions: Iterable[ir.Assumption], engine: GeneralEngine
) -> Outcome:
    """Prove lhs ≤ rhs from its certificate, checking the identity and every sign."""
    if not statement.certificate:
        return Outcome(False, "no certificate given; inequalities are proved only from one")
    total = (
        ir.ScalarSum(statement.certificate)
        if len(statement.certificate) > 1
        else (statement.certificate[0])
    )
    gap = ir.add(statement.rhs, ir.negate(statement.lhs))
    rest = engine.residual(gap, total, tuple(assumptions))
    if rest is not None:
        return Outcome(
            False,
            "certificate identity fails: rhs − lhs − Σ tₖ does not vanish for symbolic d",
            to_expr(rest),
        )
    signs = [(term, sign(term)) for term in statement.certificate]
    unknown = [f"t{i + 1} = {term!r}" for i, (term, s) in enumerate(signs) if s == UNKNOWN]
    if unknown:
        return Outcome(False, "sign not established for " + "; ".join(unknown))
    listed = "; ".join(f"t{i + 1} {s}" for i, (_, s) in enumerate(signs))
    strict = " (strict: a term is positive)" if POSITIVE in dict(signs).values() else ""
    return Outcome(True, f"rhs − lhs = Σ tₖ for symbolic d, and {listed}{strict}")


# ---------------------------------------------------------------------------------------
# Lemmas: standard facts cited, not re-proved, and applied to proved premises


@dataclass(frozen=True)
class Lemma:
    """A standard mathematical fact that lnsym cites rather than proves.

    Args:
        id: a short identifier, e.g. ``"spectral-norm"``.
        statement: the fact in words.
        citation: where it is proved.
    """

    id: str
    statement: str
    citation: str


@dataclass(frozen=True)
class ByLemma:
    """A proof of a claim by a lemma whose hypotheses are other claims.

    The checker proves every premise first; the claim counts as proved only when every
    premise is PROVED. ``how`` says how the conclusion follows.
    """

    lemma: Lemma
    premises: tuple[Any, ...]  # lnsym.claims.Claim objects
    how: str = ""


def by_lemma(lemma: Lemma, *premises: Any, how: str = "") -> ByLemma:
    """Prove a claim from ``premises`` (claims) by ``lemma``."""
    if not premises:
        raise ExpressionError(f"applying {lemma.id} needs at least one premise")
    return ByLemma(lemma, tuple(premises), how)


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
            :class:`~lnsym.expr.Le`).
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
        from lnsym.report.display import derivation_markdown

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
