"""CPU seconds of the concrete engine on the whole catalog, against the slower routes it keeps.

Every catalog claim and every link of every derivation is checked with
:func:`lnsym.engines.concrete.engine.evidence` (``max_d`` and ``seed`` as in ``lnsym verify``), in
catalog order, in a fresh process, and the process CPU seconds of each check are printed with the
total. The engine keeps its slower routes behind three switches, and ``--compare`` runs the
catalog again with each of them off:

- ``sympy-points``: exact points evaluated with SymPy numbers and ``sympy.diff`` in t
  (``EXACT_POINTS = False``) instead of :mod:`lnsym.engines.concrete.exact` — the same points;
- ``sympy-values``: the symbolic reduction's values built as SymPy expressions and converted to
  the ring (``DIRECT_RING = False``) instead of built there directly. Its work limit counts
  differently, so it proves fewer dimensions (random points take those): its evidence differs;
- ``unshared``: that SymPy route with its values computed afresh for every claim
  (``SHARE_SYMBOLIC = False`` too).

It then prints, per claim and in total, the ratio of each route's seconds to the default's,
and whether every evidence (outcome, detail and data) is identical across the routes.

    python benchmarks/concrete_speed.py [--max-d 8] [--seed 0] [--compare] [--top 10]

CPU seconds are measurements on this machine (other processes sharing the cores change
them by tens of percent), not assertions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any

ROUTES = {
    "default": {},
    "sympy-points": {"EXACT_POINTS": False},
    "unshared": {"SHARE_SYMBOLIC": False, "DIRECT_RING": False},
    "sympy-values": {"DIRECT_RING": False},
}


def _claims() -> dict[str, Any]:
    from lnsym.checking.catalog import load
    from lnsym.checking.claims import derivation_claims

    out: dict[str, Any] = {}
    for section in load():
        out.update({c.id: c for c in section.claims})
        for derivation in section.derivations:
            out.update({c.id: c for c in derivation_claims(derivation)})
    return out


def child(route: str, max_d: int, seed: int) -> None:
    """Check the catalog with one route and print {id: [seconds, evidence]} as JSON."""
    from lnsym.engines.concrete import engine as concrete

    for name, value in ROUTES[route].items():
        setattr(concrete, name, value)
    out: dict[str, Any] = {}
    for claim_id, claim in _claims().items():
        start = time.process_time()
        try:
            found = concrete.evidence(claim, max_d=max_d, seed=seed)
            result: Any = [found.outcome, found.detail, found.data]
        except Exception as exc:  # an engine error is a result too
            result = ["error", f"{type(exc).__name__}: {exc}"]
        out[claim_id] = [time.process_time() - start, result]
    print(json.dumps(out, default=str, sort_keys=True))


def run(route: str, max_d: int, seed: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", route, "--max-d", str(max_d), "--seed", str(seed)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-d", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--compare", action="store_true", help="also run the slower routes")
    parser.add_argument("--top", type=int, default=0, help="print only the N slowest claims")
    parser.add_argument("--child", choices=sorted(ROUTES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.max_d, args.seed)
        return
    routes = list(ROUTES) if args.compare else ["default"]
    results = {route: run(route, args.max_d, args.seed) for route in routes}
    base = results["default"]
    ids = sorted(base, key=lambda i: -base[i][0]) if args.top else list(base)
    ids = ids[: args.top] if args.top else ids
    header = f"{'claim':46} {'outcome':14}" + "".join(f" {r:>13}" for r in routes)
    print(header + ("" if len(routes) == 1 else "   ratios"))
    for claim_id in ids:
        outcome = base[claim_id][1][0]
        seconds = [results[r][claim_id][0] for r in routes]
        ratios = "".join(f" {s / max(seconds[0], 1e-9):6.1f}×" for s in seconds[1:])
        row = f"{claim_id:46} {outcome:14}" + "".join(f" {s:13.3f}" for s in seconds)
        print(row + ratios)
    totals = [sum(v[0] for v in results[r].values()) for r in routes]
    ratios = "".join(f" {t / totals[0]:6.1f}×" for t in totals[1:])
    print(f"{'total CPU seconds':46} {'':14}" + "".join(f" {t:13.2f}" for t in totals) + ratios)
    if len(routes) > 1:
        differ = [
            claim_id
            for claim_id in base
            if any(results[r][claim_id][1] != base[claim_id][1] for r in routes[1:])
        ]
        print("identical evidence on every route:", "yes" if not differ else f"no: {differ}")


if __name__ == "__main__":
    main()
