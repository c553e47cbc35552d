"""Matrix statements in the numeric engine: every entry sampled at small sizes.

The statement is written entry by entry (:mod:`lnsym.ir.lowering`) at each (n, d, m) of
``sizes_for``, and each entry's scalar statement is sampled by the numeric engine; the
samples of a claim are shared out among its entries.

Each entry gets the points the numeric engine draws for it alone, and the evidence it would
give alone; only the work is shared. The points depend on the entry's symbols (see
:func:`lnsym.engines.numeric.sampling.draw`), which the entries of one row or column share:
the entries of one size with the same symbols are evaluated together, at all their points in
one batch, with one evaluator for all of them, which evaluates a part they share (a row's
mean, its variance) once (:func:`~lnsym.engines.numeric.comparison.compare_scalar_statements`).
Where that route does not apply — a sample undefined somewhere, an entry with vectors — each
entry is checked on its own, as :func:`lnsym.engines.numeric.engine.evidence` does.

**Assumptions.** Sizes come from ``sizes_for`` with the claim's dimension assumptions. The
entries of the assumptions' vector atoms (gamma1, …, gamma_d; also of an atom that only the
assumptions name) take values drawn under every assumption (:class:`_Admissible`): the free
entries are integers, the entries that centered and orthogonal fix are solved from them in
exact rational arithmetic, and each vector is then scaled (which keeps every constraint) to
integers below 2⁵² times a power of two — so that the float64 point satisfies the linear
assumptions *exactly* and no projection's rounding enters the tolerance; a non-constant atom
is never constant. The k-th sample of every entry of one size gets the k-th such point, and
carries all of its entries, so that the checker can re-check a violation with every
assumption (:func:`lnsym.engines.concrete.matrices.promote`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import lcm
from typing import Any

import numpy as np
import sympy

from lnsym import ir
from lnsym.engines.base import Checkable, Evidence, Outcome, Statement
from lnsym.engines.numeric.comparison import compare_all, compare_scalar_statements
from lnsym.engines.numeric.engine import _WINDOW, summarize
from lnsym.engines.numeric.engine import evidence as scalar_evidence
from lnsym.engines.numeric.environment import SamplePoint, real_dtype
from lnsym.engines.numeric.sampling import draw
from lnsym.errors import BudgetExceeded
from lnsym.ir.lowering import MAX_D, lowered, sizes_for, sizes_text
from lnsym.ir.names import d

#: The fewest samples any entry gets.
_MIN_SAMPLES = 8


def evidence(claim: Checkable, *, samples: int, seed: int) -> Evidence:
    """Sample every entry of a matrix statement at each size of ``sizes_for``."""
    start = time.perf_counter()
    all_sizes = sizes_for(claim.statement, claim.assumptions)
    if not all_sizes:
        detail = f"no size with d ≤ {MAX_D} (a multiple of every group count) satisfies the " + (
            "assumptions: " + ", ".join(map(repr, claim.assumptions))
        )
        return Evidence("numeric", Outcome.ERROR, detail, time.perf_counter() - start)
    written = {
        tuple(sizes.items()): lowered(claim.statement, sizes, claim.assumptions)
        for sizes in all_sizes
    }
    count = sum(len(w.entries) for w in written.values())
    each = max(_MIN_SAMPLES, samples // count)
    admissible = _Admissible.of(claim.assumptions)
    by_size: dict[tuple[Any, ...], list[dict[sympy.Symbol, float] | None]] = {}
    if admissible is not None:
        for sizes in all_sizes:
            key = tuple(sizes.items())
            drawn = admissible.points(written[key].vectors, sizes[d], each, seed)
            if any(p is not None for p in drawn):  # (else no point of this size is admissible)
                by_size[key] = drawn
        if not by_size:
            detail = "the assumptions leave no admissible point at any size checked"
            return Evidence("numeric", Outcome.ERROR, detail, time.perf_counter() - start)
    entries = [
        (sizes, index, relation)
        for sizes in all_sizes
        if admissible is None or tuple(sizes.items()) in by_size
        for index, relation in written[tuple(sizes.items())].entries
    ]
    assigned = [by_size.get(tuple(sizes.items())) for sizes, _, _ in entries]
    relations = [relation for _, _, relation in entries]
    shared = _SharedEvaluation(relations, each, seed, assigned)
    for k, (sizes, index, relation) in enumerate(entries):
        found = shared.evidence(k)
        if found is None and admissible is None:
            found = scalar_evidence(Statement(relation), samples=each, seed=seed)
        elif found is None:
            found = shared.alone(k)
        if found.outcome != Outcome.CONSISTENT:
            detail = f"entry {index} for {sizes_text(sizes)}: {found.detail}"
            data = found.data | {"exact": False}
            if "sample" in data:  # where it is, so that the checker can make it exact
                named = {str(k): v for k, v in sizes.items()}
                data["sample"] = {**data["sample"], "sizes": named, "entry": list(index)}
            return Evidence("numeric", found.outcome, detail, time.perf_counter() - start, data)
    detail = f"no violation in {each} samples of each of {len(entries)} entries at small n, d, m"
    if admissible is not None:
        detail += " (the assumptions' vectors drawn exactly admissible)"
    data = {"exact": False}
    return Evidence("numeric", Outcome.CONSISTENT, detail, time.perf_counter() - start, data)


class _SharedEvaluation:
    """The entries' evidence, computed a group at a time: the entries drawn the same points
    (the same symbols) are judged together when the first of them is asked for."""

    def __init__(
        self,
        relations: list[ir.Relation],
        samples: int,
        seed: int,
        assigned: Sequence[Sequence[dict[sympy.Symbol, float] | None] | None] = (),
    ) -> None:
        self.relations = relations
        self.samples = samples
        self.seed = seed
        self.real = real_dtype(np.float64)
        #: Per entry, the values of the assumptions' entries at each sample (or None).
        self.assigned = list(assigned) or [None] * len(relations)
        self.points: list[Any] = []
        self.groups: dict[int, list[int]] = {}  # id of the drawn points → entries
        self.kept: dict[tuple[int, int], list[SamplePoint | None]] = {}
        for k, relation in enumerate(relations):
            points = self._draw(relation, self.assigned[k])
            self.points.append(points)
            if points is not None:
                self.groups.setdefault(id(points), []).append(k)
        self.done: dict[int, Evidence | None] = {}

    def _draw(
        self, relation: ir.Relation, assigned: Sequence[dict[sympy.Symbol, float] | None] | None
    ) -> list[Any] | None:
        if self.samples > _WINDOW and assigned is None:
            return None  # drawn as consumed, in windows: the entry is checked on its own
        try:
            drawn = draw(Statement(relation), self.seed, self.real, self.samples)
        except BudgetExceeded:
            raise
        except Exception:  # noqa: BLE001 — checked on its own, which raises it in turn
            return None
        drawn = list(drawn) if assigned is not None else drawn
        if not isinstance(drawn, list):
            return None
        if assigned is None:
            return drawn
        key = (id(drawn), id(assigned))  # one list per pair: entries alike share it
        if key not in self.kept:
            self.kept[key] = [_assign(p, a) for p, a in zip(drawn, assigned, strict=True)]
        return self.kept[key]

    def alone(self, k: int) -> Evidence:
        """Entry k judged on its own at its points (the assumptions' entries assigned), as
        :func:`lnsym.engines.numeric.engine.evidence` judges a statement."""
        start = time.perf_counter()
        points = self.points[k]
        if points is None:  # (the draw failed: drawn again, which raises what it raised)
            assigned = self.assigned[k]
            drawn = list(draw(Statement(self.relations[k]), self.seed, self.real, self.samples))
            points = [_assign(p, a) for p, a in zip(drawn, assigned or [], strict=True)]
        relation = self.relations[k]
        results = iter(compare_all(relation, [p for p in points if p is not None]))
        judged = [(p, None if p is None else next(results)) for p in points]
        return summarize(relation, self.samples, self.real, judged, start)

    def evidence(self, k: int) -> Evidence | None:
        """Entry k's evidence, or None when it is to be checked on its own."""
        if k not in self.done:
            points = self.points[k]
            group = [] if points is None else self.groups[id(points)]
            self._judge(group, points)
            self.done.setdefault(k, None)
        return self.done[k]

    def _judge(self, group: list[int], points: list[Any] | None) -> None:
        if not group or points is None:
            return
        start = time.perf_counter()
        try:
            judged = compare_scalar_statements([self.relations[k] for k in group], points)
        except BudgetExceeded:
            raise
        except Exception:  # noqa: BLE001 — each entry on its own raises what is to be raised
            judged = None
        if judged is None:
            self.done.update(dict.fromkeys(group))
            return
        for k, results in zip(group, judged, strict=True):
            try:
                pairs = list(zip(points, results, strict=True))
                found = summarize(self.relations[k], self.samples, self.real, pairs, start)
            except BudgetExceeded:
                raise
            except Exception:  # noqa: BLE001 — e.g. no sample in the domain: on its own
                found = None
            self.done[k] = found


def _assign(point: SamplePoint | None, values: dict[sympy.Symbol, float] | None) -> Any:
    """A drawn point with the assumptions' entries set: every one of them, whether the entry
    uses it or not (the sample then shows the whole admissible point)."""
    if point is None or values is None:
        return None
    scalars = {**point.scalars, **values}
    return SamplePoint(point.d, point.vectors, scalars, point.dtype, point.slack)


#: Attempts at an admissible point before a sample is given up (counted as inadmissible).
_TRIES = 8
#: Free entries are integers of at most this many bits; a vector is scaled to integers of
#: at most 52 bits (exact in float64), then by 2^k for k within ±_SCALE_BITS.
_FREE_BITS = (2, 4, 10)
_SCALE_BITS = 8


class _Admissible:
    """Exactly admissible values for the entries of the assumptions' vector atoms: what
    centered, orthogonal and non-constant ask, in exact rational arithmetic, then floats
    that are exactly those rationals (the numeric engine's own solver: the engines stay
    independent)."""

    def __init__(
        self,
        atoms: list[str],
        centered: set[str],
        partners: dict[str, list[str]],
        nonconstant: set[str],
    ) -> None:
        self.atoms = atoms
        self.centered = centered
        self.partners = partners  # atom → the earlier atoms it is orthogonal to
        self.nonconstant = nonconstant

    @staticmethod
    def of(assumptions: Sequence[ir.Assumption]) -> _Admissible | None:
        """The assumptions' vector constraints, or None when there are none."""
        atoms = sorted({v.name for a in assumptions for v in vars(a).values()
                        if isinstance(v, ir.VectorAtom)})  # fmt: skip
        if not atoms:
            return None
        centered = {a.atom.name for a in assumptions if isinstance(a, ir.Centered)}
        nonconstant = {a.atom.name for a in assumptions if isinstance(a, ir.Nonconstant)}
        partners: dict[str, list[str]] = {name: [] for name in atoms}
        for a in assumptions:
            if isinstance(a, ir.Orthogonal):  # (left sorts before right)
                partners[a.right.name].append(a.left.name)
        return _Admissible(atoms, centered, partners, nonconstant)

    def points(
        self, symbols: Mapping[str, tuple[sympy.Symbol, ...]], size: int, count: int, seed: int
    ) -> list[dict[sympy.Symbol, float] | None]:
        """``count`` admissible points at dimension ``size``, drawn deterministically from
        the seed, as values of the entries' symbols (None for a sample given up)."""
        rng = np.random.default_rng([seed, size, 7])
        out: list[dict[sympy.Symbol, float] | None] = []
        for k in range(count):
            found = None
            for _ in range(_TRIES):
                found = self._one(size, k, rng)
                if found is not None:
                    break
            out.append(
                None
                if found is None
                else {
                    s: float(x)
                    for name in self.atoms
                    for s, x in zip(symbols[name], found[name], strict=True)
                }
            )
        return out

    def _one(self, size: int, k: int, rng: np.random.Generator) -> dict[str, list[Fraction]] | None:
        done: dict[str, list[Fraction]] = {}
        for j, name in enumerate(self.atoms):
            bits = _FREE_BITS[(k + j) % len(_FREE_BITS)]
            free = [Fraction(int(rng.integers(-(2**bits), 2**bits + 1))) for _ in range(size)]
            rows = [[Fraction(1)] * size] * (name in self.centered)
            rows += [done[p] for p in self.partners[name]]
            vector = _solve(rows, free)
            if vector is None:
                return None
            vector = _exact_floats(vector, int(rng.integers(-_SCALE_BITS, _SCALE_BITS + 1)))
            if vector is None or (name in self.nonconstant and len(set(vector)) < 2):
                return None
            done[name] = vector
        return done


def _solve(rows: list[list[Fraction]], free: list[Fraction]) -> list[Fraction] | None:
    """``free`` with its last len(rows) entries replaced so that ⟨row, x⟩ = 0 for every row
    (all zero when there are d rows or more); None where they are degenerate."""
    size, k = len(free), len(rows)
    if k == 0:
        return free
    if k >= size:
        return [Fraction(0)] * size
    # Gauss–Jordan on M x = −R f, M the rows' last k columns, f the first d − k entries.
    system = [
        [
            *row[size - k :],
            -sum(
                (r * x for r, x in zip(row[: size - k], free[: size - k], strict=True)), Fraction(0)
            ),
        ]
        for row in rows
    ]
    for col in range(k):
        pivot = next((i for i in range(col, k) if system[i][col] != 0), None)
        if pivot is None:
            return None
        system[col], system[pivot] = system[pivot], system[col]
        head = system[col][col]
        system[col] = [x / head for x in system[col]]
        for i in range(k):
            if i != col and system[i][col] != 0:
                factor = system[i][col]
                system[i] = [x - factor * y for x, y in zip(system[i], system[col], strict=True)]
    return [*free[: size - k], *(system[i][k] for i in range(k))]


def _exact_floats(vector: list[Fraction], shift: int) -> list[Fraction] | None:
    """The vector scaled (a nonzero factor keeps every linear constraint) to integers times
    2^shift, each exact in float64; None when an integer needs more than 52 bits."""
    scale = lcm(*(x.denominator for x in vector))
    integers = [x * scale for x in vector]
    if any(abs(x) >= 2**52 for x in integers):
        return None
    factor = Fraction(2) ** shift
    return [x * factor for x in integers]
