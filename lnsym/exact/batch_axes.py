"""The axis of a batch layer: the blocks of entries each of its statistics is taken over.

Layer norm and RMS norm take one statistic per row (over its d features), batch norm one per
column (over the n cases of the batch), group norm one per row and group (over the d/G
features of the group). :func:`blocks` lists the blocks as (row, column) index pairs, and
:func:`arrange` lays one value per block out as the example shows them: a vector of n (rows)
or d (columns) entries, or the n × G rows of a group norm.

>>> blocks("batch_norm", 2, 3, None)[0]
[(0, 0), (1, 0)]
>>> blocks("group_norm", 1, 4, 2)
[[(0, 0), (0, 1)], [(0, 2), (0, 3)]]
>>> arrange("group_norm", 2, [1, 2, 3, 4])
((1, 2), (3, 4))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

#: A block: the (row, column) pairs, 0-based, of the entries one statistic runs over.
Block = list[tuple[int, int]]


def blocks(layer: str, n: int, d: int, groups: int | None) -> list[Block]:
    """The blocks of ``layer`` on an n × d batch, in the order :func:`arrange` expects."""
    if layer == "batch_norm":
        return [[(t, j) for t in range(n)] for j in range(d)]
    size = d // groups if layer == "group_norm" and groups else d
    return [
        [(t, j) for j in range(start, start + size)]
        for t in range(n)
        for start in range(0, d, size)
    ]


def arrange(layer: str, groups: int | None, per_block: Sequence[T]) -> tuple[T, ...] | tuple:
    """One value per block as shown: a vector, or for group norm a tuple of n rows of G."""
    if layer == "group_norm" and groups:
        return tuple(tuple(per_block[i : i + groups]) for i in range(0, len(per_block), groups))
    return tuple(per_block)
