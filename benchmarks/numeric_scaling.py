"""How the numeric engine's cost scales with d, batched against a naive per-sample loop.

For a few representative claims (core shift invariance, the Jacobian's closed form, the input
gradient, the operator norm of J) and d = 1, 8, 64, 768 it draws sample points of that
dimension exactly as :func:`lnsym.engines.numeric.engine.evidence` does, then times

- *batched*: all points of the dimension in one evaluation (what ``evidence`` does), and
- *naive*: the same points one at a time, each a batch of one (the per-point interpretation
  overhead the batching removes; the per-point results are identical, see the tests),

and prints milliseconds of CPU per sample (``time.process_time``) and their ratio. Then, for
claims with a vjp or a gradient, the same batches with the vjp taken in reverse mode (its
adjoint expression, what ``evidence`` does) against the Jacobian in forward mode (the d
basis directions as dual numbers, the route before), with the worst relative error of each
route, which must agree. With ``--catalog`` it also prints the numeric engine's CPU seconds
on every catalog claim and derivation step, called as :mod:`lnsym.checking.claims` calls it
(200 samples, seed 0).

    python benchmarks/numeric_scaling.py [--samples 48] [--catalog]

Times are measurements on this machine, not assertions; the machine's load moves them.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from lnsym.checking.catalog import load
from lnsym.checking.claims import Claim, derivation_claims
from lnsym.engines.numeric import comparison, derivatives
from lnsym.engines.numeric import engine as numeric

CLAIMS = (
    "core.shift_invariant",
    "jacobian.closed_form",
    "gradient.input",
    "jacobian.norm",
)
DIMENSIONS = (1, 8, 64, 768)
#: Claims with a vjp or a gradient: reverse mode against the forward-mode Jacobian.
BACKWARD_CLAIMS = ("gradient.input", "jacobian.transpose_product", "derived.variance_gradient#1")


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
    comparison._kept().clear()  # no values kept from an earlier run at the same points
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


def _judged(claim: Claim, sample: list[numeric.SamplePoint], reverse: bool) -> tuple[float, float]:
    """CPU ms per sample of one batched evaluation, and the worst relative error."""
    derivatives.REVERSE_MODE = reverse
    try:
        numeric._compare_all(claim.statement, sample[:1])  # warm the caches
        comparison._kept().clear()  # no values kept from an earlier run at the same points
        start = time.process_time()
        results = numeric._compare_all(claim.statement, sample)
        ms = (time.process_time() - start) / len(sample) * 1000
    finally:
        derivatives.REVERSE_MODE = True
    errors = [r.error for r in results if isinstance(r, numeric._Sample)]
    return ms, max(errors, default=float("nan"))


def reverse_against_forward(count: int) -> None:
    by_id = {claim.id: claim for claim in catalog()}
    print()
    print(f"{'claim (vjp, gradient)':<28} {'d':>4} {'samples':>7} {'reverse ms':>10} "
          f"{'forward ms':>10} {'ratio':>6}  worst errors (reverse, forward)")  # fmt: skip
    for claim_id in BACKWARD_CLAIMS:
        claim = by_id[claim_id]
        for d in DIMENSIONS:
            sample = points(claim, d, count if d < 768 else max(2, count // 8))
            if not sample:
                continue
            (fast, ours), (slow, theirs) = (_judged(claim, sample, r) for r in (True, False))
            print(
                f"{claim_id:<28} {d:>4} {len(sample):>7} {fast:>10.3f} {slow:>10.3f} "
                f"{slow / fast:>6.1f}  {ours:.1e}, {theirs:.1e}"
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
    reverse_against_forward(args.samples)
    if args.catalog:
        whole_catalog()


if __name__ == "__main__":
    main()
