"""Interned IR nodes for the exact evaluator: equal nodes are one object.

:mod:`lnsym.engines.concrete.exact` memoizes values by the identity of a node, because the
IR's dataclass hash walks a node's whole subtree at every dictionary lookup. This module
holds :func:`intern` (the one object equal to a node, its sub-expressions interned too),
:func:`_definition` (the interned definition of a defined node) and the tables behind them,
which start afresh past :data:`INTERN_LIMIT`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lnsym import ir

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
