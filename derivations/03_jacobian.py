"""The Jacobian of the core

Differentiating u_ε(z) = Pz/s with s = √(q(z) + ε) gives the Jacobian
J = (P − uuᵀ/d)/s: the centering P, minus a rank-one correction along the core itself,
scaled by 1/s. J is symmetric and annihilates 1. The learned bias adds nothing to the
input Jacobian, and the gain multiplies it on the left: the full output has Jacobian
diag(γ) J. Here every Jacobian is computed by the engine from the definitions — the
closed forms are checked against it, not assumed.
"""

import sympy

from lnsym import Eq, center, core, d, dot, eps, jvp, layer_norm, ones, var, vector, vjp
from lnsym.claims import Claim
from lnsym.proof import Derivation, Step

z, h, a, b = vector("z"), vector("h"), vector("a"), vector("b")
gamma, beta = vector("gamma"), vector("beta")
u = core(z)
s = (var(z) + eps) ** sympy.Rational(1, 2)


def closed_form(direction):
    """J·direction = (P·direction − u⟨u, direction⟩/d)/s."""
    return (center(direction) - u * dot(u, direction) / d) / s


CLAIMS = [
    Claim(
        "jacobian.closed_form",
        Eq(jvp(u, z, h), closed_form(h)),
        title="J h = (Ph − u⟨u, h⟩/d)/s, i.e. J = (P − uuᵀ/d)/s",
        source="article, Jacobian paragraph (the display after 'satisfies' is missing)",
    ),
    Claim(
        "jacobian.kills_ones",
        Eq(jvp(u, z, ones), 0),
        title="The common-offset direction has no first-order effect: J1 = 0",
        source="article, two-coordinate Jacobian example",
    ),
    Claim(
        "jacobian.symmetric",
        Eq(dot(jvp(u, z, a), b), dot(a, jvp(u, z, b))),
        title="J is symmetric: ⟨Ja, b⟩ = ⟨a, Jb⟩",
        source="follows from the closed form of the article's Jacobian paragraph",
    ),
    Claim(
        "jacobian.transpose_product",
        Eq(vjp(u, z, a), jvp(u, z, a)),
        title="Backpropagation through the core applies J itself: Jᵀa = Ja",
        source="follows from the closed form of the article's Jacobian paragraph",
    ),
    Claim(
        "jacobian.along_input",
        Eq(jvp(u, z, z), eps / (var(z) + eps) * u),
        title="Along the input itself, J z = ε/(q + ε)·u",
        source="follows from the closed form; the reason scaling is not a symmetry when ε > 0",
    ),
    Claim(
        "layer.bias_no_input_effect",
        Eq(jvp(layer_norm(z, gamma, beta), z, h), jvp(layer_norm(z, gamma, 0 * ones), z, h)),
        title="The bias β contributes nothing to the input Jacobian",
        source="article, bias paragraph (β contributes zero to the Jacobian)",
    ),
    Claim(
        "layer.output_jacobian",
        Eq(jvp(layer_norm(z, gamma, beta), z, h), gamma * closed_form(h)),
        title="The full output has Jacobian diag(γ) J",
        source="article, gain paragraph and full-output Jacobian paragraph",
    ),
]

DERIVATIONS = [
    Derivation(
        "derivation.jacobian",
        "The Jacobian of the core by the chain rule",
        jvp(u, z, h),
        [
            Step(
                center(h) / s + jvp((var(z) + eps) ** sympy.Rational(-1, 2), z, h) * center(z),
                "product rule on u = s⁻¹·Pz, and P is linear",
            ),
            Step(
                center(h) / s - jvp(var(z), z, h) / (2 * s**3) * center(z),
                "chain rule: D(s⁻¹) = −D(q)/(2s³)",
            ),
            Step(
                center(h) / s - dot(center(z), h) / (d * s**3) * center(z),
                "D q(z)(h) = 2⟨Pz, Ph⟩/d = 2⟨Pz, h⟩/d",
            ),
            Step(closed_form(h), "Pz = s·u"),
        ],
        source="article, Jacobian paragraph",
    ),
]
