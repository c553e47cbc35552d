"""Every rule of the slices against the slicing-free oracle: entries, exact arithmetic.

The general engine proves a matrix claim at the generic indices of a *world*
(:mod:`lnsym.engines.general.slicing`); that is part of what a PROVED rests on, so each of its
rules is tested here against :mod:`lnsym.ir.lowering`, which writes a matrix expression entry
by entry with no slicing rule at all. Hypothesis builds random matrix expressions (atoms of
every shape over n, d, m and 1, embedded vectors, sums, scalings, Hadamard products, powers,
transposes, products, sums / means / variances along an axis, group sums and means, the
normalization layers, gradients by matrices and by vectors, e₁) and random small sizes; values
are exact rationals and roots (the concrete engine's :class:`Evaluator`, which shares no code
with the slices).

- *Sides*: a sliced side evaluated at the generic indices — each made-up name instantiated with
  what it stands for (``SlicedSides.made``: row t of Z, γ_j, the row t of X Wᵀ) — equals the
  entries of the original side there; a sum over an axis is the sum of its summands.
- *Relations*: whenever the sliced claims of a world hold with every atom free (as the general
  engine treats them: checked at random exact points at these sizes), the original claim
  holds at every entry. And whatever the general engine proves by slicing holds at every entry.
- *Mutants*: each rule, broken on purpose in a copy of the module, makes one of these fail.
"""

from __future__ import annotations

import contextlib
import dataclasses
import random
import sys
import types
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from lnsym import (
    Eq,
    Le,
    batch_norm,
    batch_norm_eval,
    centered,
    column,
    d,
    dot,
    eps,
    first_case,
    flatten,
    grad,
    group_norm,
    instance_norm,
    layer_norm_rows,
    m,
    matrix,
    mean,
    mean_along,
    n,
    ones,
    ones_matrix,
    rms_norm_rows,
    row,
    scalar,
    sum_along,
    total,
    vector,
)
from lnsym.engines.concrete.arithmetic import Q, Tower, Undefined, sign
from lnsym.engines.concrete.exact import Evaluator
from lnsym.engines.general import GeneralEngine
from lnsym.engines.general import slicing as real_slicing
from lnsym.errors import DomainError, LnsymError, UnsupportedError
from lnsym.ir import batch_layers as real_layers
from lnsym.ir import matrices as mx
from lnsym.ir import nodes as ir
from lnsym.ir.lowering import entry_name, lower, lower_relation
from lnsym.ir.matrices import var_along

ONE = sympy.Integer(1)
SIDES = (d, n, m, ONE)
#: The shapes, those of batches and weights first (hypothesis leans to the first choices);
#: the square ones last (they have no slice of their own, but may sit inside a product).
SHAPES = [
    (n, d), (d, m), (n, m), (ONE, d), (n, ONE), (d, ONE), (m, d), (d, n), (m, n), (ONE, n),
    (ONE, m), (m, ONE), (ONE, ONE), (n, n), (d, d), (m, m),
]  # fmt: skip
#: One matrix atom per shape (a name never stands for two shapes), and a positive one.
NAMES = {
    (ONE, ONE): "a", (ONE, n): "r", (ONE, d): "c", (ONE, m): "s",
    (n, ONE): "b", (n, n): "S", (n, d): "Z", (n, m): "X",
    (d, ONE): "w", (d, n): "R", (d, d): "D", (d, m): "W",
    (m, ONE): "p", (m, n): "U", (m, d): "V", (m, m): "M",
}  # fmt: skip
GAMMA, BETA = vector("gamma"), vector("beta")
DELTA = scalar("delta", positive=True)
VECTORS = [GAMMA, BETA, GAMMA + 2 * BETA, GAMMA * BETA, ones, sympy.Rational(-1, 2) * GAMMA]
COEFFICIENTS = [sympy.Integer(2), sympy.Rational(-1, 3), DELTA, eps, mean(GAMMA), dot(GAMMA, BETA)]
GROUP = "group"  # the key of the generic group's index
INDEX = {n: "t", d: "j", m: "k"}  # the generic index of each axis in made-up names


def atom(shape: tuple[Any, Any], positive: bool = False) -> mx.MatrixAtom:
    """The matrix atom of a shape (``P`` appended for the positive one)."""
    return matrix(NAMES[shape] + ("P" if positive else ""), *shape, positive=positive)


# ---------------------------------------------------------------------------------------
# Random matrix expressions

LEAVES = ("atom", "ones", "first", "embedded", "root")
NODES = (
    "sum", "scaled", "hadamard", "power", "transpose", "product", "outer", "sum_along",
    "mean_along", "var_along", "group_sum", "group_mean", "layer", "matgrad",
)  # fmt: skip


def _applies(kind: str, shape: tuple[Any, Any], grads: bool) -> bool:
    rows, cols = shape
    return {
        "first": cols == ONE and rows != ONE,
        "embedded": shape in ((ONE, d), (d, ONE)),
        "sum_along": ONE in shape,
        "mean_along": ONE in shape,
        "var_along": ONE in shape,
        "group_sum": cols in (d, n),
        "group_mean": cols in (d, n),
        "layer": shape in ((n, d), (d, n)),
        "matgrad": grads,
    }.get(kind, True)


@st.composite
def matrices(
    draw: st.DrawFn,
    shape: tuple[Any, Any],
    depth: int,
    focus: tuple[str, ...] = (),
    grads: bool = True,
    root: str | None = None,
) -> mx.MatrixNode:
    """A random matrix expression of ``shape``; its top node of kind ``root`` where given,
    and below, the kinds in ``focus`` drawn half the time where they apply (so that a test
    aimed at one rule reaches it early)."""
    # Nodes first: hypothesis leans to the first choices, and leaves alone test little.
    kinds = [k for k in (NODES + LEAVES if depth > 0 else LEAVES) if _applies(k, shape, grads)]
    preferred = [k for k in kinds if k in focus]
    if root in kinds:
        kind = root
    elif preferred and draw(st.booleans()):
        kind = draw(st.sampled_from(preferred))
    else:
        kind = draw(st.sampled_from(kinds))

    def sub(s: tuple[Any, Any], allow_grads: bool = grads) -> mx.MatrixNode:
        return draw(matrices(s, depth - 1, focus, allow_grads))

    def narrowed() -> tuple[Any, Any]:  # a shape that broadcasts to ``shape``
        side = draw(st.integers(0, 3))
        return (ONE if side == 1 else rows, ONE if side == 2 else cols)

    rows, cols = shape
    match kind:
        case "atom":
            return atom(shape)
        case "ones":
            return ones_matrix(*shape)
        case "first":
            return first_case(rows)
        case "embedded":
            v = draw(st.sampled_from(VECTORS))
            return row(v) if shape == (ONE, d) else column(v)
        case "root":
            base: mx.MatrixNode = atom(shape, positive=True)
            if draw(st.booleans()):
                base = mx.MatSum((mx.MatHadamard(base, base), ones_matrix(*shape)))
            exponent = draw(st.sampled_from([sympy.Rational(1, 2), -1, sympy.Rational(-1, 2)]))
            return mx.MatPower(base, sympy.Rational(exponent))
        case "sum" | "hadamard":
            parts = [sub(shape), sub(narrowed())]
            if draw(st.booleans()):
                parts.reverse()
            if kind == "sum":
                return mx.MatSum(tuple(parts))
            return mx.MatHadamard(parts[0], parts[1])
        case "scaled":
            if draw(st.booleans()):
                k: Any = total(sub(draw(st.sampled_from(SHAPES)), False))
            else:
                k = ir.as_scalar(draw(st.sampled_from(COEFFICIENTS)))
            return mx.MatScaled(k, sub(shape))
        case "power":
            return mx.MatPower(sub(shape), sympy.Rational(draw(st.sampled_from([2, 3]))))
        case "transpose":
            return mx.Transpose(sub((cols, rows)))
        case "product":
            inner = draw(st.sampled_from(SIDES))
            return mx.MatMul(sub((rows, inner)), sub((inner, cols)))
        case "outer":
            return mx.MatMul(sub((rows, ONE)), sub((ONE, cols)))
        case "sum_along" | "mean_along" | "var_along":
            axis = draw(st.sampled_from([a for a in (0, 1) if shape[a] == ONE]))
            other = draw(st.sampled_from(SIDES))
            arg = sub((other, cols) if axis == 0 else (rows, other))
            made = {"sum_along": sum_along, "mean_along": mean_along, "var_along": var_along}
            return made[kind](arg, axis)
        case "group_sum" | "group_mean":
            groups = draw(st.sampled_from([1, 2]))
            kind_of = mx.GroupSum if kind == "group_sum" else mx.GroupMean
            return kind_of(sub(shape), groups)
        case "layer":
            if shape == (d, n):
                return instance_norm(sub(shape))
            layer = draw(st.sampled_from(["ln", "bn", "rms", "gn1", "gn2", "bn_eval", "ln_affine"]))
            x = sub(shape)
            return {
                "ln": lambda: layer_norm_rows(x),
                "bn": lambda: batch_norm(x),
                "rms": lambda: rms_norm_rows(x),
                "gn1": lambda: group_norm(x, 1),
                "gn2": lambda: group_norm(x, 2),
                "bn_eval": lambda: batch_norm_eval(x, atom((ONE, d)), atom((ONE, d), True)),
                "ln_affine": lambda: layer_norm_rows(x, GAMMA, BETA),
            }[layer]()
        case "matgrad":
            # The variable W in a matrix F of its shape or wider (a row broadcast down a
            # batch), or on the right of a product; the loss Σ G ⊙ F.
            w = atom(shape)
            how = draw(st.sampled_from(["hadamard", "sum", "square", "product"]))
            if how == "product":
                f: mx.MatrixNode = mx.MatMul(sub((draw(st.sampled_from(SIDES)), rows), False), w)
            else:
                wider = [
                    x for x in SHAPES if all(a in (b, ONE) for a, b in zip(shape, x, strict=True))
                ]
                x = sub(draw(st.sampled_from(wider)), False)
                f = mx.MatHadamard(x, w) if how == "hadamard" else mx.MatSum((x, w))
                if how == "square":
                    f = mx.MatPower(f, sympy.Integer(2))
            weights = matrix(NAMES[f.shape] + "g", *f.shape)
            return mx.MatGrad(total(mx.MatHadamard(f, weights)), w)
    raise AssertionError(kind)


@st.composite
def sides(
    draw: st.DrawFn,
    focus: tuple[str, ...] = (),
    depth: int = 3,
    root: str | None = None,
    form: str | None = None,
) -> ir.Expr:
    """A side of a claim: a matrix, the sum of a matrix's entries, a flattened row or
    column, or the gradient of a loss by the vector γ (``form``: one of these, else any);
    its top matrix node of kind ``root`` where given."""
    if form is None:
        forms = ["matrix", "matrix", "matrix", "total", "flatten", "grad"]
        form = "matrix" if root else draw(st.sampled_from(forms))
    height = depth - draw(st.integers(0, depth - 1))  # leaning to the full depth
    shapes = [x for x in SHAPES if root is None or _applies(root, x, form != "grad")]
    if form == "matrix":
        return draw(matrices(draw(st.sampled_from(shapes)), height, focus, root=root))
    if form == "total":
        return total(draw(matrices(draw(st.sampled_from(shapes)), height, focus, root=root)))
    if form == "flatten":
        shape = draw(st.sampled_from([(ONE, d), (d, ONE)]))
        return flatten(draw(matrices(shape, height, focus, root=root)))
    shape = draw(st.sampled_from(shapes))
    return draw(gamma_gradients(matrices(shape, height, focus, grads=False, root=root)))


@st.composite
def products(
    draw: st.DrawFn,
    left: str | None = None,
    right: str | None = None,
    focus: tuple[str, ...] = (),
) -> mx.MatrixNode:
    """A product A B of random shapes, A's top node of kind ``left``, B's of kind ``right``."""
    rows, inner, cols = (draw(st.sampled_from(SIDES)) for _ in range(3))
    a = draw(matrices((rows, inner), 2, focus, root=left))
    return mx.MatMul(a, draw(matrices((inner, cols), 2, focus, root=right)))


@st.composite
def gamma_gradients(draw: st.DrawFn, inner: st.SearchStrategy[mx.MatrixNode]) -> ir.Expr:
    """∇_γ of the sum of the entries of a matrix drawn from ``inner`` (times γᵀ where it
    broadcasts)."""
    f = draw(inner)
    if f.shape[1] in (ONE, d):
        f = mx.MatHadamard(f, row(GAMMA))
    return grad(total(f), GAMMA)


@st.composite
def hiding_gamma(draw: st.DrawFn) -> mx.MatrixNode:
    """A B with γ inside a nonlinearity of B (B ⊙ (B' + γᵀ), (B + γᵀ)²): contracted over
    another axis than the world's, the product is an opaque atom that hides γ."""
    rows, inner = draw(st.sampled_from(SIDES)), draw(st.sampled_from(SIDES))
    v = draw(st.sampled_from([x for x in VECTORS if "gamma" in ir.vector_atoms(x)]))
    shifted = mx.MatSum((draw(matrices((inner, d), 1)), row(v)))
    if draw(st.booleans()):
        right: mx.MatrixNode = mx.MatPower(shifted, sympy.Integer(2))
    else:
        right = mx.MatHadamard(draw(matrices((inner, d), 1)), shifted)
    return mx.MatMul(draw(matrices((rows, inner), 1)), right)


@st.composite
def layers_of(draw: st.DrawFn, layer: str) -> mx.MatrixNode:
    """A normalization layer of a shallow random batch."""
    if layer == "instance":
        return instance_norm(draw(matrices((d, n), 1)))
    x = draw(matrices((n, d), 1))
    made = {"bn": batch_norm, "rms": rms_norm_rows, "gn2": lambda z: group_norm(z, 2)}
    return made[layer](x)


@st.composite
def scaled_by(draw: st.DrawFn, what: str) -> mx.MatrixNode:
    """A random matrix times a scalar that the slice must treat with care: an inner product
    of vectors of ℝ^d (``vectors``), or the sum of a matrix's entries (``total``)."""
    if what == "vectors":
        k: ir.Expr = draw(st.sampled_from([dot(GAMMA, BETA), dot(GAMMA, ones)]))
        return mx.MatScaled(k, draw(matrices(draw(st.sampled_from(SHAPES)), 1)))
    # A sum over one axis besides the features', times a matrix atom that may vary along it.
    k = total(draw(matrices(draw(st.sampled_from([(n, d), (d, n), (n, ONE), (m, d)])), 1)))
    return mx.MatScaled(k, atom(draw(st.sampled_from([(n, ONE), (n, m), (m, n), (m, ONE)]))))


def sizes_for(*exprs: ir.Expr, rng: random.Random) -> dict[sympy.Symbol, int]:
    """Random sizes 1..4; with groups of 2, d and n even (each group count divides them)."""
    grouped = any(
        getattr(x, "groups", 1) > 1 for e in exprs for x in ir.distinct_nodes(e, definitions=True)
    )
    if grouped:
        return {n: rng.choice([2, 4]), d: rng.choice([2, 4]), m: rng.randint(1, 4)}
    return {n: rng.randint(1, 4), d: rng.randint(1, 4), m: rng.randint(1, 4)}


# ---------------------------------------------------------------------------------------
# Exact values: the oracle (entries) and the slices (made-up names instantiated)


class Disagreement(AssertionError):
    """A slice and the oracle disagree at an exact point."""


class Point:
    """Random exact values of every atom and symbol, each drawn from its name and the
    point's seed (so that they do not depend on the order in which they are asked for)."""

    def __init__(self, rng: random.Random, sizes: Mapping[sympy.Symbol, int]) -> None:
        self.seed = rng.randrange(2**32)
        self.sizes = sizes

    def scalar(self, sym: sympy.Symbol) -> Any:
        if sym in (n, d, m):
            return Q(self.sizes[sym])
        # Wide enough that a nonzero polynomial of the few atoms of a claim rarely
        # vanishes at two such points (Schwartz–Zippel).
        rng = random.Random(f"{self.seed}/{sym.name}")
        numerator = rng.randint(1, 60) if sym.is_positive else rng.randint(-60, 60)
        return Q(numerator, rng.randint(1, 9))

    def vector(self, name: str) -> list[Any]:
        return [self.scalar(sympy.Symbol(entry_name(name, i), real=True))
                for i in range(1, self.sizes[d] + 1)]  # fmt: skip


def _symbols(values: Iterable[ir.Expr]) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    for x in ir.distinct_nodes(*values, definitions=True):
        if isinstance(x, ir.Const):
            out |= x.value.free_symbols
    return out


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [y for x in value for y in _leaves(x)]
    return [value]


def _rebuild(value: Any, leaves: Iterator[Any]) -> Any:
    if isinstance(value, list | tuple):
        return tuple(_rebuild(x, leaves) for x in value)
    return next(leaves)


def entries(lowered: Any, point: Point, tower: Tower) -> Any:
    """The exact values of lowered entries (nested lists of scalar IR), as nested tuples."""
    leaves = _leaves(lowered)
    scalars = {s: point.scalar(s) for s in _symbols(leaves)}
    evaluator = Evaluator(1, {}, scalars, tower)
    return _rebuild(lowered, iter([evaluator.value(x) for x in leaves]))


def pick(
    value: Any,
    shape: tuple[Any, Any],
    world: real_slicing.World,
    index: Mapping[Any, int],
    sizes: Mapping[sympy.Symbol, int],
) -> Any:
    """A matrix value at the generic indices: the side along the world kept as a tuple (the
    generic group's block of it in a group world), every other side at its index."""

    def positions(side: Any) -> list[int]:
        if side == ONE:
            return [0]
        if side == world.axis:
            if world.groups:
                size = sizes[d] // world.groups
                return list(range(index[GROUP] * size, (index[GROUP] + 1) * size))
            return list(range(sizes[side]))
        return [index[side]]

    rows, cols = positions(shape[0]), positions(shape[1])
    if shape[0] == world.axis:
        return tuple(value[i][cols[0]] for i in rows)
    if shape[1] == world.axis:
        return tuple(value[rows[0]][j] for j in cols)
    return value[rows[0]][cols[0]]


def oracle(
    side: ir.Expr,
    world: real_slicing.World,
    index: Mapping[Any, int],
    point: Point,
    tower: Tower,
) -> Any:
    """The original side's entries at the generic indices, written out without slices."""
    lowered = lower(side, point.sizes)
    if side.kind == "vector":  # a vector of ℝ^d reads as a 1 × d row
        return entries(pick([lowered], (ONE, d), world, index, point.sizes), point, tower)
    if side.kind == "matrix":
        return entries(pick(lowered, side.shape, world, index, point.sizes), point, tower)
    return entries(lowered, point, tower)


def renamed_sizes(world: real_slicing.World, sizes: Mapping[sympy.Symbol, int]) -> dict[Any, Any]:
    """The values of n, d, m inside a sliced claim, where the world axis is called d."""
    if world.groups:
        return {n: Q(sizes[n]), d: Q(sizes[d] // world.groups), m: Q(sizes[m])}
    out = {axis: Q(sizes[axis]) for axis in (n, d, m)}
    if world.axis != d:
        out[d], out[world.axis] = out[world.axis], out[d]
    return out


def world_dimension(world: real_slicing.World, sizes: Mapping[sympy.Symbol, int]) -> int:
    return sizes[world.axis] // (world.groups or 1)


class Instantiation:
    """The values of a slice's made-up names at the generic indices, from what they stand for."""

    def __init__(
        self, slicing: Any, made: Mapping[str, Any], world: Any, point: Point, tower: Tower
    ) -> None:
        self.slicing = slicing
        self.made, self.world, self.point, self.tower = made, world, point, tower
        self.sources: dict[mx.MatrixNode, Any] = {}

    def value(self, name: str, index: Mapping[Any, int]) -> Any:
        source = self.made[name].source
        if source not in self.sources:
            self.sources[source] = entries(lower(source, self.point.sizes), self.point, self.tower)
        return pick(self.sources[source], source.shape, self.world, index, self.point.sizes)

    def evaluate(self, x: Any, index: Mapping[Any, int]) -> Any:
        """A sliced side at the generic indices; a sum over an axis sums its summands."""
        if isinstance(x, self.slicing.Summed):
            parts = [
                self.evaluate(x.body, {**index, x.axis: i}) for i in range(self.point.sizes[x.axis])
            ]
            return _add(parts)
        vectors: dict[str, tuple[Any, ...]] = {}
        scalars: dict[sympy.Symbol, Any] = {}
        fixed = renamed_sizes(self.world, self.point.sizes)
        for node in ir.distinct_nodes(x, definitions=True):
            if isinstance(node, ir.VectorAtom):
                if node.name in self.made:
                    vectors[node.name] = self.value(node.name, index)
                elif self.world.axis == d and not self.world.groups:
                    vectors[node.name] = tuple(self.point.vector(node.name))
                else:
                    raise Disagreement(f"the vector {node.name} of ℝ^d in {self.world}")
            elif isinstance(node, ir.Const):
                for sym in node.value.free_symbols:
                    if sym.name in self.made:
                        scalars[sym] = self.value(sym.name, index)
                    else:
                        scalars[sym] = fixed[sym] if sym in fixed else self.point.scalar(sym)
        dimension = world_dimension(self.world, self.point.sizes)
        return Evaluator(dimension, vectors, scalars, self.tower).value(x)


def _add(parts: Sequence[Any]) -> Any:
    if isinstance(parts[0], tuple):
        return tuple(_add(xs) for xs in zip(*parts, strict=True))
    out = parts[0]
    for p in parts[1:]:
        out = out + p
    return out


def same(a: Any, b: Any) -> bool:
    """Exact equality of two values (numbers, or tuples of them)."""
    if isinstance(a, tuple) or isinstance(b, tuple):
        return (
            isinstance(a, tuple)
            and isinstance(b, tuple)
            and len(a) == len(b)
            and all(same(x, y) for x, y in zip(a, b, strict=True))
        )
    return sign(a - b) == 0


def indices(
    world: real_slicing.World, sizes: Mapping[sympy.Symbol, int], rng: random.Random
) -> dict[Any, int] | None:
    """Random generic indices of the axes other than the world's (0-based), 1 or not 1 as
    the world's case of e₁ says; None when the case is empty at these sizes (t ≠ 1, n = 1)."""
    out: dict[Any, int] = {}
    for axis in (n, d, m):
        if axis == world.axis:
            continue
        if axis in world.first:
            out[axis] = 0
        elif axis in world.split:
            if sizes[axis] == 1:
                return None
            out[axis] = rng.randrange(1, sizes[axis])
        else:
            out[axis] = rng.randrange(sizes[axis])
    if world.axis in world.split and world.axis not in world.first and sizes[world.axis] == 1:
        return None
    if world.groups:
        out[GROUP] = rng.randrange(world.groups)
    return out


# ---------------------------------------------------------------------------------------
# The checks, for any copy of the slicing module (the mutants are copies)


def check_side(slicing: Any, side: ir.Expr, seed: int) -> int:
    """Every world's slice of ``side`` equals the oracle's entries at random generic indices.

    Returns:
        How many slices were compared (worlds and cases where the side has a slice).

    Raises:
        Disagreement: where a slice and the entries differ.
    """
    rng = random.Random(seed)
    statement = Eq(side, side)
    compared = 0
    for cases in slicing.worlds(statement):
        for world in cases:
            try:
                sliced = slicing.slice_sides(statement, world)
            except slicing.Unsliceable:
                continue
            point = Point(rng, sizes_for(side, rng=rng))
            if world.groups and point.sizes[d] % world.groups:
                continue
            index = indices(world, point.sizes, rng)
            if index is None:
                continue
            tower = Tower()
            try:
                want = oracle(side, world, index, point, tower)
                instances = Instantiation(slicing, sliced.made, world, point, tower)
                got = instances.evaluate(sliced.lhs, index)
            except (Undefined, ZeroDivisionError):
                continue  # outside the domain at this point: nothing to compare
            except (TypeError, ValueError) as e:  # a vector where a number belongs, or lengths
                raise Disagreement(f"{world}: the slice {sliced.lhs} is malformed: {e}") from e
            compared += 1
            if not same(got, want):
                raise Disagreement(
                    f"{world} at {point.sizes}, {index}: the slice {sliced.lhs} differs from "
                    f"the entries of {side}"
                )
    return compared


def holds_free(
    slicing: Any,
    relation: ir.Relation,
    world: Any,
    sizes: Mapping[sympy.Symbol, int],
    rng: random.Random,
) -> bool:
    """Whether a sliced claim holds with every atom free — as the general engine reads it —
    at two random exact points with the world and the other axes at ``sizes``."""
    fixed = renamed_sizes(world, sizes)
    dimension = world_dimension(world, sizes)
    for _ in range(2):
        point = Point(rng, {**sizes, d: dimension})
        vectors: dict[str, tuple[Any, ...]] = {}
        scalars: dict[sympy.Symbol, Any] = {}
        for node in ir.distinct_nodes(relation.lhs, relation.rhs, definitions=True):
            if isinstance(node, ir.VectorAtom):
                vectors[node.name] = tuple(point.vector(node.name))
            elif isinstance(node, ir.Const):
                for sym in node.value.free_symbols:
                    scalars[sym] = fixed[sym] if sym in fixed else point.scalar(sym)
        tower = Tower()
        evaluator = Evaluator(dimension, vectors, scalars, tower)
        try:
            if not same(evaluator.value(relation.lhs), evaluator.value(relation.rhs)):
                return False
        except (Undefined, ZeroDivisionError):
            return False
    return True


def agree_everywhere(statement: ir.Relation, point: Point) -> bool | None:
    """Whether the claim holds at every entry (None: outside its domain at this point)."""
    pairs = lower_relation(statement, point.sizes)
    tower = Tower()
    try:
        left = entries([p.lhs for _, p in pairs], point, tower)
        right = entries([p.rhs for _, p in pairs], point, tower)
    except (Undefined, ZeroDivisionError):
        return None
    return same(left, right)


def check_claim(slicing: Any, claim: tuple[ir.Expr, ir.Expr], seed: int) -> bool:
    """If every case of a world holds with its atoms free, the claim holds at every entry.

    Returns:
        Whether some world held (the claim was "proved" by slices at these sizes).

    Raises:
        Disagreement: for a world that holds while an entry of the claim does not.
    """
    rng = random.Random(seed)
    statement = Eq(*claim)
    sizes = sizes_for(*claim, rng=rng)
    for cases in slicing.worlds(statement):
        if any(w.groups and sizes[d] % w.groups for w in cases):
            continue
        try:
            relations = [slicing.slice_relation(statement, w) for w in cases]
        except slicing.Unsliceable:
            continue
        if all(
            indices(w, sizes, rng) is None or holds_free(slicing, r, w, sizes, rng)
            for w, r in zip(cases, relations, strict=True)
        ):
            if agree_everywhere(statement, Point(rng, sizes)) is False:
                raise Disagreement(f"{cases[0]} at {sizes} proves the false {statement}")
            return True
    return False


def check_names(slicing: Any, side: ir.Expr, seed: int) -> None:
    """No made-up name is one of the claim's names — an assumption's atom, a certificate's
    symbol: the sliced claim keeps them, and would read an assumption as a hypothesis on the
    made-up atom. With such a name in the claim, a world refuses or names its atoms otherwise.

    Raises:
        Disagreement: for a made-up name that the claim uses.
    """
    statement = Eq(side, side)
    for cases in slicing.worlds(statement):
        for world in cases:
            try:
                made = slicing.slice_sides(statement, world).made
            except slicing.Unsliceable:
                continue
            for name in made:
                hostile: list[tuple[ir.Relation, list[Any]]] = [
                    (statement, [centered(vector(name))])
                ]
                if side.kind == "scalar":
                    hostile.append((Le(side, side, [scalar(name) ** 2]), []))
                for claim, assumptions in hostile:
                    try:
                        again = slicing.slice_sides(claim, world, assumptions).made
                    except slicing.Unsliceable:
                        continue
                    if name in again:
                        raise Disagreement(f"{world} makes up {name}, a name of {claim}")


# ---------------------------------------------------------------------------------------
# Claims: a side and a variant of it, true (a rewrite) or false (a trap for one rule)


def _rewrite(e: mx.MatrixNode, how: str) -> mx.MatrixNode | None:
    """``e`` rewritten at its root by one identity (true) or trap (false), or None."""
    rows, cols = e.shape
    match how, e:
        case "transpose_twice", _:
            return mx.Transpose(mx.Transpose(e))
        case "commute", mx.MatSum(terms=terms):
            return mx.MatSum(tuple(reversed(terms)))
        case "commute", mx.MatHadamard(left=a, right=b):
            return mx.MatHadamard(b, a)
        case "distribute", mx.MatMul(left=a, right=mx.MatSum(terms=terms) as s):
            return mx.MatSum(tuple(mx.MatMul(a, mx.MatHadamard(t, ones_matrix(*s.shape)))
                                   for t in terms))  # fmt: skip
        case "transpose_product", mx.MatMul(left=a, right=b):
            return mx.Transpose(mx.MatMul(mx.Transpose(b), mx.Transpose(a)))
        case "sum_transposed", mx.SumAlong(arg=a, axis=axis):
            return mx.Transpose(mx.SumAlong(mx.Transpose(a), 1 - axis))
        case "shift", mx.MatrixNode() if isinstance(e, real_layers.RowStandardize):
            shift = mx.MatMul(atom((e.arg.shape[0], ONE)), ones_matrix(ONE, e.arg.shape[1]))
            return real_layers.RowStandardize(mx.MatSum((e.arg, shift)), e.eps)
        # Traps: false in general, proved only by a broken rule.
        case "square", _ if rows == cols != ONE:
            return mx.Transpose(e)
        case "first_case", _ if rows == n:
            return mx.MatHadamard(first_case(n), e)  # right in the case t = 1 only
        case "summed", _ if rows == ONE:
            return mx.SumAlong(mx.MatMul(ones_matrix(n, ONE), e), 0)
        case "alias_row", mx.MatrixAtom(name=name) if cols == d and rows not in (ONE, d):
            # The name the row world gives the generic row of the atom, as a user's vector.
            label = f"{name}_{INDEX[rows]}j"
            return mx.MatMul(ones_matrix(rows, ONE), row(vector(label)))
        case "alias_entry", mx.MatrixAtom(name=name) if m not in e.shape and ONE not in e.shape:
            # The name the world m gives the generic entry of the atom, as a 1 × 1 matrix.
            label = f"{name}_{INDEX[rows]}{INDEX[cols]}"
            return mx.MatHadamard(ones_matrix(rows, cols), matrix(label, 1, 1))
        case "group_axis", mx.GroupSum(arg=a, groups=g) if a.shape[0] == d:
            return mx.Transpose(mx.GroupSum(mx.Transpose(a), g))
    return None


#: The true rewrites and the traps, the least trivial first (hypothesis leans to them).
REWRITES = (
    "square", "first_case", "summed", "alias_row", "alias_entry", "group_axis", "shift",
    "distribute", "transpose_product", "sum_transposed", "commute", "transpose_twice",
)  # fmt: skip


def _children(e: ir.Expr) -> list[tuple[str, int | None, ir.Expr]]:
    """The fields of a node that hold matrices (with their position in a tuple field), but
    not the variable of a gradient."""
    out: list[tuple[str, int | None, ir.Expr]] = []
    for f in dataclasses.fields(e):  # type: ignore[arg-type]
        value = getattr(e, f.name)
        items = enumerate(value) if isinstance(value, tuple) else [(None, value)]
        out.extend(
            (f.name, i, x)
            for i, x in items
            if f.name != "wrt" and isinstance(x, ir.Expr) and mx.has_matrices(x)
        )
    return out


Path = tuple[tuple[str, int | None], ...]


def _subterms(e: ir.Expr, path: Path = ()) -> Iterator[tuple[Path, ir.Expr]]:
    """Every sub-expression holding matrices, with the path of fields that leads to it."""
    yield path, e
    for field, position, child in _children(e):
        yield from _subterms(child, (*path, (field, position)))


def _replaced(e: ir.Expr, path: Path, new: ir.Expr) -> ir.Expr:
    if not path:
        return new
    (field, position), rest = path[0], path[1:]
    value = getattr(e, field)
    if position is None:
        return dataclasses.replace(e, **{field: _replaced(value, rest, new)})  # type: ignore[type-var]
    terms = list(value)
    terms[position] = _replaced(terms[position], rest, new)
    return dataclasses.replace(e, **{field: tuple(terms)})  # type: ignore[type-var]


@st.composite
def variants(draw: st.DrawFn, e: ir.Expr, focus: tuple[str, ...] = ()) -> ir.Expr:
    """``e`` with one sub-expression rewritten by one of ``focus`` (default: any rewrite),
    chosen among those that apply; else ``e`` itself."""
    found = [
        (path, new)
        for how in focus or REWRITES
        for path, x in _subterms(e)
        if isinstance(x, mx.MatrixNode)
        for new in [_rewrite(x, how)]
        if new is not None
    ]
    if not found:
        return e
    path, new = draw(st.sampled_from(found))
    try:
        return _replaced(e, path, new)
    except LnsymError:  # a node rebuilt around the rewrite may refuse it: keep e
        return e


@st.composite
def claims(
    draw: st.DrawFn, focus: tuple[str, ...] = (), rewrites: tuple[str, ...] = (), depth: int = 2
) -> tuple[ir.Expr, ir.Expr]:
    """Two sides: a random one, and the same with one rewrite (true) or trap (false)."""
    lhs = draw(sides(focus, depth))
    return lhs, draw(variants(lhs, rewrites))


@st.composite
def transposed_squares(draw: st.DrawFn) -> tuple[ir.Expr, ir.Expr]:
    """A = Aᵀ for a random square A: false unless A is symmetric, and alike at one generic
    index per axis (the diagonal), which is why a square matrix has no slice."""
    lhs = draw(matrices(draw(st.sampled_from([(n, n), (d, d), (m, m)])), 2))
    return lhs, mx.Transpose(lhs)


# ---------------------------------------------------------------------------------------
# The generated tests

SEEDS = st.integers(0, 2**32 - 1)


@settings(max_examples=400)
@given(side=sides(), seed=SEEDS)
def test_every_slice_equals_the_entries_at_its_generic_indices(side: ir.Expr, seed: int) -> None:
    """A slice stands for the entries at its generic indices: every rule must keep that."""
    check_side(real_slicing, side, seed)


def test_the_generated_cases_reach_slices_and_proofs() -> None:
    """Not vacuous: many generated sides have a slice, many claims are proved by one, and
    the general engine proves some (fixed examples)."""
    sliced: list[int] = []
    held: list[bool] = []
    proved: list[bool] = []

    @settings(max_examples=40, database=None, derandomize=True)
    @given(side=sides(), claim=claims(), seed=SEEDS)
    def count(side: ir.Expr, claim: tuple[ir.Expr, ir.Expr], seed: int) -> None:
        sliced.append(check_side(real_slicing, side, seed))
        held.append(check_claim(real_slicing, claim, seed))
        with contextlib.suppress(UnsupportedError, DomainError):
            proved.append(GeneralEngine().decide(Eq(*claim)).proved)

    count()
    assert sum(1 for k in sliced if k) >= len(sliced) // 3, sliced
    assert sum(held) >= len(held) // 5, held
    assert sum(proved) >= len(proved) // 10, proved


@settings(max_examples=250)
@given(claim=claims(), seed=SEEDS)
def test_a_world_whose_slices_hold_with_free_atoms_proves_a_true_claim(
    claim: tuple[ir.Expr, ir.Expr], seed: int
) -> None:
    """The soundness argument itself: an identity in free atoms holds at their values."""
    check_claim(real_slicing, claim, seed)


@settings(max_examples=40)
@given(claim=claims(depth=2), seed=SEEDS)
def test_what_the_general_engine_proves_by_slicing_holds_at_every_entry(
    claim: tuple[ir.Expr, ir.Expr], seed: int
) -> None:
    """A PROVED rests on the slices: what the engine proves must hold entry by entry."""
    statement = Eq(*claim)
    try:
        proved = GeneralEngine().decide(statement).proved
    except (UnsupportedError, DomainError):  # beyond its limits, or undefined: not proved
        return
    if proved:
        rng = random.Random(seed)
        for _ in range(2):
            assert agree_everywhere(statement, Point(rng, sizes_for(*claim, rng=rng))) is not False


@settings(max_examples=100)
@given(side=sides(), seed=SEEDS)
def test_a_made_up_name_is_never_one_of_the_claims_names(side: ir.Expr, seed: int) -> None:
    """The row world keeps the assumptions: a made-up name must not be one of theirs."""
    check_names(real_slicing, side, seed)


@settings(max_examples=30)
@given(f=st.sampled_from([n, m, ONE]).flatmap(lambda rows: matrices((rows, d), 1)))
def test_assumptions_on_made_up_names_prove_nothing_new(f: mx.MatrixNode) -> None:
    """An assumption on an atom the statement lacks says nothing about it: assuming a vector
    named like a slice's row centered must not prove mean(rows) = 0 (it may cost a world,
    never add a proof). The engine must hand the claim's assumptions to the slices."""
    statement = Eq(mean_along(f, 1), 0 * ones_matrix(f.shape[0], 1))
    try:
        made = real_slicing.slice_sides(statement, real_slicing.World(d)).made
    except real_slicing.Unsliceable:
        return
    hostile = [centered(vector(name)) for name in sorted(made)]
    engine = GeneralEngine()
    if engine.decide(statement, hostile).proved:
        assert engine.decide(statement).proved


def test_the_engine_refuses_the_issue_examples() -> None:
    """Issue 32's three shapes of the bugs, through the engine (the generated tests above
    cover their classes)."""
    z = matrix("Z", n, d)
    statement = Eq(mean_along(z, 1), 0 * ones_matrix(n, 1))
    assert not GeneralEngine().decide(statement, [centered(vector("Z_tj"))]).proved
    x, v = matrix("X", n, m), matrix("V", m, d)
    hidden = Eq(grad(total(x @ (v * (v + row(GAMMA)))), GAMMA), grad(total(x @ (v * v)), GAMMA))
    assert not GeneralEngine().decide(hidden).proved
    r = matrix("R", d, n)
    wrong_axis = Eq(mx.GroupSum(r, 2), mx.GroupSum(r.T, 2).T)
    assert not GeneralEngine().decide(wrong_axis).proved


# ---------------------------------------------------------------------------------------
# Mutants: each rule broken in a copy of the module must make a generated test fail


def mutant_module(old: str, new: str) -> types.ModuleType:
    """A copy of the slicing module with ``old`` (found exactly once) replaced by ``new``."""
    path = real_slicing.__file__
    assert path is not None
    with open(path, encoding="utf-8") as f:
        source = f.read()
    assert source.count(old) == 1, f"the mutant's text occurs {source.count(old)} times: {old!r}"
    name = f"_slicing_mutant_{abs(hash((old, new)))}"
    module = types.ModuleType(name)
    module.__file__ = path
    sys.modules[name] = module  # dataclasses look their module up
    try:
        exec(compile(source.replace(old, new), path, "exec"), module.__dict__)
    finally:
        del sys.modules[name]
    return module


Check = Callable[[Any, Any, int], Any]


# (rule, text in slicing.py, its mutation, the check, the strategy aimed at the rule)
MUTANTS: list[tuple[str, str, str, Check, st.SearchStrategy[Any]]] = [
    ("a sum drops a term",
     "return self.combine_sum(parts)  # type: ignore[arg-type]",
     "return self.combine_sum(parts[1:] or parts)  # type: ignore[arg-type]",
     check_side, sides(root="sum")),
    ("a product drops a factor",
     "return self.combine_product(parts)  # type: ignore[arg-type]",
     "return self.combine_product(parts[1:] or parts)  # type: ignore[arg-type]",
     check_side, sides(("scaled",), root="hadamard")),
    ("the ones matrix is 2 at an entry",
     "return ir.Ones() if spread is not None else ir.Const(_ONE)\n            case mx.FirstCase",
     "return ir.Ones() if spread is not None else ir.Const(2 * _ONE)\n"
     "            case mx.FirstCase",
     check_side, sides(("ones",), root="sum")),
    ("e₁ reads its cases swapped",
     "sympy.Integer(1 if side in self.world.first else 0)",
     "sympy.Integer(0 if side in self.world.first else 1)",
     check_side, sides(("first",), root="hadamard")),
    ("an integer power of a vector is one too high",
     "for _ in range(int(p) - 1):",
     "for _ in range(int(p)):",
     check_side, sides(root="power")),
    ("a power of an entry is one too high",
     'if base.kind == "scalar":\n            return ir.Power(base, p)',
     'if base.kind == "scalar":\n            return ir.Power(base, p + 1)',
     check_side, sides(root="root")),
    ("an embedded vector's entry drops its scale",
     "return self.combine_product([c, entry(u)])",
     "return entry(u)",
     check_side, sides(root="embedded")),
    ("an outer product drops a factor",
     "return self.multiplied([self.slice(a), self.slice(b)])\n        if inner == self.world",
     "return self.slice(a)\n        if inner == self.world",
     check_side, sides(root="outer")),
    ("a product over the world pairs a factor with itself",
     "return ir.Dot(left, right)",
     "return ir.Dot(left, left)",
     check_side, products()),
    ("a left factor's column scale is taken along the wrong axis",
     "case mx.MatHadamard(left=a, right=b) if a.shape[keep] == _ONE:",
     "case mx.MatHadamard(left=a, right=b) if a.shape[1 - keep] == _ONE:",
     check_side, products(left="hadamard")),
    ("a transposed scaling drops its coefficient",
     "return mx.MatScaled(c, mx.Transpose(x))",
     "return mx.Transpose(x)",
     check_side, st.one_of(products("transpose", focus=("scaled",)),
                           products(right="transpose", focus=("scaled",)))),
    ("an outer product inside a product drops its row",
     "return self.multiplied([self.product(a, b.left), self.slice(b.right)])",
     "return self.multiplied([self.product(a, b.left)])",
     check_side, products(right="outer")),
    ("an outer product inside a product drops its column",
     "return self.multiplied([self.slice(a.left), self.product(a.right, b)])",
     "return self.multiplied([self.product(a.right, b)])",
     check_side, products(left="outer")),
    ("one opaque atom for products with the same left factor",
     "key = (e, spread)",
     "key = (e.left, spread)",
     check_side, products(right="sum")),
    ("a gradient by a matrix hidden in a product",
     "self.refuse_hidden(inner, w)",
     "pass",
     check_side, sides(root="matgrad")),
    ("a gradient by a vector hidden in a product",
     "self.refuse_hidden(inner, wrt)",
     "pass",
     check_side, gamma_gradients(hiding_gamma())),
    ("a gradient by a matrix of a sum over another axis",
     "if inner.axis != w.shape[1 - spread]:",
     "if False:",
     check_side, sides(root="matgrad")),
    ("a gradient by a vector drops the sum over the batch",
     "return Summed(inner.axis, Grad(inner.body, wrt))",
     "return Grad(inner.body, wrt)",
     check_side, sides(form="grad")),
    ("a sum along an axis sums the other",
     "return self.summed(a, a.shape[axis])",
     "return self.summed(a, a.shape[1 - axis])",
     check_side, sides(root="mean_along")),
    ("a sum along the world is a square",
     "return ir.Dot(ir.Ones(), inner)\n        if isinstance(inner, Summed):",
     "return ir.Dot(inner, inner)\n        if isinstance(inner, Summed):",
     check_side, sides(root="sum_along")),
    ("a sum over the index e₁ splits",
     "if side in self.world.split:",
     "if False:",
     check_side, sides(("first", "hadamard"), form="total")),
    ("a factor that varies along a sum is moved into it",
     "not isinstance(p, ir.Const) or {str(x) for x in p.value.free_symbols} & varying",
     "not isinstance(p, ir.Const)",
     check_side, scaled_by("total")),
    ("a term outside a sum over the batch is dropped",
     "if len(sums) < len(parts) or len({p.axis for p in sums}) > 1:",
     "if len({p.axis for p in sums}) > 1:",
     check_side, sides(("sum_along", "mean_along"), root="sum")),
    ("the world is not renamed d",
     "return {world.axis: d, d: world.axis}",
     "return {}",
     check_side, sides(root="mean_along")),
    ("a group world keeps d",
     "return {d: world.groups * d}",
     "return {}",
     check_side, sides(root="group_mean")),
    ("a group sum ignores its axis",
     "case mx.GroupSum(arg=a, groups=g) if spread == 1 and (",
     "case mx.GroupSum(arg=a, groups=g) if spread is not None and (",
     check_side, matrices((d, n), 2, root="group_sum")),
    ("a group sum is its argument",
     "return ir.Scaled(ir.Dot(ir.Ones(), inner), ir.Ones())",
     "return inner",
     check_side, sides(root="group_sum")),
    ("layer norm of the columns",
     "case layers.RowStandardize(arg=a, eps=eps) if spread == 1 and",
     "case layers.RowStandardize(arg=a, eps=eps) if spread is not None and",
     check_side, layers_of("instance")),
    ("batch norm of the rows",
     "case layers.BatchStandardize(arg=a, eps=eps) if spread == 0:",
     "case layers.BatchStandardize(arg=a, eps=eps) if spread is not None:",
     check_side, layers_of("bn")),
    ("group norm of the whole row",
     "self.world.groups == g or (g == 1 and self.row_world)\n            ):\n"
     "                return Core",
     "self.world.groups == g or self.row_world\n            ):\n                return Core",
     check_side, layers_of("gn2")),
    ("RMS norm read as a core",
     "return RMSNorm(self.expr(a), self.expr(eps))",
     "return Core(self.expr(a), self.expr(eps))",
     check_side, layers_of("rms")),
    ("a vector of ℝ^d kept outside the row world",
     "isinstance(x, ir.VectorAtom | ir.Ones | ir.Defined)",
     "isinstance(x, ir.Defined)",
     check_side, scaled_by("vectors")),
    ("a square matrix seen on its diagonal",
     "if shape[0] == shape[1] != _ONE:",
     "if False:",
     check_claim, transposed_squares()),
    ("e₁'s second case dropped",
     "for first in cases]",
     "for first in cases[:1]]",
     check_claim, claims(rewrites=("first_case",))),
    ("a sum over the batch equated with a term",
     'raise Unsliceable("one side is a sum over the batch and the other is not")',
     "lhs = lhs.body if isinstance(lhs, Summed) else lhs\n"
     "        rhs = rhs.body if isinstance(rhs, Summed) else rhs",
     check_claim, claims(rewrites=("summed",))),
    ("a made-up name equal to a name of the statement",
     "if label in self.taken or self.made.setdefault(label, key) != key:",
     "if self.made.setdefault(label, key) != key:",
     check_claim, claims(rewrites=("alias_row",))),
    ("one made-up name for two quantities",
     "if label in self.taken or self.made.setdefault(label, key) != key:",
     "if label in self.taken:",
     check_claim, claims(rewrites=("alias_entry",))),
    ("the assumptions' atoms left out of the namespace",
     "roots.extend(assumptions)",
     "pass",
     check_names, sides()),
    ("the certificate's symbols left out of the namespace",
     'roots: list[Any] = [statement.lhs, statement.rhs, *getattr(statement, "certificate", ())]',
     "roots: list[Any] = [statement.lhs, statement.rhs]",
     check_names, sides(form="total")),
]  # fmt: skip


@pytest.mark.parametrize(
    "rule, old, new, check, cases", MUTANTS, ids=[mutant[0] for mutant in MUTANTS]
)
def test_every_planted_mutant_is_caught(
    rule: str, old: str, new: str, check: Check, cases: st.SearchStrategy[Any]
) -> None:
    """A rule no generated test depends on is untested: each broken one must be noticed."""
    mutant = mutant_module(old, new)

    @settings(
        max_examples=300,
        derandomize=True,
        phases=[Phase.generate],
        database=None,
        report_multiple_bugs=False,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases, seed=SEEDS)
    def run(case: Any, seed: int) -> None:
        check(mutant, case, seed)

    with pytest.raises(Disagreement):
        run()
