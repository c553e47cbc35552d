"""Exact worked examples of a normalization layer on a batch: layer, RMS, batch or group norm.

Given a batch Z (n rows of d features), ε and optionally γ, β and an upstream gradient G of
Z's shape (or the loss ℓ = ½‖Y‖², G = Y), :func:`batch_example` computes the layer's
statistics on its own axis (per row, per column or per group of a row), the core U, the
output Y, and the gradients ∂ℓ/∂β = Σₜ gₜ, ∂ℓ/∂γ = Σₜ gₜ ⊙ uₜ (sums over the batch) and
∂ℓ/∂Z, all exactly.

Every value is computed twice — by the textbook formulas (:mod:`~lnsym.exact.batch_closed_form`)
and through the IR's batch layers written entry by entry, with the gradients by exact
differentiation of the lowered loss (:mod:`~lnsym.exact.batch_ir`) — and compared entry by
entry (:mod:`~lnsym.exact.batch_check`); a disagreement is a bug in lnsym and raises
:class:`~lnsym.errors.CrossCheckError` instead of showing an unchecked value.

>>> ex = batch_example([[1, 3], [3, 7]], 0, layer="batch_norm", idealized=True,
...                    upstream=[[1, 0], [0, 0]])
>>> ex["mean"], ex["variance"], ex["grad_gamma"], ex["grad_beta"]
((2, 5), (1, 4), (-1, 0), (1, 0))
>>> ex["grad_z"]
Matrix([
[0, 0],
[0, 0]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import sympy

from lnsym.exact.batch_check import check_batch
from lnsym.exact.batch_closed_form import closed_values
from lnsym.exact.batch_inputs import LAYERS as LAYERS
from lnsym.exact.batch_inputs import MAX_COLUMNS as MAX_COLUMNS
from lnsym.exact.batch_inputs import MAX_ROWS as MAX_ROWS
from lnsym.exact.batch_inputs import read_batch_inputs
from lnsym.exact.batch_ir import ir_values
from lnsym.exact.batch_record import BatchExample as BatchExample
from lnsym.exact.examples import sympy_root_failures

__all__ = ["LAYERS", "MAX_COLUMNS", "MAX_ROWS", "BatchExample", "batch_example"]


def batch_example(
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
) -> BatchExample:
    """Compute an exact worked example of ``layer`` on the batch Z.

    Args:
        z: the batch: 1 to :data:`MAX_ROWS` rows of the same length d ≤ :data:`MAX_COLUMNS`,
            entries exact rationals (int, Fraction or SymPy Rational).
        eps: ε > 0; ``0`` only together with ``idealized=True``.
        layer: one of :data:`LAYERS`: ``layer_norm`` (each row over its features),
            ``rms_norm`` (each row, no centering and no β), ``batch_norm`` (training mode:
            each feature over the batch) or ``group_norm`` (each group of d/G features).
        groups: G, the number of groups of ``group_norm`` (it must divide d); only there.
        gamma: the gain γ of ℝ^d (default all ones), shared by every row.
        beta: the bias β of ℝ^d (default zero); not for ``rms_norm``.
        upstream: an upstream gradient G = ∂ℓ/∂Y of Z's shape; exclusive with ``loss``.
        loss: ``"half-squared-norm"`` for ℓ = ½‖Y‖² (sum over every entry), so G = Y.
        idealized: allow ε = 0, where no statistic's block may be degenerate (a constant row
            or group, a constant column for batch norm, a zero row for RMS norm).

    Returns:
        The example; every value was computed two ways and compared exactly.

    Raises:
        UserInputError: for inexact or malformed numbers, ragged rows, sizes beyond the
            limits, an unknown layer, groups that are missing, misplaced or do not divide d,
            β for RMS norm, γ, β or G of the wrong shape, ε ≤ 0 without ``idealized``, a
            degenerate block at ε = 0, both ``upstream`` and ``loss``, or an unknown loss.
        CrossCheckError: if the two computations disagree (a bug in lnsym).
        ExactArithmeticError: if SymPy fails on the exact arithmetic (sympy/sympy#28621).
    """
    inputs = read_batch_inputs(
        z,
        eps,
        layer=layer,
        groups=groups,
        gamma=gamma,
        beta=beta,
        upstream=upstream,
        loss=loss,
        idealized=idealized,
    )
    with sympy_root_failures():
        closed = closed_values(inputs)
        check_batch(closed, ir_values(inputs))
    values: dict[str, Any] = {
        "z": sympy.ImmutableMatrix(inputs.z),
        "gamma": inputs.gamma,
        "beta": None if layer == "rms_norm" else inputs.beta,
        **closed,
    }
    return BatchExample(
        layer=layer,
        groups=groups,
        eps=inputs.eps,
        idealized=idealized,
        loss=loss,
        values=values,
    )
