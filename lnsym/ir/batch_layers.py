"""Normalization layers on a batch: layer norm per row, batch norm per column (training and
evaluation mode), group and instance normalization, RMS normalization per row, and weight
normalization of the rows of a weight matrix.

A batch Z is an n × d matrix: one row per case (or position), one column per feature. Each
layer without its gain and bias is a defined node; a gain γ and a bias β of ℝ^d are applied
as the rows ``row(γ) ⊙ N(Z) + row(β)``, broadcast over the batch — so the engines see the
normalization itself whether or not there is an affine part.

>>> from lnsym.ir.matrices import matrix
>>> from lnsym.ir.nodes import vector
>>> Z = matrix("Z", n, d)
>>> batch_norm(Z).shape
(n, d)
>>> layer_norm_rows(Z, vector("gamma"), vector("beta"))
γᵀ ⊙ LN(Z) + βᵀ
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.matrices import (
    Embedded,
    GroupMean,
    MatHadamard,
    MatPower,
    MatrixNode,
    MatScaled,
    MatSum,
    MeanAlong,
    Shape,
    SumAlong,
    as_matrix,
    column,
    row,
)
from lnsym.ir.names import d, n
from lnsym.ir.nodes import Defined, Expr, as_scalar
from lnsym.ir.nodes import eps as _eps

_HALF = sympy.Rational(-1, 2)


def _standardized(centered: MatrixNode, variance: MatrixNode, eps: Expr) -> MatrixNode:
    """centered ⊙ (variance + ε)^(-1/2), the division by the stabilized deviation."""
    stabilized = MatSum((variance, as_matrix(eps)))
    return MatHadamard(centered, MatPower(stabilized, _HALF))


def _centered(a: MatrixNode, mean: MatrixNode) -> MatrixNode:
    return MatSum((a, MatScaled(as_scalar(-1), mean)))


class MatrixNormalization(Defined, MatrixNode):
    """A normalization of a matrix ``arg`` with stabilizer ``eps``; same shape as ``arg``."""

    __slots__ = ()
    arg: MatrixNode
    eps: Expr

    @property
    def shape(self) -> Shape:
        return self.arg.shape


@dataclass(frozen=True, slots=True, repr=False)
class RowStandardize(MatrixNormalization):
    """Layer normalization of every row: (z_t − μ_t)/√(q_t + ε) over the d features."""

    arg: MatrixNode
    eps: Expr
    symbol: ClassVar[str] = "LN"

    def definition(self) -> Expr:
        centered = _centered(self.arg, MeanAlong(self.arg, 1))
        return _standardized(centered, MeanAlong(MatHadamard(centered, centered), 1), self.eps)


@dataclass(frozen=True, slots=True, repr=False)
class BatchStandardize(MatrixNormalization):
    """Batch normalization in training mode: every column (feature) standardized with the
    mean and the variance (divisor n) over the batch."""

    arg: MatrixNode
    eps: Expr
    symbol: ClassVar[str] = "BN"

    def definition(self) -> Expr:
        centered = _centered(self.arg, MeanAlong(self.arg, 0))
        return _standardized(centered, MeanAlong(MatHadamard(centered, centered), 0), self.eps)


@dataclass(frozen=True, slots=True, repr=False)
class BatchNormEval(MatrixNormalization):
    """Batch normalization in evaluation mode: every column standardized with the running
    mean μ (1 × d) and the running variance σ² (1 × d, positive) kept from training."""

    arg: MatrixNode
    mean: MatrixNode
    variance: MatrixNode
    eps: Expr
    symbol: ClassVar[str] = "BNeval"

    def definition(self) -> Expr:
        return _standardized(_centered(self.arg, self.mean), self.variance, self.eps)


@dataclass(frozen=True, slots=True, repr=False)
class GroupStandardize(MatrixNormalization):
    """Group normalization: the d features of every row form ``groups`` consecutive groups
    of d/groups features, each standardized on its own."""

    arg: MatrixNode
    groups: int
    eps: Expr
    symbol: ClassVar[str] = "GN"

    def definition(self) -> Expr:
        centered = _centered(self.arg, GroupMean(self.arg, self.groups))
        variance = GroupMean(MatHadamard(centered, centered), self.groups)
        return _standardized(centered, variance, self.eps)


@dataclass(frozen=True, slots=True, repr=False)
class RowRMS(MatrixNormalization):
    """RMS normalization of every row: z_t/√(mean(z_t ⊙ z_t) + ε)."""

    arg: MatrixNode
    eps: Expr
    symbol: ClassVar[str] = "RMS"

    def definition(self) -> Expr:
        square = MeanAlong(MatHadamard(self.arg, self.arg), 1)
        return _standardized(self.arg, square, self.eps)


@dataclass(frozen=True, slots=True, repr=False)
class RowWeightNorm(Defined, MatrixNode):
    """Weight normalization of every row of a d × m weight matrix V: row j becomes
    g_j·v_j/‖v_j‖ for the gains g of ℝ^d."""

    arg: MatrixNode
    gain: MatrixNode
    symbol: ClassVar[str] = "WN"

    @property
    def shape(self) -> Shape:
        return self.arg.shape

    def definition(self) -> Expr:
        lengths = MatPower(SumAlong(MatHadamard(self.arg, self.arg), 1), _HALF)
        return MatHadamard(MatHadamard(self.gain, lengths), self.arg)


# ---------------------------------------------------------------------------------------
# Constructors


def _batch(z: Any, what: str, shape: tuple[Any, Any] = (n, d)) -> MatrixNode:
    z = as_matrix(z)
    if z.shape != shape:
        raise ExpressionError(
            f"{what} takes a {shape[0]} × {shape[1]} matrix, not {z.shape[0]} × {z.shape[1]}"
        )
    return z


def _affine(out: MatrixNode, gamma: Any, beta: Any, place: Any = row) -> MatrixNode:
    if gamma is not None:
        out = MatHadamard(place(gamma), out)
    if beta is not None:
        out = MatSum((out, place(beta)))
    return out


def layer_norm_rows(z: Any, gamma: Any = None, beta: Any = None, eps: Any = _eps) -> MatrixNode:
    """Layer normalization of a batch Z (n × d): each row over its features, with the gain
    γ and bias β of ℝ^d shared by every row."""
    core = RowStandardize(_batch(z, "layer_norm_rows"), as_scalar(eps))
    return _affine(core, gamma, beta)


def batch_norm(z: Any, gamma: Any = None, beta: Any = None, eps: Any = _eps) -> MatrixNode:
    """Batch normalization in training mode of Z (n × d): each feature over the batch."""
    core = BatchStandardize(_batch(z, "batch_norm"), as_scalar(eps))
    return _affine(core, gamma, beta)


def batch_norm_eval(
    z: Any, mean: Any, variance: Any, gamma: Any = None, beta: Any = None, eps: Any = _eps
) -> MatrixNode:
    """Batch normalization in evaluation mode: the running ``mean`` and ``variance`` (1 × d
    matrices or vectors of ℝ^d; the variance a positive matrix) instead of batch statistics."""
    mean, variance = as_matrix(mean), as_matrix(variance)
    for name, stat in (("mean", mean), ("variance", variance)):
        if stat.shape[0] != 1 or stat.shape[1] not in (1, d):
            raise ExpressionError(
                f"the running {name} is 1 × d, not {stat.shape[0]} × {stat.shape[1]}"
            )
    core = BatchNormEval(_batch(z, "batch_norm_eval"), mean, variance, as_scalar(eps))
    return _affine(core, gamma, beta)


def group_norm(
    z: Any, groups: int, gamma: Any = None, beta: Any = None, eps: Any = _eps
) -> MatrixNode:
    """Group normalization of Z (n × d) with ``groups`` groups of d/groups consecutive
    features (d must be a multiple of ``groups``); groups = 1 is layer normalization."""
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise ExpressionError(f"groups must be a positive integer, not {groups!r}")
    core = GroupStandardize(_batch(z, "group_norm"), groups, as_scalar(eps))
    return _affine(core, gamma, beta)


def instance_norm(x: Any, gamma: Any = None, beta: Any = None, eps: Any = _eps) -> MatrixNode:
    """Instance normalization of one sample X (d × n: d channels, n positions): every channel
    standardized over its positions, with a gain and a bias per channel (vectors of ℝ^d)."""
    core = RowStandardize(_batch(x, "instance_norm", (d, n)), as_scalar(eps))
    return _affine(core, gamma, beta, column)


def rms_norm_rows(z: Any, gamma: Any = None, eps: Any = _eps) -> MatrixNode:
    """RMS normalization of every row of Z (n × d), with a shared gain γ of ℝ^d."""
    return _affine(RowRMS(_batch(z, "rms_norm_rows"), as_scalar(eps)), gamma, None)


def weight_norm_rows(v: Any, gain: Any) -> MatrixNode:
    """Weight normalization of a d × m weight matrix: row j is g_j·v_j/‖v_j‖, for gains g of
    ℝ^d (a vector, or a d × 1 matrix)."""
    v = as_matrix(v)
    if v.shape[0] != d:
        raise ExpressionError(
            f"weight_norm_rows takes a d × m matrix, not {v.shape[0]} × {v.shape[1]}"
        )
    g = gain if isinstance(gain, MatrixNode) else column(gain)
    if g.shape != (d, 1):
        raise ExpressionError(
            f"the gains of weight_norm_rows are d × 1, not {g.shape[0]} × {g.shape[1]}"
        )
    return RowWeightNorm(v, g)


__all__ = [
    "BatchNormEval",
    "BatchStandardize",
    "Embedded",
    "GroupStandardize",
    "MatrixNormalization",
    "RowRMS",
    "RowStandardize",
    "RowWeightNorm",
    "batch_norm",
    "batch_norm_eval",
    "group_norm",
    "instance_norm",
    "layer_norm_rows",
    "rms_norm_rows",
    "weight_norm_rows",
]
