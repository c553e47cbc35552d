"""Normalization layers built from the IR: the core u_ε and the layer output y = γ⊙u + β,
RMS normalization rms_ε(a) = a/√(mean(a⊙a) + ε), and weight normalization w = g·v/‖v‖.

Every layer but weight normalization is a :class:`Normalization`: a defined node that
divides by √(statistic + ε).
A new normalization is one subclass here or in user code (its fields, ``symbol``,
``statistic()`` and ``definition()``), one entry in
:data:`lnsym.printing.notation.LATEX_NAMES` for its LaTeX name, and a derivation module;
the engines' fast paths read :meth:`Normalization.statistic` and work for it unchanged.

>>> from lnsym.ir.nodes import scalar, vector
>>> z, gamma, beta = vector("z"), vector("gamma"), vector("beta")
>>> layer_norm(z, gamma, beta)
LN(z; γ, β)
>>> core(z).definition()
(var(z) + ε)^(-1/2)·center(z)
>>> rms_norm(z, gamma)
γ ⊙ rms(z)
>>> weight_norm(z, scalar("g"))
wn(z, g)
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
    Mean,
    Norm,
    Power,
    ScalarProduct,
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


class Normalization(Defined, VectorNode):
    """A normalization layer of a vector ``arg``: its definition divides by √(radicand).

    Subclasses are frozen dataclasses with (at least) the fields ``arg`` and ``eps`` and
    say what is normalized by :meth:`statistic`. The engines use it: the concrete engine
    draws exact points at which √(statistic + ε) is rational (it draws the root s and sets
    ε = s² − statistic), and the general engine applies congruence through the layer.
    """

    __slots__ = ()
    arg: Expr
    eps: Expr

    def statistic(self) -> Expr:
        """The scalar the stabilizer ε is added to under the root: q(a) for layer norm."""
        raise NotImplementedError

    def radicand(self) -> Expr:
        """statistic + ε, the quantity under the square root."""
        return ScalarSum((self.statistic(), self.eps))


@dataclass(frozen=True, slots=True, repr=False)
class Core(Normalization):
    """u_ε(a) = P a / √(q(a) + ε), the normalized core of layer normalization."""

    arg: Expr
    eps: Expr
    symbol: ClassVar[str] = "core"

    def statistic(self) -> Expr:
        return Var(self.arg)

    def definition(self) -> Expr:
        return Scaled(Power(self.radicand(), sympy.Rational(-1, 2)), Center(self.arg))


@dataclass(frozen=True, slots=True, repr=False)
class LayerNorm(Normalization):
    """y = γ ⊙ u_ε(a) + β, layer normalization with gain γ and bias β."""

    arg: Expr
    gain: Expr
    bias: Expr
    eps: Expr
    symbol: ClassVar[str] = "LN"

    def statistic(self) -> Expr:
        return Var(self.arg)

    def definition(self) -> Expr:
        return VectorSum((Hadamard(self.gain, Core(self.arg, self.eps)), self.bias))


@dataclass(frozen=True, slots=True, repr=False)
class RMSNorm(Normalization):
    """rms_ε(a) = a / √(mean(a ⊙ a) + ε), RMS normalization: no centering, no gain.

    :func:`rms_norm` with a gain γ is ``Hadamard(γ, RMSNorm(a, ε))``, so this node is the
    layer's only root and the engines' fast paths see it whether or not there is a gain.
    """

    arg: Expr
    eps: Expr
    symbol: ClassVar[str] = "rms"

    def statistic(self) -> Expr:
        return Mean(Hadamard(self.arg, self.arg))

    def definition(self) -> Expr:
        return Scaled(Power(self.radicand(), sympy.Rational(-1, 2)), self.arg)


@dataclass(frozen=True, slots=True, repr=False)
class WeightNorm(Defined, VectorNode):
    """w = g·v/‖v‖, weight normalization of a direction v with a scalar gain g.

    Not a :class:`Normalization`: nothing is added under the root, so ‖w‖ = |g| exactly and
    w is undefined at v = 0.
    """

    arg: Expr
    gain: Expr
    symbol: ClassVar[str] = "wn"

    def definition(self) -> Expr:
        scale = ScalarProduct((self.gain, Power(Norm(self.arg), sympy.Integer(-1))))
        return Scaled(scale, self.arg)


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


def rms_norm(a: Any, gamma: Any = None, eps: Any = _eps) -> Expr:
    """RMS normalization a/√(mean(a ⊙ a) + ε), times the gain γ coordinatewise if given.

    Args:
        a: a vector expression.
        gamma: an optional gain vector; the result is then γ ⊙ rms_ε(a).
        eps: the stabilizer; ``0`` gives the idealized, scale-invariant layer
            (defined for a ≠ 0).
    """
    normalized = RMSNorm(as_vector(a), as_scalar(eps))
    return normalized if gamma is None else Hadamard(as_vector(gamma), normalized)


def weight_norm(v: Any, g: Any) -> Expr:
    """Weight normalization g·v/‖v‖ of a vector ``v`` with a scalar gain ``g``."""
    return WeightNorm(as_vector(v), as_scalar(g))
