"""How each engine's cost grows: concrete and numeric against d, general against size.

- *general engine against expression size*: four families of true claims whose IR grows
  with k — the core nested k times has mean 0, layer norm nested k times is shift
  invariant, the k-th derivative of the core is symmetric in its directions, and
  var(z + h)ᵏ expanded. Each line prints the IR size (nodes with every definition written
  out), the general engine's CPU seconds
  and verdict for every d at once, and the naive route for ONE dimension: the claim
  instantiated at d = 3 by SymPy and ``simplify``-ed, in a subprocess with a budget.
- *concrete engine against d*: :mod:`concrete_scaling` (the Jacobian's closed form, against
  ``Matrix.jacobian`` + ``simplify``).
- *numeric engine against d*: :mod:`numeric_scaling` (batched against one point at a time).

    python benchmarks/engine_scaling.py [--budget 30] [--only general|concrete|numeric]

CPU seconds (``time.process_time``) for our engines; the naive subprocess is wall-clock.
Measurements on this machine, never assertions.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import sympy

sys.path.insert(0, str(Path(__file__).parent))

import concrete_scaling  # noqa: E402  (a sibling script)
import numeric_scaling  # noqa: E402

from lnsym import (  # noqa: E402
    Eq,
    center,
    core,
    dot,
    ir,  # noqa: E402
    jvp,
    layer_norm,
    mean,
    ones,
    scalar,
    var,
    vector,
)
from lnsym.checking.checker import Checker, Options  # noqa: E402
from lnsym.checking.claims import Claim  # noqa: E402
from lnsym.engines.concrete.engine import instantiate  # noqa: E402

z, h = vector("z"), vector("h")
gamma, beta = vector("gamma"), vector("beta")
c = scalar("c")
NAIVE_D = 3


def _nest(f: Callable[[ir.Expr], ir.Expr], x: ir.Expr, k: int) -> ir.Expr:
    for _ in range(k):
        x = f(x)
    return x


def _derivative_along_ones(k: int) -> ir.Expr:
    x = jvp(core(z), z, ones)
    for _ in range(k - 1):
        x = jvp(x, z, h)
    return x


def _symmetry(k: int) -> Claim:
    """The k-th derivative of the core is symmetric: swapping its first two directions."""
    directions = [h, vector("k1"), *(vector(f"k{i}") for i in range(2, k))]

    def derivative(order: list[ir.VectorAtom]) -> ir.Expr:
        x: ir.Expr = core(z)
        for w in order:
            x = jvp(x, z, w)
        return x

    swapped = [directions[1], directions[0], *directions[2:]]
    return Claim(f"core.derivative{k}", Eq(derivative(directions), derivative(swapped)))


def _ln(x: ir.Expr) -> ir.Expr:
    return layer_norm(x, gamma, beta)


FAMILIES: dict[str, tuple[Callable[[int], Claim], tuple[int, ...]]] = {
    "mean(core nested k times) = 0": (
        lambda k: Claim(f"core.nested{k}", Eq(mean(_nest(core, z, k)), 0)),
        (1, 2, 3),
    ),
    "layer_norm nested k times, shift": (
        lambda k: Claim(f"layer_norm.nested{k}", Eq(_nest(_ln, z + c * ones, k), _nest(_ln, z, k))),
        (1, 2, 3, 4),
    ),
    "D^k core symmetric": (_symmetry, (2, 3)),
    "var(z + h)^k expanded": (
        lambda k: Claim(
            f"var.power{k}",
            Eq(var(z + h) ** k, (var(z) + 2 * dot(center(z), center(h)) / ir.d + var(h)) ** k),
        ),
        (1, 2, 4, 8),
    ),
}


def size(e: ir.Expr) -> int:
    """Nodes of ``e`` with every definition (mean, core, layer_norm, …) written out."""
    return sum(
        size(node.definition()) if isinstance(node, ir.Defined) else 1 for node in ir.walk(e)
    )


def naive(family: str, k: int) -> bool:
    """The claim at d = NAIVE_D by SymPy alone: instantiate both sides, simplify the gap."""
    claim = FAMILIES[family][0](k)
    lhs = instantiate(claim.statement.lhs, NAIVE_D)
    rhs = instantiate(claim.statement.rhs, NAIVE_D)
    pairs = zip(lhs, rhs, strict=True) if isinstance(lhs, tuple) else [(lhs, rhs)]
    return all(sympy.simplify(a - b) == 0 for a, b in pairs)


def time_naive(family: str, k: int, budget: float) -> float | None:
    start = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--naive", family, str(k)],
            timeout=budget,
            capture_output=True,
            text=True,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.stdout.strip() != "True":
        return None  # simplify did not reach 0: no proof at all
    return time.perf_counter() - start


def general_scaling(budget: float) -> None:
    checker = Checker(Options(engines=("general",), timeout=None))
    print(f"naive: SymPy instantiate at d = {NAIVE_D} + simplify, budget {budget:g} s")
    header = f"{'family':<34} {'k':>2} {'nodes':>5} {'general s':>9} {'verdict':>8}"
    print(f"{header} {'naive d=3 s':>12} {'ratio':>8}")
    for family, (make, ks) in FAMILIES.items():
        naive_gave_up = False
        for k in ks:
            claim = make(k)
            start = time.process_time()
            result = checker.check(claim)
            ours = max(time.process_time() - start, 1e-4)
            if naive_gave_up:
                shown, ratio = "not run", "-"
            else:
                slow = time_naive(family, k, budget)
                naive_gave_up = slow is None
                shown = f"{slow:.2f}" if slow is not None else f"> {budget:g}"
                ratio = f"{slow / ours:.0f}×" if slow is not None else f"> {budget / ours:.0f}×"
            print(
                f"{family:<34} {k:>2} {size(claim.statement.lhs):>5} {ours:>9.3f} "
                f"{result.verdict:>8} {shown:>12} {ratio:>8}",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=30.0, help="seconds for naive simplify")
    parser.add_argument("--only", choices=("general", "concrete", "numeric"))
    parser.add_argument("--naive", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.naive is not None:
        print(naive(args.naive[0], int(args.naive[1])))
        return
    if args.only in (None, "general"):
        print("== general engine against expression size ==")
        general_scaling(args.budget)
    if args.only in (None, "concrete"):
        print("\n== concrete engine against d (jacobian.closed_form) ==")
        concrete_scaling.scaling([2, 4, 8, 16, 32, 64], args.budget)
    if args.only in (None, "numeric"):
        print("\n== numeric engine against d ==")
        numeric_scaling.scaling(48)


if __name__ == "__main__":
    main()
