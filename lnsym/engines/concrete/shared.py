"""Names for inner products and the symbolic values shared by the checks of every claim.

Part of the concrete engine's SymPy route (:mod:`lnsym.engines.concrete.values` computes the
values). It holds :class:`_Names` (a name, labelled by content, for each t-free coefficient of
an inner product, so that SymPy differentiates short expressions), :class:`_Shared` (the
coordinates, names and values of nodes at each d, kept between checks) with the process's
store :data:`_SHARED`, and :func:`_coordinates`, the Dummy coordinates of a vector atom
inside a check.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.concrete.sympy_numbers import SympyValue


class _Names:
    """Names for inner products, so that SymPy differentiates short expressions.

    A sum Σᵢ aᵢbᵢ over d coordinates is the bulk of every symbolic expression. It is written
    as a polynomial in the symbols that must stay visible — the perturbations t, the F(t) of
    :meth:`~lnsym.engines.concrete.values._Evaluator._abbreviate` and a generic direction
    w (:func:`~lnsym.engines.concrete.monomials.by_monomial`, which leaves the coefficients
    unexpanded) — and each coefficient, free of them, gets a name K: d/dt then treats K as
    the constant it is. The polynomial reduction
    (:class:`~lnsym.engines.concrete.ring._Fractions`) expands every name, once.

    A name's label is a digest of what it stands for, not a counter: the symbolic values are
    shared by the checks of every claim (:data:`_SHARED`), and SymPy orders the terms of a
    sum by the names of its symbols, so a label that depended on which claims came first
    would make a check depend on them too.
    """

    def __init__(self) -> None:
        self.definitions: dict[sympy.Symbol, sympy.Expr] = {}
        #: The names that occur in each definition (to collect those a check needs).
        self.uses: dict[sympy.Symbol, frozenset[sympy.Symbol]] = {}
        self._names: dict[sympy.Expr, sympy.Symbol] = {}
        self._digests: dict[sympy.Basic, bytes] = {}

    def name(self, e: sympy.Expr) -> sympy.Expr:
        """A name for ``e`` (small expressions stand for themselves)."""
        if e.is_Atom or (e.is_Mul and len(e.args) == 2 and e.args[0].is_Number):
            return e
        name = self._names.get(e)
        if name is None:
            name = sympy.Dummy("K" + self._digest(e).hex()[:20])
            # In this order, so that an interrupted check leaves no name without a meaning.
            self.uses[name] = frozenset(v for v in e.free_symbols if v in self.definitions)
            self.definitions[name] = e
            self._names[e] = name
        return name

    def _digest(self, e: sympy.Basic) -> bytes:
        """A digest of the structure of ``e`` that depends on the names and assumptions of
        its symbols, never on the creation order of Dummy symbols (which SymPy's own hash
        includes), nor on how a number prints (two floats may print alike)."""
        found = self._digests.get(e)
        if found is None:
            if e.is_Symbol:
                facts = sorted(e.assumptions0.items())
                content = f"{type(e).__name__}:{e.name}:{facts}".encode()
            elif e.is_Atom:
                content = f"{type(e).__name__}:{e._hashable_content()!r}".encode()
            else:
                parts = [self._digest(a) for a in e.args]
                if e.is_Add or e.is_Mul:
                    parts.sort()
                content = type(e).__name__.encode() + b"(" + b",".join(parts) + b")"
            found = self._digests[e] = hashlib.blake2b(content, digest_size=16).digest()
        return found

    def needed(self, exprs: Sequence[sympy.Expr]) -> dict[sympy.Symbol, sympy.Expr]:
        """The definitions of the names that ``exprs`` use, directly or through other names."""
        out: dict[sympy.Symbol, sympy.Expr] = {}
        stack = [v for x in exprs for v in x.free_symbols if v in self.definitions]
        while stack:
            name = stack.pop()
            if name not in out:
                out[name] = self.definitions[name]
                stack.extend(self.uses[name])
        return out


class _Shared:
    """Symbolic values shared by the checks of every claim in this process.

    A node's value depends only on the node, d and the coordinates bound to its vector
    atoms (symbolic checks bind no scalar), so ``jvp(core(z), z, h)`` at d = 8 is computed
    once for all the claims that use it. Coordinates are fixed per atom and d, and names are
    labelled by content (:class:`_Names`), so a check gives the same result whichever checks
    ran before it.
    """

    #: Entries kept before the store starts afresh (at the start of a check).
    LIMIT = 200_000

    def __init__(self) -> None:
        self.coordinates: dict[tuple[str, int], tuple[sympy.Symbol, ...]] = {}
        self.names = _Names()
        self.values: dict[tuple[Any, ...], SympyValue] = {}
        self.atoms: dict[ir.Expr, tuple[str, ...]] = {}
        #: The same two by the identity of the node (kept alive beside the answer, so that
        #: its id stays its own): the IR's hash walks a node's whole subtree, and the
        #: entries of a matrix statement (:mod:`lnsym.engines.concrete.matrices`) share
        #: their node objects.
        self.value_ids: dict[tuple[Any, ...], tuple[ir.Expr, SympyValue]] = {}
        self.atom_ids: dict[int, tuple[ir.Expr, tuple[str, ...]]] = {}

    def coordinates_of(self, name: str, d: int) -> tuple[sympy.Symbol, ...]:
        found = self.coordinates.get((name, d))
        if found is None:
            found = self.coordinates[(name, d)] = _coordinates(name, d)
        return found

    def trim(self) -> None:
        if len(self.values) + len(self.names.definitions) > self.LIMIT:
            self.names = _Names()
            self.values = {}
            self.atoms = {}
            self.value_ids = {}
            self.atom_ids = {}

    def free_atoms(self, e: ir.Expr) -> tuple[str, ...]:
        """The vector atoms ``e`` depends on (not bound by a substitution inside it)."""
        seen = self.atom_ids.get(id(e))
        if seen is not None:
            return seen[1]
        found = self.atoms.get(e)
        if found is None:
            if isinstance(e, ir.VectorAtom):
                names = {e.name}
            elif isinstance(e, ir.Substitution) and isinstance(e.target, ir.VectorAtom):
                inner = set(self.free_atoms(e.expr)) - {e.target.name}
                names = inner | set(self.free_atoms(e.value))
            else:
                names = {a for child in e.children() for a in self.free_atoms(child)}
            found = self.atoms[e] = tuple(sorted(names))
        self.atom_ids[id(e)] = (e, found)
        return found


_SHARED = _Shared()


def _coordinates(name: str, d: int) -> tuple[sympy.Symbol, ...]:
    """The coordinates of the atom ``name`` inside a check: Dummy symbols, which no user
    scalar can equal (a user scalar named ``z_1`` stays distinct from the first coordinate
    of z; the IR refuses Dummy symbols in constants)."""
    return tuple(sympy.Dummy(f"{name}_{i}", real=True) for i in range(1, d + 1))
