"""The command line: lnsym verify."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_catalog import GOOD, REQUIRED_PROVED

from lnsym.cli import main

FALSE = GOOD.replace(
    'CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z)))]',
    'CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z))),\n'
    '          Claim("mine.scale", Eq(core(2 * z), core(z)))]',
)


def test_verify_builtin_catalog_passes(capsys):
    assert main(["verify"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1].endswith("passed, 0 failed")
    assert any(line.split()[1:2] == ["PROVED"] and "jacobian.closed_form" in line for line in out)


def test_verify_json_lists_every_required_claim_as_proved(capsys):
    assert main(["verify", "--json", "-"]) == 0
    captured = capsys.readouterr()
    payload = json.loads(captured.out)
    assert payload["schema_version"] == 1 and payload["failed"] == 0
    by_id = {r["id"]: r for r in payload["results"]}
    for claim_id in REQUIRED_PROVED:
        record = by_id[claim_id]
        assert record["verdict"] == "PROVED"
        general = [e for e in record["evidence"] if e["engine"] == "general"]
        assert general and general[0]["outcome"] == "proved"
        assert general[0]["dimension"] == "symbolic d"
        assert record["statement"] and isinstance(record["seconds"], float)
    assert "passed" in captured.err  # progress goes to stderr when JSON is on stdout


def test_verify_pattern_and_json_file(tmp_path, capsys):
    target = tmp_path / "out.json"
    assert main(["verify", "-k", "gradient.*", "--json", str(target)]) == 0
    ids = [r["id"] for r in json.loads(target.read_text())["results"]]
    assert ids and all(i.startswith("gradient.") for i in ids)
    capsys.readouterr()
    assert main(["verify", "-k", "closed_form"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[-1] for line in lines[:-1]] == ["jacobian.closed_form"]


def test_verify_user_module_with_a_false_claim(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(FALSE)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "mine.scale" in out and "1 passed, 1 failed" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "--timeout", "abc"],
        ["verify", "--timeout", "-1"],
        ["verify", "missing.py"],
        ["verify", "-k", "no-such-claim"],
        ["verify", "--bogus"],
        ["frobnicate"],
        [],
    ],
)
def test_bad_usage_is_one_line_and_exit_2(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1 and "error" in captured.err
    assert "Traceback" not in captured.err


def test_broken_user_module_is_one_line(tmp_path, capsys):
    path = tmp_path / "broken.py"
    path.write_text("from lnsym import nothing_here\n")
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("lnsym: error:") and err.count("\n") == 1
    assert "ImportError" in err


def test_console_script_runs_outside_the_repository(tmp_path):
    script = Path(sys.executable).with_name("lnsym")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "lnsym"]
    done = subprocess.run(
        [*command, "verify", "-k", "core."], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "passed, 0 failed" in done.stdout
