"""The interpreter: :class:`GeneralEngine` turns IR into normal forms and decides equalities.

Holds :class:`Decision` (a verdict with its evidence text), :class:`GeneralEngine` (the
interpretation of every IR node, memoized per engine; the residual of lhs − rhs; and
``decide``, which tries identical sides, congruence and then the zero test) and the helpers
only the interpreter uses.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.general.algebra import (
    RESIDUAL_LIMIT,
    _absorb_roots,
    canonical,
    is_zero,
    root,
)
from lnsym.engines.general.back_to_ir import to_expr
from lnsym.engines.general.derivatives import (
    PROBE,
    _read_gradient,
    derivative,
    gradient,
    scalar_derivative,
)
from lnsym.engines.general.ir_rewrites import _replace_symbol, chain_rule
from lnsym.engines.general.slicing import Unsliceable, slice_relation, worlds
from lnsym.engines.general.substitution import AtomSubstitution, Hypotheses, SymbolSubstitution
from lnsym.engines.general.vector_form import Form, VectorForm
from lnsym.errors import UnsupportedError
from lnsym.ir import signs as signs
from lnsym.ir.calculus import Diff, Grad, Jvp, Vjp
from lnsym.ir.layers import Core, LayerNorm, RMSNorm
from lnsym.ir.matrices import has_matrices
from lnsym.ir.names import d


@dataclass(frozen=True)
class Obligation:
    """An equality the engine decided by normal forms: lhs = rhs under ``assumptions``.

    What a PROVED rests on is recorded this way (:meth:`GeneralEngine.recording`) so that
    translation validation (:mod:`lnsym.checking.validation`) can evaluate each side and its
    normal form independently, at a dimension no claim anticipates.
    """

    lhs: ir.Expr
    rhs: ir.Expr
    assumptions: tuple[ir.Assumption, ...] = ()


@dataclass(frozen=True)
class Decision:
    """What the general engine concluded about a statement.

    ``proved`` is True only for an exact identity valid for every d; otherwise ``residual``
    is the nonzero canonical difference (lhs − rhs) it found, as an IR expression.
    """

    proved: bool
    detail: str
    residual: ir.Expr | None = None


class GeneralEngine:
    """Interprets IR expressions as normal forms, with memoization per engine."""

    def __init__(self) -> None:
        self._memo: dict[ir.Expr, Form] = {}
        self._recording: list[list[Obligation]] = []

    @contextlib.contextmanager
    def recording(self) -> Iterator[list[Obligation]]:
        """Collect, into the list yielded, every equality decided by normal forms within the
        block (a nested block collects its own: a lemma's premises are claims of their own)."""
        found: list[Obligation] = []
        self._recording.append(found)
        try:
            yield found
        finally:
            self._recording.pop()

    def _record(self, lhs: ir.Expr, rhs: ir.Expr, assumptions: Iterable[ir.Assumption]) -> None:
        if self._recording:
            self._recording[-1].append(Obligation(lhs, rhs, tuple(assumptions)))

    def form(self, e: ir.Expr) -> Form:
        """The normal form of an IR expression."""
        cached = self._memo.get(e)
        if cached is None:
            cached = self._memo[e] = self._form(e)
        return cached

    def _form(self, e: ir.Expr) -> Form:
        match e:
            case ir.VectorAtom(name=name):
                return VectorForm.atom(name)
            case ir.Ones():
                return VectorForm.monomial(())
            case ir.VectorSum(terms=terms):
                out = VectorForm(())
                for t in terms:
                    out = out + self.vector(t)
                return out
            case ir.Scaled(coefficient=c, vector=v):
                return self.vector(v).scale(self.scalar(c))
            case ir.Hadamard(left=a, right=b):
                return self.vector(a).hadamard(self.vector(b))
            case ir.Const(value=value):
                return _absorb_roots(value)
            case ir.Dot(left=a, right=b):
                return self.vector(a).hadamard(self.vector(b)).total()
            case ir.ScalarSum(terms=terms):
                return sympy.Add(*(self.scalar(t) for t in terms))
            case ir.ScalarProduct(factors=factors):
                return sympy.Mul(*(self.scalar(f) for f in factors))
            case ir.Power(base=base, exponent=n):
                return _power(self.scalar(base), n)
            case ir.Defined():
                return self.form(e.definition())
            case Jvp(expr=f, wrt=wrt, direction=h):
                return derivative(self.form(f), wrt.name, self.vector(h))
            case Diff(expr=f, wrt=ir.Const(value=sym)):
                return scalar_derivative(self.form(f), sym)
            case Vjp() | Grad() if PROBE in ir.vector_atoms(e):
                raise UnsupportedError(f"the atom name {PROBE} is reserved for lnsym")
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                # Jᵀg with g held fixed: pair g with the derivative of f, not of ⟨g, f⟩.
                moved = derivative(self.vector(f), wrt.name, VectorForm.atom(PROBE))
                return _read_gradient(moved.hadamard(self.vector(g)).total())
            case Grad(expr=f, wrt=wrt):
                return gradient(self.scalar(f), wrt.name)
            case ir.Substitution(expr=f, target=ir.VectorAtom(name=name), value=value):
                return AtomSubstitution(name, self.vector(value)).form(self.form(f))
            case ir.Substitution(expr=f, target=ir.Const(value=sym), value=value):
                if signs.admissible(e.target, value):
                    return SymbolSubstitution(sym, self.scalar(value)).form(self.form(f))
                # The normal form of f may use the symbol's assumptions (√(ε²q) = ε√q); at a
                # value that breaks them it is no longer f's value: substitute in the IR.
                if isinstance(value, ir.Const):
                    return self.form(_replace_symbol(f, sym, value.value))
                raise UnsupportedError(
                    f"{sym} = {value!r} is not known to satisfy the assumptions of {sym}"
                )
        raise UnsupportedError(f"the general engine cannot interpret {type(e).__name__}")

    def vector(self, e: ir.Expr) -> VectorForm:
        f = self.form(e)
        assert isinstance(f, VectorForm), e
        return f

    def scalar(self, e: ir.Expr) -> sympy.Expr:
        f = self.form(e)
        assert not isinstance(f, VectorForm), e
        return f

    def difference(
        self, lhs: ir.Expr, rhs: ir.Expr, assumptions: Iterable[ir.Assumption] = ()
    ) -> Form:
        """The normal form of lhs − rhs with the assumptions applied."""
        hyp = Hypotheses(assumptions)
        left, right = self.form(lhs), self.form(rhs)
        if isinstance(left, VectorForm) and isinstance(right, VectorForm):
            return hyp.vector(left + right.scale(sympy.Integer(-1)))
        if isinstance(left, VectorForm) or isinstance(right, VectorForm):
            # A vector and a scalar: the error the subtraction itself has always raised.
            raise TypeError(
                "unsupported operand type(s) for -: "
                f"{type(left).__name__!r} and {type(right).__name__!r}"
            )
        return hyp.scalar(left - right)

    def equal(self, lhs: ir.Expr, rhs: ir.Expr, assumptions: Iterable[ir.Assumption] = ()) -> bool:
        """Whether lhs = rhs for every d: :meth:`residual` without the canonical residual,
        which is only for display and can cost more than the zero test itself."""
        assumptions = tuple(assumptions)
        diff = self.difference(lhs, rhs, assumptions)
        if isinstance(diff, VectorForm):
            equal = all(is_zero(c) for _, c in diff.terms)
        else:
            equal = is_zero(diff)
        if equal:
            self._record(lhs, rhs, assumptions)
        return equal

    def residual(
        self, lhs: ir.Expr, rhs: ir.Expr, assumptions: Iterable[ir.Assumption] = ()
    ) -> Form | None:
        """None when lhs = rhs for every d; otherwise the canonical nonzero difference."""
        assumptions = tuple(assumptions)
        diff = self.difference(lhs, rhs, assumptions)
        if isinstance(diff, VectorForm):
            left_over = {m: c for m, c in diff.terms if not is_zero(c)}
            if left_over:
                return VectorForm.of({m: _shown(c) for m, c in left_over.items()})
        elif not is_zero(diff):
            return _shown(diff)
        self._record(lhs, rhs, assumptions)
        return None

    def compare(
        self,
        lhs: ir.Expr,
        rhs: ir.Expr,
        assumptions: Iterable[ir.Assumption] = (),
        *,
        shown: bool = True,
    ) -> tuple[bool, ir.Expr | None]:
        """Whether lhs = rhs for every d, and for a failure its canonical residual when
        ``shown`` (:meth:`residual`), else None (:meth:`equal`, cheaper)."""
        if not shown:
            return self.equal(lhs, rhs, assumptions), None
        rest = self.residual(lhs, rhs, assumptions)
        return rest is None, None if rest is None else to_expr(rest)

    def decide(
        self, statement: ir.Eq, assumptions: Iterable[ir.Assumption] = (), *, shown: bool = True
    ) -> Decision:
        """Prove an equality for every d, or report the residual that blocks it.

        Sides that apply the same operation to arguments equal for every d are equal
        (congruence), which proves e.g. shift invariance of nested layers without
        normalizing the whole nest; otherwise the normal forms decide. With ``shown`` False
        a failure comes without its residual (the verdict is the same, and cheaper).
        """
        if not isinstance(statement, ir.Eq):
            raise UnsupportedError(
                "GeneralEngine.decide handles equalities; see lnsym.checking.proof"
            )
        assumptions = tuple(assumptions)
        if has_matrices(statement):
            if statement.lhs == statement.rhs:  # no slice needed (translation validation
                return Decision(True, "both sides are the same expression")  # checks entries)
            return self._decide_sliced(statement, assumptions, shown)
        lhs, rhs = chain_rule(statement.lhs), chain_rule(statement.rhs)
        if lhs == rhs:
            with contextlib.suppress(UnsupportedError):  # a form too large is still x = x,
                self.form(lhs)  # but a side undefined everywhere (1/0) is a DomainError
            if statement.lhs == statement.rhs:
                return Decision(True, "both sides are the same expression")
            return Decision(True, "both sides are the same expression after the chain rule")
        if self._congruent(lhs, rhs, assumptions):
            return Decision(True, "the same operations applied to arguments equal for symbolic d")
        equal, residual = self.compare(lhs, rhs, assumptions, shown=shown)
        if equal:
            return Decision(True, "normal forms agree for symbolic d")
        return Decision(False, "lhs − rhs does not vanish for symbolic d", residual)

    def _decide_sliced(
        self, statement: ir.Eq, assumptions: tuple[ir.Assumption, ...], shown: bool = True
    ) -> Decision:
        """A matrix statement, decided at the generic indices of a world
        (:mod:`~lnsym.engines.general.slicing`): proved when every case of one world is."""
        failure: tuple[str, ir.Relation, tuple[ir.Assumption, ...]] | None = None
        for cases in worlds(statement):
            try:
                sliced = [slice_relation(statement, world, assumptions) for world in cases]
            except Unsliceable:
                continue
            # Outside the row world the claim's dimension assumptions speak of another axis:
            # dropping them only strengthens what is proved.
            kept = assumptions if cases[0].axis == d and not cases[0].groups else ()
            # Without residuals: only the failure reported shows one, computed at the end.
            decisions = [self.decide(s, kept, shown=False) for s in sliced]  # type: ignore[arg-type]
            where = cases[0].describe()
            if all(x.proved for x in decisions):
                split = ", with each index of e₁ equal to 1 or not" if len(cases) > 1 else ""
                how = decisions[0].detail.replace(" for symbolic d", "")
                return Decision(True, f"{where}{split}, for symbolic n, d and m: {how}")
            if failure is None:
                bad = next(s for s, x in zip(sliced, decisions, strict=True) if not x.proved)
                failure = (where, bad, kept)
        if failure is not None:
            where, bad, kept = failure
            found = self.decide(bad, kept, shown=shown)  # type: ignore[arg-type]
            how = found.detail.replace(" for symbolic d", "")
            return Decision(False, f"{where}: {how}", found.residual)
        return Decision(False, "no generic row, column or entry reduces the matrices to one axis")

    def _congruent(self, a: ir.Expr, b: ir.Expr, assumptions: tuple[ir.Assumption, ...]) -> bool:
        """Whether a and b are one pointwise operation applied to equal arguments.

        Only operations that act pointwise qualify: equal values give equal results there.
        Binders (derivatives, substitutions) do not, since arguments equal under the
        assumptions need not have equal derivatives or values elsewhere.
        """
        if type(a) is not type(b) or type(a) not in _POINTWISE:
            return False
        differing = [(x, y) for x, y in zip(_fields(a), _fields(b), strict=True) if x != y]
        if not differing or not all(isinstance(x, ir.Expr) for pair in differing for x in pair):
            return False
        return all(
            x.kind == y.kind
            and (self._congruent(x, y, assumptions) or self.equal(x, y, assumptions))
            for x, y in differing
        )


#: Operations that act pointwise on their arguments (congruence applies to them): lnsym's
#: own, by exact type — a user's subclass could hide a derivative in its definition.
_POINTWISE = frozenset({
    ir.Mean, ir.Var, ir.Center, ir.Norm, ir.Dot, ir.Hadamard, ir.Scaled, ir.Power,
    Core, LayerNorm, RMSNorm,
})  # fmt: skip


def _fields(e: ir.Expr) -> tuple[Any, ...]:
    return tuple(getattr(e, f.name) for f in dataclass_fields(e))  # type: ignore[arg-type]


def _shown(residual: sympy.Expr) -> sympy.Expr:
    """A nonzero residual in canonical form when that is cheap; it is only shown to users,
    so a large one stays as it is rather than costing the verdict time."""
    try:
        return canonical(residual, RESIDUAL_LIMIT)
    except UnsupportedError:
        return residual


def _power(base: sympy.Expr, n: sympy.Expr) -> sympy.Expr:
    if n.is_Rational and n.q == 2:
        return root(base) ** n.p
    return base**n
