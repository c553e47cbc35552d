"""The command line: lnsym verify."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from test_catalog import GOOD, REQUIRED_PROVED

from lnsym.cli import main

FALSE = GOOD.replace(
    'CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z)))]',
    'CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z))),\n'
    '          Claim("mine.scale", Eq(core(2 * z), core(z)))]',
)
SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "verify-schema.json"


@pytest.fixture(scope="module")
def full_run(tmp_path_factory) -> tuple[int, dict, str, Path]:
    """The whole built-in catalog with every engine, once (in two processes)."""
    import contextlib
    import io

    junit = tmp_path_factory.mktemp("junit") / "out.xml"
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["verify", "--json", "-", "-j", "2", "--junit-xml", str(junit)])
    return code, json.loads(out.getvalue()), err.getvalue(), junit


def test_verify_builtin_catalog_passes_with_every_engine(full_run):
    code, payload, err, _ = full_run
    assert code == 0
    assert payload["schema_version"] == 1 and payload["failed"] == 0
    assert err.splitlines()[-1] == f"{payload['passed']} passed, 0 failed"
    by_id = {r["id"]: r for r in payload["results"]}
    for claim_id in REQUIRED_PROVED:
        record = by_id[claim_id]
        assert record["verdict"] == "PROVED"
        engines = {e["engine"]: e for e in record["evidence"]}
        assert engines["general"]["outcome"] == "proved"
        assert engines["general"]["dimension"] == "symbolic d"
        assert engines["concrete"]["outcome"] == "holds"
        assert engines["concrete"]["dimensions"][-1] == 8
        assert engines["numeric"]["outcome"] == "consistent"
        assert record["statement"] and isinstance(record["seconds"], float)


def test_every_refuted_claim_has_an_exact_counterexample(full_run):
    _, payload, _, _ = full_run
    refuted = [r for r in payload["results"] if r.get("expect") == "refuted"]
    assert len(refuted) >= 7
    for record in refuted:
        assert record["verdict"] == "REFUTED", record["id"]
        example = record["counterexample"]
        assert example["d"] >= 1 and example["lhs"] != example["rhs"]


def test_json_output_follows_the_documented_schema(full_run):
    jsonschema = pytest.importorskip("jsonschema")
    _, payload, _, _ = full_run
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(payload, schema, cls=jsonschema.Draft202012Validator)
    broken = dict(payload, results=[dict(payload["results"][0], verdict="MAYBE")])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema, cls=jsonschema.Draft202012Validator)


def test_junit_xml_has_one_testcase_per_item(full_run):
    _, payload, _, junit = full_run
    suite = ET.parse(junit).getroot()
    cases = suite.findall("testcase")
    assert suite.tag == "testsuite" and suite.get("tests") == str(len(payload["results"]))
    assert [c.get("name") for c in cases] == [r["id"] for r in payload["results"]]
    assert suite.get("failures") == "0" and not suite.findall(".//failure")


def test_junit_failures_carry_the_counterexample(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(FALSE)
    junit = tmp_path / "junit.xml"
    assert main(["verify", str(path), "--junit-xml", str(junit)]) == 1
    (failure,) = ET.parse(junit).getroot().iter("failure")
    assert failure.get("type") == "REFUTED"
    assert "counterexample" in failure.text and "mine.scale" in failure.get("message")


def test_parallel_run_gives_the_serial_results(tmp_path):
    def records(*extra: str) -> list[dict]:
        target = tmp_path / f"run{len(extra)}.json"
        light = ["--samples", "30", "--max-d", "4"]
        assert main(["verify", "-k", "jacobian.", *light, "--json", str(target), *extra]) == 0
        rows = json.loads(target.read_text())["results"]
        for row in rows:
            row.pop("seconds")
            for e in row.get("evidence", []):
                e.pop("seconds")
        return rows

    assert records("-j", "2") == records()


def test_total_timeout_turns_the_rest_into_timeouts(capsys):
    code = main(["verify", "-k", "gradient.", "--total-timeout", "0.001"])
    out = capsys.readouterr().out
    assert code == 1
    assert "TIMEOUT" in out and "passed" in out


def test_verify_pattern_and_json_file(tmp_path, capsys):
    target = tmp_path / "out.json"
    assert main(["verify", "-k", "gradient.*", "--engines", "general", "--json", str(target)]) == 1
    results = json.loads(target.read_text())["results"]
    assert results and all(r["id"].startswith("gradient.") for r in results)
    # With the general engine alone, false claims are not refuted (no exact counterexample).
    assert {r["verdict"] for r in results if r["expect"] == "refuted"} == {"ERROR"}
    capsys.readouterr()
    assert main(["verify", "-k", "closed_form", "--engines", "general"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[-1] for line in lines[:-1]] == ["jacobian.closed_form"]


def test_verify_user_module_with_a_false_claim(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(FALSE)
    assert main(["verify", str(path)]) == 1
    out = capsys.readouterr().out
    assert "FAIL REFUTED" in out and "mine.scale" in out and "1 passed, 1 failed" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["verify", "--timeout", "abc"],
        ["verify", "--timeout", "-1"],
        ["verify", "-j", "0"],
        ["verify", "--engines", "magic"],
        ["verify", "--max-d", "1.5"],
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
        [*command, "verify", "-k", "core.", "--engines", "general,concrete"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "passed, 0 failed" in done.stdout
