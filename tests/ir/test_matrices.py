"""The matrix IR: shapes and their errors, printing, slicing (general engine) and lowering."""

import pytest
import sympy

from lnsym import (
    Eq,
    batch_norm,
    core,
    d,
    eps,
    first_case,
    grad,
    group_norm,
    layer_norm_rows,
    m,
    matrix,
    mean_along,
    n,
    ones_matrix,
    row,
    scalar,
    sum_along,
    text,
    total,
    vector,
)
from lnsym.checking.checker import check
from lnsym.checking.claims import Claim
from lnsym.engines.general.slicing import Unsliceable, World, slice_relation
from lnsym.errors import ExpressionError
from lnsym.ir.lowering import lower, lower_relation, lowered_entries, sizes_for

Z = matrix("Z", n, d)
X, W = matrix("X", n, m), matrix("W", d, m)
delta = scalar("delta", positive=True)


def test_shapes_broadcast_like_numpy():
    assert (Z + row(vector("beta"))).shape == (n, d)
    assert (X @ W.T).shape == (n, d)
    assert mean_along(Z, 1).shape == (n, 1)
    assert total(Z).kind == "scalar"


@pytest.mark.parametrize(
    "build",
    [
        lambda: Z + X,  # n × d + n × m
        lambda: X @ W,  # inner sides m and d
        lambda: matrix("A", n, 2),  # a side that is not an axis
        lambda: layer_norm_rows(X),  # layer norm of the rows takes n × d
        lambda: group_norm(Z, 0),
        lambda: mean_along(Z, 2),
    ],
)
def test_malformed_matrices_are_refused_when_built(build):
    with pytest.raises(ExpressionError):
        build()


def test_printing():
    assert text(layer_norm_rows(Z, vector("gamma"), vector("beta"))) == "γᵀ ⊙ LN(Z) + βᵀ"
    assert text(batch_norm(X @ W.T, eps=0)) == "BN(X Wᵀ, ε=0)"
    assert text(total(Z * Z)) == "sum(Z ⊙ Z)"
    assert (
        text((ones_matrix(n, 1) + (delta - 1) * first_case(n)) * Z) == "(1[n×1] + (δ - 1)·e₁) ⊙ Z"
    )


def test_lowering_writes_every_entry():
    [[a, b]] = lower(mean_along(Z, 0), {n: 3, d: 2})
    assert "Z11" in repr(a) and "Z31" in repr(a) and "Z12" in repr(b)
    assert sizes_for(Eq(group_norm(Z, 3), group_norm(Z, 3)))[0][d] % 3 == 0


@pytest.mark.parametrize(
    "axis, expected",
    [(d, "core"), (n, None)],  # layer norm of the rows is a core along d, nothing along n
)
def test_a_row_world_slices_layer_norm_to_the_core(axis, expected):
    claim = Eq(layer_norm_rows(Z + ones_matrix(n, 1) @ matrix("c", 1, d)), layer_norm_rows(Z))
    if expected is None:
        with pytest.raises(Unsliceable):
            slice_relation(claim, World(axis))
    else:
        assert expected in text(slice_relation(claim, World(axis)).lhs)


# Transformations of the batch and whether layer / batch normalization at ε = 0 ignore them.
SHIFT_ROWS = matrix("b", n, 1) @ ones_matrix(1, d)
SHIFT_COLS = ones_matrix(n, 1) @ matrix("c", 1, d)
SCALE_FIRST = (ones_matrix(n, 1) + (delta - 1) * first_case(n)) * Z


@pytest.mark.parametrize(
    "layer, moved, invariant",
    [
        (layer_norm_rows, Z + SHIFT_ROWS, True),
        (layer_norm_rows, Z + SHIFT_COLS, False),
        (layer_norm_rows, SCALE_FIRST, True),
        (batch_norm, Z + SHIFT_COLS, True),
        (batch_norm, Z + SHIFT_ROWS, False),
        (batch_norm, SCALE_FIRST, False),
        (batch_norm, delta * Z, True),
    ],
)
def test_verdicts_on_a_batch_are_computed_by_every_engine(layer, moved, invariant):
    result = check(Claim("t.batch", Eq(layer(moved, eps=0), layer(Z, eps=0))))
    assert result.verdict == ("PROVED" if invariant else "REFUTED")
    if invariant:  # proved for symbolic n and d, and checked entry by entry
        assert "for symbolic n, d and m" in result.evidence[0].detail
        assert {e.engine: e.outcome for e in result.evidence}["concrete"] in ("holds", "consistent")
    else:  # an exact, re-checked counterexample at small sizes
        assert result.counterexample is not None and result.counterexample.sizes
        assert any(e.data.get("rechecked") for e in result.evidence)


def test_with_a_stabilizer_rescaling_is_refuted():
    result = check(Claim("t.eps", Eq(layer_norm_rows(delta * Z, eps=eps), layer_norm_rows(Z))))
    assert result.verdict == "REFUTED"


def test_a_wrong_slice_cannot_prove_a_mixed_claim():
    # Layer norm then batch norm is neither a row nor a column operation: no proof, and
    # the claim that the order does not matter is refuted exactly.
    claim = Claim("t.order", Eq(batch_norm(layer_norm_rows(Z)), layer_norm_rows(batch_norm(Z))))
    result = check(claim)
    assert result.verdict == "REFUTED"
    assert result.evidence[0].outcome == "not proved"


def test_sizes_of_the_counterexample_name_the_entry():
    result = check(
        Claim("t.ce", Eq(layer_norm_rows(Z + SHIFT_COLS, eps=0), layer_norm_rows(Z, eps=0)))
    )
    point = result.counterexample
    assert point is not None
    assert set(point.sizes) == {"n", "d", "m"} and len(point.entry) == 2
    assert all(isinstance(v, sympy.Rational) for v in point.scalars.values())


def test_counterexamples_on_matrices_use_small_values():
    # The search may find a violation at a random point (entries like 806539898841823);
    # the reported one is re-found among small values, and is still exact and re-checked.
    X, W, c = matrix("X", n, m), matrix("W", d, m), matrix("c", 1, m)
    claim = Claim("t.recenter", Eq(batch_norm((X @ (W + ones_matrix(d, 1) @ c).T), eps=0),
                                   batch_norm(X @ W.T, eps=0)))  # fmt: skip
    result = check(claim)
    assert result.verdict == "REFUTED"
    values = result.counterexample.scalars.values()
    assert all(abs(v.p) <= 3 and v.q <= 2 for v in values), dict(result.counterexample.scalars)


@pytest.mark.parametrize(
    "statement",
    [
        Eq(layer_norm_rows(Z + SHIFT_COLS, eps=0), layer_norm_rows(Z, eps=0)),
        Eq(batch_norm(Z + SHIFT_ROWS, eps=0), batch_norm(Z, eps=0)),
        Eq(layer_norm_rows(delta * Z, eps=eps), layer_norm_rows(Z)),
    ],
)
def test_the_numeric_engine_alone_refutes_a_matrix_claim_exactly(statement):
    # Its violating sample of one entry is made exact and re-checked at that entry, as a
    # vector claim's is: REFUTED, not "contradicted but no exact counterexample" (ERROR).
    from lnsym.checking.checker import Checker, Options

    result = Checker(Options(engines=("numeric",))).check(Claim("t.numeric", statement))
    assert result.verdict == "REFUTED", result.reason
    point = result.counterexample
    assert set(point.sizes) == {"n", "d", "m"} and len(point.entry) == 2
    assert all(isinstance(v, sympy.Rational) for v in point.scalars.values())
    assert result.evidence[-1].engine == "exact" and result.evidence[-1].data["rechecked"]


# False statements that a careless slice would prove: a square matrix seen on its diagonal
# only, a factor varying along a sum pulled out of it, e₁ on two axes given one case split,
# e₁ fixed inside a sum over its own index, a made-up name equal to a user's name, and a
# gradient by a matrix that the slice would read off one row while the loss reaches the
# matrix through a product over the batch (ℓ = Σ_tj Z_tj A_t has ∂ℓ/∂Z = A 1ᵀ ≠ 0).
A, B, S = matrix("A", n, 1), matrix("B", n, d), matrix("S", n, n)
SLICE_TRAPS = {
    "square_symmetric": Eq(S, S.T),
    "factor_out_of_sum": Eq(A * sum_along(B, 0), ones_matrix(n, 1) @ sum_along(A * B, 0)),
    "first_case_two_axes": Eq(
        first_case(n) @ ones_matrix(1, d), ones_matrix(n, 1) @ first_case(d).T
    ),
    "first_case_summed": Eq(sum_along(first_case(n) * B, 0), sum_along(B, 0)),
    "name_of_a_row": Eq(layer_norm_rows(Z, eps=0), ones_matrix(n, 1) @ row(core(vector("Z_t"), 0))),
    "gradient_through_a_product": Eq(grad(total(Z.T @ A), Z), 0 * Z),
    "gradient_of_one_row_only": Eq(
        grad(total(layer_norm_rows(Z) * (Z.T @ A).T), Z), grad(total(layer_norm_rows(Z)), Z)
    ),
}


@pytest.mark.parametrize("name", sorted(SLICE_TRAPS))
def test_slices_never_prove_a_false_statement(name):
    result = check(Claim(f"t.{name}", SLICE_TRAPS[name]))
    assert result.evidence[0].outcome == "not proved"
    assert result.verdict == "REFUTED"


def test_matrices_of_different_shapes_cannot_be_equated():
    with pytest.raises(ExpressionError, match="n × d matrix with a 1 × d"):
        Eq(A * sum_along(B, 0), sum_along(A * B, 0))


def test_gradient_by_a_matrix_is_a_matrix_of_its_shape():
    G = matrix("G", n, d)
    e = grad(total(G * layer_norm_rows(Z)), Z)
    assert e.shape == (n, d)
    assert text(e) == "∇_Z[sum(G ⊙ LN(Z))]"
    lowered = lower(grad(total(Z * Z), Z), {n: 2, d: 3})
    assert len(lowered) == 2 and len(lowered[0]) == 3
    with pytest.raises(ExpressionError, match="scalar"):
        grad(Z, Z)


def test_the_batch_norm_input_gradient_is_proved_along_the_batch():
    # ∂ℓ/∂Z of ℓ = Σ G ⊙ BN(Z) couples the rows; proved for symbolic n at a generic column.
    G = matrix("G", n, d)
    B = batch_norm(Z)
    s_inverse = (mean_along((Z - mean_along(Z, 0)) ** 2, 0) + eps) ** sympy.Rational(-1, 2)
    right = (G - mean_along(G, 0) - B * mean_along(G * B, 0)) * s_inverse
    result = check(Claim("t.bn_input", Eq(grad(total(G * B), Z), right)), engines=["general"])
    assert result.verdict == "PROVED"
    assert "along the batch" in result.evidence[0].detail


def test_entries_of_two_atoms_never_share_a_symbol():
    # Vector X11's entry 2 and matrix X1's entry (1, 2) would both be X112: a false claim
    # equating them must not be "verified" entry by entry; the entry engines refuse it.
    result = check(Claim("t.names", Eq(row(vector("X11")), matrix("X1", 1, d))))
    assert result.verdict == "ERROR"
    assert "would share the name" in result.evidence[1].detail


def test_the_engines_share_one_lowering_of_a_statement_and_sizes():
    Z = matrix("Z", n, d)
    statement = Eq(layer_norm_rows(Z), layer_norm_rows(Z + 1))
    sizes = sizes_for(statement)[1]
    first = lowered_entries(statement, sizes)
    assert first == tuple(lower_relation(statement, sizes))
    assert lowered_entries(statement, dict(sizes)) is first  # the concrete, then the numeric
    assert lowered_entries(statement, sizes_for(statement)[0]) != first


def test_groups_that_do_not_divide_the_columns_are_refused_cleanly():
    from lnsym import Claim, Eq, check, m, matrix, n
    from lnsym.ir.matrices import GroupSum

    z = matrix("Z", n, m)
    result = check(Claim("g", Eq(GroupSum(z, 2), GroupSum(z, 2) * 1)))
    assert result.verdict == "ERROR" and "groups of equal size" in result.reason
    with pytest.raises(ExpressionError, match="positive integer"):
        GroupSum(z, 0)
    with pytest.raises(ExpressionError, match="rational number"):
        z ** scalar("s")
