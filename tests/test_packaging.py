"""The wheel ships the built-in catalog and works outside the repository."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_wheel_contains_the_catalog_and_verifies_it(tmp_path):
    wheel_command = ["pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)]
    build = subprocess.run([sys.executable, "-m", *wheel_command], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    (wheel,) = tmp_path.glob("lnsym-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "lnsym/derivations/03_jacobian.py" in names
    assert "lnsym/py.typed" in names
    assert "lnsym_pytest.py" in names  # the pytest plugin, beside the package
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "lnsym = lnsym_pytest" in zipfile.ZipFile(wheel).read(entry_points).decode()

    site = tmp_path / "site"
    install_command = ["pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)]
    install = subprocess.run(
        [sys.executable, "-m", *install_command], capture_output=True, text=True
    )
    assert install.returncode == 0, install.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    # Claims of one section with two engines show that the packaged catalog loads, proves
    # and refutes (jacobian.kills_ones, .eigen_orthogonal, .eigenvalue_order: PROVED;
    # .norm_every_dimension: REFUTED); every engine on the whole catalog is exercised by the
    # CLI tests, so the section's costlier claims (most of its time) are not checked again.
    code = (
        "import lnsym, sys; print(lnsym.__file__); from lnsym.cli import main; "
        "sys.exit(main(['verify', '--engines', 'general,concrete', '-k', 'jacobian.*_[oe]*']))"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    first, *rest = run.stdout.splitlines()
    assert first.startswith(str(site))
    assert rest[-1].endswith("passed, 0 failed")
    verdicts = {line.split()[1] for line in rest[:-1]}
    assert {"PROVED", "REFUTED"} <= verdicts, run.stdout
