"""Printers for the IR: one-line Unicode text and LaTeX, as SymPy printer subclasses.

Both share the tree walk (:class:`_IRPrinting`) and differ only in tokens, so a new node
needs one ``_print_<Class>`` method per printer at most. Vectors are bold in LaTeX, the
ones vector is 𝟏, the Hadamard product ⊙, and ε is ``\\varepsilon``.

>>> from lnsym import vector, core, dot, ones, Eq
>>> z, h = vector("z"), vector("h")
>>> text(dot(core(z), h) - 1)
'⟨core(z), h⟩ - 1'
>>> print(latex(core(z + 3 * ones)))
u_{\\varepsilon}(\\mathbf{z} + 3 \\mathbf{1})

Reports abbreviate the quantities that the notation block defines for the input z:
q = q(z), s = √(q + ε), 𝐮 = u_ε(z), 𝐲 = LN_{γ,β}(z) and J = D u_ε(z). An abbreviation is
used only where it cannot be confused (see :func:`abbreviations_for`):

>>> from lnsym import jvp, norm, eps, var, Le
>>> bound = Le(norm(jvp(core(z), z, h)) ** 2, norm(h) ** 2 / eps)
>>> print(latex(bound, abbreviations=abbreviations_for(bound)))
\\lVert J \\mathbf{h} \\rVert^{2} \\le \\frac{\\lVert \\mathbf{h} \\rVert^{2}}{\\varepsilon}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from fractions import Fraction
from functools import lru_cache
from typing import Any

import sympy
from sympy.printing.conventions import split_super_sub
from sympy.printing.latex import LatexPrinter as _SympyLatexPrinter
from sympy.printing.precedence import PRECEDENCE, precedence
from sympy.printing.pretty.pretty_symbology import greek_unicode
from sympy.printing.str import StrPrinter

from lnsym.ir import nodes as ir
from lnsym.ir.calculus import Jvp, Vjp
from lnsym.ir.layers import Core, LayerNorm


class Math(str):
    """A LaTeX math body made by a printer of this package (never user text)."""

    __slots__ = ()


_ADD, _MUL, _POW, _ATOM = (
    PRECEDENCE["Add"],
    PRECEDENCE["Mul"],
    PRECEDENCE["Pow"],
    PRECEDENCE["Atom"],
)
_ONE = ir.Const(sympy.Integer(1))

#: The abbreviations a report may use, each defined in its notation block.
ABBREVIATIONS = frozenset({"q", "s", "u", "y", "J"})
#: The input atom that the abbreviations refer to, and the parameter atoms of 𝐲.
INPUT, GAIN, BIAS = ir.VectorAtom("z"), ir.VectorAtom("gamma"), ir.VectorAtom("beta")
_EPS = ir.Const(ir.eps)
_Q = ir.Var(INPUT)
_Q_PLUS_EPS = ir.ScalarSum((_Q, _EPS))
_U = Core(INPUT, _EPS)
_Y = LayerNorm(INPUT, GAIN, BIAS, _EPS)
_S = sympy.Symbol("s", positive=True)


def _ir_precedence(e: Any) -> int:
    if isinstance(e, ir.Const):
        return precedence(e.value)
    if isinstance(e, ir.VectorSum | ir.ScalarSum):
        return _ADD
    if isinstance(e, ir.Scaled | ir.Hadamard | ir.ScalarProduct | ir.Substitution):
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
            return e.vector if inner == _ONE else ir.Scaled(inner, e.vector)
    if isinstance(e, ir.ScalarProduct):
        # Printers pull numeric signs to the front, so any negative constant factor counts.
        for i, factor in enumerate(e.factors):
            inner = _negated(factor) if isinstance(factor, ir.Const) else None
            if inner is not None:
                rest = e.factors[:i] + (() if inner == _ONE else (inner,)) + e.factors[i + 1 :]
                return rest[0] if len(rest) == 1 else ir.ScalarProduct(rest)
    return None


class _IRPrinting:
    """The tree walk shared by the text and LaTeX printers."""

    tokens: dict[str, str]

    def _precedence(self, e: Any) -> int:
        return _ir_precedence(e)

    def _paren(self, e: Any, level: int, strict: bool = False) -> str:
        inner = self._print(e)  # type: ignore[attr-defined]
        p = self._precedence(e)
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
            expr=self._print(e.expr),  # type: ignore[attr-defined]
            target=self._print(e.target),  # type: ignore[attr-defined]
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


# ---------------------------------------------------------------------------------------
# Abbreviations


def _root_power(e: Any) -> sympy.Expr | None:
    """k for e = (q(z) + ε)^(k/2) with k odd, i.e. e = s^k; None otherwise."""
    if isinstance(e, ir.Power) and e.base == _Q_PLUS_EPS:
        k = 2 * e.exponent
        if k.is_Integer and k % 2 == 1:
            return k
    return None


def _is_square_norm(e: Any) -> bool:
    """⟨a, a⟩ is printed ‖a‖², except ⟨𝟏, 𝟏⟩ = d, which derivations refer to as such."""
    return isinstance(e, ir.Dot) and e.left == e.right and not isinstance(e.left, ir.Ones)


def _nodes(objects: Iterable[Any]) -> Iterator[Any]:
    for obj in objects:
        if isinstance(obj, ir.Expr):
            yield from ir.walk(obj)
        elif isinstance(obj, ir.Relation):
            yield from _nodes([obj.lhs, obj.rhs, *getattr(obj, "certificate", ())])
        elif isinstance(obj, ir.Assumption):
            yield from _nodes(getattr(obj, name) for name in obj.__dataclass_fields__)


def abbreviations_for(*objects: Any) -> frozenset[str]:
    """The abbreviations that may be used consistently across all of ``objects``.

    q, 𝐮 and 𝐲 stand for q(z), u_ε(z) and LN_{γ,β}(z) only when every variance, core and
    layer in the objects is exactly that one — so u_ε(z + c𝟏) = u_ε(z) is never written
    u_ε(z + c𝟏) = 𝐮. s and J name a single fixed quantity and are always allowed.

    Args:
        objects: IR expressions, relations and assumptions that are printed together
            (e.g. every line of a derivation).

    Returns:
        A subset of :data:`ABBREVIATIONS`.

    >>> from lnsym import vector, core, var, ones, scalar, Eq
    >>> z, c = vector("z"), scalar("c")
    >>> sorted(abbreviations_for(Eq(var(core(z)), var(z))))
    ['J', 's', 'u', 'y']
    >>> sorted(abbreviations_for(Eq(core(z + c * ones), core(z))))
    ['J', 'q', 's', 'y']
    """
    allowed = set(ABBREVIATIONS)
    for node in _nodes(objects):
        if isinstance(node, ir.Var) and node != _Q:
            allowed.discard("q")
        elif isinstance(node, Core) and node != _U:
            allowed.discard("u")
        elif isinstance(node, LayerNorm) and node != _Y:
            allowed.discard("y")
    return frozenset(allowed)


# ---------------------------------------------------------------------------------------
# LaTeX


class LatexPrinter(_IRPrinting, _SympyLatexPrinter):
    """LaTeX for reports: bold vectors, 𝟏, ⊙, ⟨·,·⟩, μ, q, P, u_ε, ε as ``\\varepsilon``.

    The output is valid for both LaTeX (amsmath, amssymb) and KaTeX, never contains a bare
    ``|`` (so it is safe inside Markdown tables), and avoids stacked fractions: a sum over
    b that holds a fraction is written ``\\frac{1}{b}(a)``, and a fraction inside another
    one is written inline as ``a/b``. Delimiters grow (``\\left(``) only around fractions;
    elsewhere plain ones keep function calls such as μ(z) tight.

    The setting ``abbreviations`` (a subset of :data:`ABBREVIATIONS`) turns on the short
    names of the report's notation block.
    """

    _default_settings = {**_SympyLatexPrinter._default_settings, "abbreviations": frozenset()}

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
        if e == _Q and self._short("q"):
            return "q"
        if e == _U and self._short("u"):
            return r"\mathbf{u}"
        if e == _Y and self._short("y"):
            return r"\mathbf{y}"
        if _root_power(e) == 1 and self._short("s"):
            return "s"
        return None

    def _precedence(self, e: Any) -> int:
        if self._abbreviated(e) is not None:
            return _ATOM
        if _is_square_norm(e):
            return _POW  # printed as a squared norm
        if isinstance(e, Jvp | Vjp) and e.expr == _U and e.wrt == INPUT and self._short("J"):
            return _MUL  # printed as a matrix-vector product
        return _ir_precedence(e)

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
    def _split(self, factors: Iterable[ir.Expr]) -> tuple[str, list[ir.Expr], list[ir.Expr]]:
        """Sign, numerator and denominator factors of a product, numbers first."""
        negative = False
        numerator: list[ir.Expr] = []
        denominator: list[ir.Expr] = []
        for f in factors:
            if isinstance(f, ir.Power) and f.exponent.is_negative:
                denominator.append(ir.power(f.base, -f.exponent))
            elif isinstance(f, ir.Const):
                num, den = sympy.fraction(f.value)
                if num.could_extract_minus_sign():
                    negative, num = not negative, -num
                if num != 1:
                    numerator.append(ir.Const(num))
                if den != 1:
                    denominator.append(ir.Const(den))
            else:
                numerator.append(f)

        def rank(x: ir.Expr) -> int:
            if isinstance(x, ir.Const):
                return 0 if x.value.is_number else 1
            return 2

        numerator.sort(key=rank)
        denominator.sort(key=rank)
        return ("-" if negative else ""), numerator, denominator

    def _product(self, factors: list[ir.Expr]) -> str:
        if len(factors) == 1:
            return self._print(factors[0])
        return " ".join(self._paren(f, _MUL, i > 0) for i, f in enumerate(factors))

    def _nested(self, factors: list[ir.Expr]) -> str:
        """A numerator or denominator, printed one fraction deeper."""
        self._depth += 1
        try:
            return self._product(factors)
        finally:
            self._depth -= 1

    def _inline_part(self, factors: list[ir.Expr], text: str) -> str:
        """One side of an inline a/b: parenthesized unless it is a single tight factor."""
        if len(factors) == 1 and self._precedence(factors[0]) > _MUL:
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
        if len(numerator) == 1 and self._precedence(numerator[0]) == _ADD:
            num = self._product(numerator)
            if r"\frac" in num:
                # a sum over b that holds fractions: (1/b)·(sum), not a fraction in a fraction
                return rf"{sign}\frac{{1}}{{{self._nested(denominator)}}} \left({num}\right)"
        num = self._nested(numerator) if numerator else "1"
        return rf"{sign}\frac{{{num}}}{{{self._nested(denominator)}}}"

    def _print_ScalarProduct(self, e: ir.ScalarProduct) -> str:
        return self._fraction(*self._split(e.factors))

    def _print_Scaled(self, e: ir.Scaled) -> str:
        vector = e.vector
        if isinstance(e.coefficient, ir.Const) and e.coefficient.value == 0:
            return r"\mathbf{0}"
        factors = (
            e.coefficient.factors
            if isinstance(e.coefficient, ir.ScalarProduct)
            else (e.coefficient,)
        )
        sign, numerator, denominator = self._split(factors)
        if denominator and not numerator:
            if self._precedence(vector) <= _ADD:
                inner = self._print(vector)
                one_over = self._fraction("", [], denominator)
                # beside a fraction the parentheses grow to its height
                return rf"{sign}{one_over} \left( {inner} \right)"
            return self._fraction(sign, [vector], denominator)
        if not numerator and not denominator:
            return sign + self._paren(vector, _MUL, True)
        if denominator:
            coefficient = self._fraction(sign, numerator, denominator)
        elif len(numerator) == 1:
            coefficient = sign + self._paren(numerator[0], _MUL)
        else:
            coefficient = sign + self._product(numerator)
        return coefficient + " " + self._paren(vector, _MUL, True)

    def _print_Power(self, e: ir.Power) -> str:
        k = _root_power(e)
        if k is not None and self._short("s"):
            s_k = ir.Const(_S if abs(k) == 1 else _S ** abs(k))
            return self._fraction("", [], [s_k]) if k < 0 else self._print(s_k)
        exponent = e.exponent
        if exponent.is_negative:
            return self._fraction("", [], [ir.power(e.base, -exponent)])
        if exponent == sympy.Rational(1, 2):
            return rf"\sqrt{{{self._print(e.base)}}}"
        return f"{self._paren(e.base, _POW, True)}^{{{self._print(exponent)}}}"

    # -- inner products, statistics, layers ----------------------------------------
    def _print_Dot(self, e: ir.Dot) -> str:
        if _is_square_norm(e):
            return rf"{self._print(ir.Norm(e.left))}^{{2}}"
        inner = f"{self._print(e.left)}, {self._print(e.right)}"
        return self._wrap(inner, r"\langle ", r" \rangle")

    def _print_Mean(self, e: ir.Mean) -> str:
        return self._call(r"\mu", e.arg)

    def _print_Var(self, e: ir.Var) -> str:
        return self._call("q", e.arg)

    def _print_Center(self, e: ir.Center) -> str:
        return "P " + self._paren(e.arg, _ATOM)

    def _print_Norm(self, e: ir.Norm) -> str:
        return self._wrap(self._print(e.arg), r"\lVert ", r" \rVert")

    def _print_Core(self, e: Any) -> str:
        return self._call(f"u_{{{self._print(e.eps)}}}", e.arg)

    def _print_LayerNorm(self, e: Any) -> str:
        sub = f"{self._print(e.gain)}, {self._print(e.bias)}"
        if e.eps != ir.Const(ir.eps):
            sub += f"; {self._print(e.eps)}"
        return self._call(rf"\operatorname{{LN}}_{{{sub}}}", e.arg)

    # -- derivatives ------------------------------------------------------------------
    def _jacobian_of_core(self, e: Any) -> bool:
        return e.expr == _U and e.wrt == INPUT and self._short("J")

    def _print_Jvp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return "J " + self._paren(e.direction, _ATOM)
        return (
            rf"D_{{{self._print(e.wrt)}}}"
            + self._wrap(self._print(e.expr), "[", "]")
            + self._wrap(self._print(e.direction), "(", ")")
        )

    def _print_Vjp(self, e: Any) -> str:
        if self._jacobian_of_core(e):
            return r"J^{\mathsf{T}} " + self._paren(e.cotangent, _ATOM)
        inner = f"{self._print(e.cotangent)}, {self._print(e.expr)}"
        return rf"\nabla_{{{self._print(e.wrt)}}} " + self._wrap(inner, r"\langle ", r" \rangle")

    def _print_Grad(self, e: Any) -> str:
        return rf"\nabla_{{{self._print(e.wrt)}}} " + self._wrap(self._print(e.expr), "(", ")")

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


_TEXT = TextPrinter()


@lru_cache(maxsize=64)
def _latex_printer(abbreviations: frozenset[str]) -> LatexPrinter:
    return LatexPrinter({"abbreviations": abbreviations})


def text(e: Any) -> str:
    """One-line Unicode rendering of an IR node, relation, assumption or SymPy expression."""
    return _TEXT.doprint(e)


def latex(e: Any, abbreviations: Iterable[str] = ()) -> str:
    """LaTeX rendering (math mode body, no delimiters).

    Args:
        e: an IR node, relation, assumption or SymPy expression.
        abbreviations: short names to use (see :func:`abbreviations_for`); none by default.

    >>> from lnsym import vector, dot, ones, d
    >>> z = vector("z")
    >>> print(latex(dot(ones, z) / d))
    \\frac{\\langle \\mathbf{1}, \\mathbf{z} \\rangle}{d}
    """
    return _latex_printer(frozenset(abbreviations)).doprint(e)


def latex_value(value: Any) -> str:
    """LaTeX for an exact value found in evidence: a number, a vector of numbers, an IR node.

    Args:
        value: an int, Fraction, SymPy expression, IR node, or a list/tuple of these.

    Returns:
        A math-mode body; a list becomes a parenthesized tuple.

    Raises:
        TypeError: for floats (inexact) and other types, which callers show as text.

    >>> from fractions import Fraction
    >>> print(latex_value([1, Fraction(-2, 3)]))
    \\left( 1, - \\frac{2}{3} \\right)
    """
    if isinstance(value, bool):
        raise TypeError("booleans are text")
    if isinstance(value, list | tuple):
        return LatexPrinter._wrap(", ".join(latex_value(v) for v in value), "(", ")")
    if isinstance(value, int):
        return latex(sympy.Integer(value))
    if isinstance(value, Fraction):
        return latex(sympy.Rational(value.numerator, value.denominator))
    if isinstance(value, sympy.Basic | ir.Expr | ir.Relation):
        return latex(value)
    raise TypeError(f"no exact LaTeX form for {type(value).__name__}")


def latex_chain(
    start: Any, steps: Iterable[tuple[str, Any]], abbreviations: Iterable[str] = ()
) -> str:
    """A derivation start = e₁ ≤ e₂ … as an ``aligned`` block, each relation numbered.

    Args:
        start: the first expression.
        steps: ``(relation, expression)`` pairs, the relation ``"="`` or ``"≤"``.
        abbreviations: as for :func:`latex`.

    Raises:
        ValueError: for another relation.

    >>> from lnsym import vector, mean, ones, dot, d
    >>> z = vector("z")
    >>> print(latex_chain(mean(z), [("=", dot(ones, z) / d)]))
    \\begin{aligned}
    \\mu(\\mathbf{z}) &\\overset{(1)}{=} \\frac{\\langle \\mathbf{1}, \\mathbf{z} \\rangle}{d}
    \\end{aligned}
    """
    relations = {"=": "=", "≤": r"\le", "<=": r"\le"}
    lines = []
    for i, (relation, e) in enumerate(steps, 1):
        if relation not in relations:
            raise ValueError(f"unknown relation {relation!r}")
        lhs = latex(start, abbreviations) + " " if i == 1 else ""
        lines.append(f"{lhs}&\\overset{{({i})}}{{{relations[relation]}}} {latex(e, abbreviations)}")
    # a little air between lines: fractions in consecutive lines would touch
    return "\\begin{aligned}\n" + " \\\\[0.5ex]\n".join(lines) + "\n\\end{aligned}"


def notation() -> list[tuple[str, str]]:
    """The notation block of a report: (LaTeX formula, plain-text explanation) pairs.

    Each formula defines one abbreviation of :data:`ABBREVIATIONS` (or a name the others
    use) in terms of the full IR, printed by this module, so the block and the report can
    never disagree.

    >>> print(notation()[4][0])
    s = \\sqrt{q + \\varepsilon}
    """
    z, h, g = INPUT, ir.VectorAtom("h"), ir.VectorAtom("g")
    every = ABBREVIATIONS
    s = ir.Power(_Q_PLUS_EPS, sympy.Rational(1, 2))
    return [
        (
            r"\mathbf{z} \in \mathbb{R}^{d}, \quad d \ge 1, \quad \varepsilon > 0",
            "the input, its dimension and the stabilizer; bold letters are vectors",
        ),
        (
            latex(ir.Eq(ir.Mean(z), ir.dot(ir.ones, z) / ir.d)),
            "the mean of the d coordinates of z; 𝟏 is the all-ones vector and ⊙ the "
            "coordinatewise (Hadamard) product",
        ),
        (
            r"P = I - \frac{1}{d} \mathbf{1} \mathbf{1}^{\mathsf{T}}, \quad "
            + latex(ir.Eq(ir.Center(z), z - ir.Mean(z) * ir.ones)),
            "centering: the orthogonal projection onto the vectors with mean zero",
        ),
        (
            latex(_Q, every) + " = " + latex(ir.Eq(_Q, ir.Norm(ir.Center(z)) ** 2 / ir.d)),
            "the variance of the coordinates (divisor d)",
        ),
        (
            latex(s, every) + " = " + latex(s, {"q"}),
            "the stabilized standard deviation, with the stabilizer ε > 0",
        ),
        (
            latex(_U, every) + " = " + latex(_U) + " = " + latex(_U.definition(), {"s"}),
            "the normalized core",
        ),
        (
            latex(_Y, every) + " = " + latex(_Y) + " = " + latex(_Y.definition(), {"u"}),
            "the layer output with gain γ and bias β",
        ),
        (
            latex(Jvp(_U, z, h), every) + " = " + latex(Jvp(_U, z, h)),
            "J is the Jacobian of the core at z; D_z[f](h) is the derivative of f along h, "
            "d/dt f(z + t·h) at t = 0",
        ),
        (
            latex(Vjp(_U, z, g), every) + " = " + latex(Vjp(_U, z, g)),
            "∇_a⟨g, f⟩ is the gradient with respect to a of the scalar ⟨g, f⟩: the upstream "
            "gradient g propagated back through f",
        ),
    ]


def latex_certificate(terms: Iterable[Any], abbreviations: Iterable[str] = ()) -> list[str]:
    """The terms t₁, t₂, … of an inequality certificate as ``t_{k} = …`` formulas.

    >>> from lnsym import vector, norm, eps
    >>> latex_certificate([norm(vector("h")) ** 2 / eps])
    ['t_{1} = \\\\frac{\\\\lVert \\\\mathbf{h} \\\\rVert^{2}}{\\\\varepsilon}']
    """
    return [f"t_{{{k}}} = {latex(t, abbreviations)}" for k, t in enumerate(terms, 1)]
