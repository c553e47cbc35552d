"""RMS normalization and weight normalization

Two relatives of layer normalization, checked with the same engines. RMS normalization skips
the centering: it divides the input itself by its stabilized root mean square ρ = √(m + ε),
m = mean(a ⊙ a), and may then apply a gain, γ ⊙ a/ρ. Without centering, a common shift of the
input changes the output; with ε > 0, so does a re-scaling, which leaves the output unchanged
only in the idealized layer with ε = 0. The output's squared norm is d·m/(m + ε), just under d,
and its Jacobian is (h − r⟨r, h⟩/d)/ρ for r = rms(a). Unlike the core's it has no projection
P, so with ε > 0 no direction is lost: along the input itself the Jacobian is damped by the
factor ε/(m + ε), and only the idealized layer removes that direction entirely.
Weight normalization writes a weight vector as w = g·v/‖v‖: its length is |g|, its direction is
that of v, and positive re-scalings of v do nothing. Accordingly the gradient with respect to v
is the upstream gradient projected orthogonally to v and scaled by g/‖v‖, while the gradient
with respect to g is the unit vector v/‖v‖. The derivations at the end are found by
lnsym.derive from the derivative asked for and then written with r, ρ and ‖v‖ by hand.
"""

from lnsym import (
    Eq,
    d,
    diff,
    dot,
    eps,
    grad,
    hadamard,
    jvp,
    mean,
    norm,
    ones,
    rms_norm,
    scalar,
    sqrt,
    vector,
    vjp,
    weight_norm,
)
from lnsym.checking.claims import Claim
from lnsym.checking.proof import Derivation, Step
from lnsym.derive import derived_steps

a, h, g, gamma = vector("a"), vector("h"), vector("g"), vector("gamma")
v, delta = vector("v"), vector("delta")
c = scalar("c", positive=True)
k = scalar("k")
gain = scalar("g")
positive_gain = scalar("g", positive=True)

m = mean(hadamard(a, a))
rho = sqrt(m + eps)
r = rms_norm(a)
loss = dot(g, rms_norm(a, gamma))  # ℓ = ⟨g, γ ⊙ rms(a)⟩: g is the upstream gradient
g_hat = hadamard(gamma, g)
w = weight_norm(v, gain)
length = norm(v)

CLAIMS = [
    # -- RMS normalization ----------------------------------------------------------------
    Claim(
        "rms.definition",
        Eq(r, a / rho),
        title="RMS normalization divides the input by its stabilized root mean square",
    ),
    Claim(
        "rms.gain_definition",
        Eq(rms_norm(a, gamma), hadamard(gamma, a) / rho),
        title="With a gain γ, the layer is γ ⊙ a/√(mean(a ⊙ a) + ε)",
    ),
    Claim(
        "rms.squared_norm",
        Eq(dot(r, r), d * m / (m + eps)),
        title="The output's squared norm is d·m/(m + ε) with m = mean(a ⊙ a)",
    ),
    Claim(
        "rms.squared_norm_idealized",
        Eq(dot(rms_norm(a, eps=0), rms_norm(a, eps=0)), d),
        title="Without the stabilizer the output has squared norm exactly d",
    ),
    Claim(
        "rms.scale_invariant_idealized",
        Eq(rms_norm(c * a, eps=0), rms_norm(a, eps=0)),
        title="Without the stabilizer (ε = 0), re-scaling the input by c > 0 changes nothing",
    ),
    Claim(
        "rms.scale_invariant",
        Eq(rms_norm(c * a), r),
        expect="refuted",
        title="False with ε > 0: the layer is invariant under re-scaling by c > 0",
    ),
    Claim(
        "rms.shift_invariant",
        Eq(rms_norm(a + k * ones), r),
        expect="refuted",
        title="False: like the core, RMS normalization ignores a common shift of the input",
    ),
    Claim(
        "rms.along_input",
        Eq(jvp(r, a, a), eps / (m + eps) * r),
        title="Along the input itself the Jacobian gives εr/ρ²: zero exactly when ε = 0",
    ),
    Claim(
        "rms.gain_gradient",
        Eq(grad(loss, gamma), hadamard(g, r)),
        title="∂ℓ/∂γ = g ⊙ rms(a)",
    ),
    # -- weight normalization -------------------------------------------------------------
    Claim(
        "weight_norm.definition",
        Eq(w, gain * v / length),
        title="Weight normalization is w = g·v/‖v‖",
    ),
    Claim(
        "weight_norm.squared_norm",
        Eq(dot(w, w), gain**2),
        title="‖w‖² = g²: the length of w is |g|, whatever v is",
    ),
    Claim(
        "weight_norm.norm",
        Eq(norm(weight_norm(v, positive_gain)), positive_gain),
        title="With a positive gain g, ‖w‖ = g",
    ),
    Claim(
        "weight_norm.norm_signed",
        Eq(norm(w), gain),
        expect="refuted",
        title="False for a gain of either sign: ‖w‖ = g (it is |g|)",
    ),
    Claim(
        "weight_norm.scale_invariant",
        Eq(weight_norm(c * v, gain), w),
        title="Re-scaling v by c > 0 leaves w unchanged",
    ),
    Claim(
        "weight_norm.direction_gradient_orthogonal",
        Eq(dot(vjp(w, v, delta), v), 0),
        title="The gradient with respect to v is orthogonal to v",
    ),
]


def derived(item_id: str, title: str, asked, rewritten: Step, description: str) -> Derivation:
    """lnsym.derive's steps for ``asked``, then the closed form in the section's notation."""
    return Derivation(
        item_id, title, asked, [*derived_steps(asked), rewritten], description=description
    )


DERIVATIONS = [
    derived(
        "rms.derived.jacobian",
        "The Jacobian of RMS normalization along h",
        jvp(r, a, h),
        Step((h - r * dot(r, h) / d) / rho, "a/ρ = r, so ⟨a, h⟩a/(d(m + ε)) = ⟨r, h⟩r/d"),
        "The derived form, read with r = a/ρ: Jh = (h − r⟨r, h⟩/d)/ρ.",
    ),
    derived(
        "rms.derived.input_gradient",
        "The gradient of ℓ = ⟨g, γ ⊙ rms(a)⟩ with respect to the input",
        vjp(rms_norm(a, gamma), a, g),
        Step((g_hat - r * dot(r, g_hat) / d) / rho, "a/ρ = r, with ĝ = γ ⊙ g"),
        "The Jacobian is symmetric, so the gradient is J applied to ĝ = γ ⊙ g.",
    ),
    derived(
        "weight_norm.derived.gain_gradient",
        "The derivative of weight normalization with respect to its gain",
        diff(w, gain),
        Step(v / length, "√(‖v‖²) = ‖v‖"),
        "w is linear in g, with slope v/‖v‖.",
    ),
    derived(
        "weight_norm.derived.direction_gradient",
        "The gradient of weight normalization with respect to v",
        vjp(w, v, delta),
        Step(gain / length * (delta - v * dot(v, delta) / length**2), "√(‖v‖²) = ‖v‖"),
        "With δ = ∂ℓ/∂w: the component of δ along v is removed, the rest scaled by g/‖v‖.",
    ),
]
