"""The built-in relatives of layer normalization: RMS normalization and weight normalization.

Construction and printing, then a numeric cross-check: the forward values and derivatives
(jvp, vjp, the derivative in the weight-norm gain) that lnsym's concrete engine evaluates
exactly and its numeric engine in floating point are compared with an independent numpy
implementation written here — the layers in plain numpy, their derivatives by complex step
(f(x + iτh) has imaginary part τ·Df(x)[h] to machine precision: there is no cancellation) and
by a hand-written backward pass — at d ∈ {1, 2, 3, 16}.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
import sympy

import lnsym
from lnsym import (
    Claim,
    Eq,
    center,
    check,
    diff,
    dot,
    eps,
    hadamard,
    ir,
    jvp,
    latex,
    mean,
    norm,
    rms_norm,
    scalar,
    sqrt,
    text,
    vector,
    vjp,
    weight_norm,
)
from lnsym.engines.concrete.engine import instantiate
from lnsym.engines.concrete.problem import _Problem
from lnsym.engines.numeric.engine import SamplePoint, evaluate
from lnsym.errors import ExpressionError
from lnsym.ir.layers import Normalization, RMSNorm, WeightNorm

a, h, g, gamma = vector("a"), vector("h"), vector("g"), vector("gamma")
v, delta = vector("v"), vector("delta")
gain = scalar("g")
DIMENSIONS = (1, 2, 3, 16)
RTOL = 1e-9
EPS = Fraction(1, 10)
TAU = 1e-30  # the complex step: far below any rounding, so the real part is f(x) exactly

# ---------------------------------------------------------------------------------------
# Construction and printing


def test_rms_norm_is_a_normalization_with_the_mean_square_as_its_statistic():
    layer = rms_norm(a)
    assert isinstance(layer, RMSNorm) and isinstance(layer, Normalization)
    assert layer == RMSNorm(a, ir.Const(eps)) and layer.kind == "vector"
    assert layer.statistic() == mean(hadamard(a, a))
    assert layer.radicand() == mean(hadamard(a, a)) + eps
    assert layer.definition() == (mean(hadamard(a, a)) + eps) ** sympy.Rational(-1, 2) * a
    assert rms_norm(a, eps=0).eps == ir.as_scalar(0)


def test_a_gain_multiplies_the_normalized_input_coordinatewise():
    # One root for the engines to see: the gain is outside the layer node.
    assert rms_norm(a, gamma) == hadamard(gamma, rms_norm(a))
    assert rms_norm(a, gamma, eps=eps / 2) == hadamard(gamma, RMSNorm(a, ir.Const(eps / 2)))


def test_weight_norm_is_gain_times_the_unit_direction():
    w = weight_norm(v, gain)
    assert isinstance(w, WeightNorm) and not isinstance(w, Normalization)
    assert (w.arg, w.gain, w.kind) == (v, ir.Const(gain), "vector")
    assert w.definition() == gain * norm(v) ** -1 * v
    assert weight_norm(v, 2).gain == ir.as_scalar(2)


@pytest.mark.parametrize(
    "call",
    [
        lambda: rms_norm(mean(a)),  # a scalar input
        lambda: rms_norm(a, gain),  # a scalar gain
        lambda: rms_norm(a, eps=a),  # a vector stabilizer
        lambda: weight_norm(gain, v),  # arguments swapped
        lambda: weight_norm(v, 0.5),  # floats are refused, as everywhere in the IR
    ],
)
def test_malformed_layers_are_refused(call):
    with pytest.raises(ExpressionError):
        call()


def test_both_layers_are_exported():
    assert lnsym.rms_norm is rms_norm and lnsym.weight_norm is weight_norm
    assert {"rms_norm", "weight_norm"} <= set(lnsym.__all__)


@pytest.mark.parametrize(
    ("expr", "plain", "typeset"),
    [
        (rms_norm(a), "rms(a)", r"\operatorname{RMS}_{\varepsilon}(\mathbf{a})"),
        (rms_norm(a, eps=0), "rms(a, ε=0)", r"\operatorname{RMS}_{0}(\mathbf{a})"),
        (
            rms_norm(a + h, gamma, eps / 2),
            "γ ⊙ rms(a + h, ε=ε/2)",
            r"\boldsymbol{\gamma} \odot \operatorname{RMS}_{\frac{\varepsilon}{2}}"
            r"(\mathbf{a} + \mathbf{h})",
        ),
        (weight_norm(v, gain), "wn(v, g)", r"\operatorname{WN}(\mathbf{v}, g)"),
        (
            weight_norm(2 * v, 3),
            "wn(2·v, 3)",
            r"\operatorname{WN}(2 \mathbf{v}, 3)",
        ),
        (
            jvp(rms_norm(a), a, h),
            "D_a[rms(a)](h)",
            r"D_{\mathbf{a}}[\operatorname{RMS}_{\varepsilon}(\mathbf{a})](\mathbf{h})",
        ),
        (
            dot(weight_norm(v, gain), weight_norm(v, gain)),
            "⟨wn(v, g), wn(v, g)⟩",
            r"\lVert \operatorname{WN}(\mathbf{v}, g) \rVert^{2}",
        ),
    ],
)
def test_printing(expr, plain, typeset):
    assert text(expr) == plain == repr(expr)
    assert latex(expr) == typeset


# ---------------------------------------------------------------------------------------
# The independent implementation: numpy, complex step, hand-written backward passes


def np_rms(x, scale, stabilizer):
    """γ ⊙ x/√(mean(x²) + ε); written without abs or conj, so it extends to complex x."""
    return scale * x / np.sqrt(np.mean(x * x) + stabilizer)


def np_weight_norm(direction, g_value):
    return g_value * direction / np.sqrt(np.sum(direction * direction))


def complex_step(f, x, direction):
    """Df(x)[direction] by one complex step: exact to rounding, no step size to tune."""
    return np.imag(f(x + 1j * TAU * direction)) / TAU


def complex_jacobian(f, x):
    """The full Jacobian, column j = Df(x)[e_j]."""
    return np.column_stack([complex_step(f, x, e) for e in np.eye(len(x))])


def np_rms_backward(x, scale, stabilizer, upstream):
    """The backward pass of y = γ ⊙ x/ρ, ρ = √(mean(x²) + ε), as an autograd system runs it.

    Returns ∂ℓ/∂x and ∂ℓ/∂γ for ∂ℓ/∂y = upstream.
    """
    rho = np.sqrt(np.mean(x * x) + stabilizer)
    x_hat = x / rho
    grad_scale = upstream * x_hat
    grad_x_hat = upstream * scale
    grad_rho = -np.sum(grad_x_hat * x) / rho**2  # x_hat = x·ρ⁻¹
    grad_mean_square = grad_rho / (2 * rho)  # ρ = √(m + ε)
    grad_x = grad_x_hat / rho + grad_mean_square * 2 * x / len(x)  # m = Σx²/d
    return grad_x, grad_scale


def np_weight_norm_backward(direction, g_value, upstream):
    """∂ℓ/∂v and ∂ℓ/∂g for w = g·v/n, n = √(Σv²), and ∂ℓ/∂w = upstream."""
    n = np.sqrt(np.sum(direction * direction))
    grad_g = np.sum(upstream * direction) / n
    grad_unit = upstream * g_value  # w = g·(v/n)
    grad_n = -np.sum(grad_unit * direction) / n**2
    grad_v = grad_unit / n + grad_n * direction / n
    return grad_v, grad_g


# ---------------------------------------------------------------------------------------
# lnsym's interpreters at a point


def rationals(rng, d, low=-12, high=13):
    """d exact dyadic rationals k/4, none zero: exact in binary floating point too."""
    ks = rng.integers(low, high, size=d)
    ks[ks == 0] = 1
    return [Fraction(int(k), 4) for k in ks]


def exact(expr, d, vectors, scalars):
    """The concrete engine's exact value (SymPy, roots kept exact) as floats."""
    values = {**vectors, **scalars}
    value = instantiate(expr, d, values)
    if isinstance(value, sympy.Matrix):
        return np.array([float(x) for x in value])
    return float(value)


def floating(expr, d, vectors, scalars):
    """The numeric engine's floating-point value."""
    point = SamplePoint(
        d,
        {atom.name: np.array([float(x) for x in xs]) for atom, xs in vectors.items()},
        {symbol: float(x) for symbol, x in scalars.items()},
    )
    return evaluate(expr, point)


ENGINES = {"concrete": exact, "numeric": floating}


def agree(ours, theirs):
    theirs = np.asarray(theirs, dtype=float)
    scale = max(1.0, float(np.max(np.abs(theirs), initial=0.0)))
    np.testing.assert_allclose(ours, theirs, rtol=RTOL, atol=RTOL * scale * 1e-3)


def point(d, seed, *names):
    rng = np.random.default_rng([seed, d])
    return {vector(name): rationals(rng, d) for name in names}


def floats(values):
    return np.array([float(x) for x in values])


# ---------------------------------------------------------------------------------------
# The cross-check


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("d", DIMENSIONS)
@pytest.mark.parametrize("stabilizer", [EPS, Fraction(0)], ids=["eps", "eps0"])
def test_rms_norm_forward(engine, d, stabilizer):
    at = point(d, 1, "a", "gamma")
    x, scale = floats(at[a]), floats(at[gamma])
    evaluate_at = ENGINES[engine]
    layer = rms_norm(a, eps=stabilizer)
    agree(evaluate_at(layer, d, at, {}), np_rms(x, 1.0, float(stabilizer)))
    agree(
        evaluate_at(rms_norm(a, gamma, stabilizer), d, at, {}),
        np_rms(x, scale, float(stabilizer)),
    )
    # With the default stabilizer ε as a symbol, given a value at the point.
    agree(evaluate_at(rms_norm(a, gamma), d, at, {eps: EPS}), np_rms(x, scale, float(EPS)))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("d", DIMENSIONS)
def test_rms_norm_derivatives(engine, d):
    at = point(d, 2, "a", "gamma", "h", "g")
    x, scale, direction, upstream = (floats(at[atom]) for atom in (a, gamma, h, g))
    evaluate_at, scalars = ENGINES[engine], {eps: EPS}
    stabilizer = float(EPS)
    layer = rms_norm(a, gamma)

    # jvp in the input and in the gain, against the complex step.
    expected = complex_step(lambda x_: np_rms(x_, scale, stabilizer), x, direction)
    agree(evaluate_at(jvp(layer, a, h), d, at, scalars), expected)
    expected = complex_step(lambda s_: np_rms(x, s_, stabilizer), scale, direction)
    agree(evaluate_at(jvp(layer, gamma, h), d, at, scalars), expected)

    # vjp: Jᵀg from the complex-step Jacobian, and from the hand-written backward pass.
    grad_x, grad_scale = np_rms_backward(x, scale, stabilizer, upstream)
    jacobian_x = complex_jacobian(lambda x_: np_rms(x_, scale, stabilizer), x)
    jacobian_scale = complex_jacobian(lambda s_: np_rms(x, s_, stabilizer), scale)
    agree(jacobian_x.T @ upstream, grad_x)
    agree(jacobian_scale.T @ upstream, grad_scale)
    agree(evaluate_at(vjp(layer, a, g), d, at, scalars), grad_x)
    agree(evaluate_at(vjp(layer, gamma, g), d, at, scalars), grad_scale)

    # The derivative in ε, a scalar.
    expected = complex_step(lambda e_: np_rms(x, scale, e_), stabilizer, 1.0)
    agree(evaluate_at(diff(layer, eps), d, at, scalars), expected)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("d", DIMENSIONS)
def test_weight_norm_forward(engine, d):
    at = point(d, 3, "v")
    direction, evaluate_at = floats(at[v]), ENGINES[engine]
    g_value = Fraction(-5, 4)
    expected = np_weight_norm(direction, float(g_value))
    agree(evaluate_at(weight_norm(v, gain), d, at, {gain: g_value}), expected)
    agree(evaluate_at(weight_norm(v, g_value), d, at, {}), expected)
    # ‖w‖ = |g|, whatever v is.
    agree(evaluate_at(norm(weight_norm(v, gain)), d, at, {gain: g_value}), abs(float(g_value)))


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("d", DIMENSIONS)
def test_weight_norm_derivatives(engine, d):
    at = point(d, 4, "v", "h", "delta")
    direction, tangent, upstream = (floats(at[atom]) for atom in (v, h, delta))
    g_value = Fraction(7, 4)
    evaluate_at, scalars = ENGINES[engine], {gain: g_value}
    w = weight_norm(v, gain)

    expected = complex_step(lambda v_: np_weight_norm(v_, float(g_value)), direction, tangent)
    agree(evaluate_at(jvp(w, v, h), d, at, scalars), expected)

    grad_v, grad_g = np_weight_norm_backward(direction, float(g_value), upstream)
    jacobian_v = complex_jacobian(lambda v_: np_weight_norm(v_, float(g_value)), direction)
    agree(jacobian_v.T @ upstream, grad_v)
    agree(evaluate_at(vjp(w, v, delta), d, at, scalars), grad_v)

    # ∂w/∂g by complex step in g; paired with δ it is the gain's gradient.
    expected = complex_step(lambda g_: np_weight_norm(direction, g_), float(g_value), 1.0)
    agree(evaluate_at(diff(w, gain), d, at, scalars), expected)
    agree(evaluate_at(dot(delta, diff(w, gain)), d, at, scalars), grad_g)


def test_the_cross_check_would_catch_a_wrong_closed_form():
    """The comparison is sharp: the Jacobian with the core's centering P is rejected."""
    d = 3
    at = point(d, 5, "a", "h")
    x, direction = floats(at[a]), floats(at[h])
    r, rho = rms_norm(a), sqrt(mean(hadamard(a, a)) + eps)
    expected = complex_step(lambda x_: np_rms(x_, 1.0, float(EPS)), x, direction)
    right = (h - r * dot(r, h) / d) / rho
    wrong = (center(h) - r * dot(r, h) / d) / rho
    agree(exact(right, d, at, {eps: EPS}), expected)
    with pytest.raises(AssertionError):
        agree(exact(wrong, d, at, {eps: EPS}), expected)


def test_the_gain_keeps_the_concrete_engines_fast_path():
    """γ ⊙ rms(a) is a Hadamard product around the layer node: the engine still finds the
    layer's statistic and draws points at which √(mean(a ⊙ a) + ε) is rational."""
    layer = rms_norm(a, gamma)
    assert _Problem.of(layer, 2 * layer, "eq", ()).principal == mean(hadamard(a, a))
    claim = Claim("rms.gain_gradient", Eq(vjp(layer, gamma, g), hadamard(g, rms_norm(a))))
    concrete = next(e for e in check(claim).evidence if e.engine == "concrete")
    assert concrete.outcome == "holds"
    assert "symbolic reduction with s² = t + ε" in concrete.detail
