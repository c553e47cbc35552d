"""lnsym exercises: reproducible sheets whose every answer agrees with numpy, computed here."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from report_support import katex_available, katex_errors, markdown_formulas, need, tex_available

import lnsym.exact.closed_form as closed_form
from lnsym.cli import main
from lnsym.errors import CrossCheckError
from lnsym.exact.examples import worked_example
from lnsym.exact.exercises import KINDS, Exercise, Sheet, generate_sheet
from lnsym.printing.numbers import latex_value
from lnsym.report import sheets
from lnsym.report.pdf import PdfBuildError
from lnsym.report.sheets import render_document, render_sheet

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "reports" / "exercises"
SAMPLE_COMMAND = ["exercises", "--seed", "1", "--count", "12", "--out", str(SAMPLE)]
HINT = "reports/exercises/ is stale: run `lnsym " + " ".join(SAMPLE_COMMAND) + "` and commit it"
#: Seeds of the numeric cross-check; a 7-exercise sheet has each kind exactly once.
SEEDS = range(30)

ANSWERS = {
    "statistics": {"mean", "centered", "variance", "scale", "core", "core_mean", "core_variance"},
    "shift-scale": {"core", "shifted_core", "scaled_variance", "scaled_scale", "scaled_core"},
    "gain-bias": {
        "core",
        "output",
        "output_mean",
        "output_variance",
        "core_variance",
        "uniform_output",
        "uniform_output_mean",
        "uniform_output_variance",
    },
    "jacobian": {"core", "scale", "jacobian", "jacobian_ones", "output_jacobian"},
    "gradients": {"core", "grad_beta", "grad_gamma", "scaled_upstream", "grad_z", "grad_z_sum"},
    "inverse-variance": {
        "required_variance",
        "direction_variance",
        "scale_factor",
        "input",
        "input_variance",
        "core_variance",
    },
    "sensitivity": {"core", "moved_core", "ratio", "bound", "derivative_ratio"},
}


@cache
def sheet(seed: int, count: int = 7, dimensions: tuple[int, int] = (2, 4)) -> Sheet:
    return generate_sheet(count, seed, dimensions)


def run(argv: list[str]) -> int:
    try:
        return main(argv)
    except SystemExit as exc:  # argparse's own errors
        return int(exc.code or 0)


# ---------------------------------------------------------------------------------------
# An independent numeric evaluation, written directly with numpy


def _variance(x: np.ndarray) -> float:
    centered = x - x.mean()  # two passes: the mean first, then the mean square
    return float(centered @ centered / x.size)


def _core(z: np.ndarray, eps: float) -> np.ndarray:
    return (z - z.mean()) / math.sqrt(_variance(z) + eps)


def _jacobian(f: Callable[[np.ndarray], np.ndarray], z: np.ndarray) -> np.ndarray:
    """Central finite differences, column by column."""
    step = 1e-6
    columns = [(f(z + step * e) - f(z - step * e)) / (2 * step) for e in np.eye(z.size)]
    return np.array(columns).T


def _gradient(f: Callable[[np.ndarray], float], x: np.ndarray) -> np.ndarray:
    return _jacobian(lambda v: np.array([f(v)]), x)[0]


def numeric(name: str, p: dict[str, np.ndarray], a: dict[str, np.ndarray]) -> np.ndarray:
    """The answer ``name`` from the exercise's data ``p`` (and, for the inverse problem, the
    student's input ``a["input"]``), in float64."""
    eps = float(p["eps"])
    z = p["z"] if "z" in p else a["input"]
    ones = np.ones(z.size)

    def output(z, gamma, beta):
        return gamma * _core(z, eps) + beta

    def loss(z, gamma, beta):  # ℓ = ⟨g, y⟩ has the upstream gradient g
        return float(p["g"] @ output(z, gamma, beta))

    def required():  # q with q/(q + ε) = r, by bisection (the ratio increases with q)
        return _bisect(lambda q: q / (q + eps) - float(p["r"]))

    values = {
        "mean": lambda: z.mean(),
        "centered": lambda: z - z.mean(),
        "variance": lambda: _variance(z),
        "scale": lambda: math.sqrt(_variance(z) + eps),
        "core": lambda: _core(z, eps),
        "core_mean": lambda: _core(z, eps).mean(),
        "core_variance": lambda: _variance(_core(z, eps)),
        "shifted_core": lambda: _core(z + p["c"], eps),
        "scaled_variance": lambda: _variance(p["a"] * z),
        "scaled_scale": lambda: math.sqrt(_variance(p["a"] * z) + eps),
        "scaled_core": lambda: _core(p["a"] * z, eps),
        "output": lambda: output(z, p["gamma"], p["beta"]),
        "output_mean": lambda: output(z, p["gamma"], p["beta"]).mean(),
        "output_variance": lambda: _variance(output(z, p["gamma"], p["beta"])),
        "uniform_output": lambda: output(z, p["gamma0"], p["beta0"]),
        "uniform_output_mean": lambda: output(z, p["gamma0"], p["beta0"]).mean(),
        "uniform_output_variance": lambda: _variance(output(z, p["gamma0"], p["beta0"])),
        "jacobian": lambda: _jacobian(lambda v: _core(v, eps), z),
        "jacobian_ones": lambda: _jacobian(lambda v: _core(v, eps), z) @ ones,
        "output_jacobian": lambda: _jacobian(lambda v: output(v, p["gamma"], p["beta"]), z),
        "grad_beta": lambda: _gradient(lambda b: loss(z, p["gamma"], b), p["beta"]),
        "grad_gamma": lambda: _gradient(lambda g: loss(z, g, p["beta"]), p["gamma"]),
        "scaled_upstream": lambda: p["gamma"] * p["g"],
        "grad_z": lambda: _gradient(lambda v: loss(v, p["gamma"], p["beta"]), z),
        "grad_z_sum": lambda: _gradient(lambda v: loss(v, p["gamma"], p["beta"]), z).sum(),
        "required_variance": lambda: required(),
        "direction_variance": lambda: _variance(p["v"]),
        "scale_factor": lambda: math.sqrt(required() / _variance(p["v"])),
        "input": lambda: math.sqrt(required() / _variance(p["v"])) * p["v"],
        "input_variance": lambda: _variance(z),
        "moved_core": lambda: _core(z + p["h"], eps),
        "ratio": lambda: np.linalg.norm(_core(z + p["h"], eps) - _core(z, eps))
        / np.linalg.norm(p["h"]),
        "bound": lambda: 1 / math.sqrt(eps),
        "derivative_ratio": lambda: np.linalg.norm(_jacobian(lambda v: _core(v, eps), z) @ p["h"])
        / np.linalg.norm(p["h"]),
    }  # fmt: skip
    return np.asarray(values[name](), dtype=float)


def _bisect(f: Callable[[float], float], low: float = 0.0, high: float = 1e6) -> float:
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if f(middle) < 0 else (low, middle)
    return (low + high) / 2


def _floats(value: object) -> np.ndarray:
    return np.array(value, dtype=float)


def _entries(value: object) -> list[Fraction]:
    return [Fraction(x) for x in np.asarray(value, dtype=object).ravel()]


def _check_numerically(e: Exercise) -> None:
    params = {k: _floats(v) for k, v in e.params.items()}
    answers = {k: _floats(v) for k, v in e.answers.items()}
    assert set(e.answers) == ANSWERS[e.kind], e.kind
    for name, value in answers.items():
        np.testing.assert_allclose(
            value, numeric(name, params, answers), rtol=1e-6, atol=1e-7, err_msg=f"{e.kind}/{name}"
        )


def test_every_answer_matches_an_independent_numpy_evaluation():
    checked = 0
    for seed in SEEDS:
        for e in sheet(seed).exercises:
            _check_numerically(e)
            checked += len(e.answers)
    # larger dimensions, where matrices are 8 × 8
    for e in sheet(5, 7, (6, 8)).exercises:
        assert 6 <= e.d <= 8
        _check_numerically(e)
    assert checked > 40 * len(SEEDS)


def test_answers_state_the_facts_they_teach():
    for seed in SEEDS:
        by_kind = {e.kind: e for e in sheet(seed).exercises}
        shift = by_kind["shift-scale"].answers
        assert shift["shifted_core"] == shift["core"] != shift["scaled_core"]
        inverse = by_kind["inverse-variance"]
        assert inverse.answers["core_variance"] == inverse.params["r"]
        t, v = inverse.answers["scale_factor"], inverse.params["v"]
        assert t > 0 and inverse.answers["input"] == tuple(t * x for x in v)
        sensitivity = by_kind["sensitivity"].answers
        assert sensitivity["ratio"] < sensitivity["bound"] == sensitivity["derivative_ratio"]
        assert by_kind["gradients"].answers["grad_z_sum"] == 0
        assert by_kind["statistics"].answers["core_mean"] == 0


def _is_rational_square(x: Fraction) -> bool:
    return all(math.isqrt(n) ** 2 == n for n in (x.numerator, x.denominator))


def test_numbers_are_nice():
    for seed in SEEDS:
        for e in sheet(seed).exercises:
            d = e.d
            for name in ("z", "gamma", "beta", "g", "h", "v"):
                if name in e.params:
                    assert all(x.denominator == 1 and abs(x) <= 5 for x in e.params[name]), name
            eps = e.params["eps"]
            assert eps > 0 and eps.denominator <= 144
            if e.kind == "sensitivity":  # so that the bound 1/√ε is rational too
                assert _is_rational_square(eps)
            # s = √(q + ε) is rational, with a small denominator (here computed afresh)
            z = e.params.get("z", e.answers.get("input"))
            mu = sum(z) / d
            total = sum((x - mu) ** 2 for x in z) / d + eps
            if e.kind != "inverse-variance":  # there s may be irrational: only q(u) is asked
                assert _is_rational_square(total), (e.kind, total)
                assert math.isqrt(total.denominator) <= 12
            for value in e.answers.values():
                assert all(x.denominator <= 1000 for x in _entries(value)), (e.kind, value)


def test_every_kind_appears_and_kinds_are_mixed_by_seed():
    assert {e.kind for e in sheet(1, 12).exercises} == set(KINDS)
    short = [tuple(e.kind for e in sheet(seed, 3).exercises) for seed in range(6)]
    assert len(set(short)) > 1  # the seed decides which kinds a short sheet gets
    assert {kind for kinds in short for kind in kinds} == set(KINDS)
    for kinds in short:  # presented from the basics to the sensitivity
        assert list(kinds) == sorted(kinds, key=KINDS.index)
    # a range starting at 1 draws from 2 upwards (d = 1 has no non-constant input)
    assert {e.d for e in sheet(2, 7, (1, 3)).exercises} == {2, 3}


def test_the_key_prints_the_checked_answers():
    key = render_document(sheet(1, 12), "md", answers=True)
    sections = re.split(r"^## Exercise \d+\. ", key, flags=re.MULTILINE)[1:]
    assert len(sections) == 12
    for e, section in zip(sheet(1, 12).exercises, sections, strict=True):
        assert section.startswith(e.title)
        for name, value in e.answers.items():
            assert latex_value(value) in section, (e.kind, name)
    questions = render_document(sheet(1, 12), "md", answers=False)
    assert "$$" not in questions  # the exercise sheet has no worked steps
    assert questions.count("**(a)**") == 12


# ---------------------------------------------------------------------------------------
# Reproducibility and the committed sample


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_same_bytes_twice_and_under_another_hash_seed(tmp_path):
    argv = ["exercises", "--seed", "1", "--count", "12", "--format", "md,tex"]
    assert run([*argv, "--out", str(tmp_path / "a")]) == 0
    assert run([*argv, "--out", str(tmp_path / "b")]) == 0
    first = _files(tmp_path / "a")
    assert sorted(first) == ["answers.md", "answers.tex", "exercises.md", "exercises.tex"]
    assert first == _files(tmp_path / "b")
    hash_seed = str(int(os.environ.get("PYTHONHASHSEED", "0") or 0) + 4242)
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run(
        [sys.executable, "-m", "lnsym", *argv, "--out", str(tmp_path / "c")],
        env=env,
        check=True,
        capture_output=True,
    )
    assert _files(tmp_path / "c") == first


def test_committed_sample_is_current():
    rendered = render_sheet(sheet(1, 12), ("md", "tex", "pdf"), build=False).files
    for name in ("exercises.md", "answers.md", "exercises.tex", "answers.tex"):
        assert (SAMPLE / name).read_bytes() == rendered[name], HINT
    for name in ("exercises", "answers"):
        digest = re.search(rb"lnsym-fingerprint-([0-9a-f]{64})", rendered[f"{name}.tex"])
        assert digest is not None
        assert b"lnsym-fingerprint-" + digest.group(1) in (SAMPLE / f"{name}.pdf").read_bytes()


def test_markdown_math_renders_with_katex():
    need(katex_available(), "node with the npm package katex")
    formulas = []
    for s in (sheet(1, 12), sheet(5, 7, (6, 8))):
        for answers in (False, True):
            formulas += markdown_formulas(render_document(s, "md", answers=answers))
    displays = sum(1 for f in formulas if f["display"])
    parts = sum(
        1 for s in (sheet(1, 12), sheet(5, 7, (6, 8))) for e in s.exercises for p in e.parts
    )
    assert displays == parts  # one display of worked steps per part in the key
    # GitHub renders Markdown math with MathJax 3, which has no \allowbreak (KaTeX has)
    assert not any("allowbreak" in f["tex"] for f in formulas)
    result = katex_errors(formulas)
    assert result["checked"] == len(formulas)
    assert [(formulas[e["index"]]["tex"], e["error"]) for e in result["errors"]] == []


def test_pdfs_build_without_overfull_lines_reproducibly():
    need(tex_available(), "latexmk with pdflatex (texlive)")
    first = render_sheet(sheet(1, 12), ("pdf",))
    assert sorted(first.files) == ["answers.pdf", "exercises.pdf"]
    assert first.overfull == []
    for name, pdf in first.files.items():
        assert pdf.startswith(b"%PDF-"), name
        assert b"lnsym-fingerprint-" in pdf and b"/CreationDate" not in pdf
    assert render_sheet(sheet(1, 12), ("pdf",)).files == first.files
    wide = render_sheet(sheet(5, 7, (6, 8)), ("pdf",))  # 8 × 8 matrices, long vectors
    assert wide.overfull == []


# ---------------------------------------------------------------------------------------
# Refusals: bad input, a disagreement with the IR, a failed PDF build


@pytest.mark.parametrize(
    "options",
    [
        ["--count", "0"],
        ["--count", "101"],
        ["--count", "10" * 30],
        ["--count", "three"],
        ["--seed", "-1"],
        ["--seed", "1e3"],
        ["--d", "2..9"],
        ["--d", "0..3"],
        ["--d", "4..2"],
        ["--d", "1"],
        ["--d", "2-4"],
        ["--d", "2..4..6"],
        ["--format", "md,docx"],
        ["--format", ""],
        ["--count"],
        ["--bogus"],
    ],
)
def test_bad_input_is_one_line_exit_2_and_writes_nothing(tmp_path, capsys, options):
    out = tmp_path / "out"
    assert run(["exercises", *options, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("lnsym"), err
    assert not out.exists()


def test_out_must_be_a_directory(tmp_path, capsys):
    target = tmp_path / "file"
    target.write_text("keep")
    assert run(["exercises", "--count", "1", "--format", "md", "--out", str(target)]) == 2
    assert "not a directory" in capsys.readouterr().err
    assert target.read_text() == "keep"


def test_a_closed_form_that_disagrees_with_the_ir_refuses_the_sheet(tmp_path, capsys, monkeypatch):
    # The one closed-form oracle: a slip in it must stop the sheet (and the worked examples).
    right = closed_form.grad_z

    def wrong(u, s, g_hat):  # a sign slip in the last term
        m, mu = closed_form.mean(g_hat), closed_form.mean(closed_form.hadamard(g_hat, u))
        return tuple((gh - m + mu * ui) / s for gh, ui in zip(g_hat, u, strict=True))

    monkeypatch.setattr(closed_form, "grad_z", wrong)
    with pytest.raises(CrossCheckError, match="grad_z"):
        generate_sheet(7, 0)
    with pytest.raises(CrossCheckError, match="gradient formula"):
        worked_example([1, 2, 4], 1, upstream=[1, 0, 0])
    out = tmp_path / "out"
    assert run(["exercises", "--count", "7", "--format", "md", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lnsym: internal error: exercise") and "grad_z" in err
    assert not out.exists()
    monkeypatch.setattr(closed_form, "grad_z", right)
    assert run(["exercises", "--count", "7", "--format", "md", "--out", str(out)]) == 0


def test_a_failed_pdf_build_writes_nothing(tmp_path, capsys, monkeypatch):
    def failing(tex, files, name):
        raise PdfBuildError("latexmk failed: Undefined control sequence.")

    monkeypatch.setattr(sheets, "build_pdf", failing)
    monkeypatch.setattr(sheets, "missing_tools", lambda: [])
    out = tmp_path / "out"
    assert run(["exercises", "--count", "2", "--out", str(out)]) == 1
    assert capsys.readouterr().err == "lnsym: error: latexmk failed: Undefined control sequence.\n"
    assert not out.exists()
