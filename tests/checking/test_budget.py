"""Time budgets interrupt slow computations, also when nested."""

from __future__ import annotations

import time

import pytest

from lnsym.checking.budget import time_budget
from lnsym.errors import BudgetExceeded


def spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_budget_interrupts():
    start = time.monotonic()
    with pytest.raises(BudgetExceeded), time_budget(0.2):
        spin(3)
    assert time.monotonic() - start < 1


def test_unlimited_budget_is_not_enforced():
    with time_budget(None) as enforced:
        spin(0.01)
    assert enforced is False


def test_inner_budget_cannot_outlive_the_outer_one():
    start = time.monotonic()
    with pytest.raises(BudgetExceeded), time_budget(0.3):
        with time_budget(5):
            spin(3)
    assert time.monotonic() - start < 1


def test_outer_budget_resumes_with_what_is_left():
    start = time.monotonic()
    with pytest.raises(BudgetExceeded), time_budget(0.5):
        with time_budget(0.2):
            spin(0.1)
        spin(3)
    assert time.monotonic() - start < 1
