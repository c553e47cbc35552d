"""The text printer's abbreviations and its readable form (lnsym.printing.text_printer)."""

from __future__ import annotations

import sympy
from hypothesis import given
from hypothesis import strategies as st
from strategies import expressions, scalars, vectors

import lnsym
from lnsym import (
    Eq,
    Le,
    center,
    core,
    d,
    dot,
    eps,
    hadamard,
    jvp,
    layer_norm,
    mean,
    norm,
    ones,
    opnorm,
    scalar,
    sqrt,
    var,
    vector,
    vjp,
)
from lnsym.checking.catalog import load
from lnsym.printing import printer
from lnsym.printing.printer import ABBREVIATIONS, abbreviations_for, text

z, h, k, g, a = vector("z"), vector("h"), vector("k"), vector("g"), vector("a")
gamma, beta = vector("gamma"), vector("beta")
c = scalar("c")
u = core(z)
s = sqrt(var(z) + eps)
EVERY = ABBREVIATIONS

#: D_z u(z)(h) in closed form, as the catalog states it.
JVP = (center(h) - dot(u, h) * u / d) / s
#: The input gradient, with a Hadamard product under the centering.
GRADIENT = (center(hadamard(g, gamma)) - mean(hadamard(hadamard(u, g), gamma)) * u) / s
#: A product with a negative coefficient over d·(q + ε).
SECOND = (-dot(u, k) * center(h) - dot(h, u) * center(k)) / (d * (var(z) + eps))


def readable(e):
    """The readable line with the abbreviations the LaTeX printer would use."""
    return text(e, abbreviations_for(e), readable=True)


# ---------------------------------------------------------------------------------------
# The one-argument text printer is what repr shows, byte for byte


def test_one_argument_text_is_unchanged():
    # These are the outputs from before abbreviations and the readable form existed.
    assert text(JVP) == "((var(z) + ε)^(1/2))^(-1)·(center(h) - 1/d·⟨core(z), h⟩·core(z))"
    assert text(GRADIENT) == (
        "((var(z) + ε)^(1/2))^(-1)·(center(g ⊙ γ) - mean(core(z) ⊙ g ⊙ γ)·core(z))"
    )
    assert text(2 / d * center(z)) == "2/d·center(z)"
    assert text(SECOND) == (
        "(d·(var(z) + ε))^(-1)·(-⟨core(z), k⟩·center(h) - ⟨h, core(z)⟩·center(k))"
    )
    assert text(-z) == "(-1)·z"
    assert text(norm(jvp(u, z, h)) ** 2) == "‖D_z[core(z)](h)‖^2"
    assert text(vjp(u, z, g)) == "vjp_z[core(z)](g)"
    assert text(opnorm(u, z)) == "‖D_z[core(z)]‖₂"
    assert text(var(z) / (var(z) + eps)) == "var(z)·(var(z) + ε)^(-1)"
    assert text(layer_norm(z, gamma, beta)) == "LN(z; γ, β)"
    assert text(Le(norm(h) ** 2 / eps, 1)) == "‖h‖^2·1/ε ≤ 1"
    assert text(2 * eps * z) == "2*ε·z"


def test_no_abbreviations_and_not_readable_is_the_repr():
    for section in load():
        for claim in section.claims:
            e = claim.statement
            assert text(e, ()) == text(e, frozenset()) == text(e) == repr(e), claim.id
    assert lnsym.text(JVP) == printer.text(JVP) == repr(JVP)


@given(expressions)
def test_empty_abbreviations_change_nothing(e):
    assert text(e, []) == text(e) == repr(e)


# ---------------------------------------------------------------------------------------
# Abbreviations, as the LaTeX printer uses them


def test_abbreviations_write_the_short_names():
    assert text(JVP, {"s", "u"}) == "s^(-1)·(center(h) - 1/d·⟨u, h⟩·u)"
    assert text(var(z) + eps, {"q"}) == "q + ε"
    assert text(layer_norm(z, gamma, beta), {"y"}) == "y"
    assert text(s**3, {"s"}) == "s^3"
    assert text((var(z) + eps) ** sympy.Rational(-3, 2), {"s"}) == "s^(-3)"
    assert text(jvp(u, z, h + k), EVERY) == "J(h + k)"
    assert text(vjp(u, z, g), EVERY) == "Jᵀ(g)"
    assert text(opnorm(u, z), EVERY) == "‖J‖₂"


def test_abbreviations_are_used_only_when_given():
    assert "core(z)" in text(JVP, readable=True)
    assert text(JVP, readable=True) == "(Ph - ⟨core(z), h⟩·core(z)/d)/√(var(z) + ε)"
    # each abbreviation on its own
    assert text(JVP, {"u"}, readable=True) == "(Ph - ⟨u, h⟩·u/d)/√(var(z) + ε)"
    assert text(JVP, {"s"}, readable=True) == "(Ph - ⟨core(z), h⟩·core(z)/d)/s"
    assert text(jvp(u, z, h), {"u"}) == "D_z[u](h)"
    assert text(jvp(u, z, h), {"J"}, readable=True) == "Jh"
    assert text(jvp(u, z, h), readable=True) == "D_z[core(z)](h)"
    # and only for the quantities they name
    shifted = core(z + c * ones)
    assert text(shifted, EVERY) == "core(z + c·1)"
    assert text(var(h), EVERY) == "var(h)"
    assert text(jvp(core(h), h, z), EVERY) == "D_h[core(h)](z)"


def test_abbreviations_follow_abbreviations_for():
    claim = Eq(var(core(z)), var(z) / (var(z) + eps))
    assert readable(claim) == "var(u) = var(z)/(var(z) + ε)"  # q would be confused
    assert readable(Eq(core(z + c * ones), core(z))) == "core(z + c·1) = core(z)"


# ---------------------------------------------------------------------------------------
# The readable form


def test_readable_targets():
    assert readable(JVP) == "(Ph - ⟨u, h⟩·u/d)/s"
    assert readable(GRADIENT) == "(P(g ⊙ γ) - mean(u ⊙ g ⊙ γ)·u)/s"
    assert readable(2 / d * center(z)) == "2/d·Pz"
    assert readable(SECOND) == "(-⟨u, k⟩·Ph - ⟨h, u⟩·Pk)/(d·(q + ε))"
    assert readable(Eq(jvp(u, z, h), JVP)) == "Jh = (Ph - ⟨u, h⟩·u/d)/s"


def test_readable_products_are_fractions():
    assert text(center(z) / d, readable=True) == "Pz/d"
    assert text(dot(ones, z) / d, readable=True) == "⟨1, z⟩/d"
    assert text(var(z) ** -1 * h, readable=True) == "h/var(z)"
    assert text(hadamard(a, h) / d, readable=True) == "(a ⊙ h)/d"
    assert text(eps / 2 * z, readable=True) == "ε/2·z"
    assert text(2 * eps * z, readable=True) == "2·ε·z"
    assert readable(u / (d * s**3)) == "u/(d·s³)"
    assert readable(eps / ((var(z) + eps) * s)) == "ε/((q + ε)·s)"
    assert readable(s**-1) == "1/s"
    assert readable((var(z) + eps) ** sympy.Rational(-3, 2)) == "1/s³"
    assert readable(s**2) == "s²"


def test_readable_signs_powers_and_operators():
    assert text(-z, readable=True) == "-z"
    assert text(-center(z + h), readable=True) == "-P(z + h)"
    assert text(a - 2 * h, readable=True) == "a - 2·h"
    assert text(-c * ones, readable=True) == "-c·1"
    assert text(ones / 3, readable=True) == "1/3·1"  # 1 is the ones vector: never 1/3
    assert text(0 * z, readable=True) == "0"
    assert text(sqrt(var(z) + eps), readable=True) == "√(var(z) + ε)"
    assert text(sqrt(d) * z, readable=True) == "√d·z"
    assert text(norm(h) ** 2 / eps, readable=True) == "‖h‖²/ε"
    assert text(dot(h, h), readable=True) == "‖h‖²"
    assert text(mean(z), readable=True) == "mean(z)"
    assert text(hadamard(gamma, z) + beta, readable=True) == "γ ⊙ z + β"
    assert text(center(center(a)), readable=True) == "P(Pa)"
    assert text(center(ones), readable=True) == "P(1)"
    assert readable(jvp(u, z, u)) == "Ju"
    assert readable(vjp(u, z, hadamard(gamma, g))) == "Jᵀ(γ ⊙ g)"
    assert readable(opnorm(u, z)) == "‖J‖₂"


def test_readable_output_has_no_double_parentheses():
    assert readable(hadamard(gamma, JVP)) == "γ ⊙ (Ph - ⟨u, h⟩·u/d)/s"
    assert text(JVP, EVERY) == "s^(-1)·(center(h) - 1/d·⟨u, h⟩·u)"
    assert text(hadamard(gamma, JVP), readable=True) == (
        "γ ⊙ (Ph - ⟨core(z), h⟩·core(z)/d)/√(var(z) + ε)"
    )


# ---------------------------------------------------------------------------------------
# Properties


def _pairs(line):
    """Matching parentheses and brackets of ``line`` (asserting that they balance)."""
    stack, pairs = [], {}
    for i, ch in enumerate(line):
        if ch in "([":
            stack.append(i)
        elif ch in ")]":
            assert stack, line
            pairs[stack.pop()] = i
    assert not stack, line
    return pairs


def _well_formed(line):
    pairs = _pairs(line)
    redundant = any(line[i : i + 2] == "((" and pairs.get(i + 1) == j - 1 for i, j in pairs.items())
    return not redundant and "*" not in line and "^(-" not in line


more_scalars = st.one_of(
    scalars,
    st.builds(lambda x: x**-1, scalars),
    st.builds(lambda x, y: x / y, scalars, scalars),
    st.builds(sqrt, scalars),
    st.sampled_from([s, s**-1, s**3, var(z) + eps, d, eps / 2, -s, c * eps]),
)
more_vectors = st.one_of(
    vectors,
    st.builds(lambda x, v: x * v, more_scalars, vectors),
    st.builds(lambda x, v: v / x, more_scalars, vectors),
    st.builds(lambda v, w, x: hadamard(v, w / x), vectors, vectors, more_scalars),
    st.builds(lambda v: jvp(u, z, v), vectors),
    st.builds(lambda v: vjp(u, z, v), vectors),
)
more_expressions = st.one_of(
    more_vectors,
    more_scalars,
    st.builds(lambda x, y: x - y, more_scalars, more_scalars),
    st.builds(lambda v, w: v - w, more_vectors, more_vectors),
)


@given(more_expressions)
def test_any_expression_reads_well(e):
    for short in (frozenset(), abbreviations_for(e), EVERY):
        line = text(e, short, readable=True)
        assert _well_formed(line), (e, line)
        _pairs(text(e, short))  # balanced without readable= too


def test_catalog_statements_read_well():
    count = 0
    for section in load():
        for claim in section.claims:
            line = readable(claim.statement)
            assert _well_formed(line), (claim.id, line)
            count += 1
    assert count >= 30
