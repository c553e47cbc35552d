"""Degree bounds and independent square roots: what the Schwartz–Zippel probability needs.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). A false
identity survives a random point with a probability bounded by the degree of the difference
of its sides; this module holds those degree bounds (:class:`_Degree`, :func:`_degree` of an
IR node, :func:`_degrees` of a problem) and :func:`_certified`, which counts the square roots
a point shows independent.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import reduce
from typing import Any

import sympy
from sympy.core.sorting import default_sort_key

from lnsym import ir
from lnsym.engines.concrete.problem import _Problem
from lnsym.errors import UnsupportedError
from lnsym.ir.calculus import Diff, Grad, Jvp, OperatorNorm, Vjp

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
        case Diff(expr=f):
            # ∂/∂a lowers the degree in a scalar of weight 1 (ε: 2) as D_1 does in z.
            return _derivative(_degree(f, frame), _CONSTANT)
        case Vjp(expr=f, cotangent=g):
            return _derivative(_times(_degree(g, frame), _degree(f, frame)), _CONSTANT)
        case ir.Defined():
            return _degree(e.definition(), frame)
    if isinstance(e, OperatorNorm):
        raise UnsupportedError("an operator norm is not a rational function of its inputs")
    raise UnsupportedError(f"no degree bound for {type(e).__name__}")


#: id of a problem → (the problem, its bounds or why it has none): a claim asks at every d.
_DEGREES: dict[int, tuple[_Problem, tuple[int, int] | UnsupportedError]] = {}


def _degrees(problem: _Problem) -> tuple[int, int]:
    """(D, D_r): degree bounds of lhs − rhs and of any radicand, as rational functions
    (computed once per problem object).

    Raises:
        UnsupportedError: for expressions without a degree bound (e.g. operator norms).
    """
    hit = _DEGREES.get(id(problem))
    if hit is None or hit[0] is not problem:
        try:
            found: tuple[int, int] | UnsupportedError = _bounds(problem)
        except UnsupportedError as exc:
            found = exc
        if len(_DEGREES) > 1000:
            _DEGREES.clear()
        hit = _DEGREES[id(problem)] = (problem, found)
    if isinstance(hit[1], UnsupportedError):
        raise type(hit[1])(*hit[1].args)  # a fresh exception of the same kind each time
    return hit[1]


def _bounds(problem: _Problem) -> tuple[int, int]:
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
