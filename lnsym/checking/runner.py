"""Running a catalog: select items, check them (optionally in parallel), keep the order.

Used by ``lnsym verify`` and ``lnsym report``. With ``jobs > 1`` the items are checked in
worker processes, each with its own checker; the results are the same as a serial run
(claims do not depend on each other except through premises, which workers re-check).
An overall budget turns the items that could not start in time into TIMEOUT results.
"""

from __future__ import annotations

import fnmatch
import multiprocessing
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from lnsym.checking.catalog import Section
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim, DerivationResult, Evidence, Result
from lnsym.checking.proof import Derivation
from lnsym.checking.verdicts import Verdict
from lnsym.engines.base import Outcome

#: What checking one item gives: a claim's result or a derivation's.
ItemResult = Result | DerivationResult

#: Version of the ``lnsym verify --json`` document; see docs/verify-schema.json.
SCHEMA_VERSION = 1


def to_json(items: list[Item], outcomes: list[ItemResult]) -> dict[str, Any]:
    """The ``lnsym verify --json`` document for checked items."""
    records = [
        {"section": item.section.name, **outcome.to_json()}
        for item, outcome in zip(items, outcomes, strict=True)
    ]
    passed = sum(1 for outcome in outcomes if outcome.passed)
    return {
        "schema_version": SCHEMA_VERSION,
        "passed": passed,
        "failed": len(outcomes) - passed,
        "results": records,
    }


@dataclass(frozen=True)
class Item:
    """One claim or derivation of a section."""

    section: Section
    subject: Claim | Derivation

    @property
    def id(self) -> str:
        return self.subject.id


def select(sections: list[Section], pattern: str | None = None) -> list[Item]:
    """The items of ``sections`` whose id contains ``pattern`` (or matches it as a glob).

    >>> matches("jacobian.closed_form", "closed"), matches("jacobian.norm", "jac*.n*")
    (True, True)
    """
    return [
        Item(section, subject)
        for section in sections
        for subject in section.items
        if pattern is None or matches(subject.id, pattern)
    ]


def matches(item_id: str, pattern: str) -> bool:
    """Substring match, or a shell-style glob when the pattern has ``*``, ``?`` or ``[``."""
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(item_id, pattern)
    return pattern in item_id


def usable_cpus() -> int:
    """The number of CPUs this process may run on (its affinity mask where there is one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not Linux
        return max(1, os.cpu_count() or 1)


def run(
    items: list[Item],
    options: Options,
    *,
    jobs: int = 1,
    total_timeout: float | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> list[ItemResult]:
    """Check every item; results come back in the order of ``items``.

    ``jobs`` is capped at :func:`usable_cpus`: more processes than CPUs only share the
    same CPUs and turn quick claims into TIMEOUT. ``meanwhile`` is work of the caller's
    that does not depend on the results (filling its caches): with workers, this process
    does it while they check, instead of waiting. Its errors are ignored — the caller does
    the work again later, where they are reported.
    """
    deadline = None if total_timeout is None else time.monotonic() + total_timeout
    jobs = min(jobs, usable_cpus())
    if jobs <= 1 or len(items) <= 1:
        checker = Checker(options)
        return [_check_one(checker, item, deadline, total_timeout) for item in items]
    context = multiprocessing.get_context("fork")
    global _WORK
    _WORK = (items, options, deadline, total_timeout)
    try:
        with context.Pool(min(jobs, len(items))) as pool:
            chunksize = _run_length(len(items), jobs)
            pending = pool.map_async(_worker, range(len(items)), chunksize=chunksize)
            if meanwhile is not None:
                try:
                    meanwhile()
                except Exception:  # noqa: BLE001, S110 — done again later, which reports it
                    pass
            return pending.get()
    finally:
        _WORK = None


def _run_length(items: int, jobs: int) -> int:
    """How many neighbouring items a worker takes at a time.

    Neighbours share parts — a section's claims use the same nodes, a derivation's links
    their sides — and what each process keeps between claims (the concrete engine's
    symbolic values, the numeric engine's evaluators) is its own: runs of neighbours are
    checked with fewer values computed twice (measured on the catalog with 2 workers: about
    10 % less CPU and 1 s less wall time than one item at a time). About 8 runs per worker
    keep the workers' loads even."""
    return max(1, items // (8 * jobs))


_WORK: tuple[list[Item], Options, float | None, float | None] | None = None
_WORKER_CHECKER: Checker | None = None


def _worker(index: int) -> ItemResult:
    global _WORKER_CHECKER
    assert _WORK is not None  # inherited from the parent through fork
    items, options, deadline, total_timeout = _WORK
    if _WORKER_CHECKER is None:
        _WORKER_CHECKER = Checker(options)
    return _check_one(_WORKER_CHECKER, items[index], deadline, total_timeout)


def _check_one(
    checker: Checker, item: Item, deadline: float | None, total_timeout: float | None
) -> ItemResult:
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            return _not_run(item, total_timeout)
        if checker.options.timeout is None or left < checker.options.timeout:
            checker = Checker(replace(checker.options, timeout=left))
    if isinstance(item.subject, Claim):
        return checker.check(item.subject)
    return checker.check_derivation(item.subject)


def _not_run(item: Item, total_timeout: float | None) -> ItemResult:
    from lnsym.checking.claims import derivation_claims

    detail = f"not run: the overall budget of {total_timeout:g} s was used up"

    def skipped(claim: Claim) -> Result:
        evidence = (Evidence("runner", Outcome.TIMEOUT, detail, 0.0),)
        return Result(claim, Verdict.TIMEOUT, evidence, 0.0, detail)

    if isinstance(item.subject, Claim):
        return skipped(item.subject)
    steps = tuple(skipped(c) for c in derivation_claims(item.subject))
    return DerivationResult(item.subject, steps, 0.0)
