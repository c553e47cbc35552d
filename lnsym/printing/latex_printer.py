r"""The LaTeX printer: the IR as math-mode LaTeX for reports, KaTeX and Jupyter.

- :class:`LatexPrinter` — a SymPy ``LatexPrinter`` with bold vectors, 𝟏, ⊙, ⟨·,·⟩, μ, q,
  P, u_ε, ``\varepsilon``; products as single fractions; the report's abbreviations.
- :func:`latex` — the printer as a function, one cached printer per set of abbreviations.
- :class:`Math` — the type of LaTeX made here, as reports carry it.

A defined node without a method of its own is typeset as a function call named by
:data:`~lnsym.printing.notation.LATEX_NAMES` (else ``\operatorname{symbol}``).

>>> from lnsym import vector, core, ones, mean
>>> z = vector("z")
>>> print(latex(core(z + 3 * ones)))
u_{\varepsilon}(\mathbf{z} + 3 \mathbf{1})
>>> print(latex(mean(z / 2)))
\mu\left( \frac{\mathbf{z}}{2} \right)
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Any

import sympy
from sympy.printing.conventions import split_super_sub
from sympy.printing.latex import LatexPrinter as _SympyLatexPrinter

from lnsym import ir
from lnsym.ir.calculus import Jvp, Vjp
from lnsym.printing.base import ADD, ATOM, MUL, POW, IRPrinting, ir_precedence, split_product
from lnsym.printing.matrix_printing import MATRIX_TOKENS, MatrixPrinting
from lnsym.printing.notation import (
    S,
    abbreviation,
    is_core_jacobian,
    is_square_norm,
    latex_name,
    root_power,
)


class Math(str):
    """A LaTeX math body made by a printer of this package (never user text)."""

    __slots__ = ()


class LatexPrinter(MatrixPrinting, IRPrinting, _SympyLatexPrinter):
    """LaTeX for reports: bold vectors, 𝟏, ⊙, ⟨·,·⟩, μ, q, P, u_ε, ε as ``\\varepsilon``.

    The output is valid for both LaTeX (amsmath, amssymb) and KaTeX, never contains a bare
    ``|`` (so it is safe inside Markdown tables), and avoids stacked fractions: a sum over
    b that holds a fraction is written ``\\frac{1}{b}(a)``, and a fraction inside another
    one is written inline as ``a/b``. Delimiters grow (``\\left(``) only around fractions;
    elsewhere plain ones keep function calls such as μ(z) tight.

    The setting ``abbreviations`` (a subset of
    :data:`~lnsym.printing.notation.ABBREVIATIONS`) turns on the short names of the
    report's notation block.
    """

    _default_settings = {**_SympyLatexPrinter._default_settings, "abbreviations": frozenset()}

    matrix_tokens = MATRIX_TOKENS["latex"]
    tokens = {
        "lparen": "(",
        "rparen": ")",
        "hadamard": r" \odot ",
        "subs": r"\left. {expr} \right\vert_{{{target} = {value}}}",
        "le": r" \le ",
    }

    def __init__(self, settings: dict[str, Any] | None = None) -> None:
        super().__init__(settings)
        self._depth = 0  # how many fractions enclose the node being printed

    def _short(self, name: str) -> bool:
        return name in self._settings["abbreviations"]

    @staticmethod
    def _wrap(inner: str, left: str, right: str) -> str:
        """``inner`` between delimiters, growing ones when it holds a fraction."""
        if r"\frac" in inner or r"\left" in inner:
            return rf"\left{left.strip()} {inner} \right{right.strip()}"
        return f"{left}{inner}{right}"

    def _paren(self, e: Any, level: int, strict: bool = False) -> str:
        inner = self._print(e)
        p = self._precedence(e)
        if p < level or (strict and p <= level):
            return self._wrap(inner, "(", ")")
        return inner

    def _call(self, name: str, *args: Any) -> str:
        return name + self._wrap(", ".join(self._print(a) for a in args), "(", ")")

    def _abbreviated(self, e: Any) -> str | None:
        """The short name of ``e`` when an active abbreviation covers it."""
        short = abbreviation(e, self._settings["abbreviations"])
        if short in ("u", "y"):
            return rf"\mathbf{{{short}}}"
        return short

    def _precedence(self, e: Any) -> int:
        if self._abbreviated(e) is not None:
            return ATOM
        if is_square_norm(e):
            return POW  # printed as a squared norm
        if isinstance(e, Jvp | Vjp) and self._jacobian_of_core(e):
            return MUL  # printed as a matrix-vector product
        return ir_precedence(e)

    def _print(self, expr: Any, **kwargs: Any) -> str:
        short = self._abbreviated(expr)
        if short is not None:
            return short
        return super()._print(expr, **kwargs)

    def _print_Symbol(self, e: sympy.Symbol, style: str = "plain") -> str:
        if e.name == "epsilon":
            return r"\varepsilon"
        return super()._print_Symbol(e, style=style)

    def _print_VectorAtom(self, e: ir.VectorAtom) -> str:
        # Bold only the letter: g1 is \mathbf{g}_{1}, not a bold subscript.
        stem = e.name.rstrip("'")
        name, supers, subs = split_super_sub(stem)
        body = _SympyLatexPrinter._print_Symbol(self, sympy.Symbol(name))
        bold = r"\boldsymbol" if body.startswith("\\") else r"\mathbf"
        out = f"{bold}{{{body}}}"
        if subs:
            out += "_{" + " ".join(subs) + "}"
        if supers:
            out += "^{" + " ".join(supers) + "}"
        return out + "'" * (len(e.name) - len(stem))

    def _print_Ones(self, e: ir.Ones) -> str:
        return r"\mathbf{1}"

    def _print_Const(self, e: ir.Const) -> str:
        return self._print(e.value)

    # -- products and fractions -------------------------------------------------------
    def _product(self, factors: list[ir.Expr]) -> str:
        if len(factors) == 1:
            return self._print(factors[0])
        return " ".join(self._paren(f, MUL, i > 0) for i, f in enumerate(factors))

    def _nested(self, factors: list[ir.Expr]) -> str:
        """A numerator or denominator, printed one fraction deeper."""
        self._depth += 1
        try:
            return self._product(factors)
        finally:
            self._depth -= 1

    def _inline_part(self, factors: list[ir.Expr], text: str) -> str:
        """One side of an inline a/b: parenthesized unless it is a single tight factor."""
        if len(factors) == 1 and self._precedence(factors[0]) > MUL:
            return text
        return self._wrap(text, "(", ")")

    def _fraction(self, sign: str, numerator: list[ir.Expr], denominator: list[ir.Expr]) -> str:
        if not denominator:
            return sign + (self._product(numerator) if numerator else "1")
        if self._depth:
            num = self._nested(numerator) if numerator else "1"
            den = self._nested(denominator)
            return (
                f"{sign}{self._inline_part(numerator, num) if numerator else '1'}"
                f"/{self._inline_part(denominator, den)}"
            )
        if len(numerator) == 1 and self._precedence(numerator[0]) == ADD:
            num = self._product(numerator)
            if r"\frac" in num:
                # a sum over b that holds fractions: (1/b)·(sum), not a fraction in a fraction
                return rf"{sign}\frac{{1}}{{{self._nested(denominator)}}} \left({num}\right)"
        num = self._nested(numerator) if numerator else "1"
        return rf"{sign}\frac{{{num}}}{{{self._nested(denominator)}}}"

    def _print_ScalarProduct(self, e: ir.ScalarProduct) -> str:
        return self._fraction(*split_product(e.factors))

    def _print_Scaled(self, e: ir.Scaled) -> str:
        vector = e.vector
        if isinstance(e.coefficient, ir.Const) and e.coefficient.value == 0:
            return r"\mathbf{0}"
        factors = (
            e.coefficient.factors
            if isinstance(e.coefficient, ir.ScalarProduct)
            else (e.coefficient,)
        )
        sign, numerator, denominator = split_product(factors)
        if denominator and not numerator:
            if self._precedence(vector) <= ADD:
                inner = self._print(vector)
                one_over = self._fraction("", [], denominator)
                # beside a fraction the parentheses grow to its height
                return rf"{sign}{one_over} \left( {inner} \right)"
            return self._fraction(sign, [vector], denominator)
        if not numerator and not denominator:
            return sign + self._paren(vector, MUL, True)
        if denominator:
            coefficient = self._fraction(sign, numerator, denominator)
        elif len(numerator) == 1:
            coefficient = sign + self._paren(numerator[0], MUL)
        else:
            coefficient = sign + self._product(numerator)
        return coefficient + " " + self._paren(vector, MUL, True)

    def _print_Power(self, e: ir.Power) -> str:
        k = root_power(e)
        if k is not None and self._short("s"):
            s_k = ir.Const(S if abs(k) == 1 else S ** abs(k))
            return self._fraction("", [], [s_k]) if k < 0 else self._print(s_k)
        exponent = e.exponent
        if exponent.is_negative:
            return self._fraction("", [], [ir.power(e.base, -exponent)])
        if exponent == sympy.Rational(1, 2):
            return rf"\sqrt{{{self._print(e.base)}}}"
        return f"{self._paren(e.base, POW, True)}^{{{self._print(exponent)}}}"

    # -- inner products, statistics, layers ----------------------------------------
    def _print_Dot(self, e: ir.Dot) -> str:
        if is_square_norm(e):
            return rf"{self._print(ir.Norm(e.left))}^{{2}}"
        inner = f"{self._print(e.left)}, {self._print(e.right)}"
        return self._wrap(inner, r"\langle ", r" \rangle")

    def _print_Defined(self, e: ir.Defined) -> str:
        """A defined node without a method of its own, μ(a) and q(a) among them.

        Written ``name(child₁, child₂, …)``, the name from :data:`~.notation.LATEX_NAMES`.
        """
        return self._call(latex_name(e), *e.children())

    def _print_Center(self, e: ir.Center) -> str:
        return "P " + self._paren(e.arg, ATOM)

    def _print_Norm(self, e: ir.Norm) -> str:
        return self._wrap(self._print(e.arg), r"\lVert ", r" \rVert")

    def _print_Core(self, e: Any) -> str:
        return self._call(f"u_{{{self._print(e.eps)}}}", e.arg)

    def _print_LayerNorm(self, e: Any) -> str:
        sub = f"{self._print(e.gain)}, {self._print(e.bias)}"
        if e.eps != ir.Const(ir.eps):
            sub += f"; {self._print(e.eps)}"
        return self._call(rf"\operatorname{{LN}}_{{{sub}}}", e.arg)

    def _print_RMSNorm(self, e: Any) -> str:
        return self._call(rf"\operatorname{{RMS}}_{{{self._print(e.eps)}}}", e.arg)

    # -- derivatives ------------------------------------------------------------------
    def _jacobian_of_core(self, e: Any) -> bool:
        return is_core_jacobian(e, self._settings["abbreviations"])

    def _print_Jvp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return "J " + self._paren(e.direction, ATOM)
        return (
            rf"D_{{{self._print(e.wrt)}}}"
            + self._wrap(self._print(e.expr), "[", "]")
            + self._wrap(self._print(e.direction), "(", ")")
        )

    def _print_Vjp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return r"J^{\mathsf{T}} " + self._paren(e.cotangent, ATOM)
        inner = f"{self._print(e.cotangent)}, {self._print(e.expr)}"
        return rf"\nabla_{{{self._print(e.wrt)}}} " + self._wrap(inner, r"\langle ", r" \rangle")

    def _print_Grad(self, e: Any) -> str:
        return rf"\nabla_{{{self._print(e.wrt)}}} " + self._wrap(self._print(e.expr), "(", ")")

    def _print_Diff(self, e: Any) -> str:
        return rf"\partial_{{{self._print(e.wrt)}}} " + self._wrap(self._print(e.expr), "[", "]")

    def _print_OperatorNorm(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return r"\lVert J \rVert_{2}"
        inner = rf"D_{{{self._print(e.wrt)}}}" + self._wrap(self._print(e.expr), "[", "]")
        return self._wrap(inner, r"\lVert ", r" \rVert") + "_{2}"

    # -- assumptions ------------------------------------------------------------------
    def _print_FixedDimension(self, e: ir.FixedDimension) -> str:
        return rf"d = {e.value}"

    def _print_Centered(self, e: ir.Centered) -> str:
        return rf"\mu({self._print(e.atom)}) = 0"

    def _print_Orthogonal(self, e: ir.Orthogonal) -> str:
        return rf"\langle {self._print(e.left)}, {self._print(e.right)} \rangle = 0"

    def _print_Nonconstant(self, e: ir.Nonconstant) -> str:
        return rf"{self._print(e.atom)} \notin \mathbb{{R}}\mathbf{{1}}"

    def _print_MinDimension(self, e: ir.MinDimension) -> str:
        return rf"d \ge {e.value}"


@lru_cache(maxsize=64)
def _latex_printer(abbreviations: frozenset[str]) -> LatexPrinter:
    return LatexPrinter({"abbreviations": abbreviations})


def latex(e: Any, abbreviations: Iterable[str] = ()) -> str:
    """LaTeX rendering (math mode body, no delimiters).

    Args:
        e: an IR node, relation, assumption or SymPy expression.
        abbreviations: short names to use (see
            :func:`~lnsym.printing.notation.abbreviations_for`); none by default.

    >>> from lnsym import vector, dot, ones, d
    >>> z = vector("z")
    >>> print(latex(dot(ones, z) / d))
    \\frac{\\langle \\mathbf{1}, \\mathbf{z} \\rangle}{d}
    """
    return _latex_printer(frozenset(abbreviations)).doprint(e)
