"""Tests for lnsym.exact.batch_example and ``lnsym example`` on a batch.

Values are checked three ways: against an independent float implementation written here
with numpy (forward by the definitions, gradients by central finite differences of the
loss), against small batches worked by hand, and against the single-vector worked example
(each row of a layer-norm batch is one). The cross-check inside the example is tested by
breaking one side of it.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sympy

import lnsym.exact.batch_example as batch_module
from lnsym.cli import main
from lnsym.errors import CrossCheckError, UserInputError
from lnsym.exact.batch_example import batch_example
from lnsym.exact.batch_inputs import read_batch_inputs
from lnsym.exact.batch_ir import ir_values
from lnsym.exact.examples import worked_example

R = sympy.Rational
sqrt = sympy.sqrt
HALF = "half-squared-norm"
F = Fraction

# A small batch with every feature in play: n = 3 rows, d = 4 features, exact rationals.
Z = [[1, 2, 4, F(-1, 2)], [3, 0, -2, 5], [F(2, 3), 7, 1, 1]]
GAMMA = [2, F(-1, 3), 1, F(1, 2)]
BETA = [0, 1, F(-3, 4), 2]
UPSTREAM = [[1, 0, -1, 2], [F(1, 2), 3, 0, -1], [0, -2, 1, 1]]
EPS = F(1, 3)


# ---------------------------------------------------------------------------------------
# An independent float implementation


def numpy_forward(
    layer: str, z: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float, groups: int = 1
) -> tuple[np.ndarray, np.ndarray]:
    """(core, output) of the layer, straight from its definition."""
    if layer == "rms_norm":
        core = z / np.sqrt((z**2).mean(axis=1, keepdims=True) + eps)
        return core, core * gamma
    if layer == "batch_norm":
        mean, var = z.mean(axis=0, keepdims=True), z.var(axis=0, keepdims=True)
        core = (z - mean) / np.sqrt(var + eps)
    elif layer == "group_norm":
        n, d = z.shape
        blocks = z.reshape(n, groups, d // groups)
        mean, var = blocks.mean(axis=2, keepdims=True), blocks.var(axis=2, keepdims=True)
        core = ((blocks - mean) / np.sqrt(var + eps)).reshape(n, d)
    else:
        mean, var = z.mean(axis=1, keepdims=True), z.var(axis=1, keepdims=True)
        core = (z - mean) / np.sqrt(var + eps)
    return core, core * gamma + beta


def finite_gradient(f: Callable[[np.ndarray], float], x: np.ndarray) -> np.ndarray:
    """Central differences of f at x, entry by entry."""
    out, h = np.zeros_like(x), 1e-6
    for index in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[index] += h
        down[index] -= h
        out[index] = (f(up) - f(down)) / (2 * h)
    return out


def floats(value: Any) -> np.ndarray:
    if isinstance(value, sympy.MatrixBase):
        return np.array(value.tolist(), dtype=float)
    return np.array([float(v) for v in value], dtype=float)


LAYER_CASES = [("layer_norm", None), ("rms_norm", None), ("batch_norm", None), ("group_norm", 2)]


@pytest.mark.parametrize(("layer", "groups"), LAYER_CASES)
@pytest.mark.parametrize("loss", [None, HALF])
def test_forward_and_gradients_match_numpy(layer: str, groups: int | None, loss: str | None):
    beta = None if layer == "rms_norm" else BETA
    ex = batch_example(
        Z,
        EPS,
        layer=layer,
        groups=groups,
        gamma=GAMMA,
        beta=beta,
        upstream=None if loss else UPSTREAM,
        loss=loss,
    )
    z, gamma = np.array(Z, dtype=float), np.array(GAMMA, dtype=float)
    b = np.zeros(4) if beta is None else np.array(BETA, dtype=float)
    eps, g_in = float(EPS), np.array(UPSTREAM, dtype=float)
    core, output = numpy_forward(layer, z, gamma, b, eps, groups or 1)
    assert np.allclose(floats(ex["core"]), core, atol=1e-12)
    assert np.allclose(floats(ex["output"]), output, atol=1e-12)

    def loss_of(zz: np.ndarray, gg: np.ndarray = gamma, bb: np.ndarray = b) -> float:
        y = numpy_forward(layer, zz, gg, bb, eps, groups or 1)[1]
        return float(0.5 * (y**2).sum()) if loss else float((g_in * y).sum())

    g = output if loss else g_in
    assert np.allclose(floats(ex["upstream"]), g, atol=1e-12)
    assert np.allclose(floats(ex["grad_z"]), finite_gradient(loss_of, z), atol=1e-6)
    grad_gamma = finite_gradient(lambda gg: loss_of(z, gg), gamma)
    assert np.allclose(floats(ex["grad_gamma"]), grad_gamma, atol=1e-6)
    if layer == "rms_norm":
        assert ex["grad_beta"] is None
    else:
        grad_beta = finite_gradient(lambda bb: loss_of(z, gamma, bb), b)
        assert np.allclose(floats(ex["grad_beta"]), grad_beta, atol=1e-6)
        assert np.allclose(floats(ex["grad_beta"]), g.sum(axis=0))  # over the batch
    assert np.allclose(floats(ex["grad_gamma"]), (g * core).sum(axis=0))
    if loss:
        assert float(ex["loss_value"]) == pytest.approx(0.5 * (output**2).sum())


@pytest.mark.parametrize(("layer", "groups"), LAYER_CASES)
def test_statistics_match_numpy_on_the_layers_axis(layer: str, groups: int | None):
    ex = batch_example(Z, EPS, layer=layer, groups=groups)
    z, eps = np.array(Z, dtype=float), float(EPS)
    if layer == "rms_norm":
        square = (z**2).mean(axis=1)
        assert np.allclose(floats(ex["mean_square"]), square)
        assert np.allclose(floats(ex["rms"]), np.sqrt(square + eps))
        assert np.allclose(floats(ex["core_mean_square"]), square / (square + eps))
        return
    if layer == "group_norm":
        blocks = z.reshape(3, 2, 2)
        mean, var = blocks.mean(axis=2), blocks.var(axis=2)
    else:
        axis = 0 if layer == "batch_norm" else 1
        mean, var = z.mean(axis=axis), z.var(axis=axis)
    assert np.allclose(floats(ex["mean"]), mean)
    assert np.allclose(floats(ex["variance"]), var)
    assert np.allclose(floats(ex["scale"]), np.sqrt(var + eps))
    assert np.allclose(floats(ex["core_variance"]), var / (var + eps))
    assert not any(np.ravel(floats(ex["core_mean"])))  # exactly zero


# ---------------------------------------------------------------------------------------
# Exact values by hand


def test_batch_norm_of_a_two_by_two_batch() -> None:
    ex = batch_example([[1, 3], [3, 7]], 1, layer="batch_norm", upstream=[[1, 0], [0, 0]])
    assert ex["mean"] == (2, 5)  # per feature, over the batch
    assert ex["variance"] == (1, 4)
    assert ex["scale"] == (sqrt(2), sqrt(5))
    assert ex["core"] == sympy.Matrix([[-1 / sqrt(2), -2 / sqrt(5)], [1 / sqrt(2), 2 / sqrt(5)]])
    assert ex["grad_beta"] == (1, 0)  # Σₜ gₜ: a sum over the rows
    assert ex["grad_gamma"] == (-1 / sqrt(2), 0)
    # Column 1: ĝ = (1, 0), mean ĝ = 1/2, û = (-1, 1)/√2, mean(ĝ ⊙ û) = -1/(2√2):
    # (ĝ - 1/2 - û·(-1/(2√2)))/√2 = (1/4, -1/4)/√2.
    assert ex["grad_z"] == sympy.Matrix([[sqrt(2) / 8, 0], [-sqrt(2) / 8, 0]])


def test_idealized_batch_norm_of_two_cases_does_not_depend_on_z() -> None:
    ex = batch_example([[1, 3], [3, 7]], 0, layer="batch_norm", idealized=True, loss=HALF)
    assert ex["core"] == sympy.Matrix([[-1, -1], [1, 1]])  # ±1 whatever the two cases
    assert ex["grad_z"] == sympy.zeros(2, 2)
    assert ex["loss_value"] == 2


def test_rms_norm_by_hand() -> None:
    ex = batch_example([[3, 4], [0, 2]], R(1, 2), layer="rms_norm", gamma=[1, 2])
    assert ex["mean_square"] == (R(25, 2), 2)
    assert ex["rms"] == (sqrt(13), sqrt(R(5, 2)))
    assert ex["core"] == sympy.Matrix([[3 / sqrt(13), 4 / sqrt(13)], [0, 2 / sqrt(R(5, 2))]])
    assert ex["output"].row(0) == sympy.Matrix([[3 / sqrt(13), 8 / sqrt(13)]])
    assert ex["core_mean_square"] == (R(25, 26), R(4, 5))  # m/(m + ε)


def test_group_norm_by_hand_and_its_limits() -> None:
    ex = batch_example([[1, 3, 0, 4]], 1, layer="group_norm", groups=2)
    assert ex["mean"] == sympy.Matrix([[2, 2]])  # one row, two groups
    assert ex["variance"] == sympy.Matrix([[1, 4]])
    assert ex["core"] == sympy.Matrix([[-1 / sqrt(2), 1 / sqrt(2), -2 / sqrt(5), 2 / sqrt(5)]])
    one_group = batch_example(Z, EPS, layer="group_norm", groups=1, upstream=UPSTREAM)
    rows = batch_example(Z, EPS, layer="layer_norm", upstream=UPSTREAM)
    for key in ("core", "output", "grad_z", "grad_gamma", "grad_beta"):
        assert one_group[key] == rows[key]  # G = 1 is layer norm
    singletons = batch_example(Z, EPS, layer="group_norm", groups=4)
    assert singletons["core"] == sympy.zeros(3, 4)  # a group of one feature has no variance


def test_each_row_of_a_layer_norm_batch_is_the_vector_example() -> None:
    batch = [[1, 2, 4], [3, 3, 5], [0, -1, 7]]
    upstream = [[1, 0, -1], [0, 1, 0], [2, 2, -3]]
    ex = batch_example(batch, EPS, gamma=[2, 1, 1], upstream=upstream)
    rows = [
        worked_example(r, EPS, gamma=[2, 1, 1], upstream=g)
        for r, g in zip(batch, upstream, strict=True)
    ]
    for t, row in enumerate(rows):
        assert tuple(ex["core"].row(t)) == row.core
        assert tuple(ex["grad_z"].row(t)) == row.grad_z
        assert ex["mean"][t] == row.mean and ex["scale"][t] == row.scale
    assert ex["grad_gamma"] == tuple(
        sympy.expand(sum(r.grad_gamma[j] for r in rows)) for j in range(3)
    )
    assert ex["grad_beta"] == tuple(sum(r.grad_beta[j] for r in rows) for j in range(3))
    assert ex["core"].row(0) == sympy.Matrix([[-4, -1, 5]]) / sqrt(17)  # the article's u


def test_batches_beyond_nine_rows_or_columns_are_lowered_in_slices() -> None:
    batch = [[t, t * t % 7, 1] for t in range(11)]
    ex = batch_example(batch, 1, loss=HALF)
    for t in (0, 9, 10):
        assert tuple(ex["core"].row(t)) == worked_example(batch[t], 1).core
    wide = [list(range(10)), [j * j % 5 for j in range(10)]]
    columns = batch_example(wide, 1, layer="batch_norm", upstream=wide)
    assert columns["mean"][9] == R(9 + 1, 2)
    assert columns["grad_beta"][9] == 10


# ---------------------------------------------------------------------------------------
# The cross-check refuses to show unchecked values


def test_a_wrong_formula_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = batch_module.closed_values

    def broken(x: Any) -> dict[str, Any]:
        values = real(x)
        entries = values["grad_z"].tolist()
        entries[1][0] += R(1, 1000)
        values["grad_z"] = sympy.ImmutableMatrix(entries)
        return values

    monkeypatch.setattr(batch_module, "closed_values", broken)
    with pytest.raises(CrossCheckError, match=r"grad_z\[2, 1\]"):
        batch_example([[1, 2], [3, 5]], 1, upstream=[[1, 0], [0, 1]])
    code = main(["example", "--z", "1,2;3,5", "--eps", "1", "--upstream", "1,0;0,1"])
    assert code == 1


def test_a_wrong_ir_value_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    real = batch_module.ir_values

    def broken(x: Any) -> dict[str, Any]:
        values = real(x)
        values["variance"][1] = values["variance"][1] + F(1, 10**9)
        return values

    monkeypatch.setattr(batch_module, "ir_values", broken)
    with pytest.raises(CrossCheckError, match=r"variance\[2\]"):
        batch_example([[1, 2], [3, 5]], 1, layer="batch_norm")


def test_the_ir_side_differentiates_the_lowered_loss() -> None:
    x = read_batch_inputs([[1, 2, 2], [0, 1, 5]], EPS, layer="layer_norm", loss=HALF)
    through_ir = ir_values(x)["grad_z"]
    closed = batch_example([[1, 2, 2], [0, 1, 5]], EPS, loss=HALF)["grad_z"]
    assert [[v.to_sympy() for v in row] for row in through_ir] == closed.tolist()


# ---------------------------------------------------------------------------------------
# Input errors


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"z": [[1, 2], [3]]}, "row 2 of Z has 1 entry, but row 1 has 2"),
        ({"z": []}, "Z is empty"),
        ({"z": [[1.5, 2]]}, "inexact"),
        ({"z": [[1] * 65]}, "at most 64 rows and 64 columns"),
        ({"z": [[1]] * 65}, "at most 64 rows"),
        ({"layer": "instance_norm"}, "unknown layer"),
        ({"groups": 2}, "groups are for group_norm only"),
        ({"layer": "group_norm"}, "needs the number of groups"),
        ({"layer": "group_norm", "groups": 3}, "G = 3 groups do not divide the d = 4"),
        ({"layer": "group_norm", "groups": 0}, "positive integer"),
        ({"layer": "rms_norm", "beta": [0, 0, 0, 0]}, "rms_norm has no bias"),
        ({"gamma": [1, 2]}, "gamma has 2 entries, but Z has 4 columns"),
        ({"upstream": [[1, 2, 3, 4]]}, "upstream is 1 × 4, but Z is 3 × 4"),
        ({"upstream": UPSTREAM, "loss": HALF}, "either an upstream gradient or a loss"),
        ({"loss": "cross-entropy"}, "unknown loss"),
        ({"eps": 0}, "ε must be positive"),
    ],
)
def test_bad_input_is_refused(kwargs: dict[str, Any], message: str) -> None:
    args: dict[str, Any] = {"z": Z, "eps": EPS, **kwargs}
    with pytest.raises(UserInputError, match=re.escape(message)):
        batch_example(args.pop("z"), args.pop("eps"), **args)


@pytest.mark.parametrize(
    ("layer", "z", "message"),
    [
        ("layer_norm", [[1, 2], [3, 3]], "row 2 of Z is constant"),
        ("group_norm", [[1, 2, 5, 5]], "group 2 of row 1 of Z is constant"),
        ("batch_norm", [[1, 2], [3, 2]], "column 2 of Z is constant over the batch"),
        ("rms_norm", [[1, 2], [0, 0]], "row 2 of Z is zero"),
    ],
)
def test_the_idealized_layer_needs_nondegenerate_blocks(
    layer: str, z: list[list[int]], message: str
) -> None:
    groups = 2 if layer == "group_norm" else None
    with pytest.raises(UserInputError, match=re.escape(message)):
        batch_example(z, 0, layer=layer, groups=groups, idealized=True)
    assert batch_example(z, 1, layer=layer, groups=groups)["core"] is not None  # fine at ε > 0


# ---------------------------------------------------------------------------------------
# The command line


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["example", *argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--z", "1,2;3", "--eps", "1"], "row 2 of Z has 1 entry, but row 1 has 2"),
        (["--z", "1,2;;3,4", "--eps", "1"], "--z: row 2 is empty"),
        (["--z", "1,2;3,x", "--eps", "1"], "--z: row 2: entry 2 of the vector: not a number"),
        (["--z", "1,2;3,4", "--eps", "1", "--groups", "2"], "--groups is for --layer group_norm"),
        (["--z", "1,2,3", "--eps", "1", "--groups", "1"], "--groups is for --layer group_norm"),
        (["--z", "1,2,3", "--eps", "1", "--layer", "group_norm"], "needs --groups G"),
        (
            ["--z", "1,2,3;4,5,7", "--eps", "1", "--layer", "group_norm", "--groups", "2"],
            "G = 2 groups do not divide the d = 3 features",
        ),
        (["--z", "1,2", "--eps", "1", "--layer", "group_norm", "--groups", "x"], "--groups"),
        (["--z", "1,2", "--eps", "1", "--layer", "group_norm", "--groups", "0"], "at least 1"),
        (["--z", "1,2", "--eps", "1", "--layer", "weight_norm"], "--layer: unknown layer"),
        (
            ["--z", "1,2;3,4", "--eps", "1", "--upstream", "1,0"],
            "upstream is 1 × 2, but Z is 2 × 2",
        ),
        (["--z", "1,2;3,4", "--eps", "1", "--upstream", "1,0;0"], "row 2 of upstream has 1"),
        (["--z", "1,2;3,4", "--eps", "1", "--gamma", "1,2,3"], "gamma has 3 entries"),
        (["--z", "1,2;3,4", "--eps", "1", "--perturbation", "1,0"], "--perturbation is for"),
        (["--z", "1,2;3,4", "--eps", "1", "--layer", "rms_norm", "--beta", "0,0"], "no bias β"),
        (["--z", "1,2;3,4"], "give --eps"),
        (["--z", "1,2;3,3", "--idealized"], "row 2 of Z is constant"),
        (["--z", "1,2;1,4", "--idealized", "--layer", "batch_norm"], "column 1 of Z is constant"),
        (["--z", "1,2;3,4", "--eps", "1", "--loss", "hinge"], "unknown loss"),
        (
            ["--z", "1,2;3,4", "--eps", "1", "--loss", HALF, "--upstream", "1,0;0,1"],
            "either --upstream or --loss",
        ),
        (["--z", ";".join(["1,2"] * 65), "--eps", "1"], "at most 64 rows"),
    ],
)
def test_cli_refuses_bad_batches_in_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("lnsym: error: ") and err.count("\n") == 1, err
    assert message in err and "Traceback" not in err


def test_cli_single_vector_output_is_unchanged(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--z", "1,2,4", "--eps", "1/3", "--loss", HALF]
    for fmt in ("text", "md", "tex", "json"):
        plain = run_cli(capsys, *argv, "--format", fmt)
        named = run_cli(capsys, *argv, "--layer", "layer_norm", "--format", fmt)
        assert plain == named and plain[0] == 0
        assert "batch" not in plain[1]


def test_cli_text_names_the_axis(capsys: pytest.CaptureFixture[str]) -> None:
    expected = {
        "layer_norm": "over the features of each row",
        "rms_norm": "over the features of each row",
        "batch_norm": "over the batch for each feature",
        "group_norm": "over each group of d/G = 2 features of each row",
    }
    for layer, axis in expected.items():
        extra = ["--groups", "2"] if layer == "group_norm" else []
        code, out, err = run_cli(
            capsys, "--z", "1,2,4,0;3,3,5,1", "--eps", "1/3", "--layer", layer, *extra
        )
        assert (code, err) == (0, "")
        assert axis in out.splitlines()[1]
    argv = ["--z", "1,2,4;3,3,5", "--eps", "1/3", "--upstream", "1,0,-1;0,1,0", "--gamma", "2,1,1"]
    code, out, _ = run_cli(capsys, *argv)
    assert "  uₜⱼ = cₜⱼ/sₜ =\n      (-4, -1, 5)/√17\n      (-2, -2, 4)/√11\n" in out
    assert "  ∂ℓ/∂βⱼ = Σₜ gₜⱼ = (1, 1, -1)\n" in out
    assert "      (3·√17/289)·(11, -10, -1)\n" in out  # row 1: the vector example's ∂ℓ/∂z


def _outside_math(text: str) -> str:
    return re.sub(r"\$[^$]*\$", "", text)


@pytest.mark.parametrize(("layer", "groups"), LAYER_CASES)
def test_cli_formats(capsys: pytest.CaptureFixture[str], layer: str, groups: int | None) -> None:
    argv = ["--z", "1,2,4,0;3,3,5,1;0,1,0,2", "--eps", "1/3", "--layer", layer, "--loss", HALF]
    argv += ["--groups", str(groups)] if groups else []
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    assert (code, err) == (0, "")
    record = json.loads(out)
    assert (record["layer"], record["n"], record["d"], record["groups"]) == (layer, 3, 4, groups)
    values = record["values"]
    assert len(values["grad_z"]["exact"]) == 3 and len(values["grad_z"]["exact"][0]) == 4
    assert values["grad_gamma"]["formula"] == "Σₜ gₜⱼ·uₜⱼ"
    assert ("grad_beta" in values) == (layer != "rms_norm")
    code, md, _ = run_cli(capsys, *argv, "--format", "md")
    assert code == 0 and md.startswith("### Worked example of ")
    assert "^" not in _outside_math(md) and "_" not in _outside_math(md)
    code, tex, _ = run_cli(capsys, *argv, "--format", "tex")
    assert code == 0 and r"\begin{align*}" in tex and r"\begin{pmatrix}" in tex
    comments = [line for line in tex.splitlines() if line.startswith("%")]
    assert not any("^" in _outside_math(c) or "_" in _outside_math(c) for c in comments)
    assert tex.count(r"\begin{align*}") == tex.count(r"\end{align*}") == 3


def test_the_tutorials_batch_command_prints_what_it_says(capsys: pytest.CaptureFixture[str]):
    tutorial = (Path(__file__).resolve().parents[2] / "docs" / "tutorial.md").read_text()
    section = tutorial.partition("## 6. Worked examples")[2]
    (command,) = [line for line in section.splitlines() if line.startswith('lnsym example --z "')]
    code = main(shlex.split(command)[1:])
    out = capsys.readouterr().out
    assert code == 0
    prose = section.partition(command)[2]
    shown = re.findall(r"`([^`]*= [^`]*)`", prose)
    assert len(shown) == 3
    for line in shown:
        assert f"  {line}" in out, line


def test_a_value_computed_one_way_only_is_not_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    real = batch_module.ir_values

    def partial(x: Any) -> dict[str, Any]:
        values = real(x)
        del values["core_variance"]
        return values

    monkeypatch.setattr(batch_module, "ir_values", partial)
    with pytest.raises(CrossCheckError, match="not checked: core_variance"):
        batch_example([[1, 2], [3, 5]], 1)


@pytest.mark.parametrize(("n", "d", "groups"), [(2, 1, 1), (3, 2, 2), (2, 3, 3), (2, 16, 4)])
@pytest.mark.parametrize("layer", ["layer_norm", "rms_norm", "batch_norm", "group_norm"])
def test_other_shapes_match_numpy(n: int, d: int, groups: int, layer: str) -> None:
    z = [[F((7 * t + 3 * j) % 11 - 5, 1 + (t + j) % 3) for j in range(d)] for t in range(n)]
    upstream = [[(t + 2 * j) % 5 - 2 for j in range(d)] for t in range(n)]
    gamma = [F(j % 4 + 1, 2) for j in range(d)]
    g_count = groups if layer == "group_norm" else None
    ex = batch_example(z, EPS, layer=layer, groups=g_count, gamma=gamma, upstream=upstream)
    za, ga, eps = np.array(z, dtype=float), np.array(gamma, dtype=float), float(EPS)
    gi = np.array(upstream, dtype=float)
    core, output = numpy_forward(layer, za, ga, np.zeros(d), eps, groups)
    assert np.allclose(floats(ex["output"]), output, atol=1e-12)

    def loss_of(zz: np.ndarray) -> float:
        return float((gi * numpy_forward(layer, zz, ga, np.zeros(d), eps, groups)[1]).sum())

    assert np.allclose(floats(ex["grad_z"]), finite_gradient(loss_of, za), atol=1e-6)
    assert np.allclose(floats(ex["grad_gamma"]), (gi * core).sum(axis=0))
