"""How both printers write the matrix nodes of :mod:`lnsym.ir.matrices` and the batch layers.

A mixin of the text and LaTeX printers; ``MATRIX_TOKENS`` holds what differs between them.
A row γᵀ is how a per-feature vector broadcasts over a batch; sums along an axis are
colsum/rowsum (colsum sums down each column, i.e. over the batch), and the sum of every entry
of a matrix is sum(A).

>>> from lnsym import vector
>>> from lnsym.ir.matrices import matrix, mean_along, row, total
>>> from lnsym.ir.names import n, d
>>> from lnsym.printing.printer import latex, text
>>> Z = matrix("Z", n, d)
>>> text(row(vector("gamma")) * Z + mean_along(Z, 0))
'γᵀ ⊙ Z + colmean(Z)'
>>> latex(total(Z * Z))
'\\\\operatorname{sum}(\\\\mathbf{Z} \\\\odot \\\\mathbf{Z})'
"""

from __future__ import annotations

from typing import Any

import sympy

from lnsym import ir
from lnsym.ir import batch_layers as layers
from lnsym.ir import matrices as mx
from lnsym.printing.base import ATOM, MUL, POW

#: Per printer: the text of the transpose, products, names of reductions and layers.
MATRIX_TOKENS: dict[str, dict[str, str]] = {
    "text": {
        "T": "ᵀ",
        "matmul": " ",
        "scaled": "·",
        "ones": "1[{rows}×{cols}]",
        "power": "{base}^∘({exponent})",
        "name": "{name}",
        "eps": ", ε={eps}",
        "groups": "{name}[{groups}]",
        "first": "e₁",
    },
    "latex": {
        "T": r"^{\mathsf{T}}",
        "matmul": r" ",
        "scaled": r" ",
        "ones": r"\mathbf{{1}}_{{{rows} \times {cols}}}",
        "power": r"{base}^{{\circ ({exponent})}}",
        "name": r"\operatorname{{{name}}}",
        "eps": r", \varepsilon = {eps}",
        "groups": r"\operatorname{{{name}}}_{{{groups}}}",
        "first": r"\mathbf{e}_{1}",
    },
}

_REDUCTIONS = {
    (mx.SumAlong, 0): "colsum",
    (mx.SumAlong, 1): "rowsum",
    (mx.MeanAlong, 0): "colmean",
    (mx.MeanAlong, 1): "rowmean",
    (mx.VarAlong, 0): "colvar",
    (mx.VarAlong, 1): "rowvar",
}


class MatrixPrinting:
    """Printer methods for matrix nodes; the printer provides ``_print``, ``_paren``,
    ``_sum`` and ``_print_VectorAtom``."""

    matrix_tokens: dict[str, str]

    # provided by the printer classes
    _print: Any
    _paren: Any
    _sum: Any
    _print_VectorAtom: Any
    _print_Grad: Any

    def _name(self, name: str) -> str:
        return self.matrix_tokens["name"].format(name=name)

    def _print_MatrixAtom(self, e: mx.MatrixAtom) -> str:
        return str(self._print_VectorAtom(ir.VectorAtom(e.name)))

    def _print_MatrixOnes(self, e: mx.MatrixOnes) -> str:
        if e.shape == (1, 1):
            return "1"
        return self.matrix_tokens["ones"].format(rows=self._print(e.rows), cols=self._print(e.cols))

    def _print_FirstCase(self, e: mx.FirstCase) -> str:
        return self.matrix_tokens["first"]

    def _print_Embedded(self, e: mx.Embedded) -> str:
        inner = self._paren(e.vector, ATOM)
        return inner if e.column else inner + self.matrix_tokens["T"]

    def _print_MatSum(self, e: mx.MatSum) -> str:
        return str(self._sum(e.terms))

    def _print_MatScaled(self, e: mx.MatScaled) -> str:
        if e.matrix == mx.MatrixOnes(sympy.Integer(1), sympy.Integer(1)):
            return str(self._print(e.coefficient))
        if e.coefficient == ir.Const(sympy.Integer(-1)):
            return "-" + self._paren(e.matrix, MUL, True)
        return (
            self._paren(e.coefficient, MUL)
            + self.matrix_tokens["scaled"]
            + self._paren(e.matrix, MUL, True)
        )

    def _print_MatHadamard(self, e: mx.MatHadamard) -> str:
        hadamard = self.tokens["hadamard"]  # type: ignore[attr-defined]
        return str(self._paren(e.left, MUL) + hadamard + self._paren(e.right, MUL, True))

    def _print_MatPower(self, e: mx.MatPower) -> str:
        base = self._paren(e.base, POW, True)
        return self.matrix_tokens["power"].format(base=base, exponent=self._print(e.exponent))

    def _print_MatMul(self, e: mx.MatMul) -> str:
        return (
            self._paren(e.left, MUL)
            + self.matrix_tokens["matmul"]
            + self._paren(e.right, MUL, True)
        )

    def _print_Transpose(self, e: mx.Transpose) -> str:
        return self._paren(e.arg, POW, True) + self.matrix_tokens["T"]

    def _reduction(self, e: Any) -> str:
        return f"{self._name(_REDUCTIONS[type(e), e.axis])}({self._print(e.arg)})"

    def _print_SumAlong(self, e: mx.SumAlong) -> str:
        return self._reduction(e)

    def _print_MeanAlong(self, e: mx.MeanAlong) -> str:
        return self._reduction(e)

    def _print_VarAlong(self, e: mx.VarAlong) -> str:
        return self._reduction(e)

    def _print_GroupSum(self, e: mx.GroupSum) -> str:
        name = self.matrix_tokens["groups"].format(name="groupsum", groups=e.groups)
        return f"{name}({self._print(e.arg)})"

    def _print_GroupMean(self, e: mx.GroupMean) -> str:
        name = self.matrix_tokens["groups"].format(name="groupmean", groups=e.groups)
        return f"{name}({self._print(e.arg)})"

    def _print_MatGrad(self, e: mx.MatGrad) -> str:
        return str(self._print_Grad(e))  # ∇_Z[ℓ], written as for a vector

    def _print_Entry(self, e: mx.Entry) -> str:
        inner = e.arg
        if isinstance(inner, mx.SumAlong) and isinstance(inner.arg, mx.SumAlong):
            if (inner.axis, inner.arg.axis) == (0, 1):
                return f"{self._name('sum')}({self._print(inner.arg.arg)})"
        return f"{self._name('entry')}({self._print(inner)})"

    def _print_Flattened(self, e: mx.Flattened) -> str:
        return f"{self._name('vec')}({self._print(e.arg)})"

    def _layer(self, name: str, *args: Any, eps: Any = None) -> str:
        inner = ", ".join(self._print(a) for a in args)
        if eps is not None and eps != ir.Const(ir.eps):
            inner += self.matrix_tokens["eps"].format(eps=self._print(eps))
        return f"{name}({inner})"

    def _print_MatrixNormalization(self, e: Any) -> str:
        return self._layer(self._name(e.symbol), e.arg, eps=e.eps)

    def _print_GroupStandardize(self, e: layers.GroupStandardize) -> str:
        name = self.matrix_tokens["groups"].format(name="GN", groups=e.groups)
        return self._layer(name, e.arg, eps=e.eps)

    def _print_BatchNormEval(self, e: layers.BatchNormEval) -> str:
        return self._layer(self._name("BNeval"), e.arg, e.mean, e.variance, eps=e.eps)

    def _print_RowWeightNorm(self, e: layers.RowWeightNorm) -> str:
        return self._layer(self._name("WN"), e.arg, e.gain)
