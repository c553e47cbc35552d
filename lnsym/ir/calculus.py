"""Derivatives on the IR: directional derivatives (jvp), vector-Jacobian products and gradients.

These nodes only *name* a derivative; each interpreter computes it by its own rules (the
general engine by differentiating normal forms, the concrete engine with SymPy's ``diff``),
which is what lets the engines check each other.

>>> from lnsym.ir.nodes import vector, dot
>>> from lnsym.ir.layers import core
>>> z, h = vector("z"), vector("h")
>>> jvp(core(z), z, h)
D_z[core(z)](h)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lnsym.errors import ExpressionError
from lnsym.ir.nodes import Expr, ScalarNode, VectorAtom, VectorNode, _operand, as_vector


@dataclass(frozen=True, slots=True, repr=False)
class Jvp(Expr):
    """D_wrt[expr](direction): the derivative of ``expr`` along ``direction``."""

    expr: Expr
    wrt: VectorAtom
    direction: Expr

    @property
    def kind(self) -> str:
        return self.expr.kind


@dataclass(frozen=True, slots=True, repr=False)
class Grad(VectorNode):
    """∇_wrt expr for a scalar ``expr``: the vector with ⟨∇f, h⟩ = D_wrt[f](h)."""

    expr: Expr
    wrt: VectorAtom


@dataclass(frozen=True, slots=True, repr=False)
class Vjp(VectorNode):
    """Jᵀ·cotangent for the Jacobian J of ``expr``, with the cotangent held fixed.

    This is ∂⟨g, expr⟩/∂wrt for a constant g; a cotangent that itself depends on ``wrt`` is
    not differentiated.
    """

    expr: Expr
    wrt: VectorAtom
    cotangent: Expr


@dataclass(frozen=True, slots=True, repr=False)
class OperatorNorm(ScalarNode):
    """‖D_wrt expr‖₂: the spectral norm of the Jacobian of a vector ``expr`` w.r.t. ``wrt``.

    It is a maximum over directions, not an algebraic expression, so the general engine does
    not interpret it; the concrete and numeric engines evaluate it at points.
    """

    expr: Expr
    wrt: VectorAtom


def _wrt(wrt: Any) -> VectorAtom:
    if not isinstance(wrt, VectorAtom):
        raise ExpressionError(f"derivatives are taken with respect to a vector atom, not {wrt!r}")
    return wrt


def jvp(expr: Any, wrt: Any, direction: Any) -> Expr:
    """Directional derivative of a vector or scalar expression w.r.t. the atom ``wrt``.

    Args:
        expr: the expression to differentiate.
        wrt: the vector atom that varies.
        direction: the vector h in D_wrt[expr](h) = d/dt expr(wrt + t·h) at t = 0.
    """
    return Jvp(_operand(expr), _wrt(wrt), as_vector(direction))


def vjp(expr: Any, wrt: Any, cotangent: Any) -> Expr:
    """Jᵀ·cotangent: backpropagation of a fixed ``cotangent`` through ``expr``."""
    expr = as_vector(expr)
    return Vjp(expr, _wrt(wrt), as_vector(cotangent))


def grad(expr: Any, wrt: Any) -> Expr:
    """The gradient of a scalar expression with respect to the vector atom ``wrt``."""
    expr = _operand(expr)
    if expr.kind != "scalar":
        raise ExpressionError("grad() needs a scalar expression; for vectors use vjp or jvp")
    return Grad(expr, _wrt(wrt))


def opnorm(expr: Any, wrt: Any) -> Expr:
    """The operator 2-norm of the Jacobian of the vector ``expr`` with respect to ``wrt``."""
    return OperatorNorm(as_vector(expr), _wrt(wrt))
