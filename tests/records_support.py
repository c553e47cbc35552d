"""Shared by the cache and record tests: equality part by part, types included."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import sympy


def same(a: Any, b: Any) -> bool:
    """Equal part by part with the same types: 1 and Integer(1), or a tuple and a list,
    are different here (``==`` would call them equal); dict keys in the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, sympy.Basic):
        return a == b and len(a.args) == len(b.args) and all(map(same, a.args, b.args))
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        pairs = zip(a, b, strict=False)  # lengths compared first
        return len(a) == len(b) and all(same(k, j) and same(a[k], b[j]) for k, j in pairs)
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)
