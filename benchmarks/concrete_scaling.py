"""How the concrete engine's exact Jacobian check scales with d, against naive ``simplify``.

For each d it times the claim ``jacobian.closed_form`` (J h = (Ph − u⟨u, h⟩/d)/s) checked by
:func:`lnsym.engines.concrete.engine.check_dimension` — the symbolic reduction with s² = q + ε up to
d = 8, exact random rational points beyond — and, in a subprocess with a time budget, the naive
route: SymPy's ``Matrix.jacobian`` of u_ε at d symbols, then ``simplify`` of J h minus the closed
form. With ``--catalog`` it also times every catalog claim for d = 1..8.

    python benchmarks/concrete_scaling.py [--dims 2 4 8 16 32 64] [--budget 60] [--catalog]

Times are wall-clock seconds on this machine; they are measurements, not assertions.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

import sympy

from lnsym.checking.catalog import load
from lnsym.checking.claims import Claim, derivation_claims
from lnsym.engines.concrete import engine as concrete


def naive(d: int) -> bool:
    """Matrix.jacobian and simplify: whether J h − closed form simplifies to zero."""
    z = sympy.Matrix(sympy.symbols(f"z1:{d + 1}", real=True))
    h = sympy.Matrix(sympy.symbols(f"h1:{d + 1}", real=True))
    eps = sympy.Symbol("epsilon", positive=True)
    centered = z - sympy.ones(d, 1) * sum(z) / d
    s = sympy.sqrt(centered.dot(centered) / d + eps)
    u = centered / s
    lhs = u.jacobian(z) * h
    rhs = (h - sympy.ones(d, 1) * sum(h) / d - u * u.dot(h) / d) / s
    return all(sympy.simplify(a - b) == 0 for a, b in zip(lhs, rhs, strict=True))


def time_naive(d: int, budget: float) -> float | None:
    """Seconds for :func:`naive` at ``d`` in a fresh process, or None past ``budget``."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--naive", str(d)],
            timeout=budget,
            capture_output=True,
            text=True,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.stdout.strip() != "True":
        raise RuntimeError(f"naive simplify did not prove the identity at d = {d}")
    return time.perf_counter() - start


def claims() -> dict[str, Claim]:
    out: dict[str, Claim] = {}
    for section in load():
        out.update({c.id: c for c in section.claims})
        for derivation in section.derivations:
            out.update({c.id: c for c in derivation_claims(derivation)})
    return out


def scaling(dims: list[int], budget: float) -> None:
    claim = claims()["jacobian.closed_form"]
    concrete.check_dimension(claim, 2)  # import and cache warm-up
    print(f"{'d':>4} {'ours':>8} {'method':>16} {'naive simplify':>15} {'ratio':>8}")
    naive_gave_up = False
    for d in dims:
        start = time.perf_counter()
        result = concrete.check_dimension(claim, d)
        ours = time.perf_counter() - start
        assert result.status == "holds", result
        if naive_gave_up:  # it only gets slower with d
            shown, ratio = "not run", "-"
        else:
            slow = time_naive(d, budget)
            naive_gave_up = slow is None
            shown = f"{slow:.2f}" if slow is not None else f"> {budget:g}"
            ratio = f"{slow / ours:.0f}×" if slow is not None else f"> {budget / ours:.0f}×"
        print(f"{d:>4} {ours:>8.3f} {result.method:>16} {shown:>15} {ratio:>8}", flush=True)


def catalog() -> None:
    total = 0.0
    for claim_id, claim in claims().items():
        start = time.perf_counter()
        evidence = concrete.evidence(claim, max_d=8)
        seconds = time.perf_counter() - start
        total += seconds
        print(f"{claim_id:44} {evidence.outcome:15} {seconds:6.3f}")
    print(f"{'total':44} {'':15} {total:6.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dims", type=int, nargs="+", default=[2, 4, 8, 16, 32, 64])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds for naive simplify")
    parser.add_argument("--catalog", action="store_true", help="also time the catalog, d = 1..8")
    parser.add_argument("--naive", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.naive is not None:
        print(naive(args.naive))
        return
    scaling(args.dims, args.budget)
    if args.catalog:
        catalog()


if __name__ == "__main__":
    main()
