"""Shared test configuration: a fast, deterministic hypothesis profile; no results cache."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Tests check afresh: a result kept by an earlier run (or an earlier test) would hide what a
# test changes, e.g. a broken rule. Subprocesses inherit this; tests/checking/test_cache.py
# turns the cache on where it is the subject.
os.environ["LNSYM_CACHE"] = "off"

settings.register_profile(
    "lnsym",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("lnsym")
