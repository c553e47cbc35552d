"""Scalar constants: SymPy expressions in ``d``, ``eps`` and the user's scalars, evaluated
on a batch with running error bounds.

Sums, products and powers follow the IR's own arithmetic
(:mod:`~lnsym.engines.numeric.rounding`); any other function (``exp``, ``log``, …) is
lambdified once, with its partial derivatives for the first-order bound.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, reduce
from typing import Any, cast

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from lnsym import ir
from lnsym.engines.numeric.arrays import is_exact, is_stepped, mag, mag_mul
from lnsym.engines.numeric.dual import Dual
from lnsym.engines.numeric.environment import Env, Pair
from lnsym.errors import DomainError, UnsupportedError


class Constants:
    """SymPy constants evaluated in the Evaluator's environment."""

    # Provided by the Evaluator and its other parts (annotations only: no attribute here
    # may shadow theirs).
    env: Env
    u: float
    _add: Callable[[list[Pair]], Pair]
    _mul: Callable[[Pair, Pair], Pair]
    _power: Callable[..., Pair]

    def _const(self, value: Any) -> Pair:
        if not isinstance(value, sympy.Expr):
            raise UnsupportedError(f"not a scalar constant: {value!r}")
        undefined = value.atoms(AppliedUndef)
        if undefined:
            name = sorted(str(f.func) for f in undefined)[0]
            raise UnsupportedError(f"the constant {value} uses the undefined function {name}")
        return self._symbolic(value)

    def _symbolic(self, value: sympy.Expr) -> Pair:
        """A SymPy expression in the scalars, by the same rules as the IR's arithmetic."""
        if value.is_Symbol:
            if value == ir.d:
                return np.asarray(self.env.d, self.env.real), 0.0
            if value not in self.env.scalars:
                raise DomainError(f"no value given for the symbol {value}")
            return self.env.scalars[value]
        if not ir.free_symbols(value):
            try:
                number = np.asarray(float(value), self.env.real)
            except TypeError as exc:  # e.g. the imaginary unit
                raise UnsupportedError(f"the constant {value} is not a real number") from exc
            exact = (value.is_Rational and sympy.Rational(float(number)) == value) or (
                value.is_Float and float(number) == float(value)
            )
            return number, 0.0 if exact else self.u * np.abs(number)
        if value.is_Add:
            return self._add([self._symbolic(a) for a in value.args])
        if value.is_Mul:
            return reduce(self._mul, [self._symbolic(a) for a in value.args])
        if value.is_Pow:
            nonnegative = bool(value.base.is_nonnegative)
            return self._power(self._symbolic(value.base), value.exp, nonnegative)
        return self._function(value)

    def _function(self, value: sympy.Expr) -> Pair:
        """Any other function of the scalars: numpy's value, and the first-order bound
        Σ|∂f/∂aᵢ|·B(aᵢ) plus 8 ulps."""
        if not all(isinstance(a, sympy.Expr) for a in value.args):
            raise UnsupportedError(f"the numeric engine cannot evaluate the constant {value}")
        args = [self._symbolic(a) for a in value.args]
        fn, slopes = _function_rules(value.func, len(args))
        values = [a for a, _ in args]
        if any(isinstance(v, Dual) for v in values):
            return self._dual_function(value.func, args)
        if any(is_stepped(v) for v in values):
            # To first order in the complex step, f(x) + i·Σ ∂ᵢf(x)·yᵢ at x = the real parts:
            # NumPy's complex f keeps the O(τ²) terms (see arrays.jet_product).
            primal = [np.real(v) for v in values]
            step = sum(
                np.asarray(s(*primal)) * np.imag(v) for s, v in zip(slopes, values, strict=True)
            )
            out = np.asarray(fn(*primal)) + 1j * step
        else:
            out = np.asarray(fn(*values))
        if not self.env.track:
            return out, 0.0
        bound = 8 * self.u * mag(out)
        for slope, (_, b) in zip(slopes, args, strict=True):
            if not is_exact(b):
                bound = bound + mag_mul(mag(np.asarray(slope(*values))), b)
        return out, bound

    def _dual_function(self, func: Any, args: list[Pair]) -> Pair:
        """f of Duals (forward mode): f(x) + ε·Σ ∂ᵢf(x)·ẋᵢ, with the bound of the complex
        step's rule — Σ|∂ᵢf|·B(aᵢ) plus 8 ulps, where each slope ∂ᵢf is itself a Dual (its
        tangent Σⱼ ∂ⱼ∂ᵢf·ẋⱼ, from the second derivatives) as at a complex point it would
        have an imaginary part."""
        fn, slopes = _function_rules(func, len(args))
        primal = [np.real(v) for v, _ in args]
        moving = [v.im if isinstance(v, Dual) else None for v, _ in args]

        def along(rates: list[Any]) -> Any:
            """Σ rateⱼ·ẋⱼ over the arguments that move."""
            return reduce(
                np.add,
                [np.asarray(r) * t for r, t in zip(rates, moving, strict=True) if t is not None],
            )

        out = Dual(np.asarray(fn(*primal)), along([s(*primal) for s in slopes]))
        if not self.env.track:
            return cast(np.ndarray, out), 0.0
        bound: Any = 8 * self.u * mag(out)
        second = _second_rules(func, len(args))
        for i, (slope, (_, b)) in enumerate(zip(slopes, args, strict=True)):
            if not is_exact(b):
                rate = Dual(np.asarray(slope(*primal)), along([h(*primal) for h in second[i]]))
                bound = bound + mag_mul(mag(rate), b)
        return cast(np.ndarray, out), bound


@lru_cache(maxsize=256)
def _second_rules(func: Any, arity: int) -> list[list[Callable[..., Any]]]:
    """numpy functions for the second derivatives ∂ⱼ∂ᵢf of f(x₀, …) (built once per
    function): the tangents of its slopes in forward mode."""
    xs = sympy.symbols(f"x0:{arity}", real=True)
    try:
        applied = func(*xs)
        return [[_numpy_rule(xs, applied.diff(x, y), func) for y in xs] for x in xs]
    except Exception as exc:  # noqa: BLE001 — SymPy raises many kinds here
        raise UnsupportedError(f"the numeric engine cannot evaluate {func}") from exc


@lru_cache(maxsize=256)
def _function_rules(func: Any, arity: int) -> tuple[Callable[..., Any], list[Callable[..., Any]]]:
    """numpy functions for f(x₀, …) and its partial derivatives (built once per function)."""
    xs = sympy.symbols(f"x0:{arity}", real=True)
    try:
        applied = func(*xs)
        return sympy.lambdify(xs, applied, "numpy"), [
            _numpy_rule(xs, applied.diff(x), func) for x in xs
        ]
    except Exception as exc:  # noqa: BLE001 — SymPy raises many kinds here
        raise UnsupportedError(f"the numeric engine cannot evaluate {func}") from exc


def _numpy_rule(xs: Any, derivative: sympy.Expr, func: Any) -> Callable[..., Any]:
    """A numpy function for a derivative of ``func``; one that raises when called if SymPy
    gives a distribution (sign′ = 2δ) or leaves the derivative unevaluated."""
    if derivative.has(sympy.DiracDelta, sympy.Derivative, sympy.Subs):

        def refused(*_: Any) -> Any:
            raise UnsupportedError(f"{func} has no derivative the numeric engine can evaluate")

        return refused
    return cast(Callable[..., Any], sympy.lambdify(xs, derivative, "numpy"))
