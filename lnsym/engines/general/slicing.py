"""Matrix claims for symbolic n, d and m: a generic slice turns them into claims on ℝ^k.

A statement about matrices holds if it holds at a generic index of every axis but one, the
*world* axis, whose entries stay a vector: a generic row t of an n × d batch is a vector of
ℝ^d, a generic column j a vector of ℝ^n, a generic entry of X Wᵀ the inner product of two
vectors of ℝ^m. Under the slice every matrix node becomes a node of the one-axis IR over the
world, which the general engine already decides for a symbolic dimension: a matrix atom
becomes a vector atom (its row or column at the generic index) or a scalar symbol (its entry);
a per-feature vector of ℝ^d becomes itself or its entry γ_j; layer norm of the rows becomes
the core of the row; a product contracted over the world becomes an inner product; a sum down
a non-world axis becomes a sum over the generic index (Σ_t), allowed only where a claim's two
sides are both such sums — it is proved by proving the summands equal, which is sufficient.

Products contracted over another axis are distributed over sums, scalar multiples and the
diagonal scalings that commute with them; what is left (X Wᵀ at world d: the row W x_t) is an
opaque atom, the same one wherever the same product appears. Opaque atoms and scalars range
over all values, which is sound for a proof: an identity in them holds in particular at the
values the matrices give them. A first basis vector e₁ (a single training case) splits the
generic index into two cases, t = 1 and t ≠ 1, both of which must be proved.

The world axis is renamed d in the sliced claim (and d renamed to it), so the general engine's
dimension is the world's; a group world (group normalization with G groups) has dimension d/G.

Every name the slice makes up is recorded with what it stands for (:class:`Made`), and is
refused when the claim already uses it anywhere — its statement, its certificate, its
assumptions — since the sliced claim keeps the assumptions and would read them as
hypotheses on the made-up atom. A gradient refuses a variable that a made-up atom hides (an
opaque product containing it): the slice would differentiate the atom as a constant.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import sympy

from lnsym import ir
from lnsym.errors import UnsupportedError
from lnsym.ir import batch_layers as layers
from lnsym.ir import matrices as mx
from lnsym.ir.calculus import Grad
from lnsym.ir.layers import Core, RMSNorm
from lnsym.ir.matrices import has_matrices
from lnsym.ir.names import d, m, n

_INDEX = {n: "t", d: "j", m: "k"}
_ONE = sympy.Integer(1)


class Unsliceable(UnsupportedError):
    """The expression has no slice in this world."""


@dataclass(frozen=True)
class Summed:
    """Σ over the generic index of the non-world ``axis`` of ``body``."""

    axis: sympy.Expr
    body: ir.Expr


Sliced = ir.Expr | Summed


@dataclass(frozen=True)
class World:
    """The axis whose entries stay a vector, (for a group world) the number of groups the d
    features form, the axes whose generic index e₁ splits into cases (``split``), and those
    whose index is 1 in this case (``first``; the others are ≠ 1)."""

    axis: sympy.Symbol
    groups: int = 0
    split: frozenset[sympy.Expr] = frozenset()
    first: frozenset[sympy.Expr] = frozenset()

    def describe(self) -> str:
        if self.groups:
            return f"along a generic group of d/{self.groups} features of a generic row"
        return {
            d: "along the features (a generic vector of ℝᵈ)",
            n: "along the batch (a generic vector of ℝⁿ)",
            m: "along the inputs (a generic inner product in ℝᵐ)",
        }[self.axis]


def worlds(statement: ir.Relation) -> Iterator[list[World]]:
    """The worlds to try, each as its cases: row, column and entry worlds, and group
    worlds for the group counts that occur (inside definitions too: a user's node may hold
    an e₁ or a group count in its definition alone)."""
    nodes = list(ir.distinct_nodes(statement.lhs, statement.rhs, definitions=True))
    split = sorted({x.rows for x in nodes if isinstance(x, mx.FirstCase)}, key=str)
    # Every combination of "index 1" and "index ≠ 1", one per axis e₁ lives on.
    cases = [
        frozenset(a for a, first in zip(split, choice, strict=True) if first)
        for choice in itertools.product((True, False), repeat=len(split))
    ]
    grouped = (mx.GroupSum, mx.GroupMean, layers.GroupStandardize)
    groups = sorted({x.groups for x in nodes if isinstance(x, grouped)})
    for axis, g in [(d, 0), (n, 0), (m, 0), *((d, g) for g in groups)]:
        yield [World(axis, g, frozenset(split), first) for first in cases]


@dataclass(frozen=True)
class Made:
    """What a name made up by the slice stands for: the slice of ``source`` at the world's
    generic indices — its row (``spread`` 1: the columns lie along the world) or its column
    (``spread`` 0) there as a vector, restricted to the generic group in a group world, or
    (``spread`` None) its entry. ``source`` is a matrix atom, an embedded vector of ℝ^d
    (``row(γ)``: γ_j, or its group γ_g) or an opaque product."""

    source: mx.MatrixNode
    spread: int | None


@dataclass(frozen=True)
class SlicedSides:
    """Both sides of a statement at the generic indices of one world, constants renamed;
    a side may be a :class:`Summed`. ``made`` records what every made-up name stands for."""

    lhs: Sliced
    rhs: Sliced
    made: Mapping[str, Made]
    world: World


def slice_sides(
    statement: ir.Relation, world: World, assumptions: Iterable[ir.Assumption] = ()
) -> SlicedSides:
    """The two sides at the world's generic indices, each possibly a sum over an axis.

    Raises:
        Unsliceable: when a side has no slice in this world, or a made-up name is one of the
            claim's names (statement, certificate or ``assumptions``).
    """
    slicer = _Slicer(world, namespace(statement, assumptions))
    lhs, rhs = slicer.slice(statement.lhs), slicer.slice(statement.rhs)
    rename = _renaming(world)
    return SlicedSides(
        _rename_sliced(lhs, rename), _rename_sliced(rhs, rename), dict(slicer.made), world
    )


def slice_relation(
    statement: ir.Relation, world: World, assumptions: Iterable[ir.Assumption] = ()
) -> ir.Relation:
    """The statement at the world's generic indices, as a claim of the one-axis IR.

    ``assumptions`` are the claim's: a name the slice makes up must be none of their atoms,
    which the sliced claim keeps.

    Raises:
        Unsliceable: when a side has no slice in this world, or a made-up name is taken.
    """
    sides = slice_sides(statement, world, assumptions)
    lhs, rhs = sides.lhs, sides.rhs
    if isinstance(lhs, Summed) != isinstance(rhs, Summed):
        raise Unsliceable("one side is a sum over the batch and the other is not")
    if isinstance(lhs, Summed) and isinstance(rhs, Summed):
        if lhs.axis != rhs.axis:
            raise Unsliceable("the two sides are sums over different axes")
        lhs, rhs = lhs.body, rhs.body  # equal summands give equal sums
    assert isinstance(lhs, ir.Expr) and isinstance(rhs, ir.Expr)
    if isinstance(statement, ir.Le):
        return ir.Le(lhs, rhs)
    return ir.Eq(lhs, rhs)


def namespace(statement: ir.Relation, assumptions: Iterable[ir.Assumption] = ()) -> frozenset[str]:
    """Every name of a claim: its vector atoms and scalar symbols, in the statement (inside
    definitions too), the certificate of an inequality and the assumptions. A name the slice
    makes up must be none of them, or two different quantities would become one.

    Raises:
        Unsliceable: for a symbol named like an axis (n, d, m) that is not the axis: the
            slice renames the axes, and the two would read alike.
    """
    roots: list[Any] = [statement.lhs, statement.rhs, *getattr(statement, "certificate", ())]
    roots.extend(assumptions)
    out: set[str] = set()
    symbols: set[sympy.Symbol] = set()
    stack = roots
    seen: set[int] = set()
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        if isinstance(x, sympy.Basic):
            symbols |= {s for s in x.free_symbols if isinstance(s, sympy.Symbol)}
        elif isinstance(x, tuple | list):
            stack.extend(x)
        elif isinstance(x, ir.Expr | ir.Assumption) and dataclasses.is_dataclass(x):
            if isinstance(x, ir.VectorAtom):  # (a matrix atom's names are all made up)
                out.add(x.name)
            stack.extend(getattr(x, f.name) for f in dataclasses.fields(x))
            if isinstance(x, ir.Defined):
                stack.append(x.definition())
    axes = {str(a): a for a in _INDEX}
    for sym in symbols:
        if axes.get(sym.name, sym) != sym:
            raise Unsliceable(f"a symbol named {sym.name} that is not the axis {sym.name}")
    return frozenset(out | {s.name for s in symbols})


def _rename_sliced(x: Sliced, rename: dict[sympy.Symbol, sympy.Expr]) -> Sliced:
    if isinstance(x, Summed):
        return Summed(x.axis, _map_constants(x.body, rename))
    return _map_constants(x, rename)


def _renaming(world: World) -> dict[sympy.Symbol, sympy.Expr]:
    if world.groups:
        return {d: world.groups * d}
    if world.axis == d:
        return {}
    return {world.axis: d, d: world.axis}


def _map_constants(e: ir.Expr, rename: dict[sympy.Symbol, sympy.Expr]) -> ir.Expr:
    if not rename:
        return e

    def fix(x: Any) -> Any:
        if isinstance(x, sympy.Basic):
            return x.xreplace(rename)
        if isinstance(x, tuple):
            return tuple(fix(y) for y in x)
        if isinstance(x, ir.Expr) and dataclasses.is_dataclass(x):
            changes = {f.name: fix(getattr(x, f.name)) for f in dataclasses.fields(x)}
            return dataclasses.replace(x, **changes)
        return x

    return fix(e)


class _Slicer:
    """Slices of the nodes of one statement in one world (opaque atoms shared by both sides)."""

    def __init__(self, world: World, taken: frozenset[str]) -> None:
        self.world = world
        self.taken = taken
        self.opaque: dict[tuple[Any, ...], ir.Expr] = {}
        self.made: dict[str, Made] = {}  # each made-up name → what it stands for
        self.depends: dict[sympy.Expr, set[str]] = {}  # axis → names that vary along it

    def made_up(self, label: str, key: Made, sides: tuple[sympy.Expr, ...]) -> str:
        """``label`` for the quantity ``key`` whose generic indices are those of ``sides``:
        refused if the claim uses it or it already stands for something else."""
        if label in self.taken or self.made.setdefault(label, key) != key:
            raise Unsliceable(f"the name {label} that the slice would give is already in use")
        for side in sides:
            if side not in (_ONE, self.world.axis):
                self.depends.setdefault(side, set()).add(label)
        return label

    @property
    def row_world(self) -> bool:
        """Whether the world is ℝ^d itself, where the one-axis IR keeps its meaning."""
        return self.world.axis == d and not self.world.groups

    # -- where a matrix of a shape lives -----------------------------------------------
    def spread(self, shape: mx.Shape) -> int | None:
        """Which side stays a vector (0 rows, 1 columns), or None for an entry."""
        if shape[0] == shape[1] != _ONE:
            # One generic index per axis: a square matrix would be seen on its diagonal only.
            raise Unsliceable(f"a square {shape[0]} × {shape[1]} matrix")
        sides = [i for i, side in enumerate(shape) if side == self.world.axis]
        if len(sides) > 1:
            raise Unsliceable(f"a {shape[0]} × {shape[1]} matrix has two sides along the world")
        return sides[0] if sides else None

    def index(self, side: sympy.Expr) -> str:
        return "" if side == _ONE else _INDEX[side]

    # -- the walk ----------------------------------------------------------------------
    def slice(self, e: ir.Expr) -> Sliced:
        if isinstance(e, mx.MatrixNode):
            return self.matrix(e)
        if not has_matrices(e):
            return self.plain(e)
        match e:
            case mx.Entry(arg=a):
                return self.slice(a)
            case mx.Flattened(arg=a) if self.row_world:
                return self.slice(a)
            case Grad(expr=f, wrt=wrt) if self.row_world:
                inner = self.slice(f)
                self.refuse_hidden(inner, wrt)
                if isinstance(inner, Summed):
                    return Summed(inner.axis, Grad(inner.body, wrt))
                return Grad(inner, wrt)
            case ir.ScalarSum(terms=terms) | ir.VectorSum(terms=terms):
                return self.added([self.slice(t) for t in terms])
            case ir.ScalarProduct(factors=factors):
                return self.multiplied([self.slice(f) for f in factors])
            case ir.Scaled(coefficient=c, vector=v) | ir.Hadamard(left=c, right=v):
                return self.multiplied([self.slice(c), self.slice(v)])
            case ir.Power(base=b, exponent=p):
                base = self.slice(b)
                if isinstance(base, Summed):
                    raise Unsliceable("a power of a sum over the batch")
                return ir.Power(base, p)
        raise Unsliceable(f"{type(e).__name__} of matrices has no slice here")

    def plain(self, e: ir.Expr) -> ir.Expr:
        """A node of the one-axis IR: itself at world d, a constant elsewhere — where it
        may mention no vector of ℝ^d, nor d inside a definition, which the renaming of the
        axes would not reach."""
        if self.row_world:
            return e
        if e.kind == "scalar" and not any(
            isinstance(x, ir.VectorAtom | ir.Ones | ir.Defined)
            for x in ir.distinct_nodes(e, definitions=True)
        ):
            return e
        raise Unsliceable("a vector of ℝ^d, or a defined node, outside a matrix")

    def refuse_hidden(self, inner: Sliced, variable: ir.Expr) -> None:
        """Refuse a gradient by ``variable`` of ``inner`` when a made-up atom of ``inner``
        other than the variable's own slice stands for something that contains it (an
        opaque product such as X (V ⊙ γ)): differentiated as a free atom, it would count as a
        constant."""
        body = inner.body if isinstance(inner, Summed) else inner
        names: set[str] = set()
        for x in ir.distinct_nodes(body, definitions=True):
            if isinstance(x, ir.VectorAtom):
                names.add(x.name)
            elif isinstance(x, ir.Const):
                names |= {str(s) for s in x.value.free_symbols}
        for name in sorted(names & self.made.keys()):
            source = self.made[name].source
            if source != variable and any(
                x == variable for x in ir.distinct_nodes(source, definitions=True)
            ):
                raise Unsliceable(f"the variable of a gradient hidden in {name}")

    def added(self, parts: list[Sliced]) -> Sliced:
        sums = [p for p in parts if isinstance(p, Summed)]
        if not sums:
            return self.combine_sum(parts)  # type: ignore[arg-type]
        if len(sums) < len(parts) or len({p.axis for p in sums}) > 1:
            raise Unsliceable("a sum over an axis added to a term that is not one over it")
        return Summed(sums[0].axis, self.combine_sum([p.body for p in sums]))

    def combine_sum(self, parts: list[ir.Expr]) -> ir.Expr:
        if any(p.kind == "vector" for p in parts):
            parts = [p if p.kind == "vector" else ir.Scaled(p, ir.Ones()) for p in parts]
            return ir.VectorSum(tuple(parts))
        return ir.ScalarSum(tuple(parts))

    def multiplied(self, parts: list[Sliced]) -> Sliced:
        summed = [p for p in parts if isinstance(p, Summed)]
        if len(summed) > 1:
            raise Unsliceable("a product of two sums over the batch")
        if summed:
            # c·Σ_t f_t = Σ_t c·f_t only for a constant c that does not vary along t.
            rest = [p for p in parts if not isinstance(p, Summed)]
            varying = self.depends.get(summed[0].axis, set())
            if any(
                not isinstance(p, ir.Const) or {str(x) for x in p.value.free_symbols} & varying
                for p in rest
            ):
                raise Unsliceable("a sum over an axis times a factor that may vary along it")
            return Summed(summed[0].axis, self.combine_product([*rest, summed[0].body]))
        return self.combine_product(parts)  # type: ignore[arg-type]

    def combine_product(self, parts: list[ir.Expr]) -> ir.Expr:
        vectors = [p for p in parts if p.kind == "vector"]
        scalars = [p for p in parts if p.kind != "vector"]
        out: ir.Expr | None = None
        for v in vectors:
            out = v if out is None else ir.Hadamard(out, v)
        coefficient = (
            None
            if not scalars
            else scalars[0]
            if len(scalars) == 1
            else ir.ScalarProduct(tuple(scalars))
        )
        if out is None:
            assert coefficient is not None
            return coefficient
        return out if coefficient is None else ir.Scaled(coefficient, out)

    # -- matrices ----------------------------------------------------------------------
    def matrix(self, e: mx.MatrixNode) -> Sliced:
        spread = self.spread(e.shape)
        match e:
            case mx.MatrixAtom(name=name, rows=r, cols=c, positive=positive):
                suffix = self.index(r) + self.index(c) + ("g" if self.world.groups else "")
                label = self.made_up(
                    f"{name}_{suffix}" if suffix else name, Made(e, spread), (r, c)
                )
                if spread is not None:
                    return ir.VectorAtom(label)
                symbol = (
                    sympy.Symbol(label, positive=True)
                    if positive
                    else sympy.Symbol(label, real=True)
                )
                return ir.Const(symbol)
            case mx.MatrixOnes():
                return ir.Ones() if spread is not None else ir.Const(_ONE)
            case mx.FirstCase(rows=side) if spread is None:
                return ir.Const(sympy.Integer(1 if side in self.world.first else 0))
            case mx.Embedded(vector=v):
                return self.embedded(v, spread)
            case mx.MatSum(terms=terms):
                return self.added([self.slice(t) for t in terms])
            case mx.MatScaled(coefficient=c, matrix=a):
                return self.multiplied([self.slice(c), self.slice(a)])
            case mx.MatHadamard(left=a, right=b):
                return self.multiplied([self.slice(a), self.slice(b)])
            case mx.MatPower(base=b, exponent=p):
                return self.power(self.slice(b), p)
            case mx.Transpose(arg=a):
                return self.slice(a)  # one generic index per axis: the same entries
            case mx.MatMul(left=a, right=b):
                return self.product(a, b)
            case mx.MatGrad(expr=f, wrt=w) if spread is not None and not self.world.groups:
                return self.gradient(f, w, spread)
            case mx.SumAlong(arg=a, axis=axis):
                return self.summed(a, a.shape[axis])
            case mx.GroupSum(arg=a, groups=g) if spread == 1 and (
                self.world.groups == g or (g == 1 and self.row_world)
            ):
                # Its groups lie along the columns: only where the columns are the world
                # (spread 1) is the sum of a group a sum along the world vector.
                inner = self.expr(a)
                return ir.Scaled(ir.Dot(ir.Ones(), inner), ir.Ones())
            case layers.RowStandardize(arg=a, eps=eps) if spread == 1 and not self.world.groups:
                return Core(self.expr(a), self.expr(eps))
            case layers.BatchStandardize(arg=a, eps=eps) if spread == 0:
                return Core(self.expr(a), self.expr(eps))
            case layers.GroupStandardize(arg=a, groups=g, eps=eps) if spread == 1 and (
                self.world.groups == g or (g == 1 and self.row_world)
            ):
                return Core(self.expr(a), self.expr(eps))
            case layers.RowRMS(arg=a, eps=eps) if spread == 1 and not self.world.groups:
                return RMSNorm(self.expr(a), self.expr(eps))
            case ir.Defined():
                return self.slice(e.definition())
        raise Unsliceable(f"{type(e).__name__} has no slice in this world")

    def gradient(self, f: ir.Expr, w: mx.MatrixAtom, spread: int) -> ir.Expr:
        """Row (or column) t of ∂f/∂W is ∇ of f by the generic row W_t of W. For f = Σ_t' f_t'
        that is ∇ of the summand f_t alone, provided no other summand depends on W_t: every
        summand sees W only through its own row W_t' (a product hiding W in an opaque atom,
        or W summed inside a summand, has no slice, so W_t' is the only way in)."""
        wrt = self.slice(w)
        assert isinstance(wrt, ir.VectorAtom)
        inner = self.slice(f)
        self.refuse_hidden(inner, w)
        if isinstance(inner, Summed):
            if inner.axis != w.shape[1 - spread]:
                raise Unsliceable("a gradient of a sum over an axis its variable does not have")
            return Grad(inner.body, wrt)
        if wrt.name in ir.vector_atoms(inner) and w.shape[1 - spread] != _ONE:
            raise Unsliceable("a gradient by a matrix of a term that is not a sum over its rows")
        return Grad(inner, wrt)

    def expr(self, e: ir.Expr) -> ir.Expr:
        out = self.slice(e)
        if isinstance(out, Summed):
            raise Unsliceable("a sum over the batch inside a layer")
        return out

    def embedded(self, v: ir.Expr, spread: int | None) -> Sliced:
        """A vector of ℝ^d placed as a row or column: itself along world d (sliced, if it
        holds matrices), its group block in a group world, its entry at j elsewhere."""
        if spread is not None and not self.world.groups:
            return self.slice(v) if has_matrices(v) else v
        suffix = "g" if spread is not None else "j"

        def entry(x: ir.Expr) -> ir.Expr:
            match x:
                case ir.VectorAtom(name=name):
                    key = Made(mx.Embedded(x, column=False), None if spread is None else 1)
                    label = self.made_up(f"{name}_{suffix}", key, (d,))
                    if spread is not None:
                        return ir.VectorAtom(label)
                    return ir.Const(sympy.Symbol(label, real=True))
                case ir.Ones():
                    return ir.Ones() if spread is not None else ir.Const(_ONE)
                case ir.VectorSum(terms=terms):
                    return self.combine_sum([entry(t) for t in terms])
                case ir.Scaled(coefficient=ir.Const() as c, vector=u):
                    return self.combine_product([c, entry(u)])
                case ir.Hadamard(left=a, right=b):
                    return self.combine_product([entry(a), entry(b)])
            raise Unsliceable(f"an entry of {type(x).__name__} of vectors of ℝ^d")

        return entry(v)

    def power(self, base: Sliced, p: sympy.Expr) -> ir.Expr:
        if isinstance(base, Summed):
            raise Unsliceable("a power of a sum over the batch")
        if base.kind == "scalar":
            return ir.Power(base, p)
        if p.is_Integer and p >= 1:
            out = base
            for _ in range(int(p) - 1):
                out = ir.Hadamard(out, base)
            return out
        raise Unsliceable("an entrywise root or inverse of a vector")

    def summed(self, a: mx.MatrixNode, side: sympy.Expr) -> Sliced:
        inner = self.slice(a)
        if side == _ONE:
            return inner
        if side == self.world.axis and not self.world.groups:
            if isinstance(inner, Summed):  # Σ over the world of Σ_t: the two sums commute
                return Summed(inner.axis, ir.Dot(ir.Ones(), inner.body))
            return ir.Dot(ir.Ones(), inner)
        if isinstance(inner, Summed):
            raise Unsliceable("a double sum over the batch")
        if side == self.world.axis:
            raise Unsliceable("a sum over every feature in a group world")
        if side in self.world.split:
            raise Unsliceable("a sum over the index that e₁ splits into cases")
        return Summed(side, inner)

    # -- products ----------------------------------------------------------------------
    def product(self, a: mx.MatrixNode, b: mx.MatrixNode) -> Sliced:
        inner = a.shape[1]
        if inner == _ONE:
            return self.multiplied([self.slice(a), self.slice(b)])
        if inner == self.world.axis and not self.world.groups:
            left, right = self.slice(a), self.slice(b)
            if isinstance(left, Summed) or isinstance(right, Summed):
                raise Unsliceable("a product with a sum over the batch")
            return ir.Dot(left, right)
        # Contracted over another axis: distribute, then each product of two factors with
        # nothing left to pull out is an opaque atom (the same one on both sides).
        parts: list[Sliced] = []
        for scale_a, core_a in _factors(a, left=True):
            for scale_b, core_b in _factors(b, left=False):
                pulled = [self.slice(s) for s in (*scale_a, *scale_b)]
                parts.append(self.multiplied([*pulled, self.core_product(core_a, core_b)]))
        return self.added(parts)

    def core_product(self, a: mx.MatrixNode, b: mx.MatrixNode) -> Sliced:
        if isinstance(b, mx.MatMul) and b.left.shape[1] == _ONE:  # A·(p qᵀ) = (A p)·qᵀ
            return self.multiplied([self.product(a, b.left), self.slice(b.right)])
        if isinstance(a, mx.MatMul) and a.left.shape[1] == _ONE:  # (p qᵀ)·B = p·(qᵀ B)
            return self.multiplied([self.slice(a.left), self.product(a.right, b)])
        return self.opaque_product(mx.MatMul(a, b))

    def label(self, e: mx.MatMul, spread: int | None) -> str:
        """A readable, unused name for an opaque product: its factors' names (T for a
        transpose) and the generic indices of its sides that are not spread, e.g. XWT_t."""
        stem = "".join(
            x.name if isinstance(x, mx.MatrixAtom) else "T" if isinstance(x, mx.Transpose) else ""
            for x in ir.walk(e)
        )
        sides = [self.index(s) for i, s in enumerate(e.shape) if i != spread]
        label = (stem or "P")[:24] + ("_" + "".join(sides) if any(sides) else "")
        out, k = label, 1
        while out in self.taken or out in self.made:
            k += 1
            out = f"{label}{k}"
        return self.made_up(out, Made(e, spread), e.shape)

    def opaque_product(self, e: mx.MatMul) -> ir.Expr:
        spread = self.spread(e.shape)
        key = (e, spread)
        if key not in self.opaque:
            label = self.label(e, spread)
            if spread is None:
                self.opaque[key] = ir.Const(sympy.Symbol(label, real=True))
            else:
                self.opaque[key] = ir.VectorAtom(label)
        return self.opaque[key]


def _factors(e: mx.MatrixNode, *, left: bool) -> list[tuple[tuple[ir.Expr, ...], mx.MatrixNode]]:
    """``e`` as Σ scales ⊙ core, where each scale commutes with the product on the side of
    the contraction: scalars, and (for a left factor) matrices with one column — diagonal
    scalings of the rows — or (for a right factor) with one row."""
    keep = 1 if left else 0  # the side a scale must not vary along
    match e:
        case mx.MatSum(terms=terms):
            # A term that broadcasts (a side of 1) is the term ⊙ 1 of the sum's shape: a
            # product needs the contracted side in full.
            return [f for t in terms for f in _factors(_widened(t, e.shape), left=left)]
        case mx.MatScaled(coefficient=c, matrix=a):
            return [((c, *s), core) for s, core in _factors(a, left=left)]
        case mx.MatHadamard(left=a, right=b) if a.shape[keep] == _ONE:
            return [((a, *s), core) for s, core in _factors(b, left=left)]
        case mx.MatHadamard(left=a, right=b) if b.shape[keep] == _ONE:
            return [((b, *s), core) for s, core in _factors(a, left=left)]
        case mx.Transpose(arg=a):
            pushed = _transposed(a)
            if pushed is not None:
                return _factors(pushed, left=left)
    return [((), e)]


def _widened(t: mx.MatrixNode, shape: mx.Shape) -> mx.MatrixNode:
    """``t`` broadcast to ``shape`` (``t`` itself where it has that shape)."""
    return t if t.shape == shape else mx.MatHadamard(t, mx.MatrixOnes(*shape))


def _transposed(a: mx.MatrixNode) -> mx.MatrixNode | None:
    """aᵀ with the transpose moved one level in, or None at a leaf."""
    match a:
        case mx.MatSum(terms=terms):
            return mx.MatSum(tuple(mx.Transpose(t) for t in terms))
        case mx.MatScaled(coefficient=c, matrix=x):
            return mx.MatScaled(c, mx.Transpose(x))
        case mx.MatHadamard(left=x, right=y):
            return mx.MatHadamard(mx.Transpose(x), mx.Transpose(y))
        case mx.MatMul(left=x, right=y):
            return mx.MatMul(mx.Transpose(y), mx.Transpose(x))
        case mx.Transpose(arg=x):
            return x
        case mx.Embedded(vector=v, column=column):
            return mx.Embedded(v, not column)
        case mx.MatrixOnes(rows=r, cols=c):
            return mx.MatrixOnes(c, r)
    return None
