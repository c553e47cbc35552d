"""Backpropagation

For a scalar loss ℓ with upstream gradient g = ∂ℓ/∂y, the chain rule gives the parameter
gradients ∂ℓ/∂β = g and ∂ℓ/∂γ = g ⊙ u coordinate by coordinate, and, with ĝ = γ ⊙ g, the
input gradient ∂ℓ/∂z = Jᵀĝ = (ĝ − mean(ĝ)1 − u·mean(ĝ ⊙ u))/s. A loss that is first order in
y is written ⟨g, y⟩; the gradients below are computed from it, not typed in. The input
gradient always sums to zero, as every vector in the range of J does.
"""

import sympy

from lnsym import Eq, d, dot, eps, grad, jvp, layer_norm, mean, ones, var, vector, vjp
from lnsym.checking.claims import Claim
from lnsym.checking.proof import Derivation, Step
from lnsym.ir.layers import core

z, g = vector("z"), vector("g")
z1, z2, g1, g2 = vector("z1"), vector("z2"), vector("g1"), vector("g2")
gamma, beta = vector("gamma"), vector("beta")
u = core(z)
y = layer_norm(z, gamma, beta)
s = (var(z) + eps) ** sympy.Rational(1, 2)
g_hat = gamma * g


def input_gradient():
    """(ĝ − mean(ĝ)1 − u·mean(ĝ ⊙ u))/s."""
    return (g_hat - mean(g_hat) * ones - u * mean(g_hat * u)) / s


CLAIMS = [
    Claim(
        "gradient.bias",
        Eq(vjp(y, beta, g), g),
        title="∂ℓ/∂β = g",
        source="article, bias-gradient paragraph; backpropagation notes, step 2",
    ),
    Claim(
        "gradient.gain",
        Eq(vjp(y, gamma, g), g * u),
        title="∂ℓ/∂γ = g ⊙ u",
        source="article, gain-gradient paragraph; backpropagation notes, step 1",
    ),
    Claim(
        "gradient.input",
        Eq(vjp(y, z, g), input_gradient()),
        title="∂ℓ/∂z = (ĝ − mean(ĝ)1 − u·mean(ĝ ⊙ u))/s with ĝ = γ ⊙ g",
        source="backpropagation notes, steps 3 and 4 (there σ = s and x̂ = u)",
    ),
    Claim(
        "gradient.input_sums_to_zero",
        Eq(dot(ones, vjp(y, z, g)), 0),
        title="The input gradient sums to zero over the coordinates",
        source="follows from J1 = 0 and the symmetry of J",
    ),
    Claim(
        "gradient.bias_summed_over_features",
        Eq(vjp(y, beta, g), dot(ones, g) * ones),
        expect="refuted",
        title="False: every coordinate of ∂ℓ/∂β is the sum Σᵢ gᵢ over the features",
        source="backpropagation notes, step 2, read per coordinate",
    ),
    Claim(
        "gradient.gain_summed_over_features",
        Eq(vjp(y, gamma, g), dot(g, u) * ones),
        expect="refuted",
        title="False: every coordinate of ∂ℓ/∂γ is the sum Σᵢ gᵢuᵢ over the features",
        source="backpropagation notes, step 1, read per coordinate",
    ),
    Claim(
        "gradient.scalar_bias",
        Eq(dot(g, jvp(y, beta, ones)), dot(ones, g)),
        title="For one bias shared by all features (β = b·1), ∂ℓ/∂b = Σᵢ gᵢ",
        source="backpropagation notes, step 2, read with a scalar bias",
    ),
    Claim(
        "gradient.scalar_gain",
        Eq(dot(g, jvp(y, gamma, ones)), dot(g, u)),
        title="For one gain shared by all features (γ = a·1), ∂ℓ/∂a = Σᵢ gᵢuᵢ",
        source="backpropagation notes, step 1, read with a scalar gain",
    ),
    Claim(
        "gradient.bias_shared_over_positions",
        Eq(
            grad(dot(g1, layer_norm(z1, gamma, beta)) + dot(g2, layer_norm(z2, gamma, beta)), beta),
            g1 + g2,
        ),
        title="A bias shared by two positions collects the sum of their upstream gradients",
        source="article, bias-gradient paragraph (contributions of reused parameters add)",
    ),
    Claim(
        "gradient.gain_shared_over_positions",
        Eq(
            grad(
                dot(g1, layer_norm(z1, gamma, beta)) + dot(g2, layer_norm(z2, gamma, beta)), gamma
            ),
            g1 * core(z1) + g2 * core(z2),
        ),
        title="A gain shared by two positions collects Σₜ gₜ ⊙ u(zₜ)",
        source="backpropagation notes, step 1, read as a sum over positions",
    ),
    Claim(
        "gradient.half_squared_norm",
        Eq(grad(dot(y, y) / 2, beta), y),
        title="For ℓ = ½‖y‖² the upstream gradient is y itself, so ∂ℓ/∂β = y",
        source="article, bias-gradient example (ℓ = ½‖y‖²)",
    ),
]

DERIVATIONS = [
    Derivation(
        "derivation.input_gradient",
        "The input gradient from the Jacobian",
        vjp(y, z, g),
        [
            Step(vjp(u, z, g_hat), "y depends on z only through γ ⊙ u: pull γ onto g"),
            Step(jvp(u, z, g_hat), "J is symmetric"),
            Step((g_hat - mean(g_hat) * ones - u * dot(u, g_hat) / d) / s, "closed form of J"),
            Step(input_gradient(), "⟨u, ĝ⟩/d = mean(ĝ ⊙ u)"),
        ],
        source="backpropagation notes, step 4",
    ),
]
