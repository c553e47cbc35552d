"""The cross-check of a batch example: the textbook formulas against the IR, entry by entry.

:func:`check_batch` compares every quantity of :mod:`lnsym.exact.batch_closed_form` (SymPy
numbers) with the same quantity of :mod:`lnsym.exact.batch_ir` (the IR's batch layers,
lowered to entries and evaluated in :class:`~lnsym.exact.surds.Surd` arithmetic), exactly.
A disagreement is a bug in lnsym and raises :class:`~lnsym.errors.CrossCheckError`, naming
the first entry that differs; the example is never shown unchecked.
"""

from __future__ import annotations

from typing import Any

import sympy

from lnsym.errors import CrossCheckError
from lnsym.exact.surds import Surd, from_sympy
from lnsym.exact.values import same


def _nested(value: Any) -> Any:
    """A SymPy matrix as a list of rows, a tuple as a list; a number unchanged."""
    if isinstance(value, sympy.MatrixBase):
        return [list(value.row(i)) for i in range(value.rows)]
    if isinstance(value, tuple):
        return [_nested(v) for v in value]
    return value


def _flat(value: Any, index: tuple[int, ...] = ()) -> list[tuple[tuple[int, ...], Any]]:
    if isinstance(value, list):
        return [p for i, v in enumerate(value, 1) for p in _flat(v, (*index, i))]
    return [(index, value)]


def _equal(closed: sympy.Expr, through_ir: Surd) -> bool:
    converted = from_sympy(closed)
    if converted is not None:
        return bool(converted == through_ir)
    return same(closed, through_ir.to_sympy())  # a form Surd does not read: decide in SymPy


def check_batch(closed: dict[str, Any], through_ir: dict[str, Any]) -> None:
    """Raise :class:`CrossCheckError` at the first entry where the two computations differ.

    Both must hold the same quantities, of the same shapes: a value computed one way only
    would be shown unchecked.
    """
    if set(closed) != set(through_ir):
        only = sorted(set(closed) ^ set(through_ir))
        raise CrossCheckError(f"computed one way only, so not checked: {', '.join(only)}")
    for key, computed in through_ir.items():
        expected = closed[key]
        if (computed is None) != (expected is None):
            raise CrossCheckError(f"{key}: one computation is missing")
        if computed is None:
            continue
        left, right = _flat(_nested(expected)), _flat(computed)
        if [i for i, _ in left] != [i for i, _ in right]:
            raise CrossCheckError(f"{key}: the two computations have different shapes")
        for (index, a), (_, b) in zip(left, right, strict=True):
            if not _equal(a, b):
                where = key + (f"[{', '.join(map(str, index))}]" if index else "")
                raise CrossCheckError(
                    f"{where}: the formulas give {sympy.sstr(a)} but the IR gives "
                    f"{sympy.sstr(b.to_sympy())}"
                )
