"""Assumptions on the atoms of a claim: centered, orthogonal, non-constant, dimension.

Each engine gives them their meaning in its own terms (the general engine as substitutions
of power sums, the concrete engine as linear constraints on coordinates, the numeric engine
as projections of samples).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lnsym.errors import ExpressionError
from lnsym.ir.nodes import VectorAtom, shown


class Assumption:
    """Base of hypotheses that restrict the atoms of a claim."""

    __slots__ = ()

    def __repr__(self) -> str:
        return shown(self, "text")


@dataclass(frozen=True, repr=False)
class Centered(Assumption):
    """The vector atom has mean zero: ⟨1, atom⟩ = 0."""

    atom: VectorAtom


@dataclass(frozen=True, repr=False)
class Orthogonal(Assumption):
    """Two distinct vector atoms are orthogonal: ⟨left, right⟩ = 0."""

    left: VectorAtom
    right: VectorAtom


@dataclass(frozen=True, repr=False)
class Nonconstant(Assumption):
    """The vector atom is not a multiple of 1 (so its variance is positive)."""

    atom: VectorAtom


@dataclass(frozen=True, repr=False)
class MinDimension(Assumption):
    """The claim is stated only for d ≥ ``value``."""

    value: int


@dataclass(frozen=True, repr=False)
class FixedDimension(Assumption):
    """The claim is stated only for d = ``value``."""

    value: int


def centered(atom: Any) -> Centered:
    """Assume ``atom`` has mean zero."""
    return Centered(_atom(atom))


def orthogonal(a: Any, b: Any) -> Orthogonal:
    """Assume the distinct atoms ``a`` and ``b`` are orthogonal."""
    a, b = _atom(a), _atom(b)
    if a == b:
        raise ExpressionError("orthogonal() needs two different atoms")
    return Orthogonal(*sorted((a, b), key=lambda atom: atom.name))


def nonconstant(atom: Any) -> Nonconstant:
    """Assume ``atom`` is not constant across coordinates."""
    return Nonconstant(_atom(atom))


def dimension_at_least(value: int) -> MinDimension:
    """State the claim only for d ≥ ``value``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ExpressionError(f"dimension_at_least needs a positive integer, got {value!r}")
    return MinDimension(value)


def dimension(value: int) -> FixedDimension:
    """State the claim only for d = ``value``."""
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ExpressionError(f"dimension needs a positive integer, got {value!r}")
    return FixedDimension(value)


def dimensions(assumptions: tuple[Assumption, ...], up_to: int) -> list[int]:
    """The dimensions 1..``up_to`` that satisfy the dimension assumptions."""
    low = max([a.value for a in assumptions if isinstance(a, MinDimension)], default=1)
    fixed = [a.value for a in assumptions if isinstance(a, FixedDimension)]
    return [k for k in range(low, up_to + 1) if all(k == f for f in fixed)]


def _atom(x: Any) -> VectorAtom:
    if not isinstance(x, VectorAtom):
        raise ExpressionError(f"assumptions apply to vector atoms, got {x!r}")
    return x
