"""How the numeric engine's cost scales with d, batched against a naive per-sample loop.

For a few representative claims (core shift invariance, the Jacobian's closed form, the input
gradient, the operator norm of J) and d = 1, 8, 64, 768 it draws sample points of that
dimension exactly as :func:`lnsym.engines.numeric.engine.evidence` does, then times

- *batched*: all points of the dimension in one evaluation (what ``evidence`` does), and
- *naive*: the same points one at a time, each a batch of one (the per-point interpretation
  overhead the batching removes; the per-point results are identical, see the tests),

and prints milliseconds of CPU per sample (``time.process_time``) and their ratio. With
``--catalog`` it also prints the numeric engine's CPU seconds on every catalog claim and
derivation step, called as :mod:`lnsym.checking.claims` calls it (200 samples, seed 0).

    python benchmarks/numeric_scaling.py [--samples 48] [--catalog]

Times are measurements on this machine, not assertions; the machine's load moves them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lnsym.checking.catalog import load
from lnsym.checking.claims import Claim, derivation_claims
from lnsym.engines.numeric import engine as numeric

CLAIMS = (
    "core.shift_invariant",
    "jacobian.closed_form",
    "gradient.input",
    "jacobian.norm",
)
DIMENSIONS = (1, 8, 64, 768)


def catalog() -> list[Claim]:
    """Every claim of the built-in catalog, derivation steps included."""
    claims: list[Claim] = []
    for section in load():
        claims.extend(section.claims)
        for derivation in section.derivations:
            claims.extend(derivation_claims(derivation))
    return claims


def points(claim: Claim, d: int, count: int) -> list[numeric.SamplePoint]:
    """``count`` sample points of ``claim`` at dimension ``d``, drawn like evidence()'s."""
    sampler = numeric._Sampler(claim, 0, np.dtype(np.float64))
    sampler.small, sampler.large = [d], None
    drawn = (sampler.point(k) for k in range(10 * count))
    return [p for p in drawn if p is not None][:count]


def cpu(run: object, *args: object) -> float:
    start = time.process_time()
    run(*args)  # type: ignore[operator]
    return time.process_time() - start


def batched(claim: Claim, sample: list[numeric.SamplePoint]) -> None:
    numeric._compare_all(claim.statement, sample)


def naive(claim: Claim, sample: list[numeric.SamplePoint]) -> None:
    for point in sample:
        numeric._compare(claim.statement, [point])


def scaling(count: int) -> None:
    by_id = {claim.id: claim for claim in catalog()}
    print(f"{'claim':<22} {'d':>4} {'samples':>7} {'batched ms':>11} {'naive ms':>9} {'ratio':>6}")
    for claim_id in CLAIMS:
        claim = by_id[claim_id]
        for d in DIMENSIONS:
            sample = points(claim, d, count if d < 768 else max(2, count // 8))
            if not sample:
                continue  # the assumptions exclude this dimension (e.g. d ≥ 3)
            batched(claim, sample[:1])  # warm the caches (lambdified constants, node sets)
            fast = cpu(batched, claim, sample) / len(sample) * 1000
            slow = cpu(naive, claim, sample) / len(sample) * 1000
            print(
                f"{claim_id:<22} {d:>4} {len(sample):>7} {fast:>11.3f} {slow:>9.3f} "
                f"{slow / fast:>6.1f}"
            )


def whole_catalog() -> None:
    claims = catalog()
    start = time.process_time()
    seconds = sum(numeric.evidence(claim, samples=200, seed=0).seconds for claim in claims)
    total = time.process_time() - start
    print(
        f"catalog: {len(claims)} claims, numeric engine {total:.2f} s CPU "
        f"(sum of Evidence.seconds {seconds:.2f} s wall)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=48, help="points per dimension")
    parser.add_argument("--catalog", action="store_true", help="also time the whole catalog")
    args = parser.parse_args()
    scaling(args.samples)
    if args.catalog:
        whole_catalog()


if __name__ == "__main__":
    main()
