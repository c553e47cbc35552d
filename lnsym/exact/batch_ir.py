"""A batch example's quantities recomputed through the IR's batch layers, entry by entry.

The layer (``lnsym.layer_norm_rows``, ``rms_norm_rows``, ``batch_norm`` or ``group_norm``)
and its statistics (``mean_along``, ``GroupMean``, …) are written entry by entry by
:func:`lnsym.ir.lowering.lower` and evaluated exactly in :class:`~lnsym.exact.surds.Surd`
arithmetic; the gradients are the exact reverse-mode derivatives of the lowered scalar loss
⟨G, Y⟩ = Σₜⱼ gₜⱼ·yₜⱼ (G held fixed; G = Y for ℓ = ½‖Y‖²) with respect to every entry of Z,
γ and β. Nothing here uses the formulas of :mod:`lnsym.exact.batch_closed_form`.

The batch is lowered in slices of at most 9 along the axis the layer keeps independent (rows
for layer, RMS and group norm, columns for batch norm), so that the lowered expressions and
their derivatives grow linearly with a large batch — the whole batch at once for the usual
small examples.

>>> from lnsym.exact.batch_inputs import read_batch_inputs
>>> x = read_batch_inputs([[1, 3], [3, 7]], 0, layer="batch_norm", idealized=True,
...                       upstream=[[1, 0], [0, 0]])
>>> values = ir_values(x)
>>> values["core"], values["grad_z"]
([[-1, -1], [1, 1]], [[0, 0], [0, 0]])
>>> values["grad_gamma"], values["grad_beta"]
([-1, 0], [1, 0])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from lnsym import ir
from lnsym.errors import CrossCheckError
from lnsym.exact.batch_axes import arrange, blocks
from lnsym.exact.batch_inputs import BatchInputs
from lnsym.exact.surds import Surd
from lnsym.ir.batch_layers import batch_norm, group_norm, layer_norm_rows, rms_norm_rows
from lnsym.ir.lowering import entry_name, lower
from lnsym.ir.matrices import GroupMean, MatrixNode, matrix, mean_along
from lnsym.ir.names import d as _d
from lnsym.ir.names import n as _n

#: The longest slice lowered at once (see the module's docstring).
SLICE = 9

_Z, _GAMMA, _BETA = matrix("Z", _n, _d), ir.vector("gamma"), ir.vector("beta")
_HALF = sympy.Rational(1, 2)
#: The gradients and their upstream, None without an upstream gradient or a loss.
_BACKWARD = ("loss_value", "upstream", "grad_beta", "grad_gamma", "scaled_upstream", "grad_z")


def _layer(layer: str, groups: int | None, affine: bool) -> MatrixNode:
    """The layer on the atom Z, with γ and β (``affine``) or without (the core)."""
    gamma, beta = (_GAMMA, _BETA) if affine else (None, None)
    if layer == "layer_norm":
        return layer_norm_rows(_Z, gamma, beta)
    if layer == "batch_norm":
        return batch_norm(_Z, gamma, beta)
    if layer == "group_norm":
        assert groups is not None
        return group_norm(_Z, groups, gamma, beta)
    return rms_norm_rows(_Z, gamma)


def _statistics(layer: str, groups: int | None) -> dict[str, Any]:
    """The layer's statistics as IR matrices (one entry per block, or per entry for GN)."""

    def mean(a: Any) -> Any:
        if layer == "group_norm":
            assert groups is not None
            return GroupMean(a, groups)
        return mean_along(a, 0 if layer == "batch_norm" else 1)

    if layer == "rms_norm":
        square = mean(_Z * _Z)
        return {
            "mean_square": square,
            "mean_square_plus_eps": square + ir.eps,
            "rms": (square + ir.eps) ** _HALF,
        }
    centered = _Z - mean(_Z)
    variance = mean(centered * centered)
    return {
        "mean": mean(_Z),
        "centered": centered,
        "variance": variance,
        "variance_plus_eps": variance + ir.eps,
        "scale": (variance + ir.eps) ** _HALF,
    }


# ---------------------------------------------------------------------------------------
# Exact evaluation of lowered entries, and reverse-mode derivatives


def _children(e: ir.Expr) -> tuple[ir.Expr, ...]:
    if isinstance(e, ir.ScalarSum):
        return e.terms
    if isinstance(e, ir.ScalarProduct):
        return e.factors
    if isinstance(e, ir.Power):
        return (e.base,)
    if isinstance(e, ir.Const):
        return ()
    raise CrossCheckError(f"cannot evaluate a lowered {type(e).__name__} exactly")


class _Evaluation:
    """Exact values of lowered entries at one point, and reverse-mode derivatives.

    Nodes are shared by content: two nodes of the same kind over the same children (or two
    constants with the same value) are one node, whichever lowering they come from — the
    lowering writes a group's sum once per column it broadcasts to, and the statistics and
    the layer written separately repeat each other. Node ``i`` has the children
    ``kids[i]``, all of lower index, so the indices are a topological order.
    """

    def __init__(self, point: dict[sympy.Symbol, sympy.Rational]) -> None:
        self.point = point
        self.index: dict[int, int] = {}  # id(node) → its shared node
        self.keep: list[ir.Expr] = []  # the nodes seen, kept alive so that ids stay unique
        self.shared: dict[tuple[Any, ...], int] = {}  # content → shared node
        self.values: list[Surd] = []
        self.kids: list[tuple[int, ...]] = []
        self.exponents: list[Fraction | None] = []  # a power's exponent, else None
        self.symbols: list[sympy.Symbol | None] = []  # a variable's symbol, else None
        self.kinds: list[str] = []  # "const", "ScalarSum", "ScalarProduct" or "Power"

    def _leaf(self, e: ir.Const) -> tuple[Surd, sympy.Symbol | None]:
        value, symbol = e.value, None
        if isinstance(value, sympy.Symbol):
            value, symbol = self.point.get(value, value), value
        elif value.free_symbols:  # a leaf is a number or one variable, so gradient() sees it
            raise CrossCheckError(f"a lowered constant is not a number or a variable: {value}")
        if not value.is_Rational:
            raise CrossCheckError(f"a lowered constant is not a rational number: {value}")
        return Surd.rational(Fraction(int(value.p), int(value.q))), symbol

    def _node(self, e: ir.Expr, kids: tuple[int, ...]) -> int:
        """The shared node of ``e`` whose children are the shared nodes ``kids``."""
        if isinstance(e, ir.Const):
            key: tuple[Any, ...] = ("const", e.value)
        else:
            exponent = getattr(e, "exponent", None)
            key = (type(e).__name__, exponent, kids)
        if key in self.shared:
            return self.shared[key]
        symbol, exponent_value = None, None
        if isinstance(e, ir.Const):
            value, symbol = self._leaf(e)
        else:
            values = [self.values[k] for k in kids]
            try:
                if isinstance(e, ir.ScalarSum):
                    value = Surd.total(values)
                elif isinstance(e, ir.ScalarProduct):
                    value = values[0]
                    for v in values[1:]:
                        value = value * v
                else:
                    assert isinstance(e, ir.Power)
                    exponent_value = Fraction(int(e.exponent.p), int(e.exponent.q))
                    value = values[0].power(exponent_value)
            except (ValueError, ZeroDivisionError) as exc:
                raise CrossCheckError(f"the lowered layer is undefined here: {exc}") from exc
        self.values.append(value)
        self.kids.append(kids)
        self.exponents.append(exponent_value)
        self.symbols.append(symbol)
        self.kinds.append(key[0])
        self.shared[key] = len(self.values) - 1
        return len(self.values) - 1

    def node(self, root: ir.Expr) -> int:
        """The shared node of ``root``, evaluated with everything below it."""
        stack: list[tuple[ir.Expr, bool]] = [(root, False)]
        while stack:
            e, ready = stack.pop()
            if id(e) in self.index:
                continue
            children = _children(e)
            if ready or not children:
                kids = tuple(self.index[id(k)] for k in children)
                self.index[id(e)] = self._node(e, kids)
                self.keep.append(e)
            else:
                stack.append((e, True))
                stack.extend((k, False) for k in children if id(k) not in self.index)
        return self.index[id(root)]

    def value(self, root: ir.Expr) -> Surd:
        """The exact value of a lowered entry."""
        return self.values[self.node(root)]

    def gradient(self, seeds: list[tuple[ir.Expr, Surd]]) -> dict[sympy.Symbol, Surd]:
        """∂(Σ seed·entry)/∂x for every variable x: reverse mode over the shared nodes."""
        adjoint: dict[int, list[Surd]] = {}
        for e, seed in seeds:
            adjoint.setdefault(self.node(e), []).append(seed)
        out: dict[sympy.Symbol, Surd] = {}
        for i in range(len(self.values) - 1, -1, -1):
            if i not in adjoint:
                continue
            bar = Surd.total(adjoint.pop(i))
            kids, symbol = self.kids[i], self.symbols[i]
            if not bar.terms or not kids:
                if symbol is not None and bar.terms:
                    out[symbol] = bar
                continue
            exponent = self.exponents[i]
            if self.kinds[i] == "Power" and exponent is not None:  # d(x^p) = p·x^(p−1)·dx
                try:
                    parts = [bar * self.values[kids[0]].power(exponent - 1) * exponent]
                except (ValueError, ZeroDivisionError) as exc:
                    raise CrossCheckError(
                        f"the lowered layer has no derivative here: {exc}"
                    ) from exc
            elif self.kinds[i] == "ScalarProduct":
                parts = []
                for position in range(len(kids)):
                    part = bar
                    for other, k in enumerate(kids):
                        if other != position:
                            part = part * self.values[k]
                    parts.append(part)
            else:  # a sum
                parts = [bar] * len(kids)
            for k, part in zip(kids, parts, strict=True):
                adjoint.setdefault(k, []).append(part)
        return out


# ---------------------------------------------------------------------------------------
# The example, slice by slice


@dataclass(frozen=True)
class _Slice:
    """Rows and columns of the batch lowered at once, and the evaluation at their entries."""

    rows: list[int]
    cols: list[int]
    run: _Evaluation

    def evaluate(self, e: ir.Expr) -> tuple[Any, dict[tuple[int, int], Surd]]:
        """The lowered ``e`` and its value at each entry (t, j) of the slice (a statistic of a
        row or a column broadcast to every entry it covers)."""
        lowered = lower(e, {_n: len(self.rows), _d: len(self.cols)})
        values = {
            (t, j): self.run.value(lowered[a % len(lowered)][b % len(lowered[0])])
            for a, t in enumerate(self.rows)
            for b, j in enumerate(self.cols)
        }
        return lowered, values


def _slices(x: BatchInputs) -> list[_Slice]:
    """The slices lowered at once (see the module's docstring)."""
    rows, cols = list(range(x.n)), list(range(x.d))
    if x.layer == "batch_norm":
        parts = [(rows, cols[i : i + SLICE]) for i in range(0, x.d, SLICE)]
    else:
        parts = [(rows[i : i + SLICE], cols) for i in range(0, x.n, SLICE)]
    out = []
    for r, c in parts:
        point = {
            _symbol("Z", a + 1, b + 1): x.z[t][j] for a, t in enumerate(r) for b, j in enumerate(c)
        }
        for b, j in enumerate(c):
            point[_symbol("gamma", b + 1)] = x.gamma[j]
            point[_symbol("beta", b + 1)] = x.beta[j]
        point[ir.eps] = x.eps
        out.append(_Slice(r, c, _Evaluation(point)))
    return out


def _symbol(name: str, *index: int) -> sympy.Symbol:
    return sympy.Symbol(entry_name(name, *index), real=True)


def _grid(x: BatchInputs, entries: dict[tuple[int, int], Surd]) -> list[list[Surd]]:
    return [[entries[(t, j)] for j in range(x.d)] for t in range(x.n)]


def _core_statistics(x: BatchInputs, core: dict[tuple[int, int], Surd]) -> dict[str, Any]:
    """The mean and variance (mean square for RMS) of the core over each block."""
    out: dict[str, list[Surd]] = {}
    for block in blocks(x.layer, x.n, x.d, x.groups):
        values = [core[e] for e in block]
        size = Fraction(1, len(values))
        if x.layer == "rms_norm":
            out.setdefault("core_mean_square", []).append(_total([v * v for v in values]) * size)
            continue
        mean = _total(values) * size
        out.setdefault("core_mean", []).append(mean)
        variance = _total([(v - mean) * (v - mean) for v in values]) * size
        out.setdefault("core_variance", []).append(variance)
    return {key: _arranged(x, per_block) for key, per_block in out.items()}


def ir_values(x: BatchInputs) -> dict[str, Any]:
    """Every computed quantity of the example, as nested lists of :class:`Surd` (None for
    gradients without an upstream gradient or a loss)."""
    statistics = _statistics(x.layer, x.groups)
    backward = x.upstream is not None or x.loss is not None
    entries: dict[str, dict[tuple[int, int], Surd]] = {}
    zero = Surd.rational(0)
    grad_gamma, grad_beta = [zero] * x.d, [zero] * x.d
    for part in _slices(x):
        for key, e in statistics.items():
            entries.setdefault(key, {}).update(part.evaluate(e)[1])
        entries.setdefault("core", {}).update(part.evaluate(_layer(x.layer, x.groups, False))[1])
        lowered, output = part.evaluate(_layer(x.layer, x.groups, True))
        entries.setdefault("output", {}).update(output)
        if not backward:
            continue
        seeds = []
        for a, t in enumerate(part.rows):
            for b, j in enumerate(part.cols):
                given = x.upstream[t][j] if x.upstream is not None else None
                g = output[(t, j)] if given is None else Surd.rational(_fraction(given))
                entries.setdefault("upstream", {})[(t, j)] = g
                seeds.append((lowered[a][b], g))
        derivatives = part.run.gradient(seeds)
        for a, t in enumerate(part.rows):
            for b, j in enumerate(part.cols):
                grad = derivatives.get(_symbol("Z", a + 1, b + 1), zero)
                entries.setdefault("grad_z", {})[(t, j)] = grad
        for b, j in enumerate(part.cols):
            grad_gamma[j] = grad_gamma[j] + derivatives.get(_symbol("gamma", b + 1), zero)
            grad_beta[j] = grad_beta[j] + derivatives.get(_symbol("beta", b + 1), zero)
    out: dict[str, Any] = dict.fromkeys(_BACKWARD)
    for key, values in entries.items():
        out[key] = _grid(x, values)
    for key in statistics:
        if key != "centered":  # one value per block: read it at the block's first entry
            block_values = [entries[key][b[0]] for b in blocks(x.layer, x.n, x.d, x.groups)]
            out[key] = _arranged(x, block_values)
    out.update(_core_statistics(x, entries["core"]))
    if not backward:
        return out
    g = out["upstream"]
    if x.loss is not None:
        out["loss_value"] = _total([v * v for r in out["output"] for v in r]) * Fraction(1, 2)
    out["grad_gamma"] = grad_gamma
    out["grad_beta"] = None if x.layer == "rms_norm" else grad_beta
    gamma = [_fraction(v) for v in x.gamma]
    out["scaled_upstream"] = [[g[t][j] * gamma[j] for j in range(x.d)] for t in range(x.n)]
    return out


def _fraction(v: sympy.Rational) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _total(values: list[Surd]) -> Surd:
    out = Surd.rational(0)
    for v in values:
        out = out + v
    return out


def _arranged(x: BatchInputs, per_block: list[Surd]) -> Any:
    shown: Any = arrange(x.layer, x.groups, per_block)
    if x.layer == "group_norm":
        return [list(r) for r in shown]
    return list(shown)
