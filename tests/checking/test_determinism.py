"""Verdicts and their words depend on the inputs and the code, never on the clock or load.

Engines stop at deterministic limits (terms, nesting depth, samples); the wall-clock budget
is a safety net that fails loudly. Two runs of a claim past the general engine's limits —
one of them with every CPU busy — give the same verdict and the same text.
"""

from __future__ import annotations

from load_support import every_cpu_busy

from lnsym import Eq, core, jvp, layer_norm, ones, scalar, vector
from lnsym.checking.checker import Checker, Options
from lnsym.checking.claims import Claim

z, y, h = vector("z"), vector("y"), vector("h")
gamma, beta = vector("gamma"), vector("beta")
g1, b1, g2, b2 = vector("g1"), vector("b1"), vector("g2"), vector("b2")
c = scalar("c")


def nest(x, times):
    for _ in range(times):
        x = layer_norm(x, gamma, beta)
    return x


def _words(result):
    return (
        result.verdict,
        result.reason,
        [(e.engine, e.outcome, e.detail) for e in result.evidence],
    )


def test_a_claim_past_the_engines_limit_reads_the_same_on_every_run():
    # Scale "invariance" of a triple layer norm: false with ε > 0, and beyond the general
    # engine's nesting limit, which it reports the same way quiet or loaded.
    claim = Claim("nested.scale", Eq(nest(2 * z, 3), nest(z, 3)))
    quiet = Checker(Options(engines=("general",), timeout=None)).check(claim)
    with every_cpu_busy():
        loaded = Checker(Options(engines=("general",), timeout=None)).check(claim)
    assert _words(quiet) == _words(loaded)
    assert quiet.verdict == "ERROR"
    assert "square roots nested 3 deep (limit 2)" in quiet.reason


def test_triple_layer_norm_is_shift_invariant_for_symbolic_d():
    claim = Claim("nested.shift", Eq(nest(z + c * ones, 3), nest(z, 3)))
    result = Checker(Options(engines=("general",))).check(claim)
    assert result.verdict == "PROVED"
    assert "same operations" in result.reason


inner = layer_norm(z, g1, b1)
outer = layer_norm(y, g2, b2)
COMPOSITE_JVP = jvp(outer.subs(y, inner), z, h)


def test_the_chain_rule_through_two_layers_is_proved():
    claim = Claim(
        "chain.correct", Eq(COMPOSITE_JVP, jvp(outer, y, jvp(inner, z, h)).subs(y, inner))
    )
    result = Checker(Options()).check(claim)
    assert result.verdict == "PROVED"
    assert "chain rule" in result.reason


def test_a_chain_rule_that_forgets_the_inner_jacobian_is_refuted():
    claim = Claim("chain.wrong", Eq(COMPOSITE_JVP, jvp(outer, y, h).subs(y, inner)))
    result = Checker(Options()).check(claim)
    assert result.verdict == "REFUTED"
    assert result.counterexample is not None


def test_the_chain_rule_applies_only_to_a_fresh_intermediate_atom():
    # y occurs in the substituted value: D_z[core(y)|_{y=y+z}] is not the chain rule's form.
    from lnsym.engines.general import chain_rule

    tangled = jvp(core(y).subs(y, y + z), z, h)
    assert chain_rule(tangled) == tangled
    direction_with_y = jvp(core(y).subs(y, core(z)), z, y)
    assert chain_rule(direction_with_y) == direction_with_y
