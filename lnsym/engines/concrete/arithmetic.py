"""Exact arithmetic at a rational point: real square-root towers and first-order jets.

The numbers and derivatives that :mod:`lnsym.engines.concrete.exact` evaluates the IR with,
as plain Python objects (SymPy numbers cost milliseconds per operation). It holds the
rationals :data:`Q`, the tower elements :class:`Quad` over the roots of a :class:`Tower`
with their exact :func:`sign` and :func:`inverse`, the :class:`Jet` of forward-mode
derivatives with :func:`power` (a Taylor sum), the conversions :func:`to_sympy` and
:func:`rational`, and the exceptions :class:`Undefined` and :class:`Inexpressible`.
Quads and jets live together because each defers to the other's operators.

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

>>> tower = Tower()
>>> r2 = tower.sqrt(Q(2))
>>> sign(3 - 2 * r2), to_sympy(inverse(1 + r2))
(1, -1 + sqrt(2))
"""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable
from functools import reduce
from typing import Any, Protocol, TypeAlias

import sympy
from sympy.polys.domains import QQ

from lnsym.errors import DomainError, UnsupportedError

#: Exact rationals: SymPy's ground type (FLINT's fmpq with python-flint, a dependency).
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
    if type(x) is Q:  # by the numerator: FLINT compares a rational with 0 five times slower
        return 0 if not x else 1 if x.p > 0 else -1
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


class Roots(Protocol):
    """Where square roots (and |x|) are taken: a :class:`Tower` of numbers, or the polynomial
    ring of :mod:`lnsym.engines.concrete.ring_values`."""

    def sqrt(self, x: Any) -> Any: ...

    def modulus(self, x: Any) -> Any: ...


class Tower:
    """The square roots taken at one point: √x is adjoined when it is first needed."""

    def __init__(self) -> None:
        self.roots: list[Root] = []
        self._rational: dict[tuple[Any, Any], Num] = {}

    def modulus(self, x: Any) -> Any:
        """|x|, by its exact sign.

        Raises:
            Inexpressible: for a jet at 0, where |x| has no derivative.
        """
        s = sign(primal(x))
        if s == 0 and type(x) is Jet:
            raise Inexpressible("|x| is not differentiable at 0")
        return -x if s < 0 else x

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
            # Keyed by numerator and denominator: FLINT hashes a rational through Python's
            # Fraction, 30 times the cost of an arithmetic operation.
            key = (x.numerator, x.denominator)
            found = self._rational.get(key)
            if found is None:
                found = self._rational[key] = self._rational_root(x)
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
    where such terms are gone before ``diff``), but for a root of 0, which the evaluator
    refuses under a derivative: √(0 + 0·t) may be √(t²) = |t|."""
    return _jet({k: c for k, c in v.terms.items() if k and _nonzero(c)})


def _nonzero(c: Any) -> bool:
    """Whether a coefficient is not 0: exactly for numbers, as written for the polynomial
    fractions of :mod:`lnsym.engines.concrete.ring_values` (a term kept that is 0 changes
    no value there: its primal is a nonzero polynomial)."""
    return sign(c) != 0 if type(c) is Quad else bool(c)


def power(v: Any, n: Any, tower: Roots | None) -> Any:
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


def _number_power(a: Num, n: Any, tower: Roots | None) -> Num:
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
