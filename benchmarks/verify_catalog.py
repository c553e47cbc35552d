"""CPU seconds of checking the built-in catalog, per engine, against the general engine alone.

Runs the whole catalog twice in this one process — once with the general engine only (the
engine that gives the verdicts), once with every engine — and prints each engine's CPU
seconds (time.process_time, so other load on the machine does not count) and the ratio
full / general-only. The issue's target is a ratio of at most 4. The catalog is loaded once,
before both runs, and its load is printed apart.

Run: python benchmarks/verify_catalog.py [--engines general,concrete,numeric]
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict

from lnsym.checking.catalog import load
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import derivation_claims


def catalog_claims() -> list:
    """Every claim of the built-in catalog, each link of a derivation included."""
    out = []
    for section in load():
        out += list(section.claims)
        for derivation in section.derivations:
            out += derivation_claims(derivation)
    return out


def _run(engines: tuple[str, ...], claims: list) -> tuple[float, dict[str, float], dict[str, int]]:
    """Total CPU seconds, CPU seconds per engine, and the count of each verdict."""
    checker = Checker(Options(timeout=None, engines=engines))
    per_engine: dict[str, float] = defaultdict(float)
    verdicts: dict[str, int] = defaultdict(int)
    runner = checker._run

    def timed(name, claim):  # attribute CPU time to the engine that spent it
        start = time.process_time()
        try:
            return runner(name, claim)
        finally:
            per_engine[name] += time.process_time() - start

    checker._run = timed  # type: ignore[method-assign]
    start = time.process_time()
    for claim in claims:
        verdicts[checker.check(claim).verdict] += 1
    return time.process_time() - start, dict(per_engine), dict(verdicts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engines", default="general,concrete,numeric")
    engines = tuple(parser.parse_args().engines.split(","))
    # Loaded once, outside both timings: the first load derives 07_derived's closed forms,
    # which would otherwise count in whichever run came first.
    start = time.process_time()
    claims = catalog_claims()
    print(f"catalog load : {time.process_time() - start:7.2f} s CPU  ({len(claims)} claims)")
    general_total, _, general_verdicts = _run(("general",), claims)
    total, per_engine, verdicts = _run(engines, claims)
    print(f"general only : {general_total:7.2f} s CPU  {dict(sorted(general_verdicts.items()))}")
    print(f"{','.join(engines):<13}: {total:7.2f} s CPU  {dict(sorted(verdicts.items()))}")
    for name, seconds in sorted(per_engine.items(), key=lambda kv: -kv[1]):
        print(f"  {name:<10} {seconds:7.2f} s CPU  ({100 * seconds / total:4.1f} %)")
    print(f"ratio {'+'.join(engines)} / general-only: {total / general_total:.1f}  (target ≤ 4)")


if __name__ == "__main__":
    main()
