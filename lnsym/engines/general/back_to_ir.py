"""Back from normal forms to IR expressions (for display, and to test idempotence).

Holds :func:`to_expr`, whose result normalizes to the form it was given; power sums become
dot products and roots become powers ½.
"""

from __future__ import annotations

from functools import reduce

import sympy

from lnsym import ir
from lnsym.engines.general.symbols import Monomial, PowerSum, Root, has_special
from lnsym.engines.general.vector_form import Form, VectorForm
from lnsym.errors import UnsupportedError


def to_expr(f: Form) -> ir.Expr:
    """An IR expression whose normal form is ``f``."""
    if isinstance(f, VectorForm):
        if not f.terms:
            return ir.Scaled(ir.Const(sympy.Integer(0)), ir.Ones())
        return reduce(ir.add, (ir.multiply(_scalar_expr(c), _monomial_expr(m)) for m, c in f.terms))
    return _scalar_expr(f)


def _monomial_expr(m: Monomial) -> ir.Expr:
    if not m:
        return ir.Ones()
    out: ir.Expr = ir.VectorAtom(m[0])
    for a in m[1:]:
        out = ir.Hadamard(out, ir.VectorAtom(a))
    return out


def _scalar_expr(f: sympy.Expr) -> ir.Expr:
    if not has_special(f):
        return ir.Const(f)
    if f.is_Symbol:
        if isinstance(f, Root):
            return ir.Power(_scalar_expr(f.radicand), sympy.Rational(1, 2))
        assert isinstance(f, PowerSum)
        m = f.monomial
        if len(m) == 1:
            return ir.Dot(ir.Ones(), ir.VectorAtom(m[0]))
        return ir.Dot(ir.VectorAtom(m[0]), _monomial_expr(m[1:]))
    if f.is_Add or f.is_Mul:
        # Keep the parts free of power sums and roots together as one constant.
        parts = f.as_ordered_terms() if f.is_Add else f.as_ordered_factors()
        plain = f.func(*(p for p in parts if not has_special(p)))
        nodes = [_scalar_expr(p) for p in parts if has_special(p)]
        if plain != f.func.identity:
            nodes.insert(0, ir.Const(plain))
        return (ir.ScalarSum if f.is_Add else ir.ScalarProduct)(tuple(nodes))
    if f.is_Pow:
        return ir.power(_scalar_expr(f.base), f.exp)
    raise UnsupportedError(f"cannot express {f} in the IR")
