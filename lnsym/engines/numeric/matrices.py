"""Matrix statements in the numeric engine: every entry sampled at small sizes.

The statement is written entry by entry (:mod:`lnsym.ir.lowering`) at each (n, d, m) of
``sizes_for``, and each entry's scalar statement is sampled by the numeric engine; the
samples of a claim are shared out among its entries.
"""

from __future__ import annotations

import time

from lnsym.engines.base import Checkable, Evidence, Outcome, Statement
from lnsym.engines.numeric.engine import evidence as scalar_evidence
from lnsym.ir.lowering import lower_relation, sizes_for, sizes_text

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
        for index, relation in lower_relation(claim.statement, sizes)
    ]
    each = max(_MIN_SAMPLES, samples // len(entries))
    for sizes, index, relation in entries:
        found = scalar_evidence(Statement(relation), samples=each, seed=seed)
        if found.outcome != Outcome.CONSISTENT:
            detail = f"entry {index} for {sizes_text(sizes)}: {found.detail}"
            data = {k: v for k, v in found.data.items() if k != "sample"} | {"exact": False}
            return Evidence("numeric", found.outcome, detail, time.perf_counter() - start, data)
    detail = f"no violation in {each} samples of each of {len(entries)} entries at small n, d, m"
    data = {"exact": False}
    return Evidence("numeric", Outcome.CONSISTENT, detail, time.perf_counter() - start, data)
