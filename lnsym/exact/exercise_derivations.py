r"""Derivation exercises: show a fact step by step, every step proved by lnsym's engines.

"Show that a common shift changes nothing" and "derive the Jacobian, J1 = 0 and Jᵀ = J":
each answer is a chain of IR expressions (:class:`~lnsym.exact.exercise_proving.Link`)
that the engines prove for every d before the key prints it through the LaTeX printer, and
ends with the fact checked on the exercise's own numbers through the IR
(:meth:`~lnsym.exact.exercise_draft.Draft.answer`).
"""

from __future__ import annotations

from fractions import Fraction

import sympy

import lnsym.exact.closed_form as cf
import lnsym.exact.nice_data as nice
from lnsym import ir
from lnsym.exact.exercise_draft import BETA, GAMMA, Draft, U, Z
from lnsym.exact.exercise_proving import Link
from lnsym.exact.exercise_writing import forward_steps, inline_vector, prose
from lnsym.ir.calculus import jvp
from lnsym.ir.layers import core, layer_norm
from lnsym.printing.numbers import latex_number, latex_vector

_n, _v, _vi = latex_number, latex_vector, inline_vector
C = ir.scalar("c")
A, B = ir.vector("a"), ir.vector("b")
#: s = √(q(z) + ε) and the quantities of the general derivations.
S = (ir.var(Z) + ir.eps) ** sympy.Rational(1, 2)
D = ir.d


def derive_shift(draft: Draft) -> None:
    """μ(z + c1) = μ(z) + c, P(z + c1) = Pz, q(z + c1) = q(z), so u and y do not move."""
    z, eps = nice.nice_input(draft.rng, draft.d, draft.novelty)
    c = Fraction(nice.nonzero(draft.rng, 9))
    draft.given(z=z, eps=eps, c=c)
    show = draft.pick("Show", "Prove", "Derive step by step")
    draft.setting = prose(
        f"{show} that adding the same number $c$ to every coordinate of the input changes "
        "neither the core nor the output of the layer, for every $d$ and every $@eps > 0$.",
    )
    shifted = Z + C * ir.ones
    draft.part(
        f"{show} that $\\mu(@z + c @1) = \\mu(@z) + c$.",
        draft.derive(
            "shift.mean",
            ir.mean(shifted),
            [
                Link(ir.dot(ir.ones, shifted) / D, r"\text{definition of } \mu"),
                Link((ir.dot(ir.ones, Z) + C * D) / D, r"\langle @1, @1 \rangle = d"),
                Link(ir.mean(Z) + C, r"\text{definition of } \mu(@z)"),
            ],
        ),
        hint="Write the mean as an inner product with $@1$; use $\\langle @1, @1 \\rangle = d$.",
    )
    draft.part(
        f"{show} that $P(@z + c @1) = P@z$ and hence $q(@z + c @1) = q(@z)$.",
        draft.derive(
            "shift.center",
            ir.center(shifted),
            [
                Link(shifted - (ir.mean(Z) + C) * ir.ones, r"\text{by (a)}"),
                Link(ir.center(Z), r"\text{the terms } c @1 \text{ cancel}"),
            ],
        )
        + draft.derive(
            "shift.variance",
            ir.var(shifted),
            [
                Link(
                    ir.dot(ir.center(shifted), ir.center(shifted)) / D,
                    r"q = \lVert P \cdot \rVert^2 / d",
                ),
                Link(ir.dot(ir.center(Z), ir.center(Z)) / D, r"P(@z + c @1) = P@z"),
                Link(ir.var(Z), r"\text{definition of } q(@z)"),
            ],
        ),
        hint="$P(@z + c @1) = (@z + c @1) - \\mu(@z + c @1) @1$.",
    )
    draft.part(
        "Conclude that $@u(@z + c @1) = @u(@z)$ and that the output "
        "$@y = @gamma \\odot @u + @beta$ does not change either.",
        draft.derive(
            "shift.core",
            core(shifted),
            [
                Link(
                    ir.center(shifted) / (ir.var(shifted) + ir.eps) ** sympy.Rational(1, 2),
                    r"\text{definition of the core}",
                ),
                Link(ir.center(Z) / S, r"\text{by (b)}"),
                Link(core(Z), r"\text{definition of the core}"),
            ],
        )  # fmt: skip
        + draft.derive(
            "shift.output",
            layer_norm(shifted, GAMMA, BETA),
            [
                Link(GAMMA * core(shifted) + BETA, r"\text{definition of } @y"),
                Link(GAMMA * core(Z) + BETA, r"\text{the core does not move}"),
            ],
        ),
        "Only the mean sees the shift, and the core subtracts the mean before anything else.",
    )
    f = cf.quantities(z, eps)
    moved = cf.add(z, cf.vec([c] * draft.d))
    mu = draft.answer("mean", f["mean"], ir.mean(Z))
    mu_c = draft.answer("shifted_mean", cf.mean(moved), ir.mean(shifted))
    draft.answer("shifted_centered", cf.center(moved), ir.center(shifted))
    u = draft.answer("core", f["core"], U)
    u_c = draft.answer("shifted_core", cf.core(moved, eps), core(shifted))
    draft.explain_eps(f["variance"], eps, f["scale"])
    draft.part(
        f"Check (a)–(c) on $@z = {_vi(z)}$ with $c = {_n(c)}$ and $@eps = {_n(eps)}$.",
        [
            *forward_steps(z, f),
            (r"@z + c @1", _v(moved)),
            (r"\mu(@z + c @1)", rf"{_n(mu)} + ({_n(c)}) = {_n(mu_c)}"),
            (r"P(@z + c @1)", _v(cf.center(moved))),
            (r"@u(@z + c @1)", _v(u_c)),
        ],
        "The same core as before." if u == u_c else "",
    )


def derive_jacobian(draft: Draft) -> None:
    """Jh = (Ph − u⟨u, h⟩/d)/s, then J1 = 0, Jᵀ = J and Jz = ε/(q + ε)·u."""
    z, eps = nice.nice_input(draft.rng, draft.d, draft.novelty, slack=2)
    draft.given(z=z, eps=eps)
    show = draft.pick("Show", "Prove", "Derive")
    draft.setting = prose(
        "Let $J$ be the Jacobian of the core $@u = P@z / s$ at $@z$, for any $d$ and "
        "$@eps > 0$, so that $J @h$ is the derivative of $@u$ in the direction $@h$.",
    )
    s3 = S**3
    draft.part(
        f"{show} that $J @h = (P@h - @u \\langle @u, @h \\rangle / d) / s$.",
        draft.derive(
            "jacobian.direction",
            jvp(U, Z, ir.vector("h")),
            [
                Link(
                    ir.center(ir.vector("h")) / S
                    - ir.center(Z) * ir.dot(ir.center(Z), ir.center(ir.vector("h"))) / (D * s3),
                    r"\text{quotient rule; } q \text{ changes by } "
                    r"2 \langle P@z, P@h \rangle / d",
                ),
                Link(
                    (ir.center(ir.vector("h")) - U * ir.dot(U, ir.vector("h")) / D) / S,
                    r"P@z = s @u,\ \langle @u, P@h \rangle = \langle @u, @h \rangle",
                ),
            ],
        ),
        hint="$P@z$ is linear in $@z$; differentiate $q = \\lVert P@z \\rVert^2 / d$ first, "
        "then $1/s = (q + @eps)^{-1/2}$.",
    )
    draft.part(
        f"{show} that $J @1 = 0$. What does this say about shifting the input?",
        draft.derive(
            "jacobian.ones",
            jvp(U, Z, ir.ones),
            [
                Link(
                    (ir.center(ir.ones) - U * ir.dot(U, ir.ones) / D) / S,
                    r"\text{(a) with } @h = @1",
                ),
                Link(0 * ir.ones, r"P@1 = 0,\ \langle @u, @1 \rangle = d \mu(@u) = 0"),
            ],
        ),  # fmt: skip
        "A first-order shift of every coordinate does not move the core, as the exact "
        "shift invariance predicts.",
        hint="Use (a), $P @1 = 0$ and the fact that the core has mean $0$.",
    )
    draft.part(
        f"{show} that $J$ is symmetric: $\\langle J @a, @b \\rangle = \\langle @a, J @b \\rangle$.",
        draft.derive(
            "jacobian.symmetric",
            ir.dot(jvp(U, Z, A), B),
            [
                Link(
                    (ir.dot(ir.center(A), B) - ir.dot(U, A) * ir.dot(U, B) / D) / S,
                    r"\text{by (a)}",
                ),
                Link(
                    (ir.dot(ir.center(A), ir.center(B)) - ir.dot(U, A) * ir.dot(U, B) / D) / S,
                    r"P^{\top} = P = P^2",
                ),
                Link(ir.dot(A, jvp(U, Z, B)), r"\text{(a) read backwards}"),
            ],
        ),  # fmt: skip
        hint="Expand both sides with (a); the result is symmetric in $@a$ and $@b$.",
    )
    q = ir.var(Z)
    f = cf.quantities(z, eps)
    jz = draft.answer("jacobian_along_input", cf.apply(f["jacobian"], z), jvp(U, Z, Z))
    u = draft.answer("core", f["core"], U)
    draft.explain_eps(f["variance"], eps, f["scale"])
    factor = eps / f["variance_plus_eps"]
    draft.part(
        f"{show} that $J @z = \\frac{{@eps}}{{q + @eps}} @u$, then check it at "
        f"$@z = {_vi(z)}$ with $@eps = {_n(eps)}$. Why does this mean that scaling the input "
        "is not a symmetry?",
        draft.derive(
            "jacobian.input",
            jvp(U, Z, Z),
            [
                Link((ir.center(Z) - U * ir.dot(U, Z) / D) / S, r"\text{(a) with } @h = @z"),
                Link(U * (1 - q / (q + ir.eps)), r"P@z = s @u,\ \langle @u, @z \rangle = d q / s"),
                Link(
                    ir.eps / (q + ir.eps) * U, r"1 - \tfrac{q}{q + @eps} = \tfrac{@eps}{q + @eps}"
                ),
            ],
        )  # fmt: skip
        + [
            *forward_steps(z, f),
            (r"\frac{@eps}{q + @eps}", _n(factor)),
            (r"J @z", rf"{_n(factor)} \cdot {_v(u)} = {_v(jz)}"),
        ],
        "Scaling $@z$ by $1 + t$ moves it by $t @z$, so the core changes at the rate "
        "$J @z \\neq 0$; only for $@eps = 0$ would this vanish.",
        hint="Use (a) with $@h = @z$ and $\\langle @u, @z \\rangle = \\lVert P@z \\rVert^2 / s$.",
    )
