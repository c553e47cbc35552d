"""What an expression is written in: the names of its atoms and its scalar symbols.

Soundness checks ask which atoms and symbols an expression depends on — the chain rule
(is y absent from G?), a substitution's capture guard, the dependence tests. They walk the
*fields* of a node, which is complete only if a defined node's :meth:`definition` uses
nothing its fields do not already hold. :func:`check_definition` makes that so when a defined
node is built: a node ``Soft(a) = a/(1 + ε)`` whose ε is in no field is refused, since every
walk would miss it (∂_ε Soft(y) would look like 0). The dimensions d, n and m are constants
of every claim and may appear anywhere.

>>> from lnsym.ir.nodes import vector, mean, eps
>>> found = written(mean(vector("z")) + eps)
>>> sorted(found.atoms), sorted(map(str, found.symbols))
(['z'], ['epsilon'])
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.names import d, m, n
from lnsym.ir.primitives import Expr, kept_on_node

#: Symbols every claim shares: the sizes.
DIMENSIONS = frozenset({d, n, m})


@dataclass(frozen=True, slots=True)
class Written:
    """The atom names (vectors and matrices) and the scalar symbols written in a node,
    bound by a substitution or not."""

    atoms: frozenset[str]
    symbols: frozenset[sympy.Symbol]


_NOTHING = Written(frozenset(), frozenset())


def _written(e: Expr) -> Written:
    atoms: set[str] = set()
    symbols: set[sympy.Symbol] = set()
    if getattr(e, "names_an_atom", False):
        atoms.add(e.name)  # type: ignore[attr-defined]
    for field in dataclasses.fields(e):  # type: ignore[arg-type]
        value = getattr(e, field.name)
        for item in value if isinstance(value, tuple) else (value,):
            if isinstance(item, Expr):
                inner = written(item)
                atoms |= inner.atoms
                symbols |= inner.symbols
            elif isinstance(item, sympy.Basic):
                symbols |= item.free_symbols
    if not atoms and not symbols:
        return _NOTHING
    return Written(frozenset(atoms), frozenset(symbols))


written = kept_on_node("_written", _written)
written.__doc__ = """The atoms and symbols written in ``e`` (kept on the node: walks ask often)."""


def _exact(value: Any) -> bool:
    """Whether ``value``'s equality is exact: equal values mean the same thing."""
    if isinstance(value, tuple):
        return all(map(_exact, value))
    return isinstance(value, Expr | sympy.Basic) or type(value) in (str, int)


def check_definition(node: Any) -> None:
    """Refuse a defined node whose definition uses an atom or a symbol (other than d, n, m)
    that none of its fields holds, or with a field its equality or hash ignores or compares
    loosely (every engine keeps results by node: two nodes equal but for such a field would
    share them).

    Raises:
        ExpressionError: naming the node's class and what its definition hides.
    """
    for field in dataclasses.fields(node):
        if not field.compare or field.hash is False:
            raise ExpressionError(
                f"{type(node).__name__}'s field {field.name} is left out of its equality: "
                "every field of a node must compare (field(compare=False) and "
                "field(hash=False) are not allowed)"
            )
        if not _exact(getattr(node, field.name)):
            raise ExpressionError(
                f"{type(node).__name__}'s field {field.name} holds a "
                f"{type(getattr(node, field.name)).__name__}, whose equality is looser than "
                "its meaning (0.0 == -0.0, True == 1): a node's fields hold expressions, "
                "SymPy objects, strings, ints or tuples of them"
            )
    declared, used = written(node), written(node.definition())
    hidden = sorted(used.atoms - declared.atoms) + sorted(
        str(s) for s in used.symbols - declared.symbols - DIMENSIONS
    )
    if hidden:
        raise ExpressionError(
            f"{type(node).__name__}'s definition uses {', '.join(hidden)}, which none of its "
            "fields holds: make every atom and symbol of the definition a field of the node"
        )
