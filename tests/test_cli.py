"""The command line: lnsym verify."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from catalog_support import GOOD, REQUIRED_PROVED

from lnsym.cli import main
from lnsym.errors import UserInputError
from lnsym.parse import parse_seconds

FALSE = GOOD.replace(
    'CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z)))]',
    'CLAIMS = [Claim("mine.shift", Eq(core(z + c * ones), core(z))),\n'
    '          Claim("mine.scale", Eq(core(2 * z), core(z)))]',
)
SCHEMA = Path(__file__).resolve().parent.parent / "docs" / "verify-schema.json"


@pytest.fixture(scope="module")
def full_run(tmp_path_factory) -> tuple[int, dict, str, Path]:
    """``lnsym verify`` of the whole built-in catalog with every engine.

    The checking itself is the session's one check of the catalog (report_support), handed
    to the CLI as the runner's results: what is tested here is everything the CLI does
    with them (exit code, JSON, JUnit, summary line).
    """
    import contextlib
    import io

    from report_support import catalog_results

    from lnsym.checking import runner

    results = catalog_results()
    junit = tmp_path_factory.mktemp("junit") / "out.xml"
    out, err = io.StringIO(), io.StringIO()
    patch = pytest.MonkeyPatch()

    def checked(items, options, **_):
        assert [item.id for item in items] == list(results)  # the whole catalog, in order
        return [results[item.id] for item in items]

    patch.setattr(runner, "run", checked)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(["verify", "--json", "-", "--junit-xml", str(junit)])
    finally:
        patch.undo()
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


def test_only_the_json_computes_the_general_engines_residuals(tmp_path, capsys, monkeypatch):
    from lnsym.engines.general import GeneralEngine

    asked: list[str] = []
    real = GeneralEngine.residual

    def counted(self, *args, **kwargs):
        asked.append("residual")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(GeneralEngine, "residual", counted)
    path = tmp_path / "mine.py"
    path.write_text(FALSE)
    assert main(["verify", str(path), "-j", "1"]) == 1
    assert "FAIL REFUTED" in capsys.readouterr().out and not asked
    target = tmp_path / "out.json"
    assert main(["verify", str(path), "-j", "1", "--json", str(target)]) == 1
    (record,) = [r for r in json.loads(target.read_text())["results"] if r["id"] == "mine.scale"]
    general = record["evidence"][0]
    assert general["engine"] == "general" and general["outcome"] == "not proved"
    assert general["residual"] and general["residual_latex"] and asked


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


# ---------------------------------------------------------------------------------------
# Reliability (issue 9): bad input is one line and exit 2; nothing is left half-written.


def exit_code(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse errors
        return int(exc.code)


def assert_one_line_error(err: str, *fragments: str) -> None:
    assert err.startswith("lnsym") and err.count("\n") == 1, err
    assert "error" in err and "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


QUICK = ["verify", "-k", "core.shift", "--engines", "general"]


@pytest.mark.parametrize("option", ["--timeout", "--total-timeout"])
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("1e400", "at most 1000000 seconds"),  # overflowed float() with a traceback
        ("1e10", "at most 1000000 seconds"),  # overflowed the interval timer (ERROR verdicts)
        ("1e-400", "rounds to 0"),  # was accepted as 0
        ("0", "positive"),
        ("-0.5", "positive"),
        ("nan", "not a number"),
        ("inf", "not a number"),
    ],
)
def test_timeouts_must_be_finite_and_positive(option, value, message, capsys):
    assert exit_code([*QUICK, option, value]) == 2
    captured = capsys.readouterr()
    assert_one_line_error(captured.err, f"argument {option}: ", message)
    assert captured.out == ""


def test_time_budgets_parse_exactly():
    assert parse_seconds("1/4") == 0.25
    assert parse_seconds("1e6") == 1_000_000.0
    assert parse_seconds("1e-300") == 1e-300
    with pytest.raises(UserInputError, match="at most"):
        parse_seconds("1000000.5")


def test_jobs_are_capped_at_the_usable_cpus(monkeypatch, capsys):
    from lnsym.checking import runner as runner

    seen: list[int] = []
    real_run = runner.run

    def spy(items, options, *, jobs=1, total_timeout=None):  # noqa: ANN001, ANN202
        seen.append(jobs)
        return real_run(items, options, jobs=jobs, total_timeout=total_timeout)

    monkeypatch.setattr(runner, "run", spy)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert main([*QUICK, "-j", "1000"]) == 0
    captured = capsys.readouterr()
    assert seen == [2]
    assert captured.err == "lnsym: note: -j 1000 is more than the 2 usable CPUs; using -j 2\n"
    assert "1 passed, 0 failed" in captured.out
    assert main([*QUICK, "-j", "2"]) == 0
    assert seen == [2, 2] and capsys.readouterr().err == ""


def test_the_runner_starts_no_more_processes_than_cpus(monkeypatch):
    from lnsym.checking import runner as runner
    from lnsym.checking.catalog import load
    from lnsym.checking.checker import Options

    sizes: list[int] = []

    class FakePool:  # runs the workers in this process, recording the pool size
        def __init__(self, size: int) -> None:
            sizes.append(size)

        def __enter__(self) -> FakePool:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def map_async(self, function, indices, chunksize=1):  # noqa: ANN001, ANN201
            class Done:
                def get(self) -> list:
                    return results

            results = [function(i) for i in indices]
            return Done()

    class Context:
        Pool = FakePool

    monkeypatch.setattr(runner.multiprocessing, "get_context", lambda kind: Context)
    monkeypatch.setattr(runner, "_WORKER_CHECKER", None)  # restored afterwards
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    items = runner.select(load(), "core.")
    assert len(items) > 2
    options = Options(engines=("general",))
    verdicts = [o.verdict for o in runner.run(items, options, jobs=1000)]
    assert sizes == [2]
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0}, raising=False)
    assert [o.verdict for o in runner.run(items, options, jobs=8)] == verdicts
    assert sizes == [2]  # one usable CPU: a serial run, no pool


@pytest.mark.parametrize("value", ["0", "-1", "-3"])
def test_jobs_must_be_positive(value, capsys):
    assert exit_code([*QUICK, "-j", value]) == 2
    assert_one_line_error(capsys.readouterr().err, "argument -j/--jobs")


@pytest.mark.parametrize(
    "body",
    ["import sys\nsys.exit(3)\n", "import sys\nsys.exit('bye')\n", "raise SystemExit\n"],
)
def test_a_module_that_exits_at_import_is_one_line(tmp_path, capsys, body):
    path = tmp_path / "exits.py"
    path.write_text(body)
    assert exit_code(["verify", str(path)]) == 2
    captured = capsys.readouterr()
    assert_one_line_error(captured.err, f"{path}:", "SystemExit")
    assert captured.out == ""


@pytest.mark.parametrize("option", ["--json", "--junit-xml"])
def test_output_files_must_be_regular_files_or_new_paths(option, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert exit_code([*QUICK, option, str(fifo)]) == 2
    captured = capsys.readouterr()
    assert_one_line_error(captured.err, f"{option} {fifo}: not a regular file")
    assert captured.out == ""  # refused before checking anything
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # not replaced by a regular file
    assert exit_code([*QUICK, option, str(tmp_path)]) == 2
    assert_one_line_error(capsys.readouterr().err, f"{option} {tmp_path}: is a directory")
    assert exit_code([*QUICK, option, ""]) == 2
    assert_one_line_error(capsys.readouterr().err, f"argument {option}: empty file name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]


@pytest.mark.parametrize("command", ["report", "exercises"])
def test_empty_out_is_refused(command, tmp_path, monkeypatch, capsys):
    module = tmp_path / "mine.py"
    module.write_text(GOOD)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    paths = [str(module)] if command == "report" else ["--count", "1"]
    assert exit_code([command, *paths, "--format", "md", "--out", ""]) == 2
    assert_one_line_error(capsys.readouterr().err, "argument --out: empty directory name")
    assert list(cwd.iterdir()) == []


def snapshot(root: Path) -> dict[str, bytes | None]:
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


class InterruptedFiles(dict):
    """Rendered files whose second one is interrupted (Ctrl-C) when it is read to be written."""

    reads = 0

    def __getitem__(self, key: str) -> bytes:
        self.reads += 1
        if self.reads == 2:
            raise KeyboardInterrupt
        return super().__getitem__(key)


def test_an_interrupted_exercises_run_keeps_the_previous_sheet(tmp_path, monkeypatch, capsys):
    from lnsym.report import sheets

    out = tmp_path / "out"
    argv = ["exercises", "--count", "2", "--format", "md", "--out", str(out)]
    assert main([*argv, "--seed", "1"]) == 0
    before = snapshot(out)
    assert sorted(before) == ["answers.md", "exercises.md"]
    real = sheets.render_sheet

    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        rendered = real(*args, **kwargs)
        rendered.files = InterruptedFiles(rendered.files)
        return rendered

    monkeypatch.setattr(sheets, "render_sheet", interrupted)
    capsys.readouterr()
    code = main([*argv, "--seed", "2"])
    assert code == 130 and capsys.readouterr().err.endswith("lnsym: interrupted\n")
    assert snapshot(out) == before  # no answers of seed 2 beside exercises of seed 1


def test_an_interrupted_report_writes_nothing(tmp_path, monkeypatch, capsys):
    from lnsym.report import build

    module = tmp_path / "mine.py"
    module.write_text(GOOD)
    out = tmp_path / "out"
    real = build.render_report

    def interrupted(*args, **kwargs):  # noqa: ANN002, ANN003, ANN202
        rendered = real(*args, **kwargs)
        assert len(rendered.files) >= 2  # the document in two formats
        rendered.files = InterruptedFiles(rendered.files)
        return rendered

    monkeypatch.setattr(build, "render_report", interrupted)
    assert main(["report", str(module), "--format", "md,tex", "--out", str(out)]) == 130
    assert not out.exists()


def test_example_dimension_is_limited(capsys):
    too_big = ",".join(str(i) for i in range(65))
    assert exit_code(["example", "--z", too_big, "--eps", "1"]) == 2
    captured = capsys.readouterr()
    assert_one_line_error(captured.err, "z has 65 entries, but a worked example takes at most d =")
    assert captured.out == ""
    assert main(["example", "--z", too_big.rpartition(",")[0], "--eps", "1"]) == 0
    assert "d = 64" in capsys.readouterr().out


def test_example_help_states_the_limit(capsys):
    from lnsym.exact.examples import MAX_DIMENSION

    assert exit_code(["example", "--help"]) == 0
    assert f"at most {MAX_DIMENSION} entries" in " ".join(capsys.readouterr().out.split())


def test_only_a_command_that_owns_its_process_freezes_what_it_loaded(tmp_path, monkeypatch):
    import argparse
    import gc

    from lnsym.commands import options

    frozen = []
    monkeypatch.setattr(gc, "freeze", lambda: frozen.append(True))
    assert main(["verify", "--engines", "general", "-k", "mean.shift"]) == 0
    assert frozen == []  # main() called by other code: the collector is theirs
    options.freeze_loaded(argparse.Namespace(owns_process=True))
    assert frozen == [True]
    script = "import gc, sys; from lnsym.cli import main; main(); print(gc.get_freeze_count() > 0)"
    argv = [sys.executable, "-c", script, "verify", "--engines", "general", "-k", "mean.shift"]
    done = subprocess.run(argv, capture_output=True, text=True, cwd=tmp_path, check=True)
    assert done.stdout.strip().endswith("True")


def test_an_output_file_is_never_an_input_module(tmp_path, capsys):
    path = tmp_path / "mine.py"
    path.write_text(FALSE)
    for option in ("--json", "--junit-xml"):
        assert main(["verify", str(path), option, str(path)]) == 2
        assert "is an input of this run" in capsys.readouterr().err
        assert path.read_text() == FALSE
