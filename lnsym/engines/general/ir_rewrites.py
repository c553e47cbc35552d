"""Rewrites of IR expressions before they are normalized: the chain rule, symbol values.

Holds :func:`chain_rule` (derivatives of compositions, so a chain rule stated as a claim is
decided without normalizing the whole composition), :func:`_replace_symbol` (a scalar
symbol replaced by a constant throughout the IR) and :func:`_rebuild`, which both use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields as dataclass_fields
from dataclasses import replace as dataclass_replace
from typing import Any

import sympy

from lnsym import ir
from lnsym.errors import ExpressionError, UnsupportedError
from lnsym.ir.calculus import Jvp


def chain_rule(e: ir.Expr) -> ir.Expr:
    """``e`` with every derivative of a composition rewritten by the chain rule:

    D_z[F|_{y=G}](h) = (D_y F[D_z G(h)] + D_z F(h))|_{y=G}

    for a vector atom y ≠ z that occurs in neither G nor h (the second term only when F
    itself contains z). Both sides of a claim are rewritten alike, so a chain rule stated
    as a claim is decided without normalizing the whole composition.

    >>> from lnsym import vector, core
    >>> z, y, h = vector("z"), vector("y"), vector("h")
    >>> chain_rule(Jvp(core(y).subs(y, core(z)), z, h))
    D_y[core(y)](D_z[core(z)](h))|_{y=core(z)}
    """

    def rewrite(x: Any) -> Any:
        if not isinstance(x, ir.Expr):
            return x
        x = _rebuild(x, rewrite)
        match x:
            case Jvp(
                expr=ir.Substitution(expr=f, target=ir.VectorAtom() as y, value=g),
                wrt=z,
                direction=h,
            ) if y != z and y.name not in ir.vector_atoms(g) | ir.vector_atoms(h):
                body: ir.Expr = Jvp(f, y, Jvp(g, z, h))
                if z.name in ir.vector_atoms(f):
                    body = ir.add(body, Jvp(f, z, h))
                return ir.Substitution(body, y, g)
        return x

    return rewrite(e)


def _replace_symbol(e: ir.Expr, sym: sympy.Symbol, value: sympy.Expr) -> ir.Expr:
    """``e`` with the scalar symbol replaced by a constant in every node (an inner
    substitution for the same symbol binds it: only its value is rewritten).

    Raises:
        UnsupportedError: when a constant is not real at the value (√ε at ε = −1).
    """

    def rewrite(x: Any) -> Any:
        if isinstance(x, sympy.Basic):
            return x.xreplace({sym: value})
        if not isinstance(x, ir.Expr):
            return x
        if isinstance(x, ir.Substitution) and x.target == ir.Const(sym):
            return ir.Substitution(x.expr, x.target, rewrite(x.value))
        return _rebuild(x, rewrite)

    try:
        return rewrite(e)
    except ExpressionError as exc:
        raise UnsupportedError(f"at {sym} = {value}: {exc}") from exc


def _rebuild(e: ir.Expr, fn: Callable[[Any], Any]) -> ir.Expr:
    """``e`` with ``fn`` applied to each of its fields (to each item of a tuple field)."""
    changes = {
        f.name: tuple(map(fn, v)) if isinstance(v, tuple) else fn(v)
        for f in dataclass_fields(e)  # type: ignore[arg-type]
        for v in (getattr(e, f.name),)
    }
    return dataclass_replace(e, **changes)  # type: ignore[type-var]  # IR nodes are dataclasses
