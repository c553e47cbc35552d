"""Exact evaluation of the IR at a rational point: rationals, real square roots and jets.

The concrete engine's searches evaluate a claim at hundreds of exact points. Doing that with SymPy
numbers (and ``sympy.diff`` of expressions in t) costs milliseconds per operation: every
intermediate result is a new SymPy object whose assumptions are queried. This module evaluates the
same IR with plain Python objects instead; its values are equal to SymPy's, exactly, and
:mod:`lnsym.engines.concrete.engine` keeps SymPy for what is reported (counterexample values are
recomputed with SymPy at the point) and for the symbolic identity checks.

It holds the :class:`Evaluator` and the compilation of SymPy constants to closures
(:func:`compile_constant`, :func:`from_sympy`). The numbers — rationals and towers of real
square roots with exact signs — and the forward-mode jets that carry derivatives are in
:mod:`lnsym.engines.concrete.arithmetic` (re-exported here); the interned nodes in
:mod:`lnsym.engines.concrete.interning`.

Nodes are interned (:func:`intern`: equal nodes are one object) and values memoized by
identity, once per node and frame as on the SymPy route, so the radicands recorded for the
Schwartz–Zippel bound are the same too.

What this module cannot represent — a cube root, π, an eigenvalue without a closed form in
square roots — raises :class:`Inexpressible`, and the caller evaluates that point with
SymPy instead. A value that is not real (the root of a negative number) or not finite (a
zero denominator) raises :class:`Undefined` or ``ZeroDivisionError``: the point is outside
the claim's domain, as on the SymPy route.

>>> from lnsym import vector, core, eps, jvp, norm
>>> z, h = vector("z"), vector("h")
>>> point = {"z": (Q(0), Q(1)), "h": (Q(1), Q(0))}
>>> ev = Evaluator(2, point, {eps: Q(1)}, Tower())
>>> to_sympy(ev.value(norm(core(z))) ** 2)
2/5
>>> [to_sympy(x) for x in ev.value(jvp(core(z), z, h))]
[4*sqrt(5)/25, -4*sqrt(5)/25]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

import flint
import sympy

from lnsym import ir
from lnsym.engines.concrete.arithmetic import ONE as ONE
from lnsym.engines.concrete.arithmetic import ZERO as ZERO
from lnsym.engines.concrete.arithmetic import Inexpressible as Inexpressible
from lnsym.engines.concrete.arithmetic import Jet as Jet
from lnsym.engines.concrete.arithmetic import Num as Num
from lnsym.engines.concrete.arithmetic import Q as Q
from lnsym.engines.concrete.arithmetic import Quad as Quad
from lnsym.engines.concrete.arithmetic import Root as Root
from lnsym.engines.concrete.arithmetic import Roots, _nonzero, _product, _split, _sum
from lnsym.engines.concrete.arithmetic import Tower as Tower
from lnsym.engines.concrete.arithmetic import Undefined as Undefined
from lnsym.engines.concrete.arithmetic import absolute as absolute
from lnsym.engines.concrete.arithmetic import inverse as inverse
from lnsym.engines.concrete.arithmetic import power as power
from lnsym.engines.concrete.arithmetic import primal as primal
from lnsym.engines.concrete.arithmetic import rational as rational
from lnsym.engines.concrete.arithmetic import sign as sign
from lnsym.engines.concrete.arithmetic import to_sympy as to_sympy
from lnsym.engines.concrete.interning import _IDENTITIES, _definition
from lnsym.engines.concrete.interning import intern as intern
from lnsym.ir.calculus import Diff, Grad, Jvp, OperatorNorm, Vjp

# ---------------------------------------------------------------------------------------
# Constants: SymPy expressions compiled once to closures over the scalars' values

Constant: TypeAlias = Callable[[Mapping[sympy.Symbol, Any], Roots], Any]
_COMPILED: dict[sympy.Expr, Constant | Inexpressible] = {}


def compile_constant(v: sympy.Expr) -> Constant:
    """A function of (scalar values, tower) that evaluates the SymPy expression ``v``.

    Raises:
        Inexpressible: for anything beyond rationals, symbols, +, ·, |x| and powers.
    """
    found = _COMPILED.get(v)
    if found is None:
        try:
            found = _compile(v)
        except Inexpressible as exc:
            found = exc
        if len(_COMPILED) > 10_000:
            _COMPILED.clear()
        _COMPILED[v] = found
    if isinstance(found, Inexpressible):
        raise Inexpressible(str(found))
    return found


def _compile(v: sympy.Expr) -> Constant:
    if v.is_Rational:
        c = rational(v)
        return lambda env, tower: c
    if v.is_Symbol:

        def lookup(env: Mapping[sympy.Symbol, Any], tower: Roots) -> Any:
            if v not in env:
                raise Inexpressible(f"the scalar {v} has no value")
            return env[v]

        return lookup
    if v.is_Add or v.is_Mul:
        parts = [_compile(a) for a in v.args]
        combine = _sum if v.is_Add else _product
        return lambda env, tower: combine(p(env, tower) for p in parts)
    if v.is_Pow:
        base = _compile(v.base)
        if v.exp.is_Rational:
            n = rational(v.exp)
            if n.denominator not in (1, 2):
                raise Inexpressible(f"the exponent {v.exp} leaves the square roots")
            return lambda env, tower: power(base(env, tower), n, tower)
        exponent = _compile(v.exp)

        def symbolic_power(env: Mapping[sympy.Symbol, Any], tower: Roots) -> Any:
            n = exponent(env, tower)
            if type(n) is not Q:
                raise Inexpressible("an exponent that is not a rational number")
            return power(base(env, tower), n, tower)

        return symbolic_power
    if isinstance(v, sympy.Abs):
        inner = _compile(v.args[0])

        def modulus(env: Mapping[sympy.Symbol, Any], tower: Roots) -> Any:
            return tower.modulus(inner(env, tower))

        return modulus
    raise Inexpressible(f"no exact evaluation of {v}")


def from_sympy(v: sympy.Expr, tower: Roots) -> Num:
    """A SymPy number (rationals, +, ·, square roots) in ``tower``.

    Raises:
        Inexpressible: for anything else.
    """
    return _compile(v)({}, tower)


# ---------------------------------------------------------------------------------------
# The evaluator

#: A value of the evaluator: a number of a :class:`Tower` or a :class:`Jet`, or a tuple of d
#: of them for a vector (:mod:`lnsym.engines.concrete.sympy_numbers` has the SymPy values).
TowerValue: TypeAlias = Any


class Evaluator:
    """Exact values of IR nodes at one point, mirroring
    :class:`lnsym.engines.concrete.values._Evaluator`. (The same evaluator runs over
    polynomial fractions in :mod:`lnsym.engines.concrete.ring_values`, where no sign is
    decided: ``decides_signs`` is False there.)

    Args:
        d: the dimension.
        vectors: the value of each vector atom (d numbers or jets).
        scalars: values of scalar symbols; ``lnsym.d`` is bound to d here.
        tower: the square roots of this point.
        depth: the number of perturbations already active (the next one's index).
        radicands: where the value at t = 0 of the radicand of every square root is
            recorded, once per node and frame as on the SymPy route (for the
            Schwartz–Zippel bound).
    """

    #: Refuse a half-integer power of a negative number (and record radicands, if asked):
    #: values whose sign is decided, unlike polynomial fractions.
    decides_signs = True

    def __init__(
        self,
        d: int,
        vectors: Mapping[str, tuple[Any, ...]],
        scalars: Mapping[sympy.Symbol, Any],
        tower: Roots,
        *,
        depth: int = 0,
        radicands: list[Num] | None = None,
    ) -> None:
        self.d = d
        self.vectors = vectors
        self.scalars = {**scalars, ir.d: Q(d)}
        self.tower = tower
        self.depth = depth
        self.radicands = radicands
        #: id of an interned node → (the node, its value); the node is kept alive with it.
        self._memo: dict[int, tuple[ir.Expr, TowerValue]] = {}

    def value(self, e: ir.Expr) -> TowerValue:
        """The value of ``e``: a tuple of d values for a vector, else one value."""
        return self._eval(e if _IDENTITIES.get(id(e)) is e else intern(e))

    def _eval(self, e: ir.Expr) -> TowerValue:
        found = self._memo.get(id(e))
        if found is None:
            handler = _HANDLERS.get(type(e))
            if handler is not None:
                value = handler(self, e)
            elif isinstance(e, ir.Defined):
                value = self._eval(_definition(e))
            else:
                raise Inexpressible(f"no exact evaluation of {type(e).__name__}")
            found = self._memo[id(e)] = (e, value)
        return found[1]

    def _child(
        self,
        vectors: Mapping[str, tuple[Any, ...]] | None = None,
        scalars: Mapping[sympy.Symbol, Any] | None = None,
        perturbed: bool = False,
    ) -> Evaluator:
        return type(self)(
            self.d,
            {**self.vectors, **(vectors or {})},
            {**self.scalars, **(scalars or {})},
            self.tower,
            depth=self.depth + perturbed,
            radicands=self.radicands,
        )

    def _atom(self, e: ir.VectorAtom) -> TowerValue:
        if e.name not in self.vectors:
            raise Inexpressible(f"the vector {e.name} has no value")
        return self.vectors[e.name]

    def _ones(self, e: ir.Ones) -> TowerValue:
        return (ONE,) * self.d

    def _const(self, e: ir.Const) -> TowerValue:
        return compile_constant(e.value)(self.scalars, self.tower)

    def _vector_sum(self, e: ir.VectorSum) -> TowerValue:
        return tuple(_sum(xs) for xs in zip(*(self._eval(t) for t in e.terms), strict=True))

    def _scaled(self, e: ir.Scaled) -> TowerValue:
        k = self._eval(e.coefficient)
        return tuple(k * x for x in self._eval(e.vector))

    def _hadamard(self, e: ir.Hadamard) -> TowerValue:
        return tuple(x * y for x, y in zip(self._eval(e.left), self._eval(e.right), strict=True))

    def _dot(self, e: ir.Dot) -> TowerValue:
        return _sum(x * y for x, y in zip(self._eval(e.left), self._eval(e.right), strict=True))

    def _scalar_sum(self, e: ir.ScalarSum) -> TowerValue:
        return _sum(self._eval(t) for t in e.terms)

    def _scalar_product(self, e: ir.ScalarProduct) -> TowerValue:
        return _product(self._eval(f) for f in e.factors)

    def _power(self, e: ir.Power) -> TowerValue:
        value = self._eval(e.base)
        n = compile_constant(e.exponent)(self.scalars, self.tower)
        if type(n) is not Q:
            raise Inexpressible(f"the exponent {e.exponent} has no rational value")
        if n.denominator != 1 and self.depth and not _nonzero(primal(value)):
            # A root of 0 while differentiating: first order cannot tell whether it has a
            # slope (terms in t² are dropped, and √(t²) = |t| has none). As on SymPy's route.
            raise Undefined(f"the power {n} of 0 under a derivative")
        if n.denominator != 1 and self.decides_signs:
            at_zero = primal(value)
            if n.denominator == 2 and sign(at_zero) < 0:
                raise Undefined(f"the power {n} of a negative number")
            if self.radicands is not None and n.denominator == 2:
                self.radicands.append(at_zero)
        return power(value, n, self.tower)

    def _substitution(self, e: ir.Substitution) -> TowerValue:
        bound = self._eval(e.value)
        if isinstance(e.target, ir.VectorAtom):
            return self._child(vectors={e.target.name: bound})._eval(e.expr)
        assert isinstance(e.target, ir.Const)
        return self._child(scalars={e.target.value: bound})._eval(e.expr)

    def _jvp(self, e: Jvp) -> TowerValue:
        pid = self.depth
        value = self._moved(e.expr, e.wrt, self._eval(e.direction))
        if isinstance(value, tuple):
            return tuple(_split(x, pid).get(0, ZERO) for x in value)
        return _split(value, pid).get(0, ZERO)

    def _diff(self, e: Diff) -> TowerValue:
        """∂f/∂a: the scalar a moved to a + t (one more perturbation), the coefficient of t."""
        pid, sym = self.depth, e.wrt.value
        if sym not in self.scalars:
            raise Inexpressible(f"the scalar {sym} has no value")
        moved = Jet({((pid, 0),): ONE}) + self.scalars[sym]
        value = self._child(scalars={sym: moved}, perturbed=True)._eval(e.expr)
        if isinstance(value, tuple):
            return tuple(_split(x, pid).get(0, ZERO) for x in value)
        return _split(value, pid).get(0, ZERO)

    def _grad(self, e: Grad) -> TowerValue:
        return self._linear_form(e.expr, e.wrt)

    def _vjp(self, e: Vjp) -> TowerValue:
        return self._linear_form(e.expr, e.wrt, self._eval(e.cotangent))

    def _moved(
        self,
        f: ir.Expr,
        wrt: ir.VectorAtom,
        direction: tuple[Any, ...] | None,
        cotangent: tuple[Any, ...] | None = None,
    ) -> TowerValue:
        """f (or ⟨cotangent, f⟩) with wrt moved to wrt + t·direction, or to wrt + t·w for a
        generic direction w (``direction`` None: one infinitesimal t·wᵢ per coordinate)."""
        pid = self.depth
        x = self._eval(wrt)
        if direction is None:
            moved = tuple(xi + Jet({((pid, i),): ONE}) for i, xi in enumerate(x))
        else:
            t = Jet({((pid, 0),): ONE})
            moved = tuple(xi + t * hi for xi, hi in zip(x, direction, strict=True))
        value = self._child(vectors={wrt.name: moved}, perturbed=True)._eval(f)
        if cotangent is not None:
            value = _sum(g * y for g, y in zip(cotangent, value, strict=True))
        return value

    def _linear_form(
        self, f: ir.Expr, wrt: ir.VectorAtom, cotangent: tuple[Any, ...] | None = None
    ) -> TowerValue:
        """The coefficients of D_w f (or of D_w⟨cotangent, f⟩) in a generic direction w: a
        gradient for a scalar, the rows of the Jacobian for a vector."""
        pid = self.depth
        value = self._moved(f, wrt, None, cotangent)

        def coefficients(x: Any) -> tuple[Any, ...]:
            found = _split(x, pid)
            return tuple(found.get(i, ZERO) for i in range(self.d))

        if isinstance(value, tuple):
            return tuple(coefficients(x) for x in value)
        return coefficients(value)

    def _operator_norm(self, e: OperatorNorm) -> Num:
        """‖J‖₂ = √(largest eigenvalue of JᵀJ): from FLINT's factors of the characteristic
        polynomial where JᵀJ is rational and they are of degree 2 at most, else with
        SymPy's roots of it."""
        rows = self._linear_form(e.expr, e.wrt)
        if any(type(x) is Jet for row in rows for x in row):
            raise Inexpressible("the derivative of an operator norm")
        d = self.d
        gram = [
            [_sum(rows[k][i] * rows[k][j] for k in range(len(rows))) for j in range(d)]
            for i in range(d)
        ]
        largest = _largest_eigenvalue(gram, self.tower)
        if largest is not None:
            return self.tower.sqrt(largest)
        matrix = sympy.Matrix([[to_sympy(x) for x in row] for row in gram])
        found = sympy.roots(matrix.charpoly())
        if sum(found.values()) != d:
            raise Inexpressible("the eigenvalues of JᵀJ have no closed form here")
        largest = max(found, key=lambda lam: sympy.re(lam.evalf(50)))
        return from_sympy(sympy.sqrt(largest), self.tower)


def _largest_eigenvalue(gram: list[list[Any]], tower: Roots) -> Num | None:
    """The largest eigenvalue of the symmetric matrix ``gram``, exactly, where its entries
    are rationals and its characteristic polynomial factors (over ℚ, with FLINT) into
    factors of degree 2 at most — the roots SymPy's ``roots`` writes with square roots
    alone; else None. (SymPy took milliseconds a point for what FLINT does in microseconds.)"""
    if not all(type(x) is Q for row in gram for x in row):
        return None
    d = len(gram)
    matrix = flint.fmpq_mat(d, d, [x for row in gram for x in row])
    candidates: list[Num] = []
    for factor, _ in matrix.charpoly().factor()[1]:
        coefficients = factor.coeffs()  # lowest degree first
        if len(coefficients) == 2:
            c, b = coefficients
            candidates.append(-c / b)
        elif len(coefficients) == 3:
            c, b, a = coefficients
            if a < 0:
                a, b, c = -a, -b, -c
            discriminant = b * b - 4 * a * c
            if discriminant < 0:  # (not for a symmetric matrix)
                return None
            candidates.append((tower.sqrt(discriminant) - b) / (2 * a))
        else:
            return None
    largest = candidates[0]
    for x in candidates[1:]:
        if sign(x - largest) > 0:
            largest = x
    return largest


_HANDLERS: dict[type, Callable[[Evaluator, Any], TowerValue]] = {
    ir.VectorAtom: Evaluator._atom,
    ir.Ones: Evaluator._ones,
    ir.Const: Evaluator._const,
    ir.VectorSum: Evaluator._vector_sum,
    ir.Scaled: Evaluator._scaled,
    ir.Hadamard: Evaluator._hadamard,
    ir.Dot: Evaluator._dot,
    ir.ScalarSum: Evaluator._scalar_sum,
    ir.ScalarProduct: Evaluator._scalar_product,
    ir.Power: Evaluator._power,
    ir.Substitution: Evaluator._substitution,
    Jvp: Evaluator._jvp,
    Diff: Evaluator._diff,
    Grad: Evaluator._grad,
    Vjp: Evaluator._vjp,
    OperatorNorm: Evaluator._operator_norm,
}
