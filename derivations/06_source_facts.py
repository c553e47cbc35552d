"""Further facts from the source documents

The source review (reports/source-review.md) checks every mathematical statement of the two
source documents against a claim. Most of them are claims of the earlier sections; the ones
collected here are stated by the sources, sometimes only in passing, without a claim of their
own there: the layer output written out, the deviations from the mean under a common shift,
what a negative gain does, the weight re-centering of the original paper, that an unequal
shift and a finite step are not covered by the shift invariance and the linearization, the
bound of the full layer with a uniform gain, and the derivative of the loss in the normalized
input that the backpropagation notes use in their third step.
"""

from lnsym import (
    Eq,
    Le,
    center,
    core,
    d,
    dot,
    eps,
    jvp,
    layer_norm,
    mean,
    norm,
    ones,
    scalar,
    var,
    vector,
    vjp,
)
from lnsym.checking.claims import Claim

z, h, v, w, b = vector("z"), vector("h"), vector("v"), vector("w"), vector("b")
x, r, g, x_hat = vector("x"), vector("r"), vector("g"), vector("xhat")
gamma, beta = vector("gamma"), vector("beta")
c, a = scalar("c"), scalar("a")
u = core(z)
q = var(z)
y = layer_norm(z, gamma, beta)

# a²·(‖h‖²/ε − ‖Jh‖²), split like the certificate of sensitivity.bound; a² is a square.
UNIFORM_GAIN_CERTIFICATE = [
    a**2 * norm(h) ** 2 * q / (eps * (q + eps)),
    a**2 * d * mean(h) ** 2 / (q + eps),
    a**2 * dot(u, h) ** 2 * (q + 2 * eps) / (d * (q + eps) ** 2),
]

CLAIMS = [
    Claim(
        "source.layer_definition",
        Eq(y, gamma * u + beta),
        title="The layer output is the gained core plus the bias: y = γ ⊙ u + β",
        source="article, bias paragraph (the display after 'Writing the core as' is missing) "
        "and gain paragraph",
    ),
    Claim(
        "source.centering_shift",
        Eq(center(z + c * ones), center(z)),
        title="A common shift leaves the deviations from the mean unchanged: P(z + c1) = Pz",
        source="article, shift-invariance paragraph (the display after 'we have' is missing) "
        "and common-shift example",
    ),
    Claim(
        "source.gain_sign",
        Eq((y - beta) * u, gamma * u * u),
        title="(y − β) ⊙ u = γ ⊙ u ⊙ u: where γᵢ < 0 and uᵢ ≠ 0, yᵢ − βᵢ and uᵢ have "
        "opposite signs",
        source="article, gain example (a negative gain reverses the sign of its coordinate)",
    ),
    Claim(
        "source.weight_recentering",
        Eq(layer_norm(w + dot(r, x) * ones + b, gamma, beta), layer_norm(w + b, gamma, beta)),
        title="Re-centering the weights, W ↦ W + 1rᵀ, adds ⟨r, x⟩1 before the layer, which "
        "it removes",
        source="article, affine-redundancy paragraph (w stands for Wx)",
    ),
    Claim(
        "source.any_shift_invariant",
        Eq(core(z + v), u),
        expect="refuted",
        title="False: the core ignores every shift z ↦ z + v, not only common ones",
        source="article, centering-matrix example ((1, 2, 4) is not a common shift) and "
        "affine-redundancy paragraph (a shift of the raw input becomes Wa)",
    ),
    Claim(
        "source.first_order_exact",
        Eq(core(z + h), u + jvp(u, z, h)),
        expect="refuted",
        title="False: the linearization is exact, u(z + h) = u(z) + J h",
        source="article, two-coordinate Jacobian example (a local linear response)",
    ),
    Claim(
        "source.uniform_gain_bound",
        Le(
            norm(jvp(layer_norm(z, a * ones, beta), z, h)) ** 2,
            a**2 * norm(h) ** 2 / eps,
            certificate=UNIFORM_GAIN_CERTIFICATE,
        ),
        title="With a uniform gain a·1 the layer's Jacobian is bounded by |a|/√ε",
        source="article, full-output bound max|γᵢ|/√ε (here every γᵢ = a)",
    ),
    Claim(
        "source.normalized_input_gradient",
        Eq(vjp(gamma * x_hat + beta, x_hat, g), gamma * g),
        title="Through y = γ ⊙ x̂ + β the gradient with respect to x̂ is γ ⊙ g",
        source="backpropagation notes, step 3, read coordinatewise",
    ),
]
