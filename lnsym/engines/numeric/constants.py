"""Scalar constants: SymPy expressions in ``d``, ``eps`` and the user's scalars, evaluated
on a batch with running error bounds.

Sums, products and powers follow the IR's own arithmetic
(:mod:`~lnsym.engines.numeric.rounding`); any other function (``exp``, ``log``, …) is
lambdified once, with its partial derivatives for the first-order bound.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, reduce
from typing import Any

import numpy as np
import sympy
from sympy.core.function import AppliedUndef

from lnsym import ir
from lnsym.engines.numeric.arrays import is_exact, mag, mag_mul
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
        out = np.asarray(fn(*values))
        if not self.env.track:
            return out, 0.0
        bound = 8 * self.u * mag(out)
        for slope, (_, b) in zip(slopes, args, strict=True):
            if not is_exact(b):
                bound = bound + mag_mul(mag(np.asarray(slope(*values))), b)
        return out, bound


@lru_cache(maxsize=256)
def _function_rules(func: Any, arity: int) -> tuple[Callable[..., Any], list[Callable[..., Any]]]:
    """numpy functions for f(x₀, …) and its partial derivatives (built once per function)."""
    xs = sympy.symbols(f"x0:{arity}", real=True)
    try:
        applied = func(*xs)
        return sympy.lambdify(xs, applied, "numpy"), [
            sympy.lambdify(xs, applied.diff(x), "numpy") for x in xs
        ]
    except Exception as exc:  # noqa: BLE001 — SymPy raises many kinds here
        raise UnsupportedError(f"the numeric engine cannot evaluate {func}") from exc
