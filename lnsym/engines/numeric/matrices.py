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
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from lnsym import ir
from lnsym.engines.base import Checkable, Evidence, Outcome, Statement
from lnsym.engines.numeric.comparison import compare_scalar_statements
from lnsym.engines.numeric.engine import _WINDOW, summarize
from lnsym.engines.numeric.engine import evidence as scalar_evidence
from lnsym.engines.numeric.environment import real_dtype
from lnsym.engines.numeric.sampling import draw
from lnsym.errors import BudgetExceeded
from lnsym.ir.lowering import lowered_entries, sizes_for, sizes_text

#: The fewest samples any entry gets.
_MIN_SAMPLES = 8


def evidence(claim: Checkable, *, samples: int, seed: int) -> Evidence:
    """Sample every entry of a matrix statement at each size of ``sizes_for``."""
    start = time.perf_counter()
    if claim.assumptions:
        detail = "assumptions on a statement about matrices are not supported"
        return Evidence("numeric", Outcome.ERROR, detail, time.perf_counter() - start)
    entries = [
        (sizes, index, relation)
        for sizes in sizes_for(claim.statement)
        for index, relation in lowered_entries(claim.statement, sizes)
    ]
    each = max(_MIN_SAMPLES, samples // len(entries))
    shared = _SharedEvaluation([relation for _, _, relation in entries], each, seed)
    for k, (sizes, index, relation) in enumerate(entries):
        found = shared.evidence(k)
        if found is None:
            found = scalar_evidence(Statement(relation), samples=each, seed=seed)
        if found.outcome != Outcome.CONSISTENT:
            detail = f"entry {index} for {sizes_text(sizes)}: {found.detail}"
            data = found.data | {"exact": False}
            if "sample" in data:  # where it is, so that the checker can make it exact
                named = {str(k): v for k, v in sizes.items()}
                data["sample"] = {**data["sample"], "sizes": named, "entry": list(index)}
            return Evidence("numeric", found.outcome, detail, time.perf_counter() - start, data)
    detail = f"no violation in {each} samples of each of {len(entries)} entries at small n, d, m"
    data = {"exact": False}
    return Evidence("numeric", Outcome.CONSISTENT, detail, time.perf_counter() - start, data)


class _SharedEvaluation:
    """The entries' evidence, computed a group at a time: the entries drawn the same points
    (the same symbols) are judged together when the first of them is asked for."""

    def __init__(self, relations: list[ir.Relation], samples: int, seed: int) -> None:
        self.relations = relations
        self.samples = samples
        self.seed = seed
        self.real = real_dtype(np.float64)
        self.points: list[Any] = []
        self.groups: dict[int, list[int]] = {}  # id of the drawn points → entries
        for k, relation in enumerate(relations):
            points = self._draw(relation)
            self.points.append(points)
            if points is not None:
                self.groups.setdefault(id(points), []).append(k)
        self.done: dict[int, Evidence | None] = {}

    def _draw(self, relation: ir.Relation) -> list[Any] | None:
        if self.samples > _WINDOW:
            return None  # drawn as consumed, in windows: the entry is checked on its own
        try:
            drawn = draw(Statement(relation), self.seed, self.real, self.samples)
        except BudgetExceeded:
            raise
        except Exception:  # noqa: BLE001 — checked on its own, which raises it in turn
            return None
        return drawn if isinstance(drawn, list) else None

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
