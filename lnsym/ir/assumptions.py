"""Assumptions on the atoms of a claim: centered, orthogonal, non-constant, dimension.

What an assumption means is stated here once, for concrete values: :meth:`Assumption.admits`
(which dimensions it allows) and :meth:`Assumption.holds` (whether exact coordinates satisfy
it). The engines enforce it in their own terms — the general engine as substitutions of
power sums, the concrete engine as linear constraints solved exactly, the numeric engine as
projections of samples — and the concrete engine checks its points with :meth:`holds`.

>>> from fractions import Fraction
>>> from lnsym.ir.nodes import vector
>>> z, h = vector("z"), vector("h")
>>> [a.holds({"z": (1, -1), "h": (1, 1)}) for a in (centered(z), orthogonal(z, h))]
[True, True]
>>> nonconstant(z).admits(1), dimension_at_least(3).admits(2)
(False, False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lnsym.errors import ExpressionError
from lnsym.ir.nodes import VectorAtom, shown
from lnsym.ir.sealing import refuse_sealed_bases


class Assumption:
    """Base of hypotheses that restrict the atoms of a claim."""

    __slots__ = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        refuse_sealed_bases(cls)  # the engines read each assumption by its type
        super().__init_subclass__(**kwargs)

    def __repr__(self) -> str:
        return shown(self, "text")

    def admits(self, d: int) -> bool:
        """Whether the assumption can hold at dimension ``d``."""
        return True

    def holds(self, vectors: Mapping[str, Sequence[Any]]) -> bool:
        """Whether exact coordinates (atom name → d numbers) satisfy the assumption."""
        return True


@dataclass(frozen=True, repr=False)
class Centered(Assumption):
    """The vector atom has mean zero: ⟨1, atom⟩ = 0."""

    atom: VectorAtom

    def holds(self, vectors: Mapping[str, Sequence[Any]]) -> bool:
        return bool(sum(vectors[self.atom.name]) == 0)


@dataclass(frozen=True, repr=False)
class Orthogonal(Assumption):
    """Two distinct vector atoms are orthogonal: ⟨left, right⟩ = 0."""

    left: VectorAtom
    right: VectorAtom

    def holds(self, vectors: Mapping[str, Sequence[Any]]) -> bool:
        pairs = zip(vectors[self.left.name], vectors[self.right.name], strict=True)
        return bool(sum(x * y for x, y in pairs) == 0)


@dataclass(frozen=True, repr=False)
class Nonconstant(Assumption):
    """The vector atom is not a multiple of 1 (so its variance is positive)."""

    atom: VectorAtom

    def admits(self, d: int) -> bool:
        return d >= 2  # every vector of ℝ¹ is a multiple of 1

    def holds(self, vectors: Mapping[str, Sequence[Any]]) -> bool:
        return len(set(vectors[self.atom.name])) >= 2


@dataclass(frozen=True, repr=False)
class MinDimension(Assumption):
    """The claim is stated only for d ≥ ``value``."""

    value: int

    def admits(self, d: int) -> bool:
        return d >= self.value


@dataclass(frozen=True, repr=False)
class FixedDimension(Assumption):
    """The claim is stated only for d = ``value``."""

    value: int

    def admits(self, d: int) -> bool:
        return d == self.value


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


def dimensions(assumptions: Sequence[Assumption], up_to: int) -> list[int]:
    """The dimensions 1..``up_to`` that the dimension assumptions allow."""
    limits = [a for a in assumptions if isinstance(a, MinDimension | FixedDimension)]
    return [k for k in range(1, up_to + 1) if all(a.admits(k) for a in limits)]


def admits(assumptions: Sequence[Assumption], d: int) -> bool:
    """Whether every assumption can hold at dimension ``d``."""
    return all(a.admits(d) for a in assumptions)


def _atom(x: Any) -> VectorAtom:
    if not isinstance(x, VectorAtom):
        raise ExpressionError(f"assumptions apply to vector atoms, got {x!r}")
    return x
