"""A matrix statement at concrete sizes, written entry by entry as scalar statements.

At n = 2, d = 3, m = 2 every matrix atom X becomes scalar symbols X11, X12, …, every vector
atom γ of ℝ^d the symbols gamma1, gamma2, gamma3, and every node its entries as scalar IR
(sums, products and powers of those symbols); a gradient with respect to γ becomes the
derivatives with respect to gamma1, gamma2, …. The concrete and numeric engines check the
resulting scalar statements, which is how they check matrices without any rule of the general
engine's slices: a check independent of the proof.

One claim has one namespace. Counterexamples and re-checks name an entry by its symbol's name,
so a name may stand for one quantity only: an entry whose name is a scalar of the statement
(γ's entry gamma1 beside a scalar gamma1), two atoms with one name (an n × 1 and an n × d
matrix Z; a vector Z and a matrix Z), an atom and a scalar with one name, and two scalars with
one name but different assumptions are refused (:class:`~lnsym.errors.UnsupportedError`
naming both), never merged. The vector atoms of the claim's assumptions are written out too
(:attr:`Lowered.vectors`), so that their entries are in the namespace even where the
statement does not use them.

>>> from lnsym.ir.matrices import matrix, mean_along
>>> from lnsym.ir.names import n, d
>>> lowered = lower(mean_along(matrix("Z", n, d), 0), {n: 2, d: 1})
>>> lowered
[[1/2·(Z11 + Z21)]]
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import sympy

from lnsym.errors import UnsupportedError
from lnsym.ir import batch_layers as layers
from lnsym.ir import matrices as mx
from lnsym.ir import nodes as ir
from lnsym.ir.assumptions import Assumption
from lnsym.ir.calculus import Diff, Grad
from lnsym.ir.names import d, m, n
from lnsym.ir.relations import Eq, Le, Relation

Value: TypeAlias = Any  # a scalar Expr, a list of them (vector), or a list of rows (matrix)
Sizes: TypeAlias = Mapping[sympy.Symbol, int]

#: The sizes (n, d, m) at which the concrete and numeric engines check a matrix statement:
#: every axis at 2 and 3, m also at 1 (d is scaled to a multiple of every group count). A
#: batch or a row of one entry has no variance, so n = 1 and d = 1 say little.
SIZES: tuple[tuple[int, int, int], ...] = ((2, 2, 1), (3, 2, 2), (2, 3, 3))
#: The largest d at which a matrix statement is written out: the dimension assumptions of a
#: claim may move d up to here, no further (the entries grow like n·d and m·d).
MAX_D = 12

__all__ = [
    "MAX_D", "SIZES", "Lowered", "entry_name", "group_counts", "lower", "lower_claim",
    "lower_relation", "lowered_entries", "sizes_for", "sizes_text",
]  # fmt: skip


def entry_name(name: str, *index: int) -> str:
    """The scalar symbol of an entry: X12 for row 1, column 2 of X (1-based); X1_12 once an
    index has two digits, where X112 could be row 11 or column 12.

    >>> entry_name("X", 1, 2), entry_name("X", 1, 12), entry_name("X", 11, 2), entry_name("g", 12)
    ('X12', 'X1_12', 'X11_2', 'g12')
    """
    separator = "_" if len(index) > 1 and max(index) > 9 else ""
    return name + separator.join(str(i) for i in index)


def sizes_for(
    statement: Relation, assumptions: Sequence[Assumption] = ()
) -> list[dict[sympy.Symbol, int]]:
    """The (n, d, m) at which to check ``statement``: :data:`SIZES`, with d scaled so that
    every group count divides it, and moved into the dimensions the assumptions admit
    (``dimension(k)``, ``dimension_at_least(k)``, d ≥ 2 for a non-constant atom) — all of
    them shifted alike, so that the sizes keep their different d where the assumptions
    allow. Empty when no multiple of the group counts up to :data:`MAX_D` is admitted: a
    claim is never checked at a size outside its assumptions.

    >>> from lnsym.ir.assumptions import dimension_at_least
    >>> from lnsym.ir.relations import Eq
    >>> from lnsym.ir.matrices import matrix
    >>> claim = Eq(matrix("Z", n, d), matrix("Z", n, d))
    >>> [s[d] for s in sizes_for(claim)], [s[d] for s in sizes_for(claim, [dimension_at_least(5)])]
    ([2, 2, 3], [5, 5, 6])
    """
    groups = group_counts(statement)
    factor = 1
    for g in groups:
        factor = factor * g // sympy.igcd(factor, g)
    admitted = [
        k for k in range(factor, MAX_D + 1, factor) if all(a.admits(k) for a in assumptions)
    ]
    if not admitted:
        return []
    shift = max(0, admitted[0] - 2 * factor)
    out: list[dict[sympy.Symbol, int]] = []
    for a, b, c in SIZES:
        wanted = b * factor + shift
        above = [k for k in admitted if k >= wanted]
        size = {n: a, d: above[0] if above else admitted[-1], m: c}
        if size not in out:
            out.append(size)
    return out


def group_counts(statement: Relation) -> set[int]:
    """The group counts of the statement's group sums, means and norms, inside definitions
    too (a user's node may hold one in its definition alone): d must be a multiple of each."""
    nodes = ir.distinct_nodes(statement.lhs, statement.rhs, definitions=True)
    grouped = (mx.GroupSum, mx.GroupMean, layers.GroupStandardize)
    return {x.groups for x in nodes if isinstance(x, grouped)}


def sizes_text(sizes: Mapping[Any, int]) -> str:
    """Sizes as evidence states them: ``n = 2, d = 3, m = 2``."""
    return ", ".join(f"{k} = {v}" for k, v in sizes.items())


@dataclass(frozen=True)
class Lowered:
    """A claim written entry by entry at one size.

    Attributes:
        entries: every entry's 1-based index and scalar statement.
        vectors: every vector atom of the statement or of its assumptions → the symbols of
            its d entries (gamma → gamma1, gamma2, …): where the engines read and set the
            values that the assumptions constrain.
    """

    entries: tuple[tuple[tuple[int, ...], Relation], ...]
    vectors: Mapping[str, tuple[sympy.Symbol, ...]]


def lower_claim(
    statement: Relation, sizes: Sizes, assumptions: Sequence[Assumption] = ()
) -> Lowered:
    """The statement's scalar statements at ``sizes``, in one namespace with the vector atoms
    of ``assumptions``.

    Raises:
        UnsupportedError: where one name would stand for two quantities (see the module).
    """
    lowering = _Lowering(sizes)  # one for both sides: their entries share one namespace
    lhs, rhs = lowering.value(statement.lhs), lowering.value(statement.rhs)
    for assumption in assumptions:
        for atom in vars(assumption).values():
            if isinstance(atom, ir.VectorAtom):
                lowering.value(atom)
    lowering.check_names()
    out: list[tuple[tuple[int, ...], Relation]] = []
    for index, (a, b) in _pairs(lhs, rhs, ()):
        out.append((index, Le(a, b) if isinstance(statement, Le) else Eq(a, b)))
    return Lowered(tuple(out), dict(sorted(lowering.vectors.items())))


def lower_relation(
    statement: Relation, sizes: Sizes, assumptions: Sequence[Assumption] = ()
) -> list[tuple[tuple[int, ...], Relation]]:
    """The statement's scalar statements at ``sizes``, each with its entry's 1-based index
    (:func:`lower_claim`'s entries).

    Raises:
        UnsupportedError: where one name would stand for two quantities (see the module).
    """
    return list(lower_claim(statement, sizes, assumptions).entries)


def lowered_entries(
    statement: Relation, sizes: Sizes, assumptions: Sequence[Assumption] = ()
) -> tuple[tuple[tuple[int, ...], Relation], ...]:
    """:func:`lower_relation`, kept for the last few claims and sizes: the concrete and
    numeric engines check the same entries of a claim one after the other. (A re-check of
    a counterexample calls :func:`lower_relation` itself, to write the entry afresh.)"""
    return lowered(statement, sizes, assumptions).entries


def lowered(statement: Relation, sizes: Sizes, assumptions: Sequence[Assumption] = ()) -> Lowered:
    """:func:`lower_claim`, kept for the last few claims and sizes (keyed by the whole
    statement, sizes and assumptions: structural equality, SymPy's assumptions included)."""
    return _lowered(statement, tuple(sizes.items()), tuple(assumptions))


@functools.lru_cache(maxsize=8)
def _lowered(
    statement: Relation,
    sizes: tuple[tuple[sympy.Symbol, int], ...],
    assumptions: tuple[Assumption, ...],
) -> Lowered:
    return lower_claim(statement, dict(sizes), assumptions)


def _pairs(a: Value, b: Value, index: tuple[int, ...]) -> list[tuple[tuple[int, ...], Any]]:
    if isinstance(a, list):
        return [
            p
            for i, (x, y) in enumerate(zip(a, b, strict=True), 1)
            for p in _pairs(x, y, (*index, i))
        ]
    return [(index, (a, b))]


def lower(e: ir.Expr, sizes: Sizes) -> Value:
    """The entries of ``e`` at ``sizes`` as scalar IR.

    Raises:
        UnsupportedError: where one name would stand for two quantities (see the module).
    """
    lowering = _Lowering(sizes)
    value = lowering.value(e)
    lowering.check_names()
    return value


class _Lowering:
    def __init__(self, sizes: Sizes) -> None:
        self.sizes = {k: sympy.Integer(v) for k, v in sizes.items()}
        self.memo: dict[ir.Expr, Value] = {}
        self.labels: dict[str, tuple[str, tuple[int, ...]]] = {}  # entry name → whose entry
        self.atoms: dict[str, ir.Expr] = {}  # atom name → the one atom of that name
        self.symbols: dict[str, sympy.Symbol] = {}  # the statement's own scalars by name
        self.vectors: dict[str, tuple[sympy.Symbol, ...]] = {}  # vector atom → its entries

    def entry(self, name: str, *index: int) -> str:
        """The entry's symbol name, refused if another atom's entry has the same one
        (vector X11's entry 2 and matrix X1's entry (1, 2) are both X112): two quantities
        must never become one symbol."""
        label = entry_name(name, *index)
        if self.labels.setdefault(label, (name, index)) != (name, index):
            raise UnsupportedError(
                f"the entries of {_described(self.atoms[name])} and "
                f"{_described(self.atoms[self.labels[label][0]])} would share the name {label}; "
                "rename one of them"
            )
        return label

    def atom(self, atom: ir.Expr) -> None:
        """Enter an atom in the namespace: one name, one atom (shape and positivity
        included), or an error naming both."""
        name: str = atom.name  # type: ignore[attr-defined]
        other = self.atoms.setdefault(name, atom)
        if other != atom:
            raise UnsupportedError(
                f"{_described(other)} and {_described(atom)} share the name {name}; "
                "rename one of them"
            )

    def user(self, value: sympy.Basic) -> None:
        """Enter the statement's own scalars (after the sizes are replaced): one symbol per
        name, and none named like a size."""
        for symbol in value.free_symbols:
            assert isinstance(symbol, sympy.Symbol)
            other = self.symbols.setdefault(symbol.name, symbol)
            if other != symbol:
                raise UnsupportedError(
                    f"two scalars share the name {symbol.name} with different assumptions "
                    f"({_assumed(other)}; {_assumed(symbol)}); rename one of them"
                )
            if any(symbol.name == size.name and symbol != size for size in self.sizes):
                raise UnsupportedError(
                    f"the scalar {symbol.name} has the name of the size {symbol.name}; rename it"
                )

    def check_names(self) -> None:
        """Refuse an entry or an atom named like a scalar of the statement: a counterexample
        names its values by name, and one name must be one quantity."""
        for label, (name, _) in sorted(self.labels.items()):
            if label in self.symbols:
                raise UnsupportedError(
                    f"the entry {label} of {_described(self.atoms[name])} and the scalar "
                    f"{label} share one name; rename one of them"
                )
        for name, atom in sorted(self.atoms.items()):
            if name in self.symbols:
                raise UnsupportedError(
                    f"{_described(atom)} and the scalar {name} share the name {name}; "
                    "rename one of them"
                )

    def size(self, side: sympy.Expr) -> int:
        return int(side.xreplace(self.sizes))

    def const(self, x: sympy.Expr | int) -> ir.Expr:
        if isinstance(x, int):
            return ir.Const(sympy.Integer(x))
        value = x.xreplace(self.sizes)
        self.user(value)
        return ir.Const(value)

    def exponent(self, p: sympy.Expr) -> sympy.Expr:
        """A power's exponent at the sizes (d in an exponent is the size too)."""
        value = p.xreplace(self.sizes)
        self.user(value)
        return value

    def value(self, e: ir.Expr) -> Value:
        if e not in self.memo:
            self.memo[e] = self._value(e)
        return self.memo[e]

    def _value(self, e: ir.Expr) -> Value:  # noqa: C901 — one case per node
        match e:
            case ir.Const(value=v):
                return self.const(v)
            case ir.VectorAtom(name=name):
                self.atom(e)
                count = self.size(d)
                symbols = tuple(
                    sympy.Symbol(self.entry(name, j), real=True) for j in range(1, count + 1)
                )
                self.vectors[name] = symbols
                return [ir.Const(symbol) for symbol in symbols]
            case ir.Ones():
                return [self.const(1)] * self.size(d)
            case ir.VectorSum(terms=terms) | ir.ScalarSum(terms=terms):
                return _map(lambda *xs: ir.ScalarSum(tuple(xs)), *(self.value(t) for t in terms))
            case ir.Scaled(coefficient=c, vector=v):
                coefficient = self.value(c)
                return [ir.ScalarProduct((coefficient, x)) for x in self.value(v)]
            case ir.Hadamard(left=a, right=b):
                return _map(lambda x, y: ir.ScalarProduct((x, y)), self.value(a), self.value(b))
            case ir.Dot(left=a, right=b):
                pairs = zip(self.value(a), self.value(b), strict=True)
                return _total([ir.ScalarProduct((x, y)) for x, y in pairs])
            case ir.ScalarProduct(factors=factors):
                return ir.ScalarProduct(tuple(self.value(f) for f in factors))
            case ir.Power(base=b, exponent=p):
                return ir.Power(self.value(b), self.exponent(p))
            case Grad(expr=f, wrt=ir.VectorAtom(name=name)):
                inner = self.value(f)
                return [Diff(inner, x) for x in self.value(ir.VectorAtom(name))]
            case Diff(expr=f, wrt=wrt):
                self.user(wrt.value)
                return _map(lambda x: Diff(x, wrt), self.value(f))
            case mx.MatrixNode():
                return self.matrix(e)
            case mx.Entry(arg=a):
                return self.value(a)[0][0]
            case mx.Flattened(arg=a):
                rows = self.value(a)
                return [x for r in rows for x in r]
            case ir.Defined():
                return self.value(e.definition())
        raise UnsupportedError(f"cannot write {type(e).__name__} entry by entry")

    def matrix(self, e: mx.MatrixNode) -> Value:  # noqa: C901 — one case per node
        rows, cols = (self.size(s) for s in e.shape)
        match e:
            case mx.MatrixAtom(name=name, positive=positive):
                self.atom(e)

                def entry(i: int, j: int) -> ir.Expr:
                    label = self.entry(name, i, j)
                    symbol = (
                        sympy.Symbol(label, positive=True)
                        if positive
                        else sympy.Symbol(label, real=True)
                    )
                    return ir.Const(symbol)

                return [[entry(i, j) for j in range(1, cols + 1)] for i in range(1, rows + 1)]
            case mx.MatrixOnes():
                return [[self.const(1)] * cols for _ in range(rows)]
            case mx.FirstCase():
                return [[self.const(1 if i == 0 else 0)] for i in range(rows)]
            case mx.Embedded(vector=v, column=column):
                entries = self.value(v)
                return [[x] for x in entries] if column else [entries]
            case mx.MatSum(terms=terms):
                parts = [self.broadcast(self.value(t), rows, cols) for t in terms]
                return _map(lambda *xs: ir.ScalarSum(tuple(xs)), *parts)
            case mx.MatScaled(coefficient=c, matrix=a):
                k = self.value(c)
                return _map(lambda x: ir.ScalarProduct((k, x)), self.value(a))
            case mx.MatHadamard(left=a, right=b):
                left = self.broadcast(self.value(a), rows, cols)
                right = self.broadcast(self.value(b), rows, cols)
                return _map(lambda x, y: ir.ScalarProduct((x, y)), left, right)
            case mx.MatPower(base=b, exponent=p):
                exponent = self.exponent(p)
                return _map(lambda x: ir.Power(x, exponent), self.value(b))
            case mx.MatMul(left=a, right=b):
                left, right = self.value(a), self.value(b)
                inner = len(right)
                return [[_total([ir.ScalarProduct((left[i][k], right[k][j])) for k in range(inner)])
                         for j in range(cols)] for i in range(rows)]  # fmt: skip
            case mx.Transpose(arg=a):
                return [list(r) for r in zip(*self.value(a), strict=True)]
            case mx.MatGrad(expr=f, wrt=w):
                inner = self.value(f)
                return _map(lambda x: Diff(inner, x), self.value(w))
            case mx.SumAlong(arg=a, axis=0):
                return [[_total(list(c)) for c in zip(*self.value(a), strict=True)]]
            case mx.SumAlong(arg=a, axis=1):
                return [[_total(list(r))] for r in self.value(a)]
            case mx.GroupSum(arg=a, groups=g):
                if cols % g:
                    raise UnsupportedError(
                        f"{cols} columns do not form {g} groups of equal size at these sizes"
                    )
                size = cols // g
                blocks = [(j // size) * size for j in range(cols)]
                return [[_total(r[b : b + size]) for b in blocks] for r in self.value(a)]
            case ir.Defined():
                return self.value(e.definition())
        raise UnsupportedError(f"cannot write {type(e).__name__} entry by entry")

    def broadcast(self, value: Value, rows: int, cols: int) -> Value:
        return [
            [value[i % len(value)][j % len(value[0])] for j in range(cols)] for i in range(rows)
        ]


def _described(atom: ir.Expr) -> str:
    """An atom as an error message names it: ``the vector gamma``, ``the n × d matrix Z``."""
    if isinstance(atom, mx.MatrixAtom):
        positive = " with positive entries" if atom.positive else ""
        return f"the {atom.rows} × {atom.cols} matrix {atom.name}{positive}"
    return f"the vector {atom.name}"  # type: ignore[attr-defined]


def _assumed(symbol: sympy.Symbol) -> str:
    """A symbol with the assumptions that tell it from another of its name."""
    kinds = [k for k in ("positive", "negative", "nonnegative", "integer")
             if getattr(symbol, f"is_{k}")]  # fmt: skip
    return f"{symbol.name} ({', '.join(kinds) or 'real'})"


def _total(xs: list[ir.Expr]) -> ir.Expr:
    return xs[0] if len(xs) == 1 else ir.ScalarSum(tuple(xs))


def _map(f: Any, *values: Value) -> Value:
    if isinstance(values[0], list):
        return [_map(f, *xs) for xs in zip(*values, strict=True)]
    return f(*values)
