"""Time the general-d proof of every claim and derivation of the built-in catalog.

The general engine never substitutes a number for d, so these times do not depend on d.
Run: python benchmarks/verify_catalog.py [--engines general,concrete,numeric]
"""

from __future__ import annotations

import argparse
import time

from lnsym.catalog import load
from lnsym.claims import Checker, Options


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--engines", default="general", help="comma-separated engine names")
    args = parser.parse_args()
    checker = Checker(Options(timeout=None, engines=tuple(args.engines.split(","))))
    start = time.perf_counter()
    rows = []
    for section in load():
        for claim in section.claims:
            result = checker.check(claim)
            rows.append((claim.id, result.verdict, result.seconds))
        for derivation in section.derivations:
            result = checker.check_derivation(derivation)
            rows.append((derivation.id, result.verdict, result.seconds))
    total = time.perf_counter() - start
    width = max(len(r[0]) for r in rows)
    for item_id, verdict, seconds in rows:
        print(f"{item_id:<{width}}  {verdict:<10} {seconds * 1000:8.1f} ms")
    print(f"{len(rows)} items in {total:.2f} s (engines: {args.engines})")


if __name__ == "__main__":
    main()
