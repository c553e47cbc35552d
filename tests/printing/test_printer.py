"""The text and LaTeX printers (lnsym.printing.printer)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import pytest
import sympy
from hypothesis import given
from strategies import expressions

from lnsym import (
    Eq,
    Le,
    center,
    centered,
    core,
    d,
    dot,
    eps,
    hadamard,
    ir,
    jvp,
    layer_norm,
    mean,
    norm,
    ones,
    opnorm,
    scalar,
    var,
    vector,
    vjp,
)
from lnsym.checking.catalog import load
from lnsym.printing.printer import (
    ABBREVIATIONS,
    LATEX_NAMES,
    abbreviations_for,
    latex,
    latex_certificate,
    latex_chain,
    latex_value,
    notation,
    text,
)

z, h, g, a = vector("z"), vector("h"), vector("g"), vector("a")
gamma, beta = vector("gamma"), vector("beta")
c = scalar("c")
u = core(z)
s = (var(z) + eps) ** sympy.Rational(1, 2)
EVERY = ABBREVIATIONS


def test_text_printer_is_one_line_unicode():
    assert text(dot(core(z), h) - 1) == "⟨core(z), h⟩ - 1"
    assert text(hadamard(gamma, z) + beta) == "γ ⊙ z + β"
    assert text(Le(var(z), norm(z) ** 2)) == "var(z) ≤ ‖z‖^2"


def test_latex_tokens_bold_vectors_ones_hadamard_varepsilon():
    assert latex(hadamard(gamma, z) + beta) == (
        r"\boldsymbol{\gamma} \odot \mathbf{z} + \boldsymbol{\beta}"
    )
    assert latex(mean(z + c * ones)) == r"\mu(\mathbf{z} + c \mathbf{1})"
    assert latex(eps / (var(z) + eps)) == r"\frac{\varepsilon}{q(\mathbf{z}) + \varepsilon}"
    assert latex(core(z)) == r"u_{\varepsilon}(\mathbf{z})"
    assert latex(layer_norm(z, gamma, beta)) == (
        r"\operatorname{LN}_{\boldsymbol{\gamma}, \boldsymbol{\beta}}(\mathbf{z})"
    )


def test_vector_names_with_digits_and_primes_bold_only_the_letter():
    assert latex(vector("g1")) == r"\mathbf{g}_{1}"
    assert latex(vector("gamma2")) == r"\boldsymbol{\gamma}_{2}"
    assert latex(vector("h'")) == r"\mathbf{h}'"


def test_zero_vector_and_square_norms():
    assert latex(Eq(center(ones), 0)) == r"P \mathbf{1} = \mathbf{0}"
    assert latex(dot(h, h)) == r"\lVert \mathbf{h} \rVert^{2}"
    # ⟨1, 1⟩ stays an inner product: derivations cite it as ⟨1, 1⟩ = d.
    assert latex(dot(ones, ones)) == r"\langle \mathbf{1}, \mathbf{1} \rangle"
    assert latex(dot(h, h) ** 2) == r"(\lVert \mathbf{h} \rVert^{2})^{2}"


def test_products_become_single_fractions_with_numbers_first():
    assert latex(dot(ones, z) / d) == r"\frac{\langle \mathbf{1}, \mathbf{z} \rangle}{d}"
    assert latex(norm(h) ** 2 / eps) == r"\frac{\lVert \mathbf{h} \rVert^{2}}{\varepsilon}"
    assert latex(mean(h) ** 2 * d / (var(z) + eps)) == (
        r"\frac{d \mu(\mathbf{h})^{2}}{q(\mathbf{z}) + \varepsilon}"
    )
    assert latex(-dot(a, z) / (2 * d)) == r"-\frac{\langle \mathbf{a}, \mathbf{z} \rangle}{2 d}"
    assert latex(dot(y_ := layer_norm(z, gamma, beta), y_) / 2) == (
        r"\frac{\lVert \operatorname{LN}_{\boldsymbol{\gamma}, \boldsymbol{\beta}}(\mathbf{z})"
        r" \rVert^{2}}{2}"
    )


def test_no_fraction_is_stacked_inside_another():
    q = var(z)
    # a sum over b that holds a fraction: (1/b)(sum)
    nested_numerator = (norm(h) ** 2 - dot(u, h) ** 2 / (d * (q + eps))) / (q + eps)
    assert latex(nested_numerator, EVERY) == (
        r"\frac{1}{q + \varepsilon} \left(\lVert \mathbf{h} \rVert^{2} - "
        r"\frac{\langle \mathbf{u}, \mathbf{h} \rangle^{2}}{d (q + \varepsilon)}\right)"
    )
    # a fraction inside a denominator is written inline
    nested_denominator = eps / (1 - q / (q + eps))
    assert latex(nested_denominator, EVERY) == r"\frac{\varepsilon}{1 - q/(q + \varepsilon)}"
    for e in (nested_numerator, nested_denominator):
        assert not re.search(r"\\frac\{[^{}]*\\frac", latex(e, EVERY))


def test_scaled_vectors_read_naturally():
    assert latex(center(z) / s, EVERY) == r"\frac{P \mathbf{z}}{s}"
    closed = (center(h) - u * dot(u, h) / d) / s
    assert latex(closed, EVERY) == (
        r"\frac{1}{s} \left( P \mathbf{h} - \frac{\langle \mathbf{u}, \mathbf{h} \rangle}{d}"
        r" \mathbf{u} \right)"
    )
    assert latex((var(z) + c) * h) == r"(q(\mathbf{z}) + c) \mathbf{h}"
    assert latex(-h) == r"-\mathbf{h}"


def test_delimiters_grow_only_around_fractions():
    assert latex(mean(z / d)) == r"\mu\left( \frac{\mathbf{z}}{d} \right)"
    assert latex(mean(2 * z)) == r"\mu(2 \mathbf{z})"


def test_abbreviations_need_consistency():
    shift = Eq(core(z + c * ones), core(z))
    assert "u" not in abbreviations_for(shift)
    assert latex(shift, abbreviations_for(shift)) == (
        r"u_{\varepsilon}(\mathbf{z} + c \mathbf{1}) = u_{\varepsilon}(\mathbf{z})"
    )
    variance = Eq(var(u), var(z) / (var(z) + eps))
    assert abbreviations_for(variance) == EVERY - {"q"}
    assert latex(variance, abbreviations_for(variance)) == (
        r"q(\mathbf{u}) = \frac{q(\mathbf{z})}{q(\mathbf{z}) + \varepsilon}"
    )
    # the layer with other parameters is not y
    bias = Eq(jvp(layer_norm(z, gamma, beta), z, h), jvp(layer_norm(z, gamma, 0 * ones), z, h))
    assert "y" not in abbreviations_for(bias)
    # an assumption counts too
    assert "q" not in abbreviations_for(Eq(var(z), var(z)), centered(h), Eq(var(h), 0))


def test_jacobian_and_root_abbreviations():
    assert latex(jvp(u, z, h), EVERY) == r"J \mathbf{h}"
    assert latex(jvp(u, z, gamma * g), EVERY) == r"J (\boldsymbol{\gamma} \odot \mathbf{g})"
    assert latex(vjp(u, z, a), EVERY) == r"J^{\mathsf{T}} \mathbf{a}"
    assert latex(opnorm(u, z), EVERY) == r"\lVert J \rVert_{2}"
    assert latex(s**3, EVERY) == "s^{3}"
    assert latex((var(z) + eps) ** sympy.Rational(-3, 2), EVERY) == r"\frac{1}{s^{3}}"
    assert latex(1 / s, EVERY) == r"\frac{1}{s}"
    # without abbreviations the same nodes are spelled out
    assert latex(jvp(u, z, h)) == (r"D_{\mathbf{z}}[u_{\varepsilon}(\mathbf{z})](\mathbf{h})")
    assert latex(1 / s) == r"\frac{1}{\sqrt{q(\mathbf{z}) + \varepsilon}}"
    # J is only the Jacobian of u at z: another core is not abbreviated
    assert latex(jvp(core(h), h, z), EVERY).startswith(r"D_{\mathbf{h}}")


def test_substitution_under_a_power_is_parenthesized():
    attained = norm(jvp(u, z, h)).subs(z, c * ones) ** 2
    assert latex(attained, EVERY) == (
        r"\left( \left. \lVert J \mathbf{h} \rVert \right\vert_{\mathbf{z} = c \mathbf{1}}"
        r" \right)^{2}"
    )


def test_chain_and_certificate():
    chain = latex_chain(mean(z + c * ones), [("=", mean(z) + c), ("≤", mean(z) + c + 1)])
    assert chain.splitlines() == [
        r"\begin{aligned}",
        r"\mu(\mathbf{z} + c \mathbf{1}) &\overset{(1)}{=} \mu(\mathbf{z}) + c \\[0.5ex]",
        r"&\overset{(2)}{\le} \mu(\mathbf{z}) + c + 1",
        r"\end{aligned}",
    ]
    with pytest.raises(ValueError, match="relation"):
        latex_chain(z, [("<", z)])
    assert latex_certificate([var(z), norm(h) ** 2], EVERY) == [
        "t_{1} = q",
        r"t_{2} = \lVert \mathbf{h} \rVert^{2}",
    ]


def test_latex_value_is_exact_only():
    assert latex_value([1, Fraction(-2, 3)]) == r"\left( 1, - \frac{2}{3} \right)"
    assert latex_value(sympy.sqrt(2)) == r"\sqrt{2}"
    assert latex_value((3, 4)) == "(3, 4)"
    for inexact in (0.5, True, "1/2", None):
        with pytest.raises(TypeError):
            latex_value(inexact)


def test_notation_defines_every_abbreviation():
    formulas = " ".join(f for f, _ in notation())
    for short in (
        "q = q(",
        "s = \\sqrt{q + \\varepsilon}",
        r"\mathbf{u} = u_{\varepsilon}(",
        r"\mathbf{y} = \operatorname{LN}",
        r"J \mathbf{h} = D_",
        r"J^{\mathsf{T}}",
    ):
        assert short in formulas


def _balanced(tex: str) -> bool:
    depth = 0
    for ch in re.sub(r"\\[{}]", "", tex):
        depth += {"{": 1, "}": -1}.get(ch, 0)
        if depth < 0:
            return False
    return depth == 0 and tex.count(r"\left") == tex.count(r"\right")


@given(expressions)
def test_any_expression_prints_balanced_latex_without_bars(e):
    for short in (frozenset(), abbreviations_for(e)):
        tex = latex(e, short)
        assert _balanced(tex), tex
        assert "|" not in tex and not re.search(r"(?<!\\var)epsilon", tex)


def test_catalog_formulas_are_balanced_and_bar_free():
    count = 0
    for section in load():
        for claim in section.claims:
            tex = latex(claim.statement, abbreviations_for(claim.statement))
            assert _balanced(tex) and "|" not in tex, (claim.id, tex)
            count += 1
    assert count >= 30


# ---------------------------------------------------------------------------------------
# Defined nodes the printers have never heard of


@dataclass(frozen=True, slots=True, repr=False)
class RMSNorm(ir.Defined, ir.VectorNode):
    """A toy normalization: rms(a) = a / √(μ(a ⊙ a) + ε), with no printer method."""

    arg: ir.Expr
    eps: ir.Expr
    symbol: ClassVar[str] = "rms"

    def definition(self) -> ir.Expr:
        mean_square = ir.Mean(ir.Hadamard(self.arg, self.arg))
        root = ir.Power(ir.ScalarSum((mean_square, self.eps)), sympy.Rational(-1, 2))
        return ir.Scaled(root, self.arg)


@dataclass(frozen=True, slots=True, repr=False)
class Trace(ir.Defined, ir.ScalarNode):
    """A toy statistic whose class name SymPy's LaTeX printer has a method for."""

    arg: ir.Expr
    symbol: ClassVar[str] = "sum_sq"

    def definition(self) -> ir.Expr:
        return ir.Dot(self.arg, self.arg)


def rms(a, epsilon=eps):
    return RMSNorm(ir.as_vector(a), ir.as_scalar(epsilon))


def test_an_unknown_defined_node_prints_as_a_function_call():
    assert text(rms(z)) == "rms(z, ε)"
    assert repr(rms(z + ones)) == "rms(z + 1, ε)"
    assert latex(rms(z)) == r"\operatorname{rms}(\mathbf{z}, \varepsilon)"
    assert rms(z)._repr_latex_() == r"$\operatorname{rms}(\mathbf{z}, \varepsilon)$"
    # inside other nodes, and with delimiters that grow around fractions as elsewhere
    assert text(dot(rms(z), h) - 1) == "⟨rms(z, ε), h⟩ - 1"
    assert latex(dot(rms(z), h)) == (
        r"\langle \operatorname{rms}(\mathbf{z}, \varepsilon), \mathbf{h} \rangle"
    )
    assert latex(rms(z / d, 0)) == r"\operatorname{rms}\left( \frac{\mathbf{z}}{d}, 0 \right)"
    # abbreviations still apply to the children
    assert latex(rms(u), EVERY) == r"\operatorname{rms}(\mathbf{u}, \varepsilon)"
    # and the definition prints with the existing notation
    assert text(rms(z).definition()) == "(mean(z ⊙ z) + ε)^(-1/2)·z"


def test_a_defined_node_never_reaches_a_sympy_method_of_the_same_class_name():
    assert text(Trace(z)) == "sum_sq(z)"
    assert latex(Trace(z) / d) == r"\frac{\operatorname{sum\_sq}(\mathbf{z})}{d}"


def test_a_notation_entry_names_a_new_normalization(monkeypatch):
    monkeypatch.setitem(LATEX_NAMES, "rms", r"\operatorname{RMS}")
    assert latex(rms(z)) == r"\operatorname{RMS}(\mathbf{z}, \varepsilon)"
    assert latex(Eq(rms(2 * z), rms(z))) == (
        r"\operatorname{RMS}(2 \mathbf{z}, \varepsilon) = "
        r"\operatorname{RMS}(\mathbf{z}, \varepsilon)"
    )
    assert text(rms(z)) == "rms(z, ε)"  # text keeps the node's symbol


def test_the_notation_entries_are_what_names_mean_and_variance(monkeypatch):
    assert (LATEX_NAMES["mean"], LATEX_NAMES["var"]) == (r"\mu", "q")
    monkeypatch.setitem(LATEX_NAMES, "var", r"\sigma^{2}")
    assert latex(var(z) + eps) == r"\sigma^{2}(\mathbf{z}) + \varepsilon"


@given(expressions)
def test_unknown_defined_nodes_print_balanced_latex(e):
    wrapped = rms(e) if e.kind == "vector" else rms(e * z)
    tex = latex(wrapped, abbreviations_for(wrapped))
    assert tex.startswith(r"\operatorname{rms}") and _balanced(tex), tex
    assert "mathtt" not in tex and "|" not in tex
