"""Matrix statements in the concrete engine: every entry checked exactly at small sizes.

The statement is written entry by entry at each (n, d, m) of
:func:`lnsym.ir.lowering.sizes_for` (:mod:`lnsym.ir.lowering`: no rule of the general
engine's slices is used), and each entry's scalar statement goes through the concrete
engine's exact checks. The first violated entry is the counterexample — with the sizes and
the entry's index, its point being the scalar entries X11, X12, … of the matrices — and is
re-checked by :func:`recheck`, which writes the statement out afresh at those sizes.
"""

from __future__ import annotations

import time
from dataclasses import replace

from lnsym.engines.base import Checkable, Counterexample, Evidence, Outcome, Statement
from lnsym.engines.concrete.engine import evidence as scalar_evidence
from lnsym.engines.concrete.recheck import recheck as scalar_recheck
from lnsym.errors import DomainError
from lnsym.ir.lowering import lower_relation, sizes_for, sizes_text
from lnsym.ir.names import d, m, n

_NAMES = {"n": n, "d": d, "m": m}


def evidence(claim: Checkable, *, seed: int) -> Evidence:
    """Check every entry of a matrix statement exactly at each size of ``sizes_for``."""
    start = time.perf_counter()
    if claim.assumptions:
        detail = "assumptions on a statement about matrices are not supported"
        return Evidence("concrete", Outcome.ERROR, detail, time.perf_counter() - start)
    outcomes: list[Outcome] = []
    checked = []
    for sizes in sizes_for(claim.statement):
        named = {str(k): v for k, v in sizes.items()}
        for index, relation in lower_relation(claim.statement, sizes):
            try:
                found = scalar_evidence(Statement(relation), max_d=1, seed=seed)
            except DomainError as exc:
                detail = f"entry {index} for {sizes_text(named)}: {exc}"
                return Evidence("concrete", Outcome.ERROR, detail, time.perf_counter() - start)
            if found.outcome == Outcome.COUNTEREXAMPLE and found.counterexample is not None:
                point = replace(found.counterexample, d=sizes[d], sizes=named, entry=index)
                detail = f"violated exactly at entry {index} for {sizes_text(named)}"
                seconds = time.perf_counter() - start
                data = {"exact": True, "sizes": named}
                return Evidence("concrete", Outcome.COUNTEREXAMPLE, detail, seconds, data, point)
            if found.outcome not in (Outcome.HOLDS, Outcome.CONSISTENT):
                detail = f"entry {index} for {sizes_text(named)}: {found.detail}"
                return Evidence("concrete", found.outcome, detail, time.perf_counter() - start)
            outcomes.append(found.outcome)
        checked.append("(" + ", ".join(str(v) for v in sizes.values()) + ")")
    where = f"every entry for (n, d, m) = {', '.join(checked)}"
    data = {"exact": True, "sizes": checked}
    seconds = time.perf_counter() - start
    if all(o == Outcome.HOLDS for o in outcomes):
        return Evidence("concrete", Outcome.HOLDS, f"exact for {where}", seconds, data)
    detail = f"no violation at exact sample points of {where}"
    return Evidence("concrete", Outcome.CONSISTENT, detail, seconds, data)


def recheck(claim: Checkable, point: Counterexample) -> tuple[Counterexample | None, str]:
    """Write the statement afresh at the point's sizes and re-check the reported entry."""
    sizes = {_NAMES[k]: v for k, v in point.sizes.items()}
    entries = dict(lower_relation(claim.statement, sizes))
    if point.entry not in entries:
        return None, f"the statement has no entry {point.entry} at those sizes"
    found, how = scalar_recheck(Statement(entries[point.entry]), replace(point, sizes={}, entry=()))
    if found is None:
        return None, how
    return replace(found, d=point.d, sizes=point.sizes, entry=point.entry), how
