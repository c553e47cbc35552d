"""lnsym exercises: reproducible sheets whose every answer agrees with numpy, computed here."""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import sympy
from report_support import katex_available, katex_errors, markdown_formulas, need, tex_available

import lnsym.exact.closed_form as closed_form
import lnsym.exact.exercise_concepts as exercise_concepts
import lnsym.exact.exercise_proofs as exercise_proofs
from lnsym import ir
from lnsym.checking.claims import Claim
from lnsym.cli import main
from lnsym.errors import CrossCheckError
from lnsym.exact.examples import worked_example
from lnsym.exact.exercise_proving import Link, check_chain, check_statement
from lnsym.exact.exercises import (
    CATEGORIES,
    KIND_INFO,
    KINDS,
    LEVELS,
    Exercise,
    Sheet,
    generate_sheet,
)
from lnsym.ir.layers import core
from lnsym.printing.numbers import latex_value
from lnsym.report import sheets
from lnsym.report.pdf import PdfBuildError
from lnsym.report.sheets import render_document, render_sheet

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "reports" / "exercises"
SAMPLE_COMMAND = ["exercises", "--seed", "1", "--count", "12", "--out", str(SAMPLE)]
HINT = "reports/exercises/ is stale: run `lnsym " + " ".join(SAMPLE_COMMAND) + "` and commit it"
#: Seeds of the numeric cross-check; a 16-exercise sheet has each kind exactly once.
SEEDS = range(6)
#: Exercises in a sheet with every kind once.
ALL = len(KINDS)

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
    "derive-shift": {"mean", "shifted_mean", "shifted_centered", "core", "shifted_core"},
    "derive-jacobian": {"jacobian_along_input", "core"},
    "proof-core": {"variance", "core_mean", "core_variance"},
    "proof-gradients": {"core", "grad_gamma"},
    "epsilon": {"bound", "variance", "core_variance", "small_core_variance"},
    "code-forward": {"core", "output", "shifted_output", "scaled_output"},
    "code-variance": {"variance", "mean", "mean_square"},
    "code-backward": {
        "core",
        "grad_beta",
        "grad_gamma",
        "scaled_upstream",
        "grad_z",
        "grad_z_sum",
    },
}
#: The statements the engines must refute; every other checked claim must be PROVED.
FALSE_IDS = (*(s.claim.id for s in exercise_concepts.FALSE), "exercise.gradients.gain_summed")
#: The answers a true-or-false exercise may have, depending on the statements drawn.
TRUE_OR_FALSE = {"core", "scaled_core", "output_mean", "core_variance", "grad_gamma"}


@cache
def sheet(seed: int, count: int = ALL, dimensions: tuple[int, int] = (2, 4)) -> Sheet:
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
    eps = float(p.get("eps", 0.0))
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
        "shifted_mean": lambda: (z + p["c"]).mean(),
        "shifted_centered": lambda: (z + p["c"]) - (z + p["c"]).mean(),
        "jacobian_along_input": lambda: _jacobian(lambda v: _core(v, eps), z) @ z,
        "small_core_variance": lambda: _variance(_core(p["t"] * z, eps)),
        "shifted_output": lambda: output(z + 100, p["gamma"], p["beta"]),
        "scaled_output": lambda: output(p["a"] * z, p["gamma"], p["beta"]),
        "mean_square": lambda: (z * z).mean(),
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
    if e.kind == "true-or-false":
        assert set(e.answers) <= TRUE_OR_FALSE and e.answers, e.answers
    else:
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
    for e in sheet(5, ALL, (6, 8)).exercises:
        assert 6 <= e.d <= 8
        _check_numerically(e)
    assert checked > 50 * len(SEEDS)


def test_answers_state_the_facts_they_teach():
    for seed in SEEDS:
        by_kind = {e.kind: e for e in sheet(seed).exercises}
        assert set(by_kind) == set(KINDS)
        shift = by_kind["shift-scale"].answers
        assert shift["shifted_core"] == shift["core"] != shift["scaled_core"]
        inverse = by_kind["inverse-variance"]
        assert inverse.answers["core_variance"] == inverse.params["r"]
        t, v = inverse.answers["scale_factor"], inverse.params["v"]
        assert t > 0 and inverse.answers["input"] == tuple(t * x for x in v)
        sensitivity = by_kind["sensitivity"].answers
        assert sensitivity["ratio"] < sensitivity["bound"] == sensitivity["derivative_ratio"]
        assert by_kind["gradients"].answers["grad_z_sum"] == 0
        assert by_kind["code-backward"].answers["grad_z_sum"] == 0
        assert by_kind["statistics"].answers["core_mean"] == 0
        moved = by_kind["derive-shift"].answers
        assert moved["shifted_core"] == moved["core"]
        assert moved["shifted_mean"] == moved["mean"] + by_kind["derive-shift"].params["c"]
        proof = by_kind["proof-core"]
        q, eps = proof.answers["variance"], proof.params["eps"]
        assert proof.answers["core_variance"] == q / (q + eps) < 1
        practical = by_kind["epsilon"]
        assert practical.answers["bound"] ** 2 * practical.params["eps"] == 1
        assert practical.answers["small_core_variance"] < practical.answers["core_variance"] < 1
        forward = by_kind["code-forward"].answers
        assert forward["shifted_output"] == forward["output"] != forward["scaled_output"]
        variance = by_kind["code-variance"]
        assert variance.answers["variance"] == closed_form.variance(variance.params["v"])


def _is_rational_square(x: Fraction) -> bool:
    return all(math.isqrt(n) ** 2 == n for n in (x.numerator, x.denominator))


#: Kinds whose ε is not chosen to make q + ε a square (realistic ε; no ε; or s not asked).
_OTHER_EPS = {"epsilon", "code-variance", "inverse-variance"}


def test_numbers_are_nice():
    for seed in SEEDS:
        for e in sheet(seed).exercises:
            d = e.d
            for name in ("z", "gamma", "beta", "g", "h", "v"):
                if name in e.params and e.kind != "code-variance":  # there z = 10⁹·1 + v
                    assert all(x.denominator == 1 and abs(x) <= 5 for x in e.params[name]), name
            if e.kind == "code-variance":
                continue
            eps = e.params["eps"]
            if e.kind == "epsilon":  # a realistic ε with an exact square root
                assert eps in (Fraction(1, 100), Fraction(1, 10**4), Fraction(1, 10**6))
                continue
            assert eps > 0 and eps.denominator <= 144
            if e.kind == "sensitivity":  # so that the bound 1/√ε is rational too
                assert _is_rational_square(eps)
            # s = √(q + ε) is rational, with a small denominator (here computed afresh)
            z = e.params.get("z", e.answers.get("input"))
            mu = sum(z) / d
            total = sum((x - mu) ** 2 for x in z) / d + eps
            if e.kind not in _OTHER_EPS:  # there s may be irrational: only q(u) is asked
                assert _is_rational_square(total), (e.kind, total)
                assert math.isqrt(total.denominator) <= 12
                # and the key says why ε has its value
                note = "".join(segment.text for segment in e.note)
                assert "square" in note and latex_value(eps) in note, (e.kind, note)
            for value in e.answers.values():
                assert all(x.denominator <= 1000 for x in _entries(value)), (e.kind, value)


def test_kinds_categories_levels_and_progression():
    assert len(KINDS) >= 12
    assert {KIND_INFO[k].category for k in KINDS} == set(CATEGORIES)
    assert {KIND_INFO[k].level for k in KINDS} == set(LEVELS)
    for category in CATEGORIES:  # at least two kinds of each category
        assert sum(KIND_INFO[k].category == category for k in KINDS) >= 2, category
    for seed in range(6):
        exercises = sheet(seed, 12).exercises
        kinds = [e.kind for e in exercises]
        assert len(set(kinds)) == 12  # no kind twice on a 12-exercise sheet
        assert {e.category for e in exercises} == set(CATEGORIES)
        assert {e.level for e in exercises} == set(LEVELS)
        levels = [LEVELS.index(e.level) for e in exercises]
        assert levels == sorted(levels)  # warm-up, then core, then challenge
    short = [tuple(e.kind for e in sheet(seed, 5).exercises) for seed in range(4)]
    assert len(set(short)) > 1  # the seed decides which kinds a short sheet gets
    for kinds in short:  # five exercises: one of each category
        assert {KIND_INFO[k].category for k in kinds} == set(CATEGORIES)
    # a range starting at 1 draws from 2 upwards (d = 1 has no non-constant input)
    assert {e.d for e in sheet(2, ALL, (1, 3)).exercises} == {2, 3}
    # a long sheet repeats kinds with other data
    long = sheet(4, ALL + 6).exercises
    assert {e.kind for e in long} == set(KINDS) and len(long) == ALL + 6
    pairs = {}
    for e in long:
        pairs.setdefault(e.kind, []).append(e.params)
    assert all(len(p) == 1 or p[0] != p[1] for p in pairs.values())


def _text(prose) -> str:
    return "".join(segment.text for segment in prose)


def test_wording_varies_with_the_seed():
    questions: dict[str, set[str]] = {}
    for seed in SEEDS:
        for e in sheet(seed).exercises:
            wording = " | ".join(_text(p.question) for p in e.parts)
            # numbers aside: the phrasing itself
            questions.setdefault(e.kind, set()).add(re.sub(r"[-0-9/{}\\]+", "", wording))
    assert all(len(phrasings) > 1 for phrasings in questions.values()), {
        kind: len(p) for kind, p in questions.items() if len(p) < 2
    }


def test_derivations_proofs_and_statements_are_decided_by_the_engines():
    for seed in range(4):
        for e in sheet(seed).exercises:
            if e.category in ("derivation", "proof", "concept") and e.kind != "epsilon":
                assert len(e.proved) >= (4 if e.kind == "true-or-false" else 3), e.kind
            for claim_id, verdict in e.proved.items():
                expected = "REFUTED" if claim_id.startswith(FALSE_IDS) else "PROVED"
                assert verdict == expected, (claim_id, verdict)
            if e.kind == "true-or-false":  # two true and two false statements
                assert sorted(e.proved.values()) == ["PROVED", "PROVED", "REFUTED", "REFUTED"]
            if e.category in ("derivation", "proof"):  # every line of the chains is shown
                shown = sum(1 for p in e.parts for st in p.steps if str(st.why))
                assert shown == sum(1 for v in e.proved.values() if v == "PROVED"), e.kind


def test_a_wrong_step_or_a_misjudged_statement_refuses_the_sheet(monkeypatch):
    z = ir.vector("z")
    with pytest.raises(CrossCheckError, match="link 2"):
        check_chain("wrong", ir.mean(z + ir.ones), [Link(ir.mean(z) + 1, ""), Link(ir.mean(z), "")])
    with pytest.raises(CrossCheckError, match="REFUTED"):
        check_statement(Claim("wrong.scale", ir.Eq(core(2 * z), core(z))))
    # a slip in the scale of a proof exercise: s = √(q + 2ε)
    wrong_s = (ir.var(exercise_proofs.Z) + 2 * ir.eps) ** sympy.Rational(1, 2)
    monkeypatch.setattr(exercise_proofs, "S", wrong_s)
    with pytest.raises(
        CrossCheckError, match=r"exercise\.\w+\.\w+, link \d: .* REFUTED, not PROVED"
    ):
        generate_sheet(ALL, 0)


def test_no_unexpanded_names_in_the_text():
    for seed in SEEDS:
        for e in sheet(seed).exercises:
            texts = [_text(e.setting), _text(e.note)]
            for p in e.parts:
                texts += [_text(p.question), _text(p.conclusion), _text(p.hint)]
                texts += [str(x) for st in p.steps for x in (st.lhs, st.rhs, st.why)]
            assert not any("@" in t for t in texts), (e.kind, [t for t in texts if "@" in t])


def test_hints_and_the_epsilon_paragraph_are_on_the_sheet():
    text = render_document(sheet(1, 12), "md", answers=False)
    hints = text.split("## Hints")[1]
    assert len(re.findall(r"^\*\*\d+\([a-z]\)\*\*", hints, flags=re.MULTILINE)) >= 12
    assert "About $\\varepsilon$" in text and "10^{-5}" in text
    assert "## Hints" not in render_document(sheet(1, 12), "md", answers=True)


def _run_code(source: str) -> dict:
    namespace: dict = {}
    exec(compile(source, "reference", "exec"), namespace)  # lnsym's own reference code
    return namespace


def test_the_reference_code_in_the_key_computes_the_checked_answers():
    for seed in range(6):
        for e in sheet(seed).exercises:
            if e.category != "coding":
                continue
            p = {k: _floats(v) for k, v in e.params.items()}
            a = {k: _floats(v) for k, v in e.answers.items()}
            code = "\n\n".join(part.code for part in e.parts if part.code)
            assert code and "_" not in code.replace("__", "") and "sqrt(" not in code
            assert max(len(line) for line in code.splitlines()) <= 72  # fits the PDF's line
            ns = _run_code(code)
            if e.kind == "code-forward":
                forward = ns["forward"]
                np.testing.assert_allclose(
                    forward(p["z"], p["gamma"], p["beta"], p["eps"]), a["output"]
                )
                np.testing.assert_allclose(
                    forward(p["z"] + 100, p["gamma"], p["beta"], p["eps"]), a["shifted_output"]
                )
                np.testing.assert_allclose(
                    forward(p["a"] * p["z"], p["gamma"], p["beta"], p["eps"]), a["scaled_output"]
                )
            elif e.kind == "code-variance":
                exact = float(e.answers["variance"])
                assert ns["variance"](p["z"]) == pytest.approx(exact, rel=1e-6)
                assert abs(ns["naive"](p["z"]) - exact) > 0.5  # the lesson of the exercise
            else:
                dz, dgamma, dbeta = ns["backward"](p["z"], p["gamma"], p["g"], p["eps"])
                np.testing.assert_allclose(dz, a["grad_z"], atol=1e-12)
                np.testing.assert_allclose(dgamma, a["grad_gamma"], atol=1e-12)
                np.testing.assert_allclose(dbeta, a["grad_beta"])
                ns["check"](p["z"], p["gamma"], p["beta"], p["g"], p["eps"])
                with pytest.raises(AssertionError):  # the check catches a wrong gradient
                    ns["backward"] = lambda z, gamma, g, eps, wrong=dz + 0.01: (wrong, 0, 0)
                    ns["check"](p["z"], p["gamma"], p["beta"], p["g"], p["eps"])


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
    argv = ["exercises", "--seed", "1", "--count", "6", "--format", "md,tex"]
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
        1
        for s in (sheet(1, 12), sheet(5, 7, (6, 8)))
        for e in s.exercises
        for p in e.parts
        if p.steps
    )
    assert displays == parts  # one display of worked steps per part with steps in the key
    # GitHub renders Markdown math with MathJax 3, which has no \allowbreak (KaTeX has)
    assert not any("allowbreak" in f["tex"] for f in formulas)
    result = katex_errors(formulas)
    assert result["checked"] == len(formulas)
    assert [(formulas[e["index"]]["tex"], e["error"]) for e in result["errors"]] == []


def test_pdfs_build_without_overfull_lines_reproducibly():
    need(tex_available(), "pdflatex (texlive)")
    sheets = [sheet(1, 12), sheet(1, 12), sheet(5, 7, (6, 8))]  # the last: 8 × 8 matrices
    with ThreadPoolExecutor(max_workers=len(sheets)) as pool:  # pdflatex builds
        first, again, wide = pool.map(lambda s: render_sheet(s, ("pdf",)), sheets)
    assert sorted(first.files) == ["answers.pdf", "exercises.pdf"]
    assert first.overfull == []
    for name, pdf in first.files.items():
        assert pdf.startswith(b"%PDF-"), name
        assert b"lnsym-fingerprint-" in pdf and b"/CreationDate" not in pdf
    assert again.files == first.files
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
        generate_sheet(ALL, 0)
    with pytest.raises(CrossCheckError, match="gradient formula"):
        worked_example([1, 2, 4], 1, upstream=[1, 0, 0])
    out = tmp_path / "out"
    assert run(["exercises", "--count", "16", "--format", "md", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("lnsym: internal error: exercise") and "grad_z" in err
    assert not out.exists()
    monkeypatch.setattr(closed_form, "grad_z", right)
    assert run(["exercises", "--count", "16", "--format", "md", "--out", str(out)]) == 0


def test_a_failed_pdf_build_writes_nothing(tmp_path, capsys, monkeypatch):
    def failing(tex, files, name):
        raise PdfBuildError("pdflatex failed: Undefined control sequence.")

    monkeypatch.setattr(sheets, "build_pdf", failing)
    monkeypatch.setattr(sheets, "missing_tools", lambda: [])
    out = tmp_path / "out"
    assert run(["exercises", "--count", "2", "--out", str(out)]) == 1
    assert capsys.readouterr().err == "lnsym: error: pdflatex failed: Undefined control sequence.\n"
    assert not out.exists()
