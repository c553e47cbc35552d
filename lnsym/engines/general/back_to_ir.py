"""Back from normal forms to IR expressions (for display, and to test idempotence).

Holds :func:`to_expr`, whose result normalizes to the form it was given; power sums become
dot products and roots become powers ½.
"""

from __future__ import annotations

import itertools
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
    if f.is_Pow and not has_special(f.exp):
        return ir.power(_scalar_expr(f.base), f.exp)
    return _applied(f)


def _applied(f: sympy.Expr) -> ir.Expr:
    """A function of parts that hold power sums or roots (exp(S[z]/d), S[z]^S[h]): the
    function of fresh real symbols, evaluated at those parts — each symbol named unlike any
    of ``f``'s, so that none is captured.

    Raises:
        UnsupportedError: for an expression without arguments to split.
    """
    if not f.args:
        raise UnsupportedError(f"cannot express {f} in the IR")
    taken = {s.name for s in f.free_symbols}
    names = (name for k in itertools.count() if (name := f"t{k}") not in taken)
    args, bound = [], []
    for arg in f.args:
        if has_special(arg):
            t = sympy.Symbol(next(names), real=True)
            args.append(t)
            bound.append((t, _scalar_expr(arg)))
        else:
            args.append(arg)
    out: ir.Expr = ir.Const(f.func(*args))
    for t, value in bound:
        out = ir.Substitution(out, ir.Const(t), value)
    return out
