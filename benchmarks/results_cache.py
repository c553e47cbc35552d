"""Checking the built-in catalog with an empty results cache, then again with the filled one.

Prints the CPU seconds of both runs (time.process_time, one process, serial), their ratio,
and whether every result read back has the verdict, reason and evidence of the one computed
(lnsym.checking.cache). The cache lives in a temporary directory removed at the end.

Run: python benchmarks/results_cache.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from verify_catalog import catalog_claims  # run from benchmarks/: its neighbour

from lnsym.checking.checker import Checker, Options


def _words(result) -> tuple:
    evidence = [(e.engine, e.outcome, e.detail, sorted(e.data)) for e in result.evidence]
    return (result.claim.id, result.verdict, result.reason, evidence, result.counterexample)


def _run(claims: list, cache: Path) -> tuple[float, list]:
    checker = Checker(Options(timeout=None, cache_dir=cache))
    start = time.process_time()
    results = [checker.check(claim) for claim in claims]
    return time.process_time() - start, results


def main() -> None:
    claims = catalog_claims()
    with tempfile.TemporaryDirectory() as tmp:
        cold, computed = _run(claims, Path(tmp))
        warm, read = _run(claims, Path(tmp))
    same = [_words(a) for a in computed] == [_words(b) for b in read]
    print(f"{len(claims)} claims")
    print(f"empty cache : {cold:7.2f} s CPU (every claim checked by every engine)")
    print(f"filled cache: {warm:7.2f} s CPU")
    print(f"ratio empty / filled: {cold / warm:.0f}; results identical: {same}")


if __name__ == "__main__":
    main()
