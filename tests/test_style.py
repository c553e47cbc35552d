"""The project's own rules: ruff (including the ban on SymPy's string parsers) passes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_ruff_passes_with_the_parser_ban():
    if (
        shutil.which("ruff") is None
        and subprocess.run(
            [sys.executable, "-m", "ruff", "--version"], capture_output=True
        ).returncode
    ):
        pytest.skip("ruff is not installed (it is in the test extras)")
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "lnsym", "derivations", "tests", "benchmarks"],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_ban_catches_sympify(tmp_path):
    offender = tmp_path / "offender.py"
    offender.write_text("import sympy\n\nsympy.sympify('x')\n")
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ruff",
            "check",
            "--config",
            str(REPO / "pyproject.toml"),
            str(offender),
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and "TID251" in done.stdout
