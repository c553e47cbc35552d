"""Certificates for inequalities, sign rules, and derivations."""

from __future__ import annotations

import pytest
import sympy

from lnsym import Eq, Le, center, core, d, dot, eps, jvp, mean, norm, scalar, var, vector
from lnsym.checking.proof import Derivation, Step, prove_inequality
from lnsym.engines.general import GeneralEngine
from lnsym.errors import ExpressionError
from lnsym.ir.signs import NONNEGATIVE, POSITIVE, UNKNOWN, sign

z, h, a = vector("z"), vector("h"), vector("a")
c = scalar("c")
k = scalar("k", positive=True)
u, q = core(z), var(z)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (eps, POSITIVE),
        (d, POSITIVE),
        (k, POSITIVE),
        (c, UNKNOWN),
        (sympy.Integer(-1) * eps, UNKNOWN),
        (dot(z, z), NONNEGATIVE),
        (dot(z, h), UNKNOWN),
        (dot(z * h, h * z), NONNEGATIVE),
        (mean(z * z), NONNEGATIVE),
        (mean(z), UNKNOWN),
        (var(z), NONNEGATIVE),
        (norm(z), NONNEGATIVE),
        (c**2, NONNEGATIVE),
        (mean(z) ** 2, NONNEGATIVE),
        (mean(z) ** 3, UNKNOWN),
        (1 / (var(z) + eps), POSITIVE),
        (1 / var(z), UNKNOWN),
        (var(z) + eps, POSITIVE),
        (var(z) - eps, UNKNOWN),
        (dot(center(z), center(z)) / d, NONNEGATIVE),
        (jvp(dot(z, z), z, h), UNKNOWN),
    ],
)
def test_sign_rules(expression, expected):
    from lnsym.ir import as_scalar

    assert sign(as_scalar(expression)) == expected


SENSITIVITY = [
    norm(h) ** 2 * q / (eps * (q + eps)),
    d * mean(h) ** 2 / (q + eps),
    dot(u, h) ** 2 * (q + 2 * eps) / (d * (q + eps) ** 2),
]
JH2 = norm(jvp(u, z, h)) ** 2


def test_the_sensitivity_certificate_proves_the_bound():
    outcome = prove_inequality(Le(JH2, norm(h) ** 2 / eps, SENSITIVITY), (), GeneralEngine())
    assert outcome.proved
    assert "t3 nonnegative" in outcome.detail


def test_a_certificate_missing_a_term_fails_the_identity():
    outcome = prove_inequality(Le(JH2, norm(h) ** 2 / eps, SENSITIVITY[:2]), (), GeneralEngine())
    assert not outcome.proved
    assert "certificate identity fails" in outcome.detail


def test_a_term_of_unknown_sign_is_rejected():
    # Moving a term's sign into the certificate keeps the identity but breaks the sign check.
    tampered = Le(JH2 - mean(h) ** 2, norm(h) ** 2 / eps - mean(h) ** 2, SENSITIVITY)
    assert prove_inequality(tampered, (), GeneralEngine()).proved
    wrong_sign = Le(mean(z), mean(z) + mean(h), [mean(h)])
    outcome = prove_inequality(wrong_sign, (), GeneralEngine())
    assert not outcome.proved
    assert "sign not established" in outcome.detail


def test_a_false_bound_cannot_be_certified():
    # ‖Jh‖² ≤ ‖h‖²/(q + ε) is false in general (take h ∝ 1 + Pz ... the mean term matters)
    outcome = prove_inequality(Le(norm(h) ** 2 / eps, JH2, SENSITIVITY), (), GeneralEngine())
    assert not outcome.proved


def test_no_certificate_means_not_proved():
    outcome = prove_inequality(Le(0, var(z)), (), GeneralEngine())
    assert not outcome.proved
    assert "no certificate" in outcome.detail


def test_derivation_links_and_conclusion():
    chain = Derivation(
        "t.chain",
        "chain",
        var(z + c * ones_()),
        [
            Step(dot(center(z), center(z)) / d, "P1 = 0"),
            Step(dot(center(z), center(z)) / d + mean(h) ** 2, "add a square", "≤", [mean(h) ** 2]),
        ],
    )
    links = chain.links()
    assert isinstance(links[0], Eq) and isinstance(links[1], Le)
    assert links[1].certificate == (mean(h) ** 2,)
    assert isinstance(chain.conclusion(), Le)


def ones_():
    from lnsym import ones

    return ones


def test_malformed_steps_are_refused():
    with pytest.raises(ExpressionError):
        Step(var(z), "why", relation="<")
    with pytest.raises(ExpressionError):
        Derivation("t.empty", "empty", var(z), [])
