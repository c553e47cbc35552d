"""``lnsym derive``: the expression language in, a proved closed form out; bad input exits 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lnsym.cli import main


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(["derive", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_input_gradient_is_derived_and_proved(capsys):
    code, out, err = run(capsys, "vjp(layer_norm(z, gamma, beta), z, g)", "--format", "json")
    assert code == 0, err
    record = json.loads(out)
    assert record["verdict"] == "PROVED"
    assert record["derived_latex"].startswith(r"\frac{1}{s}")
    assert r"P (\boldsymbol{\gamma} \odot \mathbf{g})" in record["derived_latex"]
    assert record["steps"][0]["text"] == record["asked"]
    assert record["size"] == 26


def test_wrt_differentiates_first(capsys):
    code, out, _ = run(capsys, "var(z)", "--wrt", "z", "--format", "json")
    assert code == 0 and json.loads(out)["derived_latex"] == r"\frac{2}{d} P \mathbf{z}"
    code, out, _ = run(capsys, "core(z)", "--wrt", "z", "--along", "k", "--format", "tex")
    assert code == 0 and r"P \mathbf{k}" in out and out.startswith("\\[")
    code, out, _ = run(capsys, "layer_norm(z, a*ones, beta)", "--wrt", "a", "--scalar", "a")
    assert code == 0 and "PROVED" in out


def test_every_format(capsys):
    for fmt, marker in (("text", "derived: "), ("md", "$$"), ("tex", "\\["), ("json", "{")):
        code, out, _ = run(capsys, "jvp(core(z), z, h)", "--format", fmt)
        assert code == 0 and out.startswith(marker) or marker in out, (fmt, out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["mean(z, h"], 'column 7: expected ")"'),
        (["core(z) +"], "column"),
        (["z + eps"], "cannot add the vector"),
        (["jvp(core(z), z, h)", "--format", "pdf"], "--format 'pdf'"),
        (["core(z)", "--wrt", "d"], "--wrt 'd'"),
        (["core(z)", "--wrt", "z", "--along", "2*h"], "--along"),
        (["core(z)", "--scalar", "a b"], "--scalar"),
        (["__import__('os').system('echo hacked')"], "column"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("lnsym: error: ") and message in err


@settings(max_examples=60, deadline=None)
@given(st.text(max_size=40))
def test_random_text_never_crashes_and_exits_0_or_2(text):
    # Text the language refuses exits 2 with one line; text it reads is derived (0).
    # "--" ends the options: the text may begin with "-".
    code = main(["derive", "--", text])
    assert code in (0, 2), text


def test_the_command_line_entry_point(tmp_path):
    env = {**os.environ, "PYTHONHASHSEED": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "lnsym", "derive", "jvp(core(z), z, h)"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("asked:") and "PROVED" in proc.stdout
