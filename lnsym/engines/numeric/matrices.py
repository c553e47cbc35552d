"""Matrix statements in the numeric engine: every entry sampled at small sizes.

The statement is written entry by entry (:mod:`lnsym.ir.lowering`) at each (n, d, m) of
``sizes_for``, and each entry's scalar statement is sampled by the numeric engine; the
samples of a claim are shared out among its entries.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from lnsym import ir
from lnsym.engines.base import Checkable, Evidence, Outcome
from lnsym.engines.numeric.engine import evidence as scalar_evidence
from lnsym.ir.lowering import lower_relation, sizes_for

#: The fewest samples any entry gets.
_MIN_SAMPLES = 8


@dataclass(frozen=True)
class _Entry:
    statement: ir.Relation
    assumptions: tuple[ir.Assumption, ...] = ()


def evidence(claim: Checkable, *, samples: int, seed: int) -> Evidence:
    """Sample every entry of a matrix statement at each size of ``sizes_for``."""
    start = time.perf_counter()
    if claim.assumptions:
        detail = "assumptions on a statement about matrices are not supported"
        return Evidence("numeric", Outcome.ERROR, detail, time.perf_counter() - start)
    entries = [
        (sizes, index, relation)
        for sizes in sizes_for(claim.statement)
        for index, relation in lower_relation(claim.statement, sizes)
    ]
    each = max(_MIN_SAMPLES, samples // len(entries))
    for sizes, index, relation in entries:
        found = scalar_evidence(_Entry(relation), samples=each, seed=seed)
        if found.outcome != Outcome.CONSISTENT:
            where = ", ".join(f"{k} = {v}" for k, v in sizes.items())
            detail = f"entry {index} for {where}: {found.detail}"
            data = {k: v for k, v in found.data.items() if k != "sample"} | {"exact": False}
            return Evidence("numeric", found.outcome, detail, time.perf_counter() - start, data)
    detail = f"no violation in {each} samples of each of {len(entries)} entries at small n, d, m"
    data = {"exact": False}
    return Evidence("numeric", Outcome.CONSISTENT, detail, time.perf_counter() - start, data)
