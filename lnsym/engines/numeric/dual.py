"""Dual numbers for forward-mode derivatives: a value x + ε·ẋ with ε² = 0, one primal x and
its tangents ẋ along a batch of directions — the basis directions of a Jacobian, or one per
scalar for the derivatives of an expression in each of its scalars (see
:mod:`~lnsym.engines.numeric.derivatives`).

A Jacobian by complex step evaluates f(x + iτh) with the d basis directions as a leading
axis: every direction recomputes the real part, the primal value, and its error bound, in
complex arithmetic — d copies of the same numbers. A :class:`Dual` keeps the primal once,
without the basis axes, and only the tangents along them, in real arithmetic: the basis
axes are paid for by the tangents alone.

It stands in for the complex arrays of the complex step: ``np.real`` is the primal and
``np.imag`` the tangents (τ = 1: no step, nothing to divide), ``+ − × ÷``, ``**``, ``sqrt``
and ``log`` follow the chain rule, and sums run over the last axis. So the interpreter's
rules apply unchanged, to values and to error bounds alike: a bound's real part bounds the
primal's error, its imaginary part the tangents' (see
:mod:`~lnsym.engines.numeric.rounding`). The products of two tangents, which the complex
step drops as O(τ²), are exactly zero here. Anything else a Dual is asked to do raises
TypeError, so that no rule applies to it by accident.

>>> x = Dual(np.array([4.0]), np.array([[1.0], [2.0]]))  # one primal, two directions
>>> y = np.sqrt(x) * x
>>> np.real(y), np.imag(y)  # 4^(3/2), and (3/2)·4^(1/2) along each direction
(array([8.]), array([[3.],
       [6.]]))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin


class Dual(NDArrayOperatorsMixin):
    """``re + ε·im``: ``re`` the primal, ``im`` the tangents, whose leading axes (the
    directions) ``re`` lacks; the two broadcast together."""

    __slots__ = ("re", "im")

    def __init__(self, re: Any, im: np.ndarray) -> None:
        self.re = np.asarray(re)
        self.im = im

    @property
    def shape(self) -> tuple[int, ...]:
        return np.broadcast_shapes(self.re.shape, np.shape(self.im))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def dtype(self) -> np.dtype:
        """The complex dtype of the complex step it stands in for."""
        return np.promote_types(np.result_type(self.re, self.im), np.complex64)

    @property
    def nbytes(self) -> int:
        return int(self.re.nbytes + np.asarray(self.im).nbytes)

    def __getitem__(self, key: Any) -> Dual:
        return Dual(self.re[key], self.im[key])

    def __array__(self, *args: Any, **kwargs: Any) -> np.ndarray:
        raise TypeError("a Dual has no array form: take np.real or np.imag")

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        rule = _UFUNCS.get(ufunc)
        if method != "__call__" or kwargs or rule is None:
            return NotImplemented
        return rule(*inputs)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        rule = _FUNCTIONS.get(func)
        return NotImplemented if rule is None else rule(*args, **kwargs)


def _parts(x: Any) -> tuple[Any, Any]:
    """(primal, tangents) of a Dual, or of a real constant (tangents None)."""
    if isinstance(x, Dual):
        return x.re, x.im
    if np.iscomplexobj(x):
        raise TypeError("a Dual does not mix with complex numbers")
    return x, None


def _add(a: Any, b: Any) -> Dual:
    (ar, ai), (br, bi) = _parts(a), _parts(b)
    return Dual(ar + br, ai if bi is None else bi if ai is None else ai + bi)


def _sum_of(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """x + y, into x or y where one is a fresh array of the sum's shape (no third array)."""
    if x.shape == np.broadcast_shapes(x.shape, y.shape):
        return np.add(x, y, out=x)
    return np.add(y, x, out=y) if y.shape == np.broadcast_shapes(x.shape, y.shape) else x + y


def _subtract(a: Any, b: Any) -> Dual:
    (ar, ai), (br, bi) = _parts(a), _parts(b)
    return Dual(ar - br, ai if bi is None else -bi if ai is None else ai - bi)


def _multiply(a: Any, b: Any) -> Dual:
    (ar, ai), (br, bi) = _parts(a), _parts(b)
    if a is b:  # a square: 2·a·ȧ in one pass over the tangents
        return Dual(ar * ar, (2 * ar) * ai)
    if bi is None:
        return Dual(ar * br, ai * br)
    if ai is None:
        return Dual(ar * br, ar * bi)
    return Dual(ar * br, _sum_of(ar * bi, ai * br))


def _divide(a: Any, b: Any) -> Dual:
    (ar, ai), (br, bi) = _parts(a), _parts(b)
    quotient = ar / br
    if bi is None:
        return Dual(quotient, ai / br)
    return Dual(quotient, ((0 if ai is None else ai) - quotient * bi) / br)


def _negative(a: Dual) -> Dual:
    return Dual(-a.re, -a.im)


def _chain(value: Any, slope: Any, a: Dual) -> Dual:
    """f(a) from f(a.re) and f'(a.re). Where the slope is infinite (a root or a negative
    power at 0), the tangents are 0 along the directions that leave the base alone, as a
    complex step gives (the interpreter flags the samples where a direction moves it)."""
    return Dual(value, np.where(np.isinf(slope), 0.0, slope) * a.im)


def _power(a: Any, n: Any) -> Dual:
    if isinstance(n, Dual) or not isinstance(a, Dual):
        raise TypeError("a Dual exponent is not supported")
    return _chain(a.re**n, np.where(np.equal(n, 0), 0.0, n * a.re ** (n - 1)), a)


def _sqrt(a: Dual) -> Dual:
    root = np.sqrt(a.re)
    return _chain(root, 0.5 / root, a)


def _log(a: Dual) -> Dual:
    return _chain(np.log(a.re), 1 / a.re, a)


def _sum(a: Dual, axis: Any = None, **kwargs: Any) -> Dual:
    if axis != -1 or kwargs:
        raise TypeError("a Dual sums over its last axis only")
    return Dual(np.sum(a.re, axis=-1), np.sum(a.im, axis=-1))


def _broadcast_to(a: Dual, shape: tuple[int, ...]) -> Dual:
    """The tangents to ``shape``; the primal to its trailing axes (no directions)."""
    return Dual(
        np.broadcast_to(a.re, shape[len(shape) - a.re.ndim :]), np.broadcast_to(a.im, shape)
    )


def _nan_to_num(a: Dual, nan: float = 0.0) -> Dual:
    return Dual(np.nan_to_num(a.re, nan=nan), np.nan_to_num(a.im, nan=nan))


_UFUNCS: dict[Any, Callable[..., Any]] = {
    np.add: _add,
    np.subtract: _subtract,
    np.multiply: _multiply,
    np.true_divide: _divide,
    np.negative: _negative,
    np.power: _power,
    np.sqrt: _sqrt,
    np.log: _log,
}
_FUNCTIONS: dict[Any, Callable[..., Any]] = {
    np.real: lambda a: a.re,
    np.imag: lambda a: a.im,
    np.iscomplexobj: lambda a: True,
    np.ndim: lambda a: a.ndim,
    np.shape: lambda a: a.shape,
    np.sum: _sum,
    np.broadcast_to: _broadcast_to,
    np.nan_to_num: _nan_to_num,
}
