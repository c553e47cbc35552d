"""CPU seconds of checking the built-in catalog, per engine, against the general engine alone.

Runs the whole catalog twice, each time in a fresh process of its own — once with the general
engine only (the engine that gives the verdicts, without translation validation), once with
every engine and every proof validated (lnsym.checking.validation) — and prints each
engine's CPU seconds (time.process_time, so other load on the machine does not count) and the
ratio full / general-only. The issue's target is a ratio of at most 4. On a shared machine
whose speed drifts between the two processes, the full run's total against its own general
engine's share is the steadier estimate of the same ratio; it is printed too. Fresh processes, so
that neither run finds the other's caches warm (SymPy's, the engines' memo tables); in each,
the catalog is loaded before the timing (the general engine's modules with it), and so are the
other engines' modules, which the checker imports when first used: fixed costs, printed apart.
Then what is loaded is frozen out of the garbage collector's sight, as the commands do (see
:func:`lnsym.commands.options.freeze_loaded`).

Run: python benchmarks/verify_catalog.py [--engines general,concrete,numeric] [--rounds N]
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import statistics
import subprocess
import sys
import time
from collections import defaultdict

from lnsym.checking.catalog import load
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import derivation_claims
from lnsym.checking.verdicts import Verdict


def catalog_claims() -> list:
    """Every claim of the built-in catalog, each link of a derivation included."""
    out = []
    for section in load():
        out += list(section.claims)
        for derivation in section.derivations:
            out += derivation_claims(derivation)
    return out


def _run(
    engines: tuple[str, ...], claims: list, residuals: bool = True
) -> tuple[float, dict[str, float], dict[Verdict, int]]:
    """Total CPU seconds, CPU seconds per engine, and the count of each verdict."""
    # The general engine alone is measured without translation validation (which runs the
    # concrete engine's arithmetic); the full run validates every proof, as lnsym verify does.
    alone = engines == ("general",)
    options = Options(timeout=None, engines=engines, residuals=residuals, validation=not alone)
    checker = Checker(options)
    per_engine: dict[str, float] = defaultdict(float)
    verdicts: dict[Verdict, int] = defaultdict(int)
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


#: The modules of the engines that the checker imports when first used (the general engine
#: comes with the catalog).
_ENGINE_MODULES = {
    "concrete": ("lnsym.engines.concrete.engine", "lnsym.engines.concrete.matrices"),
    "numeric": ("lnsym.engines.numeric.engine", "lnsym.engines.numeric.matrices"),
}


def _route(engines: tuple[str, ...], residuals: bool) -> None:
    """One run in this process: print its load, CPU seconds and verdicts as one JSON line."""
    start = time.process_time()
    claims = catalog_claims()
    load_seconds = time.process_time() - start
    start = time.process_time()  # a fixed cost, like the general engine's in the load
    for name in engines:
        for module in _ENGINE_MODULES.get(name, ()):
            importlib.import_module(module)
    import_seconds = time.process_time() - start
    gc.freeze()  # as `lnsym verify` and `lnsym report` do then (commands.options.freeze_loaded)
    total, per_engine, verdicts = _run(engines, claims, residuals)
    counts = {v.value: n for v, n in verdicts.items()}
    record = {
        "load": load_seconds,
        "imports": import_seconds,
        "claims": len(claims),
        "total": total,
    }
    print(json.dumps({**record, "engines": per_engine, "verdicts": counts}))


def _in_fresh_process(engines: tuple[str, ...], residuals: bool) -> dict:
    command = [sys.executable, __file__, "--route", ",".join(engines)]
    command += [] if residuals else ["--no-residuals"]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engines", default="general,concrete,numeric")
    parser.add_argument("--rounds", type=int, default=1, help="general-only and full, in turn")
    parser.add_argument(
        "--no-residuals",
        action="store_true",
        help="as `lnsym verify` without --json and `lnsym report` check: the general engine "
        "does not write out what is left of a false equality (the API and --json do)",
    )
    parser.add_argument("--route", help=argparse.SUPPRESS)  # the child process's one run
    args = parser.parse_args()
    residuals = not args.no_residuals
    if args.route:
        _route(tuple(args.route.split(",")), residuals)
        return
    engines = tuple(args.engines.split(","))
    print(f"residuals {'computed (API, verify --json)' if residuals else 'not computed'}")
    ratios, withins = [], []
    for _ in range(args.rounds):
        general = _in_fresh_process(("general",), residuals)
        full = _in_fresh_process(engines, residuals)
        print(f"catalog load : {general['load']:7.2f} / {full['load']:.2f} s CPU  "
              f"({general['claims']} claims; not in the timings below)")  # fmt: skip
        print(f"engine import: {general['imports']:7.2f} / {full['imports']:.2f} s CPU  "
              "(the other engines' modules; not in the timings below)")  # fmt: skip
        print(f"general only : {general['total']:7.2f} s CPU  {general['verdicts']}")
        print(f"{','.join(engines):<13}: {full['total']:7.2f} s CPU  {full['verdicts']}")
        for name, seconds in sorted(full["engines"].items(), key=lambda kv: -kv[1]):
            print(f"  {name:<10} {seconds:7.2f} s CPU  ({100 * seconds / full['total']:4.1f} %)")
        ratio = full["total"] / general["total"]
        ratios.append(ratio)
        print(f"ratio {'+'.join(engines)} / general-only: {ratio:.1f}  (target ≤ 4)")
        if "general" in full["engines"]:  # both terms from one process: no drift between runs
            within = full["total"] / full["engines"]["general"]
            withins.append(within)
            print(f"  the same, against the general engine's share of the full run: {within:.1f}")
    if len(ratios) > 1:  # one round's ratio moves with the machine's speed between runs
        print(f"ratio over {len(ratios)} rounds: median {statistics.median(ratios):.1f}, "
              f"range {min(ratios):.1f}–{max(ratios):.1f}")  # fmt: skip
        if withins:
            print(f"  against the general engine's share: median {statistics.median(withins):.1f}, "
                  f"range {min(withins):.1f}–{max(withins):.1f}")  # fmt: skip


if __name__ == "__main__":
    main()
