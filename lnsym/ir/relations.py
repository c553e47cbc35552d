"""Relations between IR expressions: equalities and inequalities with certificates."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from lnsym.errors import ExpressionError
from lnsym.ir.nodes import Const, Expr, Ones, Scaled, _is_zero_literal, _operand, as_scalar, shown
from lnsym.ir.sealing import refuse_sealed_bases


class Relation:
    """Base of relations between two expressions."""

    __slots__ = ()
    lhs: Expr
    rhs: Expr

    def __init_subclass__(cls, **kwargs: Any) -> None:
        refuse_sealed_bases(cls)  # the checker reads Eq and Le by their type
        super().__init_subclass__(**kwargs)

    def __repr__(self) -> str:
        return shown(self, "text")

    def _repr_latex_(self) -> str:
        return f"${shown(self, 'latex')}$"


@dataclass(frozen=True, repr=False, init=False)
class Eq(Relation):
    """The equality ``lhs = rhs`` of two vectors or two scalars.

    A literal ``0`` on one side stands for the zero vector when the other side is a vector.

    >>> from lnsym import center, ones
    >>> Eq(center(ones), 0)
    center(1) = 0·1
    """

    lhs: Expr
    rhs: Expr

    def __init__(self, lhs: Any, rhs: Any) -> None:
        lhs, rhs = _relation_sides(lhs, rhs)
        if lhs.kind != rhs.kind:
            raise ExpressionError(f"cannot equate a {lhs.kind} with a {rhs.kind}")
        left, right = getattr(lhs, "shape", ()), getattr(rhs, "shape", ())
        if left != right:  # matrices (lnsym.ir.matrices) of different shapes
            raise ExpressionError(
                f"cannot equate a {' × '.join(map(str, left))} matrix with a "
                f"{' × '.join(map(str, right))} matrix"
            )
        object.__setattr__(self, "lhs", lhs)
        object.__setattr__(self, "rhs", rhs)


@dataclass(frozen=True, repr=False, init=False)
class Le(Relation):
    """The inequality ``lhs ≤ rhs`` between scalars, with an optional certificate.

    A certificate is a list of scalar terms tₖ claimed to satisfy rhs − lhs = Σ tₖ, each
    term a product of factors whose sign is known (squares, squared norms, variances, ε, d,
    positive symbols). The checker verifies both the identity and every sign; the
    certificate is only a hint and may be wrong.
    """

    lhs: Expr
    rhs: Expr
    certificate: tuple[Expr, ...]

    def __init__(self, lhs: Any, rhs: Any, certificate: Any = ()) -> None:
        lhs, rhs = _relation_sides(lhs, rhs)
        if lhs.kind != "scalar" or rhs.kind != "scalar":
            raise ExpressionError("inequalities compare scalars")
        object.__setattr__(self, "lhs", lhs)
        object.__setattr__(self, "rhs", rhs)
        if isinstance(certificate, Expr | str) or not hasattr(certificate, "__iter__"):
            raise ExpressionError("a certificate is a list of terms, e.g. [var(z)]")
        object.__setattr__(self, "certificate", tuple(as_scalar(t) for t in certificate))


def _relation_sides(lhs: Any, rhs: Any) -> tuple[Expr, Expr]:
    if isinstance(lhs, Expr) and lhs.kind == "vector" and _is_zero_literal(rhs):
        return lhs, Scaled(Const(sympy.Integer(0)), Ones())
    if isinstance(rhs, Expr) and rhs.kind == "vector" and _is_zero_literal(lhs):
        return Scaled(Const(sympy.Integer(0)), Ones()), rhs
    return _operand(lhs), _operand(rhs)
