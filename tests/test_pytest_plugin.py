"""The pytest plugin, run in throwaway projects through subprocesses."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MODULE = '''"""A team's own identities."""
from lnsym import Claim, Eq, core, jvp, ones, scalar, vector
from lnsym.checking.proof import Derivation, Step

z, c = vector("z"), scalar("c")
CLAIMS = [
    Claim("team.shift", Eq(core(z + c * ones), core(z))),
    Claim("team.kills_ones", Eq(jvp(core(z), z, ones), 0)),
    Claim("team.wrong", Eq(jvp(core(z), z, z), 0)),
]
DERIVATIONS = [
    Derivation("team.chain", "shift", core(z + c * ones), [Step(core(z), "shift invariance")]),
]
'''

TEST_FILE = "def test_ordinary():\n    assert 1 + 1 == 2\n"


def make_project(root: Path, *, configured: bool) -> Path:
    (root / "derivations").mkdir()
    (root / "derivations" / "identities.py").write_text(MODULE)
    (root / "tests").mkdir()
    (root / "tests" / "test_plain.py").write_text(TEST_FILE)
    options = '\nlnsym_paths = ["derivations"]' if configured else ""
    (root / "pyproject.toml").write_text(
        textwrap.dedent(
            f"""\
            [tool.pytest.ini_options]
            testpaths = ["tests"]{options}
            """
        )
    )
    return root


def run_pytest(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=root,
        capture_output=True,
        text=True,
    )


def test_configured_project_collects_claims_and_derivations(tmp_path):
    done = run_pytest(make_project(tmp_path, configured=True), "-rf")
    assert done.returncode == 1, done.stdout
    assert "1 failed, 4 passed" in done.stdout
    assert "derivations/identities.py::team.wrong" in done.stdout
    assert "statement: D_z[core(z)](z) = 0·1" in done.stdout
    assert "general: not proved" in done.stdout


def test_unconfigured_project_collects_nothing_from_lnsym(tmp_path):
    done = run_pytest(make_project(tmp_path, configured=False))
    assert done.returncode == 0, done.stdout
    assert "1 passed" in done.stdout


def test_an_unconfigured_project_never_imports_lnsym(tmp_path):
    # The plugin module lives outside the lnsym package: pytest's start-up in a project
    # that does not use lnsym does not pay for SymPy and the engines (≈ 0.8 s).
    root = make_project(tmp_path, configured=False)
    (root / "tests" / "test_plain.py").write_text(
        "import sys\n\ndef test_lnsym_was_not_imported():\n"
        "    assert 'lnsym' not in sys.modules and 'sympy' not in sys.modules\n"
    )
    done = run_pytest(root)
    assert done.returncode == 0, done.stdout
    assert "1 passed" in done.stdout


def test_command_line_option_and_disabling(tmp_path):
    root = make_project(tmp_path, configured=False)
    done = run_pytest(root, "--lnsym", "derivations", "-k", "shift or kills")
    assert done.returncode == 0, done.stdout
    assert "2 passed, 3 deselected" in done.stdout  # team.shift and team.kills_ones
    disabled = run_pytest(root, "-p", "no:lnsym", "--co")
    assert disabled.returncode == 0
    assert "team." not in disabled.stdout


def test_naming_tests_explicitly_does_not_drag_in_ini_paths(tmp_path):
    root = make_project(tmp_path, configured=True)
    done = run_pytest(root, "tests/test_plain.py")
    assert done.returncode == 0, done.stdout
    assert "1 passed" in done.stdout


@pytest.mark.parametrize("timeout", ["abc"])
def test_bad_timeout_is_reported(tmp_path, timeout):
    root = make_project(tmp_path, configured=True)
    done = run_pytest(root, "--lnsym-timeout", timeout)
    assert done.returncode == 4  # pytest's usage error
    assert "lnsym timeout: not a number" in done.stderr
    assert "Traceback" not in done.stderr


# ---------------------------------------------------------------------------------------
# Reliability (issue 9): configuration mistakes stop the session with a clear message.


def set_ini(root: Path, extra: str = "", paths: str = '"derivations"') -> None:
    (root / "pyproject.toml").write_text(
        f'[tool.pytest.ini_options]\ntestpaths = ["tests"]\nlnsym_paths = [{paths}]\n{extra}'
    )


@pytest.mark.parametrize("timeout", ["1e400", "1e-400", "0", "nan"])
def test_bad_ini_timeout_is_a_usage_error(tmp_path, timeout):
    root = make_project(tmp_path, configured=True)
    set_ini(root, f'lnsym_timeout = "{timeout}"\n')
    done = run_pytest(root)
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    assert "ERROR: lnsym timeout: " in done.stderr
    assert "INTERNALERROR" not in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_command_line_timeout_out_of_range_is_a_usage_error(tmp_path):
    done = run_pytest(make_project(tmp_path, configured=True), "--lnsym-timeout", "1e400")
    assert done.returncode == 4
    assert "lnsym timeout: " in done.stderr and "at most" in done.stderr
    assert "INTERNALERROR" not in done.stdout + done.stderr


@pytest.mark.parametrize("args", [(), ("tests/test_plain.py",)])
def test_a_missing_configured_path_fails_the_session(tmp_path, args):
    root = make_project(tmp_path, configured=True)
    set_ini(root, paths='"derivations", "gone"')
    done = run_pytest(root, *args)
    assert done.returncode == 4, done.stdout
    assert f"lnsym_paths: {root / 'gone'}: no such file or directory" in done.stderr


def test_a_missing_command_line_path_and_an_empty_directory_fail_the_session(tmp_path):
    root = make_project(tmp_path, configured=False)
    done = run_pytest(root, "--lnsym", "nothere.py")
    assert done.returncode == 4
    assert f"--lnsym: {root / 'nothere.py'}: no such file or directory" in done.stderr
    (root / "empty").mkdir()
    done = run_pytest(root, "--lnsym", "empty")
    assert done.returncode == 4
    assert f"--lnsym: no derivation modules found in {root / 'empty'}" in done.stderr


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("import sys\nsys.exit(3)\n", "broken.py:2: SystemExit: 3"),
        ("raise KeyError('k')\n", "broken.py:1: KeyError: 'k'"),
    ],
)
def test_a_module_that_exits_or_raises_at_import_is_a_collection_error(tmp_path, body, message):
    root = make_project(tmp_path, configured=True)
    (root / "derivations" / "broken.py").write_text(body)
    done = run_pytest(root)
    output = done.stdout + done.stderr
    assert done.returncode == 2, output  # interrupted: errors during collection
    assert "ERROR collecting derivations/broken.py" in done.stdout
    assert message in done.stdout
    assert "INTERNALERROR" not in output and "mainloop: caught unexpected SystemExit" not in output
