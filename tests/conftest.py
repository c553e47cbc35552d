"""Shared test configuration: a fast, deterministic hypothesis profile."""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "lnsym",
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("lnsym")
