"""A worked example's quantities computed through the IR, by the general-d engine.

Each quantity of :data:`lnsym.exact.closed_form.QUANTITIES` is the value of an IR
expression — ``core(z)``, ``jvp(core(z), z, e)`` for a column of J, ``vjp(layer_norm(z,
gamma, beta), z, g)`` for ∂ℓ/∂z, … — evaluated exactly at the example's point, so that an
example exercises the same machinery as the proofs. :mod:`lnsym.exact.example_check` then
holds these values against the closed forms.
"""

from __future__ import annotations

from typing import Any

import sympy

from lnsym import ir
from lnsym.engines.general import GeneralEngine, instantiate
from lnsym.exact.example_inputs import MAX_MATRIX_DIMENSION, Inputs
from lnsym.exact.values import ExampleValue
from lnsym.ir.calculus import grad, jvp, vjp
from lnsym.ir.layers import core, layer_norm

# The IR expressions an example evaluates. Atom names are ours, never the user's.
_Z, _GAMMA, _BETA = ir.vector("z"), ir.vector("gamma"), ir.vector("beta")
_G, _E, _H = ir.vector("g"), ir.vector("e"), ir.vector("h")
_U = core(_Z)
_Y = layer_norm(_Z, _GAMMA, _BETA)
_HALF_SQUARED_NORM = ir.dot(_Y, _Y) / 2
_RATIO = ir.norm(layer_norm(_Z + _H, _GAMMA, _BETA) - _Y) / ir.norm(_H)

# One engine for the module: its memo holds only the handful of forms above.
_ENGINE = GeneralEngine()


def _evaluate(e: ir.Expr, atoms: dict[str, list[sympy.Expr]], eps: sympy.Expr) -> Any:
    """``e`` evaluated exactly at the given vectors and ε, through the general engine."""
    return instantiate(_ENGINE.form(e), atoms, {ir.eps: eps})


def _unit(d: int, j: int) -> list[sympy.Expr]:
    return [sympy.Integer(int(i == j)) for i in range(d)]


def through_ir(x: Inputs) -> dict[str, ExampleValue | None]:
    """Every quantity of the example, evaluated from IR expressions by the general engine."""
    atoms = x.atoms()

    def at(e: ir.Expr) -> Any:
        value = _evaluate(e, atoms, x.eps)
        return tuple(value) if isinstance(value, list) else value

    def matrix(e: ir.Expr) -> sympy.ImmutableMatrix:
        # Column j of the Jacobian is the directional derivative along the unit vector e_j.
        columns = [
            _evaluate(jvp(e, _Z, _E), {**atoms, "e": _unit(x.d, j)}, x.eps) for j in range(x.d)
        ]
        return sympy.ImmutableMatrix(x.d, x.d, lambda i, j: columns[j][i])

    q_plus_eps = ir.var(_Z) + ir.eps
    out: dict[str, ExampleValue | None] = {
        "mean": at(ir.mean(_Z)),
        "centered": at(ir.center(_Z)),
        "variance": at(ir.var(_Z)),
        "variance_plus_eps": at(q_plus_eps),
        "scale": at(q_plus_eps ** sympy.Rational(1, 2)),
        "core": at(_U),
        "core_mean": at(ir.mean(_U)),
        "core_variance": at(ir.var(_U)),
        "output": at(_Y),
        "output_mean": at(ir.mean(_Y)),
        "output_variance": at(ir.var(_Y)),
        "jacobian": matrix(_U) if x.d <= MAX_MATRIX_DIMENSION else None,
        "output_jacobian": matrix(_Y) if x.d <= MAX_MATRIX_DIMENSION else None,
        "loss_value": None,
        "upstream": x.upstream,
        "grad_beta": None,
        "grad_gamma": None,
        "scaled_upstream": None,
        "grad_z": None,
        "perturbation_ratio": at(_RATIO) if x.perturbation is not None else None,
    }
    if x.loss is not None:
        # ℓ = ½‖y‖²: differentiate the loss itself; its output gradient is g = y.
        out["loss_value"] = at(_HALF_SQUARED_NORM)
        out["upstream"] = out["output"]
        out["scaled_upstream"] = at(ir.hadamard(_GAMMA, _Y))
        for key, atom in (("grad_beta", _BETA), ("grad_gamma", _GAMMA), ("grad_z", _Z)):
            out[key] = at(grad(_HALF_SQUARED_NORM, atom))
    elif x.upstream is not None:
        out["scaled_upstream"] = at(ir.hadamard(_GAMMA, _G))
        for key, atom in (("grad_beta", _BETA), ("grad_gamma", _GAMMA), ("grad_z", _Z)):
            out[key] = at(vjp(_Y, atom, _G))
    return out
