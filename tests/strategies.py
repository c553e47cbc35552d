"""Hypothesis strategies for IR expressions over a few atoms."""

from __future__ import annotations

import sympy
from hypothesis import strategies as st

from lnsym import center, core, dot, eps, hadamard, mean, ones, scalar, var, vector
from lnsym.ir import Expr

z, h, a = vector("z"), vector("h"), vector("a")
c = scalar("c")
ATOMS = (z, h, a)

constants = st.sampled_from(
    [sympy.Integer(2), sympy.Integer(-1), sympy.Rational(1, 3), c, eps, sympy.Integer(0)]
)


def _extend(inner: st.SearchStrategy[Expr]) -> st.SearchStrategy[Expr]:
    return st.one_of(
        st.builds(lambda x, y: x + y, inner, inner),
        st.builds(lambda k, x: k * x, constants, inner),
        st.builds(hadamard, inner, inner),
        st.builds(center, inner),
        st.builds(lambda x, y: mean(x) * y, inner, inner),
        st.builds(lambda x: core(x), inner),
    )


vectors: st.SearchStrategy[Expr] = st.recursive(
    st.sampled_from([*ATOMS, ones]), _extend, max_leaves=5
)

scalars: st.SearchStrategy[Expr] = st.one_of(
    st.builds(dot, vectors, vectors),
    st.builds(mean, vectors),
    st.builds(var, vectors),
    st.builds(lambda x, k: dot(x, x) + k, vectors, constants),
)

expressions = st.one_of(vectors, scalars)
