"""The tutorial's code runs and its commands do what it says."""

from __future__ import annotations

import re
from pathlib import Path

from lnsym.cli import main

TUTORIAL = (Path(__file__).resolve().parents[1] / "docs" / "tutorial.md").read_text()
_BLOCK = re.compile(r"```(\w+)\n(.*?)```", re.DOTALL)


def blocks(language: str) -> list[str]:
    return [body for lang, body in _BLOCK.findall(TUTORIAL) if lang == language]


def test_the_first_question_runs(capsys):
    first, _module = blocks("python")
    exec(compile(first, "tutorial", "exec"), {})  # our own documentation, not user input
    assert capsys.readouterr().out.startswith("2 ")  # the counterexample's dimension


def test_the_module_verifies_and_renders_as_described(tmp_path, capsys, monkeypatch):
    _first, module = blocks("python")
    (tmp_path / "my_identities.py").write_text(module)
    monkeypatch.chdir(tmp_path)
    assert main(["verify", "my_identities.py"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[1] for line in lines[:-1]] == ["PROVED", "PROVED", "REFUTED", "PROVED"]
    assert lines[-1] == "4 passed, 0 failed"
    assert main(["report", "my_identities.py", "--out", "my-report", "--format", "md,tex"]) == 0
    report = (tmp_path / "my-report" / "my_identities.md").read_text()
    assert "The squared norm of the core" in report and "mine.norm_derivation" in report


def test_the_commands_shown_exist(capsys):
    commands = [line for block in blocks("sh") for line in block.splitlines()]
    assert any(line.startswith("lnsym verify my_identities.py") for line in commands)
    example = next(line for line in commands if line.startswith("lnsym example"))
    assert main(example.split()[1:]) == 0
    assert "(-4, -1, 5)/√17" in capsys.readouterr().out


def test_the_readme_tour_prints_what_it_says():
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    (tour,) = [body for lang, body in _BLOCK.findall(readme) if lang == "python"]
    namespace: dict = {}
    checked = 0
    for line in tour.splitlines():
        expression, _, expected = line.partition("# '")
        if not expected:
            exec(line, namespace)  # the README's own setup lines
            continue
        exec(f"__value = {expression.strip()}", namespace)
        assert namespace["__value"] == expected.rstrip("'"), line
        checked += 1
    assert checked == 3
