"""Derived automatically

The closed forms of the earlier sections were typed in and then checked. Here they are not
typed in: for each quantity only the expression is given — a directional derivative, a
gradient, a second derivative, a derivative with respect to ε or a shared gain — and
lnsym.derive finds a closed form, written with the named intermediates u, s, P, ⟨·,·⟩ and
mean. It keeps each core as one quantity u with s = √(q + ε) and differentiates it by its
own rule, Du[v] = (Pv − u⟨u, v⟩/d)/s; then, of a few equivalent rewritings (directions
written as Ph + mean(h)1, c·m − c·mean(m)1 collected as c·Pm, the common factor pulled out),
it keeps the smallest. Each step below is checked like any other derivation step: the
closed form is proved equal to the expression asked for, for every d.
"""

from lnsym import (
    center,
    d,
    diff,
    dot,
    eps,
    grad,
    hadamard,
    jvp,
    layer_norm,
    mean,
    ones,
    scalar,
    sqrt,
    var,
    vector,
    vjp,
)
from lnsym.checking.proof import Derivation
from lnsym.derive import derived_steps
from lnsym.derive.readable import size
from lnsym.ir.layers import core

z, h, k, g = vector("z"), vector("h"), vector("k"), vector("g")
gamma, beta = vector("gamma"), vector("beta")
a = scalar("a")
u = core(z)
s = sqrt(var(z) + eps)
y = layer_norm(z, gamma, beta)
g_hat = hadamard(gamma, g)


def derived(item_id: str, title: str, asked, description: str, known) -> Derivation:
    """A derivation whose steps come from lnsym.derive, not from a person; ``known`` is the
    closed form as a person writes it, whose size the description quotes next to the
    derived one (sizes count the nodes of the expression tree)."""
    steps = derived_steps(asked)
    sizes = f" Size: {_nodes(size(steps[-1].expr))}; written by hand, {_nodes(size(known))}."
    return Derivation(item_id, title, asked, steps, description=description + sizes)


def _nodes(n: int) -> str:
    return f"{n} node" if n == 1 else f"{n} nodes"


CLAIMS = []

DERIVATIONS = [
    derived(
        "derived.jacobian",
        "The Jacobian of the core along h",
        jvp(u, z, h),
        "Jh = (Ph − u⟨u, h⟩/d)/s: the tangent projection of Ph, scaled by 1/s.",
        (center(h) - u * dot(u, h) / d) / s,
    ),
    derived(
        "derived.input_gradient",
        "The gradient of the loss with respect to the input",
        vjp(y, z, g),
        "∂ℓ/∂z with ĝ = γ ⊙ g: P ĝ is ĝ − mean(ĝ)1, so this is (ĝ − mean(ĝ)1 − u·mean(ĝ ⊙ u))/s.",
        (g_hat - mean(g_hat) * ones - u * mean(hadamard(g_hat, u))) / s,
    ),
    derived(
        "derived.gain_gradient",
        "The gradient with respect to the gain",
        vjp(y, gamma, g),
        "∂ℓ/∂γ = g ⊙ u, coordinate by coordinate.",
        hadamard(g, u),
    ),
    derived(
        "derived.bias_gradient",
        "The gradient with respect to the bias",
        vjp(y, beta, g),
        "∂ℓ/∂β = g.",
        g,
    ),
    derived(
        "derived.second_derivative",
        "The second derivative of the core along h and k",
        jvp(jvp(u, z, h), z, k),
        "D²u[h, k], symmetric in h and k; ⟨Ph, k⟩ = ⟨Ph, Pk⟩.",
        -(
            dot(u, k) * center(h)
            + dot(u, h) * center(k)
            + dot(center(h), center(k)) * u
            - 3 * dot(u, h) * dot(u, k) * u / d
        )
        / (d * s**2),
    ),
    derived(
        "derived.along_input",
        "The Jacobian applied to the input itself",
        jvp(u, z, z),
        "Jz = εu/s²: zero exactly when ε = 0 (scale invariance).",
        eps * u / s**2,
    ),
    derived(
        "derived.variance_gradient",
        "The gradient of the variance",
        grad(var(z), z),
        "∇q = 2Pz/d.",
        2 * center(z) / d,
    ),
    derived(
        "derived.stabilizer",
        "The derivative with respect to ε",
        diff(u, eps),
        "∂u/∂ε = −u/(2s²): a larger ε shrinks the core along itself.",
        -u / (2 * s**2),
    ),
    derived(
        "derived.shared_gain",
        "The derivative with respect to a gain shared by every feature",
        diff(layer_norm(z, a * ones, beta), a),
        "With γ = a·1, ∂y/∂a = u.",
        u,
    ),
]
