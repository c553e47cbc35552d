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
    evaluator = Evaluator(Env.of(points, track=True), status)
    with np.errstate(all="ignore"):
        sides = evaluator.get(statement.lhs), evaluator.get(statement.rhs)
    return _score(statement, points, status, sides)


def compare_scalar_statements(
    statements: list[ir.Relation], points: list[SamplePoint]
) -> list[list[Sample | tuple[str, str]]] | None:
    """Judge several scalar statements at the same points, all in one batch: what
    :func:`compare_all` gives for each, or None where this route does not apply.

    For statements about scalar symbols only — no vector, no ``ones``, no ``d``, such as
    the entries of a matrix statement — a point's dimension plays no part, so the points
    of every dimension form one batch, and the statements share one evaluator, which
    evaluates a node common to several of them once. A sample's values do not depend on
    its batch (see :mod:`lnsym.engines.numeric.batch`), so the values are those of
    :func:`compare_all`. What a shared evaluator cannot give is a per-statement status: when
    a sample is flagged undefined or indeterminate somewhere, each statement is evaluated
    again with an evaluator of its own (still at all the points in one batch). None when a
    statement is not about scalars only, or a point is missing.
    """
    if not points or any(p is None for p in points) or not all(map(scalar_only, statements)):
        return None
    env = Env.of(points, track=True)
    status = Status(len(points))
    evaluator = Evaluator(env, status)
    with np.errstate(all="ignore"):
        sides = [(evaluator.get(s.lhs), evaluator.get(s.rhs)) for s in statements]
    if not np.any(status.code):
        return [_score(s, points, status, pair) for s, pair in zip(statements, sides, strict=True)]
    out = []
    for statement in statements:
        own = Status(len(points))
        alone = Evaluator(env, own)
        with np.errstate(all="ignore"):
            pair = alone.get(statement.lhs), alone.get(statement.rhs)
        out.append(_score(statement, points, own, pair))
    return out


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
