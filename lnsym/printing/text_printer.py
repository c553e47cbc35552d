"""The text printer: the IR as one line of Unicode, for ``repr`` and the command line.

- :class:`TextPrinter` — a SymPy ``StrPrinter`` with one ``_print_<Node>`` method per
  node that is not written ``symbol(arg₁, arg₂, …)``; every other defined node, including
  one this module has never heard of, is written that way.
- :func:`text` — the printer as a function.

>>> from lnsym import vector, core, dot, layer_norm, eps
>>> z, h = vector("z"), vector("h")
>>> text(dot(core(z), h) - 1)
'⟨core(z), h⟩ - 1'
>>> text(layer_norm(z, vector("gamma"), vector("beta"), eps / 2))
'LN(z; γ, β; ε=ε/2)'
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.printing.str import StrPrinter

from lnsym import ir
from lnsym.ir.names import unicode_name
from lnsym.printing.base import MUL, POW, IRPrinting, negated
from lnsym.printing.notation import defined_name


class TextPrinter(IRPrinting, StrPrinter):
    """One-line Unicode text, used by ``repr`` and the command line."""

    tokens = {
        "lparen": "(",
        "rparen": ")",
        "hadamard": " ⊙ ",
        "subs": "{expr}|_{{{target}={value}}}",
        "le": " ≤ ",
    }

    def _print_Symbol(self, e: sympy.Symbol) -> str:
        return unicode_name(e.name)

    def _print_VectorAtom(self, e: ir.VectorAtom) -> str:
        return unicode_name(e.name)

    def _print_Ones(self, e: ir.Ones) -> str:
        return "1"

    def _print_Scaled(self, e: ir.Scaled) -> str:
        return self._paren(e.coefficient, MUL) + "·" + self._paren(e.vector, MUL, True)

    def _print_Const(self, e: ir.Const) -> str:
        return self._print(e.value)

    def _print_Dot(self, e: ir.Dot) -> str:
        return f"⟨{self._print(e.left)}, {self._print(e.right)}⟩"

    def _print_ScalarProduct(self, e: ir.ScalarProduct) -> str:
        neg = negated(e)
        if neg is not None:
            return "-" + self._paren(neg, MUL)
        return "·".join(self._paren(f, MUL, i > 0) for i, f in enumerate(e.factors))

    def _print_Power(self, e: ir.Power) -> str:
        exponent = self._print(e.exponent)
        if not (e.exponent.is_Integer and e.exponent >= 0):
            exponent = f"({exponent})"
        return f"{self._paren(e.base, POW, True)}^{exponent}"

    def _print_Norm(self, e: ir.Norm) -> str:
        return f"‖{self._print(e.arg)}‖"

    def _print_Defined(self, e: ir.Defined) -> str:
        """Any defined node: ``symbol(child₁, child₂, …)``, e.g. ``mean(z)``."""
        return self._call(defined_name(e), *e.children())

    def _print_Core(self, e: Any) -> str:
        if e.eps == ir.Const(ir.eps):
            return self._call("core", e.arg)
        return f"core({self._print(e.arg)}, ε={self._print(e.eps)})"

    def _print_LayerNorm(self, e: Any) -> str:
        args = f"{self._print(e.arg)}; {self._print(e.gain)}, {self._print(e.bias)}"
        if e.eps != ir.Const(ir.eps):
            args += f"; ε={self._print(e.eps)}"
        return f"LN({args})"

    def _print_Jvp(self, e: Any) -> str:
        return f"D_{self._print(e.wrt)}[{self._print(e.expr)}]({self._print(e.direction)})"

    def _print_Vjp(self, e: Any) -> str:
        return f"vjp_{self._print(e.wrt)}[{self._print(e.expr)}]({self._print(e.cotangent)})"

    def _print_Grad(self, e: Any) -> str:
        return f"∇_{self._print(e.wrt)}[{self._print(e.expr)}]"

    def _print_OperatorNorm(self, e: Any) -> str:
        return f"‖D_{self._print(e.wrt)}[{self._print(e.expr)}]‖₂"

    def _print_FixedDimension(self, e: ir.FixedDimension) -> str:
        return f"d = {e.value}"

    def _print_Centered(self, e: ir.Centered) -> str:
        return f"mean({self._print(e.atom)}) = 0"

    def _print_Orthogonal(self, e: ir.Orthogonal) -> str:
        return f"⟨{self._print(e.left)}, {self._print(e.right)}⟩ = 0"

    def _print_Nonconstant(self, e: ir.Nonconstant) -> str:
        return f"{self._print(e.atom)} is not constant"

    def _print_MinDimension(self, e: ir.MinDimension) -> str:
        return f"d ≥ {e.value}"


_TEXT = TextPrinter()


def text(e: Any) -> str:
    """One-line Unicode rendering of an IR node, relation, assumption or SymPy expression."""
    return _TEXT.doprint(e)
