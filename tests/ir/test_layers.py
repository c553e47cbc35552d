"""Layer definitions built from the IR."""

from __future__ import annotations

import sympy

from lnsym import center, core, eps, layer_norm, ones, var, vector
from lnsym.ir import Const, Hadamard, Power, ScalarSum, Scaled, VectorSum
from lnsym.ir.layers import Core, LayerNorm

z, gamma, beta = vector("z"), vector("gamma"), vector("beta")


def test_core_definition():
    node = core(z)
    assert node == Core(z, Const(eps))
    root = Power(ScalarSum((var(z), Const(eps))), sympy.Rational(-1, 2))
    assert node.definition() == Scaled(root, center(z))


def test_idealized_core_keeps_its_eps():
    assert core(z, eps=0).eps == Const(sympy.Integer(0))
    assert repr(core(z, eps=0)) == "core(z, ε=0)"


def test_layer_norm_definition():
    node = layer_norm(z, gamma, beta)
    assert node == LayerNorm(z, gamma, beta, Const(eps))
    assert node.definition() == VectorSum((Hadamard(gamma, core(z)), beta))
    assert repr(layer_norm(z, ones, 0 * ones)) == "LN(z; 1, 0·1)"
