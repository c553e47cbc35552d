"""One namespace per claim: a name that stands for two things is refused, naming both.

Generated: every pair of meanings a name can take (a vector, a matrix of a shape, a real or
a positive scalar) placed in a statement, its certificate or its assumptions.
"""

from __future__ import annotations

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym import Claim, Eq, Le, centered, d, dot, m, mean, n, sqrt, var, vector
from lnsym.errors import ExpressionError
from lnsym.ir import nodes as ir
from lnsym.ir.matrices import matrix, total
from lnsym.ir.namespace import names

NAMES = st.sampled_from(["c", "k", "z", "gamma", "Z", "gamma1", "Z_t"])
KINDS = st.sampled_from(["vector", "matrix n×d", "matrix n×1", "real", "positive"])


def _use(name: str, kind: str) -> ir.Expr:
    """A scalar expression that uses ``name`` as ``kind``."""
    if kind == "vector":
        return mean(vector(name))
    if kind.startswith("matrix"):
        return total(matrix(name, n, d if kind.endswith("d") else sympy.Integer(1)))
    return ir.Const(sympy.Symbol(name, **{kind: True}))


def _compatible(a: str, b: str) -> bool:
    return a == b


@settings(max_examples=80, deadline=None, derandomize=True)
@given(name=NAMES, first=KINDS, second=KINDS, where=st.sampled_from(["sides", "certificate"]))
def test_a_name_for_two_things_is_refused_naming_both(name, first, second, where):
    one, other = _use(name, first), _use(name, second)
    if where == "sides":
        statement = Eq(one, other)
    else:
        statement = Le(one, one, certificate=[other])
    if _compatible(first, second):
        Claim("ok", statement)  # one thing, named twice: fine
        assert name in names(statement)
        return
    with pytest.raises(ExpressionError, match=f"the name '{name}' stands for two things") as err:
        Claim("clash", statement)
    assert str(err.value).count(name) >= 3  # the name, and both things it stands for


@settings(max_examples=30, deadline=None, derandomize=True)
@given(name=NAMES, kind=KINDS)
def test_an_assumptions_atom_shares_the_claims_namespace(name, kind):
    statement = Eq(_use(name, kind), var(vector("h")))
    if kind == "vector":
        Claim("ok", statement, [centered(vector(name))])
        return
    with pytest.raises(ExpressionError, match="stands for two things"):
        Claim("clash", statement, [centered(vector(name))])


def test_the_issues_examples():
    z = vector("z")
    c_real, c_pos = ir.Const(sympy.Symbol("k", real=True)), ir.Const(
        sympy.Symbol("k", positive=True)
    )
    with pytest.raises(ExpressionError, match="the real scalar k and the positive scalar k"):
        Claim("r", Eq(sqrt(var(z) + c_real), sqrt(var(z) + c_pos)))
    with pytest.raises(ExpressionError, match="n × 1 matrix Z and the n × d matrix Z"):
        Claim("z", Eq(total(matrix("Z", n, 1)), total(matrix("Z", n, d))))
    # The dimensions are constants of every claim, never a clash.
    assert {"d", "n", "m"} <= set(names(Eq(dot(z, z) * d, n * m + 0 * mean(z))))
