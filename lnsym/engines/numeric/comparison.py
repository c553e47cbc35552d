"""Comparison of a claim's two sides at a batch of points, each judged within a tolerance
built from the running error bounds.

With τ = √u (1.05e-8 in float64, 2.4e-4 in float32) a sample's relative error is
‖lhs − rhs‖∞ / max(‖lhs‖∞, ‖rhs‖∞, 10·‖B_lhs + B_rhs‖∞/τ) — for ≤, the excess lhs − rhs
over the same scale. :func:`compare` scores the points of one dimension together;
:func:`compare_all` sorts any points into such batches and keeps their order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from lnsym import ir
from lnsym.engines.numeric.arrays import bound_sum, maxabs
from lnsym.engines.numeric.batch import Evaluator
from lnsym.engines.numeric.environment import INDETERMINATE, UNDEFINED, Env, SamplePoint, Status

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
    n, real = len(points), points[0].dtype
    status = Status(n)
    evaluator = Evaluator(Env.of(points, track=True), status)
    vector = statement.lhs.kind == "vector"
    shape = (n, points[0].d) if vector else (n,)
    with np.errstate(all="ignore"):
        (lhs, blhs), (rhs, brhs) = evaluator.get(statement.lhs), evaluator.get(statement.rhs)
        lhs, rhs = np.broadcast_to(lhs, shape), np.broadcast_to(rhs, shape)
        gap = lhs - rhs
        u = float(np.finfo(real).eps) / 2
        bound = np.broadcast_to(np.real(bound_sum(blhs, brhs, u * np.abs(gap))), shape)
        axes: int | tuple[int, ...] = 1 if vector else ()  # per row, or the one value
        finite = np.all(np.isfinite(lhs) & np.isfinite(rhs) & np.isfinite(bound), axis=axes)
    tolerance = math.sqrt(float(np.finfo(real).eps) / 2)
    out: list[Sample | tuple[str, str]] = []
    for i, point in enumerate(points):
        if status.code[i] == UNDEFINED:
            out.append(("undefined", status.reason[i]))
        elif status.code[i] == INDETERMINATE:
            out.append(("indeterminate", status.reason[i]))
        elif not finite[i]:
            out.append(("undefined", "undefined at this point: a side is not finite"))
        else:
            scale = max(
                maxabs(lhs[i]),
                maxabs(rhs[i]),
                _MARGIN * maxabs(bound[i]) / tolerance,
                float(np.finfo(real).tiny),
            )
            excess = maxabs(gap[i]) if isinstance(statement, ir.Eq) else max(float(gap[i]), 0.0)
            out.append(Sample(point, lhs[i], rhs[i], excess / scale))
    return out
