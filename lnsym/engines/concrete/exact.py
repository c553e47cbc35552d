"""Exact evaluation of the IR at a rational point: rationals, real square roots and jets.

The concrete engine's searches evaluate a claim at hundreds of exact points. Doing that with SymPy
numbers (and ``sympy.diff`` of expressions in t) costs milliseconds per operation: every
intermediate result is a new SymPy object whose assumptions are queried. This module evaluates the
same IR with plain Python objects instead; its values are equal to SymPy's, exactly, and
:mod:`lnsym.engines.concrete.engine` keeps SymPy for what is reported (counterexample values are
recomputed with SymPy at the point) and for the symbolic identity checks.

*Numbers* are rationals (``QQ.dtype``) and elements a + b·√R of a tower of real quadratic
extensions built for one point (:class:`Tower`): each root √R is adjoined when first taken,
with R > 0 an element of the fields below it (a rational whose root is rational, or a
rational multiple of a root already there, is not adjoined again). Signs are decided
exactly, by recursion on the tower: a + b√R has the sign of a or of b when they agree,
and otherwise the sign of a times that of a² − b²R (:func:`sign`). A representation need
not be canonical (√(3 + 2√2) stays a generator although it is 1 + √2), which the sign test
does not need; an inverse whose norm a² − b²R vanishes finds √R = |a/b| in the field below.

*Derivatives* are forward mode: a value is a :class:`Jet`, a sum Σ c_K·t_K over products
t_K of distinct infinitesimals, one per directional derivative being taken (the
perturbation t of z ↦ z + t·h, with t·t = 0), or one per coordinate direction for a
gradient or a Jacobian (t·w₁, …, t·w_d with (t·wᵢ)(t·wⱼ) = 0). Nested derivatives use
distinct perturbations, so mixed second derivatives are kept. A power f(a + δ) with δ
nilpotent is the finite Taylor sum Σₖ binom(n, k)·a^(n−k)·δᵏ. Dropping t² is exact for a
first derivative; it is what the SymPy route does too (terms of order t² are dropped there
before ``diff``), so both agree even at a point where the radicand vanishes to second order.

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

import dataclasses
import math
import operator
from collections.abc import Callable, Iterable, Mapping
from functools import reduce
from typing import Any, TypeAlias

import sympy
from sympy.polys.domains import QQ

from lnsym.errors import DomainError, UnsupportedError
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import Grad, Jvp, OperatorNorm, Vjp

#: Exact rationals: SymPy's fastest available type (gmpy2's mpq if installed).
Q: Any = QQ.dtype
ZERO, ONE = Q(0), Q(1)


class Undefined(DomainError):
    """The claim has no (real) value at this point: a zero denominator, a non-integer power
    of a negative number. Such a point is skipped, never a failure of the check."""


class Inexpressible(UnsupportedError):
    """A value outside the rationals extended by square roots: SymPy evaluates the point."""


# ---------------------------------------------------------------------------------------
# Real quadratic towers


class Root:
    """The generator √square of one level of a tower (square > 0, from the levels below)."""

    __slots__ = ("level", "square")

    def __init__(self, level: int, square: Num) -> None:
        self.level = level
        self.square = square


class Quad:
    """a + b·√R for R = ``root.square``, with a and b from the levels below ``root``."""

    __slots__ = ("a", "b", "root", "_sign")

    def __init__(self, a: Num, b: Num, root: Root) -> None:
        self.a = a
        self.b = b
        self.root = root
        self._sign: int | None = None

    def __add__(self, y: Any) -> Any:
        ty = type(y)
        if ty is Quad:
            r, s = self.root, y.root
            if r is s:
                return _make(self.a + y.a, self.b + y.b, r)
            if r.level > s.level:
                return Quad(self.a + y, self.b, r)
            return Quad(self + y.a, y.b, s)
        if ty is Jet:
            return NotImplemented
        return Quad(self.a + y, self.b, self.root)

    __radd__ = __add__

    def __neg__(self) -> Quad:
        return Quad(-self.a, -self.b, self.root)

    def __sub__(self, y: Any) -> Any:
        if type(y) is Jet:
            return NotImplemented
        return self + (-y)

    def __rsub__(self, y: Any) -> Any:
        return (-self) + y

    def __mul__(self, y: Any) -> Any:
        ty = type(y)
        if ty is Quad:
            r, s = self.root, y.root
            if r is s:
                a, b, c, e = self.a, self.b, y.a, y.b
                return _make(a * c + b * e * r.square, a * e + b * c, r)
            if r.level > s.level:
                return _make(self.a * y, self.b * y, r)
            return _make(self * y.a, self * y.b, s)
        if ty is Jet:
            return NotImplemented
        if not y:
            return ZERO
        return Quad(self.a * y, self.b * y, self.root)

    __rmul__ = __mul__

    def __truediv__(self, y: Any) -> Any:
        if type(y) is Jet:
            return NotImplemented
        return self * inverse(y)

    def __rtruediv__(self, y: Any) -> Any:
        return y * inverse(self)

    def __pow__(self, n: int) -> Num:
        return _integer_power(self, n)

    def __repr__(self) -> str:
        return f"Quad({self.a!r}, {self.b!r}, √{self.root.square!r})"


#: An exact real number: a rational or an element of a tower.
Num: TypeAlias = Any


def _make(a: Num, b: Num, root: Root) -> Num:
    if type(b) is not Quad and not b:
        return a
    return Quad(a, b, root)


def sign(x: Num) -> int:
    """The sign of an exact real number, decided exactly (no floating point)."""
    if type(x) is not Quad:
        return (x > 0) - (x < 0)
    if x._sign is None:
        sa, sb = sign(x.a), sign(x.b)
        if sb == 0:
            found = sa
        elif sa == 0 or sa == sb:
            found = sb
        else:  # opposite signs: the larger of a² and b²R wins
            found = sa * sign(x.a * x.a - x.b * x.b * x.root.square)
        x._sign = found
    return x._sign


def absolute(x: Num) -> Num:
    return -x if sign(x) < 0 else x


def inverse(x: Num) -> Num:
    """1/x.

    Raises:
        ZeroDivisionError: if x = 0.
    """
    if type(x) is not Quad:
        return ONE / x
    if sign(x) == 0:
        raise ZeroDivisionError("division by an exact zero")
    a, b = x.a, x.b
    if sign(b) == 0:
        return inverse(a)
    norm = a * a - b * b * x.root.square
    if sign(norm) != 0:
        k = inverse(norm)
        return _make(a * k, -(b * k), x.root)
    # a² = b²R, so √R = |a/b| lies in the field below: x is a + b·|a/b| there.
    return inverse(a + b * absolute(a * inverse(b)))


def _integer_power(x: Num, n: int) -> Num:
    if n < 0:
        return _integer_power(inverse(x), -n)
    if type(x) is not Quad:
        return x**n
    out: Num = ONE
    while n:
        if n & 1:
            out = out * x
        n >>= 1
        if n:
            x = x * x
    return out


def _same(x: Num, y: Num) -> bool:
    """Whether two numbers are written alike (a sufficient test of equality)."""
    if type(x) is Quad or type(y) is Quad:
        return (
            type(x) is Quad
            and type(y) is Quad
            and x.root is y.root
            and _same(x.a, y.a)
            and _same(x.b, y.b)
        )
    return bool(x == y)


def _rational_sqrt(x: Any) -> Any:
    """√x for a rational x ≥ 0 when it is rational, else None."""
    p, q = int(x.numerator), int(x.denominator)
    rp, rq = math.isqrt(p), math.isqrt(q)
    return Q(rp, rq) if rp * rp == p and rq * rq == q else None


class Tower:
    """The square roots taken at one point: √x is adjoined when it is first needed."""

    def __init__(self) -> None:
        self.roots: list[Root] = []
        self._rational: dict[Any, Num] = {}

    def sqrt(self, x: Num) -> Num:
        """The nonnegative square root of x.

        Raises:
            Undefined: if x < 0.
        """
        s = sign(x)
        if s < 0:
            raise Undefined(f"the square root of the negative number {to_sympy(x)}")
        if s == 0:
            return ZERO
        if type(x) is not Quad:
            found = self._rational.get(x)
            if found is None:
                found = self._rational[x] = self._rational_root(x)
            return found
        for root in self.roots:
            if _same(root.square, x):
                return Quad(ZERO, ONE, root)
        return self._adjoin(x)

    def _rational_root(self, x: Any) -> Num:
        exact = _rational_sqrt(x)
        if exact is not None:
            return exact
        for root in self.roots:  # √(m²R) = m·√R
            if type(root.square) is not Quad:
                m = _rational_sqrt(x / root.square)
                if m is not None:
                    return Quad(ZERO, m, root)
        return self._adjoin(x)

    def _adjoin(self, x: Num) -> Quad:
        root = Root(len(self.roots) + 1, x)
        self.roots.append(root)
        return Quad(ZERO, ONE, root)


def to_sympy(x: Num) -> sympy.Expr:
    """The SymPy number equal to ``x``."""
    if type(x) is Quad:
        return to_sympy(x.a) + to_sympy(x.b) * sympy.sqrt(to_sympy(x.root.square))
    if type(x) is Jet:
        raise Inexpressible("a value with infinitesimals has no SymPy number")
    return sympy.Rational(int(x.numerator), int(x.denominator))


def rational(x: sympy.Expr) -> Any:
    """A SymPy rational as a :data:`Q`."""
    return Q(int(x.p), int(x.q))


# ---------------------------------------------------------------------------------------
# Jets: first order in each perturbation

#: A product of infinitesimals: ((perturbation, direction index), …), sorted by perturbation.
Key: TypeAlias = tuple[tuple[int, int], ...]
_MERGED: dict[tuple[Key, Key], Key | None] = {}


def _merge(k1: Key, k2: Key) -> Key | None:
    """The key of t_K1·t_K2, or None when a perturbation occurs twice (the product is 0)."""
    if not k1:
        return k2
    if not k2:
        return k1
    found = _MERGED.get((k1, k2), ())
    if found == ():
        p1 = {p for p, _ in k1}
        found = None if any(p in p1 for p, _ in k2) else tuple(sorted(k1 + k2))
        if len(_MERGED) > 100_000:
            _MERGED.clear()
        _MERGED[(k1, k2)] = found
    return found


class Jet:
    """Σ c_K·t_K over products t_K of distinct infinitesimals (see the module docstring)."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[Key, Num]) -> None:
        self.terms = terms

    def primal(self) -> Num:
        return self.terms.get((), ZERO)

    def __add__(self, y: Any) -> Any:
        terms = dict(self.terms)
        if type(y) is Jet:
            for k, c in y.terms.items():
                terms[k] = terms[k] + c if k in terms else c
        else:
            terms[()] = terms[()] + y if () in terms else y
        return _jet(terms)

    __radd__ = __add__

    def __neg__(self) -> Jet:
        return Jet({k: -c for k, c in self.terms.items()})

    def __sub__(self, y: Any) -> Any:
        return self + (-y)

    def __rsub__(self, y: Any) -> Any:
        return (-self) + y

    def __mul__(self, y: Any) -> Any:
        if type(y) is Jet:
            out: dict[Key, Num] = {}
            for k1, c1 in self.terms.items():
                for k2, c2 in y.terms.items():
                    k = _merge(k1, k2)
                    if k is not None:
                        c = c1 * c2
                        out[k] = out[k] + c if k in out else c
            return _jet(out)
        if type(y) is not Quad and not y:
            return ZERO
        return _jet({k: c * y for k, c in self.terms.items()})

    __rmul__ = __mul__

    def __truediv__(self, y: Any) -> Any:
        return self * power(y, Q(-1), None)

    def __rtruediv__(self, y: Any) -> Any:
        return y * power(self, Q(-1), None)

    def __repr__(self) -> str:
        return f"Jet({self.terms!r})"


def _jet(terms: dict[Key, Num]) -> Any:
    if not terms:
        return ZERO
    if len(terms) == 1 and () in terms:
        return terms[()]
    return Jet(terms)


def primal(v: Any) -> Num:
    """The value with every infinitesimal set to 0."""
    return v.terms.get((), ZERO) if type(v) is Jet else v


def _nilpotent(v: Jet) -> Any:
    """v without its primal part, and without terms that are exactly 0: a power of a jet
    whose infinitesimal part vanishes is the power of its primal (as on the SymPy route,
    where such terms are gone before ``diff``: √(0 + 0·t) is 0, not 0/0)."""
    return _jet({k: c for k, c in v.terms.items() if k and sign(c) != 0})


def power(v: Any, n: Any, tower: Tower | None) -> Any:
    """v**n for a rational n with denominator 1 or 2 (a Taylor sum for a jet).

    Raises:
        Undefined: for a half-integer power of a negative number.
        ZeroDivisionError: for a negative power of 0 (also inside the Taylor sum).
        Inexpressible: for other exponents.
    """
    if n.denominator not in (1, 2):
        raise Inexpressible(f"the exponent {n} leaves the square roots")
    if type(v) is not Jet:
        return _number_power(v, n, tower)
    a, delta = v.primal(), _nilpotent(v)
    out = _number_power(a, n, tower)
    if type(delta) is not Jet:
        return out
    # δᵏ = 0 once k exceeds the number of perturbations in δ (each enters a term once).
    order = len({p for key in delta.terms for p, _ in key})
    coefficient, term = ONE, ONE
    for k in range(1, order + 1):
        coefficient = coefficient * (n - k + 1) / k
        if not coefficient:
            break
        term = term * delta
        if type(term) is not Jet:
            break
        out = out + coefficient * _number_power(a, n - k, tower) * term
    return out


def _number_power(a: Num, n: Any, tower: Tower | None) -> Num:
    if n.denominator == 1:
        return _integer_power(a, int(n.numerator))
    if tower is None:
        raise Inexpressible("a square root needs a tower")
    return _integer_power(tower.sqrt(a), int(n.numerator))


def _sum(values: Iterable[Any]) -> Any:
    return reduce(operator.add, values, ZERO)


def _product(values: Iterable[Any]) -> Any:
    return reduce(operator.mul, values, ONE)


def _split(v: Any, pid: int) -> dict[int, Any]:
    """The coefficients of t_(pid, i) in v, by direction index i."""
    if type(v) is not Jet:
        return {}
    out: dict[int, dict[Key, Num]] = {}
    for key, c in v.terms.items():
        for j, (p, i) in enumerate(key):
            if p == pid:
                out.setdefault(i, {})[key[:j] + key[j + 1 :]] = c
                break
    return {i: _jet(terms) for i, terms in out.items()}


# ---------------------------------------------------------------------------------------
# Constants: SymPy expressions compiled once to closures over the scalars' values

Constant: TypeAlias = Callable[[Mapping[sympy.Symbol, Any], Tower], Any]
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

        def lookup(env: Mapping[sympy.Symbol, Any], tower: Tower) -> Any:
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

        def symbolic_power(env: Mapping[sympy.Symbol, Any], tower: Tower) -> Any:
            n = exponent(env, tower)
            if type(n) is not Q:
                raise Inexpressible("an exponent that is not a rational number")
            return power(base(env, tower), n, tower)

        return symbolic_power
    if isinstance(v, sympy.Abs):
        inner = _compile(v.args[0])

        def modulus(env: Mapping[sympy.Symbol, Any], tower: Tower) -> Any:
            x = inner(env, tower)
            s = sign(primal(x))
            if s == 0 and type(x) is Jet:
                raise Inexpressible("|x| is not differentiable at 0")
            return -x if s < 0 else x

        return modulus
    raise Inexpressible(f"no exact evaluation of {v}")


def from_sympy(v: sympy.Expr, tower: Tower) -> Num:
    """A SymPy number (rationals, +, ·, square roots) in ``tower``.

    Raises:
        Inexpressible: for anything else.
    """
    return _compile(v)({}, tower)


# ---------------------------------------------------------------------------------------
# Interned IR

#: Interned nodes (each equal to itself): values are memoized by identity, because the IR's
#: dataclass hash walks a node's whole subtree at every dictionary lookup.
_INTERNED: dict[ir.Expr, ir.Expr] = {}
#: id → interned node (a lookup that does not hash the node).
_IDENTITIES: dict[int, ir.Expr] = {}
#: id of an interned defined node → (the node, its interned definition).
_EXPANDED: dict[int, tuple[ir.Expr, ir.Expr]] = {}
#: Interned nodes kept before the tables start afresh.
INTERN_LIMIT = 200_000


def intern(e: ir.Expr) -> ir.Expr:
    """The one object equal to ``e`` whose sub-expressions are interned too.

    >>> from lnsym import vector, mean
    >>> intern(mean(vector("z"))) is intern(mean(vector("z")))
    True
    """
    found = _INTERNED.get(e)
    if found is None:
        if len(_INTERNED) > INTERN_LIMIT:
            _INTERNED.clear()
            _IDENTITIES.clear()
            _EXPANDED.clear()
        found = _rebuild(e)
        _IDENTITIES[id(found)] = found  # first: an interrupted call leaves nothing half-made
        _INTERNED[found] = found
    return found


def _rebuild(e: ir.Expr) -> ir.Expr:
    changes: dict[str, Any] = {}
    for field in dataclasses.fields(e):  # type: ignore[arg-type]
        value = getattr(e, field.name)
        if isinstance(value, ir.Expr):
            new: Any = intern(value)
        elif isinstance(value, tuple) and any(isinstance(x, ir.Expr) for x in value):
            new = tuple(intern(x) if isinstance(x, ir.Expr) else x for x in value)
            if all(x is y for x, y in zip(new, value, strict=True)):
                new = value
        else:
            continue
        if new is not value:
            changes[field.name] = new
    return dataclasses.replace(e, **changes) if changes else e  # type: ignore[type-var]


def _definition(e: ir.Defined) -> ir.Expr:
    """The interned definition of an interned defined node."""
    found = _EXPANDED.get(id(e))
    if found is None:
        found = _EXPANDED[id(e)] = (e, intern(e.definition()))
    return found[1]


# ---------------------------------------------------------------------------------------
# The evaluator

Value: TypeAlias = Any  # a number or jet, or a tuple of d of them


class Evaluator:
    """Exact values of IR nodes at one point, mirroring
    :class:`lnsym.engines.concrete.engine._Evaluator`.

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

    def __init__(
        self,
        d: int,
        vectors: Mapping[str, tuple[Any, ...]],
        scalars: Mapping[sympy.Symbol, Any],
        tower: Tower,
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
        self._memo: dict[int, tuple[ir.Expr, Value]] = {}

    def value(self, e: ir.Expr) -> Value:
        """The value of ``e``: a tuple of d values for a vector, else one value."""
        return self._eval(e if _IDENTITIES.get(id(e)) is e else intern(e))

    def _eval(self, e: ir.Expr) -> Value:
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
        return Evaluator(
            self.d,
            {**self.vectors, **(vectors or {})},
            {**self.scalars, **(scalars or {})},
            self.tower,
            depth=self.depth + perturbed,
            radicands=self.radicands,
        )

    def _atom(self, e: ir.VectorAtom) -> Value:
        if e.name not in self.vectors:
            raise Inexpressible(f"the vector {e.name} has no value")
        return self.vectors[e.name]

    def _ones(self, e: ir.Ones) -> Value:
        return (ONE,) * self.d

    def _const(self, e: ir.Const) -> Value:
        return compile_constant(e.value)(self.scalars, self.tower)

    def _vector_sum(self, e: ir.VectorSum) -> Value:
        return tuple(_sum(xs) for xs in zip(*(self._eval(t) for t in e.terms), strict=True))

    def _scaled(self, e: ir.Scaled) -> Value:
        k = self._eval(e.coefficient)
        return tuple(k * x for x in self._eval(e.vector))

    def _hadamard(self, e: ir.Hadamard) -> Value:
        return tuple(x * y for x, y in zip(self._eval(e.left), self._eval(e.right), strict=True))

    def _dot(self, e: ir.Dot) -> Value:
        return _sum(x * y for x, y in zip(self._eval(e.left), self._eval(e.right), strict=True))

    def _scalar_sum(self, e: ir.ScalarSum) -> Value:
        return _sum(self._eval(t) for t in e.terms)

    def _scalar_product(self, e: ir.ScalarProduct) -> Value:
        return _product(self._eval(f) for f in e.factors)

    def _power(self, e: ir.Power) -> Value:
        value = self._eval(e.base)
        n = compile_constant(e.exponent)(self.scalars, self.tower)
        if type(n) is not Q:
            raise Inexpressible(f"the exponent {e.exponent} has no rational value")
        if n.denominator != 1:
            at_zero = primal(value)
            if n.denominator == 2 and sign(at_zero) < 0:
                raise Undefined(f"the power {n} of a negative number")
            if self.radicands is not None and n.denominator == 2:
                self.radicands.append(at_zero)
        return power(value, n, self.tower)

    def _substitution(self, e: ir.Substitution) -> Value:
        bound = self._eval(e.value)
        if isinstance(e.target, ir.VectorAtom):
            return self._child(vectors={e.target.name: bound})._eval(e.expr)
        assert isinstance(e.target, ir.Const)
        return self._child(scalars={e.target.value: bound})._eval(e.expr)

    def _jvp(self, e: Jvp) -> Value:
        pid = self.depth
        value = self._moved(e.expr, e.wrt, self._eval(e.direction))
        if isinstance(value, tuple):
            return tuple(_split(x, pid).get(0, ZERO) for x in value)
        return _split(value, pid).get(0, ZERO)

    def _grad(self, e: Grad) -> Value:
        return self._linear_form(e.expr, e.wrt)

    def _vjp(self, e: Vjp) -> Value:
        return self._linear_form(e.expr, e.wrt, self._eval(e.cotangent))

    def _moved(
        self,
        f: ir.Expr,
        wrt: ir.VectorAtom,
        direction: tuple[Any, ...] | None,
        cotangent: tuple[Any, ...] | None = None,
    ) -> Value:
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
    ) -> Value:
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
        """‖J‖₂ = √(largest eigenvalue of JᵀJ), with SymPy's characteristic polynomial."""
        rows = self._linear_form(e.expr, e.wrt)
        if any(type(x) is Jet for row in rows for x in row):
            raise Inexpressible("the derivative of an operator norm")
        d = self.d
        gram = [
            [_sum(rows[k][i] * rows[k][j] for k in range(len(rows))) for j in range(d)]
            for i in range(d)
        ]
        matrix = sympy.Matrix([[to_sympy(x) for x in row] for row in gram])
        found = sympy.roots(matrix.charpoly())
        if sum(found.values()) != d:
            raise Inexpressible("the eigenvalues of JᵀJ have no closed form here")
        largest = max(found, key=lambda lam: sympy.re(lam.evalf(50)))
        return from_sympy(sympy.sqrt(largest), self.tower)


_HANDLERS: dict[type, Callable[[Evaluator, Any], Value]] = {
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
    Grad: Evaluator._grad,
    Vjp: Evaluator._vjp,
    OperatorNorm: Evaluator._operator_norm,
}
