"""Exercise kinds on the forward pass: statistics, shift/scale, gain/bias, target variance.

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
from lnsym.exact.exercise_draft import SCALE, Draft, U, V, Y, Z
from lnsym.exact.exercise_writing import forward_steps, inline_vector, prose, slash, sum_text
from lnsym.ir.layers import core, layer_norm
from lnsym.printing.numbers import latex_number, latex_vector

# Short names keep the worked steps readable.
_n, _v, _vi = latex_number, latex_vector, inline_vector


def statistics(draft: Draft) -> None:
    """Mean, variance and the normalized core, and the core's own mean and variance."""
    z, eps = nice.nice_input(draft.rng, draft.d, draft.novelty)
    draft.given(z=z, eps=eps)
    draft.describe(f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$")
    f = cf.quantities(z, eps)
    draft.answer("mean", f["mean"], ir.mean(Z))
    draft.answer("centered", f["centered"], ir.center(Z))
    q = draft.answer("variance", f["variance"], ir.var(Z))
    s = draft.answer("scale", f["scale"], SCALE)
    draft.answer("core", f["core"], U)
    core_mean = draft.answer("core_mean", f["core_mean"], ir.mean(U))
    core_var = draft.answer("core_variance", f["core_variance"], ir.var(U))
    ratio = cf.normalized_variance(q, eps)
    draft.explain_eps(q, eps, s)
    steps = forward_steps(z, f)
    verb = draft.pick("Compute", "Find", "Work out")
    draft.part(
        f"{verb} the mean $\\mu$ and the centered vector $P@z = @z - \\mu @1$.",
        steps[:2],
        hint="Add the entries and divide by $d$; then subtract $\\mu$ from every entry.",
    )
    draft.part(
        f"{verb} the variance $q = \\lVert P@z \\rVert^2 / d$ and $s = \\sqrt{{q + @eps}}$.",
        steps[2:4],
        hint="Square the entries of $P@z$ and add them up; here $q + @eps$ is the square of "
        "a fraction.",
    )
    draft.part(
        draft.pick(
            "Compute the normalized core $@u = P@z / s$.",
            "Normalize: what is the core $@u = P@z / s$?",
        ),
        steps[4:],
    )
    draft.part(
        draft.pick(
            "Check that $\\mu(@u) = 0$ and that $q(@u) = q / (q + @eps)$.",
            "Verify on your numbers that the core has mean $0$ and variance $q / (q + @eps)$.",
        ),
        [
            (r"\mu(@u)", _n(core_mean)),
            (r"q(@u)", rf"\tfrac{{1}}{{{draft.d}}} \lVert @u \rVert^{{2}} = {_n(core_var)}"),
            (r"\frac{q}{q + @eps}", rf"\frac{{{slash(q)}}}{{{slash(s * s)}}} = {_n(ratio)}"),
        ],
        "The core is centered, and its variance is $q/(q + @eps) < 1$: it would be $1$ only "
        "for $@eps = 0$.",
        hint="$@u$ is a multiple of $P@z$, whose entries sum to $0$.",
    )


def shift_scale(draft: Draft) -> None:
    """The core of a shifted input (unchanged) and of a scaled one (changed, as ε > 0)."""
    z, eps, a = nice.scalable_input(draft.rng, draft.d, draft.novelty)
    c = Fraction(nice.nonzero(draft.rng, 9))
    draft.given(z=z, eps=eps, c=c, a=Fraction(a))
    draft.describe(f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$")
    f = cf.quantities(z, eps)
    u = draft.answer("core", f["core"], U)
    draft.explain_eps(f["variance"], eps, f["scale"])
    shifted = cf.add(z, cf.times(c, cf.vec([1] * draft.d)))
    u_shift = draft.answer("shifted_core", cf.core(shifted, eps), core(Z + c * ir.ones))
    scaled = cf.times(Fraction(a), z)
    q_a = draft.answer("scaled_variance", cf.variance(scaled), ir.var(a * Z))
    s_a = draft.answer(
        "scaled_scale", cf.scale(scaled, eps), (ir.var(a * Z) + ir.eps) ** sympy.Rational(1, 2)
    )
    u_scale = draft.answer("scaled_core", cf.core(scaled, eps), core(a * Z))
    draft.part(
        draft.pick("Compute the core $@u(@z)$.", "Find the core $@u(@z)$ of this input."),
        forward_steps(z, f),
    )
    draft.part(
        draft.pick(
            f"Compute $@u(@z + c @1)$ for the shift $c = {_n(c)}$.",
            f"Add $c = {_n(c)}$ to every entry of $@z$. What is the core now?",
        ),
        [
            (r"@z + c @1", _v(shifted)),
            (r"\mu(@z + c @1)", rf"\mu + c = {_n(cf.mean(shifted))}"),
            (r"P(@z + c @1)", rf"P@z + c P @1 = P@z = {_v(cf.center(shifted))}"),
            (r"@u(@z + c @1)", rf"P@z / s = {_v(u_shift)}"),
        ],
        "$@u(@z + c @1) = @u(@z)$: a shift moves the mean by $c$ and leaves $P@z$, $q$ and "
        "$s$ unchanged.",
        hint="How do the mean and the centered vector change when every entry moves by $c$?",
    )
    if u_shift != u or u_scale == u:  # pragma: no cover - shift invariance, ε > 0
        raise CrossCheckError(f"exercise {draft.number}: shift and scale behave unexpectedly")
    conclusion = (
        f"$@u(a @z) \\neq @u(@z)$: scaling multiplies $P@z$ by $a = {a}$ but $s$ only by "
        f"${_n(s_a / f['scale'])}$, because of $@eps > 0$. With $@eps = 0$ the factor $a$ would "
        "cancel."
    )
    draft.part(
        draft.pick(
            f"Compute $@u(a @z)$ for the scale $a = {a}$.",
            f"Multiply $@z$ by $a = {a}$. Is the core the same as before?",
        ),
        [
            (r"a @z", _v(scaled)),
            (r"P(a @z)", rf"a P@z = {_v(cf.center(scaled))}"),
            (r"q(a @z)", rf"a^{{2}} q = {a * a} \cdot {_n(f['variance'])} = {_n(q_a)}"),
            (r"s(a @z)", rf"\sqrt{{q(a @z) + @eps}} = \sqrt{{{_n(q_a + eps)}}} = {_n(s_a)}"),
            (r"@u(a @z)", rf"a P@z / s(a @z) = {_v(u_scale)}"),
        ],
        conclusion,
        hint="$P(a@z) = a P@z$ and $q(a@z) = a^2 q$, but $@eps$ is not multiplied by $a^2$.",
    )


def gain_bias(draft: Draft) -> None:
    """The output y = γ ⊙ u + β: its mean and variance, for a gain and for a constant one."""
    rng, d = draft.rng, draft.d
    z, eps = nice.nice_input(draft.rng, draft.d, draft.novelty, slack=2)
    gamma, beta = nice.gain(rng, d), nice.small_vector(rng, d, 2)
    gamma0, beta0 = Fraction(rng.choice((-2, 2, 3))), Fraction(nice.nonzero(rng, 3))
    draft.given(z=z, eps=eps, gamma=gamma, beta=beta, gamma0=gamma0, beta0=beta0)
    draft.describe(
        f"$@z = {_vi(z)}$", f"$@eps = {_n(eps)}$", f"$@gamma = {_vi(gamma)}$",
        f"$@beta = {_vi(beta)}$",
    )  # fmt: skip
    f = cf.quantities(z, eps, gamma, beta)
    u = draft.answer("core", f["core"], U)
    draft.explain_eps(f["variance"], eps, f["scale"])
    gu = cf.hadamard(gamma, u)
    y = draft.answer("output", f["output"], Y)
    y_mean = draft.answer("output_mean", f["output_mean"], ir.mean(Y))
    y_var = draft.answer("output_variance", f["output_variance"], ir.var(Y))
    u_var = draft.answer("core_variance", f["core_variance"], ir.var(U))
    # The same layer with the constant gain γ₀1 and bias β₀1.
    flat = layer_norm(Z, gamma0 * ir.ones, beta0 * ir.ones)
    f0 = cf.quantities(z, eps, cf.vec([gamma0] * d), cf.vec([beta0] * d))
    y0 = draft.answer("uniform_output", f0["output"], flat)
    y0_mean = draft.answer("uniform_output_mean", f0["output_mean"], ir.mean(flat))
    y0_var = draft.answer("uniform_output_variance", f0["output_variance"], ir.var(flat))
    draft.part(
        draft.pick(
            "Compute the core $@u$ and the output $@y = @gamma \\odot @u + @beta$.",
            "Run the layer forward: find $@u$, then $@y = @gamma \\odot @u + @beta$.",
        ),
        [
            *forward_steps(z, f),
            (r"@gamma \odot @u", _v(gu)),
            (r"@y", rf"@gamma \odot @u + @beta = {_v(y)}"),
        ],
    )
    centered = "is" if y_mean == 0 else "is not"
    draft.part(
        draft.pick(
            "Compute the mean $\\mu(@y)$. Is the output centered like the core? Compare with "
            "$\\mu(@beta)$.",
            "The core has mean $0$. Does the output? Compute $\\mu(@y)$ and compare it with "
            "$\\mu(@beta)$.",
        ),
        [
            (
                r"\mu(@y)",
                rf"\mu(@gamma \odot @u) + \mu(@beta) = {sum_text([cf.mean(gu), cf.mean(beta)])} "
                rf"= {_n(y_mean)}",
            ),
        ],
        f"The output {centered} centered here: its mean is $\\mu(@beta) = {_n(cf.mean(beta))}$ "
        "plus $\\mu(@gamma \\odot @u)$, which vanishes when the gain is constant but not in "
        "general.",
        hint="The mean is linear: $\\mu(@y) = \\mu(@gamma \\odot @u) + \\mu(@beta)$.",
    )
    draft.part(
        draft.pick(
            "Compute the variance $q(@y)$ and compare it with the core's $q(@u)$.",
            "Does the output keep the variance of the core? Compute $q(@y)$ and $q(@u)$.",
        ),
        [
            (r"P@y", rf"@y - \mu(@y) @1 = {_v(cf.center(y))}"),
            (r"q(@y)", rf"\tfrac{{1}}{{{d}}} \lVert P@y \rVert^{{2}} = {_n(y_var)}"),
            (r"q(@u)", rf"\frac{{q}}{{q + @eps}} = {_n(u_var)}"),
        ],
        (
            "$q(@y) = q(@u)$ here, but only by coincidence: in general"
            if y_var == u_var
            else "$q(@y) \\neq q(@u)$:"
        )
        + " the gain reweights the coordinates and the bias adds a spread of its own, so the "
        "output does not keep the variance of the core.",
    )
    draft.part(
        f"Now take the constant gain $\\gamma_0 @1$ and bias $\\beta_0 @1$ with "
        f"$\\gamma_0 = {_n(gamma0)}$ and $\\beta_0 = {_n(beta0)}$. Compute the output and "
        "its mean and variance.",
        [
            (r"@y", rf"\gamma_0 @u + \beta_0 @1 = {_v(y0)}"),
            (r"\mu(@y)", rf"\gamma_0 \mu(@u) + \beta_0 = {_n(y0_mean)}"),
            (
                r"q(@y)",
                rf"\gamma_0^{{2}} q(@u) = {_n(gamma0 * gamma0)} \cdot {_n(u_var)} = "
                rf"{_n(y0_var)}",
            ),
        ],  # fmt: skip
        "A constant bias sets the mean and a constant gain multiplies the variance by "
        "$\\gamma_0^2$.",
        hint="With a constant gain, $\\mu(\\gamma_0 @u) = \\gamma_0 \\mu(@u) = 0$.",
    )


def inverse_variance(draft: Draft) -> None:
    """An input whose core has a target variance r: q = εr/(1 − r), then z = tv."""
    d = draft.d
    v, t, r, eps = nice.inverse_data(draft.rng, draft.d, draft.novelty)
    draft.given(eps=eps, r=r, v=v)
    draft.describe(f"$@eps = {_n(eps)}$", f"the target core variance $r = {_n(r)}$")
    z = cf.times(t, v)
    at = {"z": z}  # the input found in (b), where the IR checks the answers
    q = draft.answer("required_variance", cf.variance_for(r, eps), ir.var(Z), at=at)
    q_v = draft.answer("direction_variance", cf.variance(v), ir.var(V))
    root = (ir.var(Z) / ir.var(V)) ** sympy.Rational(1, 2)
    t = draft.answer("scale_factor", cf.rational_sqrt(q / q_v), root, at=at)
    draft.answer("input", z, t * V)
    q_z = draft.answer("input_variance", cf.variance(z), ir.var(Z), at=at)
    r_z = draft.answer("core_variance", cf.normalized_variance(q_z, eps), ir.var(U), at=at)
    draft.note = prose(
        f"Why $@eps = {_n(eps)}$: it is chosen with $r$ so that the required $q = {_n(q)}$ "
        f"equals $t^2 q(@v)$ for the fraction $t = {_n(t)}$: the input stays exact."
    )
    draft.part(
        draft.pick(
            "Which input variance $q$ gives the core variance $q / (q + @eps) = r$?",
            "Solve $q / (q + @eps) = r$ for the input variance $q$.",
        ),
        [
            (r"q", r"r (q + @eps)"),
            (r"q (1 - r)", r"@eps r"),
            (
                r"q",
                rf"\frac{{@eps r}}{{1 - r}} = \frac{{{slash(eps)} \cdot {slash(r)}}}"
                rf"{{{slash(1 - r)}}} = {_n(q)}",
            ),
        ],  # fmt: skip
        hint="Multiply both sides by $q + @eps$ and collect the terms with $q$.",
    )
    draft.part(
        f"Find $t > 0$ such that $@z = t @v$ has variance $q$, for $@v = {_vi(v)}$.",
        [
            (r"P@v", _v(cf.center(v))),
            (r"q(@v)", rf"\tfrac{{1}}{{{d}}} \lVert P@v \rVert^{{2}} = {_n(q_v)}"),
            (r"t^{2}", rf"q / q(@v) = {_n(q / q_v)}"),
            (r"t", _n(t)),
            (r"@z", rf"t @v = {_v(z)}"),
        ],
        "Any shift $@z + c @1$ works as well, and so does any $@z$ with "
        "$\\lVert P@z \\rVert^2 = d q$.",
        hint="$q(t@v) = t^2 q(@v)$.",
    )
    draft.part(
        "Check your input: compute $q(@z)$ and the variance of its core $@u$.",
        [
            (r"q(@z)", rf"t^{{2}} q(@v) = {_n(q_z)}"),
            (r"q(@u)", rf"\frac{{q(@z)}}{{q(@z) + @eps}} = {_n(r_z)}"),
        ],
        f"The core variance is $r = {_n(r)}$, as asked.",
    )
