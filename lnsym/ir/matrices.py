"""The second axis: matrices whose sides are the batch n, the features d or the inputs m.

A matrix node has a ``shape`` (rows, columns), each side 1 or one of the positive integer
symbols n, d, m of :mod:`lnsym.ir.names`. A batch of activations is n × d (one row per case
or position), a weight matrix d × m (one row per unit), a per-feature parameter 1 × d. Sums
and Hadamard products broadcast a side of 1 against any side, as NumPy does, which is how a
per-feature gain reaches every row. The leaves are matrix atoms (optionally with positive
entries), the all-ones matrices, and vectors of ℝ^d placed as a row or a column; the
primitives are sums, scalar multiples, Hadamard products, entrywise powers, products,
transposes, sums along an axis and sums within groups of columns. Everything else — means
along an axis, standardization, the layers of :mod:`lnsym.ir.batch_layers` — is a defined
node spelled out in these.

>>> from lnsym.ir.nodes import vector
>>> X = matrix("X", n, d)
>>> X.shape
(n, d)
>>> mean_along(X, 0).shape
(1, d)
>>> (X + row(vector("beta"))).shape
(n, d)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.names import _RESERVED, _check_name, d, m, n
from lnsym.ir.nodes import (
    Defined,
    Expr,
    ScalarNode,
    VectorNode,
    as_scalar,
    as_vector,
    walk,
)
from lnsym.ir.primitives import kept_on_node

#: The sides a matrix may have besides 1.
AXES: tuple[sympy.Symbol, ...] = (n, d, m)
_ONE = sympy.Integer(1)
Shape = tuple[sympy.Expr, sympy.Expr]


def _side(x: Any) -> sympy.Expr:
    if isinstance(x, int) and not isinstance(x, bool) and x == 1:
        return _ONE
    if x == _ONE or x in AXES:
        return x
    raise ExpressionError(f"a side of a matrix is 1, n, d or m, not {x!r}")


def _broadcast(shapes: list[Shape], what: str) -> Shape:
    """The common shape of operands whose sides are equal or 1 (NumPy's broadcasting)."""
    out: list[sympy.Expr] = []
    for sides in zip(*shapes, strict=True):
        wide = {s for s in sides if s != _ONE}
        if len(wide) > 1:
            raise ExpressionError(
                f"cannot {what} matrices of shapes {' and '.join(map(str, shapes))}"
            )
        out.append(wide.pop() if wide else _ONE)
    return out[0], out[1]


class MatrixNode(Expr):
    """An expression whose value is a matrix of shape :attr:`shape`."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # A shape is found from the shapes of the parts, and is asked for at every node of
        # a statement (by its lowering, say): each is computed once and kept on the node.
        super().__init_subclass__(**kwargs)
        written = cls.__dict__.get("shape")
        getter = written.fget if isinstance(written, property) else None
        if getter is not None and not hasattr(getter, "computed"):
            cls.shape = property(kept_on_node("_shape", getter))  # type: ignore[method-assign,assignment]

    @property
    def kind(self) -> str:
        return "matrix"

    @property
    def shape(self) -> Shape:
        raise NotImplementedError

    @property
    def T(self) -> MatrixNode:  # noqa: N802 — NumPy's name for the transpose
        return Transpose(self)

    def __add__(self, other: Any) -> Expr:
        return MatSum((self, as_matrix(other)))

    def __radd__(self, other: Any) -> Expr:
        return MatSum((as_matrix(other), self))

    def __sub__(self, other: Any) -> Expr:
        return MatSum((self, MatScaled(as_scalar(-1), as_matrix(other))))

    def __rsub__(self, other: Any) -> Expr:
        return MatSum((as_matrix(other), MatScaled(as_scalar(-1), self)))

    def __neg__(self) -> Expr:
        return MatScaled(as_scalar(-1), self)

    def __mul__(self, other: Any) -> Expr:
        if isinstance(other, Expr) and other.kind in ("matrix", "vector"):
            return MatHadamard(self, as_matrix(other))
        return MatScaled(as_scalar(other), self)

    def __rmul__(self, other: Any) -> Expr:
        if isinstance(other, Expr) and other.kind == "vector":
            return MatHadamard(as_matrix(other), self)
        return MatScaled(as_scalar(other), self)

    def __truediv__(self, other: Any) -> Expr:
        return MatScaled(as_scalar(other) ** -1, self)

    def __matmul__(self, other: Any) -> Expr:
        return MatMul(self, as_matrix(other))

    def __pow__(self, exponent: Any) -> Expr:
        if isinstance(exponent, bool) or not isinstance(exponent, int | Fraction | sympy.Rational):
            raise ExpressionError(
                f"a matrix is raised entrywise to a rational number, not {exponent!r}"
            )
        return MatPower(self, sympy.Rational(exponent))


def as_matrix(x: Any) -> MatrixNode:
    """A matrix node; a vector of ℝ^d becomes the row 1 × d, a scalar the 1 × 1 matrix."""
    if isinstance(x, MatrixNode):
        return x
    if isinstance(x, Expr) and x.kind == "vector":
        return Embedded(x, column=False)
    return MatScaled(as_scalar(x), MatrixOnes(_ONE, _ONE))


# ---------------------------------------------------------------------------------------
# Leaves


@dataclass(frozen=True, slots=True, repr=False)
class MatrixAtom(MatrixNode):
    """A named matrix variable; ``positive`` declares every entry positive."""

    name: str
    rows: sympy.Expr
    cols: sympy.Expr
    positive: bool = False
    names_an_atom: ClassVar[bool] = True

    @property
    def shape(self) -> Shape:
        return self.rows, self.cols


@dataclass(frozen=True, slots=True, repr=False)
class MatrixOnes(MatrixNode):
    """The all-ones matrix of the given shape (1 × 1 is the number 1)."""

    rows: sympy.Expr
    cols: sympy.Expr

    @property
    def shape(self) -> Shape:
        return self.rows, self.cols


@dataclass(frozen=True, slots=True, repr=False)
class Embedded(MatrixNode):
    """A vector of ℝ^d as a 1 × d row or a d × 1 column."""

    vector: Expr
    column: bool

    @property
    def shape(self) -> Shape:
        return (d, _ONE) if self.column else (_ONE, d)


@dataclass(frozen=True, slots=True, repr=False)
class FirstCase(MatrixNode):
    """e₁, the indicator of the first row: a rows × 1 column with a 1 on top, 0 elsewhere
    (a transformation of one training case is written with it)."""

    rows: sympy.Expr

    @property
    def shape(self) -> Shape:
        return self.rows, _ONE


# ---------------------------------------------------------------------------------------
# Primitives


@dataclass(frozen=True, slots=True, repr=False)
class MatSum(MatrixNode):
    """A sum of matrices, broadcast to a common shape."""

    terms: tuple[MatrixNode, ...]

    def __post_init__(self) -> None:
        _broadcast([t.shape for t in self.terms], "add")

    @property
    def shape(self) -> Shape:
        return _broadcast([t.shape for t in self.terms], "add")


@dataclass(frozen=True, slots=True, repr=False)
class MatScaled(MatrixNode):
    """``coefficient · matrix`` for a scalar coefficient."""

    coefficient: Expr
    matrix: MatrixNode

    @property
    def shape(self) -> Shape:
        return self.matrix.shape


@dataclass(frozen=True, slots=True, repr=False)
class MatHadamard(MatrixNode):
    """The entrywise product ``left ⊙ right``, broadcast to a common shape."""

    left: MatrixNode
    right: MatrixNode

    def __post_init__(self) -> None:
        _broadcast([self.left.shape, self.right.shape], "multiply entrywise")

    @property
    def shape(self) -> Shape:
        return _broadcast([self.left.shape, self.right.shape], "multiply entrywise")


@dataclass(frozen=True, slots=True, repr=False)
class MatPower(MatrixNode):
    """Every entry raised to a rational ``exponent`` (entries must be positive unless the
    exponent is a positive integer)."""

    base: MatrixNode
    exponent: sympy.Rational

    @property
    def shape(self) -> Shape:
        return self.base.shape


@dataclass(frozen=True, slots=True, repr=False)
class MatMul(MatrixNode):
    """The matrix product ``left · right``."""

    left: MatrixNode
    right: MatrixNode

    def __post_init__(self) -> None:
        if self.left.shape[1] != self.right.shape[0]:
            raise ExpressionError(
                f"cannot multiply a {_text(self.left.shape)} matrix by a "
                f"{_text(self.right.shape)} matrix"
            )

    @property
    def shape(self) -> Shape:
        return self.left.shape[0], self.right.shape[1]


@dataclass(frozen=True, slots=True, repr=False)
class Transpose(MatrixNode):
    """The transpose ``argᵀ``."""

    arg: MatrixNode

    @property
    def shape(self) -> Shape:
        return self.arg.shape[1], self.arg.shape[0]


@dataclass(frozen=True, slots=True, repr=False)
class SumAlong(MatrixNode):
    """Sums down the rows (``axis`` 0: a 1 × columns row) or across the columns (``axis``
    1: a rows × 1 column)."""

    arg: MatrixNode
    axis: int

    @property
    def shape(self) -> Shape:
        rows, cols = self.arg.shape
        return (_ONE, cols) if self.axis == 0 else (rows, _ONE)


@dataclass(frozen=True, slots=True, repr=False)
class GroupSum(MatrixNode):
    """Each entry replaced by the sum of its group in its row: the columns form ``groups``
    consecutive groups of equal size (the number of columns must be a multiple of it)."""

    arg: MatrixNode
    groups: int

    def __post_init__(self) -> None:
        _grouped(self.arg, self.groups)

    @property
    def shape(self) -> Shape:
        return self.arg.shape


def _grouped(arg: Any, groups: Any) -> None:
    """A positive group count, of a matrix's columns."""
    if type(groups) is not int or groups < 1:
        raise ExpressionError(f"a group count is a positive integer, not {groups!r}")
    if not isinstance(arg, MatrixNode):
        raise ExpressionError(f"groups are formed of a matrix's columns, not of {arg!r}")


@dataclass(frozen=True, slots=True, repr=False)
class Entry(ScalarNode):
    """The single entry of a 1 × 1 matrix, as a scalar."""

    arg: MatrixNode


@dataclass(frozen=True, slots=True, repr=False)
class Flattened(VectorNode):
    """A 1 × d row or d × 1 column as a vector of ℝ^d."""

    arg: MatrixNode


@dataclass(frozen=True, slots=True, repr=False)
class MatGrad(MatrixNode):
    """∂f/∂W for a scalar ``expr`` f and a matrix atom ``wrt`` W: the matrix of the partial
    derivatives ∂f/∂W_ij, of W's shape (so ⟨∂f/∂W, H⟩ = D_W[f](H) for every direction H)."""

    expr: Expr
    wrt: MatrixAtom

    @property
    def shape(self) -> Shape:
        return self.wrt.shape


# ---------------------------------------------------------------------------------------
# Defined nodes


@dataclass(frozen=True, slots=True, repr=False)
class MeanAlong(Defined, MatrixNode):
    """The mean down the rows (``axis`` 0) or across the columns (``axis`` 1)."""

    arg: MatrixNode
    axis: int
    symbol: ClassVar[str] = "mean"

    @property
    def shape(self) -> Shape:
        return SumAlong(self.arg, self.axis).shape

    def definition(self) -> Expr:
        size = self.arg.shape[self.axis]
        return MatScaled(as_scalar(1 / size), SumAlong(self.arg, self.axis))


@dataclass(frozen=True, slots=True, repr=False)
class VarAlong(Defined, MatrixNode):
    """The variance (divisor: the number of entries) down the rows (``axis`` 0: per column,
    over the batch) or across the columns (``axis`` 1: per row, over the features)."""

    arg: MatrixNode
    axis: int
    symbol: ClassVar[str] = "var"

    @property
    def shape(self) -> Shape:
        return SumAlong(self.arg, self.axis).shape

    def definition(self) -> Expr:
        centered = MatSum((self.arg, MatScaled(as_scalar(-1), MeanAlong(self.arg, self.axis))))
        return MeanAlong(MatHadamard(centered, centered), self.axis)


@dataclass(frozen=True, slots=True, repr=False)
class GroupMean(Defined, MatrixNode):
    """Each entry replaced by the mean of its group of columns in its row."""

    arg: MatrixNode
    groups: int
    symbol: ClassVar[str] = "groupmean"

    def __post_init__(self) -> None:
        _grouped(self.arg, self.groups)  # (Defined adds the check of the definition)

    @property
    def shape(self) -> Shape:
        return self.arg.shape

    def definition(self) -> Expr:
        size = self.arg.shape[1] / self.groups
        return MatScaled(as_scalar(1 / size), GroupSum(self.arg, self.groups))


# ---------------------------------------------------------------------------------------
# Constructors


def matrix(name: str, rows: Any, cols: Any, *, positive: bool = False) -> MatrixAtom:
    """A matrix variable of shape rows × cols (each side 1, ``n``, ``d`` or ``m``).

    >>> matrix("W", d, m)
    W

    Raises:
        ExpressionError: for an invalid name, or one of the sizes' and ε's (d, n, m,
            epsilon): the engines would read the matrix's slices as the size.
    """
    if name in _RESERVED:
        raise ExpressionError(f"the name {name!r} is reserved: use {_RESERVED[name]}")
    return MatrixAtom(_check_name(name), _side(rows), _side(cols), positive)


def ones_matrix(rows: Any, cols: Any) -> MatrixOnes:
    """The all-ones matrix of shape rows × cols (``ones_matrix(n, 1)`` is 1ₙ)."""
    return MatrixOnes(_side(rows), _side(cols))


def first_case(rows: Any = n) -> FirstCase:
    """e₁ of ℝ^rows as a column: ``(1 + (c − 1)·e₁) ⊙ X`` re-scales the first case of X only."""
    return FirstCase(_side(rows))


def row(v: Any) -> Embedded:
    """A vector of ℝ^d as the 1 × d row that broadcasts over the rows of an n × d matrix."""
    return Embedded(as_vector(v), column=False)


def column(v: Any) -> Embedded:
    """A vector of ℝ^d as a d × 1 column (one entry per row of a d × m weight matrix)."""
    return Embedded(as_vector(v), column=True)


def sum_along(a: Any, axis: int) -> SumAlong:
    """Σ down the rows (axis 0) or across the columns (axis 1)."""
    return SumAlong(as_matrix(a), _axis(axis))


def mean_along(a: Any, axis: int) -> MeanAlong:
    """The mean down the rows (axis 0: per column, over the batch) or across the columns
    (axis 1: per row, over the features)."""
    return MeanAlong(as_matrix(a), _axis(axis))


def var_along(a: Any, axis: int) -> VarAlong:
    """The variance down the rows (axis 0: per column, over the batch) or across the columns
    (axis 1: per row, over the features), with divisor the number of entries."""
    return VarAlong(as_matrix(a), _axis(axis))


def total(a: Any) -> Entry:
    """The sum of every entry, as a scalar."""
    return Entry(SumAlong(SumAlong(as_matrix(a), 1), 0))


def flatten(a: Any) -> Flattened:
    """A 1 × d row or a d × 1 column as a vector of ℝ^d (e.g. a sum down a batch)."""
    a = as_matrix(a)
    if a.shape not in ((_ONE, d), (d, _ONE)):
        raise ExpressionError(
            f"only a 1 × d or d × 1 matrix is a vector of ℝ^d, not {_text(a.shape)}"
        )
    return Flattened(a)


def has_matrices(e: Any) -> bool:
    """Whether an IR expression or relation contains a matrix node."""
    if hasattr(e, "lhs") and hasattr(e, "rhs"):
        return has_matrices(e.lhs) or has_matrices(e.rhs)
    return any(isinstance(x, MatrixNode | Entry | Flattened) for x in walk(e))


def _axis(axis: Any) -> int:
    if axis not in (0, 1) or isinstance(axis, bool):
        raise ExpressionError(
            f"an axis is 0 (down the rows) or 1 (across the columns), not {axis!r}"
        )
    return int(axis)


def _text(shape: Shape) -> str:
    return f"{shape[0]} × {shape[1]}"


__all__ = [
    "AXES",
    "Embedded",
    "Entry",
    "FirstCase",
    "Flattened",
    "GroupMean",
    "GroupSum",
    "MatGrad",
    "MatHadamard",
    "MatMul",
    "MatPower",
    "MatScaled",
    "MatSum",
    "MatrixAtom",
    "MatrixNode",
    "MatrixOnes",
    "MeanAlong",
    "SumAlong",
    "Transpose",
    "VarAlong",
    "as_matrix",
    "column",
    "first_case",
    "has_matrices",
    "flatten",
    "matrix",
    "mean_along",
    "ones_matrix",
    "row",
    "sum_along",
    "total",
    "var_along",
]
