"""Invariance under re-scaling and re-centering: batch, weight, layer and RMS normalization

The original layer-normalization paper compares three normalizations by what they leave
unchanged. Its setting: a batch of n inputs xₜ of ℝᵐ forms the rows of X (n × m), a layer
of d units has the weight matrix W (d × m) with one row per unit, and the summed inputs
are A = X Wᵀ (n × d, row t holding aₜ = W xₜ). Batch normalization standardizes every
column of A over the batch, layer normalization every row over the units, RMS normalization
divides every row by its root mean square, and weight normalization replaces each row w of W by
g·w/‖w‖ (g its gain) before the product. Gains and biases act after the normalization, so
they play no part here; the stabilizer ε is 0, as in the paper.

Six transformations are tried, each with a positive factor δ: re-scaling the whole weight
matrix (δW), re-centering it (W + 1cᵀ: the same vector c added to every unit's weights),
re-scaling one weight vector (row 1 of W by δ), re-scaling the whole dataset (δX),
re-centering it (X + 1cᵀ: the same c added to every input), and re-scaling a single training
case (row 1 of X by δ). Each claim says that the normalized summed inputs are unchanged; each
verdict is computed — PROVED for symbolic n, d and m at a generic row, column or entry, or
REFUTED by an exact counterexample — and the tables in the report are assembled from them.
With a stabilizer ε > 0 every re-scaling invariance is lost (δ²q + ε is not δ²(q + ε)) while
the re-centering invariances stay; weight normalization has no stabilizer, so its row is the
same as with ε = 0. RMS normalization, which does not center, keeps only the re-scalings of
the whole weight matrix, the whole dataset and one case, and only without ε.
"""

from lnsym import (
    Eq,
    batch_norm,
    d,
    eps,
    first_case,
    layer_norm_rows,
    m,
    matrix,
    n,
    ones_matrix,
    rms_norm_rows,
    scalar,
    weight_norm_rows,
)
from lnsym.checking.claims import Claim
from lnsym.report.tables import TableSpec

X = matrix("X", n, m)  # the inputs, one case per row
W = matrix("W", d, m)  # the weights, one unit per row
c = matrix("c", 1, m)  # a re-centering vector of ℝᵐ
g = matrix("g", d, 1)  # the weight-normalization gains
delta = scalar("delta", positive=True)


def _one_rescaled(a, side):
    """``a`` with its first row multiplied by δ: (1 + (δ − 1)e₁) ⊙ a."""
    return (ones_matrix(side, 1) + (delta - 1) * first_case(side)) * a


#: Transformation → the (inputs, weights) it produces.
TRANSFORMATIONS = {
    "weight_matrix_rescaling": ("re-scaling the weight matrix", X, delta * W),
    "weight_matrix_recentering": ("re-centering the weight matrix", X, W + ones_matrix(d, 1) @ c),
    "weight_vector_rescaling": ("re-scaling one weight vector", X, _one_rescaled(W, d)),
    "dataset_rescaling": ("re-scaling the dataset", delta * X, W),
    "dataset_recentering": ("re-centering the dataset", X + ones_matrix(n, 1) @ c, W),
    "single_case_rescaling": ("re-scaling a single training case", _one_rescaled(X, n), W),
}


def _methods(stabilizer):
    """Method → (name, the normalized summed inputs as a function of inputs and weights)."""
    return {
        "batch_norm": ("Batch normalization", lambda x, w: batch_norm(x @ w.T, eps=stabilizer)),
        "weight_norm": ("Weight normalization", lambda x, w: x @ weight_norm_rows(w, g).T),
        "layer_norm": (
            "Layer normalization",
            lambda x, w: layer_norm_rows(x @ w.T, eps=stabilizer),
        ),
        "rms_norm": ("RMS normalization", lambda x, w: rms_norm_rows(x @ w.T, eps=stabilizer)),
    }


#: The verdicts expected (from the paper's Table 1 for the first three rows at ε = 0; the
#: rest worked out by hand). A test expectation only: every verdict is computed.
INVARIANT = {
    (0, "batch_norm"): {"weight_matrix_rescaling", "weight_vector_rescaling", "dataset_rescaling",
                        "dataset_recentering"},
    (0, "weight_norm"): {"weight_matrix_rescaling", "weight_vector_rescaling"},
    (0, "layer_norm"): {"weight_matrix_rescaling", "weight_matrix_recentering", "dataset_rescaling",
                        "single_case_rescaling"},
    (0, "rms_norm"): {"weight_matrix_rescaling", "dataset_rescaling", "single_case_rescaling"},
    (1, "batch_norm"): {"dataset_recentering"},
    (1, "layer_norm"): {"weight_matrix_recentering"},
    (1, "rms_norm"): set(),
}  # fmt: skip


def _claims(stabilized):
    prefix, stabilizer = ("invariance_eps", eps) if stabilized else ("invariance", 0)
    out = []
    for method, (name, normalized) in _methods(stabilizer).items():
        if (stabilized, method) not in INVARIANT:
            continue  # weight normalization has no stabilizer: its ε > 0 row is its ε = 0 row
        for key, (what, x, w) in TRANSFORMATIONS.items():
            invariant = key in INVARIANT[stabilized, method]
            where = " with ε > 0" if stabilized else ""
            out.append(
                Claim(
                    f"{prefix}.{method}.{key}",
                    Eq(normalized(x, w), normalized(X, W)),
                    expect="holds" if invariant else "refuted",
                    title=f"{name}{where} is {'' if invariant else 'not '}invariant under {what}",
                    source="Ba, Kiros & Hinton (2016), Table 1" if not stabilized else None,
                )
            )
    return out


CLAIMS = _claims(False) + _claims(True)

_ROWS = (
    ("batch_norm", "Batch norm"),
    ("weight_norm", "Weight norm"),
    ("layer_norm", "Layer norm"),
    ("rms_norm", "RMS norm"),
)
_COLUMNS = (
    ("weight_matrix_rescaling", "weight matrix re-scaling"),
    ("weight_matrix_recentering", "weight matrix re-centering"),
    ("weight_vector_rescaling", "weight vector re-scaling"),
    ("dataset_rescaling", "dataset re-scaling"),
    ("dataset_recentering", "dataset re-centering"),
    ("single_case_rescaling", "single case re-scaling"),
)
#: The verdict grids of the report, assembled from the computed verdicts.
TABLES = [
    TableSpec(
        "invariance",
        "Invariance without the stabilizer (ε = 0), as in Table 1 of Ba, Kiros & Hinton",
        "Is the normalized summed input unchanged by the transformation (gains and biases "
        "aside, ε = 0)? Each cell is the verdict of one claim of this section: PROVED means "
        "invariant, REFUTED (with an exact counterexample) not invariant.",
        _ROWS,
        _COLUMNS,
        "invariance.{row}.{column}",
        {"PROVED": "invariant", "REFUTED": "not invariant"},
    ),
    TableSpec(
        "invariance-eps",
        "Invariance with a stabilizer ε > 0",
        "The same question with ε > 0, which the paper does not ask. Weight normalization has "
        "no stabilizer, so it has no row here: its row is the one of the table above.",
        _ROWS,
        _COLUMNS,
        "invariance_eps.{row}.{column}",
        {"PROVED": "invariant", "REFUTED": "not invariant"},
    ),
]
