"""The normalized core and the layer output

The core u = Pz/√(q(z) + ε) divides the centered input by its stabilized standard
deviation; the layer then applies a coordinatewise gain and bias, y = γ ⊙ u + β. The core
always has mean zero and variance q/(q + ε) < 1, so with ε > 0 it never reaches unit variance
exactly. Because only Pz and q(z) enter, a common shift of the input — for instance a change
c·1 of the bias of an affine map in front of the layer — has no effect at all.
"""

from lnsym import (
    Eq,
    Le,
    center,
    core,
    d,
    dimension_at_least,
    dot,
    eps,
    layer_norm,
    mean,
    nonconstant,
    ones,
    scalar,
    var,
    vector,
)
from lnsym.checking.claims import Claim
from lnsym.checking.proof import Derivation, Step

z, w, b = vector("z"), vector("w"), vector("b")
gamma, beta = vector("gamma"), vector("beta")
c, a = scalar("c"), scalar("a")
k = scalar("k", positive=True)
u = core(z)
q = var(z)
r = var(u)
y = layer_norm(z, gamma, beta)

CLAIMS = [
    Claim(
        "core.shift_invariant",
        Eq(core(z + c * ones), core(z)),
        title="The core is invariant under a common shift of the input",
        source="article, common-shift example and shift-invariance paragraph",
    ),
    Claim(
        "layer.shift_invariant",
        Eq(layer_norm(z + c * ones, gamma, beta), layer_norm(z, gamma, beta)),
        title="With fixed gain and bias, the whole layer ignores a common shift",
        source="article, shift-invariance paragraph (its display is missing)",
    ),
    Claim(
        "core.mean_zero",
        Eq(mean(u), 0),
        title="The core has mean zero",
        source="article, core-variance paragraph",
    ),
    Claim(
        "core.variance",
        Eq(var(u), var(z) / (var(z) + eps)),
        title="The core has variance q/(q + ε)",
        source="article, core-variance paragraph (the display is missing)",
    ),
    Claim(
        "core.variance_below_one",
        Le(r, 1, certificate=[eps / (q + eps)]),
        title="The core's variance never exceeds 1: var(u) ≤ 1, with gap 1 − var(u) = ε/(q + ε)",
        source="article, core-variance inverse paragraph (unit variance is never attained)",
    ),
    Claim(
        "core.variance_inverse",
        Eq(q, eps * r / (1 - r)),
        title="The input variance is recovered from r = var(u) as q = εr/(1 − r)",
        source="article, core-variance inverse paragraph (the display after 'gives' is missing)",
    ),
    Claim(
        "core.unit_variance",
        Eq(r, 1),
        expect="refuted",
        title="False: the core has unit variance",
        source="article, core-variance inverse paragraph",
    ),
    Claim(
        "core.scale_invariant",
        Eq(core(k * z), u),
        expect="refuted",
        title="False with ε > 0: the core is invariant under scaling by k > 0",
        source="article, scaling example (2z gives a different output)",
    ),
    Claim(
        "core.scale_invariant_idealized",
        Eq(core(k * z, eps=0), core(z, eps=0)),
        assumptions=[nonconstant(z), dimension_at_least(2)],
        title="Without the stabilizer (ε = 0) the core is invariant under scaling by k > 0",
        source="article, scaling example (idealized scale invariance)",
    ),
    Claim(
        "layer.constant_input",
        Eq(layer_norm(z, gamma, beta).subs(z, c * ones), beta),
        title="A constant input has core 0, so the layer outputs its bias",
        source="article, constant-input bias example",
    ),
    Claim(
        "layer.output_zero_mean",
        Eq(mean(y), 0),
        expect="refuted",
        title="False: the full layer output has mean zero",
        source="article, constant-input bias example (output mean 2/3)",
    ),
    Claim(
        "layer.output_unit_variance",
        Eq(var(y), 1),
        expect="refuted",
        title="False: the full layer output has unit variance",
        source="article, closing paragraph (a unit-variance test would reject valid outputs)",
    ),
    Claim(
        "layer.uniform_gain_variance",
        Eq(var(layer_norm(z, a * ones, c * ones)), a**2 * q / (q + eps)),
        title="A uniform gain a and bias scale the core variance by a²",
        source="article, closing paragraph (γ = (2, 2) gives 4 · 0.9 = 3.6)",
    ),
    Claim(
        "affine.bias_redundancy",
        Eq(layer_norm(w + b + c * ones, gamma, beta), layer_norm(w + b, gamma, beta)),
        title="Adding c·1 to the bias b of an affine map z = Wx + b before the layer does nothing",
        source="article, affine-redundancy paragraph (w stands for Wx)",
    ),
]

DERIVATIONS = [
    Derivation(
        "derivation.core_variance",
        "The variance of the core",
        var(u),
        [
            Step(dot(center(u), center(u)) / d, "q(v) = ‖Pv‖²/d"),
            Step(dot(u, u) / d, "u = Pz/s is already centered, and P² = P"),
            Step(dot(center(z), center(z)) / (d * (var(z) + eps)), "u = Pz/s with s² = q(z) + ε"),
            Step(var(z) / (var(z) + eps), "‖Pz‖²/d = q(z)"),
        ],
        source="article, core-variance paragraph",
    ),
    Derivation(
        "derivation.variance_inverse",
        "Recovering the input variance from the core variance",
        eps * r / (1 - r),
        [
            Step(eps * (q / (q + eps)) / (1 - q / (q + eps)), "var(u) = q/(q + ε)"),
            Step(eps * (q / (q + eps)) / (eps / (q + eps)), "1 − q/(q + ε) = ε/(q + ε)"),
            Step(q, "cancel ε/(q + ε)"),
        ],
        source="article, core-variance inverse paragraph",
    ),
]
