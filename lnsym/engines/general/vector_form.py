"""Vector normal forms: linear combinations Σ c_m·m of Hadamard monomials of vector atoms.

Holds :class:`VectorForm` (the ones vector is the empty monomial) and :data:`Form`, a vector
or a scalar normal form.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

import sympy

from lnsym.engines.general.symbols import Monomial, power_sum


@dataclass(frozen=True, slots=True)
class VectorForm:
    """Σ c_m · m as a tuple of (monomial, coefficient), sorted by monomial."""

    terms: tuple[tuple[Monomial, sympy.Expr], ...]

    @staticmethod
    def of(mapping: dict[Monomial, sympy.Expr]) -> VectorForm:
        return VectorForm(tuple(sorted((m, c) for m, c in mapping.items() if c != 0)))

    @staticmethod
    def atom(name: str) -> VectorForm:
        return VectorForm((((name,), sympy.Integer(1)),))

    @staticmethod
    def monomial(m: Monomial) -> VectorForm:
        return VectorForm(((tuple(sorted(m)), sympy.Integer(1)),))

    def __add__(self, other: VectorForm) -> VectorForm:
        out = dict(self.terms)
        for m, c in other.terms:
            out[m] = out.get(m, 0) + c
        return VectorForm.of(out)

    def scale(self, c: sympy.Expr) -> VectorForm:
        return VectorForm.of({m: c * k for m, k in self.terms})

    def hadamard(self, other: VectorForm) -> VectorForm:
        out: dict[Monomial, sympy.Expr] = {}
        for m1, c1 in self.terms:
            for m2, c2 in other.terms:
                m = tuple(sorted(m1 + m2))
                out[m] = out.get(m, 0) + c1 * c2
        return VectorForm.of(out)

    def map(self, fn: Callable[[sympy.Expr], sympy.Expr]) -> VectorForm:
        return VectorForm.of({m: fn(c) for m, c in self.terms})

    def total(self) -> sympy.Expr:
        """⟨1, v⟩ = Σ c_m S[m]."""
        return sympy.Add(*(c * power_sum(m) for m, c in self.terms))


Form: TypeAlias = VectorForm | sympy.Expr
