"""Rewrites of IR expressions before they are normalized: the chain rule, symbol values.

Holds :func:`chain_rule` (derivatives of compositions, so a chain rule stated as a claim is
decided without normalizing the whole composition), :func:`_replace_symbol` (a scalar
symbol replaced by a constant throughout the IR, never inside a binder it would change)
and :func:`_rebuild`, which both use.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import fields as dataclass_fields
from dataclasses import replace as dataclass_replace
from typing import Any

import sympy

from lnsym import ir
from lnsym.errors import ExpressionError, UnsupportedError
from lnsym.ir.calculus import Diff, Jvp
from lnsym.ir.written import written


def chain_rule(e: ir.Expr) -> ir.Expr:
    """``e`` with every derivative of a composition rewritten by the chain rule:

    D_z[F|_{y=G}](h) = (D_y F[D_z G(h)] + D_z F(h))|_{y=G}

    for a vector atom y ≠ z that occurs in neither G nor h (the second term only when F
    itself contains z), and likewise for a derivative with respect to a scalar symbol a:

    ∂_a[F|_{y=G}] = (D_y F[∂_a G] + ∂_a F)|_{y=G}

    for a vector atom y that does not occur in G (the second term only when F mentions a).
    Both sides of a claim are rewritten alike, so a chain rule stated as a claim is decided
    without normalizing the whole composition.

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
            case Diff(
                expr=ir.Substitution(expr=f, target=ir.VectorAtom() as y, value=g), wrt=a
            ) if y.name not in ir.vector_atoms(g):
                body = Jvp(f, y, Diff(g, a))
                if a.value in _symbols(f):
                    body = ir.add(body, Diff(f, a))
                return ir.Substitution(body, y, g)
        return x

    return rewrite(e)


def _symbols(e: ir.Expr) -> set[sympy.Symbol]:
    """Every scalar symbol written in ``e`` (bound by a substitution or not; a defined node's
    definition uses none that its fields do not hold: lnsym.ir.written)."""
    return set(written(e).symbols)


def _replace_symbol(e: ir.Expr, sym: sympy.Symbol, value: sympy.Expr) -> ir.Expr:
    """``e`` with the scalar symbol replaced by a constant in every node (an inner
    substitution for the same symbol binds it: only its value is rewritten).

    A derivative is a function of the symbol it is taken with respect to, so it is not
    rewritten inside: (∂_w f)|_{sym=value} is written (∂_w f[sym := t])|_{t=value} for a
    fresh real symbol t when w is sym or occurs in the value (∂_ε f at ε = 0 is not ∂_ε of
    f at ε = 0), and so is an inner substitution for a symbol w of the value (which would
    capture it).

    Raises:
        UnsupportedError: when a constant is not real at the value (√ε at ε = −1).
    """
    inside = value.free_symbols

    def rewrite(x: Any) -> Any:
        if isinstance(x, sympy.Basic):
            return x.xreplace({sym: value})
        if not isinstance(x, ir.Expr):
            return x
        if isinstance(x, ir.Substitution) and x.target == ir.Const(sym):
            return ir.Substitution(x.expr, x.target, rewrite(x.value))
        if isinstance(x, Diff) and (x.wrt.value == sym or x.wrt.value in inside):
            t = _fresh(sym, e, value)
            wrt = ir.Const(t) if x.wrt.value == sym else x.wrt
            return _evaluated(Diff(_replace_symbol(x.expr, sym, t), wrt), t, value)
        if (
            isinstance(x, ir.Substitution)
            and isinstance(x.target, ir.Const)
            and x.target.value in inside
        ):
            t = _fresh(sym, e, value)
            inner = ir.Substitution(_replace_symbol(x.expr, sym, t), x.target, rewrite(x.value))
            return _evaluated(inner, t, value)
        return _rebuild(x, rewrite)

    try:
        return rewrite(e)
    except ExpressionError as exc:
        raise UnsupportedError(f"at {sym} = {value}: {exc}") from exc


def _fresh(sym: sympy.Symbol, e: ir.Expr, value: sympy.Expr) -> sympy.Symbol:
    """A real symbol named like ``sym`` (ε′, a′, …) written neither in ``e`` nor in ``value``."""
    taken = {s.name for s in _symbols(e) | value.free_symbols}
    for k in range(1, 64):
        name = sym.name + "'" * k if len(sym.name) + k <= 32 else "t" + "'" * k
        if name not in taken:
            return sympy.Symbol(name, real=True)
    raise UnsupportedError("no fresh symbol name is left")  # pragma: no cover


def _evaluated(e: ir.Expr, t: sympy.Symbol, value: sympy.Expr) -> ir.Expr:
    """``e`` at the real symbol t = ``value``, which must be known to be real (else the
    general engine would be asked to replace t in the IR again)."""
    if value.is_real is not True:
        raise UnsupportedError(f"{value} is not known to be real")
    return ir.Substitution(e, ir.Const(t), ir.Const(value))


def _rebuild(e: ir.Expr, fn: Callable[[Any], Any]) -> ir.Expr:
    """``e`` with ``fn`` applied to each of its fields (to each item of a tuple field)."""
    changes = {
        f.name: tuple(map(fn, v)) if isinstance(v, tuple) else fn(v)
        for f in dataclass_fields(e)  # type: ignore[arg-type]
        for v in (getattr(e, f.name),)
    }
    return dataclass_replace(e, **changes)  # type: ignore[type-var]  # IR nodes are dataclasses
