"""Each batch layer, and the gradients of its shared gain and bias and of its input, against
numpy code written here from the textbook definitions, at d ∈ {1, 2, 3, 16} on a batch of
three rows.

lnsym's side is its IR written entry by entry (lnsym.ir.lowering) and evaluated with SymPy
(values) or by the complex step on that scalar IR (derivatives); numpy's side is the forward
pass, differentiated by the complex step. A wrong definition of a layer, a wrong broadcast or
a wrong lowering shows up here.
"""

from fractions import Fraction

import numpy as np
import pytest
import sympy

from lnsym import (
    batch_norm,
    batch_norm_eval,
    d,
    grad,
    group_norm,
    instance_norm,
    layer_norm_rows,
    matrix,
    n,
    rms_norm_rows,
    total,
    vector,
    weight_norm_rows,
)
from lnsym.ir import nodes as ir
from lnsym.ir.calculus import Diff
from lnsym.ir.lowering import entry_name, lower

EPS = Fraction(1, 10)
ROWS = 3


def to_sympy(e):
    """Scalar IR (as the lowering writes it) as a SymPy expression."""
    match e:
        case ir.Const(value=v):
            return v
        case ir.ScalarSum(terms=terms):
            return sympy.Add(*(to_sympy(t) for t in terms))
        case ir.ScalarProduct(factors=factors):
            return sympy.Mul(*(to_sympy(f) for f in factors))
        case ir.Power(base=b, exponent=p):
            return to_sympy(b) ** p
        case Diff(expr=f, wrt=ir.Const(value=s)):
            return sympy.diff(to_sympy(f), s)
    raise TypeError(type(e).__name__)


def evaluate(value, point):
    if isinstance(value, list):
        return np.array([evaluate(v, point) for v in value], dtype=float)
    if isinstance(value, Diff):
        # ∂f/∂s of the lowered expression f by the complex step (exact to rounding).
        s = value.wrt.value
        return complex_value(value.expr, {**point, s: point[s] + sympy.I * 1e-30}).imag / 1e-30
    return float(to_sympy(value).xreplace(point))


def complex_value(e, point):
    """The scalar IR ``e`` at ``point`` in complex floating point, each shared node once."""
    memo = {}

    def value(x):
        if id(x) not in memo:
            match x:
                case ir.Const(value=v):
                    out = complex(v.xreplace(point))
                case ir.ScalarSum(terms=terms):
                    out = sum(value(t) for t in terms)
                case ir.ScalarProduct(factors=factors):
                    out = np.prod([value(f) for f in factors])
                case ir.Power(base=b, exponent=p):
                    out = np.power(value(b), float(p))
                case _:
                    raise TypeError(type(x).__name__)
            memo[id(x)] = (x, out)
        return memo[id(x)][1]

    return value(e)


def entries(name, array):
    """The lowering's symbols of a matrix (2-D) or vector (1-D) bound to an array's values."""
    out = {}
    for index, x in np.ndenumerate(array):
        label = entry_name(name, *(i + 1 for i in index))
        for assumption in ({"real": True}, {"positive": True}):
            out[sympy.Symbol(label, **assumption)] = sympy.Rational(str(x))
    return out


def standardize(a, axis):
    mu = a.mean(axis=axis, keepdims=True)
    return (a - mu) / np.sqrt(((a - mu) ** 2).mean(axis=axis, keepdims=True) + float(EPS))


@pytest.fixture(params=[1, 2, 3, 16])
def data(request):
    width = request.param
    rng = np.random.default_rng(width)
    rounded = lambda *shape: np.round(rng.normal(size=shape), 2)  # noqa: E731
    z, g_up = rounded(ROWS, width), rounded(ROWS, width)
    gamma, beta = rounded(width), rounded(width)
    mu, var = rounded(width), np.round(rng.uniform(0.5, 2, width), 2)
    point = {sympy.Symbol("epsilon", positive=True): sympy.Rational(EPS.numerator, EPS.denominator)}
    for name, array in [("Z", z), ("G", g_up), ("gamma", gamma), ("beta", beta), ("mu", mu),
                        ("sigma", var)]:  # fmt: skip
        point.update(entries(name, array))
    point.update(entries("mu", mu[None, :]))
    point.update(entries("sigma", var[None, :]))
    return width, point, z, g_up, gamma, beta, mu, var


Z, G = matrix("Z", n, d), matrix("G", n, d)
GAMMA, BETA = vector("gamma"), vector("beta")


def lowered(e, width):
    return lower(e, {n: ROWS, d: width})


def test_layer_norm_rows(data):
    width, point, z, *_, gamma, beta, _, _ = data
    ours = evaluate(lowered(layer_norm_rows(Z, GAMMA, BETA), width), point)
    np.testing.assert_allclose(ours, gamma * standardize(z, 1) + beta, atol=1e-12)


def test_batch_norm_training(data):
    width, point, z, *_, gamma, beta, _, _ = data
    ours = evaluate(lowered(batch_norm(Z, GAMMA, BETA), width), point)
    np.testing.assert_allclose(ours, gamma * standardize(z, 0) + beta, atol=1e-12)


def test_batch_norm_evaluation(data):
    width, point, z, _, gamma, beta, mu, var = data
    layer = batch_norm_eval(
        Z, matrix("mu", 1, d), matrix("sigma", 1, d, positive=True), GAMMA, BETA
    )
    expected = gamma * (z - mu) / np.sqrt(var + float(EPS)) + beta
    np.testing.assert_allclose(evaluate(lowered(layer, width), point), expected, atol=1e-12)


def test_rms_norm_rows(data):
    width, point, z, *_, gamma, _, _, _ = data
    expected = gamma * z / np.sqrt((z * z).mean(axis=1, keepdims=True) + float(EPS))
    np.testing.assert_allclose(evaluate(lowered(rms_norm_rows(Z, GAMMA), width), point), expected)


@pytest.mark.parametrize("groups", [1, 2])
def test_group_norm(groups):
    width = 4
    rng = np.random.default_rng(groups)
    z = np.round(rng.normal(size=(ROWS, width)), 2)
    point = {sympy.Symbol("epsilon", positive=True): sympy.Rational(1, 10), **entries("Z", z)}
    blocks = z.reshape(ROWS, groups, width // groups)
    expected = standardize(blocks, 2).reshape(ROWS, width)
    ours = evaluate(lowered(group_norm(Z, groups), width), point)
    np.testing.assert_allclose(ours, expected, atol=1e-12)


def test_instance_norm(data):
    width, point, z, *_, gamma, beta, _, _ = data
    x = z.T  # d channels over n positions: one sample
    point = {**point, **entries("X", x)}
    ours = evaluate(
        lower(instance_norm(matrix("X", d, n), GAMMA, BETA), {n: ROWS, d: width}), point
    )
    np.testing.assert_allclose(ours, gamma[:, None] * standardize(x, 1) + beta[:, None], atol=1e-12)


def test_weight_norm_rows(data):
    width, point, z, *_, gamma, _, _, _ = data
    v = z.T  # d units, n inputs each
    point = {**point, **entries("V", v), **entries("g", gamma[:, None])}
    ours = evaluate(
        lower(weight_norm_rows(matrix("V", d, n), matrix("g", d, 1)), {n: ROWS, d: width}), point
    )
    expected = gamma[:, None] * v / np.linalg.norm(v, axis=1, keepdims=True)
    np.testing.assert_allclose(ours, expected, atol=1e-12)


@pytest.mark.parametrize("layer", ["layer_norm", "batch_norm"])
def test_gradients_of_the_shared_gain_and_bias(data, layer):
    width, point, z, g_up, gamma, beta, _, _ = data
    build = layer_norm_rows if layer == "layer_norm" else batch_norm
    loss = total(G * build(Z, GAMMA, BETA))
    normalized = standardize(z, 1 if layer == "layer_norm" else 0)
    np.testing.assert_allclose(evaluate(lowered(grad(loss, BETA), width), point), g_up.sum(axis=0))
    expected_gamma = (g_up * normalized).sum(axis=0)
    np.testing.assert_allclose(evaluate(lowered(grad(loss, GAMMA), width), point), expected_gamma)


def complex_step_gradient(f, z):
    """∂f/∂z entry by entry by the complex step f(z + i·h·e)/h: exact to rounding, and
    independent of any formula for the gradient."""
    out = np.zeros_like(z)
    for index in np.ndindex(z.shape):
        step = np.zeros(z.shape, dtype=complex)
        step[index] = 1e-30j
        out[index] = f(z + step).imag / 1e-30
    return out


def csqrt_standardize(a, axis):
    """standardize() for complex arrays (no conjugation: the complex step needs analyticity)."""
    mu = a.mean(axis=axis, keepdims=True)
    return (a - mu) / np.sqrt(((a - mu) ** 2).mean(axis=axis, keepdims=True) + float(EPS))


def _forward(layer, gamma, beta):
    return {
        "layer_norm": lambda a: gamma * csqrt_standardize(a, 1) + beta,
        "batch_norm": lambda a: gamma * csqrt_standardize(a, 0) + beta,
        "rms_norm": lambda a: gamma * a / np.sqrt((a * a).mean(axis=1, keepdims=True) + float(EPS)),
        "group_norm": lambda a: (
            gamma * csqrt_standardize(a.reshape(a.shape[0], 2, -1), 2).reshape(a.shape) + beta
        ),
    }[layer]


def _layer(layer):
    return {
        "layer_norm": layer_norm_rows(Z, GAMMA, BETA),
        "batch_norm": batch_norm(Z, GAMMA, BETA),
        "rms_norm": rms_norm_rows(Z, GAMMA),
        "group_norm": group_norm(Z, 2, GAMMA, BETA),
    }[layer]


@pytest.mark.parametrize("layer", ["layer_norm", "batch_norm", "rms_norm", "group_norm"])
def test_gradient_of_the_input_batch(data, layer):
    """∂ℓ/∂Z for ℓ = Σ G ⊙ Y (lnsym.grad by a matrix), against the complex step of numpy's
    forward pass: couples the rows for batch norm, not for the others."""
    width, point, z, g_up, gamma, beta, _, _ = data
    if layer == "group_norm" and width % 2:
        pytest.skip("two groups need an even d")
    forward = _forward(layer, gamma, beta)
    expected = complex_step_gradient(lambda a: (g_up * forward(a)).sum(), z)
    ours = evaluate(lowered(grad(total(G * _layer(layer)), Z), width), point)
    np.testing.assert_allclose(ours, expected, atol=1e-10)


def test_gradients_of_the_other_layers(data):
    """∂ℓ/∂(input) of batch norm in evaluation mode, instance norm (one sample X, d × n) and
    weight norm (V, d × n) against the complex step of numpy's forward pass."""
    width, point, z, g_up, gamma, beta, mu, var = data
    x, v = z.T, z.T
    point = {**point, **entries("X", x), **entries("V", v), **entries("g", gamma[:, None])}
    point.update(entries("H", g_up.T))
    H = matrix("H", d, n)  # the upstream gradient of a d × n output
    X, V = matrix("X", d, n), matrix("V", d, n)
    sizes = {n: ROWS, d: width}
    cases = [
        (
            batch_norm_eval(Z, matrix("mu", 1, d), matrix("sigma", 1, d, positive=True), GAMMA),
            Z, G, z, g_up, lambda a: gamma * (a - mu) / np.sqrt(var + float(EPS)),
        ),
        (
            instance_norm(X, GAMMA, BETA), X, H, x, g_up.T,
            lambda a: gamma[:, None] * csqrt_standardize(a, 1) + beta[:, None],
        ),
        (
            weight_norm_rows(V, matrix("g", d, 1)), V, H, v, g_up.T,
            lambda a: gamma[:, None] * a / np.sqrt((a * a).sum(axis=1, keepdims=True)),
        ),
    ]  # fmt: skip
    for layer, variable, upstream, at, upstream_values, forward in cases:
        loss = lambda a, f=forward, up=upstream_values: (up * f(a)).sum()  # noqa: E731
        expected = complex_step_gradient(loss, at)
        ours = evaluate(lower(grad(total(upstream * layer), variable), sizes), point)
        np.testing.assert_allclose(ours, expected, atol=1e-10)


@pytest.mark.parametrize("layer", ["rms_norm", "group_norm", "batch_norm_eval", "instance_norm"])
def test_gradients_of_the_gain_and_bias_of_the_other_layers(data, layer):
    """∂ℓ/∂γ and ∂ℓ/∂β against the complex step of numpy's forward pass in γ and β."""
    width, point, z, g_up, gamma, beta, mu, var = data
    if layer == "group_norm" and width % 2:
        pytest.skip("two groups need an even d")
    X = matrix("X", d, n)
    built, upstream, values = {
        "rms_norm": (rms_norm_rows(Z, GAMMA), G, g_up),
        "group_norm": (group_norm(Z, 2, GAMMA, BETA), G, g_up),
        "batch_norm_eval": (
            batch_norm_eval(
                Z, matrix("mu", 1, d), matrix("sigma", 1, d, positive=True), GAMMA, BETA
            ),
            G, g_up,
        ),
        "instance_norm": (instance_norm(X, GAMMA, BETA), matrix("H", d, n), g_up.T),
    }[layer]  # fmt: skip
    point = {**point, **entries("X", z.T), **entries("H", g_up.T)}

    def forward(gain, bias):
        return {
            "rms_norm": lambda: (
                gain * z / np.sqrt((z * z).mean(axis=1, keepdims=True) + float(EPS))
            ),
            "group_norm": lambda: (
                gain * standardize(z.reshape(ROWS, 2, -1), 2).reshape(z.shape) + bias
            ),
            "batch_norm_eval": lambda: gain * (z - mu) / np.sqrt(var + float(EPS)) + bias,
            "instance_norm": lambda: gain[:, None] * standardize(z.T, 1) + bias[:, None],
        }[layer]()

    loss = total(upstream * built)
    sizes = {n: ROWS, d: width}
    expected_gamma = complex_step_gradient(lambda a: (values * forward(a, beta)).sum(), gamma)
    ours = evaluate(lower(grad(loss, GAMMA), sizes), point)
    np.testing.assert_allclose(ours, expected_gamma, atol=1e-10)
    if layer != "rms_norm":  # RMS normalization has no bias
        expected_beta = complex_step_gradient(lambda b: (values * forward(gamma, b)).sum(), beta)
        np.testing.assert_allclose(evaluate(lower(grad(loss, BETA), sizes), point), expected_beta)
