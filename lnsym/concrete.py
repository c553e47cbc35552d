"""The concrete engine: the IR at a fixed dimension d, with SymPy's own calculus and exact checks.

A vector atom ``z`` becomes the real symbols z_1, …, z_d (or numbers at a point), ``ones`` the
all-ones tuple and ``lnsym.d`` the integer d; scalar constants stay SymPy expressions and
defined nodes (mean, var, center, norm, core, layer norm) expand through ``definition()``.

Derivatives are SymPy's own (nothing here uses the rules of :mod:`lnsym.general`, so the two
engines check each other). D_z[f](h) is ``sympy.diff`` in a fresh symbol t of f(z + t·h) at
t = 0. A gradient, a vector-Jacobian product and a Jacobian are read off one such derivative
along a generic direction w = (w_1, …, w_d): D_w f is linear in w and its coefficients are the
partial derivatives. :func:`jacobian` uses ``Matrix.jacobian``. Three devices keep SymPy's
expressions short, none of which changes a value: an inner product Σᵢ aᵢbᵢ is written as a
polynomial in t (and w) whose t-free coefficients get names (symbolic checks) or are expanded
numbers (at points); a power that depends on t is differentiated once, as F(t), instead of
once per coordinate; and terms of order t² are dropped, as they cannot change d/dt at t = 0.
With numbers for z and h only t is symbolic, which is what keeps d = 64 fast.

An identity is decided at each d without ``simplify`` (cheap on true claims, explosive on
false ones — and false claims are what a checker must reject fast):

- *symbolic* (d ≤ ``symbolic_up_to`` and while the expansion stays small): ε is
  reparametrized as s² − q with a new positive symbol s, for the variance q of the claim's
  layer input, so that √(q + ε) = s; any other square root becomes a generator r with
  r² = R. Both sides become num/den over a sparse polynomial ring (``sympy.polys.rings``,
  no gcds); they are equal when num reduces to 0 modulo the relations r² − R.
- *random-rational* (otherwise): both sides are evaluated exactly at random integer points,
  with s drawn first and ε = s² − q so that the root stays rational. By the Schwartz–Zippel
  lemma a false identity survives one point with probability at most 2^(k+2)·D/N, where D
  bounds the degree of the difference (:func:`_degree`), k counts the other square roots
  (the product of the conjugates is a polynomial) and N = 10¹⁵ is the sample range; the
  factor 4 pays for drawing s after the other variables and for redrawing points where a
  denominator vanishes. That needs the k roots to be independent, which each point
  certifies (:func:`_certified`: no product of radicand values is a rational square);
  otherwise — √(h²) = |h| is a polynomial on half the space only — the outcome is at best
  "consistent". The evidence states the bound.

A failing identity is refuted by an exact counterexample at the smallest failing d: the first
point in order of size (entries 0, 1, −1, 2, …; ε and positive scalars 1, 2, 1/2, 3, …) that
satisfies the assumptions and violates the claim. Inequalities hold only through their
certificate (identity exact at every d, every term nonnegative by :func:`lnsym.proof.sign`);
otherwise they are searched for a violation and at best called consistent. So are operator
norms, which are evaluated only at exact points (eigenvalues of JᵀJ).

>>> from lnsym import vector, core, Eq, eps, jvp, ones
>>> z = vector("z")
>>> instantiate(core(z), 3, {z: [1, 2, 3], eps: sympy.Rational(1, 3)}).T
Matrix([[-1, 0, 1]])
>>> evidence(Claim("kills_ones", Eq(jvp(core(z), z, ones), 0)), max_d=4).detail
'exact for d = 1..4 (symbolic reduction with s² = q + ε)'
>>> refuted = evidence(Claim("scale", Eq(jvp(core(z), z, z), 0)))
>>> refuted.outcome, refuted.data["counterexample"]["d"], refuted.data["counterexample"]["vectors"]
('counterexample', 2, {'z': ['0', '1']})
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import reduce
from typing import Any, TypeAlias

import sympy
from sympy.core.evalf import PrecisionExhausted
from sympy.core.function import AppliedUndef
from sympy.core.sorting import default_sort_key
from sympy.polys.domains import QQ
from sympy.polys.rings import PolyElement, ring

from lnsym import expr as ir
from lnsym.calculus import Grad, Jvp, OperatorNorm, Vjp
from lnsym.claims import Claim, Evidence
from lnsym.errors import DomainError, ExpressionError, UnsupportedError
from lnsym.layers import Core, LayerNorm
from lnsym.proof import UNKNOWN, sign
from lnsym.report.printer import text

#: A vector value is a tuple of d SymPy expressions, a scalar value one SymPy expression.
Value: TypeAlias = sympy.Expr | tuple[sympy.Expr, ...]

#: Random points draw integers from [−N, N] (positive quantities from [1, N]).
SAMPLE_RANGE = 10**15
#: Random points per dimension for a random-rational check.
POINTS = 2
#: Limits of the counterexample search per dimension (deterministic, not timed).
GRID_EVALUATIONS = 120
GRID_CANDIDATES = 5_000
MODERATE_POINTS = 10
#: Term products allowed in one symbolic reduction before exact points take over.
SYMBOLIC_WORK = 50_000
#: A smaller search where random points already support the claim but cannot prove it.
SPOT_CHECKS = 2

_ZERO, _ONE = sympy.Integer(0), sympy.Integer(1)


# ---------------------------------------------------------------------------------------
# Instantiation


class _Names:
    """Names for inner products, so that SymPy differentiates short expressions.

    A sum Σᵢ aᵢbᵢ over d coordinates is the bulk of every symbolic expression. It is written
    as a polynomial in the symbols that must stay visible — the perturbations t, the F(t) of
    :meth:`_Evaluator._abbreviate` and a generic direction w — and each coefficient, free of
    them, gets a name K: d/dt then treats K as the constant it is. The polynomial reduction
    (:class:`_Fractions`) expands every name again, once.
    """

    def __init__(self) -> None:
        self.definitions: dict[sympy.Symbol, sympy.Expr] = {}
        self._names: dict[sympy.Expr, sympy.Symbol] = {}

    def group(self, terms: Sequence[sympy.Expr], keep: set[sympy.Expr]) -> sympy.Expr:
        """The sum of ``terms`` grouped by their monomials in ``keep``, coefficients named."""
        groups: dict[sympy.Expr, list[sympy.Expr]] = {}
        for term in terms:
            coefficient, monomial = term.as_independent(*keep, as_Add=False)
            groups.setdefault(monomial, []).append(coefficient)
        return sympy.Add(*(self.name(sympy.Add(*c)) * m for m, c in groups.items()))

    def name(self, e: sympy.Expr) -> sympy.Expr:
        """A name for ``e`` (small expressions stand for themselves)."""
        if e.is_Atom or (e.is_Mul and len(e.args) == 2 and e.args[0].is_Number):
            return e
        name = self._names.get(e)
        if name is None:
            name = self._names[e] = sympy.Dummy(f"K{len(self._names)}")
            self.definitions[name] = e
        return name


class _Evaluator:
    """Values of IR nodes for one binding of the vector atoms and scalar symbols (memoized).

    Args:
        d: the dimension.
        vectors: the value (d SymPy expressions) of each vector atom.
        scalars: values of scalar symbols (others stay symbols).
        expand: expand inner products (at numeric points, where a scalar of f(z + t·h) is
            then a short polynomial in t).
        names: name inner products (symbolic checks); without ``expand`` or ``names`` they
            are kept as they are (:func:`instantiate`).
        perturbations: the symbols t of the directional derivatives being taken, innermost
            last.
        generic: the symbols of generic directions whose coefficients are read off.
        level: where powers depending on the innermost t are recorded as F(t).
        radicands: where the radicand of every square root is recorded (at t = 0).
    """

    def __init__(
        self,
        d: int,
        vectors: Mapping[str, tuple[sympy.Expr, ...]],
        scalars: Mapping[sympy.Symbol, sympy.Expr],
        *,
        expand: bool = False,
        names: _Names | None = None,
        perturbations: tuple[sympy.Symbol, ...] = (),
        generic: tuple[sympy.Symbol, ...] = (),
        level: list[tuple[sympy.Expr, sympy.Expr]] | None = None,
        radicands: list[sympy.Expr] | None = None,
    ) -> None:
        self.d = d
        self.vectors = dict(vectors)
        self.scalars = {**scalars, ir.d: sympy.Integer(d)}
        self.expand = expand
        self.names = names
        self.perturbations = perturbations
        self.generic = generic
        self.level = level
        self.radicands = radicands
        self._memo: dict[ir.Expr, Value] = {}

    def value(self, e: ir.Expr) -> Value:
        """The value of ``e``: a tuple of d expressions for a vector, else one expression."""
        found = self._memo.get(e)
        if found is None:
            found = self._memo[e] = self._value(e)
        return found

    def _rebind(
        self,
        vectors: Mapping[str, tuple[sympy.Expr, ...]] | None = None,
        scalars: Mapping[sympy.Symbol, sympy.Expr] | None = None,
        perturbation: sympy.Symbol | None = None,
        generic: tuple[sympy.Symbol, ...] = (),
    ) -> _Evaluator:
        return _Evaluator(
            self.d,
            {**self.vectors, **(vectors or {})},
            {**self.scalars, **(scalars or {})},
            expand=self.expand,
            names=self.names,
            perturbations=self.perturbations + ((perturbation,) if perturbation else ()),
            generic=self.generic + generic,
            level=[] if perturbation else self.level,
            radicands=self.radicands,
        )

    def _value(self, e: ir.Expr) -> Value:
        match e:
            case ir.VectorAtom(name=name):
                if name not in self.vectors:
                    raise UnsupportedError(f"the vector {name} has no value")
                return self.vectors[name]
            case ir.Ones():
                return (_ONE,) * self.d
            case ir.Const(value=v):
                return v.xreplace(self.scalars)
            case ir.VectorSum(terms=terms):
                return tuple(
                    sympy.Add(*xs) for xs in zip(*(self._vec(t) for t in terms), strict=True)
                )
            case ir.Scaled(coefficient=c, vector=v):
                k = self._sca(c)
                return tuple(k * x for x in self._vec(v))
            case ir.Hadamard(left=a, right=b):
                return tuple(x * y for x, y in zip(self._vec(a), self._vec(b), strict=True))
            case ir.Dot(left=a, right=b):
                return self._collect(
                    sympy.Add(*(x * y for x, y in zip(self._vec(a), self._vec(b), strict=True)))
                )
            case ir.ScalarSum(terms=terms):
                return sympy.Add(*(self._sca(t) for t in terms))
            case ir.ScalarProduct(factors=factors):
                return sympy.Mul(*(self._sca(f) for f in factors))
            case ir.Power(base=base, exponent=n):
                value = self._sca(base)
                if self.radicands is not None and n.is_Rational and n.q == 2:
                    at_zero = {t: _ZERO for t in self.perturbations + self.generic}
                    self.radicands.append(value.xreplace(at_zero))
                return self._abbreviate(value**n)
            case ir.Substitution(expr=inner, target=target, value=bound):
                if isinstance(target, ir.VectorAtom):
                    return self._rebind(vectors={target.name: self._vec(bound)}).value(inner)
                assert isinstance(target, ir.Const)
                return self._rebind(scalars={target.value: self._sca(bound)}).value(inner)
            case Jvp(expr=f, wrt=wrt, direction=h):
                return self._directional(f, wrt, self._vec(h))
            case Grad(expr=f, wrt=wrt):
                return self._linear_form(f, wrt)
            case Vjp(expr=f, wrt=wrt, cotangent=g):
                # Jᵀg = ∇⟨g, f⟩ with g held fixed: g is evaluated before wrt moves.
                return self._linear_form(f, wrt, self._vec(g))
            case OperatorNorm(expr=f, wrt=wrt):
                return self._operator_norm(f, wrt)
            case ir.Defined():
                return self.value(e.definition())
        raise UnsupportedError(f"the concrete engine cannot evaluate {type(e).__name__}")

    def _vec(self, e: ir.Expr) -> tuple[sympy.Expr, ...]:
        return self.value(e)

    def _sca(self, e: ir.Expr) -> sympy.Expr:
        return self.value(e)

    def _collect(self, total: sympy.Expr) -> sympy.Expr:
        """A sum over coordinates, kept short: expanded at numbers, named when symbolic."""
        keep = {t for t in self.perturbations + self.generic if total.has(t)}
        if self.names is not None and not keep:
            return self.names.name(total)
        if self.names is None and not self.expand:
            return total
        terms = sympy.Add.make_args(sympy.expand(total))
        if self.perturbations:
            # Terms of order t² cannot change d/dt at t = 0, the only use of this value.
            t = self.perturbations[-1]
            terms = tuple(x for x in terms if x.as_powers_dict().get(t, 0) < 2)
        if self.names is None:
            return sympy.Add(*terms)
        return self.names.group(terms, keep | total.atoms(AppliedUndef))

    def _abbreviate(self, value: sympy.Expr) -> sympy.Expr:
        """Write a power that depends on the innermost t as F(t), so SymPy differentiates it
        once (in :meth:`_directional`) instead of once in every coordinate that holds it."""
        if self.level is None or value.is_Atom or not value.has(self.perturbations[-1]):
            return value
        if any(value.has(t) for t in self.perturbations[:-1]):
            return value
        function = sympy.Function(f"F{len(self.level)}")(self.perturbations[-1])
        self.level.append((function, value))
        return function

    def _directional(
        self,
        f: ir.Expr,
        wrt: ir.VectorAtom,
        direction: tuple[sympy.Expr, ...],
        cotangent: tuple[sympy.Expr, ...] | None = None,
        generic: tuple[sympy.Symbol, ...] = (),
    ) -> Value:
        """d/dt at t = 0 of f (or of ⟨cotangent, f⟩) with wrt moved to wrt + t·direction."""
        t = sympy.Dummy("t")
        moved = tuple(x + t * h for x, h in zip(self._vec(wrt), direction, strict=True))
        child = self._rebind(vectors={wrt.name: moved}, perturbation=t, generic=generic)
        value = child.value(f)
        if cotangent is not None:
            value = child._collect(
                sympy.Add(*(g * x for g, x in zip(cotangent, value, strict=True)))
            )
        # F(t) and F'(t) at t = 0, from SymPy's derivative of each definition, in order.
        at_zero: dict[sympy.Expr, sympy.Expr] = {t: _ZERO}
        for function, definition in child.level or ():
            at_zero[sympy.Derivative(function, t)] = sympy.diff(definition, t).xreplace(at_zero)
            at_zero[function] = definition.xreplace(at_zero)
        if isinstance(value, tuple):
            return tuple(sympy.diff(x, t).xreplace(at_zero) for x in value)
        return sympy.diff(value, t).xreplace(at_zero)

    def _linear_form(
        self, f: ir.Expr, wrt: ir.VectorAtom, cotangent: tuple[sympy.Expr, ...] | None = None
    ) -> Any:
        """The coefficients of D_w f (or of D_w⟨cotangent, f⟩) in a generic direction w.

        D_w f = J·w is linear in w, so its coefficients are the columns of J: for a scalar
        they form the gradient (⟨∇f, w⟩ = D_w f), for a vector the rows of the Jacobian.
        """
        w = tuple(sympy.Dummy(f"w{i}") for i in range(self.d))
        value = self._directional(f, wrt, w, cotangent, generic=w)

        def coefficients(x: sympy.Expr) -> tuple[sympy.Expr, ...]:
            found = sympy.expand(x).as_coefficients_dict(*w)
            return tuple(found.get(wi, _ZERO) for wi in w)

        if isinstance(value, tuple):
            return tuple(coefficients(x) for x in value)
        return coefficients(value)

    def _operator_norm(self, f: ir.Expr, wrt: ir.VectorAtom) -> sympy.Expr:
        """‖J‖₂ = √(largest eigenvalue of JᵀJ), exactly, at a point where J is numeric."""
        jac = sympy.Matrix(self._linear_form(f, wrt))
        if jac.free_symbols:  # a symbolic point: the maximum has no closed form
            raise UnsupportedError("an operator norm is evaluated only at exact numeric points")
        found = sympy.roots((jac.T * jac).charpoly())
        if sum(found.values()) != self.d:
            raise UnsupportedError("the eigenvalues of JᵀJ have no closed form here")
        return sympy.sqrt(max(found, key=lambda lam: sympy.re(lam.evalf(50))))


def _coordinates(name: str, d: int) -> tuple[sympy.Symbol, ...]:
    return tuple(sympy.Symbol(f"{name}_{i}", real=True) for i in range(1, d + 1))


def _number(x: Any) -> sympy.Expr:
    value = ir.as_scalar(x)  # refuses floats and strings
    if not isinstance(value, ir.Const):
        raise ExpressionError(f"{x!r} is not a number")
    return value.value


def _bind(
    values: Mapping[Any, Any] | None, d: int
) -> tuple[dict[str, tuple[sympy.Expr, ...]], dict[sympy.Symbol, sympy.Expr]]:
    vectors: dict[str, tuple[sympy.Expr, ...]] = {}
    scalars: dict[sympy.Symbol, sympy.Expr] = {}
    for key, val in (values or {}).items():
        if isinstance(key, ir.VectorAtom | str):
            name = key.name if isinstance(key, ir.VectorAtom) else key
            entries = tuple(_number(x) for x in val)
            if len(entries) != d:
                raise ExpressionError(f"{name} needs {d} entries, got {len(entries)}")
            vectors[name] = entries
        elif isinstance(key, sympy.Symbol) and key != ir.d:
            scalars[key] = _number(val)
        else:
            raise ExpressionError(f"cannot assign a value to {key!r}")
    return vectors, scalars


def instantiate(
    e: ir.Expr, d: int, values: Mapping[Any, Any] | None = None
) -> sympy.Expr | sympy.Matrix:
    """The expression at dimension ``d``: a column Matrix for a vector, else a SymPy scalar.

    Args:
        e: an IR expression.
        d: the dimension.
        values: optional values: a vector atom (or its name) to d numbers, a scalar symbol
            (such as ``lnsym.eps``) to a number. Unassigned atoms become symbols z_1, …, z_d.

    Returns:
        The exact value (nothing is simplified beyond SymPy's automatic evaluation).

    Raises:
        ExpressionError: for malformed values (floats and strings are refused).

    >>> from lnsym import vector, mean
    >>> instantiate(mean(vector("z")), 2)
    z_1/2 + z_2/2
    """
    vectors, scalars = _bind(values, d)
    for name in sorted(_free_variables(e)[0]):
        vectors.setdefault(name, _coordinates(name, d))
    value = _Evaluator(d, vectors, scalars).value(e)
    return sympy.Matrix(value) if isinstance(value, tuple) else value


def jacobian(
    e: ir.Expr, wrt: ir.VectorAtom, d: int, values: Mapping[Any, Any] | None = None
) -> sympy.Matrix:
    """The Jacobian of ``e`` with respect to ``wrt`` by ``Matrix.jacobian``, at ``values``.

    >>> from lnsym import vector, core, eps
    >>> z = vector("z")
    >>> jacobian(core(z), z, 2, {z: [-1, 1], eps: 3})
    Matrix([
    [ 3/16, -3/16],
    [-3/16,  3/16]])
    """
    vectors, scalars = _bind(values, d)
    point = vectors.pop(wrt.name, None)
    coords = _coordinates(wrt.name, d)
    vectors[wrt.name] = coords
    for name in sorted(_free_variables(e)[0]):
        vectors.setdefault(name, _coordinates(name, d))
    value = _Evaluator(d, vectors, scalars).value(e)
    column = sympy.Matrix(value if isinstance(value, tuple) else [value])
    jac = column.jacobian(sympy.Matrix(coords))
    return jac if point is None else jac.xreplace(dict(zip(coords, point, strict=True)))


# ---------------------------------------------------------------------------------------
# The problem: what is compared, over which variables, under which assumptions


def _free_variables(
    e: ir.Expr,
    bound_atoms: frozenset[str] = frozenset(),
    bound_symbols: frozenset[sympy.Symbol] = frozenset(),
) -> tuple[set[str], set[sympy.Symbol]]:
    """The vector atoms and scalar symbols that ``e`` depends on (not bound by a substitution)."""
    atoms: set[str] = set()
    symbols: set[sympy.Symbol] = set()
    match e:
        case ir.VectorAtom(name=name):
            if name not in bound_atoms:
                atoms.add(name)
        case ir.Const(value=v):
            symbols |= {s for s in v.free_symbols if s != ir.d} - bound_symbols
        case ir.Substitution(expr=inner, target=target, value=bound):
            a, s = _free_variables(bound, bound_atoms, bound_symbols)
            if isinstance(target, ir.VectorAtom):
                b = _free_variables(inner, bound_atoms | {target.name}, bound_symbols)
            else:
                assert isinstance(target, ir.Const)
                b = _free_variables(inner, bound_atoms, bound_symbols | {target.value})
            atoms, symbols = a | b[0], s | b[1]
        case _:
            for child in e.children():
                a, s = _free_variables(child, bound_atoms, bound_symbols)
                atoms |= a
                symbols |= s
    return atoms, symbols


def _principal(e: ir.Expr) -> ir.Expr | None:
    """The argument a of the first free layer √(q(a) + ε): the root the checks make rational."""
    match e:
        case Core(arg=a, eps=ir.Const(value=v)) | LayerNorm(arg=a, eps=ir.Const(value=v)):
            plain = not any(
                isinstance(n, Jvp | Vjp | Grad | OperatorNorm | ir.Substitution) for n in ir.walk(a)
            )
            if v == ir.eps and plain and ir.eps not in _free_variables(a)[1]:
                return a
        case ir.Substitution():
            return None  # a root under a substitution is not the claim's own root
    for child in e.children():
        found = _principal(child)
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

    @staticmethod
    def of(
        lhs: ir.Expr, rhs: ir.Expr, relation: str, assumptions: Sequence[ir.Assumption]
    ) -> _Problem:
        atoms, symbols = _free_variables(ir.add(lhs, ir.negate(rhs)))
        for a in assumptions:
            atoms |= {v.name for v in vars(a).values() if isinstance(v, ir.VectorAtom)}
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
            any(isinstance(n, OperatorNorm) for side in (lhs, rhs) for n in ir.walk(side)),
        )

    def constraints(self, atom: str) -> list[str | None]:
        """Rows of the linear constraints on ``atom``: None for ⟨1, atom⟩ = 0, else a partner."""
        rows: list[str | None] = []
        for a in self.assumptions:
            if isinstance(a, ir.Centered) and a.atom.name == atom:
                rows.append(None)
            if isinstance(a, ir.Orthogonal) and a.right.name == atom:
                rows.append(a.left.name)
        return rows

    def satisfiable(self, d: int) -> bool:
        """Whether some point satisfies the assumptions at ``d`` (a non-constant needs d ≥ 2)."""
        return d >= 2 or not any(isinstance(a, ir.Nonconstant) for a in self.assumptions)


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
    for a in problem.assumptions:
        if isinstance(a, ir.Centered) and sum(vectors[a.atom.name]) != 0:
            return False
        if isinstance(a, ir.Orthogonal):
            left, right = vectors[a.left.name], vectors[a.right.name]
            if sum(x * y for x, y in zip(left, right, strict=True)) != 0:
                return False
        if isinstance(a, ir.Nonconstant) and len(set(vectors[a.atom.name])) < 2:
            return False
    return True


# ---------------------------------------------------------------------------------------
# Symbolic decision: fractions over a sparse polynomial ring, modulo r² = R


class _TooLarge(UnsupportedError):
    """The symbolic reduction would be slower than exact random points."""


class _Fractions:
    """SymPy expressions as num / Π fᵏ over QQ[roots, s, symbols], without any gcd.

    ``definitions`` maps names (and ε ↦ s² − q) to what they stand for. Square roots become
    ring generators r with r² = R, outermost first, so that the relations form a Gröbner
    basis in lex order (their leading terms r² are coprime); √(s²) is s itself.
    """

    def __init__(
        self,
        exprs: Sequence[sympy.Expr],
        s: sympy.Symbol | None,
        definitions: Mapping[sympy.Symbol, sympy.Expr],
    ) -> None:
        self.definitions = definitions
        everything = [*exprs, *definitions.values()]
        depth: dict[sympy.Expr, int] = {}
        radicands = {r for x in everything for r in _radicands(x)}
        order = sorted(radicands, key=lambda r: (-self._depth(r, depth), default_sort_key(r)))
        symbols = {v for x in everything for v in x.free_symbols} - {s, *definitions}
        root_symbols = [sympy.Dummy(f"r{i}") for i in range(len(order))]
        gens = [*root_symbols, *([s] if s is not None else []), *sorted(symbols, key=str)]
        self.ring, *ring_gens = ring(gens or [sympy.Dummy("unused")], QQ)
        self.gen = dict(zip(gens, ring_gens, strict=False))
        self.slot = {r: self.gen[root] for r, root in zip(order, root_symbols, strict=True)}
        self.s = self.gen.get(s) if s is not None else None
        # Generators known positive (s, ε, declared scalars): their squares leave a root.
        self.positive = [i for i, g in enumerate(gens) if g.is_positive]
        # (n·D, D) → the generator r = √(n·D) that stands for √(n/D)·D.
        self.roots: dict[tuple[PolyElement, PolyElement], PolyElement] = {}
        self._memo: dict[sympy.Expr, tuple[PolyElement, dict[PolyElement, int]]] = {}
        self.work = 0

    def _depth(self, e: sympy.Expr, memo: dict[sympy.Expr, int]) -> int:
        """How deeply square roots nest inside ``e`` (through names too)."""
        if e not in memo:
            found = 0
            for node in sympy.preorder_traversal(e):
                if node in self.definitions:
                    found = max(found, self._depth(self.definitions[node], memo))
                elif _is_radical(node):
                    found = max(found, 1 + self._depth(node.args[0], memo))
            memo[e] = found
        return memo[e]

    def convert(self, e: sympy.Expr) -> tuple[PolyElement, dict[PolyElement, int]]:
        found = self._memo.get(e)
        if found is None:
            found = self._memo[e] = self._convert(e)
        return found

    def _convert(self, e: sympy.Expr) -> tuple[PolyElement, dict[PolyElement, int]]:
        R = self.ring
        if e.is_Rational:
            return R(QQ(int(e.p), int(e.q))), {}
        if e.is_Symbol:
            if e in self.definitions:
                return self.convert(self.definitions[e])
            return self.gen[e], {}
        if e.is_Add:
            parts = [self.convert(a) for a in e.args]
            common: dict[PolyElement, int] = {}
            for _, den in parts:
                for f, k in den.items():
                    common[f] = max(common.get(f, 0), k)
            num = R.zero
            for n, den in parts:
                for f, k in common.items():
                    if k > den.get(f, 0):
                        n = self._mul(n, self._pow(f, k - den.get(f, 0)))
                num += n
            return num, common
        if e.is_Mul:
            num, den = R.one, {}
            for a in e.args:
                n, dd = self.convert(a)
                num = self._mul(num, n)
                for f, k in dd.items():
                    den[f] = den.get(f, 0) + k
            return num, den
        if isinstance(e, sympy.Abs):
            return self._root(e.args[0] ** 2, 1)
        if e.is_Pow and e.exp.is_Rational:
            if e.exp.q == 1:
                n, dd = self.convert(e.base)
                k = int(e.exp)
                if k >= 0:
                    return self._pow(n, k), {f: j * k for f, j in dd.items()}
                return self._over(self._product(dd, -k), n, -k)
            if e.exp.q == 2:
                return self._root(e.base, int(e.exp.p))
        raise UnsupportedError(f"no polynomial reduction for {type(e).__name__} ({e})")

    def _root(self, radicand: sympy.Expr, p: int) -> tuple[PolyElement, dict[PolyElement, int]]:
        """(√radicand)^p, with √(n/D) written r/D for a generator r with r² = n·D.

        (That is √(n·D)/|D| up to the sign of D; reducing modulo r² − n·D proves an identity
        for both signs of r, so the sign cannot matter. Only √(s²) is replaced by s > 0.)
        """
        n, dd = self.convert(radicand)
        den = self._product(dd, 1)
        rad = self._mul(n, den)
        if not rad:
            if p < 0:
                raise DomainError("division by the square root of 0")
            return self.ring.zero, {}
        # √(m²·rad) = m·√rad for a monomial m in positive generators.
        m = self.ring.one
        for i in self.positive:
            k = min(monomial[i] for monomial in rad.itermonoms()) // 2
            m = m * self.ring.gens[i] ** k
        rad = rad.exquo(m**2)
        if self.s is not None and den == 1 and rad == self.s**2:
            root = m * self.s
        else:
            root = m * self.roots.setdefault((rad, den), self.slot[radicand])
        if p >= 0:
            return self._over(self._pow(root, p), den, p)
        return self._over(self._pow(den, -p), root, -p)

    def _over(
        self, num: PolyElement, f: PolyElement, k: int
    ) -> tuple[PolyElement, dict[PolyElement, int]]:
        """num / fᵏ with f made monic, so equal factors are equal keys."""
        if k == 0:
            return num, {}
        if f.is_ground:
            if f == 0:
                raise DomainError("division by zero")
            return num.quo_ground(f.LC**k), {}
        return num.quo_ground(f.LC**k), {f.monic(): k}

    def _mul(self, a: PolyElement, b: PolyElement) -> PolyElement:
        # A deterministic size guard: past it, exact random points are the cheaper check.
        self.work += len(a) * len(b)
        if self.work > SYMBOLIC_WORK:
            raise _TooLarge("the expansion is too large for the symbolic reduction")
        return a * b

    def _pow(self, a: PolyElement, k: int) -> PolyElement:
        out = self.ring.one
        for _ in range(k):
            out = self._mul(out, a)
        return out

    def _product(self, factors: Mapping[PolyElement, int], times: int) -> PolyElement:
        out = self.ring.one
        for f, k in factors.items():
            out = self._mul(out, self._pow(f, k * times))
        return out

    def vanishes(self, e: sympy.Expr) -> bool:
        """Whether ``e`` is identically zero (True is exact; False may mean "not canonical")."""
        num, den = self.convert(e)
        basis = [root**2 - rad for (rad, _), root in self.roots.items()]
        if basis:
            num = num.rem(basis)
        if any((f.rem(basis) if basis else f) == 0 for f in den):
            raise DomainError("a denominator vanishes identically")
        return bool(num == 0)


def _is_radical(e: sympy.Basic) -> bool:
    return isinstance(e, sympy.Abs) or bool(e.is_Pow and e.exp.is_Rational and e.exp.q == 2)


def _radicands(e: sympy.Expr) -> set[sympy.Expr]:
    out = set()
    for node in sympy.preorder_traversal(e):
        if isinstance(node, sympy.Abs):
            out.add(node.args[0] ** 2)
        elif _is_radical(node):
            out.add(node.base)
    return out


def _differences(lhs: Value, rhs: Value) -> list[sympy.Expr]:
    if isinstance(lhs, tuple):
        return [a - b for a, b in zip(lhs, rhs, strict=True)]
    return [lhs - rhs]


def _symbolic_zero(problem: _Problem, d: int) -> bool:
    """Whether lhs − rhs reduces to 0 at ``d`` for symbolic atoms (s² = q + ε).

    Raises:
        UnsupportedError: for expressions without a polynomial form (e.g. operator norms).
    """
    vectors = _constrain(problem, {a: _coordinates(a, d) for a in problem.atoms}, d)
    if vectors is None:
        raise UnsupportedError("the assumptions are degenerate at this dimension")
    names = _Names()
    ev = _Evaluator(d, vectors, {}, names=names)
    diffs = _differences(ev.value(problem.lhs), ev.value(problem.rhs))
    s, eps_value = None, None
    if problem.principal is not None:
        s = sympy.Dummy("s", positive=True)
        eps_value = s**2 - ev.value(ir.Var(problem.principal))
    definitions: dict[sympy.Symbol, sympy.Expr] = dict(names.definitions)
    if eps_value is not None:
        definitions[ir.eps] = eps_value
    fractions = _Fractions(diffs, s, definitions)
    return all(fractions.vanishes(x) for x in diffs)


# ---------------------------------------------------------------------------------------
# Degree bound for Schwartz–Zippel


@dataclass(frozen=True)
class _Degree:
    """Bounds on the degrees of num and den of a value num/den (common den for vectors).

    Square roots r = √(N·M) of a radicand N/M count with weight (deg N + deg M)/2 and are
    listed in ``roots`` as (key, weight); ε has weight 2 since it is replaced by s² − q.
    """

    num: Fraction
    den: Fraction
    roots: frozenset[tuple[Any, Fraction]] = frozenset()

    @property
    def weight(self) -> Fraction:
        return sum((w for _, w in self.roots), Fraction(0))


_CONSTANT = _Degree(Fraction(0), Fraction(0))


def _plus(a: _Degree, b: _Degree) -> _Degree:
    return _Degree(max(a.num + b.den, b.num + a.den), a.den + b.den, a.roots | b.roots)


def _times(a: _Degree, b: _Degree) -> _Degree:
    return _Degree(a.num + b.num, a.den + b.den, a.roots | b.roots)


def _raise(a: _Degree, n: sympy.Expr, key: Any) -> _Degree:
    if not n.is_Rational or n.q not in (1, 2):
        raise UnsupportedError(f"no degree bound for the exponent {n}")
    p = int(n.p)
    if n.q == 1:
        return (
            _Degree(p * a.num, p * a.den, a.roots)
            if p >= 0
            else _Degree(-p * a.den, -p * a.num, a.roots)
        )
    w = (a.num + a.den) / 2  # √(n/m) = √(n·m)/m
    roots = a.roots | {(key, w)}
    return _Degree(p * w, p * a.den, roots) if p > 0 else _Degree(-p * a.den, -p * w, roots)


def _derivative(f: _Degree, h: _Degree) -> _Degree:
    """D_h(P/Q) = (D_h P·Q − P·D_h Q)/Q², where D_h of a root r adds D_h(r²)/(2r)."""
    w = f.weight
    return _Degree(
        max(f.num + f.den - 1, Fraction(0)) + h.num + w, 2 * f.den + w + h.den, f.roots | h.roots
    )


def _compose(e: _Degree, v: _Degree) -> _Degree:
    """Degrees after replacing variables of weight ≤ c by values v = V/Q of degree ≤ c."""
    c = max(Fraction(1), v.num, v.den)
    scale = c + v.den
    roots = frozenset((key, w * scale) for key, w in e.roots) | v.roots
    return _Degree(e.num * c + e.den * v.den, e.den * c + e.num * v.den, roots)


def _sympy_degree(v: sympy.Expr) -> _Degree:
    if v.is_Rational:
        return _CONSTANT
    if v.is_Symbol:  # d is a number here; ε = s² − q has degree 2
        return _CONSTANT if v == ir.d else _Degree(Fraction(2 if v == ir.eps else 1), Fraction(0))
    if v.is_Add:
        return reduce(_plus, map(_sympy_degree, v.args))
    if v.is_Mul:
        return reduce(_times, map(_sympy_degree, v.args))
    if v.is_Pow:
        return _raise(_sympy_degree(v.base), v.exp, ("const", v.base))
    raise UnsupportedError(f"no degree bound for {v}")


def _degree(e: ir.Expr, frame: tuple[ir.Expr, ...] = ()) -> _Degree:
    """Degree bounds of ``e`` as a rational function of the coordinates, scalars, ε and roots."""
    match e:
        case ir.VectorAtom():
            return _Degree(Fraction(1), Fraction(0))
        case ir.Ones():
            return _CONSTANT
        case ir.Const(value=v):
            return _sympy_degree(v)
        case ir.VectorSum(terms=terms) | ir.ScalarSum(terms=terms):
            return reduce(_plus, (_degree(t, frame) for t in terms))
        case ir.Scaled() | ir.Hadamard() | ir.Dot() | ir.ScalarProduct():
            return reduce(_times, (_degree(c, frame) for c in e.children()))
        case ir.Power(base=base, exponent=n):
            return _raise(_degree(base, frame), n, (base, frame))
        case ir.Substitution(expr=inner, value=bound):
            return _compose(_degree(inner, (*frame, e)), _degree(bound, frame))
        case Jvp(expr=f, direction=h):
            return _derivative(_degree(f, frame), _degree(h, frame))
        case Grad(expr=f):
            return _derivative(_degree(f, frame), _CONSTANT)
        case Vjp(expr=f, cotangent=g):
            return _derivative(_times(_degree(g, frame), _degree(f, frame)), _CONSTANT)
        case ir.Defined():
            return _degree(e.definition(), frame)
    if isinstance(e, OperatorNorm):
        raise UnsupportedError("an operator norm is not a rational function of its inputs")
    raise UnsupportedError(f"no degree bound for {type(e).__name__}")


def _degrees(problem: _Problem) -> tuple[int, int]:
    """(D, D_r): degree bounds of lhs − rhs and of any radicand, as rational functions.

    Raises:
        UnsupportedError: for expressions without a degree bound (e.g. operator norms).
    """
    diff = _plus(_degree(problem.lhs), _degree(problem.rhs))
    num, den = diff.num, diff.den
    for atom in problem.atoms:  # constrained coordinates are ratios of degree (e + 1, e)
        rows = problem.constraints(atom)
        if rows:
            e = sum(1 for row in rows if row is not None)
            num, den = num * (e + 1) + den * e, den * (e + 1) + num * e
    widest = max((w for _, w in diff.roots), default=Fraction(0))
    return math.ceil(num), math.ceil(4 * widest)


def _certified(radicands: Sequence[sympy.Expr], square: sympy.Expr | None) -> int | None:
    """The number k of independent square roots at a point, or None if that is not certain.

    Schwartz–Zippel needs the values to lie in a field of degree 2^k over the rational
    functions. It is if the radicands' values are positive rationals of which no product is a
    square (if a product of radicands were a square function, its value would be a square).
    Equal values are taken for one root, and the value s² for the rational root s; the bound
    pays for these identifications.
    """
    values = {r for r in radicands if r != square}
    if len(values) > 8 or not all(v.is_Rational and v > 0 for v in values):
        return None
    ordered = sorted(values, key=default_sort_key)
    for mask in range(1, 2 ** len(ordered)):
        product = sympy.Mul(*(v for i, v in enumerate(ordered) if mask >> i & 1))
        if _is_square(product):
            return None
    return len(ordered)


def _is_square(r: sympy.Rational) -> bool:
    p, q = int(r.p), int(r.q)
    return p >= 0 and math.isqrt(p) ** 2 == p and math.isqrt(q) ** 2 == q


# ---------------------------------------------------------------------------------------
# Exact points


@dataclass(frozen=True)
class _Point:
    d: int
    vectors: dict[str, tuple[sympy.Expr, ...]]
    scalars: dict[sympy.Symbol, sympy.Expr]
    #: s² = q + ε for the claim's own layer, when ε was chosen to make its root rational.
    square: sympy.Expr | None = None


def _evaluate(
    problem: _Problem, point: _Point, radicands: list[sympy.Expr] | None = None
) -> tuple[Value, Value] | None:
    """Both sides at ``point``, or None where they are undefined (0 in a denominator, √−1)."""
    ev = _Evaluator(point.d, point.vectors, point.scalars, expand=True, radicands=radicands)
    try:
        sides = ev.value(problem.lhs), ev.value(problem.rhs)
    except ZeroDivisionError:
        return None
    for side in sides:
        for x in side if isinstance(side, tuple) else (side,):
            if x.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo, sympy.I) or x.free_symbols:
                return None
    return sides


def _sign(x: sympy.Expr) -> int:
    """The sign of an exact real number (nonzero values by certified evalf, zero exactly)."""
    if x.is_Rational:
        return (x.p > 0) - (x.p < 0)
    try:
        approx = x.evalf(30, strict=True)
    except PrecisionExhausted:
        approx = _ZERO
    if approx != 0:
        return 1 if approx > 0 else -1
    t = sympy.Dummy("x")
    if sympy.minimal_polynomial(x, t) == t:
        return 0
    approx = x.evalf(300, strict=True)
    return 1 if approx > 0 else -1


def _violates(problem: _Problem, sides: tuple[Value, Value]) -> bool:
    diffs = _differences(*sides)
    if problem.relation == "le":
        return _sign(diffs[0]) > 0
    return any(_sign(x) != 0 for x in diffs)


def _integer(k: int) -> sympy.Integer:
    """0, 1, −1, 2, −2, … for k = 0, 1, 2, …"""
    return sympy.Integer((k + 1) // 2 if k % 2 else -(k // 2))


def _positive(k: int) -> sympy.Rational:
    """1, 2, 1/2, 3, 1/3, … for k = 0, 1, 2, …"""
    if k == 0:
        return _ONE
    m = (k + 1) // 2 + 1
    return sympy.Integer(m) if k % 2 else sympy.Rational(1, m)


def _compositions(total: int, parts: int) -> Iterator[tuple[int, ...]]:
    if parts == 1:
        yield (total,)
        return
    for first in range(total + 1):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _grid(problem: _Problem, d: int) -> Iterator[_Point]:
    """Points in order of size that satisfy the assumptions (the last entries grow first)."""
    n = len(problem.symbols) + len(problem.atoms) * d
    candidates = 0
    for total in range(0, 64):
        for index in _compositions(total, n) if n else [()]:
            candidates += 1
            if candidates > GRID_CANDIDATES:
                return
            scalars = {
                s: (_positive(k) if s.is_positive else _integer(k))
                for s, k in zip(problem.symbols, index, strict=False)
            }
            rest = index[len(problem.symbols) :]
            vectors = {
                a: tuple(_integer(k) for k in rest[i * d : (i + 1) * d])
                for i, a in enumerate(problem.atoms)
            }
            if _assumptions_hold(problem, vectors):
                yield _Point(d, vectors, scalars)
        if not n:
            return


def _random_point(problem: _Problem, d: int, rng: random.Random, size: int) -> _Point | None:
    """A random point (entries in [−size, size]) satisfying the assumptions, or None.

    With a principal root, s is drawn above √q and ε = s² − q, so that √(q + ε) = s.
    """
    vectors = {
        a: tuple(sympy.Integer(rng.randint(-size, size)) for _ in range(d)) for a in problem.atoms
    }
    constrained = _constrain(problem, vectors, d)
    if constrained is None or not _assumptions_hold(problem, constrained):
        return None
    scalars = {
        s: sympy.Integer(rng.randint(1 if s.is_positive else -size, size)) for s in problem.symbols
    }
    if problem.principal is not None:
        q = _Evaluator(d, constrained, scalars, expand=True).value(ir.Var(problem.principal))
        assert isinstance(q, sympy.Rational)
        s = math.isqrt(int(q.p) // int(q.q)) + rng.randint(1, size)
        scalars[ir.eps] = sympy.Integer(s) ** 2 - q
        return _Point(d, constrained, scalars, sympy.Integer(s) ** 2)
    return _Point(d, constrained, scalars)


# ---------------------------------------------------------------------------------------
# Checking one dimension


@dataclass(frozen=True)
class DimensionCheck:
    """The outcome at one dimension.

    Attributes:
        d: the dimension.
        status: ``"holds"``, ``"consistent"`` (exact samples only) or ``"counterexample"``.
        method: ``"symbolic"``, ``"random-rational"`` or ``"samples"``.
        samples: exact points evaluated.
        bound: for ``random-rational``, the probability that a false identity passed.
        point: the counterexample point, with ``sides`` its exact lhs and rhs values.
        too_large: whether the symbolic reduction was abandoned for its size.
        note: why a "consistent" dimension could not be decided.
    """

    d: int
    status: str
    method: str
    samples: int = 0
    bound: float = 0.0
    point: _Point | None = None
    sides: tuple[Value, Value] | None = None
    too_large: bool = False
    note: str = ""


def _search(
    problem: _Problem, d: int, rng: random.Random, limit: int = GRID_EVALUATIONS
) -> tuple[DimensionCheck | None, int]:
    """Look for a violation: ``limit`` small points in order of size, then moderate random ones.

    Returns the first violation found (or None) and the number of points evaluated. A
    violation among the random points prompts the full search of small points first.
    """
    evaluated = 0
    for point in _grid(problem, d):
        sides = _evaluate(problem, point)
        evaluated += 1
        if sides is not None and _violates(problem, sides):
            return DimensionCheck(d, "counterexample", "samples", evaluated, 0.0, point, sides), 0
        if evaluated >= limit:
            break
    for _ in range(min(MODERATE_POINTS, limit)):
        drawn = _random_point(problem, d, rng, 9)
        sides = None if drawn is None else _evaluate(problem, drawn)
        evaluated += 1
        if drawn is not None and sides is not None and _violates(problem, sides):
            if limit < GRID_EVALUATIONS:  # the claim is false: look for a smaller point
                smaller, _ = _search(problem, d, rng, GRID_EVALUATIONS)
                if smaller is not None:
                    return smaller, 0
            found = DimensionCheck(d, "counterexample", "samples", evaluated, 0.0, drawn, sides)
            return found, 0
    return None, evaluated


def _random_rational(problem: _Problem, d: int, rng: random.Random, points: int) -> DimensionCheck:
    """Evaluate at ``points`` large random points.

    Returns a counterexample, or for an equality "holds" with the probability that a false
    identity passes every point — "consistent" when no such bound applies (no degree bound,
    or square roots that cannot be certified independent) and for an inequality.
    """
    note = ""
    try:
        degree, root_degree = _degrees(problem)
    except UnsupportedError as exc:
        degree = root_degree = 0
        note = f"random points give no probability bound: {exc}"
    bound = 1.0
    done = attempts = 0
    while done < points:
        attempts += 1
        if attempts > 50 * points:
            raise DomainError(f"the claim is undefined at every random point tried at d = {d}")
        point = _random_point(problem, d, rng, SAMPLE_RANGE)
        radicands: list[sympy.Expr] = []
        sides = None if point is None else _evaluate(problem, point, radicands)
        if point is None or sides is None:
            continue  # a denominator vanished: redraw (accounted for in the bound)
        done += 1
        if _violates(problem, sides):
            return DimensionCheck(d, "counterexample", "random-rational", done, 0, point, sides)
        k = _certified(radicands, point.square)
        if k is None:
            note = note or "square roots that random points cannot certify independent"
        else:
            bound *= min(
                1.0, (2 ** (k + 2) * degree + 2 * len(radicands) * root_degree) / SAMPLE_RANGE
            )
    if note or problem.relation == "le":
        return DimensionCheck(d, "consistent", "samples", done, note=note)
    return DimensionCheck(d, "holds", "random-rational", done, bound)


def _check(
    problem: _Problem, d: int, rng: random.Random, symbolic_up_to: int, points: int
) -> DimensionCheck:
    """Decide ``problem`` at dimension ``d``; see the module docstring for the strategy."""
    too_large = False
    if problem.relation == "eq" and d <= symbolic_up_to and not problem.pointwise:
        try:
            if _symbolic_zero(problem, d):
                return DimensionCheck(d, "holds", "symbolic")
        except _TooLarge:
            too_large = True
        except UnsupportedError:
            pass  # e.g. an operator norm: exact points still decide
    if problem.relation == "le":  # no identity to test: search for a violation first
        found, n = _search(problem, d, rng)
        if found is not None:
            return found
        sampled = _random_rational(problem, d, rng, points)
        return replace(sampled, samples=n + sampled.samples)
    sampled = _random_rational(problem, d, rng, points)
    if sampled.status == "holds":
        return replace(sampled, too_large=too_large)
    # False, or not decided by random points: look for the smallest violating point.
    false = sampled.status == "counterexample"
    found, n = _search(problem, d, rng, GRID_EVALUATIONS if false else SPOT_CHECKS)
    if found is not None or false:
        return found or sampled
    return replace(sampled, samples=n + sampled.samples)


def check_dimension(
    claim: Claim, d: int, *, seed: int = 0, symbolic_up_to: int = 8, points: int = POINTS
) -> DimensionCheck:
    """Check the equality (or search the inequality for a violation) of ``claim`` at ``d``.

    An inequality's certificate is not used here; :func:`evidence` checks certificates.

    Args:
        claim: the claim.
        d: the dimension.
        seed: seed of the random points.
        symbolic_up_to: try the symbolic reduction first when d is at most this.
        points: random points for a random-rational check.

    Returns:
        The outcome at ``d``.

    >>> from lnsym import vector, core, Eq, mean
    >>> z = vector("z")
    >>> result = check_dimension(Claim("mean0", Eq(mean(core(z)), 0)), 64)
    >>> result.status, result.method, result.bound < 1e-20
    ('holds', 'random-rational', True)
    """
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    return _check(problem, d, random.Random(seed * 1_000_003 + d), symbolic_up_to, points)


# ---------------------------------------------------------------------------------------
# Evidence


def evidence(claim: Claim, *, max_d: int = 8, seed: int = 0, symbolic_up_to: int = 8) -> Evidence:
    """Check ``claim`` exactly at every d in 1..``max_d`` allowed by its assumptions.

    Args:
        claim: the claim.
        max_d: the largest dimension checked.
        seed: seed of the random points (results are deterministic for a seed).
        symbolic_up_to: dimensions up to this try the symbolic reduction first.

    Returns:
        Evidence with outcome ``"holds"`` (exact at every d), ``"counterexample"`` (an exact
        counterexample at the smallest failing d), or ``"consistent"`` (exact samples without
        a violation: an inequality without a valid certificate, or an operator norm).

    Raises:
        UnsupportedError: for constructs the engine cannot evaluate, or no admissible d.
        DomainError: when the claim is undefined at every random point tried.
    """
    start = time.perf_counter()
    statement = claim.statement
    is_le = isinstance(statement, ir.Le)
    problem = _Problem.of(statement.lhs, statement.rhs, "le" if is_le else "eq", claim.assumptions)
    # d = 1 has no non-constant vector: such a claim says nothing there.
    dims = [d for d in ir.dimensions(claim.assumptions, max_d) if problem.satisfiable(d)]
    if not dims:
        raise UnsupportedError(f"no dimension in 1..{max_d} satisfies the assumptions")
    identity, reason = _certificate(statement, claim.assumptions) if is_le else (problem, "")

    results: list[DimensionCheck] = []
    for d in dims:
        rng = random.Random(seed * 1_000_003 + d)
        result = None
        if identity is not None:
            result = _check(identity, d, rng, symbolic_up_to, POINTS)
            if is_le and result.status != "holds":
                # A wrong certificate proves nothing; the inequality itself may still hold.
                how = "fails" if result.status == "counterexample" else "is not exact"
                reason = f"the certificate identity {how} at d = {d}"
                identity, result = None, None
        if result is None:
            result = _check(problem, d, rng, symbolic_up_to, POINTS)
        if result.too_large:  # larger d only grow: go straight to exact points
            symbolic_up_to = d - 1
        if result.status == "counterexample":
            return _refuted(problem, result, dims[: dims.index(d) + 1], start)
        results.append(result)

    data: dict[str, Any] = {
        "exact": True,
        "dimensions": dims,
        "methods": {r.d: r.method for r in results},
    }
    if any(r.status != "holds" for r in results):
        samples = data["samples"] = sum(r.samples for r in results)
        why = reason or next(r.note for r in results if r.note)
        detail = f"no violation in {samples} exact samples for d = {_ranges(dims)} ({why})"
        return Evidence("concrete", "consistent", detail, time.perf_counter() - start, data)
    detail = "exact for " + _describe(results, identity or problem)
    random_checks = [r for r in results if r.method == "random-rational"]
    if random_checks:
        data["points"] = POINTS
        data["false_positive_bound"] = sum(r.bound for r in random_checks)
    if is_le:
        detail += ": rhs − lhs = Σ tₖ, and every tₖ ≥ 0 by the sign rules"
    return Evidence("concrete", "holds", detail, time.perf_counter() - start, data)


def _certificate(
    statement: ir.Relation, assumptions: Sequence[ir.Assumption]
) -> tuple[_Problem | None, str]:
    """The identity rhs − lhs = Σ tₖ to check, or None with the reason it cannot prove."""
    terms: tuple[ir.Expr, ...] = getattr(statement, "certificate", ())
    if not terms:
        return None, "no certificate"
    unknown = [f"t{i}" for i, t in enumerate(terms, 1) if sign(t) == UNKNOWN]
    if unknown:
        return None, "sign not established for " + ", ".join(unknown)
    gap = ir.add(statement.rhs, ir.negate(statement.lhs))
    total = terms[0] if len(terms) == 1 else ir.ScalarSum(terms)
    return _Problem.of(gap, total, "eq", assumptions), ""


def _ranges(dims: Sequence[int]) -> str:
    """'1..8', '2, 4, 6..9'."""
    out, i = [], 0
    while i < len(dims):
        j = i
        while j + 1 < len(dims) and dims[j + 1] == dims[j] + 1:
            j += 1
        out.append(f"{dims[i]}..{dims[j]}" if j > i + 1 else ", ".join(map(str, dims[i : j + 1])))
        i = j + 1
    return ", ".join(out)


def _describe(results: Sequence[DimensionCheck], problem: _Problem) -> str:
    symbolic = [r.d for r in results if r.method == "symbolic"]
    sampled = [r for r in results if r.method == "random-rational"]
    parts = []
    if symbolic:
        how = "with s² = q + ε" if problem.principal is not None else "in a polynomial ring"
        parts.append(f"d = {_ranges(symbolic)} (symbolic reduction {how})")
    if sampled:
        bound = sum(r.bound for r in sampled)
        parts.append(
            f"d = {_ranges([r.d for r in sampled])} ({POINTS} random rational points per d, "
            f"false-positive probability ≤ {bound:.1e})"
        )
    return " and ".join(parts)


def _refuted(problem: _Problem, result: DimensionCheck, dims: list[int], start: float) -> Evidence:
    assert result.point is not None and result.sides is not None
    point, (lhs, rhs) = result.point, result.sides
    counterexample: dict[str, Any] = {
        "d": point.d,
        "vectors": {a: [str(x) for x in v] for a, v in sorted(point.vectors.items())},
        "scalars": {s.name: str(v) for s, v in sorted(point.scalars.items(), key=_by_name)},
        "lhs": _show(lhs, str),
        "rhs": _show(rhs, str),
        "lhs_latex": _latex(lhs),
        "rhs_latex": _latex(rhs),
        "lhs_decimal": _show(lhs, lambda x: str(sympy.N(x, 12))),
        "rhs_decimal": _show(rhs, lambda x: str(sympy.N(x, 12))),
    }
    where = [f"d = {point.d}"]
    where += [
        f"{text(ir.VectorAtom(a))} = {_show(v, str)}" for a, v in sorted(point.vectors.items())
    ]
    where += [f"{text(ir.Const(s))} = {v}" for s, v in sorted(point.scalars.items(), key=_by_name)]
    relation = ">" if problem.relation == "le" else "≠"
    detail = (
        f"{', '.join(where)}: lhs = {_short(counterexample['lhs'])} {relation} "
        f"rhs = {_short(counterexample['rhs'])}"
    )
    data = {"exact": True, "dimensions": dims, "counterexample": counterexample}
    return Evidence("concrete", "counterexample", detail, time.perf_counter() - start, data)


def _by_name(item: tuple[sympy.Symbol, Any]) -> str:
    return item[0].name


def _tidy(x: sympy.Expr) -> sympy.Expr:
    return sympy.radsimp(x) if not x.is_Rational else x


def _show(value: Value, fmt: Any) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(fmt(_tidy(x)) for x in value) + ")"
    return fmt(_tidy(value))


def _latex(value: Value) -> str:
    if isinstance(value, tuple):
        return r"\left(" + ", ".join(sympy.latex(_tidy(x)) for x in value) + r"\right)"
    return sympy.latex(_tidy(value))


def _short(s: str, limit: int = 80) -> str:
    return s if len(s) <= limit else s[: limit - 1] + "…"
