"""Sample points that respect a claim's assumptions, drawn deterministically from a seed.

:class:`Sampler` cycles dimensions (1 to 64, and 768 once in 100 samples), vector kinds
(normal at scales 1e-3 to 1e3, offsets of ±1e8, near-constant, exact constants, one dominant
coordinate) and ε from 1e-12 to 1e2; ``centered`` and ``orthogonal`` atoms are projected,
with their distance to an exactly admissible point kept as the point's slack. The order of
the draws is part of the engine's output: the same seed must give the same points.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import sympy
from sympy.core.sorting import default_sort_key

from lnsym import ir
from lnsym.engines.numeric.environment import SamplePoint
from lnsym.errors import DomainError

if TYPE_CHECKING:
    from lnsym.engines.base import Checkable

_SMALL_DIMENSIONS = (1, 2, 3, 4, 5, 8, 16, 64)
_LARGE_DIMENSION = 768
_LARGE_EVERY = 100  # one sample in 100 uses d = 768, which costs d² per gradient
_KINDS = ("normal", "offset", "near_constant", "constant", "normal", "spiky")
_SCALAR_KINDS = ("normal", "wide", "huge", "tiny", "zero")
_EPS_RANGE = (-12.0, 2.0)  # log10 of the smallest and largest ε


#: The points drawn for earlier claims, by what decides them (see :func:`draw`), with the
#: sampler that drew them (to draw more).
_DRAWN: dict[tuple[Any, ...], tuple[Sampler, list[SamplePoint | None], dict[int, Any]]] = {}
_DRAWN_KEPT = 64
#: Larger requests are drawn as they are consumed (memory stays bounded), never kept.
_KEPT_UP_TO = 2000
_DRAWING = threading.Lock()


def draw(claim: Checkable, seed: int, dtype: np.dtype, count: int) -> Iterable[SamplePoint | None]:
    """The first ``count`` points of :class:`Sampler` for ``claim`` (None for the inadmissible).

    The points depend only on the claim's vector atoms, scalar symbols and assumptions, the
    seed and the dtype, which many claims share: up to :data:`_KEPT_UP_TO` points are drawn
    once per process for each such key (the last :data:`_DRAWN_KEPT` keys kept), not once
    per claim. A sampler's points are one sequence, whatever the count asked for: a claim
    that asks for more than an earlier one gets the same first points and a few drawn after
    them. The same request gets the same list object. Nothing changes a drawn point.

    Raises:
        DomainError: when the dimension assumptions cannot all hold.
    """
    if count > _KEPT_UP_TO:
        sampler = Sampler(claim, seed, dtype)
        return (sampler.point(k) for k in range(count))
    atoms, symbols = _variables(claim.statement)
    key = (tuple(atoms), tuple(symbols), claim.assumptions, seed, dtype)
    with _DRAWING:  # one sampler draws in one thread at a time: its sequence is one
        found = _DRAWN.get(key)
        if found is None:  # (a sampler is made only here: most requests are drawn already)
            if len(_DRAWN) >= _DRAWN_KEPT:
                del _DRAWN[next(iter(_DRAWN))]
            found = _DRAWN[key] = (Sampler(claim, seed, dtype, (atoms, symbols)), [], {})
        drawer, points, by_count = found
        try:
            points.extend(drawer.point(k) for k in range(len(points), count))
        except BaseException:  # (an interrupt) the sampler may be half-way through a point
            del _DRAWN[key]
            raise
        if count not in by_count:
            by_count[count] = points[:count]
        return by_count[count]


class Sampler:
    """Deterministic sample points for one claim: kinds, dimensions and ε cycle with the
    sample index, values come from one seeded generator."""

    def __init__(
        self,
        claim: Checkable,
        seed: int,
        dtype: np.dtype,
        variables: tuple[list[str], list[sympy.Symbol]] | None = None,
    ) -> None:
        self.atoms, self.symbols = variables or _variables(claim.statement)
        self.kinds = [_ScalarKind.of(s) for s in self.symbols]  # (asked once, not per point)
        self.assumptions = claim.assumptions
        self.nonconstant = {a.atom.name for a in self.assumptions if isinstance(a, ir.Nonconstant)}
        #: Per atom: whether it is centered, and the atoms it must be orthogonal to (read
        #: once, not at every point).
        self.constraints = {name: self._constraints(name) for name in self.atoms}
        self.rng = np.random.default_rng(seed)
        self.dtype = dtype
        self.small, self.large = self._dimensions()

    def _dimensions(self) -> tuple[list[int], int | None]:
        """The dimensions to cycle through, and 768 if the assumptions allow it."""
        low = 2 if self.nonconstant & set(self.atoms) else 1  # nonconstant needs d ≥ 2
        limits = tuple(a for a in self.assumptions if isinstance(a, _LIMITS))
        small, large = _dimensions((*limits, ir.MinDimension(low)))
        return list(small), large

    def point(self, k: int) -> SamplePoint | None:
        """The k-th sample, or None when the projections left a nonconstant atom constant."""
        rng = self.rng
        if self.large is not None and k % _LARGE_EVERY == _LARGE_EVERY - 1:
            d = self.large
        else:
            d = self.small[k % len(self.small)]
        vectors: dict[str, np.ndarray] = {}
        slack: dict[str, float] = {}
        for j, name in enumerate(self.atoms):
            kind = _KINDS[(k + 2 * j) % len(_KINDS)]
            if kind == "constant" and name in self.nonconstant:
                kind = "near_constant"
            v = _vector(kind, d, rng)
            vectors[name], slack[name] = self._constrained(name, v, vectors, slack)
            if name in self.nonconstant and _is_constant(vectors[name]):
                return None
        scalars = {
            s: _scalar(kind, k, j, rng)
            for j, (s, kind) in enumerate(zip(self.symbols, self.kinds, strict=True))
        }
        slack = {name: value for name, value in slack.items() if value}
        return SamplePoint(d, vectors, scalars, self.dtype, slack)

    def _constraints(self, name: str) -> tuple[bool, list[str]]:
        centered = any(isinstance(a, ir.Centered) and a.atom.name == name for a in self.assumptions)
        partners = [
            a.right.name if a.left.name == name else a.left.name
            for a in self.assumptions
            if isinstance(a, ir.Orthogonal) and name in (a.left.name, a.right.name)
        ]
        return centered, partners

    def _constrained(
        self, name: str, v: np.ndarray, done: dict[str, np.ndarray], slack: dict[str, float]
    ) -> tuple[np.ndarray, float]:
        """Project v onto the complement of 1 (if centered) and of earlier orthogonal atoms.

        Returns:
            The projection, and a bound on its distance (2-norm) from an exactly admissible
            point: rounding leaves the constraints true only to about u·‖v‖, which the
            evidence tolerance must cover (a claim may hold only on admissible points).
        """
        centered, partners = self.constraints[name]
        others = [other for other in partners if other in done]
        if not (centered or others):
            return v, 0.0
        # With 1 among the constraints, center the others: the same span, well conditioned
        # even for vectors offset by 1e8.
        columns = [
            done[other] - np.mean(done[other]) if centered else done[other] for other in others
        ]
        basis = np.stack([np.ones_like(v)] * centered + columns, axis=1)
        q, _ = np.linalg.qr(basis)
        projected = v
        for _ in range(2):  # project twice: the second pass removes the first one's rounding
            projected = projected - q @ (q.T @ projected)
        # What is left of a vector inside the constrained span is rounding, not a direction.
        size = float(np.linalg.norm(projected))
        if size <= 1e-12 * np.linalg.norm(v):
            return np.zeros_like(v), 0.0
        # ‖P_C x‖ ≤ ‖Aᵀx‖/σ_min(A) for unit columns aₖ of A spanning C, each ⟨aₖ, x⟩ summed
        # by fsum (error ≤ u·Σ|aₖᵢxᵢ|, as are the rounding of aₖ and of the centering); then
        # the conversion to the dtype and the other atoms' own distances.
        u = float(np.finfo(self.dtype).eps) / 2
        norms = np.linalg.norm(basis, axis=0)
        unit = basis[:, norms > 0] / norms[norms > 0]  # a zero column constrains nothing
        products = unit * projected[:, None]
        residual = [abs(math.fsum(p)) + 6 * u * float(np.sum(np.abs(p))) for p in products.T]
        distance = u * size
        if residual:
            smallest = np.linalg.eigvalsh(unit.T @ unit)[0] - len(v) * len(residual) * u
            distance += float(np.linalg.norm(residual)) / math.sqrt(max(smallest, 1e-30))
        for other, column in zip(others, columns, strict=True):
            distance += (
                2 * slack.get(other, 0.0) * size / max(float(np.linalg.norm(column)), 1e-300)
            )
        return projected, distance


def _variables(statement: ir.Relation) -> tuple[list[str], list[sympy.Symbol]]:
    """The vector atoms and the scalar symbols (but d) of ``statement``, sorted: what its
    points are drawn for."""
    found = list(ir.distinct_nodes(statement.lhs, statement.rhs, definitions=True))
    atoms = sorted({n.name for n in found if isinstance(n, ir.VectorAtom)})
    symbols = {s for n in found if isinstance(n, ir.Const) for s in ir.free_symbols(n.value)}
    for n in found:
        if isinstance(n, ir.Power):
            symbols |= ir.free_symbols(n.exponent)
    return atoms, sorted(symbols - {ir.d}, key=default_sort_key)


def _vector(kind: str, d: int, rng: np.random.Generator) -> np.ndarray:
    if kind == "normal":
        return rng.standard_normal(d) * 10.0 ** rng.uniform(-3, 3)
    if kind == "offset":
        return _choice(rng, (-1e8, 1e8)) + rng.standard_normal(d)
    if kind == "near_constant":
        return rng.normal(0, 10) + 1e-6 * rng.standard_normal(d)
    if kind == "constant":
        # A multiple of 1/256, so that sums of its copies and its mean are exact.
        return np.full(d, np.round(rng.normal(0, 10) * 256) / 256)
    v = rng.standard_normal(d)  # "spiky": one coordinate dominates
    v[rng.integers(d)] *= 1e4
    return v


def _is_constant(v: np.ndarray) -> bool:
    return bool(np.ptp(v) <= 1e-12 * max(1.0, float(np.max(np.abs(v)))))


def _choice(rng: np.random.Generator, options: tuple[Any, ...]) -> Any:
    """``rng.choice(options)``: the same draw from the same stream, without the array that
    ``choice`` builds from the tuple every time."""
    return options[rng.integers(0, len(options))]


@dataclass(frozen=True)
class _ScalarKind:
    """What a scalar symbol's assumptions ask of its values."""

    eps: bool
    integer: bool
    signed: bool  # positive or negative: never 0
    nonnegative: bool
    nonpositive: bool

    @staticmethod
    def of(sym: sympy.Symbol) -> _ScalarKind:
        return _ScalarKind(
            sym == ir.eps,
            bool(sym.is_integer),
            bool(sym.is_positive or sym.is_negative),
            bool(sym.is_nonnegative),
            bool(sym.is_nonpositive),
        )


def _scalar(kind: _ScalarKind, k: int, j: int, rng: np.random.Generator) -> float:
    if kind.eps:
        if k % 9 == 0:
            return 10.0 ** _EPS_RANGE[0]
        if k % 9 == 4:
            return 10.0 ** _EPS_RANGE[1]
        return 10.0 ** rng.uniform(*_EPS_RANGE)
    match _SCALAR_KINDS[(k + j) % len(_SCALAR_KINDS)]:
        case "normal":
            value = rng.standard_normal()
        case "wide":
            value = _choice(rng, (-1, 1)) * 10.0 ** rng.uniform(-3, 3)
        case "huge":  # shifts of the size of the vectors' offsets
            value = _choice(rng, (-1, 1)) * 1e8 * rng.uniform(1, 2)
        case "tiny":
            value = _choice(rng, (-1, 1)) * 1e-6 * rng.uniform(1, 10)
        case _:
            value = 0.0
    if kind.integer:
        value = float(round(value)) if abs(value) < 1e8 else float(rng.integers(-5, 6))
    if kind.signed and value == 0:
        value = float(rng.integers(1, 10)) if kind.integer else 10.0 ** rng.uniform(-3, 3)
    if kind.nonnegative:
        value = abs(value)
    if kind.nonpositive:
        value = -abs(value)
    return float(value)


_LIMITS = (ir.MinDimension, ir.FixedDimension)


@lru_cache(maxsize=256)
def _dimensions(limits: tuple[ir.Assumption, ...]) -> tuple[tuple[int, ...], int | None]:
    """The small dimensions the dimension assumptions ``limits`` allow, and 768 if they
    allow it (the same for every claim with those limits: computed once)."""
    floor = max(a.value for a in limits if isinstance(a, ir.MinDimension))
    fixed = [a.value for a in limits if isinstance(a, ir.FixedDimension)]
    candidates = sorted({*_SMALL_DIMENSIONS, _LARGE_DIMENSION, floor, *fixed})
    allowed = set(ir.dimensions(limits, candidates[-1]))
    valid = [k for k in candidates if k in allowed]
    if not valid:
        raise DomainError("the dimension assumptions cannot all hold")
    large = _LARGE_DIMENSION if _LARGE_DIMENSION in valid else None
    return tuple(k for k in valid if k != _LARGE_DIMENSION) or tuple(valid), large
