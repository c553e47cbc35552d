"""The tree walk shared by the text and LaTeX printers.

- :class:`IRPrinting` — the mixin both printers inherit: parentheses by precedence, sums
  with their minus signs, Hadamard products, substitutions, relations, function calls, and
  the dispatch of defined nodes (:class:`lnsym.ir.nodes.Defined`).
- :func:`ir_precedence` and :func:`negated` — how tightly a node binds, and a node without
  its leading minus sign.
- :func:`split_product` — a product as sign, numerator and denominator, as both printers
  write fractions.
- ``ADD``, ``MUL``, ``POW``, ``ATOM`` — SymPy's precedence levels used by the printers.

>>> from lnsym import mean, var, vector
>>> z = vector("z")
>>> negated(-2 * var(z) * mean(z))
2·var(z)·mean(z)
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import sympy
from sympy.printing.precedence import PRECEDENCE, precedence

from lnsym import ir
from lnsym.ir import matrices as mx

ADD, MUL, POW, ATOM = (
    PRECEDENCE["Add"],
    PRECEDENCE["Mul"],
    PRECEDENCE["Pow"],
    PRECEDENCE["Atom"],
)
_ONE = ir.Const(sympy.Integer(1))


def ir_precedence(e: Any) -> int:
    """SymPy's precedence level of an IR node (constants: that of their value)."""
    if isinstance(e, ir.Const):
        return precedence(e.value)
    if isinstance(e, ir.VectorSum | ir.ScalarSum):
        return ADD
    if isinstance(e, ir.Scaled | ir.Hadamard | ir.ScalarProduct | ir.Substitution):
        return MUL
    if isinstance(e, ir.Power | mx.MatPower | mx.Transpose):
        return POW
    if isinstance(e, mx.MatSum):
        return ADD
    if isinstance(e, mx.MatScaled | mx.MatHadamard | mx.MatMul):
        return MUL
    return ATOM


def negated(e: ir.Expr) -> ir.Expr | None:
    """``-e`` without its minus sign when ``e`` is written with a leading minus, else None."""
    if isinstance(e, ir.Const) and e.value.could_extract_minus_sign():
        return ir.Const(-e.value)
    if isinstance(e, ir.Scaled):
        inner = negated(e.coefficient)
        if inner is not None:
            return e.vector if inner == _ONE else ir.Scaled(inner, e.vector)
    if isinstance(e, mx.MatScaled):
        inner = negated(e.coefficient)
        if inner is not None:
            return e.matrix if inner == _ONE else mx.MatScaled(inner, e.matrix)
    if isinstance(e, ir.ScalarProduct):
        # Printers pull numeric signs to the front, so any negative constant factor counts.
        for i, factor in enumerate(e.factors):
            inner = negated(factor) if isinstance(factor, ir.Const) else None
            if inner is not None:
                rest = e.factors[:i] + (() if inner == _ONE else (inner,)) + e.factors[i + 1 :]
                return rest[0] if len(rest) == 1 else ir.ScalarProduct(rest)
    return None


def split_product(factors: Iterable[ir.Expr]) -> tuple[str, list[ir.Expr], list[ir.Expr]]:
    """Sign, numerator and denominator factors of a product, numbers first.

    How both printers write a product as one fraction: a factor ``x^(-k)`` goes into the
    denominator as ``x^k``, a constant is split into its numerator and denominator, and
    the signs of the constants are gathered in front (``"-"`` or ``""``).

    >>> from lnsym import vector, dot, d
    >>> z = vector("z")
    >>> split_product((ir.Const(-2 / d), dot(z, z), dot(z, z) ** -1))
    ('-', [2, ⟨z, z⟩], [d, ⟨z, z⟩])
    """
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


@cache
def _defined_method(printer: type, node: type) -> str:
    """The printer's own ``_print_<Class>`` method for a defined node class.

    SymPy dispatches on class *names*, so a defined node called, say, ``Max`` or ``Trace``
    would reach SymPy's method for its own ``Max``; only methods of lnsym's printers count,
    and only for lnsym's own node classes: a user's node that happens to share a built-in
    layer's name (a toy ``RMSNorm``) is not printed by the method written for that layer.
    ``_print_Defined`` (the function-call form) is the fallback.
    """
    for cls in node.__mro__:
        if not cls.__module__.startswith("lnsym."):
            continue
        name = "_print_" + cls.__name__
        owner = next((k for k in printer.__mro__ if name in vars(k)), None)
        if owner is not None and owner.__module__.startswith("lnsym."):
            return name
    return "_print_Defined"


class IRPrinting:
    """The tree walk shared by the text and LaTeX printers; ``tokens`` tell them apart."""

    tokens: dict[str, str]
    _print_level: int

    def _print(self, expr: Any, **kwargs: Any) -> str:
        if isinstance(expr, ir.Defined):
            self._print_level += 1  # as SymPy's own dispatch does
            # Declared as plain ``type``: mypy does not count a ``type[X]`` as Hashable, which
            # the cache asks of its arguments (python/mypy#11470).
            printer: type = type(self)
            node: type = type(expr)
            try:
                return getattr(self, _defined_method(printer, node))(expr, **kwargs)
            finally:
                self._print_level -= 1
        return super()._print(expr, **kwargs)  # type: ignore[misc]

    def _precedence(self, e: Any) -> int:
        return ir_precedence(e)

    def _paren(self, e: Any, level: int, strict: bool = False) -> str:
        inner = self._print(e)
        p = self._precedence(e)
        if p < level or (strict and p <= level):
            return self.tokens["lparen"] + inner + self.tokens["rparen"]
        return inner

    def _sum(self, terms: tuple[ir.Expr, ...]) -> str:
        out = self._paren(terms[0], ADD)
        for t in terms[1:]:
            neg = negated(t)
            if neg is not None:
                out += " - " + self._paren(neg, ADD, strict=True)
            else:
                out += " + " + self._paren(t, ADD)
        return out

    def _print_VectorSum(self, e: ir.VectorSum) -> str:
        return self._sum(e.terms)

    def _print_ScalarSum(self, e: ir.ScalarSum) -> str:
        return self._sum(e.terms)

    def _print_Hadamard(self, e: ir.Hadamard) -> str:
        return self._paren(e.left, MUL) + self.tokens["hadamard"] + self._paren(e.right, MUL, True)

    def _print_Substitution(self, e: ir.Substitution) -> str:
        return self.tokens["subs"].format(
            expr=self._print(e.expr),
            target=self._print(e.target),
            value=self._print(e.value),
        )

    def _print_Eq(self, e: ir.Eq) -> str:
        return f"{self._print(e.lhs)} = {self._print(e.rhs)}"

    def _print_Le(self, e: ir.Le) -> str:
        return f"{self._print(e.lhs)}{self.tokens['le']}{self._print(e.rhs)}"

    def _call(self, name: str, *args: Any) -> str:
        inner = ", ".join(self._print(a) for a in args)
        return f"{name}{self.tokens['lparen']}{inner}{self.tokens['rparen']}"
