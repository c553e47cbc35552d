"""A claim's verdict and evidence are the same checked alone, first, last or after others.

Engines keep no state from one claim to the next that could change what they conclude:
what they keep between claims (memo tables, shared symbolic values, interned symbols) is
keyed by the full structure of what it stands for. These tests check the consequence, not
the mechanism: the whole catalog checked forward and backward in two fresh processes, a
sample of its claims each alone, and generated claims built to collide — a real and a
positive symbol of one name, in roots, sums and squares — each checked alone and right
after two others that write alike what differs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from typing import Any

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lnsym import Eq, Le, core, norm, ones, scalar, sqrt, var, vector
from lnsym.checking.catalog import load
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim, derivation_claims
from lnsym.ir import nodes as ir

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork for fresh processes")


def _record(result: Any) -> str:
    """Everything a result shows but its timings, as JSON text."""

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("seconds", "stopped_after")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return json.dumps(strip(result.to_json()), sort_keys=True, default=str)


def _in_fresh_process(work: Callable[[], list[str]]) -> list[str]:
    """``work()`` in a forked child that has checked nothing yet, its records sent back."""
    return _in_fresh_processes(work)[0]


def _in_fresh_processes(*works: Callable[[], list[str]]) -> list[list[str]]:
    """Each ``work()`` in a forked child of its own, all at once (they share no state)."""
    children = []
    for work in works:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover — the child
            os.close(read)
            try:
                payload = json.dumps(work()).encode()
                code = 0
            except BaseException as exc:  # noqa: BLE001 — reported to the parent
                payload = json.dumps({"error": repr(exc)}).encode()
                code = 1
            with os.fdopen(write, "wb") as out:
                out.write(payload)
            os._exit(code)
        os.close(write)
        children.append((pid, read))
    results = []
    for pid, read in children:
        with os.fdopen(read, "rb") as inp:
            data = json.loads(inp.read() or b"null")
        os.waitpid(pid, 0)
        assert isinstance(data, list), data
        results.append(data)
    return results


def _checked(claims: Sequence[Claim]) -> list[str]:
    checker = Checker(Options(timeout=None))
    return [_record(checker.check(claim)) for claim in claims]


def _catalog_claims() -> list[Claim]:
    claims: list[Claim] = []
    for section in load():
        for item in section.items:
            claims.extend(derivation_claims(item) if hasattr(item, "steps") else [item])
    return claims


def test_the_catalog_reads_the_same_forward_backward_and_alone():
    claims = _catalog_claims()
    forward, backward = _in_fresh_processes(
        lambda: _checked(claims), lambda: _checked(claims[::-1])
    )
    backward = backward[::-1]
    differing = [c.id for c, a, b in zip(claims, forward, backward, strict=True) if a != b]
    assert differing == [], differing
    # A sample spread over the catalog, each claim alone in a process of its own.
    for k in range(0, len(claims), max(1, len(claims) // 6)):
        alone = _in_fresh_process(lambda k=k: _checked([claims[k]]))
        assert alone == [forward[k]], claims[k].id


# -- adversarial sequences ------------------------------------------------------------
#
# Two claims that write alike what differs — a positive and a real c — then a third, true
# claim in the first one's terms: it must read as it does alone. (Floats, which could print
# alike too, are refused in constants.)
# (Roots named by their printed radicand and kept in a registry made the third claim see the
# second claim's radicand.)

z = vector("z")
VARIANTS = st.sampled_from(
    [
        (scalar("c", positive=True), scalar("c")),
        (scalar("c"), scalar("c", positive=True)),
        (scalar("k", positive=True) + 1, scalar("k") + 1),
        (scalar("k") ** 2, scalar("k", positive=True) ** 2),
    ]
)


def _shape(k: int, x: sympy.Expr) -> Eq | Le:
    """One of several statements about √(var z + x)."""
    c = ir.Const(x)
    q = var(z)
    if k == 0:
        return Eq(sqrt(q + c) ** 2, q + c)
    if k == 1:
        return Eq(sqrt(q + c) * sqrt(q + c) - c, q)
    if k == 2:
        return Le(0, sqrt(q + c), certificate=[sqrt(q + c)])
    if k == 3:
        return Eq(sqrt((q + c) ** 2), q + c)
    return Eq(norm(core(z + c * ones, q + c)), norm(core(z, q + c)))


@settings(
    max_examples=10,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(variants=VARIANTS, first=st.integers(0, 4), third=st.integers(0, 4))
def test_a_claim_reads_the_same_alone_and_after_claims_that_write_alike(
    variants: tuple[sympy.Expr, sympy.Expr], first: int, third: int
):
    mine, other = variants
    claims = [
        Claim("first", _shape(first, mine)),
        Claim("second", _shape(first, other)),
        Claim("third", _shape(third, mine)),
    ]
    alone, after = _in_fresh_processes(lambda: _checked(claims[2:]), lambda: _checked(claims))
    assert after[2] == alone[0]
