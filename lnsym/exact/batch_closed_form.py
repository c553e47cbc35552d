"""A batch example's quantities from the textbook formulas, in exact SymPy numbers.

For each block of entries a statistic runs over (:mod:`lnsym.exact.batch_axes`: a row, a
column or a group of a row) the mean μ, the variance q = mean(z²) − μ², s = √(q + ε) and
the core u = (z − μ)/s — or, for RMS normalization, the mean square m, r = √(m + ε) and
u = z/r — then the output y = γ ⊙ u + β row by row. With an upstream gradient G (or
ℓ = ½‖Y‖², G = Y): ∂ℓ/∂β = Σₜ gₜ, ∂ℓ/∂γ = Σₜ gₜ ⊙ uₜ (sums over the batch), ĝ = γ ⊙ g, and
∂ℓ/∂z = (ĝ − mean(ĝ) − u·mean(ĝ ⊙ u))/s over each block (ĝ − u·mean(ĝ ⊙ u))/r for RMS).

:mod:`lnsym.exact.batch_ir` computes the same quantities another way, through the IR's batch
layers; :mod:`lnsym.exact.batch_check` compares the two.

>>> from lnsym.exact.batch_inputs import read_batch_inputs
>>> values = closed_values(read_batch_inputs([[1, 3], [3, 7]], 0, layer="batch_norm",
...                                          idealized=True))
>>> values["mean"], values["variance"], values["core"]
((2, 5), (1, 4), Matrix([
[-1, -1],
[ 1,  1]]))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import sympy

from lnsym.exact.batch_axes import arrange, blocks
from lnsym.exact.batch_inputs import BatchInputs

#: The gradients, computed with an upstream gradient or a loss (None without).
BACKWARD_QUANTITIES = (
    "loss_value",
    "upstream",
    "grad_beta",
    "grad_gamma",
    "scaled_upstream",
    "grad_z",
)


def _matrix(rows: int, cols: int, entries: dict[tuple[int, int], Any]) -> sympy.ImmutableMatrix:
    return sympy.ImmutableMatrix(rows, cols, lambda t, j: entries[(t, j)])


def _stat(x: BatchInputs, per_block: list[Any]) -> Any:
    shown = arrange(x.layer, x.groups, per_block)
    if x.layer == "group_norm":
        return sympy.ImmutableMatrix(shown)
    return shown


def _number(v: Fraction) -> sympy.Rational:
    return sympy.Rational(v.numerator, v.denominator)


@dataclass(frozen=True)
class _Block:
    """One block's entries and statistics: the core's numerator x (z − μ, or z for RMS) at
    each entry, w = 1/(q + ε) (1/(m + ε) for RMS) and the surd 1/s = √w in SymPy.

    Every value of the block is a + b/s with rationals a, b (1/s² = w is rational): the
    core u = x/s, the output β + γx/s, and so on. :meth:`value` writes a + b/s in SymPy.
    """

    entries: list[tuple[int, int]]
    x: dict[tuple[int, int], Fraction]
    w: Fraction
    inverse: sympy.Expr

    def value(self, a: Fraction, b: Fraction) -> sympy.Expr:
        return _number(a) + _number(b) * self.inverse if b else _number(a)

    def mean(self, values: dict[tuple[int, int], Fraction]) -> Fraction:
        return sum((values[e] for e in self.entries), Fraction(0)) / len(self.entries)


def closed_values(x: BatchInputs) -> dict[str, Any]:  # noqa: C901 — one formula a line
    """Every quantity of the example (None for gradients without an upstream or a loss).

    Vectors are tuples, batches and the n × G statistics of group norm ``ImmutableMatrix``.
    """
    n, d, rms = x.n, x.d, x.layer == "rms_norm"
    z = {(t, j): Fraction(int(x.z[t][j].p), int(x.z[t][j].q)) for t in range(n) for j in range(d)}
    gamma = [Fraction(int(v.p), int(v.q)) for v in x.gamma]
    beta = [Fraction(int(v.p), int(v.q)) for v in x.beta]
    eps = Fraction(int(x.eps.p), int(x.eps.q))
    zero = Fraction(0)
    stats: dict[str, list[Any]] = {}
    layout: list[_Block] = []
    for entries in blocks(x.layer, n, d, x.groups):
        size = len(entries)
        square = sum((z[e] * z[e] for e in entries), zero) / size
        if rms:
            stat, numerator = square, {e: z[e] for e in entries}
            named = {"mean_square": square, "mean_square_plus_eps": square + eps}
            named["core_mean_square"] = square / (square + eps)
        else:
            mean = sum((z[e] for e in entries), zero) / size
            stat, numerator = square - mean * mean, {e: z[e] - mean for e in entries}
            named = {"mean": mean, "variance": stat, "variance_plus_eps": stat + eps}
            named["core_mean"], named["core_variance"] = zero, stat / (stat + eps)
        root = sympy.sqrt(_number(stat + eps))
        for key, value in named.items():
            stats.setdefault(key, []).append(_number(value))
        stats.setdefault("rms" if rms else "scale", []).append(root)
        layout.append(_Block(entries, numerator, 1 / (stat + eps), 1 / root))
    out: dict[str, Any] = {key: _stat(x, values) for key, values in stats.items()}
    block_of = {e: block for block in layout for e in block.entries}
    core = {e: block.value(zero, block.x[e]) for e, block in block_of.items()}
    if not rms:
        out["centered"] = _matrix(n, d, {e: _number(block_of[e].x[e]) for e in core})
    out["core"] = _matrix(n, d, core)
    # y = β + γ·x/s, as (a, b) with y = a + b/s.
    y = {(t, j): (beta[j], gamma[j] * block_of[(t, j)].x[(t, j)]) for (t, j) in core}
    out["output"] = _matrix(n, d, {e: block_of[e].value(*ab) for e, ab in y.items()})
    out.update(dict.fromkeys(BACKWARD_QUANTITIES))
    if x.upstream is None and x.loss is None:
        return out
    if x.loss is None:
        assert x.upstream is not None
        g = {(t, j): (Fraction(int(v.p), int(v.q)), zero) for t, r in enumerate(x.upstream)
             for j, v in enumerate(r)}  # fmt: skip
    else:
        g = y
        # ½Σ y² with y = a + b/s: ½Σ (a² + b²w) + Σ ab/s.
        loss = [
            block.value(sum((y[e][0] ** 2 + y[e][1] ** 2 * block.w for e in block.entries),
                            zero) / 2, sum((y[e][0] * y[e][1] for e in block.entries), zero))
            for block in layout
        ]  # fmt: skip
        out["loss_value"] = sympy.Add(*loss)
    out["upstream"] = _matrix(n, d, {e: block_of[e].value(*ab) for e, ab in g.items()})
    # Per block: Σ g (= Σa + (Σb)/s) and Σ g·u with g·u = (a + b/s)·x/s = b·x·w + a·x/s.
    grad_beta: list[list[sympy.Expr]] = [[] for _ in range(d)]
    grad_gamma: list[list[sympy.Expr]] = [[] for _ in range(d)]
    for block in layout:
        for j in sorted({j for _, j in block.entries}):
            column = [e for e in block.entries if e[1] == j]
            a, b = (sum((g[e][k] for e in column), zero) for k in (0, 1))
            grad_beta[j].append(block.value(a, b))
            gu_rational = sum((g[e][1] * block.x[e] * block.w for e in column), zero)
            gu_surd = sum((g[e][0] * block.x[e] for e in column), zero)
            grad_gamma[j].append(block.value(gu_rational, gu_surd))
    if not rms:
        out["grad_beta"] = tuple(sympy.Add(*terms) for terms in grad_beta)
    out["grad_gamma"] = tuple(sympy.Add(*terms) for terms in grad_gamma)
    g_hat = {(t, j): (gamma[j] * a, gamma[j] * b) for (t, j), (a, b) in g.items()}
    out["scaled_upstream"] = _matrix(n, d, {e: block_of[e].value(*ab) for e, ab in g_hat.items()})
    grad_z: dict[tuple[int, int], sympy.Expr] = {}
    for block in layout:
        ga = {e: g_hat[e][0] for e in block.entries}
        gb = {e: g_hat[e][1] for e in block.entries}
        # mean(ĝ) = ma + mb/s; mean(ĝ·u) = mean(b·x)·w + mean(a·x)/s =: M0 + M1/s.
        ma, mb = (zero, zero) if rms else (block.mean(ga), block.mean(gb))
        m0 = block.mean({e: gb[e] * block.x[e] for e in block.entries}) * block.w
        m1 = block.mean({e: ga[e] * block.x[e] for e in block.entries})
        for e in block.entries:
            # (ĝ − mean ĝ − u·M)/s with u·M = x·M1·w + x·M0/s:
            # = (a − ma − x·M1·w)/s + (b − mb − x·M0)·w.
            surd = ga[e] - ma - block.x[e] * m1 * block.w
            rational = (gb[e] - mb - block.x[e] * m0) * block.w
            grad_z[e] = block.value(rational, surd)
    out["grad_z"] = _matrix(n, d, grad_z)
    return out
