"""What the concrete engine compares: both sides, the claim's variables and its assumptions.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). It holds
:class:`_Problem` (lhs against rhs, equal or lhs ≤ rhs, with the vector atoms, scalar symbols,
assumptions, the layer root the checks make rational and the certificate terms evaluated
alongside), :func:`_constrain`, which solves the coordinates that linear assumptions fix
exactly, and :func:`_assumptions_hold`, the test of a point against the assumptions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

import sympy
from sympy.core.function import AppliedUndef

from lnsym import ir
from lnsym.engines.concrete.interning import intern
from lnsym.engines.concrete.values import _free_variables
from lnsym.errors import UnsupportedError
from lnsym.ir.calculus import OperatorNorm
from lnsym.ir.layers import Normalization

_ZERO, _ONE = sympy.Integer(0), sympy.Integer(1)
#: Nodes whose value at rational points is rational (no roots, derivatives or bindings).
_RATIONAL_NODES = (
    ir.VectorAtom, ir.Ones, ir.VectorSum, ir.Scaled, ir.Hadamard, ir.Const, ir.Dot,
    ir.ScalarSum, ir.ScalarProduct, ir.Mean, ir.Center, ir.Var,
)  # fmt: skip


def _polynomial(e: ir.Expr) -> bool:
    """Whether ``e`` is rational at rational points: rational nodes, integer powers, and
    constants without irrational numbers (√2, π) — scalars are drawn rational."""
    return all(
        (isinstance(n, _RATIONAL_NODES) and not isinstance(n, ir.Const))
        or (isinstance(n, ir.Const) and _rational_constant(n.value))
        or (isinstance(n, ir.Power) and n.exponent.is_integer is True)
        for n in ir.distinct_nodes(e)
    )


def _rational_constant(value: sympy.Expr) -> bool:
    if value.atoms(sympy.NumberSymbol, sympy.Function):
        return False
    return all(p.exp.is_integer is True for p in value.atoms(sympy.Pow))


def _principal(e: ir.Expr, seen: dict[int, ir.Expr] | None = None) -> ir.Expr | None:
    """The statistic t of the first free layer √(t + ε) (t = q(a) for layer norm): the root
    the checks make rational, when t is rational at rational points.

    ``seen`` holds the objects already searched in vain (by id): a shared part is searched
    once."""
    seen = {} if seen is None else seen
    if id(e) in seen:
        return None
    seen[id(e)] = e
    match e:
        case Normalization(eps=ir.Const(value=v)) if v == ir.eps:
            statistic = e.statistic()
            if _polynomial(statistic) and ir.eps not in _free_variables(statistic)[1]:
                return statistic
        case ir.Substitution():
            return None  # a root under a substitution is not the claim's own root
    for child in e.children():
        found = _principal(child, seen)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class _Problem:
    """``lhs`` against ``rhs`` (equal, or lhs ≤ rhs) with the claim's variables and hypotheses."""

    lhs: ir.Expr
    rhs: ir.Expr
    relation: str  # "eq" | "le"
    atoms: tuple[str, ...]
    symbols: tuple[sympy.Symbol, ...]
    assumptions: tuple[ir.Assumption, ...]
    principal: ir.Expr | None
    #: Whether an operator norm occurs: it has a value only at numeric points.
    pointwise: bool = False
    #: Further scalars evaluated at every point: the terms of an inequality's certificate.
    extras: tuple[ir.Expr, ...] = ()

    @staticmethod
    def of(
        lhs: ir.Expr,
        rhs: ir.Expr,
        relation: str,
        assumptions: Sequence[ir.Assumption],
        extras: Sequence[ir.Expr] = (),
    ) -> _Problem:
        for n in ir.distinct_nodes(lhs, rhs, *extras):
            if not isinstance(n, ir.Const):
                continue
            undefined = n.value.atoms(AppliedUndef)
            if undefined:
                name = sorted(str(f.func) for f in undefined)[0]
                raise UnsupportedError(f"the constant {n.value} uses the undefined function {name}")
        atoms, symbols = _free_variables(ir.add(lhs, ir.negate(rhs)))
        for term in extras:
            a, s = _free_variables(term)
            atoms, symbols = atoms | a, symbols | s
        for assumption in assumptions:
            atoms |= {v.name for v in vars(assumption).values() if isinstance(v, ir.VectorAtom)}
        principal = _principal(lhs) or _principal(rhs)
        if ir.eps not in symbols:
            principal = None
        return _Problem(
            lhs,
            rhs,
            relation,
            tuple(sorted(atoms)),
            tuple(sorted(symbols, key=lambda s: s.name)),
            tuple(assumptions),
            principal,
            any(isinstance(n, OperatorNorm) for n in ir.distinct_nodes(lhs, rhs)),
            tuple(extras),
        )

    @cached_property
    def interned(self) -> tuple[ir.Expr, ir.Expr, tuple[ir.Expr, ...]]:
        """lhs, rhs and the extra terms, interned for :mod:`lnsym.engines.concrete.exact`."""
        return (
            intern(self.lhs),
            intern(self.rhs),
            tuple(intern(t) for t in self.extras),
        )

    # The facts below are asked for at every point drawn: found once per problem.
    @cached_property
    def _nodes(self) -> tuple[ir.Expr, ...]:
        return tuple(ir.distinct_nodes(self.lhs, self.rhs, *self.extras))

    def nodes(self) -> list[ir.Expr]:
        """Every node of both sides and of the extra terms (each object once)."""
        return list(self._nodes)

    def constants(self) -> list[sympy.Rational]:
        """The rational numbers written in the claim (where its boundaries tend to be)."""
        return list(self._constants)

    @cached_property
    def _constants(self) -> tuple[sympy.Rational, ...]:
        found: set[sympy.Rational] = set()
        for n in self._nodes:
            if isinstance(n, ir.Const):
                found |= {abs(r) for r in n.value.atoms(sympy.Rational) if 0 < abs(r) <= 10**12}
        return tuple(sorted(found))

    def exponents(self) -> set[sympy.Symbol]:
        """Symbols in an exponent: they take small values only (2^(10¹⁵) is not computable)."""
        return set(self._exponents)

    @cached_property
    def _exponents(self) -> frozenset[sympy.Symbol]:
        found: set[sympy.Symbol] = set()
        for n in self._nodes:
            if isinstance(n, ir.Power):
                found |= n.exponent.free_symbols
            elif isinstance(n, ir.Const):
                for p in n.value.atoms(sympy.Pow):
                    found |= p.exp.free_symbols
        return frozenset(found)

    def scalar_only(self) -> bool:
        """Whether no vector occurs: then d is just a number and any d is cheap to try."""
        return not self.atoms and all(n.kind == "scalar" for n in self._nodes)

    def constraints(self, atom: str) -> list[str | None]:
        """Rows of the linear constraints on ``atom``: None for ⟨1, atom⟩ = 0, else a partner
        (each once: an assumption stated twice is one constraint)."""
        rows: list[str | None] = []
        for a in self.assumptions:
            if isinstance(a, ir.Centered) and a.atom.name == atom:
                rows.append(None)
            if isinstance(a, ir.Orthogonal) and a.right.name == atom:
                rows.append(a.left.name)
        return list(dict.fromkeys(rows))

    def overdetermined(self, d: int) -> bool:
        """Whether some atom meets d or more linear constraints at dimension ``d``, one of them
        with a partner: the points drawn then make it 0 (what the constraints leave for
        partners in general position), but the assumptions also hold at special points —
        partners that are dependent, or 0, where the atom need not be 0 — which no point
        drawn reaches. Checks there prove nothing."""
        # (⟨1, atom⟩ = 0 alone never degenerates: 1 is never 0, and at d = 1 atom is 0.)
        return any(
            len(rows) >= d and rows != [None] for rows in map(self.constraints, self.atoms)
        )

    def satisfiable(self, d: int) -> bool:
        """Whether the assumptions admit ``d`` (a non-constant atom needs d ≥ 2)."""
        return ir.admits(self.assumptions, d)


def _constrain(
    problem: _Problem, vectors: dict[str, tuple[sympy.Expr, ...]], d: int
) -> dict[str, tuple[sympy.Expr, ...]] | None:
    """Solve the last coordinates of constrained atoms from their linear constraints.

    Returns None where the constraints are degenerate (a vanishing determinant).
    """
    out = dict(vectors)
    for atom in problem.atoms:
        rows = [(_ONE,) * d if r is None else out[r] for r in problem.constraints(atom)]
        if not rows:
            continue
        k = len(rows)
        if k >= d:  # the constraints leave only the zero vector (generically)
            out[atom] = (_ZERO,) * d
            continue
        free = out[atom][: d - k]
        matrix = sympy.Matrix([list(row[d - k :]) for row in rows])
        det = sympy.expand(matrix.det())
        if det == 0:
            return None
        rhs = sympy.Matrix(
            [-sympy.Add(*(r * x for r, x in zip(row, free, strict=False))) for row in rows]
        )
        solved = matrix.adjugate() * rhs / det
        out[atom] = (*free, *solved)
    return out


def _assumptions_hold(problem: _Problem, vectors: Mapping[str, tuple[sympy.Expr, ...]]) -> bool:
    return all(a.holds(vectors) for a in problem.assumptions)
