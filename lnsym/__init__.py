"""lnsym: derive, prove and report the mathematics of layer normalization.

The public API is re-exported here; see the README for a tour.
"""

from __future__ import annotations

from lnsym.calculus import grad, jvp, opnorm, vjp
from lnsym.claims import Claim, Result, check
from lnsym.examples import WorkedExample, perturbation_ratio, worked_example
from lnsym.expr import (
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
    var,
    vector,
)
from lnsym.layers import core, layer_norm
from lnsym.proof import Derivation, Step

__version__ = "0.1.0"

__all__ = [
    "Claim",
    "Derivation",
    "Eq",
    "Le",
    "Result",
    "Step",
    "WorkedExample",
    "check",
    "center",
    "centered",
    "core",
    "d",
    "dimension",
    "dimension_at_least",
    "dot",
    "eps",
    "grad",
    "hadamard",
    "jvp",
    "layer_norm",
    "mean",
    "nonconstant",
    "norm",
    "ones",
    "opnorm",
    "orthogonal",
    "perturbation_ratio",
    "scalar",
    "var",
    "vector",
    "vjp",
    "worked_example",
]
