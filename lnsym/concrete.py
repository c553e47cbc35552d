"""The concrete engine: the IR at a fixed dimension d, with SymPy's own calculus and exact checks.

A vector atom ``z`` becomes d real coordinates (or numbers at a point) — Dummy symbols inside
checks, so that no user scalar (``z_1`` is a valid name) can be one of them — ``ones`` the
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
satisfies the assumptions and violates the claim.

An inequality is always checked by its own means, since a certificate's signs come from
:func:`lnsym.proof.sign`, the general engine's rules: it is evaluated exactly at small points,
then at adversarial ones (:func:`_adversarial`: fractions, negatives, the claim's constants
and values just beside them, large and tiny magnitudes, spiky and nearly constant vectors),
then at random ones, and refuted by the first violation. The certificate terms are evaluated
at the same points; one that is negative or not real where the sides are defined shows the
certificate wrong. Only without either may a certificate whose identity holds exactly at
every d (every term nonnegative by the sign rules) make the inequality "holds"; otherwise it
is at best consistent. So are operator norms, evaluated only at exact points.

The IR is real: a point where a value is not real (a root of a negative number — SymPy's
principal (−8)^(1/3) is 1 + √3·i) or not finite is outside the claim's domain and skipped,
like one with a zero denominator. A dimension where every point tried is undefined (1/(d − 1)
at d = 1) is skipped and noted; only a claim undefined at every d is an error. A claim
without vectors is also tried at large d, where d is just a number. :func:`recheck`
evaluates a claim afresh at a reported counterexample, which the checker does before any
refutation; :func:`promote` makes a numeric engine's violating sample exact.

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

import itertools
import math
import random
import re
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
#: Symbols in exponents take values in [−SMALL_EXPONENT, SMALL_EXPONENT] at random points.
SMALL_EXPONENT = 6
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


class _Undefined(DomainError):
    """The claim has no (real) value at this point: a zero denominator, a non-integer power
    of a negative number. Such a point is skipped, never a failure of the check."""


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
            case ir.Power(base=base, exponent=exponent):
                value = self._sca(base)
                n = exponent.xreplace(self.scalars)
                if not n.is_Integer:
                    at_zero = {t: _ZERO for t in self.perturbations + self.generic}
                    self._check_real_power(value.xreplace(at_zero), n)
                    if self.radicands is not None and n.is_Rational and n.q == 2:
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

    @staticmethod
    def _check_real_power(base: sympy.Expr, n: sympy.Expr) -> None:
        """Refuse a non-integer power of a negative (or non-real) number: the IR is real, and
        SymPy's principal root of a negative number is not (√−1, (−8)^(1/3) = 1 + √3·i).

        Raises:
            _Undefined: at such a point (symbolic bases are left alone).
        """
        if base.free_symbols or not base.is_number:
            return
        if not n.is_real:
            raise _Undefined(f"the exponent {n} is not real")
        if _sign(base) < 0:
            raise _Undefined(f"the power {n} of the negative number {base}")

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
    """The coordinates of the atom ``name`` inside a check: Dummy symbols, which no user
    scalar can equal (a user scalar named ``z_1`` stays distinct from the first coordinate
    of z; the IR refuses Dummy symbols in constants)."""
    return tuple(sympy.Dummy(f"{name}_{i}", real=True) for i in range(1, d + 1))


def _named_coordinates(name: str, d: int, taken: set[str]) -> tuple[sympy.Symbol, ...]:
    """Readable coordinates z_1, …, z_d for :func:`instantiate` and :func:`jacobian`.

    Raises:
        ExpressionError: when a scalar of the expression has one of these names, which
            would silently make it that coordinate.
    """
    symbols = tuple(sympy.Symbol(f"{name}_{i}", real=True) for i in range(1, d + 1))
    clash = sorted(s.name for s in symbols if s.name in taken)
    if clash:
        raise ExpressionError(
            f"the scalar {clash[0]} has the name of a coordinate of the vector {name}: "
            f"give {name} a value or rename the scalar"
        )
    return symbols


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
    atoms, symbols = _free_variables(e)
    taken = {s.name for s in symbols}
    for name in sorted(atoms):
        if name not in vectors:
            vectors[name] = _named_coordinates(name, d, taken)
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
    atoms, symbols = _free_variables(e)
    taken = {s.name for s in symbols}
    # At a point the coordinates of wrt are only differentiated in: Dummy symbols.
    coords = _named_coordinates(wrt.name, d, taken) if point is None else _coordinates(wrt.name, d)
    vectors[wrt.name] = coords
    for name in sorted(atoms):
        if name not in vectors:
            vectors[name] = _named_coordinates(name, d, taken)
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
        case ir.Power(base=base, exponent=n):
            atoms, symbols = _free_variables(base, bound_atoms, bound_symbols)
            symbols |= {s for s in n.free_symbols if s != ir.d} - bound_symbols
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
        for n in (n for e in (lhs, rhs, *extras) for n in ir.walk(e)):
            undefined = n.value.atoms(AppliedUndef) if isinstance(n, ir.Const) else set()
            if undefined:
                name = sorted(str(f.func) for f in undefined)[0]
                raise UnsupportedError(f"the constant {n.value} uses the undefined function {name}")
        atoms, symbols = _free_variables(ir.add(lhs, ir.negate(rhs)))
        for term in extras:
            a, s = _free_variables(term)
            atoms, symbols = atoms | a, symbols | s
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
            tuple(extras),
        )

    def nodes(self) -> list[ir.Expr]:
        """Every node of both sides and of the extra terms."""
        return [n for e in (self.lhs, self.rhs, *self.extras) for n in ir.walk(e)]

    def constants(self) -> list[sympy.Rational]:
        """The rational numbers written in the claim (where its boundaries tend to be)."""
        found: set[sympy.Rational] = set()
        for n in self.nodes():
            if isinstance(n, ir.Const):
                found |= {abs(r) for r in n.value.atoms(sympy.Rational) if 0 < abs(r) <= 10**12}
        return sorted(found)

    def exponents(self) -> set[sympy.Symbol]:
        """Symbols in an exponent: they take small values only (2^(10¹⁵) is not computable)."""
        found: set[sympy.Symbol] = set()
        for n in self.nodes():
            if isinstance(n, ir.Power):
                found |= n.exponent.free_symbols
            elif isinstance(n, ir.Const):
                for p in n.value.atoms(sympy.Pow):
                    found |= p.exp.free_symbols
        return found

    def scalar_only(self) -> bool:
        """Whether no vector occurs: then d is just a number and any d is cheap to try."""
        return not self.atoms and all(n.kind == "scalar" for n in self.nodes())

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


@dataclass
class _Scan:
    """What the points tried at one dimension showed, beyond a violation.

    Attributes:
        defined: points where both sides have a real value.
        undefined: points where they do not (skipped).
        term_failure: the first point where a certificate term was negative or had no real
            value although both sides had one ("" if none): the certificate is wrong there.
    """

    defined: int = 0
    undefined: int = 0
    term_failure: str = ""


def _evaluate(
    problem: _Problem,
    point: _Point,
    radicands: list[sympy.Expr] | None = None,
    scan: _Scan | None = None,
) -> tuple[Value, Value] | None:
    """Both sides at ``point``, or None where they have no real value (0 in a denominator, a
    root of a negative number). With ``scan``, the certificate terms are evaluated there too.

    Raises:
        UnsupportedError: for a value that is not a number (e.g. an undefined function).
    """
    ev = _Evaluator(point.d, point.vectors, point.scalars, expand=True, radicands=radicands)
    try:
        sides = ev.value(problem.lhs), ev.value(problem.rhs)
        defined = all(_real(x) for side in sides for x in _entries(side))
    except (ZeroDivisionError, _Undefined):
        defined = False
    if scan is not None:
        if not defined:
            scan.undefined += 1
            return None
        scan.defined += 1
        if problem.extras and not scan.term_failure:
            ev.radicands = None  # the terms' roots do not enter the claim's bound
            scan.term_failure = _term_failure(problem, point, ev)
    return sides if defined else None


def _term_failure(problem: _Problem, point: _Point, ev: _Evaluator) -> str:
    """Where a certificate term is negative or undefined at ``point`` ("" if none is)."""
    for i, term in enumerate(problem.extras, 1):
        try:
            value = ev.value(term)
            assert not isinstance(value, tuple)
            bad = "" if _real(value) and _sign(value) >= 0 else f"= {_tidy(value)}"
        except (ZeroDivisionError, _Undefined):
            bad = "has no real value"
        if bad:
            return f"t{i} {bad} at {_where(point)}"
    return ""


def _entries(value: Value) -> tuple[sympy.Expr, ...]:
    return value if isinstance(value, tuple) else (value,)


def _real(x: sympy.Expr) -> bool:
    """Whether an exact number is real and finite (False also for ∞ and NaN).

    Raises:
        UnsupportedError: for something that is not a number at all.
    """
    if x.is_Rational:
        return True
    if x.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        return False
    if x.free_symbols or not x.is_number:
        raise UnsupportedError(f"{x} has no numeric value at a point")
    return not (x.has(sympy.I) or x.is_extended_real is False)


def _sign(x: sympy.Expr) -> int:
    """The sign of an exact real number (nonzero values by certified evalf, zero exactly).

    Raises:
        _Undefined: if ``x`` is not real.
    """
    if x.is_Rational:
        return (x.p > 0) - (x.p < 0)
    try:
        approx = x.evalf(30, strict=True)
    except PrecisionExhausted:
        approx = _ZERO
    if not approx.is_real:
        real, imaginary = approx.as_real_imag()
        if imaginary != 0:
            raise _Undefined(f"{x} is not real")
        approx = real
    if approx != 0:
        return 1 if approx > 0 else -1
    t = sympy.Dummy("x")
    if sympy.minimal_polynomial(x, t) == t:
        return 0
    approx = x.evalf(300, strict=True)
    if not approx.is_real:
        raise _Undefined(f"{x} is not real")
    return 1 if approx > 0 else -1


def _violates(problem: _Problem, sides: tuple[Value, Value]) -> bool:
    """Whether exact values of the two sides violate the relation (never where a difference
    turns out not to be real: that point is outside the claim's domain)."""
    diffs = _differences(*sides)
    try:
        if problem.relation == "le":
            return _sign(diffs[0]) > 0
        return any(_sign(x) != 0 for x in diffs)
    except _Undefined:
        return False


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


#: Values beside the integers of the grid: fractions, values just off 0 and ±1, large and
#: tiny magnitudes (scalars that are not declared positive take the negatives too).
_ADVERSARIAL_VALUES = tuple(
    sympy.Rational(p, q)
    for p, q in [
        (1, 2), (1, 3), (3, 2), (2, 3), (1, 10), (1, 1000), (999, 1000), (1001, 1000),
        (10, 1), (1000, 1), (1, 10**6), (10**6, 1), (5, 2), (1, 4),
    ]
)  # fmt: skip
#: Offsets of the claim's own constants k tried as well: k, k ± 1/1000, k ± 1, k/2, 2k.
_NEAR = (
    (1, 0), (1, sympy.Rational(-1, 1000)), (1, sympy.Rational(1, 1000)), (1, -1), (1, 1),
    (sympy.Rational(1, 2), 0), (2, 0),
)  # fmt: skip
#: Adversarial points per dimension for an inequality (or an undecided equality).
ADVERSARIAL_POINTS = 48
#: An inequality's search in the dimensions between the two smallest and the largest
#: (where violations concentrate) is lighter: this many grid and adversarial points.
LIGHT_SEARCH = (12, 12)
#: Dimensions beyond max_d tried for claims without vectors, where d is just a number.
LARGE_DIMENSIONS = (10, 16, 64, 100, 1000, 10**4, 10**6, 10**9)


def _pools(problem: _Problem) -> tuple[list[sympy.Rational], list[sympy.Rational]]:
    """Values to try for real scalars and vector entries, and for positive scalars."""
    positive = list(_ADVERSARIAL_VALUES)
    for k in problem.constants():
        positive += [k * a + b for a, b in _NEAR if k * a + b > 0]
    positive = list(dict.fromkeys(positive))
    real = [x for v in positive for x in (v, -v)] + [_ZERO, _ONE, -_ONE]
    return list(dict.fromkeys(real)), positive


def _pattern(i: int, d: int, pool: Sequence[sympy.Rational], rng: random.Random) -> list:
    """Entries of an adversarial vector: random, a spike, constant, nearly constant, two
    blocks, or a large offset (kinds cycle with ``i``)."""
    x, y = rng.choice(pool), rng.choice(pool)
    kind = i % 6
    if kind == 0:
        return [rng.choice(pool) for _ in range(d)]
    if kind == 1:
        out = [_ZERO] * d
        out[rng.randrange(d)] = x
        return out
    if kind == 2:
        return [x] * d
    if kind == 3:
        return [x] * (d - 1) + [x + sympy.Rational(1, 1000)]
    if kind == 4:
        return [x] * (d // 2) + [y] * (d - d // 2)
    return [1000 + rng.choice(pool) for _ in range(d)]


def _adversarial(problem: _Problem, d: int, rng: random.Random) -> Iterator[_Point]:
    """Points built from fractions, negatives, boundary values (the claim's constants and
    values just beside them), large and tiny magnitudes, and structured vectors.

    The first points give every scalar the same value in turn (so that a one-scalar claim
    meets each value of the pool); later ones mix values at random.
    """
    real, positive = _pools(problem)
    small = problem.exponents()
    pools = {
        s: [v for v in (positive if s.is_positive else real) if s not in small or abs(v) <= 10]
        for s in problem.symbols
    }
    for i in range(4 * ADVERSARIAL_POINTS):
        diagonal = i < len(real)
        scalars = {
            s: pool[i % len(pool)] if diagonal else rng.choice(pool) for s, pool in pools.items()
        }
        vectors = {a: tuple(_pattern(i + j, d, real, rng)) for j, a in enumerate(problem.atoms)}
        constrained = _constrain(problem, vectors, d)
        if constrained is not None and _assumptions_hold(problem, constrained):
            yield _Point(d, constrained, scalars)


def _large_dimensions(problem: _Problem, max_d: int) -> list[int]:
    """Dimensions beyond ``max_d`` worth trying when no vector occurs: a few large ones and
    those next to the claim's integer constants (where a bound such as d ≤ 999 fails)."""
    found = set(LARGE_DIMENSIONS)
    for k in problem.constants():
        if k.is_Integer:
            found |= {int(k) - 1, int(k), int(k) + 1}
    return [k for k in sorted(found) if k > max_d and _admissible(problem.assumptions, k)]


def _admissible(assumptions: Sequence[ir.Assumption], d: int) -> bool:
    """Whether the dimension assumptions allow ``d`` (as :func:`lnsym.expr.dimensions`)."""
    return all(
        d >= a.value if isinstance(a, ir.MinDimension) else d == a.value
        for a in assumptions
        if isinstance(a, ir.MinDimension | ir.FixedDimension)
    )


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
    small = problem.exponents()
    scalars = {
        s: sympy.Integer(rng.randint(1 if s.is_positive else -limit, limit))
        for s in problem.symbols
        for limit in [min(size, SMALL_EXPONENT) if s in small else size]
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
        status: ``"holds"``, ``"consistent"`` (exact samples only), ``"counterexample"``,
            or ``"undefined"`` (no point tried had a real value: the dimension is skipped).
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
    problem: _Problem,
    d: int,
    rng: random.Random,
    limit: int = GRID_EVALUATIONS,
    adversarial: int = 0,
    scan: _Scan | None = None,
) -> tuple[DimensionCheck | None, int]:
    """Look for a violation: ``limit`` small points in order of size, then ``adversarial``
    points (:func:`_adversarial`), then moderate random ones.

    Returns the first violation found (or None) and the number of points evaluated. A
    violation among the random points prompts the full search of small points first.
    Undefined points are skipped (and counted in ``scan``).
    """
    scan = scan if scan is not None else _Scan()
    evaluated = 0
    ordered = itertools.chain(
        itertools.islice(_grid(problem, d), limit),
        itertools.islice(_adversarial(problem, d, rng), adversarial),
    )
    for point in ordered:
        sides = _evaluate(problem, point, scan=scan)
        evaluated += 1
        if sides is not None and _violates(problem, sides):
            return DimensionCheck(d, "counterexample", "samples", evaluated, 0.0, point, sides), 0
    moderate = MODERATE_POINTS if limit >= GRID_EVALUATIONS else min(limit, 4)
    for _ in range(moderate):
        drawn = _random_point(problem, d, rng, 9)
        sides = None if drawn is None else _evaluate(problem, drawn, scan=scan)
        evaluated += 1
        if drawn is not None and sides is not None and _violates(problem, sides):
            if limit < GRID_EVALUATIONS:  # the claim is false: look for a smaller point
                smaller, _ = _search(problem, d, rng, GRID_EVALUATIONS)
                if smaller is not None:
                    return smaller, 0
            found = DimensionCheck(d, "counterexample", "samples", evaluated, 0.0, drawn, sides)
            return found, 0
    return None, evaluated


def _random_rational(
    problem: _Problem, d: int, rng: random.Random, points: int, scan: _Scan | None = None
) -> DimensionCheck:
    """Evaluate at ``points`` large random points.

    Returns a counterexample, or for an equality "holds" with the probability that a false
    identity passes every point — "consistent" when no such bound applies (no degree bound,
    or square roots that cannot be certified independent) and for an inequality; "undefined"
    when no point drawn had a real value.
    """
    scan = scan if scan is not None else _Scan()
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
            if not done:
                return DimensionCheck(
                    d, "undefined", "random-rational", note="undefined at every point tried"
                )
            note = note or "the claim is undefined at most random points"
            break
        point = _random_point(problem, d, rng, SAMPLE_RANGE)
        radicands: list[sympy.Expr] = []
        sides = None if point is None else _evaluate(problem, point, radicands, scan)
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
    problem: _Problem,
    d: int,
    rng: random.Random,
    symbolic_up_to: int,
    points: int,
    scan: _Scan | None = None,
    search: tuple[int, int] = (GRID_EVALUATIONS, ADVERSARIAL_POINTS),
) -> DimensionCheck:
    """Decide ``problem`` at dimension ``d``; see the module docstring for the strategy.

    An inequality is searched for a violation at ``search`` = (small, adversarial) points and
    a few random ones (its certificate, if any, is checked separately by :func:`evidence`);
    ``scan`` records what the points showed.
    """
    scan = scan if scan is not None else _Scan()
    too_large = False
    if problem.relation == "eq" and d <= symbolic_up_to and not problem.pointwise:
        try:
            if _symbolic_zero(problem, d):
                return DimensionCheck(d, "holds", "symbolic")
        except _TooLarge:
            too_large = True
        except (UnsupportedError, DomainError):
            pass  # e.g. an operator norm, or a vanishing denominator: exact points decide
    if problem.relation == "le":  # no identity to test: search for a violation
        found, n = _search(problem, d, rng, search[0], search[1], scan)
        if found is not None:
            return found
        sampled = _random_rational(problem, d, rng, points, scan)
        if sampled.status == "counterexample":
            return sampled
        return _undecided(d, scan, n + sampled.samples, sampled.note)
    sampled = _random_rational(problem, d, rng, points, scan)
    if sampled.status == "holds":
        return replace(sampled, too_large=too_large)
    # False, or not decided by random points: look for the smallest violating point.
    false = sampled.status == "counterexample"
    undefined = sampled.status == "undefined"
    limit = GRID_EVALUATIONS if false or undefined else SPOT_CHECKS
    found, n = _search(
        problem, d, rng, limit, adversarial=ADVERSARIAL_POINTS if undefined else 0, scan=scan
    )
    if found is not None or false:
        return found or sampled
    if undefined:
        note = "the claim is undefined at every random point; small points agree"
        return _undecided(d, scan, n, note)
    return replace(sampled, samples=n + sampled.samples)


def _undecided(d: int, scan: _Scan, samples: int, note: str) -> DimensionCheck:
    """Consistent after exact samples without a violation; undefined if none had a value."""
    if not scan.defined:
        return DimensionCheck(d, "undefined", "samples", samples, note="undefined at every point")
    return DimensionCheck(d, "consistent", "samples", samples, note=note)


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

    A claim without vectors is also tried at a few larger d (:data:`LARGE_DIMENSIONS` and
    next to its integer constants), where d is just a number.

    An inequality is always searched for a violation by its own means — integer points in
    order of size, then fractions, negatives, boundary values and large magnitudes, then
    random points — and every term of its certificate is evaluated at the same points. Its
    outcome is "holds" only if no violation was found, no term was negative or undefined at
    a point where the sides are defined, and the identity rhs − lhs = Σ tₖ holds exactly at
    every d with every tₖ ≥ 0 by the sign rules.

    A dimension where every point tried is undefined (e.g. 1/(d − 1) at d = 1) is skipped
    and noted in the evidence.

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
        DomainError: when the claim is undefined at every point tried at every d.
    """
    start = time.perf_counter()
    statement = claim.statement
    is_le = isinstance(statement, ir.Le)
    terms: tuple[ir.Expr, ...] = statement.certificate if isinstance(statement, ir.Le) else ()
    relation = "le" if is_le else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions, terms)
    # d = 1 has no non-constant vector: such a claim says nothing there.
    dims = [d for d in ir.dimensions(claim.assumptions, max_d) if problem.satisfiable(d)]
    if problem.scalar_only():
        dims += _large_dimensions(problem, max_d)
    if not dims:
        raise UnsupportedError(f"no dimension in 1..{max_d} satisfies the assumptions")
    identity, reason = _certificate(statement, claim.assumptions) if is_le else (problem, "")

    results: list[DimensionCheck] = []
    undefined: list[int] = []
    failure = ""  # the first point where a certificate term is negative or undefined
    samples = 0
    thorough = {*dims[:2], max(d for d in dims if d <= max_d)} if dims[0] <= max_d else set(dims)
    for d in dims:
        rng = random.Random(seed * 1_000_003 + d)
        scan = _Scan()
        search = (GRID_EVALUATIONS, ADVERSARIAL_POINTS) if d in thorough else LIGHT_SEARCH
        result = _check(problem, d, rng, symbolic_up_to, POINTS, scan, search)
        if result.status == "counterexample":
            refuted = _refuted(problem, result, [r.d for r in results] + [d], start)
            if undefined:
                refuted.data["undefined_dimensions"] = undefined
            return refuted
        if result.status == "undefined":
            undefined.append(d)
            continue
        if result.too_large:  # larger d only grow: go straight to exact points
            symbolic_up_to = d - 1
        if is_le:
            samples += result.samples
            failure = failure or scan.term_failure
            if identity is not None and not failure:
                certified = _check(identity, d, rng, symbolic_up_to, POINTS)
                if certified.too_large:
                    symbolic_up_to = d - 1
                if certified.status == "holds":
                    result = certified
                else:  # a wrong certificate proves nothing; the inequality may still hold
                    how = {"counterexample": "fails", "undefined": "is undefined"}.get(
                        certified.status, "is not exact"
                    )
                    reason = f"the certificate identity {how} at d = {d}"
                    identity = None
        results.append(result)
    if not results:
        raise DomainError(
            f"the claim is undefined at every point tried at d = {_ranges(undefined)}"
        )

    checked = [r.d for r in results]
    data: dict[str, Any] = {
        "exact": True,
        "dimensions": checked,
        "methods": {r.d: r.method for r in results},
    }
    skipped = ""
    if undefined:
        data["undefined_dimensions"] = undefined
        skipped = f"; skipped d = {_ranges(undefined)}, undefined at every point tried"
    if failure:
        reason = f"the certificate is wrong: {failure}"
        data["certificate_failure"] = failure
    if is_le:
        data["samples"] = samples
    if failure or any(r.status != "holds" for r in results):
        if not is_le:
            data["samples"] = sum(r.samples for r in results if r.status != "holds")
        why = reason or next((r.note for r in results if r.note), "not decided")
        detail = (
            f"no violation in {data['samples']} exact samples for d = {_ranges(checked)} "
            f"({why}{skipped})"
        )
        return Evidence("concrete", "consistent", detail, time.perf_counter() - start, data)
    detail = "exact for " + _describe(results, identity or problem)
    random_checks = [r for r in results if r.method == "random-rational"]
    if random_checks:
        data["points"] = POINTS
        data["false_positive_bound"] = sum(r.bound for r in random_checks)
    if is_le:
        detail += (
            ": rhs − lhs = Σ tₖ, and every tₖ ≥ 0 by the sign rules; no violation and no "
            f"negative tₖ at {samples} exact points (integers, fractions, boundary values)"
        )
    return Evidence("concrete", "holds", detail + skipped, time.perf_counter() - start, data)


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
    counterexample, detail = _counterexample(problem, result.point, result.sides)
    data = {"exact": True, "dimensions": dims, "counterexample": counterexample}
    return Evidence("concrete", "counterexample", detail, time.perf_counter() - start, data)


def _counterexample(
    problem: _Problem, point: _Point, sides: tuple[Value, Value]
) -> tuple[dict[str, Any], str]:
    """The exact point and both sides' values as text, and a one-line description."""
    lhs, rhs = sides
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
    relation = ">" if problem.relation == "le" else "≠"
    detail = (
        f"{_where(point)}: lhs = {_short(counterexample['lhs'])} {relation} "
        f"rhs = {_short(counterexample['rhs'])}"
    )
    return counterexample, detail


def _where(point: _Point) -> str:
    """``d = 2, z = (0, 1), ε = 1``."""
    where = [f"d = {point.d}"]
    where += [
        f"{text(ir.VectorAtom(a))} = {_show(v, str)}" for a, v in sorted(point.vectors.items())
    ]
    where += [f"{text(ir.Const(s))} = {v}" for s, v in sorted(point.scalars.items(), key=_by_name)]
    return ", ".join(where)


# ---------------------------------------------------------------------------------------
# Re-checking a counterexample


_EXACT_NUMBER = re.compile(r"[+-]?\d{1,4000}(?:/\d{1,4000})?", re.ASCII)


def _exact_number(value: Any) -> sympy.Rational:
    """An exact rational from an int, a Fraction, a SymPy rational or text like ``-3/4``.

    Raises:
        ExpressionError: for anything else (floats included; no text reaches SymPy's parser).
    """
    if isinstance(value, bool):
        raise ExpressionError("booleans are not numbers")
    if isinstance(value, int | sympy.Rational):
        return sympy.Rational(value)
    if isinstance(value, Fraction):
        return sympy.Rational(value.numerator, value.denominator)
    if isinstance(value, str) and _EXACT_NUMBER.fullmatch(value.strip()):
        numerator, _, denominator = value.strip().partition("/")
        if denominator and int(denominator) == 0:
            raise ExpressionError(f"zero denominator in {value!r}")
        return sympy.Rational(int(numerator), int(denominator or 1))
    raise ExpressionError(f"not an exact rational number: {value!r}")


def recheck(claim: Claim, counterexample: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """Evaluate ``claim`` exactly at a reported counterexample, apart from how it was found.

    The point — ``d``, ``vectors`` (atom name → d exact rationals) and ``scalars`` (symbol
    name → an exact rational), as in :attr:`Evidence.data` ``["counterexample"]`` — must
    satisfy every assumption (dimension, centered, orthogonal, non-constant, positive
    symbols), both sides must have real values there, computed afresh without the search's
    expansions, and those values must violate the relation.

    Returns:
        The counterexample with its recomputed values and a note, or None and why not.

    >>> from lnsym import vector, core, Eq, jvp, ones
    >>> z = vector("z")
    >>> point = {"d": 2, "vectors": {"z": ["0", "1"]}, "scalars": {"epsilon": "1"}}
    >>> found, how = recheck(Claim("scale", Eq(jvp(core(z), z, z), 0)), point)
    >>> found["lhs"]
    '(-4*sqrt(5)/25, 4*sqrt(5)/25)'
    >>> how
    're-checked exactly: both sides evaluated afresh at the point'
    >>> recheck(Claim("shift", Eq(core(z + ones), core(z))), point)[1]
    'the relation holds at the point'
    """
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    try:
        d = counterexample["d"]
        if not isinstance(d, int) or isinstance(d, bool) or d < 1:
            return None, f"the dimension {d!r} is not a positive integer"
        given = counterexample.get("vectors", {})
        vectors: dict[str, tuple[sympy.Expr, ...]] = {}
        for atom in problem.atoms:
            if atom not in given:
                return None, f"no value for the vector {atom}"
            vectors[atom] = tuple(_exact_number(x) for x in given[atom])
            if len(vectors[atom]) != d:
                return None, f"the vector {atom} does not have {d} entries"
        named = counterexample.get("scalars", {})
        scalars: dict[sympy.Symbol, sympy.Expr] = {}
        for symbol in problem.symbols:
            if symbol.name not in named:
                return None, f"no value for the scalar {symbol.name}"
            scalars[symbol] = _exact_number(named[symbol.name])
            if symbol.is_positive and scalars[symbol] <= 0:
                return None, f"the positive scalar {symbol.name} is {scalars[symbol]}"
    except (ExpressionError, KeyError, TypeError) as exc:
        return None, f"malformed point: {exc}"
    if not _admissible(problem.assumptions, d) or not problem.satisfiable(d):
        return None, f"d = {d} is outside the assumptions"
    if not _assumptions_hold(problem, vectors):
        return None, "the point does not satisfy the assumptions"
    ev = _Evaluator(d, vectors, scalars)  # plain: none of the search's expansions
    try:
        sides = ev.value(problem.lhs), ev.value(problem.rhs)
        defined = all(_real(x) for side in sides for x in _entries(side))
    except (ZeroDivisionError, _Undefined):
        defined = False
    if not defined:
        return None, "the claim is undefined at the point"
    if not _violates(problem, sides):
        return None, "the relation holds at the point"
    found, _ = _counterexample(problem, _Point(d, vectors, scalars), sides)
    return found, "re-checked exactly: both sides evaluated afresh at the point"


#: Numeric samples in dimensions up to this are re-evaluated exactly.
PROMOTE_MAX_D = 64


def promote(claim: Claim, sample: Mapping[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """Make a numeric engine's violating sample (floats) an exact counterexample, if it is one.

    The floats are read as rationals — first rounded to 6 significant digits, then exactly —
    the coordinates that linear assumptions fix are solved again exactly, and the claim is
    evaluated exactly there by :func:`recheck`.

    Returns:
        The exact counterexample and a note, or None and why not.
    """
    d = sample.get("d")
    if not isinstance(d, int) or not 1 <= d <= PROMOTE_MAX_D:
        return None, f"samples are re-evaluated exactly only for d ≤ {PROMOTE_MAX_D}"
    statement = claim.statement
    relation = "le" if isinstance(statement, ir.Le) else "eq"
    problem = _Problem.of(statement.lhs, statement.rhs, relation, claim.assumptions)
    why = "no sample"
    for digits in (6, None):
        try:
            given = sample.get("vectors", {})
            vectors = {  # an atom only in the assumptions gets 0 (if the assumptions allow it)
                a: tuple(_rational(x, digits) for x in given.get(a, [0] * d)) for a in problem.atoms
            }
            scalars = {
                s.name: _rational(sample["scalars"][s.name], digits) for s in problem.symbols
            }
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            return None, f"the sample cannot be read exactly: {exc}"
        if any(len(v) != d for v in vectors.values()):
            return None, "the sample's vectors do not have d entries"
        constrained = _constrain(problem, vectors, d)
        if constrained is None:
            why = "the assumptions are degenerate at the sample"
            continue
        point = {
            "d": d,
            "vectors": {a: [str(x) for x in v] for a, v in constrained.items()},
            "scalars": {name: str(v) for name, v in scalars.items()},
        }
        found, why = recheck(claim, point)
        if found is not None:
            how = "rounded to 6 significant digits" if digits else "read exactly"
            return found, f"the numeric sample, {how}, violates the claim exactly"
    return None, why


def _rational(x: Any, digits: int | None) -> sympy.Rational:
    value = float(x)
    if not math.isfinite(value):
        raise ValueError(f"{x!r} is not finite")
    exact = Fraction(f"{value:.{digits}g}") if digits else Fraction(value)
    return sympy.Rational(exact.numerator, exact.denominator)


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
