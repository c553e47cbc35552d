r"""Concept exercises: true-or-false statements, and what a realistic ε does.

A true-or-false statement is an IR claim that lnsym's engines PROVE or REFUTE before the
sheet prints it (:meth:`~lnsym.exact.exercise_draft.Draft.statement`); a false one also gets
a counterexample on the exercise's own numbers, checked through the IR. The ε exercise uses
the values of practice (10⁻², 10⁻⁴, 10⁻⁶, whose square roots are exact) and says why the
other exercises do not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import lnsym.exact.closed_form as cf
import lnsym.exact.nice_data as nice
from lnsym import ir
from lnsym.checking.claims import Claim
from lnsym.exact.exercise_draft import GAMMA, Draft, G, H, U, V, Y, Z
from lnsym.exact.exercise_writing import inline_vector, listing, prose, slash
from lnsym.ir.calculus import jvp, vjp
from lnsym.ir.layers import core, layer_norm
from lnsym.printing.numbers import latex_number, latex_vector

_n, _v, _vi = latex_number, latex_vector, inline_vector
C, A = ir.scalar("c"), ir.scalar("a")
Lines = list[tuple[str, str]]


@dataclass(frozen=True)
class Statement:
    """A statement for a true-or-false question: wordings, the claim, and the key's reason;
    ``witness`` writes a counterexample on the exercise's numbers (false statements)."""

    wordings: tuple[str, ...]
    claim: Claim
    reason: str
    witness: Callable[[Draft, dict[str, Any]], Lines] | None = None


def _scaled(draft: Draft, f: dict[str, Any]) -> Lines:
    z, eps, a = draft.params["z"], draft.params["eps"], draft.params["a"]
    assert isinstance(z, tuple) and isinstance(eps, Fraction) and isinstance(a, Fraction)
    u = draft.answer("core", f["core"], U)
    ua = draft.answer("scaled_core", cf.core(cf.times(a, z), eps), core(a * Z))
    return [(r"@u(@z)", _v(u)), (rf"@u({_n(a)} @z)", _v(ua))]


def _output_mean(draft: Draft, f: dict[str, Any]) -> Lines:
    mean = draft.answer("output_mean", f["output_mean"], ir.mean(Y))
    return [(r"@y", _v(f["output"])), (r"\mu(@y)", _n(mean))]


def _core_variance(draft: Draft, f: dict[str, Any]) -> Lines:
    r = draft.answer("core_variance", f["core_variance"], ir.var(U))
    return [(r"q", _n(f["variance"])), (r"q(@u)", rf"\frac{{q}}{{q + @eps}} = {_n(r)}")]


def _gain_sum(draft: Draft, f: dict[str, Any]) -> Lines:
    gg = draft.answer("grad_gamma", f["grad_gamma"], vjp(Y, GAMMA, G))
    return [(r"@g \odot @u", _v(gg)), (r"\textstyle\sum_j g_j u_j", _n(cf.total(gg)))]


#: The statements: (true ones, false ones).
TRUE = (
    Statement(
        (
            "Adding the same number $c$ to every coordinate of $@z$ leaves the core unchanged.",
            "The core ignores a common offset: $@u(@z + c @1) = @u(@z)$ for every $c$.",
        ),
        Claim("exercise.tf.shift", ir.Eq(core(Z + C * ir.ones), core(Z))),
        "True: the mean moves by $c$, so $P@z$, $q$ and $s$ do not move.",
    ),
    Statement(
        ("The core always has mean $0$.", "Whatever the input, $\\mu(@u) = 0$."),
        Claim("exercise.tf.core_mean", ir.Eq(ir.mean(U), 0)),
        "True: $@u$ is a multiple of $P@z$, whose entries sum to $0$.",
    ),
    Statement(
        (
            "For every upstream gradient $@g$, the entries of $\\partial \\ell / \\partial @z$ "
            "add up to $0$.",
            "A gradient step on the input never moves its mean: "
            "$\\langle @1, \\partial \\ell / \\partial @z \\rangle = 0$.",
        ),
        Claim("exercise.tf.gradient_sum", ir.Eq(ir.dot(ir.ones, vjp(Y, Z, G)), 0)),
        "True: $\\partial \\ell / \\partial @z = J (@gamma \\odot @g)$ and $J @1 = 0$ with "
        "$J$ symmetric.",
    ),
    Statement(
        (
            "The bias $@beta$ does not change the Jacobian of $@y$ with respect to $@z$.",
            "Two layers that differ only in their bias have the same input Jacobian.",
        ),
        Claim(
            "exercise.tf.bias_jacobian",
            ir.Eq(jvp(Y, Z, H), jvp(layer_norm(Z, GAMMA, 0 * ir.ones), Z, H)),
        ),
        "True: $@beta$ is added after everything that depends on $@z$.",
    ),
)
FALSE = (
    Statement(
        (
            "With $@eps > 0$, scaling the input does not change the core: $@u(a @z) = @u(@z)$.",
            "Doubling or tripling every coordinate of $@z$ leaves the core as it is.",
        ),
        Claim("exercise.tf.scale", ir.Eq(core(A * Z), core(Z)), expect="refuted"),
        "False: $P@z$ scales by $a$ but $s = \\sqrt{q + @eps}$ by less, because $@eps$ does "
        "not scale. It would hold for $@eps = 0$.",
        _scaled,
    ),
    Statement(
        (
            "The output $@y = @gamma \\odot @u + @beta$ of the layer always has mean $0$.",
            "Like the core, the layer's output is always centered.",
        ),
        Claim("exercise.tf.output_mean", ir.Eq(ir.mean(Y), 0), expect="refuted"),
        "False: $\\mu(@y) = \\mu(@gamma \\odot @u) + \\mu(@beta)$, and neither term need vanish.",
        _output_mean,
    ),
    Statement(
        (
            "The core always has variance exactly $1$.",
            "Layer normalization standardizes: $q(@u) = 1$ for every non-constant input.",
        ),
        Claim("exercise.tf.core_variance", ir.Eq(ir.var(U), 1), expect="refuted"),
        "False: $q(@u) = q / (q + @eps) < 1$ for every $@eps > 0$.",
        _core_variance,
    ),
    Statement(
        (
            "The gradient of $\\ell$ with respect to the gain is the sum over features "
            "$\\partial \\ell / \\partial \\gamma_i = \\sum_{j} g_j u_j$.",
            "Each entry of $\\partial \\ell / \\partial @gamma$ is $\\sum_j g_j u_j$.",
        ),
        Claim(
            "exercise.tf.gain_sum",
            ir.Eq(vjp(Y, GAMMA, G), ir.dot(G, U) * ir.ones),
            expect="refuted",
        ),
        "False: $\\gamma_i$ touches $y_i$ only, so $\\partial \\ell / \\partial \\gamma_i = "
        "g_i u_i$; a sum is right only over positions that share $@gamma$.",
        _gain_sum,
    ),
)


def _frac(a: Fraction, b: Fraction) -> str:
    """``a/b`` as a built-up fraction of two inline rationals."""
    return rf"\frac{{{slash(a)}}}{{{slash(b)}}}"


def true_or_false(draft: Draft) -> None:
    """Four statements, two true and two false, each decided by the engines."""
    rng, d = draft.rng, draft.d
    z, eps, a = nice.scalable_input(rng, d, draft.novelty)
    gamma, g = nice.gain(rng, d), nice.upstream(rng, d)
    beta = nice.small_vector(rng, d, 2)
    while cf.quantities(z, eps, gamma, beta)["output_mean"] == 0:
        beta = nice.small_vector(rng, d, 2)  # so that the output's mean shows the point
    draft.given(z=z, eps=eps, a=Fraction(a), gamma=gamma, beta=beta, g=g)
    f = cf.quantities(z, eps, gamma, beta, upstream=g)
    draft.explain_eps(f["variance"], eps, f["scale"])
    chosen = rng.sample(TRUE, 2) + rng.sample(FALSE, 2)
    rng.shuffle(chosen)
    draft.setting = prose(
        draft.pick("Decide whether each statement is true or false.", "True or false?")
        + " Justify each answer by a short argument, or by a counterexample computed at "
        + listing(
            [
                f"$d = {d}$",
                f"$@z = {_vi(z)}$",
                f"$@eps = {_n(eps)}$",
                f"$a = {a}$",
                f"$@gamma = {_vi(gamma)}$",
                f"$@beta = {_vi(beta)}$",
                f"$@g = {_vi(g)}$",
            ]
        )  # fmt: skip
        + "."
    )
    for statement in chosen:
        draft.statement(statement.claim)
        lines = statement.witness(draft, f) if statement.witness is not None else []
        verdict = "refute" if statement.claim.expect == "refuted" else "prove"
        draft.part(
            draft.pick(*statement.wordings),
            lines,
            f"{statement.reason} (lnsym's engines {verdict} the statement for general $d$.)",
        )


#: Realistic ε whose square roots are exact: 10⁻², 10⁻⁴, 10⁻⁶.
PRACTICAL = tuple(Fraction(1, 10**k) for k in (2, 4, 6))


def epsilon(draft: Draft) -> None:
    """A realistic ε: the bound 1/√ε, the core variance of ordinary and of tiny inputs."""
    rng, d = draft.rng, draft.d
    eps = rng.choice(PRACTICAL)
    e = cf.rational_sqrt(eps)
    z = nice.small_vector(rng, d, 3)
    while cf.variance(z) == 0:
        z = nice.small_vector(rng, d, 3)
    flat = cf.vec([nice.nonzero(rng, 5)] * d)
    h = nice.centered_direction(rng, d)
    t = e * rng.choice((Fraction(1, 2), Fraction(1), Fraction(2)))  # q(tz) comparable to ε
    draft.given(z=z, eps=eps, v=flat, h=h, t=t)
    draft.setting = prose(
        f"Let $d = {d}$. In practice $@eps$ is small: PyTorch uses $10^{{-5}}$ by default. "
        f"Here take $@eps = {_n(eps)}$, a realistic value whose square root "
        f"${_n(e)}$ is exact."
    )
    bound = draft.answer(
        "bound", 1 / e, ir.norm(jvp(core(V), V, H)) / ir.norm(H)
    )  # at the constant input v
    draft.part(
        draft.pick(
            f"At the constant input $@v = {_vi(flat)}$, the core is most sensitive. Compute "
            f"$\\lVert J @h \\rVert / \\lVert @h \\rVert$ for $@h = {_vi(h)}$.",
            f"How strongly can the core amplify a small change? Compute the ratio "
            f"$\\lVert J @h \\rVert / \\lVert @h \\rVert$ at $@v = {_vi(flat)}$ for "
            f"$@h = {_vi(h)}$.",
        ),
        [
            (r"P@v", r"0, \quad q(@v) = 0, \quad s = \sqrt{@eps}" + f" = {_n(e)}"),
            (r"J", r"P / s \quad (\text{as } @u = 0)"),
            (r"J @h", r"@h / s \quad (\text{as } P@h = @h)"),
            (r"\lVert J @h \rVert / \lVert @h \rVert", rf"1 / \sqrt{{@eps}} = {_n(bound)}"),
        ],
        "This is the largest amplification anywhere, $1 / \\sqrt{@eps}$. At PyTorch's "
        "default $10^{-5}$ it is about $316$: a tiny $@eps$ makes near-constant inputs very "
        "sensitive.",
        hint="At a constant input $P@v = 0$, so $@u = 0$ and $J = P / s$.",
    )
    # s = √(q + ε) is irrational here; q(u) = q/(q + ε) is not.
    q = draft.answer("variance", cf.variance(z), ir.var(Z))
    r = draft.answer("core_variance", cf.normalized_variance(q, eps), ir.var(U))
    draft.part(
        f"For the input $@z = {_vi(z)}$, compute $q$ and the core variance $q(@u)$. How far "
        "is it from $1$?",
        [
            (r"q", _n(q)),
            (r"q(@u)", rf"\frac{{q}}{{q + @eps}} = {_frac(q, q + eps)} = {_n(r)}"),
            (r"1 - q(@u)", rf"\frac{{@eps}}{{q + @eps}} = {_n(1 - r)}"),
        ],
        "For an ordinary input the realistic $@eps$ is negligible: the core is standardized "
        "up to a tiny relative error. Note that $s = \\sqrt{q + @eps}$ is irrational here, "
        "which is why the other exercises choose $@eps$ to make $q + @eps$ a square.",
        hint="$q(@u) = q / (q + @eps)$; you do not need $s$.",
    )  # fmt: skip
    small = cf.times(t, z)
    q_t = cf.variance(small)
    r_t = draft.answer("small_core_variance", cf.normalized_variance(q_t, eps), ir.var(core(t * Z)))
    draft.part(
        f"Now shrink the input to $t @z$ with $t = {_n(t)}$. What is the core variance now?",
        [
            (r"q(t @z)", rf"t^2 q = {_n(q_t)}"),
            (r"q(@u(t @z))", rf"\frac{{q(t @z)}}{{q(t @z) + @eps}} = {_n(r_t)}"),
        ],
        "When the spread of the input is comparable to $\\sqrt{@eps}$, the core is far from "
        "standardized: $@eps$ decides how small a spread still counts as signal.",
        hint="$q(t @z) = t^2 q$.",
    )
