"""Running items in worker processes: the results of a serial run, in order, and the
caller's own work done meanwhile."""

from __future__ import annotations

from pathlib import Path

import pytest

from lnsym import Eq, center, core, mean, ones, vector
from lnsym.checking import runner
from lnsym.checking.catalog import Section
from lnsym.checking.checker import Options
from lnsym.checking.claims import Claim

z, h = vector("z"), vector("h")
CLAIMS = [
    Claim("a.mean_center", Eq(mean(center(z)), 0)),
    Claim("a.core_shift", Eq(core(z + 3 * ones), core(z))),
    Claim("a.wrong", Eq(mean(z), 0), expect="refuted"),
    Claim("a.core_mean", Eq(mean(core(z)), 0)),
    Claim("a.core_scale", Eq(core(2 * z), core(z)), expect="refuted"),
]
OPTIONS = Options(engines=("general", "concrete"), timeout=None, max_d=3)


def _items() -> list[runner.Item]:
    return runner.select([Section(Path("a.py"), "A", "", tuple(CLAIMS), ())])


def _words(results: list) -> list:
    return [(r.claim.id, r.verdict, r.reason) for r in results]


@pytest.mark.skipif(runner.usable_cpus() < 2, reason="needs 2 usable CPUs")
def test_workers_give_the_serial_results_and_do_the_callers_work_meanwhile() -> None:
    done = []
    parallel = runner.run(_items(), OPTIONS, jobs=2, meanwhile=lambda: done.append(True))
    assert done == [True]
    assert _words(parallel) == _words(runner.run(_items(), OPTIONS))


@pytest.mark.skipif(runner.usable_cpus() < 2, reason="needs 2 usable CPUs")
def test_an_error_of_the_work_meanwhile_leaves_the_results_alone() -> None:
    def broken() -> None:
        raise ValueError("the caller's own mistake, reported when it does the work again")

    results = runner.run(_items(), OPTIONS, jobs=2, meanwhile=broken)
    assert _words(results) == _words(runner.run(_items(), OPTIONS))


def test_runs_of_neighbours_keep_every_worker_busy() -> None:
    assert runner._run_length(164, 2) == 10
    assert runner._run_length(5, 2) == 1  # fewer items than runs: one at a time
    assert all(
        runner._run_length(n, j) * 8 * j <= max(n, 8 * j) for n in range(200) for j in (1, 2, 4)
    )
