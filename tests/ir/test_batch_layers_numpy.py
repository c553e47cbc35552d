"""Each batch layer and the gradients of its shared gain and bias, against numpy code written
here from the textbook definitions, at d ∈ {1, 2, 3, 16} on a batch of three rows.

lnsym's side is its IR written entry by entry (lnsym.ir.lowering) and evaluated with SymPy,
so a wrong definition of a layer, a wrong broadcast or a wrong lowering shows up here.
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
from lnsym.ir.lowering import lower

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
    if isinstance(value, Diff):  # the other variables' values first: the derivative is cheap
        s = value.wrt.value
        f = to_sympy(value.expr).xreplace({k: v for k, v in point.items() if k.name != s.name})
        return float(sympy.diff(f, s).xreplace(point))
    return float(to_sympy(value).xreplace(point))


def entries(name, array):
    """The lowering's symbols of a matrix (2-D) or vector (1-D) bound to an array's values."""
    out = {}
    for index, x in np.ndenumerate(array):
        label = name + "".join(str(i + 1) for i in index)
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
