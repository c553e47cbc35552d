"""Derivative nodes, and the pin against SymPy's matrix-expression calculus."""

from __future__ import annotations

import numpy as np
import pytest
import sympy

from lnsym import core, dot, eps, grad, jvp, layer_norm, mean, opnorm, vector, vjp
from lnsym.engines.general import GeneralEngine, instantiate
from lnsym.errors import ExpressionError
from lnsym.ir.calculus import Grad, Jvp, Vjp

z, h, g = vector("z"), vector("h"), vector("g")


def test_constructors_and_kinds():
    assert jvp(core(z), z, h) == Jvp(core(z), z, h)
    assert jvp(mean(z), z, h).kind == "scalar"
    assert jvp(core(z), z, h).kind == "vector"
    assert vjp(core(z), z, g) == Vjp(core(z), z, g)
    assert grad(dot(z, z), z) == Grad(dot(z, z), z)
    assert opnorm(core(z), z).kind == "scalar"


@pytest.mark.parametrize(
    "build",
    [
        lambda: jvp(core(z), z + h, h),
        lambda: jvp(core(z), z, mean(z)),
        lambda: vjp(mean(z), z, g),
        lambda: grad(core(z), z),
        lambda: opnorm(mean(z), z),
    ],
)
def test_malformed_derivatives_are_refused(build):
    with pytest.raises(ExpressionError):
        build()


# -- the pin: SymPy 1.14's matrix-expression diff drops the rank-one term ---------------

POINT = [sympy.Rational(3, 2), sympy.Integer(-1), sympy.Rational(1, 3), sympy.Integer(2)]
EPSILON = sympy.Rational(1, 5)


def our_jacobian() -> np.ndarray:
    engine = GeneralEngine()
    form = engine.form(jvp(core(z), z, h))
    dim = len(POINT)
    columns = []
    for j in range(dim):
        basis = [sympy.Integer(int(i == j)) for i in range(dim)]
        columns.append(instantiate(form, {"z": POINT, "h": basis}, {eps: EPSILON}))
    return np.array([[float(v) for v in col] for col in columns]).T


def sympy_matrix_expression_jacobian() -> np.ndarray:
    dim = len(POINT)
    zm = sympy.MatrixSymbol("z", dim, 1)
    centering = sympy.Identity(dim) - sympy.OneMatrix(dim, dim) / dim
    variance = (zm.T * centering * zm)[0, 0] / dim
    derivative = sympy.diff(centering * zm / sympy.sqrt(variance + EPSILON), zm)
    values = {zm[i, 0]: POINT[i] for i in range(dim)}
    return np.array(sympy.Matrix(derivative.as_explicit()).subs(values), dtype=float)


def finite_difference_jacobian(step: float = 1e-6) -> np.ndarray:
    x = np.array(POINT, dtype=float)
    e = float(EPSILON)

    def core_numeric(v: np.ndarray) -> np.ndarray:
        centered = v - v.mean()
        return centered / np.sqrt(np.mean(centered**2) + e)

    columns = [
        (core_numeric(x + step * basis) - core_numeric(x - step * basis)) / (2 * step)
        for basis in np.eye(len(x))
    ]
    return np.array(columns).T


def test_our_jacobian_agrees_with_finite_differences():
    assert np.allclose(our_jacobian(), finite_difference_jacobian(), atol=1e-8)


def test_sympy_matrix_calculus_drops_the_rank_one_term():
    ours, theirs = our_jacobian(), sympy_matrix_expression_jacobian()
    assert not np.allclose(ours, theirs, atol=1e-3)
    # The difference is exactly the dropped term −uuᵀ/(d·s).
    x = np.array(POINT, dtype=float)
    centered = x - x.mean()
    s = np.sqrt(np.mean(centered**2) + float(EPSILON))
    u = centered / s
    assert np.allclose(theirs - ours, np.outer(u, u) / (len(x) * s), atol=1e-12)


def test_full_output_jacobian_from_layer_norm():
    gamma, beta = vector("gamma"), vector("beta")
    engine = GeneralEngine()
    form = engine.form(jvp(layer_norm(z, gamma, beta), z, h))
    value = instantiate(
        form,
        {"z": [-1, 1], "h": [-1, 1], "gamma": [0, 2], "beta": [5, 7]},
        {eps: sympy.Integer(3)},
    )
    assert value == [0, sympy.Rational(3, 4)]
