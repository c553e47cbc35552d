"""The normalized core and the layer output

The core u_ε(z) = Pz/√(q(z) + ε) divides the centered input by its stabilized standard
deviation; the layer then applies a coordinatewise gain and bias, y = γ ⊙ u_ε(z) + β. The core
always has mean zero and variance q/(q + ε) < 1, so with ε > 0 it never reaches unit variance
exactly. Because only Pz and q(z) enter, a common shift of the input — for instance a change
c·1 of the bias of an affine map in front of the layer — has no effect at all.
"""

from lnsym import Eq, center, core, d, dot, eps, layer_norm, mean, ones, scalar, var, vector
from lnsym.claims import Claim
from lnsym.proof import Derivation, Step

z, w, b = vector("z"), vector("w"), vector("b")
gamma, beta = vector("gamma"), vector("beta")
c = scalar("c")
u = core(z)

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
]
