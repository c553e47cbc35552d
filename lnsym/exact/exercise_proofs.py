r"""Proof exercises: facts for every d, each step proved by lnsym's engines.

"The core has mean 0 and variance q/(q + ε) < 1" and "backpropagation through the layer"
(∂ℓ/∂β, ∂ℓ/∂γ, ∂ℓ/∂z = Jᵀ(γ ⊙ g) and ⟨1, ∂ℓ/∂z⟩ = 0, and why summing ∂ℓ/∂γ over the
features is wrong). Each answer is a chain of IR expressions proved by the engines
(:meth:`~lnsym.exact.exercise_draft.Draft.derive`) or a statement they refute
(:meth:`~lnsym.exact.exercise_draft.Draft.statement`), and the exercise's own numbers are
checked through the IR (:meth:`~lnsym.exact.exercise_draft.Draft.answer`).
"""

from __future__ import annotations

import sympy

import lnsym.exact.closed_form as cf
import lnsym.exact.nice_data as nice
from lnsym import ir
from lnsym.checking.claims import Claim
from lnsym.errors import CrossCheckError
from lnsym.exact.exercise_draft import BETA, GAMMA, Draft, G, U, Y, Z
from lnsym.exact.exercise_proving import Link
from lnsym.exact.exercise_writing import forward_steps, inline_vector, prose, slash
from lnsym.ir.calculus import jvp, vjp
from lnsym.printing.numbers import latex_number, latex_vector

_n, _v, _vi = latex_number, latex_vector, inline_vector
S = (ir.var(Z) + ir.eps) ** sympy.Rational(1, 2)
Q, D, R = ir.var(Z), ir.d, ir.scalar("r")


def proof_core(draft: Draft) -> None:
    """μ(u) = 0, q(u) = q/(q + ε) ≤ 1 (strictly below), and the inverse q = εr/(1 − r)."""
    z, eps = nice.nice_input(draft.rng, draft.d, draft.novelty)
    draft.given(z=z, eps=eps)
    prove = draft.pick("Prove", "Show", "Give a proof")
    draft.setting = prose(
        "The core is often said to be standardized. Find out exactly what is true, for "
        "every dimension $d$ and every $@eps > 0$."
    )
    draft.part(
        f"{prove} that the core has mean $0$: $\\mu(@u) = 0$.",
        draft.derive(
            "core.mean",
            ir.mean(U),
            [
                Link(ir.mean(ir.center(Z)) / S, r"\mu \text{ is linear and } @u = P@z / s"),
                Link(0, r"\mu(P@z) = \mu(@z) - \mu(@z)"),
            ],
        ),
        hint="The mean is linear, and $P@z = @z - \\mu(@z) @1$.",
    )
    variance = draft.derive(
        "core.variance",
        ir.var(U),
        [
            Link(ir.dot(ir.center(U), ir.center(U)) / D, r"q(@a) = \lVert P@a \rVert^2 / d"),
            Link(ir.dot(U, U) / D, r"@u \text{ is centered, so } P@u = @u"),
            Link(ir.dot(ir.center(Z), ir.center(Z)) / (D * (Q + ir.eps)),
                 r"@u = P@z / s,\ s^2 = q + @eps"),
            Link(Q / (Q + ir.eps), r"\lVert P@z \rVert^2 = d q"),
        ],
    )  # fmt: skip
    draft.part(
        f"{prove} that its variance is $q(@u) = q / (q + @eps)$.",
        variance,
        hint="By (a), $P@u = @u$; then write $@u = P@z / s$.",
    )
    below = draft.derive(
        "core.below_one",
        ir.var(U),
        [
            Link(Q / (Q + ir.eps), r"\text{by (b)}"),
            Link(1, r"1 - \tfrac{q}{q + @eps} = \tfrac{@eps}{q + @eps} > 0", "≤",
                 (ir.eps / (Q + ir.eps),)),
        ],
    )  # fmt: skip
    draft.part(
        draft.pick(
            f"{prove} that $q(@u) < 1$. Is the core ever standardized exactly?",
            "Can the core have variance exactly $1$ when $@eps > 0$? Prove your answer.",
        ),
        below,
        "The gap $1 - q(@u) = @eps / (q + @eps)$ is positive, so the variance is strictly "
        "below $1$; it tends to $1$ only as $q / @eps \\to \\infty$.",
        hint="Look at $1 - q / (q + @eps)$.",
    )
    inverse = draft.derive(
        "core.inverse",
        (ir.eps * R / (1 - R)) / (ir.eps * R / (1 - R) + ir.eps),
        [Link(R, r"\text{multiply above and below by } (1 - r) / @eps")],
    )
    draft.part(
        "Given $0 \\le r < 1$, show that an input with variance $q = @eps r / (1 - r)$ has a "
        "core of variance exactly $r$.",
        inverse,
        "So every target $r < 1$ is reached, and $r \\to 1$ needs $q \\to \\infty$.",
        hint="Substitute $q$ into (b).",
    )
    f = cf.quantities(z, eps)
    q = draft.answer("variance", f["variance"], Q)
    draft.answer("core_mean", f["core_mean"], ir.mean(U))
    r = draft.answer("core_variance", f["core_variance"], ir.var(U))
    draft.explain_eps(q, eps, f["scale"])
    if cf.variance_for(r, eps) != q:  # pragma: no cover - (d), proved above
        raise CrossCheckError(f"exercise {draft.number}: εr/(1 − r) is not q")
    draft.part(
        f"Check (a)–(d) at $@z = {_vi(z)}$ with $@eps = {_n(eps)}$.",
        [
            *forward_steps(z, f),
            (r"\mu(@u)", _n(f["core_mean"])),
            (r"q(@u)", rf"\frac{{q}}{{q + @eps}} = \frac{{{slash(q)}}}{{{slash(q + eps)}}} "
                       rf"= {_n(r)}"),
            (r"\frac{@eps r}{1 - r}", rf"\frac{{{slash(eps)} \cdot {slash(r)}}}{{{slash(1 - r)}}} "
                                     rf"= {_n(cf.variance_for(r, eps))} = q"),
        ],
    )  # fmt: skip


def proof_gradients(draft: Draft) -> None:
    """∂ℓ/∂β = g, ∂ℓ/∂γ = g ⊙ u, ∂ℓ/∂z = J(γ ⊙ g), ⟨1, ∂ℓ/∂z⟩ = 0; no sum over features."""
    rng, d = draft.rng, draft.d
    z, eps = nice.nice_input(rng, d, draft.novelty, slack=2)
    gamma, beta, g = nice.gain(rng, d), nice.small_vector(rng, d, 2), nice.upstream(rng, d)
    draft.given(z=z, eps=eps, gamma=gamma, beta=beta, g=g)
    draft.setting = prose(
        "A scalar loss $\\ell$ depends on the output $@y = @gamma \\odot @u + @beta$ of the "
        "layer, and $@g = \\partial \\ell / \\partial @y$ is its upstream gradient. Write "
        "$@ghat = @gamma \\odot @g$. Work for every $d$ and $@eps > 0$."
    )
    derive = draft.pick("Derive", "Show", "Prove")
    g_hat = GAMMA * G
    draft.part(
        f"{derive} that $\\partial \\ell / \\partial @beta = @g$ and "
        "$\\partial \\ell / \\partial @gamma = @g \\odot @u$.",
        draft.derive("gradients.bias", vjp(Y, BETA, G),
                     [Link(G, r"@y \text{ moves with } @beta \text{ one for one}")])
        + draft.derive("gradients.gain", vjp(Y, GAMMA, G),
                       [Link(G * U, r"y_i = \gamma_i u_i + \beta_i")]),
        hint="$\\ell$ changes by $\\langle @g, \\delta @y \\rangle$ when $@y$ changes by "
        "$\\delta @y$.",
    )  # fmt: skip
    draft.part(
        f"{derive} that $\\partial \\ell / \\partial @z = (@ghat - \\mu(@ghat) @1 - "
        "\\mu(@ghat \\odot @u) @u) / s$.",
        draft.derive(
            "gradients.input",
            vjp(Y, Z, G),
            [
                Link(vjp(U, Z, g_hat), r"\text{chain rule through } @y = @gamma \odot @u + @beta"),
                Link(jvp(U, Z, g_hat), r"J^{\top} = J"),
                Link(
                    (ir.center(g_hat) - U * ir.dot(U, g_hat) / D) / S,
                    r"J @h = (P@h - @u \langle @u, @h \rangle / d) / s",
                ),
                Link(
                    (g_hat - ir.mean(g_hat) * ir.ones - ir.mean(g_hat * U) * U) / S,
                    r"\langle @u, @ghat \rangle / d = \mu(@ghat \odot @u)",
                ),
            ],
        ),  # fmt: skip
        hint="$\\partial \\ell / \\partial @z = J^{\\top} @ghat$, and $J$ is symmetric.",
    )
    draft.part(
        f"{derive} that the entries of $\\partial \\ell / \\partial @z$ sum to $0$, whatever "
        "$@g$ is.",
        draft.derive(
            "gradients.sum",
            ir.dot(ir.ones, vjp(Y, Z, G)),
            [
                Link(ir.dot(ir.ones, jvp(U, Z, g_hat)), r"\text{by (b)}"),
                Link(ir.dot(jvp(U, Z, ir.ones), g_hat), r"J^{\top} = J"),
                Link(0, r"J @1 = 0"),
            ],
        ),
        hint="Move $J$ to the other side of the inner product.",
    )
    wrong = Claim(
        "exercise.gradients.gain_summed",
        ir.Eq(vjp(Y, GAMMA, G), ir.dot(G, U) * ir.ones),
        expect="refuted",
    )
    draft.statement(wrong)
    f = cf.quantities(z, eps, gamma, beta, upstream=g)
    draft.answer("core", f["core"], U)
    gg = draft.answer("grad_gamma", f["grad_gamma"], vjp(Y, GAMMA, G))
    summed = cf.total(gg)
    draft.explain_eps(f["variance"], eps, f["scale"])
    draft.part(
        "A set of notes writes the gain gradient as a sum over the features, "
        "$\\sum_{i=1}^{d} g_i u_i$. Compare it with your answer to (a) at "
        f"$@z = {_vi(z)}$, $@eps = {_n(eps)}$, $@gamma = {_vi(gamma)}$, $@beta = {_vi(beta)}$ "
        f"and $@g = {_vi(g)}$. When is a sum right?",
        [
            *forward_steps(z, f),
            (r"\partial \ell / \partial @gamma", rf"@g \odot @u = {_v(gg)}"),
            (r"\textstyle\sum_{i} g_i u_i", _n(summed)),
        ],
        "The gradient with respect to the vector $@gamma$ has one entry per feature, "
        "$g_i u_i$; lnsym's engines refute the summed formula for general $d$. A sum is right "
        "over positions: when the same $@gamma$ is used at several tokens or rows, their "
        "gradients $@g_t \\odot @u_t$ add up.",
        hint="Each $\\gamma_i$ multiplies one coordinate of one position only.",
    )
