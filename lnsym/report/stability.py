"""The naive and the two-pass variance in floating point, for the report's stability chapter.

The variance of z = c·𝟏 + (1, 2, 3) is 2/3 for every offset c. The naive formula
E[z²] − E[z]² subtracts two numbers of size c², so in a format with p significant bits it
loses everything once c² outgrows 2ᵖ; the two-pass formula E[(z − E[z])²] centers first
(exact for these inputs) and keeps 2/3. Sums run left to right in the given format, one
rounding per operation, so the table is the same on every IEEE-754 machine.

>>> naive_variance([10001.0, 10002.0, 10003.0], np.float32)
0.0
>>> round(two_pass_variance([10001.0, 10002.0, 10003.0], np.float32), 7)
0.6666667
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The offsets c of the table.
OFFSETS = (0.0, 1e2, 7e3, 1e4, 1e6, 1e8)
#: The deviations from the offset.
DEVIATIONS = (1.0, 2.0, 3.0)


def _mean(values: Sequence[Any], dtype: type[np.floating]) -> np.floating:
    total = dtype(0)
    for v in values:  # one rounding per addition, in order: no pairwise or SIMD summation
        total = dtype(total + dtype(v))
    return dtype(total / dtype(len(values)))


def naive_variance(z: Sequence[float], dtype: type[np.floating]) -> float:
    """E[z²] − E[z]² computed in ``dtype``."""
    x = [dtype(v) for v in z]
    mean = _mean(x, dtype)
    return float(dtype(_mean([dtype(v * v) for v in x], dtype) - dtype(mean * mean)))


def two_pass_variance(z: Sequence[float], dtype: type[np.floating]) -> float:
    """E[(z − E[z])²] computed in ``dtype``: center first, then square."""
    x = [dtype(v) for v in z]
    mean = _mean(x, dtype)
    centered = [dtype(v - mean) for v in x]
    return float(_mean([dtype(v * v) for v in centered], dtype))


@dataclass(frozen=True)
class VarianceRow:
    """Both formulas in float32 and float64 at one offset."""

    offset: float
    float32_naive: float
    float32_two_pass: float
    float64_naive: float
    float64_two_pass: float


def variance_table() -> tuple[VarianceRow, ...]:
    """One :class:`VarianceRow` per offset of :data:`OFFSETS`."""
    rows = []
    for c in OFFSETS:
        z = [c + t for t in DEVIATIONS]
        rows.append(
            VarianceRow(
                c,
                naive_variance(z, np.float32),
                two_pass_variance(z, np.float32),
                naive_variance(z, np.float64),
                two_pass_variance(z, np.float64),
            )
        )
    return tuple(rows)


def core_first_entry(z: Sequence[float], variance: float, eps: float) -> float:
    """(z₁ − μ(z))/√(q + ε) in float32 for a given variance q (naive or two-pass)."""
    x = [np.float32(v) for v in z]
    mean = _mean(x, np.float32)
    return float(np.float32(x[0] - mean) / np.sqrt(np.float32(variance) + np.float32(eps)))
