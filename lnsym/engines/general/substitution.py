"""Substitutions and assumptions on normal forms, as rewrites of power sums and symbols.

Holds :class:`Rewriter` (roots follow their radicands), :class:`AtomSubstitution`
(atom := vector), :class:`SymbolSubstitution` (symbol := scalar) and :class:`Hypotheses`
(centered atoms, orthogonal pairs and a fixed dimension, applied as rewrites).
"""

from __future__ import annotations

from collections.abc import Iterable

import sympy

from lnsym import ir
from lnsym.engines.general.algebra import root
from lnsym.engines.general.symbols import Monomial, PowerSum, Root
from lnsym.engines.general.vector_form import Form, VectorForm
from lnsym.errors import DomainError


class Rewriter:
    """Maps power sums and plain symbols to new scalars; roots follow their radicands."""

    def power_sum(self, m: Monomial) -> sympy.Expr | None:
        return None

    def symbol(self, sym: sympy.Symbol) -> sympy.Expr | None:
        return None

    def monomial(self, m: Monomial) -> VectorForm | None:
        return None

    def __init__(self) -> None:
        self._memo: dict[sympy.Symbol, sympy.Expr] = {}

    def _rewrite_symbol(self, sym: sympy.Symbol) -> sympy.Expr:
        if sym in self._memo:
            return self._memo[sym]
        new: sympy.Expr | None
        if isinstance(sym, PowerSum):
            new = self.power_sum(sym.monomial)
        elif isinstance(sym, Root):
            radicand = sym.radicand
            rewritten = self.scalar(radicand)
            new = None if rewritten == radicand else root(rewritten)
        else:
            new = self.symbol(sym)
        result = sym if new is None else new
        self._memo[sym] = result
        return result

    def scalar(self, f: sympy.Expr) -> sympy.Expr:
        rep = {s: self._rewrite_symbol(s) for s in f.free_symbols}
        rep = {s: v for s, v in rep.items() if v != s}
        if not rep:
            return f
        out = f.xreplace(rep)
        if out.has(sympy.zoo, sympy.nan):
            raise DomainError("division by zero at the value substituted")
        return out

    def vector(self, v: VectorForm) -> VectorForm:
        out = VectorForm(())
        for m, c in v.terms:
            image = self.monomial(m) or VectorForm.monomial(m)
            # The coefficient first: z/‖z‖ at z = 0 is 0/0, not the 0 an empty image gives.
            out = out + image.scale(self.scalar(c))
        return out

    def form(self, f: Form) -> Form:
        return self.vector(f) if isinstance(f, VectorForm) else self.scalar(f)


class AtomSubstitution(Rewriter):
    """atom := value for a vector atom."""

    def __init__(self, atom: str, value: VectorForm) -> None:
        super().__init__()
        self.atom, self.value = atom, value

    def monomial(self, m: Monomial) -> VectorForm | None:
        k = m.count(self.atom)
        if not k:
            return None
        image = VectorForm.monomial(tuple(a for a in m if a != self.atom))
        for _ in range(k):
            image = image.hadamard(self.value)
        return image

    def power_sum(self, m: Monomial) -> sympy.Expr | None:
        image = self.monomial(m)
        return None if image is None else image.total()


class SymbolSubstitution(Rewriter):
    """symbol := value for a scalar symbol."""

    def __init__(self, target: sympy.Symbol, value: sympy.Expr) -> None:
        super().__init__()
        self.target, self.value = target, value

    def symbol(self, sym: sympy.Symbol) -> sympy.Expr | None:
        return self.value if sym == self.target else None


class Hypotheses(Rewriter):
    """Assumptions as rewrites: centered atoms and orthogonal pairs zero their power sums;
    a fixed dimension replaces d (sound, but power sums are then no longer independent)."""

    def __init__(self, assumptions: Iterable[ir.Assumption]) -> None:
        super().__init__()
        self.zero: set[Monomial] = set()
        for a in assumptions:
            if isinstance(a, ir.Centered):
                self.zero.add((a.atom.name,))
            elif isinstance(a, ir.Orthogonal):
                self.zero.add(tuple(sorted((a.left.name, a.right.name))))
        fixed = {a.value for a in assumptions if isinstance(a, ir.FixedDimension)}
        self.dimension = sympy.Integer(fixed.pop()) if len(fixed) == 1 else None

    def symbol(self, sym: sympy.Symbol) -> sympy.Expr | None:
        return self.dimension if sym == ir.d else None

    def power_sum(self, m: Monomial) -> sympy.Expr | None:
        return sympy.Integer(0) if m in self.zero else None
