"""The IR at one given point: values, Jacobians and finite-difference ratios.

The public helpers :func:`evaluate`, :func:`jacobian` and :func:`lipschitz_ratio` (re-exported
by :mod:`lnsym.engines.numeric.engine`): each evaluates a batch of one point without error
bounds and raises where the point is outside the expression's domain.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from lnsym import ir
from lnsym.engines.numeric.batch import Evaluator
from lnsym.engines.numeric.environment import OK, Env, SamplePoint, Status, Undefined
from lnsym.errors import DomainError, UserInputError


def evaluate(e: ir.Expr, point: SamplePoint) -> np.ndarray | float:
    """Evaluate an IR expression at a point.

    Args:
        e: a vector or scalar expression.
        point: values for every atom and symbol that ``e`` uses.

    Returns:
        An array of length d for a vector, a float for a scalar.

    Raises:
        DomainError: where ``e`` is undefined at the point, or a value is missing.
        UnsupportedError: for a node the engine cannot interpret.

    >>> from lnsym import vector, var, ones
    >>> z = vector("z")
    >>> evaluate(var(z + 10**8 * ones), SamplePoint(3, {"z": np.array([1.0, 2.0, 3.0])}))
    0.6666666666666666
    """
    value = _at(point, lambda ev: ev.value(e))
    value = value[0] if value.ndim == (2 if e.kind == "vector" else 1) else value
    return float(value) if value.ndim == 0 else np.array(value)


def jacobian(expr: ir.Expr, wrt: ir.VectorAtom, point: SamplePoint) -> np.ndarray:
    """The Jacobian matrix of ``expr`` with respect to the atom ``wrt`` at ``point``.

    Computed in forward mode (dual numbers), or by complex step or Ridders' central
    differences where forward mode does not apply (see
    :mod:`~lnsym.engines.numeric.derivatives`).

    Returns:
        A (d, d) array J with J[i, j] = ∂exprᵢ/∂wrtⱼ; a (1, d) row for a scalar ``expr``.

    Raises:
        DomainError: where ``expr`` is undefined at the point.

    >>> from lnsym import vector, mean
    >>> z = vector("z")
    >>> jacobian(mean(z), z, SamplePoint(2, {"z": np.array([1.0, 5.0])}))
    array([[0.5, 0.5]])
    """
    wrt = _atom(wrt)
    matrix = _at(point, lambda ev: ev.jacobian(expr, wrt)[0])
    return np.array(matrix.reshape(-1, point.d))


def lipschitz_ratio(f: ir.Expr, wrt: ir.VectorAtom, point: SamplePoint, h: Any) -> float:
    """The finite-difference ratio ‖f(wrt + h) − f(wrt)‖ / ‖h‖ at ``point``.

    Args:
        f: a vector or scalar expression.
        wrt: the vector atom that moves.
        point: the base point (it must hold a value for ``wrt``).
        h: the perturbation, an array of length d.

    Raises:
        UserInputError: for a zero or malformed ``h``.
        DomainError: where ``f`` is undefined at either point.

    >>> from lnsym import vector, core, eps
    >>> z = vector("z")
    >>> point = SamplePoint(2, {"z": np.array([7.0, 7.0])}, {eps: 1e-2})
    >>> round(lipschitz_ratio(core(z), z, point, np.array([1e-3, -1e-3])), 6)
    9.9995
    """
    wrt = _atom(wrt)
    step = np.array(h, dtype=point.dtype)
    if step.shape != (point.d,) or not np.any(step):
        raise UserInputError(f"h must be a nonzero vector of length {point.d}")
    if wrt.name not in point.vectors:
        raise DomainError(f"no value given for the vector {wrt.name}")
    moved = SamplePoint(
        point.d,
        {**point.vectors, wrt.name: point.vectors[wrt.name] + step},
        point.scalars,
        point.dtype,
    )
    change = np.asarray(evaluate(f, moved)) - np.asarray(evaluate(f, point))
    return float(np.linalg.norm(change) / np.linalg.norm(step))


def _atom(wrt: Any) -> ir.VectorAtom:
    if not isinstance(wrt, ir.VectorAtom):
        raise UserInputError(f"derivatives are taken with respect to a vector atom, not {wrt!r}")
    return wrt


def _at(point: SamplePoint, compute: Callable[[Evaluator], np.ndarray]) -> np.ndarray:
    """Evaluate at one point (a batch of one, without error bounds).

    Raises:
        DomainError: where the value is undefined or not finite.
    """
    status = Status(1)
    with np.errstate(all="ignore"):
        value = np.asarray(compute(Evaluator(Env.of([point], track=False), status)))
    if status.code[0] != OK:
        raise Undefined(status.reason[0])
    if not np.all(np.isfinite(value)):
        raise Undefined("undefined at this point: the value is not finite")
    return value
