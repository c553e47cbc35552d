"""lnsym's own node, relation and assumption types are closed to subclassing.

The interpreters, the sign rules and the kink check recognize a node by its type (an
``isinstance`` test): a subclass of ``Var`` would be read as a variance while its
``definition`` says something else, and every such reading is a way to a false verdict.
So a new node derives from an extension point — :class:`~lnsym.ir.nodes.Defined` with a
kind (``VectorNode``, ``ScalarNode``, ``MatrixNode``), or a normalization protocol — and
says what it means in ``definition()``; the types listed here are sealed once lnsym's
own are all built (at the end of ``lnsym.ir``'s import).
"""

from __future__ import annotations

from collections.abc import Iterable

from lnsym.errors import ExpressionError

_SEALED: set[type] = set()


def refuse_sealed_bases(cls: type) -> None:
    """Raise :class:`ExpressionError` when ``cls`` derives from a sealed type."""
    for base in cls.__mro__[1:]:
        if base in _SEALED:
            raise ExpressionError(
                f"{cls.__name__} derives from lnsym's {base.__name__}, which cannot be "
                "subclassed: derive a new node from ir.Defined and give its definition()"
            )


def seal(roots: Iterable[type], extension_points: Iterable[type]) -> None:
    """Seal every subclass of ``roots`` that exists now, except ``extension_points``."""
    open_ = set(extension_points)
    stack = list(roots)
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        if cls not in open_:
            _SEALED.add(cls)


def sealed(cls: type) -> bool:
    """Whether ``cls`` is one of lnsym's sealed types."""
    return cls in _SEALED
