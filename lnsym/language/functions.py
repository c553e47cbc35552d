"""The reserved names of the expression language: its functions and its constants.

Each function is one of lnsym's constructors, with the kinds of argument it takes; the
parser checks the kinds before it calls the constructor, so that an error names the
argument:

>>> FUNCTIONS["layer_norm"].signature("layer_norm")
'layer_norm(v, gamma, beta[, e])'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from lnsym.ir.calculus import diff, grad, jvp, vjp
from lnsym.ir.layers import core, layer_norm
from lnsym.ir.nodes import Expr, center, dot, hadamard, mean, norm, sqrt, var

#: The kinds of argument: a vector or a scalar expression, either, the name of a vector
#: (what jvp, vjp and grad differentiate by) or of a scalar symbol (what diff does).
VECTOR, SCALAR, ANY, ATOM, SYMBOL = "vector", "scalar", "any", "atom", "symbol"


@dataclass(frozen=True, slots=True)
class Function:
    """A function of the language: its parameters (name, kind) and how many are required."""

    params: tuple[tuple[str, str], ...]
    required: int
    build: Callable[..., Expr]

    def signature(self, name: str) -> str:
        shown = [p for p, _ in self.params[: self.required]]
        optional = [p for p, _ in self.params[self.required :]]
        head = ", ".join(shown)
        tail = "".join(f"[, {p}]" for p in optional)
        return f"{name}({head}{tail})"


FUNCTIONS: dict[str, Function] = {
    "mean": Function((("v", VECTOR),), 1, mean),
    "var": Function((("v", VECTOR),), 1, var),
    "center": Function((("v", VECTOR),), 1, center),
    "norm": Function((("v", VECTOR),), 1, norm),
    "core": Function((("v", VECTOR), ("e", SCALAR)), 1, core),
    "layer_norm": Function(
        (("v", VECTOR), ("gamma", VECTOR), ("beta", VECTOR), ("e", SCALAR)), 3, layer_norm
    ),
    "hadamard": Function((("a", VECTOR), ("b", VECTOR)), 2, hadamard),
    "dot": Function((("a", VECTOR), ("b", VECTOR)), 2, dot),
    "sqrt": Function((("x", SCALAR),), 1, sqrt),
    "jvp": Function((("f", ANY), ("wrt", ATOM), ("direction", VECTOR)), 3, jvp),
    "vjp": Function((("f", VECTOR), ("wrt", ATOM), ("cotangent", VECTOR)), 3, vjp),
    "grad": Function((("f", SCALAR), ("wrt", ATOM)), 2, grad),
    "diff": Function((("f", ANY), ("wrt", SYMBOL)), 2, diff),
}
#: Names that are neither vectors nor declarable scalars.
CONSTANTS = ("d", "eps", "epsilon", "ones")
