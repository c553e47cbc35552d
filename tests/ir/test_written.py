"""A defined node's definition uses only what its fields hold (lnsym.ir.written).

The walks that decide soundness — the chain rule's "y does not occur in G", "F mentions a",
a substitution's capture guard — read a node's fields. A user's node whose definition hides
ε, a scalar or an atom in no field made ∂_ε[Soft(y)|_{y=z}] = 0 PROVED. Generated: nodes whose
definitions hide each kind of name, directly or inside another defined node, over random
arguments; and nodes that declare what they use, which work through every engine.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import vectors

from lnsym import Claim, Eq, check, diff, eps, mean, scalar, vector
from lnsym.errors import ExpressionError
from lnsym.ir import nodes as ir

c = scalar("c")
w = vector("w")


def _definition(kind: str, node: ir.Expr) -> ir.Expr:
    arg = node.arg  # type: ignore[attr-defined]
    if kind == "epsilon":
        return ir.Scaled(ir.Const(1 / (1 + eps)), arg)
    if kind == "scalar":
        return ir.Scaled(ir.Const(c), arg)
    if kind == "atom":
        return ir.Hadamard(arg, w)
    if kind == "nested":
        return ir.Scaled(mean(w), arg)
    if kind == "in an exponent":
        return ir.Scaled(ir.Power(ir.Dot(arg, arg), c), arg)
    return ir.Scaled(ir.Const(1 / (1 + node.k.value)), arg)  # type: ignore[attr-defined]


def _node_class(kind: str) -> type:
    """A user-defined vector node whose definition is ``_definition(kind)``."""
    if kind == "declared":

        @dataclass(frozen=True, slots=True, repr=False)
        class Declared(ir.Defined, ir.VectorNode):
            arg: ir.Expr
            k: ir.Expr
            symbol: ClassVar[str] = "soft"

            def definition(self) -> ir.Expr:
                return _definition("declared", self)

        return Declared

    @dataclass(frozen=True, slots=True, repr=False)
    class Hiding(ir.Defined, ir.VectorNode):
        arg: ir.Expr
        symbol: ClassVar[str] = "soft"

        def definition(self) -> ir.Expr:
            return _definition(kind, self)

    return Hiding


HIDING = ["epsilon", "scalar", "atom", "nested", "in an exponent"]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(kind=st.sampled_from(HIDING), arg=vectors)
def test_a_definition_hiding_a_name_is_refused_when_the_node_is_built(kind, arg):
    hidden = {"epsilon": "epsilon", "scalar": "c", "atom": "w", "nested": "w"}.get(kind, "c")
    names = ir.vector_atoms(arg) | {s.name for s in _symbols(arg)}
    if hidden in names:  # the argument holds it already: nothing is hidden
        _node_class(kind)(arg)
        return
    with pytest.raises(ExpressionError, match=f"definition uses {hidden}"):
        _node_class(kind)(arg)


def _symbols(e: ir.Expr) -> set[sympy.Symbol]:
    from lnsym.ir.written import written

    return set(written(e).symbols)


def test_a_subclass_with_its_own_post_init_is_checked_too():
    @dataclass(frozen=True, slots=True, repr=False)
    class Checked(ir.Defined, ir.VectorNode):
        arg: ir.Expr
        symbol: ClassVar[str] = "checked"

        def __post_init__(self) -> None:
            if not isinstance(self.arg, ir.Expr):
                raise ExpressionError("not an expression")

        def definition(self) -> ir.Expr:
            return ir.Scaled(ir.Const(eps), self.arg)

    with pytest.raises(ExpressionError, match="definition uses epsilon"):
        Checked(vector("z"))


def test_the_issues_example_is_refused_and_its_honest_twin_is_proved():
    z, y = vector("z"), vector("y")
    with pytest.raises(ExpressionError, match="definition uses epsilon"):
        _node_class("epsilon")(y)
    soft = _node_class("declared")
    claim = Claim(
        "soft.eps",
        Eq(diff(soft(y, ir.Const(eps)).subs(y, z), eps), -z / (1 + eps) ** 2),
    )
    assert check(claim).verdict == "PROVED"
    wrong = Claim("soft.zero", Eq(diff(soft(y, ir.Const(eps)).subs(y, z), eps), 0 * z))
    assert check(wrong).verdict == "REFUTED"


def test_a_field_left_out_of_equality_is_refused():
    """Every engine keeps results by node: two nodes equal but for such a field shared them,
    and a false claim read PROVED after a true one (order dependence)."""
    from dataclasses import field

    @dataclass(frozen=True, slots=True, repr=False)
    class Scale(ir.Defined, ir.VectorNode):
        arg: ir.Expr
        k: ir.Expr = field(compare=False)
        symbol: ClassVar[str] = "scale"

        def definition(self) -> ir.Expr:
            return ir.Scaled(self.k, self.arg)

    with pytest.raises(ExpressionError, match="left out of its equality"):
        Scale(vector("z"), ir.as_scalar(3))


def test_a_field_with_loose_equality_is_refused():
    """0.0 == -0.0 made Flip(z, 0.0) and Flip(z, -0.0) one node: z = -z was PROVED."""
    import math

    @dataclass(frozen=True, slots=True, repr=False)
    class Flip(ir.Defined, ir.VectorNode):
        arg: ir.Expr
        s: float
        symbol: ClassVar[str] = "flip"

        def definition(self) -> ir.Expr:
            flipped = ir.Scaled(ir.as_scalar(-1), self.arg)
            return self.arg if math.copysign(1, self.s) > 0 else flipped

    for value in (0.0, -0.0, True):
        with pytest.raises(ExpressionError, match="looser than its meaning"):
            Flip(vector("z"), value)
