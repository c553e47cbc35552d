"""Normalization on a batch: layer, batch, group and instance normalization, and the gradients
of a shared gain and bias

A batch Z (n × d) holds one row per case or position and one column per feature. Layer
normalization standardizes every row over its d features; batch normalization in training
mode standardizes every column over the n cases of the batch, and in evaluation mode uses a
running mean and variance instead, which makes it an affine map of each feature; group
normalization standardizes each of G consecutive groups of d/G features of a row on its own
(one group is layer normalization); instance normalization of one sample with d channels
over n positions standardizes every channel over its positions. The claims state what each
one zeroes and fixes, which shifts it ignores and which it does not. Identities of a row are
proved at a generic row of ℝᵈ, identities of a column at a generic column of ℝⁿ, so for
symbolic n and d at once.

The gain γ and bias β of ℝᵈ are shared by every row of the batch. For the loss ℓ = Σ G ⊙ Y,
with G the upstream gradient of the output Y = γᵀ ⊙ LN(Z) + βᵀ, the gradient of β is the sum
of the rows of G over the batch, Σₜ gₜ, and that of γ is Σₜ gₜ ⊙ uₜ: sums over positions,
one entry per feature. The backpropagation notes write both as sums over the features
instead; on a batch those are a single number copied to every feature, and they are refuted.
The gradient of the input, ∂ℓ/∂Z, is the vector formula (ĝ − mean(ĝ)1 − u·mean(ĝ ⊙ u))/s
applied to every row for layer normalization and to every column for batch normalization,
whose rows are coupled through the batch statistics (ĝ = γ ⊙ g); RMS normalization's is
(ĝ − r ⊙ mean(ĝ ⊙ r))/ρ in every row, and evaluation-mode batch normalization, an affine map
of each feature, only scales ĝ by 1/√(σ² + ε); instance normalization's is the formula in
every channel, group normalization's the formula in every group — the one claim here that
is checked exactly at small sizes only (VERIFIED): a slice of a group has no sum over the
other groups yet.
"""

import sympy

from lnsym import (
    Eq,
    batch_norm,
    batch_norm_eval,
    column,
    d,
    flatten,
    grad,
    group_norm,
    instance_norm,
    layer_norm_rows,
    matrix,
    mean_along,
    n,
    ones,
    ones_matrix,
    rms_norm_rows,
    row,
    scalar,
    sum_along,
    total,
    var_along,
    vector,
    weight_norm_rows,
)
from lnsym import eps as epsilon
from lnsym.checking.claims import Claim
from lnsym.ir.matrices import GroupMean

Z = matrix("Z", n, d)
G = matrix("G", n, d)  # the upstream gradient ∂ℓ/∂Y
X = matrix("X", d, n)  # one sample: d channels over n positions
V = matrix("V", d, n)  # a weight matrix (d units, n inputs) for weight normalization
gamma, beta = vector("gamma"), vector("beta")
b = matrix("b", n, 1)  # a shift per row (case)
c = matrix("c", 1, d)  # a shift per column (feature)
mu = matrix("mu", 1, d)
running = matrix("sigma", 1, d, positive=True)  # the running variance, positive
g = matrix("g", d, 1)
k = matrix("k", d, 1)  # a shift per channel
delta = scalar("delta", positive=True)
zero_rows, zero_cols = 0 * ones_matrix(n, 1), 0 * ones_matrix(1, d)


U = layer_norm_rows(Z)
B = batch_norm(Z)
Y = layer_norm_rows(Z, gamma, beta)
loss = total(G * Y)
q_rows, q_cols = var_along(Z, 1), var_along(Z, 0)
G_hat = G * row(gamma)  # ĝ = γ ⊙ g in every row


def input_gradient(u, axis):
    """(ĝ − mean(ĝ) − u ⊙ mean(ĝ ⊙ u))/s with the means and s along ``axis``: the vector
    formula of ∂ℓ/∂z applied to every row (axis 1) or every column (axis 0)."""
    s_inverse = (var_along(Z, axis) + epsilon) ** sympy.Rational(-1, 2)
    return (G_hat - mean_along(G_hat, axis) - u * mean_along(G_hat * u, axis)) * s_inverse


loss_bn = total(G * batch_norm(Z, gamma, beta))
R = rms_norm_rows(Z)
rms_input_gradient = (G_hat - R * mean_along(G_hat * R, 1)) * (
    mean_along(Z * Z, 1) + epsilon
) ** sympy.Rational(-1, 2)
eval_layer = batch_norm_eval(Z, mu, running, gamma, beta)
H = matrix("H", d, n)  # the upstream gradient of an instance-normalized sample
H_hat = H * column(gamma)
IN = instance_norm(X)
in_input_gradient = (H_hat - mean_along(H_hat, 1) - IN * mean_along(H_hat * IN, 1)) * (
    var_along(X, 1) + epsilon
) ** sympy.Rational(-1, 2)
GN2 = group_norm(Z, 2)
group_var = GroupMean((Z - GroupMean(Z, 2)) * (Z - GroupMean(Z, 2)), 2)
gn_input_gradient = (G_hat - GroupMean(G_hat, 2) - GN2 * GroupMean(G_hat * GN2, 2)) * (
    group_var + epsilon
) ** sympy.Rational(-1, 2)

CLAIMS = [
    # -- layer normalization of every row --------------------------------------------------
    Claim(
        "batch.layer_norm.row_mean",
        Eq(mean_along(U, 1), zero_rows),
        title="Layer normalization on a batch: every row of the output has mean 0",
    ),
    Claim(
        "batch.layer_norm.row_second_moment",
        Eq(mean_along(U * U, 1), q_rows * (q_rows + epsilon) ** -1),
        title="Every row of the output has mean square qₜ/(qₜ + ε)",
    ),
    Claim(
        "batch.layer_norm.row_shift",
        Eq(layer_norm_rows(Z + b @ ones_matrix(1, d)), U),
        title="A shift of each row by its own constant leaves the output unchanged",
    ),
    Claim(
        "batch.layer_norm.feature_shift",
        Eq(layer_norm_rows(Z + ones_matrix(n, 1) @ c), U),
        expect="refuted",
        title="A shift of each feature by its own constant changes the output",
    ),
    # -- batch normalization, training mode -------------------------------------------------
    Claim(
        "batch.batch_norm.column_mean",
        Eq(mean_along(B, 0), zero_cols),
        title="Batch normalization: every feature has mean 0 over the batch",
    ),
    Claim(
        "batch.batch_norm.column_second_moment",
        Eq(mean_along(B * B, 0), q_cols * (q_cols + epsilon) ** -1),
        title="Every feature has mean square σ²/(σ² + ε), σ² its variance over the batch",
    ),
    Claim(
        "batch.batch_norm.feature_shift",
        Eq(batch_norm(Z + ones_matrix(n, 1) @ c), B),
        title="A shift of each feature by its own constant leaves batch normalization unchanged",
    ),
    Claim(
        "batch.batch_norm.row_shift",
        Eq(batch_norm(Z + b @ ones_matrix(1, d)), B),
        expect="refuted",
        title="A shift of each case by its own constant changes batch normalization",
    ),
    Claim(
        "batch.batch_norm.feature_rescaling_idealized",
        Eq(batch_norm(delta * Z, eps=0), batch_norm(Z, eps=0)),
        title="Without the stabilizer, re-scaling the batch leaves batch normalization unchanged",
    ),
    # -- batch normalization, evaluation mode -----------------------------------------------
    Claim(
        "batch.batch_norm_eval.batch_statistics",
        Eq(batch_norm_eval(Z, mean_along(Z, 0), q_cols), B),
        title="Evaluation mode with the batch's own mean and variance is training mode",
    ),
    Claim(
        "batch.batch_norm_eval.shift_with_mean",
        Eq(
            batch_norm_eval(Z + ones_matrix(n, 1) @ c, mu + c, running),
            batch_norm_eval(Z, mu, running),
        ),
        title="Evaluation mode: shifting the batch and the running mean together changes nothing",
    ),
    Claim(
        "batch.batch_norm_eval.shift",
        Eq(
            batch_norm_eval(Z + ones_matrix(n, 1) @ c, mu, running), batch_norm_eval(Z, mu, running)
        ),
        expect="refuted",
        title="Evaluation mode is not shift invariant: its statistics are fixed",
    ),
    # -- group and instance normalization ---------------------------------------------------
    Claim(
        "batch.group_norm.one_group",
        Eq(group_norm(Z, 1), U),
        title="Group normalization with one group is layer normalization",
    ),
    Claim(
        "batch.group_norm.row_shift",
        Eq(group_norm(Z + b @ ones_matrix(1, d), 2), group_norm(Z, 2)),
        title="Group normalization (two groups) ignores a shift of each row",
    ),
    Claim(
        "batch.group_norm.feature_shift",
        Eq(group_norm(Z + ones_matrix(n, 1) @ c, 2), group_norm(Z, 2)),
        expect="refuted",
        title="Group normalization does not ignore a shift of each feature",
    ),
    Claim(
        "batch.instance_norm.channel_mean",
        Eq(mean_along(instance_norm(X), 1), 0 * ones_matrix(d, 1)),
        title="Instance normalization: every channel has mean 0 over its positions",
    ),
    Claim(
        "batch.instance_norm.channel_shift",
        Eq(instance_norm(X + k @ ones_matrix(1, n), gamma, beta), instance_norm(X, gamma, beta)),
        title="Instance normalization ignores a shift of each channel, gain and bias included",
    ),
    # -- RMS and weight normalization of rows -----------------------------------------------
    Claim(
        "batch.rms_norm.rescaling_idealized",
        Eq(rms_norm_rows(delta * Z, eps=0), rms_norm_rows(Z, eps=0)),
        title="Without the stabilizer, RMS normalization of the rows ignores a re-scaling",
    ),
    Claim(
        "batch.weight_norm.row_lengths",
        Eq(sum_along(weight_norm_rows(V, g) * weight_norm_rows(V, g), 1), g * g),
        title="Weight normalization: the squared length of row j is the square of its gain",
    ),
    # -- the gradients of the shared gain and bias ------------------------------------------
    Claim(
        "batch.backprop.beta",
        Eq(grad(loss, beta), flatten(sum_along(G, 0))),
        source="backpropagation notes, ∂L/∂β (as it holds on a batch)",
        title="∂ℓ/∂β = Σₜ gₜ: the upstream gradients summed over the batch",
    ),
    Claim(
        "batch.backprop.gamma",
        Eq(grad(loss, gamma), flatten(sum_along(G * U, 0))),
        source="backpropagation notes, ∂L/∂γ (as it holds on a batch)",
        title="∂ℓ/∂γ = Σₜ gₜ ⊙ uₜ: summed over the batch, one entry per feature",
    ),
    Claim(
        "batch.backprop.input_layer_norm",
        Eq(grad(loss, Z), input_gradient(U, 1)),
        title="∂ℓ/∂Z for layer normalization: the vector formula in every row, rows independent",
    ),
    Claim(
        "batch.backprop.input_batch_norm",
        Eq(grad(loss_bn, Z), input_gradient(B, 0)),
        title="∂ℓ/∂Z for batch normalization: the same formula down every column, over the batch",
    ),
    Claim(
        "batch.backprop.input_rms_norm",
        Eq(grad(total(G * rms_norm_rows(Z, gamma)), Z), rms_input_gradient),
        title="∂ℓ/∂Z for RMS normalization: (ĝ − r ⊙ mean(ĝ ⊙ r))/ρ in every row",
    ),
    Claim(
        "batch.backprop.input_batch_norm_eval",
        Eq(grad(total(G * eval_layer), Z), G_hat * (running + epsilon) ** sympy.Rational(-1, 2)),
        title="∂ℓ/∂Z for batch normalization in evaluation mode: ĝ scaled per feature, no coupling",
    ),
    Claim(
        "batch.backprop.input_instance_norm",
        Eq(grad(total(H * instance_norm(X, gamma, beta)), X), in_input_gradient),
        title="∂ℓ/∂X for instance normalization: the vector formula in every channel",
    ),
    Claim(
        "batch.backprop.input_group_norm",
        Eq(grad(total(G * group_norm(Z, 2, gamma, beta)), Z), gn_input_gradient),
        require="VERIFIED",
        title="∂ℓ/∂Z for group normalization (two groups): the vector formula in every group",
    ),
    Claim(
        "batch.backprop.input_batch_norm_by_rows",
        Eq(grad(loss_bn, Z), input_gradient(B, 1)),
        expect="refuted",
        title="Batch normalization's ∂ℓ/∂Z is not the row formula of layer normalization",
    ),
    Claim(
        "batch.backprop.beta_feature_sum",
        Eq(grad(loss, beta), total(G) * ones),
        expect="refuted",
        source="backpropagation notes, ∂L/∂β as a sum over features",
        title="The notes' sum over the features is not ∂ℓ/∂β",
    ),
    Claim(
        "batch.backprop.gamma_feature_sum",
        Eq(grad(loss, gamma), total(G * U) * ones),
        expect="refuted",
        source="backpropagation notes, ∂L/∂γ as a sum over features",
        title="The notes' sum over the features is not ∂ℓ/∂γ",
    ),
]
