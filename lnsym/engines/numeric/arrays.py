"""Array helpers of the interpreter: per-sample reductions and the algebra of error bounds.

A bound is an array, or the float 0.0 for an exact value (so that exact atoms cost no array
operations); the helpers here keep that convention. Values may be complex (complex step):
their magnitudes keep the real and imaginary parts apart, as the bounds do; so may Duals
(forward-mode Jacobians, :mod:`~lnsym.engines.numeric.dual`), which stand in for them.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from typing import Any

import numpy as np

from lnsym.engines.numeric.dual import Dual


def per_sample(x: Any, n: int, axis: int, how: Callable[..., Any]) -> np.ndarray:
    """``how`` (np.max, np.any) of ``x`` over every axis but its sample axis, which is
    ``axis`` from the end: an array of length ``n`` (broadcast if ``x`` has no sample axis)."""
    x = np.asarray(x)
    if x.ndim < axis:
        return np.full(n, how(x))
    samples = np.moveaxis(x, x.ndim - axis, 0)
    return np.broadcast_to(how(samples.reshape(len(samples), -1), axis=1), (n,))


def expand_samples(per_sample: np.ndarray, axis: int) -> np.ndarray:
    """A per-sample array shaped to broadcast on values with the sample axis ``axis``."""
    return per_sample.reshape(per_sample.shape + (1,) * (axis - 1))


def select_samples(mask: np.ndarray, a: Any, b: Any, axis: int) -> Any:
    """Per sample, ``a`` where ``mask`` holds, else ``b``."""
    if is_exact(a) and is_exact(b):
        return 0.0
    return np.where(expand_samples(mask, axis), a, b)


def is_exact(bound: Any) -> bool:
    """Whether ``bound`` is the marker 0.0 of an exact value. Only a Python float is: NumPy's
    float64 scalars (what arithmetic on 0-d arrays returns) subclass float, and are bounds."""
    return type(bound) is float


def bound_sum(*bounds: Any) -> Any:
    """The sum of error bounds, skipping exact ones."""
    inexact = [b for b in bounds if not is_exact(b)]
    return reduce(np.add, inexact) if inexact else 0.0


def bound_times(factor: Any, bound: Any) -> Any:
    return bound if is_exact(bound) else factor * bound


def first_coordinate(bound: Any) -> Any:
    """The bound of the first coordinate of a vector."""
    return bound if is_exact(bound) else bound[..., 0]


def as_column(bound: Any) -> Any:
    return bound if is_exact(bound) else bound[..., None]


def as_row(bound: Any) -> Any:
    return bound if is_exact(bound) else bound[..., None, :]


def contiguous(x: Any) -> Any:
    """``np.ascontiguousarray`` of an array, or of both parts of a Dual (a sum in the same
    order at every sample, see :mod:`~lnsym.engines.numeric.batch`)."""
    if isinstance(x, Dual):
        return Dual(np.ascontiguousarray(x.re), np.ascontiguousarray(x.im))
    return np.ascontiguousarray(x)


def is_stepped(x: Any) -> bool:
    """Whether ``x`` is a complex-step value: a complex array or number (a Dual is not one).
    Asked of every product: an array's dtype is read first."""
    if isinstance(x, np.ndarray):
        return x.dtype.kind == "c"
    if isinstance(x, int | float):  # (NumPy's float64 too) an exponent, most often
        return False
    return not isinstance(x, Dual) and np.iscomplexobj(x)


def jet_product(a: Any, b: Any) -> Any:
    """a·b, of complex-step values to first order in the step: the real part without the
    product −aᵢbᵢ of the two imaginary parts, O(τ²), as a Dual computes it.

    That product is lost in the rounding of aᵣbᵣ wherever aᵣbᵣ ≠ 0; where aᵣbᵣ = 0
    exactly it would survive, and pass on to the imaginary parts as O(τ³) terms that are
    all that is left of a derivative that is exactly 0 (∂_c[c·c·c] at c = 0 was −τ², with
    a bound of 0: a relative error of 1).

    >>> jet_product(np.array([2 + 1e-100j]), np.array([3 + 2e-100j]))
    array([6.+7.e-100j])
    >>> jet_product(np.array([1e-100j]), np.array([1e-100j]))  # not −1e-200
    array([0.+0.j])
    """
    out = a * b
    if is_stepped(a) and is_stepped(b):
        return out + np.imag(a) * np.imag(b)  # (adds to the real part only)
    return out


def mag(x: Any) -> Any:
    """|x|, with separate magnitudes for the real and imaginary parts of a complex x (or
    for the primal and the tangents of a :class:`~lnsym.engines.numeric.dual.Dual`)."""
    if isinstance(x, Dual):
        return Dual(np.abs(x.re), np.abs(x.im))
    x = np.asarray(x)
    if not np.iscomplexobj(x):
        return np.abs(x)
    if x.ndim and x.flags.c_contiguous:  # one pass over the interleaved parts
        return np.abs(x.view(x.real.dtype)).view(x.dtype)
    return np.abs(x.real) + 1j * np.abs(x.imag)


def mag_mul(a: Any, b: Any) -> Any:
    """The magnitudes of a product's real and imaginary parts from those of its factors:
    (aᵣbᵣ + aᵢbᵢ) + i(aᵢbᵣ + aᵣbᵢ), less the product aᵢbᵢ of two imaginary (complex-step)
    parts, O(τ²), which the bounds ignore (see :mod:`~lnsym.engines.numeric.rounding`): the
    complex product a·b, its real part aᵣbᵣ − aᵢbᵢ made nonnegative. Of Duals, the product
    (it has no aᵢbᵢ)."""
    out = a * b
    if isinstance(out, Dual):
        return out
    out = np.asarray(out)
    if np.iscomplexobj(a) and np.iscomplexobj(b):
        np.abs(out.real, out=out.real)
    return out
