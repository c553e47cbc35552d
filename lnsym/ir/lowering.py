"""A matrix statement at concrete sizes, written entry by entry as scalar statements.

At n = 2, d = 3, m = 2 every matrix atom X becomes scalar symbols X11, X12, …, every vector
atom γ of ℝ^d the symbols gamma1, gamma2, gamma3, and every node its entries as scalar IR
(sums, products and powers of those symbols); a gradient with respect to γ becomes the
derivatives with respect to gamma1, gamma2, …. The concrete and numeric engines check the
resulting scalar statements, which is how they check matrices without any rule of the general
engine's slices: a check independent of the proof.

>>> from lnsym.ir.matrices import matrix, mean_along
>>> from lnsym.ir.names import n, d
>>> lowered = lower(mean_along(matrix("Z", n, d), 0), {n: 2, d: 1})
>>> lowered
[[1/2·(Z11 + Z21)]]
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, TypeAlias

import sympy

from lnsym.errors import UnsupportedError
from lnsym.ir import batch_layers as layers
from lnsym.ir import matrices as mx
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import Diff, Grad
from lnsym.ir.names import d, m, n
from lnsym.ir.relations import Eq, Le, Relation

Value: TypeAlias = Any  # a scalar Expr, a list of them (vector), or a list of rows (matrix)
Sizes: TypeAlias = Mapping[sympy.Symbol, int]

#: The sizes (n, d, m) at which the concrete and numeric engines check a matrix statement:
#: every axis at 2 and 3, m also at 1 (d is scaled to a multiple of every group count). A
#: batch or a row of one entry has no variance, so n = 1 and d = 1 say little.
SIZES: tuple[tuple[int, int, int], ...] = ((2, 2, 1), (3, 2, 2), (2, 3, 3))

__all__ = [
    "SIZES", "entry_name", "lower", "lower_relation", "lowered_entries", "sizes_for", "sizes_text",
]  # fmt: skip


def entry_name(name: str, *index: int) -> str:
    """The scalar symbol of an entry: X12 for row 1, column 2 of X (1-based); X1_12 once an
    index has two digits, where X112 could be row 11 or column 12.

    >>> entry_name("X", 1, 2), entry_name("X", 1, 12), entry_name("X", 11, 2), entry_name("g", 12)
    ('X12', 'X1_12', 'X11_2', 'g12')
    """
    separator = "_" if len(index) > 1 and max(index) > 9 else ""
    return name + separator.join(str(i) for i in index)


def sizes_for(statement: Relation) -> list[dict[sympy.Symbol, int]]:
    """The (n, d, m) at which to check ``statement``: :data:`SIZES`, with d scaled so that
    every group count divides it."""
    groups = {x.groups for side in (statement.lhs, statement.rhs) for x in ir.walk(side)
              if isinstance(x, mx.GroupSum | mx.GroupMean | layers.GroupStandardize)}  # fmt: skip
    factor = 1
    for g in groups:
        factor = factor * g // sympy.igcd(factor, g)
    return [{n: a, d: b * factor, m: c} for a, b, c in SIZES]


def sizes_text(sizes: Mapping[Any, int]) -> str:
    """Sizes as evidence states them: ``n = 2, d = 3, m = 2``."""
    return ", ".join(f"{k} = {v}" for k, v in sizes.items())


def lower_relation(statement: Relation, sizes: Sizes) -> list[tuple[tuple[int, ...], Relation]]:
    """The statement's scalar statements at ``sizes``, each with its entry's 1-based index."""
    lowering = _Lowering(sizes)  # one for both sides: their entries share one namespace
    lhs, rhs = lowering.value(statement.lhs), lowering.value(statement.rhs)
    out: list[tuple[tuple[int, ...], Relation]] = []
    for index, (a, b) in _pairs(lhs, rhs, ()):
        out.append((index, Le(a, b) if isinstance(statement, Le) else Eq(a, b)))
    return out


def lowered_entries(
    statement: Relation, sizes: Sizes
) -> tuple[tuple[tuple[int, ...], Relation], ...]:
    """:func:`lower_relation`, kept for the last few statements and sizes: the concrete and
    numeric engines check the same entries of a claim one after the other. (A re-check of
    a counterexample calls :func:`lower_relation` itself, to write the entry afresh.)"""
    return _lowered(statement, tuple(sizes.items()))


@functools.lru_cache(maxsize=8)
def _lowered(
    statement: Relation, sizes: tuple[tuple[sympy.Symbol, int], ...]
) -> tuple[tuple[tuple[int, ...], Relation], ...]:
    return tuple(lower_relation(statement, dict(sizes)))


def _pairs(a: Value, b: Value, index: tuple[int, ...]) -> list[tuple[tuple[int, ...], Any]]:
    if isinstance(a, list):
        return [
            p
            for i, (x, y) in enumerate(zip(a, b, strict=True), 1)
            for p in _pairs(x, y, (*index, i))
        ]
    return [(index, (a, b))]


def lower(e: ir.Expr, sizes: Sizes) -> Value:
    """The entries of ``e`` at ``sizes`` as scalar IR."""
    return _Lowering(sizes).value(e)


class _Lowering:
    def __init__(self, sizes: Sizes) -> None:
        self.sizes = {k: sympy.Integer(v) for k, v in sizes.items()}
        self.memo: dict[ir.Expr, Value] = {}
        self.labels: dict[str, tuple[str, tuple[int, ...]]] = {}  # entry name → whose entry

    def entry(self, name: str, *index: int) -> str:
        """The entry's symbol name, refused if another atom's entry has the same one
        (vector X11's entry 2 and matrix X1's entry (1, 2) are both X112): two quantities
        must never become one symbol."""
        label = entry_name(name, *index)
        if self.labels.setdefault(label, (name, index)) != (name, index):
            raise UnsupportedError(
                f"the entries of {name} and {self.labels[label][0]} "
                f"would share the name {label}; rename one of them"
            )
        return label

    def size(self, side: sympy.Expr) -> int:
        return int(side.xreplace(self.sizes))

    def const(self, x: sympy.Expr | int) -> ir.Expr:
        return ir.Const(sympy.Integer(x) if isinstance(x, int) else x.xreplace(self.sizes))

    def value(self, e: ir.Expr) -> Value:
        if e not in self.memo:
            self.memo[e] = self._value(e)
        return self.memo[e]

    def _value(self, e: ir.Expr) -> Value:  # noqa: C901 — one case per node
        match e:
            case ir.Const(value=v):
                return self.const(v)
            case ir.VectorAtom(name=name):
                count = self.size(d)
                return [
                    ir.Const(sympy.Symbol(self.entry(name, j), real=True))
                    for j in range(1, count + 1)
                ]
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
                return ir.Power(self.value(b), p)
            case Grad(expr=f, wrt=ir.VectorAtom(name=name)):
                inner = self.value(f)
                return [Diff(inner, x) for x in self.value(ir.VectorAtom(name))]
            case Diff(expr=f, wrt=wrt):
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
                return _map(lambda x: ir.Power(x, p), self.value(b))
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


def _total(xs: list[ir.Expr]) -> ir.Expr:
    return xs[0] if len(xs) == 1 else ir.ScalarSum(tuple(xs))


def _map(f: Any, *values: Value) -> Value:
    if isinstance(values[0], list):
        return [_map(f, *xs) for xs in zip(*values, strict=True)]
    return f(*values)
