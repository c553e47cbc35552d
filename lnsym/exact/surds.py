"""Exact sums of square roots, Σₖ cₖ·√rₖ with rational cₖ and positive integer rₖ.

The values of a normalization layer at rational inputs are of this form (each statistic's
reciprocal square root 1/√(q + ε) is one surd), and :class:`Surd` computes with them in
plain Python integers and Fractions: much faster than SymPy's general expressions, and
independent of them — which is what the batch example's cross-check wants.

Equality is decided exactly: surds whose radicands differ by a square factor are merged
(√8 = 2·√2), and square roots of integers in different square classes are linearly
independent over the rationals, so a sum is zero only when each class's coefficient is.

>>> half = Surd.rational(Fraction(1, 2))
>>> x = Surd.rational(Fraction(17, 9)).power(Fraction(-1, 2))
>>> x, x * x
(3/17·√17, 9/17)
>>> (Surd.sqrt(Fraction(8)) - 2 * Surd.sqrt(Fraction(2))).is_zero()
True
>>> (half + x).to_sympy()
1/2 + 3*sqrt(17)/17
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import sympy

__all__ = ["Surd", "from_sympy"]


def _int_sqrt(k: int) -> int | None:
    """√k if k is a perfect square, else None."""
    root = math.isqrt(k)
    return root if root * root == k else None


class Surd:
    """An exact real number Σₖ cₖ·√rₖ: ``terms`` maps each radicand rₖ ≥ 1 to cₖ ≠ 0."""

    __slots__ = ("terms",)

    def __init__(self, terms: dict[int, Fraction]) -> None:
        self.terms = {r: c for r, c in terms.items() if c}

    @staticmethod
    def rational(x: Fraction | int) -> Surd:
        """The rational number ``x``."""
        return Surd({1: Fraction(x)})

    @staticmethod
    def sqrt(x: Fraction | int) -> Surd:
        """√x for a rational x ≥ 0 (as √(pq)/q for x = p/q).

        Raises:
            ValueError: for x < 0.
        """
        x = Fraction(x)
        if x < 0:
            raise ValueError(f"square root of the negative number {x}")
        p, q = x.numerator, x.denominator
        root_q = _int_sqrt(q)
        radicand, scale = (p, Fraction(1, root_q)) if root_q else (p * q, Fraction(1, q))
        root = _int_sqrt(radicand)
        if root is not None:
            return Surd({1: scale * root})
        return Surd({radicand: scale})

    @staticmethod
    def total(values: list[Surd]) -> Surd:
        """The sum of ``values`` (one pass, no intermediate sums)."""
        out: dict[int, Fraction] = {}
        for v in values:
            for r, c in v.terms.items():
                out[r] = out[r] + c if r in out else c
        return Surd(out)

    def is_rational(self) -> bool:
        """Whether no square root is left."""
        return all(r == 1 for r in self.terms)

    def as_rational(self) -> Fraction:
        """The value as a Fraction.

        Raises:
            ValueError: if the value has a square root left.
        """
        if not self.is_rational():
            raise ValueError(f"{self} is not rational")
        return self.terms.get(1, Fraction(0))

    def __add__(self, other: Any) -> Surd:
        other = _as_surd(other)
        if not other.terms:
            return self
        if not self.terms:
            return other
        out = dict(self.terms)
        for r, c in other.terms.items():
            out[r] = out.get(r, Fraction(0)) + c
        return Surd(out)

    __radd__ = __add__

    def __neg__(self) -> Surd:
        return Surd({r: -c for r, c in self.terms.items()})

    def __sub__(self, other: Any) -> Surd:
        return self + -_as_surd(other)

    def __rsub__(self, other: Any) -> Surd:
        return _as_surd(other) - self

    def __mul__(self, other: Any) -> Surd:
        other = _as_surd(other)
        out: dict[int, Fraction] = {}
        for a, c in self.terms.items():
            for b, e in other.terms.items():
                # √a·√b = g·√((a/g)(b/g)) with g = gcd(a, b), then any square factor left.
                g = math.gcd(a, b)
                radicand, coefficient = (a // g) * (b // g), c * e * g
                root = _int_sqrt(radicand)
                if root is not None:
                    radicand, coefficient = 1, coefficient * root
                out[radicand] = out.get(radicand, Fraction(0)) + coefficient
        return Surd(out)

    __rmul__ = __mul__

    def inverse(self) -> Surd:
        """1/x for a nonzero rational x or a single term c·√r (= √r/(c·r)).

        Raises:
            ValueError: for zero or a sum of several surds.
        """
        if len(self.terms) != 1:
            raise ValueError(f"cannot invert {self} exactly here")
        ((r, c),) = self.terms.items()
        return Surd({r: 1 / (c * r)})

    def power(self, exponent: Fraction) -> Surd:
        """x^p for an integer p, or a half-integer p and a rational x (> 0 for p < 0).

        Raises:
            ValueError: for other exponents, or where the power is undefined.
        """
        if exponent.denominator == 1:
            k = exponent.numerator
            base = self if k >= 0 else self.inverse()
            out = Surd.rational(1)
            for _ in range(abs(k)):
                out = out * base
            return out
        if exponent.denominator == 2 and self.is_rational():
            x = self.as_rational()
            if x < 0 or (x == 0 and exponent < 0):
                raise ValueError(f"{x} to the power {exponent} is not a real number")
            root = Surd.sqrt(x)
            return Surd.rational(x).power(exponent - Fraction(1, 2)) * root
        raise ValueError(f"cannot raise {self} to the power {exponent} exactly here")

    def is_zero(self) -> bool:
        """Whether the value is 0, decided exactly (radicands merged by square class)."""
        classes: dict[int, Fraction] = {}
        for r, c in self.terms.items():
            for a in classes:
                root = _int_sqrt(a * r)
                if root is not None:  # √r = (√(ar)/a)·√a
                    classes[a] += c * Fraction(root, a)
                    break
            else:
                classes[r] = c
        return all(c == 0 for c in classes.values())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Surd | int | Fraction):
            return (self - other).is_zero()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def to_sympy(self) -> sympy.Expr:
        """The value as a SymPy number."""
        return sympy.Add(
            *(
                sympy.Rational(c.numerator, c.denominator) * sympy.sqrt(sympy.Integer(r))
                for r, c in sorted(self.terms.items())
            )
        )

    def __repr__(self) -> str:
        if not self.terms:
            return "0"
        parts = [str(c) if r == 1 else f"{c}·√{r}" for r, c in sorted(self.terms.items())]
        return " + ".join(parts)


def _as_surd(x: Any) -> Surd:
    if isinstance(x, Surd):
        return x
    if isinstance(x, int | Fraction) and not isinstance(x, bool):
        return Surd.rational(x)
    raise TypeError(f"not an exact rational or surd: {x!r}")


@functools.lru_cache(maxsize=1 << 16)
def from_sympy(v: sympy.Expr) -> Surd | None:
    """A SymPy number Σ cₖ·√rₖ (rational cₖ, integer rₖ) as a :class:`Surd`; None if ``v``
    has another form. Cached: a batch shows and checks the same entries several times (a
    :class:`Surd` is never changed in place, so sharing one is safe).

    >>> from_sympy(sympy.Rational(1, 2) + 3 * sympy.sqrt(17) / 17)
    1/2 + 3/17·√17
    """
    out = Surd.rational(0)
    for term in sympy.Add.make_args(v):
        coefficient, rest = term.as_coeff_Mul()
        if not coefficient.is_Rational:
            return None
        c = Fraction(int(coefficient.p), int(coefficient.q))
        if rest == 1:
            out = out + c
        elif rest.is_Pow and rest.exp == sympy.Rational(1, 2) and rest.base.is_Integer:
            out = out + Surd({int(rest.base): c})
        else:
            return None
    return out
