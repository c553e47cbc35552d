"""The IR at a fixed d as SymPy expressions in readable coordinates: instantiate and jacobian.

Part of the concrete engine (:mod:`lnsym.engines.concrete.engine` describes the whole). It
holds :func:`instantiate` (the value of an expression at d, with numbers for some atoms and
symbols z_1, …, z_d for the others), :func:`jacobian` (by ``Matrix.jacobian``), and the
binding of user values to atoms and symbols that both share; values come from
:class:`~lnsym.engines.concrete.values._Evaluator`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.concrete.shared import _coordinates
from lnsym.engines.concrete.values import _Evaluator, _free_variables
from lnsym.errors import ExpressionError


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
