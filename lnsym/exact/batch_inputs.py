"""The inputs of a batch example: a batch Z of n rows, the layer, and its checked options.

:func:`read_batch_inputs` turns what a caller gives
:func:`lnsym.exact.batch_example.batch_example` (rows of ints, Fractions or SymPy Rationals;
never floats) into :class:`BatchInputs`, or raises :class:`~lnsym.errors.UserInputError`
with a one-line reason; :func:`parse_batch` reads a batch written as text, rows separated by
``;``. The layers and the axis each one takes its statistics over are in :data:`LAYERS`.

>>> [[str(v) for v in row] for row in parse_batch("1,2,3; 4,5,7/2")]
[['1', '2', '3'], ['4', '5', '7/2']]
>>> read_batch_inputs([[1, 2], [3, 5]], 1, layer="batch_norm").gamma
(1, 1)
>>> read_batch_inputs([[1, 2, 3], [4, 5]], 1, layer="layer_norm")
Traceback (most recent call last):
...
lnsym.errors.UserInputError: row 2 of Z has 2 entries, but row 1 has 3 (rows need one length)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from lnsym.errors import UserInputError
from lnsym.exact.example_inputs import LOSSES, epsilon, rational
from lnsym.exact.values import Vector
from lnsym.parse import parse_vector

#: The layers of a batch example, each with the axis its statistics run over.
LAYERS = {
    "layer_norm": "over the features of each row",
    "rms_norm": "over the features of each row",
    "batch_norm": "over the batch for each feature",
    "group_norm": "over each group of features of each row",
}
#: The most rows, and the most columns, a batch example takes.
MAX_ROWS = 64
MAX_COLUMNS = 64

#: A batch: a tuple of rows, each a tuple of SymPy Rationals.
Batch = tuple[Vector, ...]


def parse_batch(text: str) -> list[list[Fraction]]:
    """Rows of exact rationals from text such as ``1,2,3; 4,5,7`` (rows separated by ``;``).

    The rows need not have the same length here; :func:`read_batch_inputs` checks that.

    Raises:
        UserInputError: for an empty row or a row :func:`lnsym.parse.parse_vector` refuses.
    """
    if text.count(";") >= MAX_ROWS * 2:
        raise UserInputError(f"too many rows (at most {MAX_ROWS})")
    rows = []
    for index, part in enumerate(text.split(";"), start=1):
        if not part.strip():
            raise UserInputError(f"row {index} is empty (rows are separated by ';')")
        try:
            rows.append(parse_vector(part))
        except UserInputError as exc:
            raise UserInputError(f"row {index}: {exc}") from None
    return rows


def _batch(rows: Any, what: str, shape: tuple[int, int] | None = None) -> Batch:
    """A nonempty batch of equally long rows of Rationals (of ``shape``, if given)."""
    if isinstance(rows, str | bytes) or not isinstance(rows, Sequence):
        raise UserInputError(f"{what} must be a sequence of rows (parse text with parse_batch)")
    out = []
    for i, r in enumerate(rows, start=1):
        if isinstance(r, str | bytes) or not isinstance(r, Sequence):
            raise UserInputError(f"row {i} of {what} must be a sequence of numbers")
        if not r:
            raise UserInputError(f"row {i} of {what} is empty")
        out.append(tuple(rational(v, f"{what}[{i}][{j}]") for j, v in enumerate(r, start=1)))
    if not out:
        raise UserInputError(f"{what} is empty: give at least one row")
    for i, r in enumerate(out[1:], start=2):
        if len(r) != len(out[0]):
            raise UserInputError(
                f"row {i} of {what} has {len(r)} {_entries(len(r))}, but row 1 has "
                f"{len(out[0])} (rows need one length)"
            )
    if shape is not None and (len(out), len(out[0])) != shape:
        raise UserInputError(
            f"{what} is {len(out)} × {len(out[0])}, but Z is {shape[0]} × {shape[1]}: "
            "give one row per row of Z, separated by ';'"
        )
    return tuple(out)


def _entries(count: int) -> str:
    return "entry" if count == 1 else "entries"


def _vector(values: Any, what: str, d: int) -> Vector:
    if isinstance(values, str | bytes) or not isinstance(values, Sequence):
        raise UserInputError(f"{what} must be a sequence of numbers")
    out = tuple(rational(v, f"{what}[{j}]") for j, v in enumerate(values, start=1))
    if len(out) != d:
        raise UserInputError(
            f"{what} has {len(out)} {_entries(len(out))}, but Z has {d} columns (features)"
        )
    return out


@dataclass(frozen=True)
class BatchInputs:
    """The checked inputs of one batch example."""

    layer: str
    groups: int | None
    z: Batch
    eps: sympy.Rational
    gamma: Vector
    beta: Vector
    upstream: Batch | None
    loss: str | None

    @property
    def n(self) -> int:
        """The number of rows (cases)."""
        return len(self.z)

    @property
    def d(self) -> int:
        """The number of columns (features)."""
        return len(self.z[0])

    @property
    def group_size(self) -> int:
        """The features per group (group norm), else d."""
        return self.d // self.groups if self.groups else self.d


def _check_idealized(x: BatchInputs) -> None:
    """ε = 0 needs every statistic's divisor nonzero: name the first block where it is 0."""
    z, n, d = x.z, x.n, x.d
    if x.layer == "rms_norm":
        for t in range(n):
            if all(v == 0 for v in z[t]):
                raise UserInputError(
                    f"row {t + 1} of Z is zero, so its mean square is 0 and the idealized "
                    "RMS normalization (ε = 0) is undefined there; use ε > 0"
                )
    elif x.layer == "batch_norm":
        for j in range(d):
            if all(z[t][j] == z[0][j] for t in range(n)):
                raise UserInputError(
                    f"column {j + 1} of Z is constant over the batch, so its variance is 0 and "
                    "the idealized batch normalization (ε = 0) is undefined there; use ε > 0"
                )
    else:
        size = x.group_size
        for t in range(n):
            for start in range(0, d, size):
                block = z[t][start : start + size]
                if all(v == block[0] for v in block):
                    where = (
                        f"row {t + 1} of Z is constant"
                        if x.layer == "layer_norm"
                        else f"group {start // size + 1} of row {t + 1} of Z is constant"
                    )
                    raise UserInputError(
                        f"{where}, so its variance is 0 and the idealized layer (ε = 0) is "
                        "undefined there; use ε > 0"
                    )


def read_batch_inputs(
    z: Sequence[Sequence[Any]],
    eps: Any,
    *,
    layer: str = "layer_norm",
    groups: int | None = None,
    gamma: Sequence[Any] | None = None,
    beta: Sequence[Any] | None = None,
    upstream: Sequence[Sequence[Any]] | None = None,
    loss: str | None = None,
    idealized: bool = False,
) -> BatchInputs:
    """The inputs of :func:`~lnsym.exact.batch_example.batch_example`, checked.

    Raises:
        UserInputError: as documented for :func:`~lnsym.exact.batch_example.batch_example`.
    """
    if layer not in LAYERS:
        raise UserInputError(f"unknown layer {layer!r}; known: {', '.join(LAYERS)}")
    if groups is not None and layer != "group_norm":
        raise UserInputError("groups are for group_norm only")
    if layer == "group_norm" and groups is None:
        raise UserInputError("group_norm needs the number of groups G (--groups G)")
    if groups is not None and (
        isinstance(groups, bool) or not isinstance(groups, int) or groups < 1
    ):
        raise UserInputError(f"the number of groups must be a positive integer, not {groups!r}")
    if layer == "rms_norm" and beta is not None:
        raise UserInputError("rms_norm has no bias β: it is y = γ ⊙ z/rms(z)")
    zb = _batch(z, "Z")
    n, d = len(zb), len(zb[0])
    if n > MAX_ROWS or d > MAX_COLUMNS:
        raise UserInputError(
            f"Z is {n} × {d}, but a batch example takes at most {MAX_ROWS} rows and "
            f"{MAX_COLUMNS} columns"
        )
    if groups is not None and d % groups:
        raise UserInputError(
            f"G = {groups} groups do not divide the d = {d} features of a row "
            "(group norm takes G groups of d/G features)"
        )
    if upstream is not None and loss is not None:
        raise UserInputError("give either an upstream gradient or a loss, not both")
    if loss is not None and loss not in LOSSES:
        raise UserInputError(f"unknown loss {loss!r}; known: {', '.join(LOSSES)}")
    one, zero = sympy.Integer(1), sympy.Integer(0)
    inputs = BatchInputs(
        layer=layer,
        groups=groups,
        z=zb,
        eps=epsilon(eps, idealized),
        gamma=_vector(gamma, "gamma", d) if gamma is not None else (one,) * d,
        beta=_vector(beta, "beta", d) if beta is not None else (zero,) * d,
        upstream=None if upstream is None else _batch(upstream, "upstream", (n, d)),
        loss=loss,
    )
    if inputs.eps == 0:
        _check_idealized(inputs)
    return inputs
