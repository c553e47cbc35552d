r"""Coding exercises: write numpy code for the layer and test it on exact expected values.

The student writes a function (forward pass, a variance that survives large offsets, the
backward pass) and tests it on an input whose expected output the sheet gives exactly; every
expected value comes from the closed forms and is checked through the IR
(:meth:`~lnsym.exact.exercise_draft.Draft.answer`). The key prints a reference solution
(:data:`FORWARD`, :data:`VARIANCE`, :data:`BACKWARD`, :data:`GRADIENT_CHECK`), which the
tests execute on the exercise's data and compare with the checked answers.
"""

from __future__ import annotations

from fractions import Fraction

import lnsym.exact.closed_form as cf
import lnsym.exact.nice_data as nice
from lnsym import ir
from lnsym.errors import CrossCheckError
from lnsym.exact.exercise_draft import BETA, GAMMA, Draft, G, U, Y, Z
from lnsym.exact.exercise_writing import forward_steps, inline_vector
from lnsym.ir.calculus import jvp, vjp
from lnsym.ir.layers import layer_norm
from lnsym.printing.numbers import latex_number, latex_vector

_n, _v, _vi = latex_number, latex_vector, inline_vector

#: The reference forward pass (for one vector z).
FORWARD = '''\
import numpy as np


def forward(z, gamma, beta, eps):
    """Layer normalization of one vector: gamma * u + beta."""
    centered = z - z.mean()
    q = (centered * centered).mean()  # two passes: the mean first
    s = (q + eps) ** 0.5
    return gamma * (centered / s) + beta'''

#: Two variances: two passes (stable) and the one-pass textbook formula (not).
VARIANCE = '''\
import numpy as np


def variance(z):
    """Two passes: subtract the mean first, then average the squares."""
    centered = z - z.mean()
    return (centered * centered).mean()


def naive(z):
    """One pass: the mean of the squares minus the squared mean."""
    return (z * z).mean() - z.mean() ** 2'''

#: The reference backward pass, with the forward pass it differentiates.
BACKWARD = (
    FORWARD
    + '''


def backward(z, gamma, g, eps):
    """(dz, dgamma, dbeta) for the upstream gradient g = dl/dy."""
    centered = z - z.mean()
    s = ((centered * centered).mean() + eps) ** 0.5
    u = centered / s
    ghat = gamma * g
    dz = (ghat - ghat.mean() - (ghat * u).mean() * u) / s
    return dz, g * u, g.copy()'''
)

#: A test of the backward pass that needs no expected values.
GRADIENT_CHECK = '''\
def check(z, gamma, beta, g, eps, step=1e-6):
    """backward against central differences of l(z) = <g, y(z)>."""
    dz = backward(z, gamma, g, eps)[0]
    numeric = np.zeros(z.size)
    for i in range(z.size):
        e = np.zeros(z.size)
        e[i] = step
        plus = g @ forward(z + e, gamma, beta, eps)
        minus = g @ forward(z - e, gamma, beta, eps)
        numeric[i] = (plus - minus) / (2 * step)
    assert np.allclose(dz, numeric, atol=1e-6)
    assert abs(dz.sum()) < 1e-9'''

#: The offset of the variance exercise: near 10¹⁸ the squares are 128 apart in float64.
OFFSET = 10**9


def code_forward(draft: Draft) -> None:
    """forward(z, gamma, beta, eps), tested on exact values, then on z + 100·1 and a·z."""
    rng, d = draft.rng, draft.d
    z, eps, a = nice.scalable_input(rng, d, draft.novelty)
    gamma, beta = nice.gain(rng, d), nice.small_vector(rng, d, 2)
    draft.given(z=z, eps=eps, a=Fraction(a), gamma=gamma, beta=beta)
    f = cf.quantities(z, eps, gamma, beta, jacobians=False)
    draft.answer("core", f["core"], U)
    y = draft.answer("output", f["output"], Y)
    draft.explain_eps(f["variance"], eps, f["scale"])
    shifted = cf.add(z, cf.vec([100] * d))
    y_shift = draft.answer("shifted_output", cf.output(cf.core(shifted, eps), gamma, beta),
                           layer_norm(Z + 100 * ir.ones, GAMMA, BETA))  # fmt: skip
    scaled = cf.times(Fraction(a), z)
    y_scale = draft.answer("scaled_output", cf.output(cf.core(scaled, eps), gamma, beta),
                           layer_norm(a * Z, GAMMA, BETA))  # fmt: skip
    write = draft.pick("Write", "Implement")
    draft.describe(
        f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$",
        f"$@beta = {_vi(beta)}$",
    )  # fmt: skip
    draft.part(
        f"{write} a numpy function forward(z, gamma, beta, eps) that returns "
        "$@y = @gamma \\odot @u + @beta$ for a one-dimensional array z. Test it on the data "
        f"above: the expected output is $@y = {_vi(y)}$ (compare with a tolerance such as "
        "$10^{-12}$).",
        [*forward_steps(z, f), (r"@y", rf"@gamma \odot @u + @beta = {_v(y)}")],
        code=FORWARD,
        hint="Compute the mean, then the variance of the centered vector (divisor $d$), then "
        "$s$; numpy's var uses divisor $d$ by default too.",
    )
    draft.part(
        draft.pick(
            "Before running it, predict exactly what forward returns for $@z + 100 @1$ and "
            f"for ${a} @z$ (same $@gamma$, $@beta$, $@eps$). Then add both as tests.",
            f"Add two tests: one for the input $@z + 100 @1$ and one for ${a} @z$. What "
            "should forward return in each case, exactly?",
        ),
        [
            (r"@y(@z + 100 @1)", rf"@y(@z) = {_v(y_shift)}"),
            (rf"@y({a} @z)", _v(y_scale)),
        ],
        "A common shift changes nothing; scaling does, because $@eps$ does not scale with "
        "the input. A test of scale invariance would reject a correct implementation.",
        hint="Which of the two transformations does the layer ignore exactly when $@eps > 0$?",
    )


def code_variance(draft: Draft) -> None:
    """Two-pass versus one-pass variance at the offset 10⁹: exact values and the failure."""
    v = nice.small_vector(draft.rng, draft.d, 3)
    while cf.variance(v) == 0:
        v = nice.small_vector(draft.rng, draft.d, 3)
    z = cf.add(cf.vec([OFFSET] * draft.d), v)
    draft.given(z=z, v=v)
    q = draft.answer("variance", cf.variance(z), ir.var(Z))
    mu = draft.answer("mean", cf.mean(z), ir.mean(Z))
    squares = draft.answer("mean_square", cf.mean(cf.hadamard(z, z)), ir.mean(Z * Z))
    if squares - mu * mu != q:  # pragma: no cover - q = μ(z²) − μ², exactly
        raise CrossCheckError(f"exercise {draft.number}: the one-pass identity fails")
    draft.describe(f"$@v = {_vi(v)}$", "$@z = 10^{9} @1 + @v$")
    draft.part(
        draft.pick(
            "Write two numpy functions for the variance $q$ (divisor $d$): variance(z), "
            "which subtracts the mean first, and naive(z), which returns "
            "$\\mu(@z \\odot @z) - \\mu(@z)^2$.",
            "Implement the variance twice: with two passes (mean first, then the mean "
            "square of $@z - \\mu @1$), and with the one-pass formula "
            "$\\mu(@z \\odot @z) - \\mu(@z)^2$.",
        ),
        [],
        code=VARIANCE,
    )
    draft.part(
        "What is the exact variance of $@z$? Compute $\\mu(@z)$, $\\mu(@z \\odot @z)$ and "
        "their combination exactly.",
        [
            (r"\mu(@z)", _n(mu)),
            (r"\mu(@z \odot @z)", _n(squares)),
            (r"\mu(@z \odot @z) - \mu(@z)^2", _n(q)),
            (r"q(@v)", rf"{_n(cf.variance(v))} \quad (\text{{a shift does not change }} q)"),
        ],
        hint="A common shift does not change the variance.",
    )
    draft.part(
        "Run both functions on $@z$ in float64. Which one returns the exact value, and why "
        "does the other fail?",
        [],
        "variance(z) returns $q$ up to rounding. naive(z) subtracts two numbers near "
        "$10^{18}$, where consecutive float64 numbers are $128$ apart: its result is a "
        f"multiple of $128$ (often $0$), never ${_n(q)}$. The information was lost when "
        "$@z \\odot @z$ was rounded. Subtracting the mean first keeps the numbers small.",
        hint="How far apart are neighbouring float64 numbers near $10^{18}$?",
    )


def code_backward(draft: Draft) -> None:
    """backward(z, gamma, g, eps) tested on exact gradients, then by finite differences."""
    rng, d = draft.rng, draft.d
    z, eps = nice.nice_input(rng, d, draft.novelty, slack=2)
    gamma, beta, g = nice.gain(rng, d), nice.small_vector(rng, d, 2), nice.upstream(rng, d)
    draft.given(z=z, eps=eps, gamma=gamma, beta=beta, g=g)
    f = cf.quantities(z, eps, gamma, beta, upstream=g, jacobians=False)
    u = draft.answer("core", f["core"], U)
    gb = draft.answer("grad_beta", f["grad_beta"], vjp(Y, BETA, G))
    gg = draft.answer("grad_gamma", f["grad_gamma"], vjp(Y, GAMMA, G))
    g_hat = draft.answer("scaled_upstream", f["scaled_upstream"], GAMMA * G)
    gz = draft.answer("grad_z", f["grad_z"], vjp(Y, Z, G))
    total = draft.answer("grad_z_sum", cf.total(gz), jvp(ir.dot(G, Y), Z, ir.ones))
    draft.explain_eps(f["variance"], eps, f["scale"])
    gu = cf.hadamard(g_hat, u)
    draft.describe(
        f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$",
        f"$@beta = {_vi(beta)}$", f"the upstream gradient $@g = {_vi(g)}$",
    )  # fmt: skip
    draft.part(
        draft.pick("Write", "Implement")
        + " a numpy function backward(z, gamma, g, eps) that returns the three gradients "
        "$\\partial \\ell / \\partial @z$, $\\partial \\ell / \\partial @gamma$ and "
        "$\\partial \\ell / \\partial @beta$ for the upstream gradient "
        "$@g = \\partial \\ell / \\partial @y$.",
        [],
        code=BACKWARD,
        hint="Recompute $@u$ and $s$; then $\\partial \\ell / \\partial @z = J (@gamma \\odot "
        "@g)$ with $J = (P - @u @u^{\\top} / d) / s$ — expand the product instead of "
        "building $J$.",
    )
    draft.part(
        "Test it on the data above. The expected gradients are "
        f"$\\partial \\ell / \\partial @beta = {_vi(gb)}$, "
        f"$\\partial \\ell / \\partial @gamma = {_vi(gg)}$ and "
        f"$\\partial \\ell / \\partial @z = {_vi(gz)}$. Work out the intermediate values "
        "your code should see.",
        [
            *forward_steps(z, f),
            (r"\partial \ell / \partial @beta", rf"@g = {_v(gb)}"),
            (r"\partial \ell / \partial @gamma", rf"@g \odot @u = {_v(gg)}"),
            (r"@ghat", rf"@gamma \odot @g = {_v(g_hat)}"),
            (r"\mu(@ghat)", _n(cf.mean(g_hat))),
            (r"\mu(@ghat \odot @u)", _n(cf.mean(gu))),
            (
                r"\partial \ell / \partial @z",
                rf"(@ghat - \mu(@ghat) @1 - \mu(@ghat \odot @u) @u) / s = {_v(gz)}",
            ),
        ],  # fmt: skip
    )
    draft.part(
        draft.pick(
            "Write a second test that needs no expected values: compare your "
            "$\\partial \\ell / \\partial @z$ with central differences of "
            "$\\ell(@z) = \\langle @g, @y(@z) \\rangle$, and check the sum of its entries. "
            "What must that sum be?",
            "Test backward against finite differences of $\\ell(@z) = \\langle @g, @y(@z) "
            "\\rangle$. Which property of the sum of the entries of "
            "$\\partial \\ell / \\partial @z$ can you assert as well?",
        ),
        [(r"\langle @1, \partial \ell / \partial @z \rangle", _n(total))],
        "The sum is $0$ because shifting $@z$ by $c @1$ does not change $\\ell$. A step near "
        "$10^{-6}$ balances the truncation error of the difference quotient against "
        "rounding.",
        code=GRADIENT_CHECK,
        hint="$\\partial \\ell / \\partial z_i \\approx (\\ell(@z + t \\mathbf{e}_i) - "
        "\\ell(@z - t \\mathbf{e}_i)) / (2t)$ for a small $t$.",
    )
