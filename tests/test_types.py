"""lnsym type-checks: plain mypy, with the configuration in pyproject.toml, finds no error."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def test_mypy_passes_with_the_pyproject_configuration(tmp_path):
    if importlib.util.find_spec("mypy") is None:
        pytest.skip("mypy is not installed (it comes with the test extras: pip install -e .[test])")
    # No paths on the command line: [tool.mypy] names the files, so this checks what the
    # configuration says. The cache goes to tmp_path, so the repository stays untouched.
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--config-file",
        str(REPO / "pyproject.toml"),
        "--cache-dir",
        str(tmp_path / "mypy_cache"),
    ]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, f"mypy exited with {done.returncode}:\n{done.stdout}{done.stderr}"
