"""Reverse mode: a vector-Jacobian product written out as an IR expression, its adjoint.

Forward mode (:mod:`~lnsym.engines.numeric.dual`) pushes the d basis directions through an
expression, so a gradient or a vjp costs d evaluations' worth of tangents: O(d²) per sample,
most of the numeric engine's time at d = 768. Reverse mode pulls one cotangent back instead.
For vjp_z[f](g) = J_f(z)ᵀ·g, every node of f that depends on z gets an adjoint — the sum of
what each node using it passes back by its own derivative rule — from f, whose adjoint is g,
down to z, whose adjoint is the result:

======================  =================================================================
node (adjoint ā)        passes back
======================  =================================================================
a + b + …               ā to each term
c·v                     ⟨ā, v⟩ to c, c·ā to v
l ⊙ r                   ā ⊙ r to l, l ⊙ ā to r
a·b·…                   ā times the other factors to each factor
⟨l, r⟩                  ā·r to l, ā·l to r
b^n                     ā·n·b^(n−1) to b
mean(a)                 (ā/d)·1 to a
center(a)               center(ā) to a (P is symmetric)
var(a)                  (2ā/d)·center(center(a)) to a
any other defined node  ā to its definition
======================  =================================================================

The adjoint is an expression in the same primitives, so the interpreter evaluates it like
any other: in O(size·d) per sample, with its running error bounds and errors along 1 (an
adjoint is centered where the rule says so), and the same flags where a power is undefined.
The cotangent is a leaf of it, held fixed, as :class:`~lnsym.ir.calculus.Vjp` means.

An expression with a derivative or a substitution inside has no adjoint here
(:func:`adjoint` gives None): the interpreter takes its Jacobian as before.

>>> from lnsym import vector, var
>>> z, g = vector("z"), vector("g")
>>> adjoint(var(z), z)
2/d·center(center(z))
>>> adjoint(z * z, z, g)
g ⊙ z + z ⊙ g
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import sympy

from lnsym import ir

_ONE = ir.Const(sympy.Integer(1))
#: Nodes whose adjoint rule is known: the primitives and every defined node (through its
#: definition, or its own rule for mean, centering and variance).
_PRIMITIVES = (
    ir.VectorAtom, ir.Ones, ir.Const, ir.VectorSum, ir.ScalarSum, ir.Scaled, ir.Hadamard,
    ir.ScalarProduct, ir.Dot, ir.Power, ir.Defined,
)  # fmt: skip


@lru_cache(maxsize=1024)
def adjoint(f: ir.Expr, wrt: ir.VectorAtom, cotangent: ir.Expr | None = None) -> ir.Expr | None:
    """J_f(wrt)ᵀ·cotangent as an IR expression — without a cotangent, the gradient of a
    scalar f (cotangent 1) — or None where f holds a derivative, a substitution or a node
    without a rule.

    >>> from lnsym import vector, mean
    >>> z, h = vector("z"), vector("h")
    >>> adjoint(mean(h), z)  # f does not depend on z
    0·1
    """
    order = _dependents(f, wrt)
    if order is None:
        return None
    dependent = set(order)
    seed = _ONE if cotangent is None else cotangent
    passed: dict[ir.Expr, list[ir.Expr]] = {f: [seed]} if order else {}
    # Reversed post-order: every node comes after all the nodes that use it, so its
    # adjoint is complete when it is reached; wrt, below every other one, comes last.
    for node in reversed(order):
        parts = passed.pop(node)
        bar = parts[0] if len(parts) == 1 else _sum(parts)
        if node == wrt:
            return bar
        for child, part in _pullback(node, bar):
            if child in dependent:
                passed.setdefault(child, []).append(part)
    return ir.Scaled(ir.Const(sympy.Integer(0)), ir.Ones())


def has_adjoint(f: ir.Expr) -> bool:
    """Whether :func:`adjoint` writes the vjp of ``f`` (with respect to any atom)."""
    return _dependents(f, None) is not None


def _inputs(node: ir.Expr) -> tuple[ir.Expr, ...]:
    """What the adjoint of ``node`` is passed back to (mean, centering and variance have
    rules of their own, as the interpreter evaluates them directly)."""
    if isinstance(node, ir.Mean | ir.Center | ir.Var):
        return (node.arg,)
    if isinstance(node, ir.Defined):
        return (node.definition(),)
    return node.children()


def _dependents(f: ir.Expr, wrt: ir.VectorAtom | None) -> list[ir.Expr] | None:
    """The distinct nodes of ``f`` that depend on ``wrt``, each after its inputs (post-order);
    None if ``f`` has a node without an adjoint rule."""
    depends: dict[ir.Expr, bool] = {}
    entered: set[ir.Expr] = set()
    order: list[ir.Expr] = []
    stack: list[tuple[ir.Expr, bool]] = [(f, False)]
    while stack:
        node, inputs_done = stack.pop()
        if inputs_done:
            found = depends[node] = node == wrt or any(depends[x] for x in _inputs(node))
            if found:
                order.append(node)
            continue
        if node in entered:
            continue
        if not isinstance(node, _PRIMITIVES):
            return None
        entered.add(node)
        stack.append((node, True))
        stack.extend((x, False) for x in reversed(_inputs(node)) if x not in entered)
    return order


def _pullback(node: ir.Expr, bar: ir.Expr) -> Iterator[tuple[ir.Expr, ir.Expr]]:
    """(input, what ``node`` with adjoint ``bar`` passes back to it), for every input."""
    match node:
        case ir.VectorSum(terms=terms) | ir.ScalarSum(terms=terms):
            for term in terms:
                yield term, bar
        case ir.Scaled(coefficient=c, vector=v):
            yield c, ir.Dot(bar, v)
            yield v, _scaled(c, bar)
        case ir.Hadamard(left=left, right=right):
            yield left, ir.Hadamard(bar, right)
            yield right, ir.Hadamard(left, bar)
        case ir.ScalarProduct(factors=factors):
            for k, factor in enumerate(factors):
                yield factor, _product(bar, *factors[:k], *factors[k + 1 :])
        case ir.Dot(left=left, right=right):
            yield left, _scaled(bar, right)
            yield right, _scaled(bar, left)
        case ir.Power(base=base, exponent=n):
            if n != 0:
                slope = () if n == 1 else (ir.power(base, n - 1),)
                yield base, _product(bar, ir.Const(n), *slope)
        case ir.Mean(arg=arg):
            yield arg, _scaled(_product(ir.Const(1 / ir.d), bar), ir.Ones())
        case ir.Center(arg=arg):
            yield arg, ir.Center(bar)
        case ir.Var(arg=arg):
            # P·Pa, not Pa: the rounding of the mean leaves an error along 1 in center(a)
            # (≈ u·1e8 at offsets of 1e8) that a second centering removes, as forward mode's
            # centered tangents do; the exact value is the same (P² = P).
            yield arg, _scaled(_product(ir.Const(2 / ir.d), bar), ir.Center(ir.Center(arg)))
        case ir.Defined():
            yield node.definition(), bar


def _sum(parts: list[ir.Expr]) -> ir.Expr:
    return (ir.VectorSum if parts[0].kind == "vector" else ir.ScalarSum)(tuple(parts))


def _product(*factors: ir.Expr) -> ir.Expr:
    """The product of scalar ``factors``, without the factors 1 (the cotangent of a
    gradient): multiplying by 1 is exact, but its rounding bound would not know it."""
    kept = [x for x in factors if x != _ONE]
    if not kept:
        return _ONE
    return kept[0] if len(kept) == 1 else ir.ScalarProduct(tuple(kept))


def _scaled(c: ir.Expr, v: ir.Expr) -> ir.Expr:
    return v if c == _ONE else ir.Scaled(c, v)
