"""Exercise kinds on derivatives: the Jacobians, the gradients, the sensitivity.

Each kind is a function that fills a :class:`~lnsym.exact.exercise_draft.Draft`: it draws
nice data (:mod:`lnsym.exact.nice_data`), takes each answer from the closed forms
(:mod:`lnsym.exact.closed_form`) and has the draft check it against the IR, then writes the
parts and their worked steps.
"""

from __future__ import annotations

from fractions import Fraction

import sympy

import lnsym.exact.closed_form as cf
import lnsym.exact.nice_data as nice
from lnsym import ir
from lnsym.errors import CrossCheckError
from lnsym.exact.exercise_draft import BETA, GAMMA, SCALE, Draft, G, H, U, Y, Z
from lnsym.exact.exercise_writing import forward_steps, inline_vector, prose, slash
from lnsym.ir.calculus import jvp, vjp
from lnsym.ir.layers import core
from lnsym.printing.numbers import latex_matrix, latex_number, latex_vector

# Short names keep the worked steps readable.
_n, _v, _m, _vi = latex_number, latex_vector, latex_matrix, inline_vector


def jacobian_kind(draft: Draft) -> None:
    """The Jacobian J of the core: J1 = 0, Jᵀ = J, and the layer's diag(γ)J."""
    rng, d = draft.rng, draft.d
    z, eps = nice.nice_input(draft.rng, draft.d, draft.novelty, slack=2)
    gamma = nice.gain(rng, d)
    draft.given(z=z, eps=eps, gamma=gamma, beta=cf.vec([0] * d))
    draft.describe(f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$")
    f = cf.quantities(z, eps, gamma, cf.vec([0] * d))
    u = draft.answer("core", f["core"], U)
    draft.answer("scale", f["scale"], SCALE)
    jac = draft.answer("jacobian", f["jacobian"], U, wrt=Z)
    ones = draft.answer("jacobian_ones", cf.vec([0] * d), jvp(U, Z, ir.ones))  # J1 = 0
    full = draft.answer("output_jacobian", f["output_jacobian"], Y, wrt=Z)
    symmetric = all(jac[i][j] == jac[j][i] for i in range(d) for j in range(d))
    if not symmetric:  # pragma: no cover - the closed form is symmetric by construction
        raise CrossCheckError(f"exercise {draft.number}: J is not symmetric")
    outer = tuple(tuple(a * b for b in u) for a in u)
    draft.explain_eps(f["variance"], eps, f["scale"])
    draft.part(
        draft.pick("Compute $s$ and the core $@u$.", "Run the forward pass up to $s$ and $@u$."),
        forward_steps(z, f),
    )
    draft.part(
        draft.pick(
            "Compute the Jacobian of the core, $J = (P - @u @u^{\\top} / d) / s$.",
            "Use $J = (P - @u @u^{\\top} / d) / s$ to write down the Jacobian of the core.",
        ),
        [
            (r"P", rf"I - @1 @1^{{\top}} / {d} = {_m(cf.centering(d))}"),
            (r"@u @u^{\top}", _m(outer)),
            (r"J", _m(jac)),
        ],
        hint="$P$ has $1 - 1/d$ on the diagonal and $-1/d$ elsewhere.",
    )
    draft.part(
        draft.pick(
            "Check that $J @1 = 0$ and that $J$ is symmetric.",
            "What do the rows of $J$ sum to? Is $J$ symmetric? Explain both.",
        ),
        [(r"J @1", _v(ones))],
        "Every row sums to $0$ (a shift of the input does not move the core), and "
        "$J^{\\top} = J$ because $P$ and $@u @u^{\\top}$ are symmetric.",
        hint="$P @1 = 0$ and $\\langle @u, @1 \\rangle = 0$.",
    )
    draft.part(
        draft.pick(
            "Compute the Jacobian $\\operatorname{diag}(@gamma) J$ of the output "
            "$@y = @gamma \\odot @u + @beta$.",
            "The layer's output is $@y = @gamma \\odot @u + @beta$. What is its Jacobian "
            "with respect to $@z$?",
        ),
        [(r"\operatorname{diag}(@gamma) J", _m(full))],
        "Row $i$ of $J$ is multiplied by $\\gamma_i$; the bias does not appear, and the "
        "result is no longer symmetric unless the gain is constant.",
        hint="$y_i = \\gamma_i u_i + \\beta_i$: differentiate row by row.",
    )


def gradients(draft: Draft) -> None:
    """∂ℓ/∂β, ∂ℓ/∂γ and ∂ℓ/∂z for an upstream gradient g, and why ⟨1, ∂ℓ/∂z⟩ = 0."""
    rng, d = draft.rng, draft.d
    z, eps = nice.nice_input(draft.rng, draft.d, draft.novelty, slack=2)
    gamma, beta = nice.gain(rng, d), nice.small_vector(rng, d, 2)
    g = nice.upstream(rng, d)
    draft.given(z=z, eps=eps, gamma=gamma, beta=beta, g=g)
    draft.describe(
        f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$",
        f"$@beta = {_vi(beta)}$",
    )  # fmt: skip
    draft.setting += prose(
        " A loss $\\ell$ has the upstream gradient "
        f"$@g = \\partial \\ell / \\partial @y = {_vi(g)}$ at the output "
        "$@y = @gamma \\odot @u + @beta$."
    )
    f = cf.quantities(z, eps, gamma, beta, upstream=g)
    u = draft.answer("core", f["core"], U)
    gb = draft.answer("grad_beta", f["grad_beta"], vjp(Y, BETA, G))
    gg = draft.answer("grad_gamma", f["grad_gamma"], vjp(Y, GAMMA, G))
    g_hat = draft.answer("scaled_upstream", f["scaled_upstream"], ir.hadamard(GAMMA, G))
    gz = draft.answer("grad_z", f["grad_z"], vjp(Y, Z, G))
    # ⟨1, ∂ℓ/∂z⟩ is the derivative of ℓ = ⟨g, y⟩ along 1: another route through the IR.
    total = draft.answer("grad_z_sum", cf.total(gz), jvp(ir.dot(G, Y), Z, ir.ones))
    gu = cf.hadamard(g_hat, u)
    jg = cf.apply(f["jacobian"], g_hat)
    centered_g_hat = cf.subtract(g_hat, cf.vec([cf.mean(g_hat)] * d))
    inner = cf.subtract(centered_g_hat, cf.times(cf.mean(gu), u))
    if jg != gz:  # pragma: no cover - Jᵀ = J, proved in derivations/03_jacobian.py
        raise CrossCheckError(f"exercise {draft.number}: J ĝ differs from ∂ℓ/∂z")
    s = f["scale"]
    draft.explain_eps(f["variance"], eps, s)
    draft.part(
        draft.pick("Compute the core $@u$.", "Run the forward pass: find $@u$."),
        forward_steps(z, f),
    )
    draft.part(
        draft.pick(
            "Compute $\\partial \\ell / \\partial @beta$ and $\\partial \\ell / \\partial @gamma$.",
            "Find the gradients of $\\ell$ with respect to the bias and the gain.",
        ),
        [
            (r"\partial \ell / \partial @beta", rf"@g = {_v(gb)}"),
            (r"\partial \ell / \partial @gamma", rf"@g \odot @u = {_v(gg)}"),
        ],
        hint="$y_i$ depends on $\\beta_i$ and $\\gamma_i$ only, and linearly.",
    )
    draft.part(
        draft.pick(
            "Compute $\\partial \\ell / \\partial @z$.",
            "Backpropagate to the input: find $\\partial \\ell / \\partial @z$.",
        ),
        [
            (r"@ghat", rf"@gamma \odot @g = {_v(g_hat)}"),
            (r"\mu(@ghat)", _n(cf.mean(g_hat))),
            (r"@ghat \odot @u", _v(gu)),
            (r"\mu(@ghat \odot @u)", _n(cf.mean(gu))),
            (r"@ghat - \mu(@ghat) @1 - \mu(@ghat \odot @u) @u", _v(inner)),
            (r"\partial \ell / \partial @z", rf"J^{{\top}} @ghat = (\ldots) / s = {_v(gz)}"),
            (r"J @ghat", rf"{_v(jg)} \quad (\text{{the same, as }} J^{{\top}} = J)"),
        ],
        "The gain enters through $@ghat = @gamma \\odot @g$; then the symmetric $J$ removes "
        "the mean of $@ghat$ and its component along $@u$, and divides by $s$.",
        hint="$\\partial \\ell / \\partial @z = J^{\\top} (@gamma \\odot @g)$; expand "
        "$J = (P - @u @u^{\\top} / d) / s$.",
    )
    draft.part(
        draft.pick(
            "What is the sum of the entries of $\\partial \\ell / \\partial @z$, and why?",
            "Add up the entries of $\\partial \\ell / \\partial @z$. Could you have "
            "predicted the result?",
        ),
        [(r"\langle @1, \partial \ell / \partial @z \rangle", _n(total))],
        "It is $0$: $\\partial \\ell / \\partial @z = J^{\\top} @ghat$ and "
        "$\\langle @1, J^{\\top} @ghat \\rangle = \\langle J @1, @ghat \\rangle = 0$.",
        hint="Shifting $@z$ by $c @1$ does not change $\\ell$.",
    )


def sensitivity(draft: Draft) -> None:
    """At a constant input: the finite ratio, the bound 1/√ε and the derivative attaining it."""
    rng, d = draft.rng, draft.d
    h, e, s = nice.sensitivity_data(draft.rng, draft.d, draft.novelty)
    q_h = cf.squared_norm(h) / d
    c = Fraction(nice.nonzero(rng, 5))
    z = cf.vec([c] * d)
    eps = e * e
    draft.given(z=z, eps=eps, h=h, c=c)
    draft.describe(
        f"the constant input $@z = {_vi(z)}$", f"the centered perturbation $@h = {_vi(h)}$",
        f"$@eps = {_n(eps)}$",
    )  # fmt: skip
    # The closed forms come from the definitions, not from the construction of e and s.
    f = cf.quantities(z, eps, perturbation=h)
    u0 = draft.answer("core", f["core"], U)
    u1 = draft.answer("moved_core", cf.core(cf.add(z, h), eps), core(Z + H))
    ratio = draft.answer("ratio", f["perturbation_ratio"], ir.norm(core(Z + H) - U) / ir.norm(H))
    lipschitz = cf.lipschitz_bound(cf.vec([1] * d), eps)
    assert lipschitz is not None  # ε = e² with e > 0 (nice.sensitivity_data)
    bound = draft.answer("bound", lipschitz, ir.as_scalar(ir.eps) ** sympy.Rational(-1, 2))
    jh = cf.apply(f["jacobian"], h)
    slope = draft.answer(
        "derivative_ratio", cf.norm_ratio(jh, h), ir.norm(jvp(U, Z, H)) / ir.norm(H)
    )
    if (ratio, bound, slope) != (1 / s, 1 / e, 1 / e):  # pragma: no cover - the construction
        raise CrossCheckError(f"exercise {draft.number}: the sensitivity data are not as built")
    draft.note = prose(
        f"Why $@eps = {_n(eps)}$: it is the square of ${_n(e)}$, so the bound "
        f"$1 / \\sqrt{{@eps}}$ is a fraction, and $q(@h) + @eps = ({slash(s)})^2$ is a "
        "square too."
    )
    draft.part(
        draft.pick(
            "Compute $@u(@z)$ and $@u(@z + @h)$.",
            "Find the core before and after the perturbation: $@u(@z)$ and $@u(@z + @h)$.",
        ),
        [
            (r"@u(@z)", rf"P@z / s = {_v(u0)}"),
            (r"P(@z + @h)", r"@h \quad (\text{as } \langle @1, @h \rangle = 0)"),
            (
                r"q(@z + @h)",
                rf"\tfrac{{1}}{{{d}}} \lVert @h \rVert^{{2}} = \tfrac{{1}}{{{d}}} \cdot "
                rf"{_n(cf.squared_norm(h))} = {_n(q_h)}",
            ),
            (r"s(@z + @h)", rf"\sqrt{{{_n(q_h)} + {_n(eps)}}} = {_n(s)}"),
            (r"@u(@z + @h)", rf"@h / s(@z + @h) = {_v(u1)}"),
        ],
        hint="A constant input has $P@z = 0$; and $P@h = @h$ since $@h$ is centered.",
    )
    draft.part(
        "Compute $\\rho = \\lVert @u(@z + @h) - @u(@z) \\rVert / \\lVert @h \\rVert$ and compare "
        "it with the Lipschitz bound $1 / \\sqrt{@eps}$.",
        [
            (r"\rho", rf"\frac{{\lVert @h \rVert / s(@z + @h)}}{{\lVert @h \rVert}} = {_n(ratio)}"),
            (r"1 / \sqrt{@eps}", _n(bound)),
        ],
        f"$\\rho = {_n(ratio)} < {_n(bound)}$: the finite ratio $1 / \\sqrt{{q(@h) + @eps}}$ "
        "stays below the bound and approaches it as $@h$ shrinks.",
        hint="$\\lVert @u(@z + @h) - @u(@z) \\rVert = \\lVert @h \\rVert / s(@z + @h)$.",
    )
    draft.part(
        "At this $@z$ the Jacobian of the core is $J = P / \\sqrt{@eps}$. Compute "
        "$\\lVert J @h \\rVert / \\lVert @h \\rVert$.",
        [
            (r"J @h", r"P @h / \sqrt{@eps} = @h / \sqrt{@eps}"),
            (r"\lVert J @h \rVert / \lVert @h \rVert", rf"1 / \sqrt{{@eps}} = {_n(slope)}"),
        ],
        "The derivative attains the bound $1 / \\sqrt{@eps}$: at a constant input the core is "
        "as sensitive as it can be.",
    )
