"""Standard facts that lnsym cites instead of proving, each a schema checked against the claim.

A claim proved "by lemma" (:func:`lnsym.checking.proof.by_lemma`) is PROVED only when every premise
is PROVED by the engines *and* the lemma's schema accepts the application: the premises
have the forms the lemma needs, its side conditions hold, and its conclusion, instantiated
from the premises, is the claim's statement (sides compared by the general engine). A lemma
applied to the wrong claim is never PROVED. The schemas are part of the trusted kernel
(docs/trust.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy

from lnsym import ir
from lnsym.checking.proof import ByLemma, Lemma
from lnsym.engines.general import Decision, GeneralEngine, canonical, mentions_vectors, power_sum
from lnsym.ir.calculus import Jvp, OperatorNorm
from lnsym.ir.signs import POSITIVE, UNKNOWN, sign

Assumptions = Sequence[ir.Assumption]
_DIMENSIONS = (ir.MinDimension, ir.FixedDimension)
_ZERO = ir.Const(sympy.Integer(0))
_PLAIN = (
    ir.Const, ir.VectorAtom, ir.Ones, ir.VectorSum, ir.Scaled, ir.Hadamard, ir.Dot,
    ir.ScalarSum, ir.ScalarProduct, ir.Power,
)  # fmt: skip


class _Mismatch(Exception):
    """The application does not fit the lemma; the message says where."""


def _applied(check: Callable[[], str]) -> Decision:
    try:
        return Decision(True, check())
    except _Mismatch as exc:
        return Decision(False, f"lemma not applicable: {exc}")


def _equal(engine: GeneralEngine, a: ir.Expr, b: ir.Expr, assumptions: Assumptions) -> bool:
    return a == b or engine.equal(a, b, tuple(assumptions))


def _implied(premise: Any, claim: Assumptions, atoms: frozenset[str] | None = None) -> None:
    """A premise may assume nothing that the claim does not assume too — and, given the
    atoms of the claim's own statement, nothing about any other atom: an assumption on an
    atom the claim never mentions is vacuous for the claim, but it narrows the premise (a
    symmetry ⟨J a, b⟩ = ⟨a, J b⟩ for centered a and b only says P J P is symmetric)."""
    missing = [a for a in premise.assumptions if a not in claim]
    if missing:
        raise _Mismatch(f"{premise.id} assumes {missing[0]!r}, which the claim does not")
    if atoms is None:
        return
    for assumption in premise.assumptions:
        others = [v.name for v in vars(assumption).values()
                  if isinstance(v, ir.VectorAtom) and v.name not in atoms]  # fmt: skip
        if others:
            raise _Mismatch(
                f"{premise.id} assumes {assumption!r} of {others[0]}, which the claim's "
                "statement does not mention: the premise must hold for every value of it"
            )


def _lowest_dimension(assumptions: Assumptions) -> int:
    return max((a.value for a in assumptions if isinstance(a, _DIMENSIONS)), default=1)


def _smooth(f: ir.Expr) -> bool:
    """Whether ``f`` is defined and differentiable everywhere: built from plain nodes, with
    every power that is not a nonnegative integer power taken of a positive base."""
    for node in ir.walk(f):
        if isinstance(node, ir.Defined):
            if not _smooth(node.definition()):
                return False
            continue
        if not isinstance(node, _PLAIN):
            return False  # derivatives, substitutions, operator norms: not analysed
        if isinstance(node, ir.Power):
            n = node.exponent
            if not (n.is_integer and n.is_nonnegative) and sign(node.base) != POSITIVE:
                return False
    return True


# ---------------------------------------------------------------------------------------
# Mean value inequality


def _mean_value(
    statement: ir.Relation, assumptions: Assumptions, application: ByLemma, engine: GeneralEngine
) -> Decision:
    """From ‖D_x f(x)[h]‖² ≤ L²‖h‖² for all x and h, conclude ‖f(x + h) − f(x)‖² ≤ L²‖h‖²."""

    def check() -> str:
        if len(application.premises) != 1:
            raise _Mismatch("the mean value inequality takes exactly one premise")
        premise = application.premises[0]
        match premise.statement:
            case ir.Le(
                lhs=ir.Power(base=ir.Norm(arg=Jvp(expr=f, wrt=x, direction=h)), exponent=2),
                rhs=bound,
            ) if isinstance(h, ir.VectorAtom):
                pass
            case _:
                raise _Mismatch(f"{premise.id} must read ‖D_x f(x)[h]‖² ≤ L²‖h‖²")
        if h == x or h.name in ir.vector_atoms(f):
            raise _Mismatch("the direction h must be an atom that f does not contain")
        for a in (*premise.assumptions, *assumptions):
            if not isinstance(a, _DIMENSIONS):
                raise _Mismatch(f"the bound must hold for every x and h, but {a!r} is assumed")
        _implied(premise, assumptions)
        ratio = engine.scalar(bound) / power_sum((h.name, h.name))
        if mentions_vectors(canonical(ratio)):
            raise _Mismatch("the bound is not L²‖h‖² with L free of x and h")
        if not _smooth(f):
            raise _Mismatch("f is not known to be differentiable everywhere")
        if not isinstance(statement, ir.Le):
            raise _Mismatch("the conclusion is an inequality")
        step = ir.add(ir.Substitution(f, x, ir.add(x, h)), ir.negate(f))
        if not _equal(engine, statement.rhs, bound, assumptions):
            raise _Mismatch("the claim's right-hand side is not the premise's L²‖h‖²")
        if not _equal(engine, statement.lhs, ir.power(ir.Norm(step), 2), assumptions):
            raise _Mismatch("the claim's left-hand side is not ‖f(x + h) − f(x)‖²")
        return "its conclusion ‖f(x + h) − f(x)‖² ≤ L²‖h‖² is the claim"

    return _applied(check)


# ---------------------------------------------------------------------------------------
# Spectral norm of a symmetric operator


@dataclass
class _Spectrum:
    """The premises of a spectral-norm application, sorted by their role."""

    symmetric: bool = False
    explicit: list[tuple[ir.Expr, ir.Expr]] = field(default_factory=list)  # (e, λ)
    families: list[tuple[ir.Expr, ir.Expr, Any]] = field(default_factory=list)  # (v, λ, premise)
    bounds: list[ir.Le] = field(default_factory=list)

    @staticmethod
    def of(premises: Sequence[Any], f: ir.Expr, x: ir.VectorAtom, claim: Assumptions) -> _Spectrum:
        out = _Spectrum()
        atoms = frozenset(ir.vector_atoms(f) | {x.name})  # what ‖D_x f‖₂ = λ is about
        for premise in premises:
            s = premise.statement
            if _is_symmetry(s, f, x):
                _implied(premise, claim, atoms)
                out.symmetric = True
            elif (
                isinstance(s, ir.Eq)
                and isinstance(s.lhs, Jvp)
                and s.lhs.expr == f
                and (s.lhs.wrt == x)
            ):
                e, value = s.lhs.direction, _eigenvalue(s.rhs, s.lhs.direction)
                if value is None:
                    raise _Mismatch(f"{premise.id} is not of the form J e = λ e")
                if ir.vector_atoms(e) <= {x.name}:
                    _implied(premise, claim, atoms)
                    out.explicit.append((e, value))
                else:
                    out.families.append((e, value, premise))
            elif isinstance(s, ir.Le):
                _implied(premise, claim, atoms)
                out.bounds.append(s)
            else:
                raise _Mismatch(f"{premise.id} is neither a symmetry, an eigenpair nor a bound")
        if not out.symmetric:
            raise _Mismatch("no premise shows J symmetric: ⟨J a, b⟩ = ⟨a, J b⟩")
        if len(out.families) > 1:
            raise _Mismatch("at most one constrained eigenvector family is supported")
        if not out.explicit and not out.families:
            raise _Mismatch("no eigenpairs given")
        return out


def _spectral_norm(
    statement: ir.Relation, assumptions: Assumptions, application: ByLemma, engine: GeneralEngine
) -> Decision:
    """‖D_x f‖₂ = λ* from: J = D_x f symmetric; eigenpairs J e = λ e whose vectors span ℝ^d;
    0 ≤ λ ≤ λ* for each; λ* attained on a nonzero eigenvector.

    Spanning is shown one of two ways: a family {v : ⟨c, v⟩ = 0 for c ∈ C} (an atom v with
    centered/orthogonal-to-x assumptions) plus explicit eigenvectors E, with a witness
    writing every c ∈ C as a combination of E (then span E + C^⊥ = ℝ^d); or, at a fixed
    dimension k, k explicit eigenvectors that are pairwise orthogonal and nonzero.
    """
    claim = tuple(assumptions)

    def equal(a: ir.Expr, b: ir.Expr) -> bool:
        return _equal(engine, a, b, claim)

    def nonzero(e: ir.Expr) -> bool:
        return any(
            n is not None and sign(n, claim) == POSITIVE and equal(ir.Dot(e, e), n)
            for n in (ir.Const(ir.d), application.nonzero)
        )

    def check() -> str:
        match statement:
            case ir.Eq(lhs=OperatorNorm(expr=f, wrt=x), rhs=top):
                pass
            case _:
                raise _Mismatch("the conclusion must read ‖D_x f‖₂ = λ")
        spectrum = _Spectrum.of(application.premises, f, x, claim)
        for lam in [lam for _, lam in spectrum.explicit] + [f[1] for f in spectrum.families]:
            if sign(lam, claim) == UNKNOWN:
                raise _Mismatch(f"the eigenvalue {lam!r} is not shown nonnegative")
            below = sign(ir.add(top, ir.negate(lam)), claim) != UNKNOWN
            bounded = any(equal(b.lhs, lam) and equal(b.rhs, top) for b in spectrum.bounds)
            if not (below or bounded or equal(lam, top)):
                raise _Mismatch(f"the eigenvalue {lam!r} is not shown ≤ {top!r}")
        vectors = [e for e, _ in spectrum.explicit]
        if spectrum.families:
            constraints = _constraints(spectrum.families[0], f, x, claim)
            for c in constraints:
                if not any(_combines(w, c, vectors, x, equal) for w in application.witnesses):
                    raise _Mismatch(f"no witness writes {c!r} as a combination of {vectors!r}")
            if equal(spectrum.families[0][1], top) and _lowest_dimension(claim) > len(constraints):
                return "J is symmetric, its eigenvectors span ℝᵈ, and λ* is attained on a family"
        else:
            fixed = {a.value for a in claim if isinstance(a, ir.FixedDimension)}
            if len(fixed) != 1 or len(vectors) < fixed.pop():
                raise _Mismatch("explicit eigenvectors alone span ℝᵈ only at a fixed d")
            for i, e in enumerate(vectors):
                if not nonzero(e):
                    raise _Mismatch(f"the eigenvector {e!r} is not shown nonzero")
                if any(not equal(ir.Dot(e, other), _ZERO) for other in vectors[i + 1 :]):
                    raise _Mismatch(f"the eigenvectors {vectors!r} are not shown orthogonal")
        if any(equal(lam, top) and nonzero(e) for e, lam in spectrum.explicit):
            return "J is symmetric, its eigenvectors span ℝᵈ, and λ* is attained"
        raise _Mismatch(f"{top!r} is not shown attained on a nonzero eigenvector")

    return _applied(check)


def _is_symmetry(s: ir.Relation, f: ir.Expr, x: ir.VectorAtom) -> bool:
    """⟨D_x f[a], b⟩ = ⟨a, D_x f[b]⟩ for distinct fresh atoms a and b."""
    match s:
        case ir.Eq(
            lhs=ir.Dot(left=Jvp(expr=f1, wrt=x1, direction=a), right=b),
            rhs=ir.Dot(left=a2, right=Jvp(expr=f2, wrt=x2, direction=b2)),
        ):
            fresh = ir.vector_atoms(f) | {x.name}
            return (
                (f1, x1, f2, x2, a2, b2) == (f, x, f, x, a, b)
                and isinstance(a, ir.VectorAtom)
                and isinstance(b, ir.VectorAtom)
                and a != b
                and not {a.name, b.name} & fresh
            )
    return False


def _eigenvalue(rhs: ir.Expr, e: ir.Expr) -> ir.Expr | None:
    if isinstance(rhs, ir.Scaled) and rhs.vector == e:
        return rhs.coefficient
    return ir.Const(sympy.Integer(1)) if rhs == e else None


def _constraints(
    family: tuple[ir.Expr, ir.Expr, Any], f: ir.Expr, x: ir.VectorAtom, claim: Assumptions
) -> list[ir.Expr]:
    """The vectors c with ⟨c, v⟩ = 0 that define the eigenvector family of the atom v."""
    v, _, premise = family
    if not isinstance(v, ir.VectorAtom) or v.name in ir.vector_atoms(f):
        raise _Mismatch(f"{premise.id}: a family's eigenvector must be a fresh atom")
    out: list[ir.Expr] = []
    for a in premise.assumptions:
        if isinstance(a, ir.Centered) and a.atom == v:
            out.append(ir.Ones())
        elif isinstance(a, ir.Orthogonal) and v in (a.left, a.right) and x in (a.left, a.right):
            out.append(x)
        elif isinstance(a, _DIMENSIONS) and a in claim:
            continue
        else:
            raise _Mismatch(f"{premise.id}: the assumption {a!r} does not define a family")
    return out


def _combines(
    w: ir.Expr,
    c: ir.Expr,
    vectors: list[ir.Expr],
    x: ir.VectorAtom,
    equal: Callable[[ir.Expr, ir.Expr], bool],
) -> bool:
    """Whether ``w`` = Σ αₖ eₖ over the explicit eigenvectors, with αₖ free of every vector
    but x, and w = c."""
    if w.kind != "vector":
        return False
    for t in w.terms if isinstance(w, ir.VectorSum) else (w,):
        base = t.vector if isinstance(t, ir.Scaled) else t
        if base not in vectors:
            return False
        if isinstance(t, ir.Scaled) and ir.vector_atoms(t.coefficient) - {x.name}:
            return False
    return equal(w, c)


# ---------------------------------------------------------------------------------------

SPECTRAL_NORM = Lemma(
    "spectral-norm",
    "A symmetric matrix whose eigenvectors span ℝᵈ has operator 2-norm equal to the "
    "largest absolute value of its eigenvalues.",
    "spectral theorem; e.g. Horn & Johnson, Matrix Analysis, 2nd ed., Thm. 4.1.5 and §5.6",
    _spectral_norm,
)

MEAN_VALUE_INEQUALITY = Lemma(
    "mean-value-inequality",
    "If a differentiable map on ℝᵈ satisfies ‖Df(x)h‖ ≤ L‖h‖ for all x and h, then "
    "‖f(x + h) − f(x)‖ ≤ L‖h‖ for all x and h.",
    "mean value inequality; e.g. Rudin, Principles of Mathematical Analysis, Thm. 9.19",
    _mean_value,
)

__all__ = ["MEAN_VALUE_INEQUALITY", "SPECTRAL_NORM"]
