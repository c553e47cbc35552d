"""Sensitivity

How much can the core amplify a small change of its input? The Jacobian bound
‖J h‖² ≤ ‖h‖²/ε holds for every input z and direction h, so the operator norm of J never
exceeds 1/√ε, and with fixed gains the full output is bounded by max|γᵢ|/√ε. The bound is
sharp: at a constant input the core is zero and J acts on centered directions as 1/√ε.
The inequality is proved from an explicit certificate whose every term is checked to be
nonnegative.
"""

from lnsym import Eq, Le, centered, core, d, dot, eps, jvp, mean, norm, ones, scalar, var, vector
from lnsym.checking.claims import Claim
from lnsym.checking.lemmas import MEAN_VALUE_INEQUALITY
from lnsym.checking.proof import Derivation, Step, by_lemma

z, h = vector("z"), vector("h")
c = scalar("c")
u = core(z)
q = var(z)
Jh = jvp(u, z, h)

# ‖h‖²/ε − ‖Jh‖² written as a sum of manifestly nonnegative terms.
CERTIFICATE = [
    norm(h) ** 2 * q / (eps * (q + eps)),
    d * mean(h) ** 2 / (q + eps),
    dot(u, h) ** 2 * (q + 2 * eps) / (d * (q + eps) ** 2),
]

BOUND = Claim(
    "sensitivity.bound",
    Le(norm(Jh) ** 2, norm(h) ** 2 / eps, certificate=CERTIFICATE),
    title="‖J h‖² ≤ ‖h‖²/ε for every z and h, so ‖J‖₂ ≤ 1/√ε",
    source="article, sensitivity paragraph (the uniform bound's display is missing)",
)

CLAIMS = [
    BOUND,
    Claim(
        "sensitivity.lipschitz",
        Le(norm(core(z + h) - u) ** 2, norm(h) ** 2 / eps),
        title="‖u(z + h) − u(z)‖ ≤ ‖h‖/√ε: the core is 1/√ε-Lipschitz",
        source="article, sensitivity paragraph (integrating the derivative bound)",
        proof=by_lemma(MEAN_VALUE_INEQUALITY, BOUND, how="L = 1/√ε, squared"),
    ),
    Claim(
        "sensitivity.finite_ratio_at_constant_input",
        Eq(norm(core(z + h) - u).subs(z, c * ones) ** 2, norm(h) ** 2 / (var(h) + eps)),
        assumptions=[centered(h)],
        title="From a constant input, a centered step h moves the core by ‖h‖/√(q(h) + ε)",
        source="article, finite perturbation check (ratios near 100 and 9.9995)",
    ),
    Claim(
        "sensitivity.attained",
        Eq(norm(Jh).subs(z, c * ones) ** 2, norm(h) ** 2 / eps),
        assumptions=[centered(h)],
        title="At a constant input the bound is attained by every centered direction",
        source="article, sensitivity paragraph (attained at constant inputs, d ≥ 2)",
    ),
]

DERIVATIONS = [
    Derivation(
        "derivation.sensitivity_bound",
        "The uniform sensitivity bound",
        norm(Jh) ** 2,
        [
            Step(
                (norm(h) ** 2 - d * mean(h) ** 2 - dot(u, h) ** 2 * (q + 2 * eps) / (d * (q + eps)))
                / (q + eps),
                "expand ‖(Ph − u⟨u, h⟩/d)/s‖² with ⟨Ph, u⟩ = ⟨h, u⟩ and ‖u‖² = dq/s²",
            ),
            Step(
                norm(h) ** 2 / (q + eps),
                "drop the two subtracted squares",
                relation="≤",
                certificate=[
                    mean(h) ** 2 * d / (q + eps),
                    dot(u, h) ** 2 * (q + 2 * eps) / (d * (q + eps) ** 2),
                ],
            ),
            Step(
                norm(h) ** 2 / eps,
                "q ≥ 0, so q + ε ≥ ε",
                relation="≤",
                certificate=[norm(h) ** 2 * q / (eps * (q + eps))],
            ),
        ],
        source="article, sensitivity paragraph",
    ),
]
