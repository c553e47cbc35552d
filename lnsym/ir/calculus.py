"""Derivatives on the IR: directional derivatives (jvp), vector-Jacobian products, gradients,
and derivatives with respect to a scalar symbol (diff).

These nodes only *name* a derivative; each interpreter computes it by its own rules (the
general engine by differentiating normal forms, the concrete engine with SymPy's ``diff``),
which is what lets the engines check each other.

>>> from lnsym.ir.nodes import vector, dot, eps
>>> from lnsym.ir.layers import core
>>> z, h = vector("z"), vector("h")
>>> jvp(core(z), z, h)
D_z[core(z)](h)
>>> diff(core(z), eps)
∂_ε[core(z)]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.matrices import MatGrad, MatrixAtom
from lnsym.ir.names import d as _d
from lnsym.ir.nodes import (
    Const,
    Expr,
    ScalarNode,
    VectorAtom,
    VectorNode,
    _operand,
    as_vector,
)


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
class Diff(Expr):
    """∂expr/∂wrt: the derivative of ``expr`` with respect to the scalar symbol ``wrt``.

    ``wrt`` is a :class:`~lnsym.ir.nodes.Const` holding a SymPy symbol other than d (ε or a
    user scalar). Like every derivative here, the result is a function of all the variables
    of ``expr``, ``wrt`` included: ``diff(f, eps).subs(eps, 0)`` differentiates first and
    then evaluates at ε = 0, which is not ``diff(f.subs(eps, 0), eps)`` (that is 0).

    Raises:
        ExpressionError: for a ``wrt`` that is not such a symbol.
    """

    expr: Expr
    wrt: Const

    def __post_init__(self) -> None:
        if not isinstance(self.wrt, Const):
            raise ExpressionError(f"Diff needs the symbol as a constant node, not {self.wrt!r}")
        _scalar_wrt(self.wrt)

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
        hint = ""
        if isinstance(wrt, sympy.Symbol) or (
            isinstance(wrt, Const) and isinstance(wrt.value, sympy.Symbol)
        ):
            hint = "; for a scalar symbol use diff(expr, symbol)"
        raise ExpressionError(
            f"derivatives are taken with respect to a vector atom, not {wrt!r}{hint}"
        )
    return wrt


def _scalar_wrt(wrt: Any) -> Const:
    """The scalar symbol a derivative :func:`diff` is taken with respect to, as a Const."""
    if isinstance(wrt, Expr) and wrt.kind == "vector":
        raise ExpressionError(
            f"diff() differentiates with respect to a scalar symbol, not the vector {wrt!r}: "
            "for a vector atom use jvp(expr, atom, direction), grad or vjp"
        )
    value = wrt.value if isinstance(wrt, Const) else wrt
    if isinstance(value, sympy.Symbol) and value == _d:
        raise ExpressionError(
            "cannot differentiate with respect to d: it is the dimension, a positive integer"
        )
    if not isinstance(value, sympy.Symbol):
        raise ExpressionError(
            f"diff() differentiates with respect to a scalar symbol (lnsym.eps or "
            f"lnsym.scalar(name)), not {wrt!r}"
        )
    return wrt if isinstance(wrt, Const) else Const(value)


def _not_a_matrix(expr: Any, what: str) -> Expr:
    expr = _operand(expr)
    if expr.kind == "matrix":
        raise ExpressionError(
            f"{what}() of a matrix expression is not supported: take grad(loss, matrix) of a "
            "scalar loss, such as total(G * expression)"
        )
    return expr


def jvp(expr: Any, wrt: Any, direction: Any) -> Expr:
    """Directional derivative of a vector or scalar expression w.r.t. the atom ``wrt``.

    Args:
        expr: the expression to differentiate.
        wrt: the vector atom that varies.
        direction: the vector h in D_wrt[expr](h) = d/dt expr(wrt + t·h) at t = 0.
    """
    return Jvp(_not_a_matrix(expr, "jvp"), _wrt(wrt), as_vector(direction))


def diff(expr: Any, wrt: Any) -> Expr:
    """∂expr/∂wrt: the derivative of a vector or scalar expression w.r.t. a scalar symbol.

    Args:
        expr: the expression to differentiate (the result has its kind).
        wrt: ``lnsym.eps`` or a user scalar (``lnsym.scalar("a")``), as a SymPy symbol or
            a constant node holding one; not ``d``, a number or a compound expression.

    Raises:
        ExpressionError: for any other ``wrt`` (a vector atom asks for :func:`jvp`).

    >>> from lnsym.ir.nodes import vector, var, eps
    >>> diff(var(vector("z")) + eps, eps)
    ∂_ε[var(z) + ε]
    """
    return Diff(_not_a_matrix(expr, "diff"), _scalar_wrt(wrt))


def vjp(expr: Any, wrt: Any, cotangent: Any) -> Expr:
    """Jᵀ·cotangent: backpropagation of a fixed ``cotangent`` through ``expr``."""
    expr = as_vector(expr)
    return Vjp(expr, _wrt(wrt), as_vector(cotangent))


def grad(expr: Any, wrt: Any) -> Expr:
    """The gradient of a scalar expression with respect to the vector atom ``wrt``, or with
    respect to a matrix atom (a matrix of its shape: ∂ℓ/∂Z of a loss on a batch Z)."""
    expr = _operand(expr)
    if expr.kind != "scalar":
        raise ExpressionError("grad() needs a scalar expression; for vectors use vjp or jvp")
    if isinstance(wrt, MatrixAtom):
        return MatGrad(expr, wrt)
    return Grad(expr, _wrt(wrt))


def opnorm(expr: Any, wrt: Any) -> Expr:
    """The operator 2-norm of the Jacobian of the vector ``expr`` with respect to ``wrt``."""
    return OperatorNorm(as_vector(expr), _wrt(wrt))
