"""Printers for the IR: one-line Unicode text and LaTeX, as SymPy printer subclasses.

Both share the tree walk (:class:`_IRPrinting`) and differ only in tokens, so a new node
needs one ``_print_<Class>`` method per printer at most. Vectors are bold in LaTeX, the
ones vector is 𝟏, the Hadamard product ⊙, and ε is ``\\varepsilon``.

>>> from lnsym import vector, core, dot, ones, Eq
>>> z, h = vector("z"), vector("h")
>>> text(dot(core(z), h) - 1)
'⟨core(z), h⟩ - 1'
>>> print(latex(core(z + 3 * ones)))
u_{\\varepsilon}\\left(\\mathbf{z} + 3 \\mathbf{1}\\right)
"""

from __future__ import annotations

from typing import Any

import sympy
from sympy.printing.latex import LatexPrinter as _SympyLatexPrinter
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.pretty.pretty_symbology import greek_unicode
from sympy.printing.str import StrPrinter

from lnsym import expr as ir

_ADD, _MUL, _POW, _ATOM = (
    PRECEDENCE["Add"],
    PRECEDENCE["Mul"],
    PRECEDENCE["Pow"],
    PRECEDENCE["Atom"],
)


def _ir_precedence(e: Any) -> int:
    if isinstance(e, ir.Const):
        return precedence(e.value)
    if isinstance(e, ir.VectorSum | ir.ScalarSum):
        return _ADD
    if isinstance(e, ir.Scaled | ir.Hadamard | ir.ScalarProduct):
        return _MUL
    if isinstance(e, ir.Power):
        return _POW
    return _ATOM


def _negated(e: ir.Expr) -> ir.Expr | None:
    """``-e`` without its minus sign when ``e`` is written with a leading minus, else None."""
    if isinstance(e, ir.Const) and e.value.could_extract_minus_sign():
        return ir.Const(-e.value)
    if isinstance(e, ir.Scaled):
        inner = _negated(e.coefficient)
        if inner is not None:
            return e.vector if inner == ir.Const(sympy.Integer(1)) else ir.Scaled(inner, e.vector)
    if isinstance(e, ir.ScalarProduct):
        inner = _negated(e.factors[0])
        if inner is not None:
            rest = e.factors[1:]
            if inner == ir.Const(sympy.Integer(1)):
                return rest[0] if len(rest) == 1 else ir.ScalarProduct(rest)
            return ir.ScalarProduct((inner, *rest))
    return None


class _IRPrinting:
    """The tree walk shared by the text and LaTeX printers."""

    tokens: dict[str, str]

    def _paren(self, e: Any, level: int, strict: bool = False) -> str:
        inner = self._print(e)  # type: ignore[attr-defined]
        p = _ir_precedence(e)
        if p < level or (strict and p <= level):
            return self.tokens["lparen"] + inner + self.tokens["rparen"]
        return inner

    def _sum(self, terms: tuple[ir.Expr, ...]) -> str:
        out = self._paren(terms[0], _ADD)
        for t in terms[1:]:
            neg = _negated(t)
            if neg is not None:
                out += " - " + self._paren(neg, _ADD, strict=True)
            else:
                out += " + " + self._paren(t, _ADD)
        return out

    def _print_VectorSum(self, e: ir.VectorSum) -> str:
        return self._sum(e.terms)

    def _print_ScalarSum(self, e: ir.ScalarSum) -> str:
        return self._sum(e.terms)

    def _print_Hadamard(self, e: ir.Hadamard) -> str:
        return (
            self._paren(e.left, _MUL) + self.tokens["hadamard"] + self._paren(e.right, _MUL, True)
        )

    def _print_Substitution(self, e: ir.Substitution) -> str:
        return self.tokens["subs"].format(
            expr=self._print(e.expr),
            target=self._print(e.target),
            value=self._print(e.value),  # type: ignore[attr-defined]
        )

    def _print_Eq(self, e: ir.Eq) -> str:
        return f"{self._print(e.lhs)} = {self._print(e.rhs)}"  # type: ignore[attr-defined]

    def _print_Le(self, e: ir.Le) -> str:
        return f"{self._print(e.lhs)}{self.tokens['le']}{self._print(e.rhs)}"  # type: ignore[attr-defined]

    def _call(self, name: str, *args: Any) -> str:
        inner = ", ".join(self._print(a) for a in args)  # type: ignore[attr-defined]
        return f"{name}{self.tokens['lparen']}{inner}{self.tokens['rparen']}"


class TextPrinter(_IRPrinting, StrPrinter):
    """One-line Unicode text, used by ``repr`` and the command line."""

    tokens = {
        "lparen": "(",
        "rparen": ")",
        "hadamard": " ⊙ ",
        "subs": "{expr}|_{{{target}={value}}}",
        "le": " ≤ ",
    }

    def _print_Symbol(self, e: sympy.Symbol) -> str:
        return greek_unicode.get(e.name, e.name)

    def _print_VectorAtom(self, e: ir.VectorAtom) -> str:
        return greek_unicode.get(e.name, e.name)

    def _print_Ones(self, e: ir.Ones) -> str:
        return "1"

    def _print_Scaled(self, e: ir.Scaled) -> str:
        return self._paren(e.coefficient, _MUL) + "·" + self._paren(e.vector, _MUL, True)

    def _print_Const(self, e: ir.Const) -> str:
        return self._print(e.value)

    def _print_Dot(self, e: ir.Dot) -> str:
        return f"⟨{self._print(e.left)}, {self._print(e.right)}⟩"

    def _print_ScalarProduct(self, e: ir.ScalarProduct) -> str:
        neg = _negated(e)
        if neg is not None:
            return "-" + self._paren(neg, _MUL)
        return "·".join(self._paren(f, _MUL, i > 0) for i, f in enumerate(e.factors))

    def _print_Power(self, e: ir.Power) -> str:
        exponent = self._print(e.exponent)
        if not (e.exponent.is_Integer and e.exponent >= 0):
            exponent = f"({exponent})"
        return f"{self._paren(e.base, _POW, True)}^{exponent}"

    def _print_Norm(self, e: ir.Norm) -> str:
        return f"‖{self._print(e.arg)}‖"

    def _print_Defined(self, e: ir.Defined) -> str:
        return self._call(e.symbol, *e.children())

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


class LatexPrinter(_IRPrinting, _SympyLatexPrinter):
    """LaTeX for reports: bold vectors, 𝟏, ⊙, ⟨·,·⟩, μ, q, P, u_ε, ε as ``\\varepsilon``."""

    tokens = {
        "lparen": r"\left(",
        "rparen": r"\right)",
        "hadamard": r" \odot ",
        "subs": r"\left. {expr} \right|_{{{target} = {value}}}",
        "le": r" \le ",
    }

    def _print_Symbol(self, e: sympy.Symbol, style: str = "plain") -> str:
        if e.name == "epsilon":
            return r"\varepsilon"
        return super()._print_Symbol(e, style=style)

    def _print_VectorAtom(self, e: ir.VectorAtom) -> str:
        body = _SympyLatexPrinter._print_Symbol(self, sympy.Symbol(e.name))
        bold = r"\boldsymbol" if body.startswith("\\") else r"\mathbf"
        return f"{bold}{{{body}}}"

    def _print_Ones(self, e: ir.Ones) -> str:
        return r"\mathbf{1}"

    def _print_Const(self, e: ir.Const) -> str:
        return self._print(e.value)

    def _print_Scaled(self, e: ir.Scaled) -> str:
        return self._paren(e.coefficient, _MUL) + " " + self._paren(e.vector, _MUL, True)

    def _print_Dot(self, e: ir.Dot) -> str:
        return rf"\left\langle {self._print(e.left)}, {self._print(e.right)} \right\rangle"

    def _print_ScalarProduct(self, e: ir.ScalarProduct) -> str:
        numerator, denominator = [], []
        for f in e.factors:
            if isinstance(f, ir.Power) and f.exponent.is_negative:
                denominator.append(ir.power(f.base, -f.exponent))
            elif isinstance(f, ir.Const) and f.value.is_Rational and f.value.q != 1:
                numerator.append(ir.Const(sympy.Integer(f.value.p)))
                denominator.append(ir.Const(sympy.Integer(f.value.q)))
            else:
                numerator.append(f)
        sign = ""
        if numerator and numerator[0] == ir.Const(sympy.Integer(-1)):
            sign, numerator = "-", numerator[1:]
        num = " ".join(self._paren(f, _MUL, i > 0) for i, f in enumerate(numerator)) or "1"
        if not denominator:
            return sign + num
        den = " ".join(self._paren(f, _MUL) for f in denominator)
        return rf"{sign}\frac{{{num}}}{{{den}}}"

    def _print_Power(self, e: ir.Power) -> str:
        exponent = e.exponent
        if exponent.is_negative:
            return rf"\frac{{1}}{{{self._print(ir.power(e.base, -exponent))}}}"
        if exponent == sympy.Rational(1, 2):
            return rf"\sqrt{{{self._print(e.base)}}}"
        return f"{self._paren(e.base, _POW, True)}^{{{self._print(exponent)}}}"

    def _print_Mean(self, e: ir.Mean) -> str:
        return self._call(r"\mu", e.arg)

    def _print_Var(self, e: ir.Var) -> str:
        return self._call("q", e.arg)

    def _print_Center(self, e: ir.Center) -> str:
        return "P " + self._paren(e.arg, _ATOM)

    def _print_Norm(self, e: ir.Norm) -> str:
        return rf"\left\lVert {self._print(e.arg)} \right\rVert"

    def _print_Core(self, e: Any) -> str:
        return self._call(f"u_{{{self._print(e.eps)}}}", e.arg)

    def _print_LayerNorm(self, e: Any) -> str:
        sub = f"{self._print(e.gain)}, {self._print(e.bias)}"
        if e.eps != ir.Const(ir.eps):
            sub += f"; {self._print(e.eps)}"
        return self._call(rf"\operatorname{{LN}}_{{{sub}}}", e.arg)

    def _print_Jvp(self, e: Any) -> str:
        return (
            rf"D_{{{self._print(e.wrt)}}}\left[{self._print(e.expr)}\right]"
            rf"\left({self._print(e.direction)}\right)"
        )

    def _print_Vjp(self, e: Any) -> str:
        return (
            rf"\nabla_{{{self._print(e.wrt)}}} \left\langle {self._print(e.cotangent)}, "
            rf"{self._print(e.expr)} \right\rangle"
        )

    def _print_Grad(self, e: Any) -> str:
        return rf"\nabla_{{{self._print(e.wrt)}}} \left({self._print(e.expr)}\right)"

    def _print_OperatorNorm(self, e: Any) -> str:
        return (
            rf"\left\lVert D_{{{self._print(e.wrt)}}}\left[{self._print(e.expr)}\right]"
            r" \right\rVert_{2}"
        )

    def _print_FixedDimension(self, e: ir.FixedDimension) -> str:
        return rf"d = {e.value}"

    def _print_Centered(self, e: ir.Centered) -> str:
        return rf"\mu\left({self._print(e.atom)}\right) = 0"

    def _print_Orthogonal(self, e: ir.Orthogonal) -> str:
        return rf"\left\langle {self._print(e.left)}, {self._print(e.right)} \right\rangle = 0"

    def _print_Nonconstant(self, e: ir.Nonconstant) -> str:
        return rf"{self._print(e.atom)} \notin \mathbb{{R}}\mathbf{{1}}"

    def _print_MinDimension(self, e: ir.MinDimension) -> str:
        return rf"d \ge {e.value}"


_TEXT = TextPrinter()
_LATEX = LatexPrinter()


def text(e: Any) -> str:
    """One-line Unicode rendering of an IR node, relation, assumption or SymPy expression."""
    return _TEXT.doprint(e)


def latex(e: Any) -> str:
    """LaTeX rendering (math mode body, no delimiters)."""
    return _LATEX.doprint(e)
