"""The Jacobian of the core

Differentiating the core u = Pz/s with s = √(q(z) + ε) gives the Jacobian
J = (P − uuᵀ/d)/s: the centering P, minus a rank-one correction along the core itself,
scaled by 1/s. J is symmetric and annihilates 1. The learned bias adds nothing to the
input Jacobian, and the gain multiplies it on the left: the full output has Jacobian
diag(γ) J. Here every Jacobian is computed by the engine from the definitions — the
closed forms are checked against it, not assumed.
"""

import sympy

from lnsym import (
    Eq,
    Le,
    center,
    centered,
    core,
    d,
    dimension,
    dimension_at_least,
    dot,
    eps,
    jvp,
    layer_norm,
    mean,
    nonconstant,
    ones,
    opnorm,
    orthogonal,
    var,
    vector,
    vjp,
)
from lnsym.checking.claims import Claim
from lnsym.checking.lemmas import SPECTRAL_NORM
from lnsym.checking.proof import Derivation, Step, by_lemma

z, h, a, b, v = vector("z"), vector("h"), vector("a"), vector("b"), vector("v")
gamma, beta = vector("gamma"), vector("beta")
u = core(z)
q = var(z)
s = (q + eps) ** sympy.Rational(1, 2)
#: The eigenvalue of J on u: smaller than 1/s as soon as q > 0.
lambda_u = eps / ((q + eps) * s)


def closed_form(direction):
    """J·direction = (P·direction − u⟨u, direction⟩/d)/s."""
    return (center(direction) - u * dot(u, direction) / d) / s


SYMMETRIC = Claim(
    "jacobian.symmetric",
    Eq(dot(jvp(u, z, a), b), dot(a, jvp(u, z, b))),
    title="J is symmetric: ⟨Ja, b⟩ = ⟨a, Jb⟩",
    source="follows from the closed form of the article's Jacobian paragraph",
)
KILLS_ONES = Claim(
    "jacobian.kills_ones",
    Eq(jvp(u, z, ones), 0),
    title="The common-offset direction has no first-order effect: J1 = 0",
    source="article, two-coordinate Jacobian example",
)
EIGEN_CORE = Claim(
    "jacobian.eigen_core",
    Eq(jvp(u, z, u), lambda_u * u),
    title="u is an eigenvector of J with eigenvalue ε/((q + ε)s)",
    source="follows from the closed form; explains the article's sensitivity remark",
)
EIGEN_REST = Claim(
    "jacobian.eigen_orthogonal",
    Eq(jvp(u, z, v), v / s),
    assumptions=[centered(v), orthogonal(v, z)],
    title="Every centered v orthogonal to z is an eigenvector of J with eigenvalue 1/s",
    source="follows from the closed form",
)
EIGEN_ORDER = Claim(
    "jacobian.eigenvalue_order",
    Le(lambda_u, 1 / s, certificate=[q / ((q + eps) * s)]),
    title="The eigenvalue on u never exceeds 1/s",
    source="follows from the eigenvalues",
)

CLAIMS = [
    Claim(
        "jacobian.closed_form",
        Eq(jvp(u, z, h), closed_form(h)),
        title="J h = (Ph − u⟨u, h⟩/d)/s, i.e. J = (P − uuᵀ/d)/s",
        source="article, Jacobian paragraph (the display after 'satisfies' is missing)",
    ),
    KILLS_ONES,
    SYMMETRIC,
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
    EIGEN_CORE,
    EIGEN_REST,
    EIGEN_ORDER,
    Claim(
        "jacobian.norm",
        Eq(opnorm(u, z), 1 / s),
        assumptions=[dimension_at_least(3)],
        title="For d ≥ 3 the operator norm of J is exactly 1/s",
        source="article, sensitivity paragraph (actual amplification below the uniform bound)",
        proof=by_lemma(
            SPECTRAL_NORM,
            SYMMETRIC,
            KILLS_ONES,
            EIGEN_CORE,
            EIGEN_REST,
            EIGEN_ORDER,
            how="1, u and the centered vectors orthogonal to z span ℝᵈ; for d ≥ 3 the last "
            "family is nonzero, so the largest eigenvalue 1/s is attained",
            witnesses=[ones, mean(z) * ones + s * u],  # 1 and z lie in span{1, u}
        ),
    ),
    Claim(
        "jacobian.norm_two_coordinates",
        Eq(opnorm(u, z), lambda_u),
        assumptions=[dimension(2), nonconstant(z)],
        title="For d = 2 and q > 0 the operator norm of J is ε/((q + ε)s), below 1/s",
        source="article, two-coordinate Jacobian example",
        proof=by_lemma(
            SPECTRAL_NORM,
            SYMMETRIC,
            KILLS_ONES,
            EIGEN_CORE,
            how="for d = 2 and z not constant, 1 and u = Pz/s span ℝ², with eigenvalues 0 "
            "and ε/((q + ε)s) > 0",
            nonzero=d * q / (q + eps),  # ‖u‖² > 0 when q > 0
        ),
    ),
    Claim(
        "jacobian.norm_every_dimension",
        Eq(opnorm(u, z), 1 / s),
        assumptions=[dimension_at_least(2)],
        expect="refuted",
        title="False: the operator norm of J is 1/s for every d ≥ 2",
        source="fails at d = 2 whenever q > 0",
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
