"""Arithmetic with running error bounds: sums, products, means and powers of batched values.

Beside every value runs a bound B on |computed − exact| at the sample (Wilkinson's running
error analysis; Higham, *Accuracy and Stability of Numerical Algorithms*, §3.3), for the
real and the imaginary part separately (a complex B holds both). Atoms are exact; a sum of
k terms adds (k − 1)·u·Σ|terms|, so cancellation shows (a coordinate sum counts d − 1
additions, whatever order numpy adds in); a product adds |a|·B_b + B_a·|b| + B_a·B_b +
u·|ab| (2u for complex); a power adds B times its derivative at the worst end of
[|x| − B, |x| + B] (mean-value theorem), or B^n for a root of a base that is a sum of
squares, plus a few ulps, and a root or negative power of a base whose B exceeds 10⁻⁴ of it
is *indeterminate*; a complex step divides the imaginary bound by τ; Ridders' extrapolation
adds its own error estimate; an operator norm adds the Frobenius norm of its Jacobian's
bound (Weyl) and the eigensolver's backward error. Complex-step values are computed to
first order in the step, as Duals are (a product drops the product of the two imaginary
parts, a power and a function take their derivative:
:func:`~lnsym.engines.numeric.arrays.jet_product`), so the step has no truncation error to
bound; where the bounds meet such products, O(τ²), they are below every bound and ignored,
as is gradual underflow.

:class:`BoundedArithmetic` holds the rules for sums, products, means and powers; the
:class:`~lnsym.engines.numeric.batch.Evaluator` inherits them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, reduce
from typing import Any

import numpy as np
import sympy

from lnsym.engines.numeric.arrays import (
    bound_sum,
    bound_times,
    contiguous,
    is_exact,
    is_stepped,
    jet_product,
    mag,
    mag_mul,
)
from lnsym.engines.numeric.environment import (
    INDETERMINATE,
    UNDEFINED,
    DirectionDependent,
    Env,
    Pair,
)
from lnsym.errors import UnsupportedError

#: A root or a negative power needs its base's error bound below this fraction of the base.
_POLE_MARGIN = 1e-4

#: An exponent as the messages name it (printing a SymPy number is slow, and every power
#: writes its messages before it knows whether a sample needs them).
_text = lru_cache(maxsize=1024)(str)


class BoundedArithmetic:
    """Sums, products, means and powers of (value, bound) pairs, for the Evaluator."""

    # Provided by the Evaluator and its other parts (annotations only: no attribute here
    # may shadow theirs).
    env: Env
    u: float
    mags: dict[int, tuple[np.ndarray, np.ndarray]]
    nbytes: int
    _flag: Callable[[Any, int, int, str], None]
    _const: Callable[[Any], Pair]

    def _mag(self, x: np.ndarray) -> np.ndarray:
        """:func:`~lnsym.engines.numeric.arrays.mag`, computed once per array (values are
        operands many times)."""
        hit = self.mags.get(id(x))
        if hit is None or hit[0] is not x:
            hit = self.mags[id(x)] = (x, mag(x))
            self.nbytes += hit[1].nbytes
        return hit[1]

    def _add(self, terms: list[Pair]) -> Pair:
        out = reduce(np.add, [v for v, _ in terms])
        if not self.env.track:
            return out, 0.0
        if len(terms) == 2:
            rounding = self.u * mag(out)
        else:
            rounding = (len(terms) - 1) * self.u * reduce(np.add, [self._mag(v) for v, _ in terms])
        return out, bound_sum(rounding, *(b for _, b in terms))

    def _mul(self, x: Pair, y: Pair) -> Pair:
        (a, ba), (b, bb) = x, y
        out = jet_product(a, b)
        if not self.env.track:
            return out, 0.0
        # u'|a||b| + |a|B_b + B_a|b| + B_a·B_b, as |a|(u'|b| + B_b) + B_a(|b| + B_b).
        ma, mb = self._mag(a), self._mag(b)
        rounding = (2 if np.iscomplexobj(out) else 1) * self.u
        bound = mag_mul(ma, rounding * mb if is_exact(bb) else rounding * mb + bb)
        if not is_exact(ba):
            bound = bound + mag_mul(ba, mb if is_exact(bb) else mb + bb)
        return out, bound

    def _sum(self, x: Pair) -> Pair:
        """Σ over the last axis, in the same order at every sample of any batch."""
        v, b = contiguous(x[0]), x[1]
        out = np.sum(v, axis=-1)
        if not self.env.track:
            return out, 0.0
        bound = (v.shape[-1] - 1) * self.u * np.sum(mag(v), axis=-1)
        if not is_exact(b):
            bound = bound + np.sum(np.broadcast_to(b, v.shape), axis=-1)
        return out, bound

    def _mean(self, x: Pair) -> Pair:
        total, bound = self._sum(x)
        return self._divide(total / self.env.d, bound)

    def _divide(self, out: np.ndarray, bound: Any) -> Pair:
        """``out`` = a total divided by d, and its bound from the total's ``bound``."""
        if not self.env.track:
            return out, 0.0
        d = self.env.d
        if d & (d - 1) == 0:  # dividing by a power of 2 is exact
            return out, bound_times(1 / d, bound)
        return out, bound_sum(bound_times(1 / d, bound), self.u * mag(out))

    def _power(self, x: Pair, n: sympy.Expr, nonnegative: bool = False) -> Pair:
        """``x ** n``; ``nonnegative`` when the exact base cannot be negative (a sum of
        squares, say), which lets a root of a base lost in rounding keep a bound."""
        # In complex-step mode the real parts carry the value, so the domain is checked on
        # them: a power that is not analytic there would return a meaningless derivative.
        base, bbase = x
        re, im = np.real(base), np.imag(base)
        exponent: int | float | np.ndarray  # a number, or the values of a symbolic exponent
        if n.is_number and not n.is_real:
            raise UnsupportedError(f"complex exponent {n}")
        if n.is_number:
            exponent, bexp = (int(n) if n.is_Integer else float(n)), 0.0
        else:
            exponent, bexp = self._const(n)
        if not n.is_Integer:
            what = f"undefined at this point: power {_text(n)} of a negative number"
            self._flag(re < 0, 1, UNDEFINED, what)
            what = f"undefined at this point: power {_text(n)} is not differentiable at 0"
            moving_zero = (re == 0) & (im != 0)
            if self.env.separate_directions and np.any(moving_zero):
                raise DirectionDependent(what)
            self._flag(moving_zero, 1, UNDEFINED, what)
        negative = np.asarray(exponent) < 0
        if np.any(negative):
            what = f"undefined at this point: division by zero (power {_text(n)} of 0)"
            self._flag((re == 0) & negative, 1, UNDEFINED, what)
        if is_stepped(base) or is_stepped(exponent):
            out = _first_order_power(base, exponent, n)
        elif n.is_Rational and n.q == 2:
            out = np.sqrt(base) ** int(n.p)  # the principal root, accurate to the last bit
        else:
            out = base**exponent
        if not self.env.track or n.is_zero:
            return out, 0.0
        ulps = 4 + 2 * np.abs(exponent)
        if not (n.is_Rational and n.q <= 2):  # pow through exp and log
            ulps = ulps + np.abs(exponent * np.log(np.abs(re)))
        bound = bound_sum(ulps * self.u * mag(out), self._propagated(x, n, exponent, nonnegative))
        if not is_exact(bexp):
            bound = bound + mag_mul(mag(out * np.log(base)), bexp)
        return out, bound

    def _propagated(self, x: Pair, n: sympy.Expr, exponent: Any, nonnegative: bool) -> Any:
        """How far the error B of the base x moves x ** n: by the mean-value theorem,
        B·|n|·|t|^(n−1) at the end t of [|x| − B, |x| + B] where that is largest; for a root
        of a nonnegative real base, at most B^n. A negative power or a root of a base whose
        error exceeds ``_POLE_MARGIN`` of it is flagged as indeterminate."""
        base, bbase = x
        if is_exact(bbase):
            return 0.0
        e, br, re = np.asarray(exponent), np.real(bbase), np.real(base)
        if not (n.is_Integer or nonnegative):
            what = f"the base of the power {_text(n)} may be negative within rounding"
            self._flag(re < br, 1, INDETERMINATE, what)
        lost = (e < 1) & ~(br <= _POLE_MARGIN * np.abs(re))
        root = lost & (e > 0) if nonnegative and not np.iscomplexobj(base) else False
        what = f"the base of the power {_text(n)} is lost in rounding"
        self._flag(lost & ~root, 1, INDETERMINATE, what)
        # |x| + B at the worst end: the real part of B moved by ±B, the imaginary part by +B.
        worst = self._mag(base) + (bbase - 2 * br * (e < 1))
        slope = np.abs(e) * mag(worst ** (e - 1))
        mean_value = np.nan_to_num(mag_mul(slope, bbase), nan=0.0)  # 0·∞ where B = 0
        if not np.any(root):
            return mean_value
        return np.where(root, br ** np.where(root, e, 1), mean_value)


def _first_order_power(base: Any, exponent: Any, n: sympy.Expr) -> np.ndarray:
    """(x + iy)^(e + iη) of complex-step values to first order in the step, as a Dual
    computes it: xᵉ + i·(e·xᵉ⁻¹·y + xᵉ·log(x)·η). NumPy's complex power keeps the O(τ²)
    terms (C(e, 2)·xᵉ⁻²·(iy)², …), which survive where x = 0 exactly: (iτ)³ = −iτ³, so
    ∂_c[c³] at c = 0 came out as −τ² (see :func:`~lnsym.engines.numeric.arrays.jet_product`).

    Where a slope is infinite (a root or a negative power at 0) the step's part is 0, as a
    Dual gives: the interpreter flags those samples.

    >>> _first_order_power(np.array([1e-100j]), 3, sympy.Integer(3))  # not −1e-300j
    array([0.+0.j])
    >>> _first_order_power(np.array([4 + 1e-100j]), 0.5, sympy.Rational(1, 2))
    array([2.+2.5e-101j])
    """
    x, y = np.real(base), np.imag(base)
    e, eta = np.real(exponent), np.imag(exponent)
    if n.is_Rational and n.q == 2:  # the principal root, accurate to the last bit
        root = np.sqrt(x)
        value, slope = root ** int(n.p), 0.5 * int(n.p) * root ** (int(n.p) - 2)
    else:
        value = x**e
        slope = np.where(np.equal(e, 0), 0.0, e * x ** (e - 1))
    step = np.where(np.isinf(slope), 0.0, slope) * y
    if np.any(eta):  # the exponent moves with the step (x^c in c)
        step = step + np.where(np.equal(eta, 0), 0.0, value * np.log(x) * eta)
    return value + 1j * step
