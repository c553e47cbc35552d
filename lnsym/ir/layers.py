"""Normalization layers built from the IR: the core u_ε and the layer output y = γ⊙u + β.

>>> from lnsym.ir.nodes import vector
>>> z, gamma, beta = vector("z"), vector("gamma"), vector("beta")
>>> layer_norm(z, gamma, beta)
LN(z; γ, β)
>>> core(z).definition()
(var(z) + ε)^(-1/2)·center(z)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import sympy

from lnsym.ir.nodes import (
    Center,
    Defined,
    Expr,
    Hadamard,
    Power,
    ScalarSum,
    Scaled,
    Var,
    VectorNode,
    VectorSum,
    as_scalar,
    as_vector,
)
from lnsym.ir.nodes import (
    eps as _eps,
)


@dataclass(frozen=True, slots=True, repr=False)
class Core(Defined, VectorNode):
    """u_ε(a) = P a / √(q(a) + ε), the normalized core of layer normalization."""

    arg: Expr
    eps: Expr
    symbol: ClassVar[str] = "core"

    def definition(self) -> Expr:
        root = Power(ScalarSum((Var(self.arg), self.eps)), sympy.Rational(-1, 2))
        return Scaled(root, Center(self.arg))


@dataclass(frozen=True, slots=True, repr=False)
class LayerNorm(Defined, VectorNode):
    """y = γ ⊙ u_ε(a) + β, layer normalization with gain γ and bias β."""

    arg: Expr
    gain: Expr
    bias: Expr
    eps: Expr
    symbol: ClassVar[str] = "LN"

    def definition(self) -> Expr:
        return VectorSum((Hadamard(self.gain, Core(self.arg, self.eps)), self.bias))


def core(a: Any, eps: Any = _eps) -> Expr:
    """The normalized core u_ε(a) = P a / √(q(a) + ε).

    Args:
        a: a vector expression.
        eps: the stabilizer; ``0`` gives the idealized core (defined for non-constant a).
    """
    return Core(as_vector(a), as_scalar(eps))


def layer_norm(a: Any, gamma: Any, beta: Any, eps: Any = _eps) -> Expr:
    """Layer normalization γ ⊙ u_ε(a) + β with gain ``gamma`` and bias ``beta``."""
    return LayerNorm(as_vector(a), as_vector(gamma), as_vector(beta), as_scalar(eps))
