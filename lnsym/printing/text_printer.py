"""The text printer: the IR as one line of Unicode, for ``repr`` and the command line.

- :class:`TextPrinter` — a SymPy ``StrPrinter`` with one ``_print_<Node>`` method per
  node that is not written ``symbol(arg₁, arg₂, …)``; every other defined node, including
  one this module has never heard of, is written that way. It is what ``repr`` shows, and
  it never changes its mind about a node: ``(x)^(-1)·y`` stays a power times a vector.
- :class:`ReadableTextPrinter` — the same line written the way the LaTeX printer typesets
  it: ``P h`` as ``Ph``, products as one fraction ``a·b/c``, ``√(x)``, ``‖a‖²``.
- :func:`text` — the printers as a function; with ``abbreviations`` (see
  :func:`~lnsym.printing.notation.abbreviations_for`) either printer writes the report's
  short names q, s, u, y and J where the LaTeX printer does.

>>> from lnsym import vector, core, dot, layer_norm, eps, center, var, sqrt, d
>>> z, h = vector("z"), vector("h")
>>> text(dot(core(z), h) - 1)
'⟨core(z), h⟩ - 1'
>>> text(layer_norm(z, vector("gamma"), vector("beta"), eps / 2))
'LN(z; γ, β; ε=ε/2)'
>>> e = (center(h) - dot(core(z), h) * core(z) / d) / sqrt(var(z) + eps)
>>> text(e)
'((var(z) + ε)^(1/2))^(-1)·(center(h) - 1/d·⟨core(z), h⟩·core(z))'
>>> text(e, {"s", "u"})
's^(-1)·(center(h) - 1/d·⟨u, h⟩·u)'
>>> text(e, {"s", "u"}, readable=True)
'(Ph - ⟨u, h⟩·u/d)/s'
>>> text(e, readable=True)
'(Ph - ⟨core(z), h⟩·core(z)/d)/√(var(z) + ε)'
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import sympy
from sympy.printing.precedence import precedence
from sympy.printing.str import StrPrinter

from lnsym import ir
from lnsym.ir.names import unicode_name
from lnsym.printing.base import (
    ADD,
    ATOM,
    MUL,
    POW,
    IRPrinting,
    ir_precedence,
    negated,
    split_product,
)
from lnsym.printing.matrix_printing import MATRIX_TOKENS, MatrixPrinting
from lnsym.printing.notation import (
    abbreviation,
    defined_name,
    is_core_jacobian,
    is_square_norm,
    root_power,
)

_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def superscript(n: int | sympy.Integer) -> str:
    """An integer exponent in Unicode superscript digits: ``superscript(2) == "²"``."""
    return str(n).translate(_SUPERSCRIPT)


class TextPrinter(MatrixPrinting, IRPrinting, StrPrinter):
    """One-line Unicode text, used by ``repr`` and the command line.

    The setting ``abbreviations`` (a subset of
    :data:`~lnsym.printing.notation.ABBREVIATIONS`) writes q, s (and s^k), u, y for the
    quantities they name and J for the Jacobian of u, as the LaTeX printer does; without
    it every node is written in full.
    """

    _default_settings = {**StrPrinter._default_settings, "abbreviations": frozenset()}

    matrix_tokens = MATRIX_TOKENS["text"]
    tokens = {
        "lparen": "(",
        "rparen": ")",
        "hadamard": " ⊙ ",
        "subs": "{expr}|_{{{target}={value}}}",
        "le": " ≤ ",
    }

    def _short(self, e: Any) -> str | None:
        """The abbreviation that names ``e``, when one is active."""
        return abbreviation(e, self._settings["abbreviations"])

    def _jacobian_of_core(self, e: Any) -> bool:
        return is_core_jacobian(e, self._settings["abbreviations"])

    def _precedence(self, e: Any) -> int:
        if self._short(e) is not None:
            return ATOM
        return ir_precedence(e)

    def _print(self, expr: Any, **kwargs: Any) -> str:
        short = self._short(expr)
        if short is not None:
            return short
        return super()._print(expr, **kwargs)

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
        k = root_power(e)
        if k is not None and "s" in self._settings["abbreviations"]:
            return f"s^{k}" if k > 0 else f"s^({k})"  # k = 1 is s itself (see _print)
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

    def _print_RMSNorm(self, e: Any) -> str:
        if e.eps == ir.Const(ir.eps):
            return self._call("rms", e.arg)
        return f"rms({self._print(e.arg)}, ε={self._print(e.eps)})"

    def _print_Jvp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return self._call("J", e.direction)
        return f"D_{self._print(e.wrt)}[{self._print(e.expr)}]({self._print(e.direction)})"

    def _print_Vjp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return self._call("Jᵀ", e.cotangent)
        return f"vjp_{self._print(e.wrt)}[{self._print(e.expr)}]({self._print(e.cotangent)})"

    def _print_Grad(self, e: Any) -> str:
        return f"∇_{self._print(e.wrt)}[{self._print(e.expr)}]"

    def _print_Diff(self, e: Any) -> str:
        return f"∂_{self._print(e.wrt)}[{self._print(e.expr)}]"

    def _print_OperatorNorm(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return "‖J‖₂"
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


class ReadableTextPrinter(TextPrinter):
    """One line of Unicode that reads like the LaTeX printer's typesetting.

    Where :class:`TextPrinter` writes the tree as it is, this printer writes what a reader
    expects, with the rules of the LaTeX printer
    (:func:`~lnsym.printing.base.split_product` decides numerators and denominators):

    - a product is one fraction ``a·b/c``: ``x^(-1)·y`` is ``y/x``, ``1/d·a`` is ``a/d``, a
      denominator of several factors is parenthesized (``a/(d·s³)``); a coefficient of
      numbers and symbols stays in front (``2/d·Pz``), any other takes the vector into
      its numerator (``⟨u, h⟩·u/d``, ``(Ph - a)/s``);
    - a negative coefficient is a leading ``-`` (``-Pz``, not ``-1·center(z)``);
    - a vector over a scalar right of ⊙ goes without parentheses, since both readings
      agree: ``γ ⊙ (Ph - a)/s``;
    - ``√(x)`` for the power 1/2, superscripts for integer powers (``s³``, ``‖a‖²`` for
      ``⟨a, a⟩``);
    - the centering matrix P and the Jacobian J juxtaposed with a name (``Ph``, ``Jh``) and
      applied to anything else (``P(g ⊙ γ)``, ``J(h + k)``).
    """

    def _name_like(self, e: Any) -> bool:
        """Written as a single name, so that ``P`` and ``√`` need no parentheses."""
        return (
            isinstance(e, ir.VectorAtom)
            or self._short(e) is not None
            or (isinstance(e, ir.Const) and isinstance(e.value, sympy.Symbol))
        )

    def _applied(self, operator: str, e: Any) -> str:
        """``operator`` juxtaposed with a name, else applied to ``e`` in parentheses."""
        if self._name_like(e):
            return operator + self._print(e)
        return self._call(operator, e)

    def _precedence(self, e: Any) -> int:
        if self._short(e) is not None:
            return ATOM
        if is_square_norm(e):
            return POW  # printed as a squared norm
        if isinstance(e, ir.Power) and e.exponent.is_negative:
            return MUL  # printed as a fraction 1/x
        if isinstance(e, ir.Scaled) and self._is_zero(e):
            return ATOM  # printed as 0
        if isinstance(e, ir.Scaled | ir.ScalarProduct) and self._sign(e):
            return ADD  # printed with a leading minus, as -2 binds in SymPy
        return ir_precedence(e)

    # -- products and fractions -------------------------------------------------------
    def _product(self, factors: list[ir.Expr]) -> str:
        # a/b·c reads as (a/b)·c, but a ⊙ b/c is unclear: vector products are parenthesized
        return "·".join(
            self._paren(f, MUL, strict=i > 0 or isinstance(f, ir.Hadamard | ir.Scaled))
            for i, f in enumerate(factors)
        )

    def _fraction(self, sign: str, numerator: list[ir.Expr], denominator: list[ir.Expr]) -> str:
        top = self._product(numerator) if numerator else "1"
        if not denominator:
            return sign + top
        if len(denominator) == 1:
            bottom = self._paren(denominator[0], MUL, strict=True)
        else:
            bottom = self.tokens["lparen"] + self._product(denominator) + self.tokens["rparen"]
        return f"{sign}{top}/{bottom}"

    def _print_ScalarProduct(self, e: ir.ScalarProduct) -> str:
        return self._fraction(*split_product(e.factors))

    @staticmethod
    def _coefficient(e: ir.Scaled) -> tuple[str, list[ir.Expr], list[ir.Expr]]:
        c = e.coefficient
        return split_product(c.factors if isinstance(c, ir.ScalarProduct) else (c,))

    @staticmethod
    def _is_zero(e: ir.Scaled) -> bool:
        return isinstance(e.coefficient, ir.Const) and e.coefficient.value == 0

    def _sign(self, e: ir.Scaled | ir.ScalarProduct) -> str:
        """The minus sign a product is printed with, or ``""``."""
        if isinstance(e, ir.Scaled):
            return self._coefficient(e)[0]
        return split_product(e.factors)[0]

    def _print_Hadamard(self, e: ir.Hadamard) -> str:
        right = e.right
        if isinstance(right, ir.Scaled) and self._coefficient(right)[0:2] == ("", []):
            # a ⊙ (b/s) = (a ⊙ b)/s: a ⊙ b/s is the same either way it is read
            left = self._paren(e.left, MUL)
            return left + self.tokens["hadamard"] + self._print(right)
        return super()._print_Hadamard(e)

    def _print_Scaled(self, e: ir.Scaled) -> str:
        if self._is_zero(e):
            return "0"
        sign, numerator, denominator = self._coefficient(e)
        if isinstance(e.vector, ir.Ones):
            # 𝟏 is written 1: its coefficient stays in front, -1·1 and 1/d·1, never 1/d
            return self._fraction(sign, numerator, denominator) + "·" + self._print(e.vector)
        constant = bool(numerator) and all(isinstance(f, ir.Const) for f in numerator + denominator)
        if denominator and not constant:
            # a number or symbol over another stays in front (2/d·a); else c·a/b, and a/b
            return self._fraction(sign, [*numerator, e.vector], denominator)
        vector = self._paren(e.vector, MUL, strict=True)
        if not numerator and not denominator:
            return sign + vector
        return self._fraction(sign, numerator, denominator) + "·" + vector

    def _print_Power(self, e: ir.Power) -> str:
        k = root_power(e)
        if k is not None and "s" in self._settings["abbreviations"]:
            s_k = "s" if abs(k) == 1 else "s" + superscript(abs(k))
            return "1/" + s_k if k < 0 else s_k
        exponent = e.exponent
        if exponent.is_negative:
            return self._fraction("", [], [ir.power(e.base, -exponent)])
        if exponent == sympy.Rational(1, 2):
            return self._applied("√", e.base)
        if exponent.is_Integer:
            return self._paren(e.base, POW, strict=True) + superscript(exponent)
        return f"{self._paren(e.base, POW, strict=True)}^({self._print(exponent)})"

    # SymPy values inside constants: the same conventions (2·ε, √2, d², 1/√d), never **
    def _print_Pow(self, expr: sympy.Pow, rational: bool = False) -> str:
        base, exponent = expr.base, expr.exp
        if exponent == sympy.Rational(1, 2):
            inner = self._print(base)
            return "√" + (inner if isinstance(base, sympy.Symbol) else f"({inner})")
        if exponent.is_Rational and exponent.is_negative:
            return "1/" + self.parenthesize(base ** (-exponent), precedence(expr), strict=True)
        raised = self.parenthesize(base, precedence(expr), strict=True)
        if exponent.is_Integer:
            return raised + superscript(exponent)
        return f"{raised}^({self._print(exponent)})"

    def _print_Mul(self, expr: sympy.Mul) -> str:
        return str(super()._print_Mul(expr)).replace("*", "·")

    # -- inner products and defined nodes ---------------------------------------------
    def _print_Dot(self, e: ir.Dot) -> str:
        if is_square_norm(e):
            return self._print(ir.Norm(e.left)) + "²"
        return super()._print_Dot(e)

    def _print_Center(self, e: ir.Center) -> str:
        return self._applied("P", e.arg)

    def _print_Jvp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return self._applied("J", e.direction)
        return super()._print_Jvp(e)

    def _print_Vjp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return self._applied("Jᵀ", e.cotangent)
        return super()._print_Vjp(e)


@lru_cache(maxsize=64)
def _text_printer(abbreviations: frozenset[str], readable: bool) -> TextPrinter:
    printer = ReadableTextPrinter if readable else TextPrinter
    return printer({"abbreviations": abbreviations})


def text(e: Any, abbreviations: Iterable[str] = (), *, readable: bool = False) -> str:
    """One-line Unicode rendering of an IR node, relation, assumption or SymPy expression.

    Args:
        e: what to print.
        abbreviations: short names to use (see
            :func:`~lnsym.printing.notation.abbreviations_for`); none by default, and then
            the output is exactly ``repr(e)``.
        readable: write it as the LaTeX printer typesets it (:class:`ReadableTextPrinter`):
            ``Ph``, ``a·b/c``, ``√(x)``, a leading ``-``.

    >>> from lnsym import vector, center, d
    >>> z = vector("z")
    >>> text(2 / d * center(z)), text(2 / d * center(z), readable=True)
    ('2/d·center(z)', '2/d·Pz')
    """
    return _text_printer(frozenset(abbreviations), readable).doprint(e)
