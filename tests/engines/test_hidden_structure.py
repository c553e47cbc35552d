"""What a claim holds inside a user's node, or only at special points, still counts.

- An e₁ or a group count written only in a user node's definition: the slices split the
  index e₁ lives on, and every size is a multiple of the group count (a hidden e₁ was sliced
  as 0, and the claim PROVED; a hidden group count made a true claim REFUTED at d = 3).
- An atom that meets d or more linear constraints (centered, orthogonal) at dimension d: the
  points drawn make it 0, which proves nothing about the special points where its partners
  are dependent and it need not be 0 (a false claim came out VERIFIED).
- Products of a scalar or a vector with a matrix, and matrix expressions where no
  substitution or scalar derivative is defined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym import (
    Claim,
    Eq,
    centered,
    check,
    d,
    diff,
    dimension,
    dot,
    eps,
    first_case,
    group_norm,
    matrix,
    mean,
    n,
    ones_matrix,
    orthogonal,
    row,
    scalar,
    sum_along,
    total,
    vector,
)
from lnsym.errors import ExpressionError
from lnsym.ir import nodes as ir
from lnsym.ir.matrices import MatrixNode

Z = matrix("Z", n, d)


@dataclass(frozen=True, slots=True, repr=False)
class BumpFirst(ir.Defined, MatrixNode):
    """Z with its first row scaled by 1 + k: e₁ in the definition alone."""

    arg: MatrixNode
    k: ir.Expr
    symbol: ClassVar[str] = "bump"

    @property
    def shape(self):
        return self.arg.shape

    def definition(self):
        return self.arg + (self.k * first_case(n)) * self.arg


@dataclass(frozen=True, slots=True, repr=False)
class Grouped(ir.Defined, MatrixNode):
    """Group normalization with a group count in the definition alone."""

    arg: MatrixNode
    e: ir.Expr
    groups: ClassVar[int] = 2
    symbol: ClassVar[str] = "gn"

    @property
    def shape(self):
        return self.arg.shape

    def definition(self):
        return group_norm(self.arg, type(self).groups, eps=self.e)


@settings(max_examples=8, deadline=None, derandomize=True)
@given(k=st.sampled_from([1, 2, -3]), dodge=st.booleans())
def test_a_hidden_first_case_is_split_into_its_cases(k, dodge):
    size = dot(vector("v"), vector("v")) * 0 + (dot(ir.Ones(), ir.Ones()) - 2) * (
        dot(ir.Ones(), ir.Ones()) - 3
    )
    factor = size if dodge else ir.as_scalar(1)
    result = check(Claim("bump", Eq(BumpFirst(Z, ir.as_scalar(k)) * factor, Z * factor)))
    assert result.verdict != "PROVED", result.reason
    if not dodge:
        assert result.verdict == "REFUTED"
    general = next(e for e in result.evidence if e.engine == "general")
    assert general.outcome == "not proved"


@pytest.mark.parametrize("groups", [2, 3])
def test_a_hidden_group_count_scales_every_size(groups, monkeypatch):
    monkeypatch.setattr(Grouped, "groups", groups)
    claim = Claim("rows", Eq(sum_along(Grouped(Z, ir.Const(eps)), 1), 0 * ones_matrix(n, 1)))
    result = check(claim)
    assert result.verdict in ("PROVED", "VERIFIED"), result.reason
    concrete = next(e for e in result.evidence if e.engine == "concrete")
    assert all(int(size.split(", ")[1]) % groups == 0 for size in concrete.data["sizes"])


@settings(max_examples=10, deadline=None, derandomize=True)
@given(partners=st.integers(1, 3), centred=st.booleans(), at=st.sampled_from([2, 3]))
def test_an_atom_with_as_many_constraints_as_d_is_not_verified_zero(partners, centred, at):
    c = vector("c")
    others = [vector(name) for name in ("a", "b", "e")[:partners]]
    assumptions = [orthogonal(o, c) for o in others] + ([centered(c)] if centred else [])
    assumptions.append(dimension(at))
    if len(assumptions) - 1 < at:  # fewer constraints than d: c is not forced to 0
        return
    # c = 0 is what points in general position give; dependent partners allow c ≠ 0.
    vector_claim = check(Claim("c0", Eq(c, 0 * c), assumptions))
    assert vector_claim.verdict not in ("PROVED", "VERIFIED"), vector_claim.reason
    matrix_claim = check(Claim("zc0", Eq(Z * row(c), Z * 0), assumptions))
    assert matrix_claim.verdict not in ("PROVED", "VERIFIED"), matrix_claim.reason


def test_a_repeated_assumption_is_one_constraint():
    a, c = vector("a"), vector("c")
    claim = Claim(
        "twice",
        Eq(Z * total(row(a) * row(c)), Z * 0),
        [orthogonal(a, c), orthogonal(c, a)],
    )
    assert check(claim).verdict == "PROVED"


def test_products_with_a_matrix_are_matrices():
    g = vector("g")
    for product in (total(Z) * Z, mean(g) * Z, dot(g, g) * Z, g * Z, mean(g) + Z, mean(g) - Z):
        assert product.kind == "matrix" and product.shape == (n, d)
    assert check(Claim("same", Eq(mean(g) * Z, mean(g) * Z * 1))).verdict == "PROVED"


def test_what_matrices_do_not_support_is_refused_in_one_line():
    c = scalar("c")
    with pytest.raises(ExpressionError, match="substitution inside a matrix expression"):
        (Z * c).subs(c, 2)
    with pytest.raises(ExpressionError, match=r"diff\(\) of a matrix expression"):
        diff(Z * c, c)
    for reserved in ("d", "n", "m", "epsilon"):
        with pytest.raises(ExpressionError, match="reserved"):
            matrix(reserved, n, d)
