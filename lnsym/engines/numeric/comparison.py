"""Comparison of a claim's two sides at a batch of points, each judged within a tolerance
built from the running error bounds.

With τ = √u (1.05e-8 in float64, 2.4e-4 in float32) a sample's relative error is
‖lhs − rhs‖∞ / max(‖lhs‖∞, ‖rhs‖∞, 10·‖B_lhs + B_rhs‖∞/τ) — for ≤, the excess lhs − rhs
over the same scale. :func:`compare` scores the points of one dimension together;
:func:`compare_all` sorts any points into such batches and keeps their order.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

import numpy as np

from lnsym import ir
from lnsym.engines.numeric.arrays import bound_sum
from lnsym.engines.numeric.batch import Evaluator
from lnsym.engines.numeric.environment import (
    INDETERMINATE,
    UNDEFINED,
    Env,
    Pair,
    SamplePoint,
    Status,
)

#: A side may differ from the other by this many times its rounding-error bound.
_MARGIN = 10.0
#: Points of one dimension are evaluated in batches of at most this many: memory stays
#: bounded whatever the number of samples.
_BATCH = 64


@dataclass(frozen=True)
class Sample:
    """A point where both sides are defined: their values and the relative error."""

    point: SamplePoint
    lhs: np.ndarray
    rhs: np.ndarray
    error: float


def compare_all(
    statement: ir.Relation, points: list[SamplePoint]
) -> list[Sample | tuple[str, str]]:
    """Judge every point, in order, evaluating those of one dimension in batches."""
    by_dimension: dict[int, list[int]] = {}
    for i, point in enumerate(points):
        by_dimension.setdefault(point.d, []).append(i)
    results: list[Any] = [None] * len(points)
    for indices in by_dimension.values():
        for at in range(0, len(indices), _BATCH):
            batch = indices[at : at + _BATCH]
            judged = compare(statement, [points[i] for i in batch])
            for i, result in zip(batch, judged, strict=True):
                results[i] = result
    return results


def compare(statement: ir.Relation, points: list[SamplePoint]) -> list[Sample | tuple[str, str]]:
    """Evaluate both sides at a batch of points of one dimension, with error bounds, and
    score each point: a :class:`Sample`, or (``"undefined"``/``"indeterminate"``, why)."""
    status = Status(len(points))
    evaluator = _evaluator(points, status)
    with np.errstate(all="ignore"):
        sides = evaluator.get(statement.lhs), evaluator.get(statement.rhs)
    _trim()
    return _score(statement, points, status, sides)


#: Evaluators kept between statements, per thread (an evaluator reports to one statement's
#: status at a time), by the points of their batch, oldest first.
_THREAD = threading.local()
#: At most this many batches, holding at most this many bytes of values, are kept.
_KEPT_BATCHES = 1024
_KEPT_BYTES = 64 << 20


def _evaluator(points: list[SamplePoint], status: Status) -> Evaluator:
    """An evaluator of the batch ``points`` whose flags go to ``status``: the one kept from
    an earlier statement at the same point objects, if there is one.

    The sampler gives the claims with the same atoms, symbols and assumptions the same point
    objects (:func:`~lnsym.engines.numeric.sampling.draw`), and the links of a derivation
    share their sides, so a node common to several statements — a step of a derivation,
    jvp(core(z), z, h) — is evaluated once per batch. Nothing else changes: a value depends
    only on the node and the batch, and the flags its evaluation raised are replayed into the
    status of every statement that uses it (:meth:`Status.replay`), so a statement's results
    are those of a fresh evaluator (the tests compare the two).
    """
    kept = _kept()
    key = tuple(map(id, points))  # the kept list holds its points alive: ids stay theirs
    found = kept.pop(key, None)
    if found is None:
        found = (list(points), Evaluator(Env.of(points, track=True), status))
    kept[key] = found  # now the most recent
    found[1].status = status
    return found[1]


class _Kept(dict[tuple[int, ...], tuple[list[SamplePoint], Evaluator]]):
    """A thread's kept evaluators by the ids of their points, oldest first, with the bytes
    each held when last counted and their total (summing them all after every statement
    cost 2% of the engine)."""

    def __init__(self) -> None:
        super().__init__()
        self.counted: dict[tuple[int, ...], int] = {}
        self.held = 0

    def clear(self) -> None:
        super().clear()
        self.counted.clear()
        self.held = 0


def _kept() -> _Kept:
    """This thread's kept evaluators."""
    if not hasattr(_THREAD, "kept"):
        _THREAD.kept = _Kept()
    return _THREAD.kept


def _trim() -> None:
    """Drop the oldest kept evaluators beyond :data:`_KEPT_BATCHES` or :data:`_KEPT_BYTES`."""
    kept = _kept()
    if kept:  # only the evaluator used last (the most recent) has grown since its count
        key = next(reversed(kept))
        nbytes = kept[key][1].nbytes
        kept.held += nbytes - kept.counted.get(key, 0)
        kept.counted[key] = nbytes
    while kept and (len(kept) > _KEPT_BATCHES or kept.held > _KEPT_BYTES):
        key = next(iter(kept))
        del kept[key]
        kept.held -= kept.counted.pop(key, 0)


def compare_scalar_statements(
    statements: list[ir.Relation], points: list[SamplePoint]
) -> list[list[Sample | tuple[str, str]]] | None:
    """Judge several scalar statements at the same points, all in one batch: what
    :func:`compare_all` gives for each, or None where this route does not apply.

    For statements about scalar symbols only — no vector, no ``ones``, no ``d``, such as
    the entries of a matrix statement — a point's dimension plays no part, so the points
    of every dimension form one batch, and the statements share one evaluator
    (:func:`_evaluator`), which evaluates a node common to several of them once. A sample's
    values do not depend on its batch (see :mod:`lnsym.engines.numeric.batch`), so the
    results are those of :func:`compare_all`. None when a statement is not about scalars
    only, or a point is missing.
    """
    if not points or any(p is None for p in points) or not all(map(scalar_only, statements)):
        return None
    out = []
    for statement in statements:
        status = Status(len(points))
        evaluator = _evaluator(points, status)
        with np.errstate(all="ignore"):
            pair = evaluator.get(statement.lhs), evaluator.get(statement.rhs)
        out.append(_score(statement, points, status, pair))
    _trim()
    return out


def _row_max(x: np.ndarray, n: int) -> np.ndarray:
    """The largest entry of each of the ``n`` rows of ``x`` (the entry itself for scalars),
    in float64 whatever the dtype: the scale and the error are computed in double."""
    return x.reshape(n, -1).max(axis=1, initial=0.0).astype(np.float64) if x.size else np.zeros(n)


def scalar_only(statement: ir.Relation) -> bool:
    """Whether ``statement`` involves scalar symbols only: no vector value anywhere (looking
    inside definitions), no ``ones`` and no ``d`` — so that no value depends on a point's
    dimension."""
    for side in (statement.lhs, statement.rhs):
        for node in ir.distinct_nodes(side, definitions=True):
            if node.kind != "scalar" or isinstance(node, ir.Ones | ir.VectorAtom):
                return False
            if isinstance(node, ir.Const) and node.value.has(ir.d):
                return False
            if isinstance(node, ir.Power) and node.exponent.has(ir.d):
                return False
    return True


def _score(
    statement: ir.Relation, points: list[SamplePoint], status: Status, sides: tuple[Pair, Pair]
) -> list[Sample | tuple[str, str]]:
    """Score each point from both sides' values and bounds at the batch."""
    n, real = len(points), points[0].dtype
    (lhs, blhs), (rhs, brhs) = sides
    vector = statement.lhs.kind == "vector"
    shape = (n, points[0].d) if vector else (n,)
    with np.errstate(all="ignore"):
        lhs, rhs = np.broadcast_to(lhs, shape), np.broadcast_to(rhs, shape)
        gap = lhs - rhs
        u = float(np.finfo(real).eps) / 2
        bound = np.broadcast_to(np.real(bound_sum(blhs, brhs, u * np.abs(gap))), shape)
        axes: int | tuple[int, ...] = 1 if vector else ()  # per row, or the one value
        finite = np.all(np.isfinite(lhs) & np.isfinite(rhs) & np.isfinite(bound), axis=axes)
        # Per point (row): its scale and its excess, as the module docstring defines them.
        tolerance = math.sqrt(float(np.finfo(real).eps) / 2)
        scale = np.maximum.reduce(
            [
                _row_max(np.abs(lhs), n),
                _row_max(np.abs(rhs), n),
                _MARGIN * _row_max(np.abs(bound), n) / tolerance,
                np.full(n, float(np.finfo(real).tiny)),
            ]
        )
        if isinstance(statement, ir.Eq):
            excess = _row_max(np.abs(gap), n)
        else:
            excess = np.where(0.0 > gap, 0.0, gap).astype(np.float64)  # as max(gap, 0.0)
        errors = excess / scale
    out: list[Sample | tuple[str, str]] = []
    for i, point in enumerate(points):
        if status.code[i] == UNDEFINED:
            out.append(("undefined", status.reason[i]))
        elif status.code[i] == INDETERMINATE:
            out.append(("indeterminate", status.reason[i]))
        elif not finite[i]:
            out.append(("undefined", "undefined at this point: a side is not finite"))
        else:
            out.append(Sample(point, lhs[i], rhs[i], float(errors[i])))
    return out
