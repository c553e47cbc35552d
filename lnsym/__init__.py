"""lnsym: derive, prove and report the mathematics of layer normalization.

The public API is re-exported here; see the README for a tour.
"""

from __future__ import annotations

from lnsym.checking.checker import check
from lnsym.checking.claims import Claim, Result
from lnsym.checking.lemmas import MEAN_VALUE_INEQUALITY, SPECTRAL_NORM
from lnsym.checking.proof import Derivation, Step, by_lemma
from lnsym.checking.verdicts import Verdict
from lnsym.derive import Derived, derive
from lnsym.engines.base import Counterexample
from lnsym.exact.examples import WorkedExample, perturbation_ratio, worked_example
from lnsym.ir import (
    Eq,
    Le,
    center,
    centered,
    d,
    dimension,
    dimension_at_least,
    dot,
    eps,
    hadamard,
    mean,
    nonconstant,
    norm,
    ones,
    orthogonal,
    scalar,
    sqrt,
    var,
    vector,
)
from lnsym.ir.batch_layers import (
    batch_norm,
    batch_norm_eval,
    group_norm,
    instance_norm,
    layer_norm_rows,
    rms_norm_rows,
    weight_norm_rows,
)
from lnsym.ir.calculus import diff, grad, jvp, opnorm, vjp
from lnsym.ir.layers import core, layer_norm, rms_norm, weight_norm
from lnsym.ir.matrices import (
    column,
    first_case,
    flatten,
    matrix,
    mean_along,
    ones_matrix,
    row,
    sum_along,
    total,
    var_along,
)
from lnsym.ir.names import m, n

# Importing lnsym.printing installs the IR's repr (lnsym.ir.nodes.PRINTERS).
from lnsym.printing import latex, text

__version__ = "0.1.0"

__all__ = [
    "MEAN_VALUE_INEQUALITY",
    "SPECTRAL_NORM",
    "Claim",
    "Counterexample",
    "Derivation",
    "Derived",
    "Eq",
    "Le",
    "Result",
    "Step",
    "Verdict",
    "WorkedExample",
    "by_lemma",
    "check",
    "center",
    "centered",
    "core",
    "d",
    "derive",
    "diff",
    "dimension",
    "dimension_at_least",
    "dot",
    "eps",
    "grad",
    "hadamard",
    "jvp",
    "latex",
    "layer_norm",
    "mean",
    "nonconstant",
    "norm",
    "ones",
    "opnorm",
    "orthogonal",
    "perturbation_ratio",
    "rms_norm",
    "scalar",
    "sqrt",
    "text",
    "var",
    "vector",
    "vjp",
    "weight_norm",
    "worked_example",
    "batch_norm",
    "batch_norm_eval",
    "group_norm",
    "instance_norm",
    "layer_norm_rows",
    "rms_norm_rows",
    "weight_norm_rows",
    "column",
    "first_case",
    "flatten",
    "matrix",
    "mean_along",
    "ones_matrix",
    "row",
    "sum_along",
    "total",
    "var_along",
    "m",
    "n",
]
