"""Shared by the catalog and CLI tests: the claims the catalog must prove, a good user module."""

from __future__ import annotations

# Item 5 of the core issue: every one of these must be in the catalog and PROVED.
REQUIRED_PROVED = {
    "centering.kills_ones",
    "centering.idempotent",
    "centering.symmetric",
    "centering.subtracts_mean",
    "mean.shift",
    "variance.shift_invariant",
    "variance.nonnegative",
    "core.shift_invariant",
    "core.mean_zero",
    "core.variance",
    "jacobian.kills_ones",
    "jacobian.symmetric",
    "jacobian.closed_form",
    "layer.bias_no_input_effect",
    "layer.output_jacobian",
    "gradient.bias",
    "gradient.gain",
    "gradient.input",
    "gradient.input_sums_to_zero",
    "sensitivity.bound",
    "sensitivity.attained",
    "affine.bias_redundancy",
}

GOOD = '''"""My section

Some words.
"""
from lnsym import Eq, Claim, core, ones, scalar, vector
z, c = vector("z"), scalar("c")
CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z)))]
'''
