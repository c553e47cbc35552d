"""Tests of the numeric engine: values, derivatives, sampling and evidence."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
import strategies
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lnsym import (
    Claim,
    Eq,
    Le,
    center,
    centered,
    core,
    d,
    diff,
    dimension,
    dimension_at_least,
    dot,
    eps,
    grad,
    ir,
    jvp,
    layer_norm,
    mean,
    nonconstant,
    norm,
    ones,
    opnorm,
    orthogonal,
    scalar,
    var,
    vector,
    vjp,
)
from lnsym.checking.budget import time_budget
from lnsym.checking.catalog import load
from lnsym.checking.claims import derivation_claims
from lnsym.engines.base import Outcome
from lnsym.engines.numeric import matrices
from lnsym.engines.numeric.batch import Evaluator
from lnsym.engines.numeric.comparison import Sample, compare
from lnsym.engines.numeric.dual import Dual
from lnsym.engines.numeric.engine import SamplePoint, evaluate, evidence, jacobian, lipschitz_ratio
from lnsym.engines.numeric.environment import Env, Status
from lnsym.engines.numeric.norms import top_eigenvalue
from lnsym.engines.numeric.sampling import Sampler
from lnsym.errors import BudgetExceeded, DomainError, UnsupportedError, UserInputError
from lnsym.ir.matrices import has_matrices

z, h, k, a, b, g = (vector(n) for n in ("z", "h", "k", "a", "b", "g"))
gamma, beta = vector("gamma"), vector("beta")
c = scalar("c")
c_pos = scalar("c", positive=True)
u = core(z)
s = (var(z) + eps) ** sympy.Rational(1, 2)
F64_TOLERANCE = math.sqrt(np.finfo(np.float64).eps / 2)
F32_TOLERANCE = math.sqrt(np.finfo(np.float32).eps / 2)


def at(eps_value: float | None = None, **vectors: list[float] | np.ndarray) -> SamplePoint:
    """A float64 point from keyword vectors and an optional ε."""
    size = len(next(iter(vectors.values())))
    scalars = {} if eps_value is None else {eps: eps_value}
    return SamplePoint(size, {name: np.asarray(v, float) for name, v in vectors.items()}, scalars)


def closed_form_jacobian(x: np.ndarray, eps_value: float) -> np.ndarray:
    """J = (P − uuᵀ/d)/s computed directly with numpy."""
    size = len(x)
    centered_x = x - x.mean()
    root = math.sqrt(centered_x @ centered_x / size + eps_value)
    unit = centered_x / root
    projector = np.eye(size) - 1 / size
    return (projector - np.outer(unit, unit) / size) / root


# ---------------------------------------------------------------------------------------
# Values


def test_article_core_examples() -> None:
    third = 1 / 3
    np.testing.assert_allclose(evaluate(u, at(third, z=[1, 2, 3])), [-1, 0, 1], atol=1e-15)
    np.testing.assert_allclose(evaluate(u, at(third, z=[101, 102, 103])), [-1, 0, 1], atol=1e-14)
    expected = np.array([-4.0, -1.0, 5.0]) / math.sqrt(17)
    np.testing.assert_allclose(evaluate(u, at(third, z=[1, 2, 4])), expected, rtol=1e-15)
    # ε given exactly in the expression instead of as a sampled scalar
    exact = core(z, sympy.Rational(1, 3))
    np.testing.assert_allclose(evaluate(exact, at(z=[1, 2, 4])), expected, rtol=1e-15)


def test_scalars_and_statistics() -> None:
    point = at(z=[1.0, 2.0, 6.0])
    assert evaluate(mean(z), point) == 3.0
    assert evaluate(var(z), point) == pytest.approx(14 / 3, rel=1e-15)
    assert evaluate(norm(z), point) == pytest.approx(math.sqrt(41), rel=1e-15)
    assert evaluate(d * mean(z), point) == 9.0
    np.testing.assert_array_equal(evaluate(center(z), point), [-2.0, -1.0, 3.0])


def test_shift_invariance_at_offset_1e8_thanks_to_two_passes() -> None:
    rng = np.random.default_rng(7)
    x = rng.standard_normal(16)
    point = SamplePoint(16, {"z": x}, {eps: 1e-3, c: 1e8})
    shifted, plain = evaluate(core(z + c * ones), point), evaluate(u, point)
    assert np.max(np.abs(shifted - plain)) < 1e-7 * np.max(np.abs(plain))
    q_shifted, q_plain = evaluate(var(z + c * ones), point), evaluate(var(z), point)
    assert abs(q_shifted - q_plain) < 1e-7 * q_plain
    # The one-pass formula E[z²] − E[z]² on the same shifted data loses every digit.
    y = x + 1e8
    one_pass = np.mean(y * y) - np.mean(y) ** 2
    assert abs(one_pass - q_plain) > 1e-2 * q_plain


def test_finite_perturbation_ratio_at_a_constant_input() -> None:
    step = np.array([1e-3, -1e-3])
    # u(z + h) = h/√(q(h) + ε) with q(h) = 1e-6, so the ratio is 1/√(1e-6 + ε).
    ratio = lipschitz_ratio(u, z, at(1e-4, z=[7, 7]), step)
    assert ratio == pytest.approx(100 / math.sqrt(1.01), rel=1e-9)  # 99.5037…, bound 100
    assert ratio < 100
    ratio = lipschitz_ratio(u, z, at(1e-2, z=[7, 7]), step)
    assert ratio == pytest.approx(10 / math.sqrt(1.0001), rel=1e-9)  # 9.99950…, bound 10
    assert round(ratio, 4) == 9.9995


def test_lipschitz_ratio_rejects_a_zero_step() -> None:
    with pytest.raises(UserInputError):
        lipschitz_ratio(u, z, at(1e-2, z=[7, 7]), np.zeros(2))


def test_substitutions() -> None:
    point = SamplePoint(3, {"z": np.array([1.0, 2.0, 6.0]), "h": np.array([1.0, -3.0, 2.0])})
    point.scalars = {eps: 0.25, c: 5.0}
    at_constant = norm(jvp(u, z, h)).subs(z, c * ones)
    assert evaluate(at_constant, point) == pytest.approx(math.sqrt(14) / 0.5, rel=1e-14)
    assert evaluate((c * mean(z)).subs(c, 2), point) == pytest.approx(6.0, rel=1e-15)


# ---------------------------------------------------------------------------------------
# Derivatives


@pytest.mark.parametrize("size", [2, 5, 16, 768])
def test_jacobian_matches_the_closed_form(size: int) -> None:
    rng = np.random.default_rng(size)
    x, eps_value = 3 * rng.standard_normal(size) + 1, 0.05
    computed = jacobian(u, z, at(eps_value, z=x))
    expected = closed_form_jacobian(x, eps_value)
    assert computed.shape == (size, size)
    assert np.max(np.abs(computed - expected)) <= 1e-13 * np.max(np.abs(expected))


def test_jacobian_of_a_scalar_is_a_row() -> None:
    np.testing.assert_array_equal(jacobian(mean(z), z, at(z=[1.0, 4.0, 9.0, 0.0])), [[0.25] * 4])


def test_directional_derivatives_and_gradients() -> None:
    rng = np.random.default_rng(3)
    x, dx, up = rng.standard_normal(6), rng.standard_normal(6), rng.standard_normal(6)
    gains = rng.standard_normal(6)
    point = SamplePoint(6, {"z": x, "h": dx, "g": up, "gamma": gains, "beta": up}, {eps: 0.1})
    J = closed_form_jacobian(x, 0.1)
    np.testing.assert_allclose(evaluate(jvp(u, z, h), point), J @ dx, rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(evaluate(vjp(u, z, g), point), J.T @ up, rtol=1e-13, atol=1e-15)
    y = layer_norm(z, gamma, beta)
    np.testing.assert_allclose(
        evaluate(vjp(y, z, g), point), J.T @ (gains * up), rtol=1e-13, atol=1e-15
    )
    np.testing.assert_allclose(evaluate(grad(dot(y, y) / 2, beta), point), evaluate(y, point))


FORWARD = [
    u,
    layer_norm(z, gamma, beta),
    var(z) ** 3 * z,
    (mean(z * z) + eps) ** sympy.Rational(-1, 2) * (gamma * z),
    dot(z, gamma) / (var(z) + eps) * ones + core(z + c * ones),
    mean(core(z)) + norm(z) ** sympy.Rational(3, 2),
]


@pytest.mark.parametrize("f", FORWARD, ids=str)
@pytest.mark.parametrize("size", [1, 4, 64])
def test_forward_mode_jacobians_agree_with_the_complex_step(f: ir.Expr, size: int) -> None:
    # Duals (the primal once, tangents along each direction) against the complex step
    # along the same directions: the same derivatives, and bounds of the same size.
    rng = np.random.default_rng(size)
    vectors = {n: rng.standard_normal((5, size)) + 2 for n in ("z", "gamma", "beta")}
    scalars = {eps: np.full(5, 0.1), c: np.full(5, 1e3)}
    env = Env(
        size,
        5,
        {n: (v, 0.0) for n, v in vectors.items()},
        {k: (v, 0.0) for k, v in scalars.items()},
        np.dtype(np.float64),
        True,
    )
    evaluator = Evaluator(env, Status(5))
    basis = np.eye(size).reshape(size, 1, size)
    with np.errstate(all="ignore"):
        forward, forward_bound = evaluator._tangents(f, z, basis)
        step, step_bound = evaluator.directional(f, z, (basis, 0.0))
    assert not np.any(evaluator.status.code)
    scale = np.max(np.abs(step))
    np.testing.assert_allclose(forward, step, rtol=0, atol=1e-13 * scale)
    ours, theirs = (np.broadcast_to(b, np.shape(step)) for b in (forward_bound, step_bound))
    floor = 1e-20 * scale  # (both 0 where a value is exact, e.g. core at d = 1)
    assert np.all(ours <= 4 * theirs + floor) and np.all(theirs <= 4 * ours + floor)


@settings(max_examples=40, deadline=None)
@given(f=strategies.expressions, size=st.sampled_from([1, 3, 8]))
def test_forward_mode_and_the_complex_step_agree_on_any_expression(f: ir.Expr, size: int) -> None:
    rng = np.random.default_rng(size)
    vectors = {n: (rng.standard_normal((4, size)), 0.0) for n in ("z", "h", "a")}
    scalars = {eps: (np.full(4, 0.5), 0.0), strategies.c: (np.full(4, 1.5), 0.0)}
    env = Env(size, 4, vectors, scalars, np.dtype(np.float64), True)
    forward, step = Evaluator(env, Status(4)), Evaluator(env, Status(4))
    basis = np.eye(size).reshape(size, 1, size)
    with np.errstate(all="ignore"):
        ours, _ = forward._tangents(f, strategies.z, basis)
        theirs, _ = step.directional(f, strategies.z, (basis, 0.0))
    np.testing.assert_array_equal(forward.status.code, step.status.code)
    ok = forward.status.code == 0
    shape = (size, 4) + ((size,) if f.kind == "vector" else ())  # direction, sample, …
    ours, theirs = (np.broadcast_to(x, shape) for x in (ours, theirs))
    scale = max(1.0, float(np.max(np.abs(theirs[:, ok]), initial=0.0)))
    np.testing.assert_allclose(ours[:, ok], theirs[:, ok], rtol=0, atol=1e-10 * scale)


def _forward_vjp(evaluator: Evaluator, f: ir.Expr, cotangent: np.ndarray) -> tuple[Any, Any]:
    """Jᵀg from the Jacobian in forward mode, as the interpreter took it before reverse mode,
    with the bound of the contraction (the rules of the interpreter's own products and sums)."""
    if f.kind == "scalar":
        return evaluator.jacobian(f, strategies.z)
    transposed = evaluator.jacobian(f, strategies.z, transposed=True)
    return evaluator._sum(evaluator._mul(transposed, (cotangent[..., None, :], 0.0)))


@settings(max_examples=60, deadline=None)
@given(
    f=strategies.expressions,
    size=st.sampled_from([1, 2, 3, 8]),
    offset=st.sampled_from([0.0, 1e8]),
)
def test_reverse_mode_agrees_with_forward_mode_on_any_expression(
    f: ir.Expr, size: int, offset: float
) -> None:
    # vjp and grad by their adjoint expression against the forward-mode Jacobian: the same
    # samples flagged, and — both bounds being sound — values within the sum of the bounds.
    rng = np.random.default_rng(size)
    vectors = {n: (rng.standard_normal((4, size)) + offset, 0.0) for n in ("z", "h", "a")}
    scalars = {eps: (np.full(4, 0.5), 0.0), strategies.c: (np.full(4, 1.5), 0.0)}
    env = Env(size, 4, vectors, scalars, np.dtype(np.float64), True)
    reverse, forward = Evaluator(env, Status(4)), Evaluator(env, Status(4))
    g = rng.standard_normal((4, size))
    cotangent = None if f.kind == "scalar" else ir.VectorAtom("g")  # None: the gradient
    reverse.env.vectors["g"] = forward.env.vectors["g"] = (g, 0.0)
    with np.errstate(all="ignore"):
        pulled = reverse.pulled_back(f, strategies.z, cotangent)
        assert pulled is not None
        theirs, their_bound = _forward_vjp(forward, f, g)
    ours, our_bound = pulled
    np.testing.assert_array_equal(reverse.status.code, forward.status.code)
    ok = reverse.status.code == 0
    shape = (4, size)
    ours, theirs, our_bound, their_bound = (
        np.broadcast_to(x, shape)[ok] for x in (ours, theirs, our_bound, their_bound)
    )
    assert np.all(np.abs(ours - theirs) <= our_bound + their_bound), (ours, theirs)


def test_reverse_mode_keeps_the_accuracy_of_centered_derivatives() -> None:
    # ∇var(z) = (2/d)·P z at an offset of 1e8: the rounding of the mean leaves an error
    # along 1 in center(z) (≈ 1e-8); a second centering removes it, as forward mode's
    # centered tangents did, so the bound stays far below the tolerance.
    x = 1e8 + np.array([0.5, -1.25, 2.0, 0.125])
    point = at(z=x)
    value, bound = _bound(grad(var(z), z), point)
    exact = 2 * (np.array([0.5, -1.25, 2.0, 0.125]) - 0.34375) / 4
    assert np.all(np.abs(value - exact) <= bound)
    _, once = _bound(2 / d * center(z), point)  # centered once: the mean's error stays
    assert np.max(once) >= 1e-9 and np.max(bound) <= 1e-6 * np.max(once)


def test_a_jacobian_whose_bounds_have_a_sample_axis_and_its_tangents_none() -> None:
    # The tangents of mean(z + z) are constants, without a sample axis; their rounding
    # bounds have one: the Jacobian took its shape from the tangents alone and failed to
    # broadcast the bounds (the numeric engine's evidence was an internal error).
    points = [at(z=[1.0, 2.0, 3.5]), at(z=[1e8, -3.0, 0.25])]
    evaluator = Evaluator(Env.of(points, track=True), Status(2))
    value, bound = evaluator.jacobian(mean(z + z), z)
    np.testing.assert_array_equal(value, np.full((2, 3), 2 / 3))
    assert np.shape(bound) == (2, 3) and np.all(bound > 0)
    claim = Claim("linear", Eq(opnorm(mean(z + z) * ones, z), 2))
    assert evidence(claim, samples=20).outcome == Outcome.CONSISTENT


def test_vjp_and_grad_are_taken_in_reverse_mode_where_they_can_be() -> None:
    claim = Claim("back", Eq(vjp(core(z), z, g), jvp(core(z), z, g)))
    assert evidence(claim, samples=4).data["method"] == "complex step; reverse mode (adjoint)"
    inner = jvp(core(z), z, h)
    nested = Claim("nested", Eq(grad(dot(g, inner), z), vjp(inner, z, g)))
    method = evidence(nested, samples=4).data["method"]  # a derivative inside: no adjoint
    assert method == "Ridders central differences; complex step"
    norm_claim = Claim("norm", Eq(opnorm(core(z), z), s**-1))
    assert evidence(norm_claim, samples=4).data["method"] == "forward mode (dual numbers)"


def test_a_dual_refuses_what_it_does_not_follow() -> None:
    x = Dual(np.array([1.0, 4.0]), np.eye(2))
    for operation in (np.abs, np.exp, np.asarray, lambda v: v < 0, lambda v: 2.0**v):
        with pytest.raises(TypeError):
            operation(x)
    with pytest.raises(TypeError):
        x + np.array([1j, 0])  # the complex step and Duals do not mix


def test_a_derivative_through_a_substituted_scalar_sees_every_function_of_it() -> None:
    # |t| at t = mean(z): |t + iτ| is real, so a complex step would lose the derivative
    # through it (it did: J was 3·I), and Duals do not follow |·|: central differences.
    t = scalar("t")
    f = (abs(t) * z).subs(t, mean(z))
    point = at(z=[1.0, 2.0, 6.0], h=[1.0, -2.0, 0.5])
    expected = np.eye(3) * 3 + np.outer(point.vectors["z"], np.ones(3)) / 3
    np.testing.assert_allclose(jacobian(f, z, point), expected, rtol=1e-9)
    np.testing.assert_allclose(
        evaluate(jvp(f, z, h), point), expected @ point.vectors["h"], rtol=1e-9
    )
    # The same through a scalar moved by a scalar derivative: ∂_c[|t|·z at t = c²].
    moved = SamplePoint(3, {"z": np.array([1.0, 2.0, 6.0])}, {c: -1.5})
    through = diff((abs(t) * z).subs(t, c * c), c)
    np.testing.assert_allclose(evaluate(through, moved), -3.0 * moved.vectors["z"], rtol=1e-9)
    claim = Claim("through", Eq(vjp(f, z, h), jvp(f, z, h)))
    assert "Ridders central differences" in evidence(claim, samples=4).data["method"]


def _scalar_evaluator(**values: list[float]) -> Evaluator:
    """An evaluator with error bounds at points given by the values of scalars."""
    scalars = {scalar(name): (np.array(v), 0.0) for name, v in values.items()}
    n = len(next(iter(values.values())))
    env = Env(1, n, {}, scalars, np.dtype(np.float64), True)
    return Evaluator(env, Status(n))


def test_derivatives_in_every_scalar_at_once_are_those_taken_one_at_a_time() -> None:
    # The entries of a gradient in a matrix: one forward pass for all of them, against a
    # complex step for each (what an expression where that pass does not apply still gets).
    p, q, r = scalar("p"), scalar("q"), scalar("r")
    f = ir.as_scalar(sympy.sqrt(p**2 + q * r + 3) / (p - 2 * r) + q**3)
    evaluator = _scalar_evaluator(p=[0.5, -1.0, 3.0], q=[2.0, 0.25, -1.5], r=[1.0, 4.0, 0.5])
    index, (tangents, bounds), _ = evaluator._scalar_tangents(f)
    for sym in (p, q, r):
        tau = np.full(3, 2.0**-333)
        env = evaluator.env.with_scalar(sym, (evaluator.env.scalars[sym][0] + 1j * tau, 0.0))
        step, step_bound = evaluator._imaginary_part(f, env, tau)
        np.testing.assert_allclose(tangents[index[sym]], step, rtol=1e-14)
        assert np.all(bounds[index[sym]] <= 4 * step_bound) and np.all(
            step_bound <= 4 * bounds[index[sym]]
        )
        assert np.array_equal(evaluator.get(diff(f, sym))[0], tangents[index[sym]])
    assert not np.any(evaluator.status.code)


def test_a_function_of_another_scalar_keeps_its_derivatives_one_at_a_time() -> None:
    # min(a, 1) is not analytic, and no SymPy Function: Duals do not enter it, so ∂/∂b of
    # min(a, 1)·b + b² is the complex step in b, with a as a number.
    a, b = scalar("a"), scalar("b")
    f = ir.as_scalar(sympy.Min(a, 1) * b + b**2)
    assert _scalar_evaluator(a=[0.5], b=[2.0])._scalar_tangents(f) is None
    point = SamplePoint(1, {}, {a: 0.5, b: 2.0})
    assert evaluate(diff(f, b), point) == pytest.approx(0.5 + 4, rel=1e-14)


def test_duals_follow_analytic_functions_of_the_scalars() -> None:
    # exp, sin, atan2 by their derivatives (and their bounds by the second ones): the same
    # derivatives as the complex step in each scalar, with bounds of the same size.
    a, b = scalar("a"), scalar("b")
    f = ir.as_scalar(sympy.exp(a) * b**2 + sympy.sin(a * b) + sympy.atan2(a, b**2 + 1))
    evaluator = _scalar_evaluator(a=[0.5, -2.0, 0.0], b=[2.0, 0.25, 3.0])
    index, (tangents, bounds), _ = evaluator._scalar_tangents(f)
    for sym in (a, b):
        tau = np.full(3, 2.0**-333)
        env = evaluator.env.with_scalar(sym, (evaluator.env.scalars[sym][0] + 1j * tau, 0.0))
        step, step_bound = evaluator._imaginary_part(f, env, tau)
        np.testing.assert_allclose(tangents[index[sym]], step, rtol=1e-14)
        assert np.all(bounds[index[sym]] <= 4 * step_bound + 1e-300)
        assert np.all(step_bound <= 4 * bounds[index[sym]] + 1e-300)
    x, y = 0.5, 2.0
    expected = math.exp(x) * y**2 + y * math.cos(x * y) + (y**2 + 1) / ((y**2 + 1) ** 2 + x**2)
    point = SamplePoint(1, {}, {a: x, b: y})
    assert evaluate(diff(f, a), point) == pytest.approx(expected, rel=1e-14)


def test_a_flag_along_some_directions_only_takes_them_one_at_a_time() -> None:
    # √(a² + b) at a = b = 0: moving b leaves the root's domain, moving a does not (its
    # base moves by 2a = 0). All directions at once would flag both: one at a time.
    a, b = scalar("a"), scalar("b")
    f = ir.as_scalar(sympy.sqrt(a**2 + b))
    assert _scalar_evaluator(a=[0.0], b=[0.0])._scalar_tangents(f) is None
    assert _scalar_evaluator(a=[2.0], b=[1.0])._scalar_tangents(f) is not None
    point = SamplePoint(1, {}, {a: 0.0, b: 1.0})
    assert evaluate(diff(f, a), point) == 0.0 and evaluate(diff(f, b), point) == 0.5
    with pytest.raises(DomainError, match="not differentiable at 0"):
        evaluate(diff(f, b), SamplePoint(1, {}, {a: 0.0, b: 0.0}))


def test_operator_norm_by_dimension() -> None:
    rng = np.random.default_rng(5)
    for size in (3, 8):
        x = rng.standard_normal(size)
        point = at(0.3, z=x)
        expected = 1 / math.sqrt(np.var(x) + 0.3)
        assert evaluate(opnorm(u, z), point) == pytest.approx(expected, rel=1e-13)
    # d = 2: the only centered direction is u itself, with eigenvalue ε/((q + ε)s) < 1/s.
    point = at(0.3, z=[1.0, 2.0])
    q = 0.25
    expected = 0.3 / ((q + 0.3) * math.sqrt(q + 0.3))
    assert evaluate(opnorm(u, z), point) == pytest.approx(expected, rel=1e-13)


def test_nested_derivatives_use_ridders_central_differences() -> None:
    second = jvp(jvp(var(z), z, h), z, k)
    rng = np.random.default_rng(11)
    x, dx, dy = (rng.standard_normal(5) for _ in range(3))
    point = at(z=x, h=dx, k=dy)
    expected = 2 * (dx - dx.mean()) @ dy / 5
    assert evaluate(second, point) == pytest.approx(expected, rel=1e-7)
    good = evidence(Claim("hessian.var", Eq(second, 2 * dot(center(h), k) / d)), samples=20)
    assert good.outcome == "consistent"
    assert "Ridders" in good.data["method"]
    bad = evidence(Claim("hessian.var.bad", Eq(second, 2 * dot(h, k) / d)), samples=20)
    assert bad.outcome == "counterexample"


# ---------------------------------------------------------------------------------------
# Evidence


def _catalog_claims() -> list[Claim]:
    claims: list[Claim] = []
    for section in load():
        claims.extend(section.claims)
        for derivation in section.derivations:
            claims.extend(derivation_claims(derivation))
    return claims


@pytest.mark.parametrize("claim", _catalog_claims(), ids=lambda claim: claim.id)
def test_catalog_claims_get_the_expected_outcome(claim: Claim) -> None:
    if has_matrices(claim.statement):  # checked entry by entry at small (n, d, m)
        result = matrices.evidence(claim, samples=24, seed=0)
    else:
        result = evidence(claim, samples=24)
    expected = "consistent" if claim.expect == "holds" else "counterexample"
    assert result.outcome == expected, result.detail
    assert result.engine == "numeric" and result.data["exact"] is False


FALSE_STATEMENTS = [
    Claim("false.along_input", Eq(jvp(u, z, z), 0)),
    Claim("false.scale", Eq(core(c_pos * z), u)),
    Claim("false.unit_variance", Eq(var(layer_norm(z, gamma, beta)), 1)),
    Claim("false.zero_mean", Eq(mean(layer_norm(z, gamma, beta)), 0)),
    Claim("false.gain_summed", Eq(vjp(layer_norm(z, gamma, beta), gamma, g), dot(g, u) * ones)),
]


@pytest.mark.parametrize("claim", FALSE_STATEMENTS, ids=lambda claim: claim.id)
def test_false_statements_get_a_reproducible_counterexample(claim: Claim) -> None:
    result = evidence(claim, samples=40)
    assert result.outcome == "counterexample"
    sample = result.data["sample"]
    assert result.data["exact"] is False
    assert sample["error"] > result.data["tolerance"] == F64_TOLERANCE
    symbols = {str(sym): sym for sym in (eps, c, c_pos)}
    point = SamplePoint(
        sample["d"],
        {name: np.array(v) for name, v in sample["vectors"].items()},
        {symbols[name]: v for name, v in sample["scalars"].items()},
    )
    np.testing.assert_array_equal(evaluate(claim.statement.lhs, point), sample["lhs"])
    np.testing.assert_array_equal(evaluate(claim.statement.rhs, point), sample["rhs"])


def test_consistent_evidence_reports_its_samples() -> None:
    result = evidence(Claim("core.shift", Eq(core(z + c * ones), u)), samples=100)
    assert result.outcome == "consistent"
    # Near-constant inputs shifted by 1e8 keep too few digits of their variance to judge.
    assert set(result.data.get("skipped", {})) <= {"indeterminate"}
    assert result.data["samples"] + sum(result.data.get("skipped", {}).values()) == 100
    assert result.data["samples"] >= 90
    assert result.data["dimensions"] == [1, 2, 3, 4, 5, 8, 16, 64, 768]
    assert result.data["method"] == "direct evaluation"
    assert 0 <= result.data["worst_error"] <= F64_TOLERANCE
    assert result.detail.startswith(
        "100 samples drawn (d = 1, 2, 3, 4, 5, 8, 16, 64, 768; ε from 1e-12 to 1e+02)"
    )
    assert f"{result.data['worst_error']:.1e}" not in result.detail  # no measurement in the text


def test_undefined_samples_are_skipped_and_counted() -> None:
    idealized = core(z, 0)
    result = evidence(Claim("ideal.mean", Eq(mean(idealized), 0)), samples=30)
    assert result.outcome == "consistent"
    assert result.data["skipped"]["undefined"] > 0  # exactly constant inputs: 0/0
    with pytest.raises(DomainError, match="no sample"):
        evidence(Claim("never", Eq(core(ones, 0), ones)), samples=10)


def test_assumptions_are_respected() -> None:
    def outcome(statement: ir.Relation, *assumptions: ir.Assumption) -> str:
        return evidence(Claim("x", statement, assumptions), samples=24).outcome

    assert outcome(Eq(mean(h), 0), centered(h)) == "consistent"
    assert outcome(Eq(mean(h), 0)) == "counterexample"
    assert outcome(Eq(dot(a, b), 0), orthogonal(a, b), centered(a)) == "consistent"
    assert outcome(Eq(mean(a), 0), orthogonal(a, b), centered(a)) == "consistent"
    assert outcome(Eq(dot(a, b), 0)) == "counterexample"
    assert outcome(Le(0, c_pos)) == "consistent"
    assert outcome(Le(0, c)) == "counterexample"
    assert outcome(Le(0, eps)) == "consistent"
    ideal_unit = Eq(var(core(z, 0)), 1)
    assert outcome(ideal_unit, nonconstant(z)) == "consistent"
    result = evidence(Claim("x", ideal_unit, (nonconstant(z),)), samples=24)
    assert 1 not in result.data["dimensions"] and "undefined" not in result.detail
    norm_is_one_over_s = Eq(opnorm(u, z), 1 / s)
    assert outcome(norm_is_one_over_s, dimension_at_least(3)) == "consistent"
    assert outcome(norm_is_one_over_s, dimension(2)) == "counterexample"
    two = evidence(Claim("x", norm_is_one_over_s, (dimension(2),)), samples=24)
    assert two.data["dimensions"] == [2]


def test_evidence_is_deterministic_for_a_seed() -> None:
    claim = Claim("jacobian.symmetric", Eq(dot(jvp(u, z, a), b), dot(a, jvp(u, z, b))))
    first, again = evidence(claim, samples=30), evidence(claim, samples=30)
    assert first.data == again.data and first.detail == again.detail
    false = Claim("false.scale", Eq(core(c_pos * z), u))
    one, other = evidence(false, samples=30, seed=1), evidence(false, samples=30, seed=2)
    assert one.data["sample"] != other.data["sample"]


def test_float32_mode() -> None:
    point = SamplePoint(3, {"z": np.array([1.0, 2.0, 4.0])}, {eps: 1 / 3}, dtype=np.float32)
    value = evaluate(u, point)
    assert isinstance(value, np.ndarray) and value.dtype == np.float32
    expected = np.array([-4.0, -1.0, 5.0]) / math.sqrt(17)
    np.testing.assert_allclose(value, expected, rtol=1e-6)
    assert jacobian(u, z, point).dtype == np.float32
    gradient = Claim("gradient.input", Eq(vjp(u, z, g), jvp(u, z, g)))
    result = evidence(gradient, samples=40, dtype=np.float32)
    assert result.outcome == "consistent" and result.data["dtype"] == "float32"
    assert result.data["tolerance"] == pytest.approx(F32_TOLERANCE) and F32_TOLERANCE > 1e-4
    false = evidence(Claim("false.scale", Eq(core(c_pos * z), u)), samples=40, dtype=np.float32)
    assert false.outcome == "counterexample"


# The timer may fire inside a garbage-collector callback (hypothesis installs one), where
# Python reports the exception and drops it; the budget fires again and the test still
# sees it (lnsym.checking.budget), so the report of the dropped one is expected.
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_the_time_budget_propagates() -> None:
    claim = Claim("gradient", Eq(vjp(layer_norm(z, gamma, beta), z, g), 0 * ones))
    with pytest.raises(BudgetExceeded), time_budget(0.2):
        evidence(claim, samples=100_000)


# ---------------------------------------------------------------------------------------
# Errors


@dataclass(frozen=True, slots=True, repr=False)
class _Unknown(ir.ScalarNode):
    """A node no interpreter knows."""


def test_errors() -> None:
    with pytest.raises(UnsupportedError):
        evaluate(_Unknown(), at(z=[1.0]))
    with pytest.raises(DomainError, match="vector h"):
        evaluate(mean(h), at(z=[1.0]))
    with pytest.raises(DomainError, match="symbol epsilon"):
        evaluate(u, at(z=[1.0, 2.0]))
    with pytest.raises(DomainError, match="undefined"):
        evaluate(core(z, 0), at(z=[3.0, 3.0]))
    with pytest.raises(UserInputError):
        SamplePoint(3, {"z": np.zeros(2)})
    with pytest.raises(UserInputError):
        SamplePoint(2, {"z": np.zeros(2)}, dtype=np.float16)
    with pytest.raises(UserInputError):
        evidence(Claim("x", Eq(mean(z), 0)), dtype=np.int64)


def test_an_undefined_function_is_unsupported_not_a_crash() -> None:
    # lambdify would write f(c) as a call of an undefined name f (a NameError when run).
    applied = ir.Const(sympy.Function("f")(c))
    with pytest.raises(UnsupportedError, match="undefined function f"):
        evaluate(applied, SamplePoint(1, {}, {c: 2.0}))
    with pytest.raises(UnsupportedError, match="undefined function f"):
        evidence(Claim("f", Eq(applied, c)), samples=5)


def test_non_real_powers_are_undefined_samples() -> None:
    # (μ − 8)^(1/3) has no real value below 8 (the IR takes no real cube root of negatives).
    result = evidence(Claim("cbrt", Eq((mean(z) - 8) ** sympy.Rational(1, 3), mean(z))), samples=40)
    assert result.outcome == "counterexample"
    assert result.data["skipped"]["undefined"] > 0


# ---------------------------------------------------------------------------------------
# Batches, error bounds and operator norms (lnsym.engines.numeric.batch and its parts)


def _points(claim: Claim, d: int, count: int, seed: int = 0) -> list[SamplePoint]:
    """``count`` sampled points of ``claim`` at dimension ``d``."""
    sampler = Sampler(claim, seed, np.dtype(np.float64))
    sampler.small, sampler.large = [d], None
    drawn = (sampler.point(k) for k in range(10 * count))
    return [p for p in drawn if p is not None][:count]


BATCHED = [
    Claim("shift", Eq(core(z + c * ones), u)),
    Claim("closed_form", Eq(jvp(u, z, h), (center(h) - u * dot(u, h) / d) / s)),
    Claim("gradient", Eq(vjp(layer_norm(z, gamma, beta), z, g), jvp(u, z, gamma * g))),
    Claim("norm", Eq(opnorm(u, z), 1 / s)),
    Claim("nested", Eq(jvp(jvp(var(z), z, h), z, k), 2 * dot(center(h), k) / d)),
    Claim("ideal", Eq(mean(core(z, 0)), 0)),
]


@pytest.mark.parametrize("claim", BATCHED, ids=lambda claim: claim.id)
@pytest.mark.parametrize("size", [1, 3, 64])
def test_a_batch_judges_each_point_as_if_alone(claim: Claim, size: int) -> None:
    points = _points(claim, size, 12)
    together = compare(claim.statement, points)
    for point, judged in zip(points, together, strict=True):
        (alone,) = compare(claim.statement, [point])
        if isinstance(alone, Sample):
            assert isinstance(judged, Sample)
            np.testing.assert_array_equal(judged.lhs, alone.lhs)
            np.testing.assert_array_equal(judged.rhs, alone.rhs)
            assert judged.error == alone.error
            np.testing.assert_array_equal(judged.lhs, evaluate(claim.statement.lhs, point))
        else:
            assert judged == alone


def test_an_undefined_sample_is_masked_not_fatal() -> None:
    statement = Eq(mean(core(z, 0)), 0)
    good = [SamplePoint(3, {"z": np.array(v)}) for v in ([1.0, 2.0, 4.0], [5.0, -1.0, 0.5])]
    constant = SamplePoint(3, {"z": np.array([2.0, 2.0, 2.0])})  # 0/0 in the idealized core
    results = compare(statement, [good[0], constant, good[1]])
    assert results[1] == (
        "undefined",
        "undefined at this point: division by zero (power -1/2 of 0)",
    )
    for point, result in zip(good, (results[0], results[2]), strict=True):
        assert isinstance(result, Sample) and result.error <= F64_TOLERANCE
        assert result == compare(statement, [point])[0]


def _bound(e: ir.Expr, point: SamplePoint) -> tuple[np.ndarray, np.ndarray]:
    """The value of ``e`` at ``point`` and its running error bound."""
    evaluator = Evaluator(Env.of([point], track=True), Status(1))
    with np.errstate(all="ignore"):
        value, bound = evaluator.get(e)
    assert evaluator.status.code[0] == 0
    return np.broadcast_to(value, np.shape(bound))[0], np.asarray(bound)[0]


def test_the_error_bound_holds_against_exact_arithmetic() -> None:
    mpmath.mp.dps = 60
    rng = np.random.default_rng(4)
    for x, eps_value, shift in [
        (1e8 + rng.standard_normal(5), 1e-12, 0.0),
        (rng.standard_normal(8) * 1e-3, 1e-3, -1e8),
        (np.r_[1e4, rng.standard_normal(63)], 1e-9, 1e8),
        (7.0 + 1e-6 * rng.standard_normal(4), 1e-8, 3.0),
    ]:
        point = SamplePoint(
            len(x), {"z": x, "h": rng.standard_normal(len(x))}, {eps: eps_value, c: shift}
        )
        exact_z = [mpmath.mpf(float(v)) + mpmath.mpf(shift) for v in x]
        mu = sum(exact_z) / len(x)
        centered_z = [v - mu for v in exact_z]
        q = sum(v * v for v in centered_z) / len(x)
        root = mpmath.sqrt(q + mpmath.mpf(eps_value))
        exact_u = [v / root for v in centered_z]
        hs = [mpmath.mpf(float(v)) for v in point.vectors["h"]]
        h_mean = sum(hs) / len(x)
        u_dot_h = sum(a * b for a, b in zip(exact_u, hs, strict=True))
        exact_jh = [
            (b - h_mean - a * u_dot_h / len(x)) / root for a, b in zip(exact_u, hs, strict=True)
        ]
        shifted = z + c * ones
        exact_gradient = [2 * v / len(x) for v in centered_z]
        for e, exact in [
            (var(shifted), [q]),
            (core(shifted), exact_u),
            (jvp(core(shifted), z, h), exact_jh),
            # Forward mode (Duals): J is symmetric, so Jᵀh = Jh.
            (vjp(core(shifted), z, h), exact_jh),
            (grad(var(shifted), z), exact_gradient),
        ]:
            value, bound = _bound(e, point)
            error = np.array(
                [
                    abs(mpmath.mpf(float(v)) - w)
                    for v, w in zip(np.ravel(value), exact, strict=True)
                ],
                float,
            )
            assert np.all(error <= np.ravel(bound)), (e, error, bound)
            # ...and not vacuous (the widest here: var at spread 1e-3 and offset 1e8).
            assert np.all(np.ravel(bound) <= 1e-4 * np.max(np.abs(value)))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 7])
def test_constant_parts_keep_their_rounding_bound(n: int) -> None:
    # A value without a sample axis (a power or product of constants) comes out of NumPy as
    # a float64 scalar, which subclasses float, the marker of an exact value: its bound was
    # dropped as exact, so that √n·√n − n, not 0 in floating point, claimed to be exact.
    mpmath.mp.dps = 60
    root = ir.Power(ir.Const(sympy.Integer(n)), sympy.Rational(1, 2))
    square = ir.ScalarProduct((root, root))
    gap = ir.ScalarSum((square, ir.Const(sympy.Integer(-n))))
    evaluator = Evaluator(Env.of([SamplePoint(3, {}, {eps: 0.5})], track=True), Status(1))
    for e, exact in [(root, mpmath.sqrt(n)), (square, n), (gap, 0)]:
        value, bound = (float(np.ravel(x)[0]) for x in evaluator.get(e))
        assert abs(mpmath.mpf(value) - exact) <= bound, (e, value, bound)
    claim = Claim("scaled_gap", Eq(ir.ScalarProduct((gap, ir.Const(sympy.Integer(10) ** 20))), 0))
    assert evidence(claim, samples=20).outcome == Outcome.CONSISTENT


def test_the_tolerance_catches_a_violation_of_1e_7_at_most_samples() -> None:
    # var(z + c1) is known to ~1e-8 relative even at offsets c ~ 1e8, thanks to the error
    # along 1 that centering removes; only where rounding really hides 1e-7 (near-constant
    # inputs at offsets 1e8, say) may a sample pass. The Monte Carlo estimate this bound
    # replaced caught 83 of 200.
    off = Eq(var(z + c * ones), (1 + sympy.Rational(1, 10**7)) * var(z))
    result = evidence(Claim("off", off, (nonconstant(z),)), samples=200)
    assert result.outcome == "counterexample"
    assert result.data["violations"] >= 0.7 * result.data["samples"]


def test_projected_samples_carry_their_distance_to_an_admissible_point() -> None:
    claim = Claim("x", Eq(jvp(u, z, k), k / s), (centered(k), orthogonal(k, z)))
    sampler = Sampler(claim, 0, np.dtype(np.float64))
    slacks = 0
    for index in range(60):
        point = sampler.point(index)
        if point is None or "z" not in point.slack:
            continue
        slacks += 1
        # z was projected onto the complement of k, a centered vector: the exact projection
        # of the stored z lies within the slack.
        zz, kk = (np.array([Fraction(float(v)) for v in point.vectors[n]]) for n in ("z", "k"))
        kk = kk - sum(kk) / len(kk)
        exact = zz - kk * (zz @ kk) / (kk @ kk) if any(kk) else zz
        distance = math.sqrt(float(sum((a - b) ** 2 for a, b in zip(zz, exact, strict=True))))
        assert distance <= point.slack["z"]
    assert slacks > 10


def test_operator_norms_use_lanczos_not_an_eigensolver_of_size_d(monkeypatch) -> None:
    sizes: list[int] = []
    eigvalsh = np.linalg.eigvalsh

    def recording(matrix: np.ndarray) -> np.ndarray:
        sizes.append(matrix.shape[-1])
        return eigvalsh(matrix)

    monkeypatch.setattr(np.linalg, "eigvalsh", recording)
    rng = np.random.default_rng(9)
    x = rng.standard_normal(768) + 1e8
    point = at(1e-3, z=x)
    expected = 1 / math.sqrt(np.var(x - 1e8) + 1e-3)
    assert evaluate(opnorm(u, z), point) == pytest.approx(expected, rel=1e-12)
    assert max(sizes) <= 4  # J has three distinct singular values: three Lanczos steps
    # A Jacobian with many distinct singular values falls back to LAPACK, same answer.
    gains = rng.uniform(0.5, 2.0, 40)
    point = SamplePoint(
        40, {"z": rng.standard_normal(40), "gamma": gains, "beta": np.zeros(40)}, {eps: 0.1}
    )
    sizes.clear()
    norm_value = evaluate(opnorm(layer_norm(z, gamma, beta), z), point)
    reference = np.linalg.norm(np.diag(gains) @ jacobian(u, z, point), 2)
    assert norm_value == pytest.approx(reference, rel=1e-13)
    assert max(sizes) == 40


def test_top_eigenvalue_matches_lapack() -> None:
    rng = np.random.default_rng(2)
    for rows, cols in [(1, 1), (5, 3), (30, 30), (7, 60)]:
        matrices = rng.standard_normal((3, rows, cols))
        top, residual = top_eigenvalue(matrices)
        expected = [np.linalg.norm(m, 2) ** 2 for m in matrices]
        np.testing.assert_allclose(top, expected, rtol=1e-12)
        assert np.all(residual >= 0)


# ---------------------------------------------------------------------------------------
# The layout of the package: old import paths and the Evaluator's parts


def test_names_imported_from_the_old_modules_are_the_new_ones() -> None:
    # benchmarks/numeric_scaling.py and older code import these from engine and batch.
    from lnsym.engines.numeric import batch, comparison, engine, environment, norms, sampling

    assert engine._Sampler is sampling.Sampler
    assert engine._Sample is comparison.Sample
    assert engine._compare is comparison.compare
    assert engine._compare_all is comparison.compare_all
    assert engine.SamplePoint is batch.SamplePoint is environment.SamplePoint
    assert (batch.Env, batch.Status) == (environment.Env, environment.Status)
    assert batch._top_eigenvalue is norms.top_eigenvalue


def test_the_evaluator_parts_define_each_method_once() -> None:
    # The parts name what they need from each other as annotations only: a method defined
    # twice would silently take the place of the other one, depending on the base order.
    owners: dict[str, list[str]] = {}
    for part in Evaluator.__mro__[:-1]:
        for name, member in vars(part).items():
            if callable(member) and not name.startswith("__"):
                owners.setdefault(name, []).append(part.__name__)
    assert {name: parts for name, parts in owners.items() if len(parts) > 1} == {}


# ---------------------------------------------------------------------------------------
# Matrix statements: the entries of one size share their evaluation, not their evidence


def _matrix_claims() -> list[Claim]:
    return [claim for claim in _catalog_claims() if has_matrices(claim.statement)]


@pytest.mark.parametrize("index", [0, 6, 12, 24, 42, -1])
def test_entries_evaluated_together_give_the_evidence_of_each_alone(index: int) -> None:
    # Batch, weight, layer and RMS normalization (with and without ε) and the batch layers:
    # every entry's evidence — outcome, detail and data with its floating-point errors — is
    # the one the numeric engine gives the entry on its own, bit for bit.
    from lnsym.engines.base import Statement
    from lnsym.ir.lowering import lower_relation, sizes_for

    claim = _matrix_claims()[index]
    relations = [
        r for s in sizes_for(claim.statement) for _, r in lower_relation(claim.statement, s)
    ]
    each = max(8, 200 // len(relations))
    shared = matrices._SharedEvaluation(relations, each, 0)
    together = [shared.evidence(k) for k in range(len(relations))]
    assert all(found is not None for found in together)  # the shared route applied
    for relation, found in zip(relations, together, strict=True):
        alone = evidence(Statement(relation), samples=each, seed=0)
        assert found is not None
        assert (found.outcome, found.detail) == (alone.outcome, alone.detail)
        assert repr(found.data) == repr(alone.data)


def test_a_sample_undefined_in_one_entry_is_undefined_in_that_entry_only() -> None:
    from lnsym.engines.numeric.comparison import compare_all, compare_scalar_statements

    a, b = scalar("a"), scalar("b")
    defined = Eq(a * b, b * a)
    # 1/a written as a power node (as a matrix entry is), not folded into a constant.
    inverse = ir.Power(ir.Const(a), sympy.Integer(-1))
    undefined_at_0 = Eq(ir.ScalarProduct((ir.Const(b), inverse)), b / a)
    points = [
        SamplePoint(k, {}, {a: x, b: 2.0}) for k, x in ((1, 1.5), (2, 0.0), (3, -4.0), (1, 0.0))
    ]
    together = compare_scalar_statements([defined, undefined_at_0], points)
    assert together is not None
    for statement, judged in zip((defined, undefined_at_0), together, strict=True):
        assert judged == compare_all(statement, points)
    assert [isinstance(r, Sample) for r in together[0]] == [True] * 4
    assert [isinstance(r, Sample) for r in together[1]] == [True, False, True, False]


def test_statements_with_vectors_or_d_are_not_evaluated_across_dimensions() -> None:
    from lnsym.engines.numeric.comparison import compare_scalar_statements, scalar_only

    a = scalar("a")
    assert scalar_only(Eq(a * a, a**2))
    assert not scalar_only(Eq(mean(z), 0))
    assert not scalar_only(Eq(a * d, d * a))
    assert compare_scalar_statements([Eq(mean(z), 0)], [SamplePoint(2, {"z": [1.0, -1.0]})]) is None


# -- evaluators kept between statements ---------------------------------------------------

#: Statements that share parts (the core, its jvp, the variance) and between them leave
#: samples undefined (the idealized core at a constant input) and indeterminate (a root or
#: a nested derivative lost in rounding at offsets of 1e8).
_SHARING = (
    Eq(mean(core(z)), 0),
    Eq(jvp(core(z), z, h), jvp(core(z), z, h) * 1),
    Eq(dot(core(z, 0), core(z, 0)), d),
    Eq(jvp(core(z, 0), z, h), jvp(core(z), z, h)),
    Eq(jvp(jvp(core(z), z, h), z, h), jvp(jvp(core(z), z, h), z, h)),
    Le(var(core(z)), 1),
    Eq(var(z) ** -1 * var(z), 1),
    # The same flagged parts again, at the top of other statements: reused, not recomputed.
    Eq(mean(core(z, 0)), 0),
    Eq(dot(jvp(jvp(core(z), z, h), z, h), ones), 0),
)


def _batches(count: int) -> list[list[SamplePoint]]:
    """The sampler's first ``count`` points for z and h (kinds, offsets, ε), by dimension."""
    sampler = Sampler(Claim("p", _SHARING[1]), 0, np.dtype(np.float64))
    by_d: dict[int, list[SamplePoint]] = {}
    for point in (sampler.point(k) for k in range(count)):
        if point is not None:
            by_d.setdefault(point.d, []).append(point)
    return list(by_d.values())


def _same_results(found: list, expected: list) -> None:
    """Bit for bit: the same samples with the same values and errors, the same reasons."""
    assert len(found) == len(expected)
    for x, y in zip(found, expected, strict=True):
        if isinstance(y, Sample):
            assert isinstance(x, Sample) and x.point is y.point and x.error == y.error
            assert np.array_equal(x.lhs, y.lhs) and np.array_equal(x.rhs, y.rhs)
        else:
            assert x == y


_BATCHES = _batches(48)


def test_the_sharing_statements_flag_samples_both_ways() -> None:
    """The statements below must leave samples undefined and indeterminate, or the test of
    kept evaluators would not see a replayed flag."""
    from lnsym.engines.numeric import comparison

    kinds = set()
    for statement in _SHARING:
        for batch in _BATCHES:
            comparison._kept().clear()
            kinds |= {r[0] for r in compare(statement, batch) if not isinstance(r, Sample)}
    assert kinds == {"undefined", "indeterminate"}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(order=st.permutations(range(len(_SHARING))), batch=st.sampled_from(range(len(_BATCHES))))
def test_a_kept_evaluator_gives_what_a_fresh_one_gives(order: list[int], batch: int) -> None:
    """Statements judged one after another with the evaluator kept between them (values and
    the flags they raised reused) give what each gives with a fresh evaluator, whatever
    the order."""
    from lnsym.engines.numeric import comparison

    points = _BATCHES[batch]
    comparison._kept().clear()
    kept = [compare(_SHARING[i], points) for i in order]
    assert len(comparison._kept()) == 1
    for i, found in zip(order, kept, strict=True):
        comparison._kept().clear()
        _same_results(found, compare(_SHARING[i], points))


def test_a_replayed_flag_changes_nothing_already_flagged() -> None:
    status = Status(3)
    status.flag(np.array([True, False, True]), 1, "first")
    status.flag(np.array([False, False, True]), 2, "second")
    before = (status.code.tolist(), list(status.reason))
    status.replay(tuple(status.log))
    assert (
        (status.code.tolist(), list(status.reason))
        == before
        == ([1, 0, 2], ["first", "", "second"])
    )
    fresh = Status(3)
    fresh.replay(tuple(status.log))
    assert (fresh.code.tolist(), fresh.reason) == before


def test_kept_evaluators_are_dropped_beyond_their_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    from lnsym.engines.numeric import comparison

    comparison._kept().clear()
    monkeypatch.setattr(comparison, "_KEPT_BYTES", 1)
    compare(_SHARING[0], _BATCHES[0])
    assert comparison._kept() == {}
    monkeypatch.setattr(comparison, "_KEPT_BYTES", 1 << 30)
    monkeypatch.setattr(comparison, "_KEPT_BATCHES", 2)
    for batch in _BATCHES[:4]:
        compare(_SHARING[0], batch)
    assert [kept for kept, _ in comparison._kept().values()] == _BATCHES[2:4]


def test_drawn_points_are_one_sequence_whatever_the_count() -> None:
    from lnsym.engines.numeric import sampling

    claim = Claim("p", Eq(mean(core(k)), 0))
    sampling._DRAWN.clear()
    few = sampling.draw(claim, 3, np.dtype(np.float64), 5)
    many = sampling.draw(claim, 3, np.dtype(np.float64), 12)
    assert all(x is y for x, y in zip(many[:5], few, strict=True))
    assert sampling.draw(claim, 3, np.dtype(np.float64), 5) is few  # the same request
    sampler = Sampler(claim, 3, np.dtype(np.float64))
    alone = [sampler.point(i) for i in range(12)]
    assert [(p.d, p.vectors["k"].tolist()) for p in many] == [
        (p.d, p.vectors["k"].tolist()) for p in alone
    ]


def test_an_interrupted_draw_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    from lnsym.engines.numeric import sampling

    claim = Claim("p", Eq(mean(core(k)), 0))
    sampling._DRAWN.clear()
    sampling.draw(claim, 4, np.dtype(np.float64), 3)
    calls = {"n": 0}
    point = Sampler.point

    def interrupted(self: Sampler, i: int) -> SamplePoint | None:
        calls["n"] += 1
        if calls["n"] == 2:
            self.rng.standard_normal(3)  # half-way through a point
            raise KeyboardInterrupt
        return point(self, i)

    monkeypatch.setattr(Sampler, "point", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sampling.draw(claim, 4, np.dtype(np.float64), 8)
    assert sampling._DRAWN == {}
    monkeypatch.setattr(Sampler, "point", point)
    again = sampling.draw(claim, 4, np.dtype(np.float64), 8)
    sampler = Sampler(claim, 4, np.dtype(np.float64))
    assert [p.vectors["k"].tolist() for p in again] == [
        sampler.point(i).vectors["k"].tolist() for i in range(8)
    ]


def test_each_thread_keeps_evaluators_of_its_own() -> None:
    """An evaluator reports to one statement's status at a time, so threads must not share
    one: each has its own kept evaluators."""
    from concurrent.futures import ThreadPoolExecutor

    from lnsym.engines.numeric import comparison

    mine = comparison._kept()
    with ThreadPoolExecutor(max_workers=1) as pool:
        theirs = pool.submit(comparison._kept).result()
    assert theirs is not mine and comparison._kept() is mine
