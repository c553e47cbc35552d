"""The project's own rules: ruff (including the ban on SymPy's string parsers) passes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RUFF = [sys.executable, "-m", "ruff", "check"]  # ruff comes with the test extras


def test_ruff_passes_with_the_parser_ban():
    paths = ["lnsym", "lnsym_pytest.py", "derivations", "tests", "benchmarks"]
    done = subprocess.run([*RUFF, *paths], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_ban_catches_sympify(tmp_path):
    offender = tmp_path / "offender.py"
    offender.write_text("import sympy\n\nsympy.sympify('x')\n")
    config = ["--config", str(REPO / "pyproject.toml")]
    done = subprocess.run([*RUFF, *config, str(offender)], capture_output=True, text=True)
    assert done.returncode == 1 and "TID251" in done.stdout
