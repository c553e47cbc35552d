"""One namespace per claim: every name in a statement and its assumptions denotes one thing.

A name may stand for a vector atom, a matrix atom of one shape, or a scalar symbol with
its assumptions. The engines identify atoms by name (power sums, entries, slices), so one
name used for two things — a real c and a positive c, a vector z and a scalar z, an n × 1
and an n × d matrix Z — would make two quantities one. :func:`check_namespace` refuses it
with one error naming both; :func:`names` is what the engines' made-up names (entries of a
lowered matrix, a slice's rows) must avoid.

>>> from lnsym.ir.nodes import vector, scalar, mean
>>> from lnsym.ir.relations import Eq
>>> sorted(names(Eq(mean(vector("z")), scalar("c"))))
['c', 'z']
>>> check_namespace(Eq(mean(vector("z")), scalar("z")))
Traceback (most recent call last):
...
lnsym.errors.ExpressionError: the name 'z' stands for two things: the vector z and the real scalar z
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from typing import Any

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.nodes import Expr, VectorAtom, distinct_nodes

#: What a name stands for: ("vector",), ("matrix", rows, cols, positive) or
#: ("scalar", assumptions).
Meaning = tuple[Any, ...]


def names(statement: Any, assumptions: Iterable[Any] = ()) -> dict[str, Meaning]:
    """Every name of ``statement`` (a relation, with its certificate terms, or an
    expression) and of the atoms of ``assumptions``, with what it stands for.

    Raises:
        ExpressionError: when one name stands for two things.
    """
    found: dict[str, Meaning] = {}
    for name, meaning in _meanings(_sides(statement), assumptions):
        known = found.setdefault(name, meaning)
        if known != meaning:
            raise ExpressionError(
                f"the name {name!r} stands for two things: {_describe(name, known)} and "
                f"{_describe(name, meaning)}"
            )
    return found


def check_namespace(statement: Any, assumptions: Iterable[Any] = ()) -> None:
    """Refuse a statement in which one name stands for two things (see :func:`names`)."""
    names(statement, assumptions)


def _sides(statement: Any) -> tuple[Expr, ...]:
    if isinstance(statement, Expr):
        return (statement,)
    return (statement.lhs, statement.rhs, *getattr(statement, "certificate", ()))


def _meanings(sides: tuple[Expr, ...], assumptions: Iterable[Any]) -> Iterator[tuple[str, Meaning]]:
    for node in distinct_nodes(*sides):
        if isinstance(node, VectorAtom):
            yield node.name, ("vector",)
        elif getattr(node, "names_an_atom", False):  # a matrix atom
            yield node.name, ("matrix", node.rows, node.cols, node.positive)  # type: ignore[attr-defined]
        for field in dataclasses.fields(node):  # type: ignore[arg-type]
            value = getattr(node, field.name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, sympy.Basic):
                    for sym in item.free_symbols:
                        yield sym.name, ("scalar", tuple(sorted(sym.assumptions0.items())))
    for assumption in assumptions:
        for field in dataclasses.fields(assumption):
            atom = getattr(assumption, field.name)
            if isinstance(atom, VectorAtom):
                yield atom.name, ("vector",)


def _describe(name: str, meaning: Meaning) -> str:
    kind = meaning[0]
    if kind == "vector":
        return f"the vector {name}"
    if kind == "matrix":
        _, rows, cols, positive = meaning
        return f"the {'positive ' if positive else ''}{rows} × {cols} matrix {name}"
    facts = dict(meaning[1])
    adjective = "positive" if facts.get("positive") else "real" if facts.get("real") else ""
    if facts.get("integer"):
        adjective = f"{adjective} integer".strip()
    return f"the {adjective or 'complex'} scalar {name}"
