"""Tests for lnsym.exact.examples and ``lnsym example``: the article's worked examples, exactly.

Every number asserted here is restated from the source article (or recomputed where its
display is missing: the output for z = (1, 1, -2) and the Jacobian for z = (-1, 1)).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

import lnsym.exact.example_check as example_check
import lnsym.exact.examples as examples
import lnsym.exact.values as exact_values
from lnsym.cli import main
from lnsym.errors import UserInputError
from lnsym.exact.closed_form import QUANTITIES
from lnsym.exact.example_inputs import read_inputs
from lnsym.exact.example_ir import through_ir
from lnsym.exact.example_labels import LABELS
from lnsym.exact.examples import (
    MAX_MATRIX_DIMENSION,
    CrossCheckError,
    WorkedExample,
    perturbation_ratio,
    required_variance,
    worked_example,
)

R = sympy.Rational
sqrt = sympy.sqrt
HALF = "half-squared-norm"


def vec(*values: Any) -> tuple[sympy.Expr, ...]:
    return tuple(sympy.Integer(v) if isinstance(v, int) else v for v in values)


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["example", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    code, out, err = run_cli(capsys, *argv, "--format", "json")
    assert (code, err) == (0, "")
    return json.loads(out)["values"]


def exact(values: tuple[sympy.Expr, ...] | sympy.Expr) -> Any:
    """What ``to_json`` writes for exact values."""
    if isinstance(values, tuple):
        return [str(v) for v in values]
    return str(values)


# ---------------------------------------------------------------------------------------
# Shift invariance, and the failure of scale invariance with ε > 0


def test_z_123() -> None:
    ex = worked_example([1, 2, 3], Fraction(1, 3))
    assert ex.d == 3
    assert ex.mean == 2
    assert ex.centered == (-1, 0, 1)
    assert ex.variance == R(2, 3)
    assert ex.variance_plus_eps == 1
    assert ex.scale == 1
    assert ex.core == (-1, 0, 1)
    assert ex.output == (-1, 0, 1)
    assert ex.core_variance == R(2, 3)  # q/(q + ε) < 1


@pytest.mark.parametrize("z", [[11, 12, 13], [101, 102, 103]])
def test_common_shift_gives_the_same_output(z: list[int]) -> None:
    ex = worked_example(z, Fraction(1, 3))
    assert ex.mean == z[1]
    assert ex.variance == R(2, 3)
    assert ex.core == ex.output == (-1, 0, 1)


def test_doubling_changes_the_output() -> None:
    ex = worked_example([2, 4, 6], Fraction(1, 3))
    assert ex.variance == R(8, 3)
    assert ex.output == (-2 / sqrt(3), 0, 2 / sqrt(3))
    assert ex.output != worked_example([1, 2, 3], Fraction(1, 3)).output
    assert ex.format_value(ex.output) == "(-2, 0, 2)/√3"


def test_idealized_variant_is_scale_invariant() -> None:
    small = worked_example([1, 2, 3], 0, idealized=True)
    large = worked_example([2, 4, 6], 0, idealized=True)
    assert small.core == large.core == (-sqrt(R(3, 2)), 0, sqrt(R(3, 2)))
    assert small.core_variance == 1  # unit variance only without the stabilizer


def test_unequal_shift_is_not_removed() -> None:
    ex = worked_example([1, 2, 4], Fraction(1, 3))
    assert ex.core == (-4 / sqrt(17), -1 / sqrt(17), 5 / sqrt(17))
    assert ex.format_value(ex.core) == "(-4, -1, 5)/√17"
    assert "u = Pz/s = (-4, -1, 5)/√17" in ex.to_text()
    assert r"\left(-4, -1, 5\right) / \sqrt{17}" in ex.to_latex()


# ---------------------------------------------------------------------------------------
# Bias and gain


@pytest.mark.parametrize("eps", [Fraction(1, 3), 1, Fraction(1, 10**5)])
@pytest.mark.parametrize("gamma", [[1, 1, 1], [2, -5, Fraction(1, 7)], [0, 0, 0]])
def test_constant_input_outputs_the_bias(eps: Fraction, gamma: list[Any]) -> None:
    ex = worked_example([3, 3, 3], eps, gamma=gamma, beta=[1, -1, 2], loss=HALF)
    assert ex.core == (0, 0, 0)
    assert ex.output == (1, -1, 2)
    assert ex.output_mean == R(2, 3)  # the full output need not have mean zero
    assert ex.grad_beta == (1, -1, 2)
    assert ex.grad_gamma == (0, 0, 0)


def test_gain_example_with_its_missing_display() -> None:
    ex = worked_example([1, 1, -2], 2, gamma=[2, 0, -1], beta=[0, 0, 0], loss=HALF)
    assert (ex.mean, ex.variance) == (0, 2)
    assert ex.core == (R(1, 2), R(1, 2), -1)
    assert ex.output == (1, 0, 1)  # the display the article lost
    assert ex.output_mean == R(2, 3)
    assert ex.output_variance == R(2, 9)
    assert ex.grad_gamma == (R(1, 2), 0, -1)
    assert ex.loss_value == 1
    # ∂ℓ/∂z with ĝ = γ ⊙ y = (2, 0, -1): (ĝ - μ(ĝ)1 - μ(ĝ ⊙ u)u)/s = (2/3, -1/3, -1/3).
    assert ex.scaled_upstream == (2, 0, -1)
    assert ex.grad_z == (R(2, 3), R(-1, 3), R(-1, 3))


def test_upstream_gradient_matches_the_transposed_jacobian() -> None:
    g = (1, 5, 7)
    ex = worked_example([1, 2, 4], Fraction(1, 3), gamma=[2, 0, -1], upstream=list(g))
    assert ex.output_jacobian is not None
    assert tuple(ex.output_jacobian.T * sympy.Matrix(g)) == ex.grad_z
    assert ex.grad_beta == g
    assert ex.grad_gamma == tuple(gi * ui for gi, ui in zip(g, ex.core, strict=True))
    assert ex.loss_value is None


# ---------------------------------------------------------------------------------------
# The Jacobian


def test_two_coordinate_jacobian() -> None:
    ex = worked_example([-1, 1], 3, gamma=[0, 2])
    assert ex.variance == 1
    assert ex.core == (R(-1, 2), R(1, 2))
    expected = sympy.Matrix([[R(3, 16), R(-3, 16)], [R(-3, 16), R(3, 16)]])
    assert ex.jacobian == expected
    # P/s alone would be [[1/4, -1/4], [-1/4, 1/4]]: the -uuᵀ/(d·s) term is really there.
    assert ex.jacobian != sympy.Matrix([[R(1, 4), R(-1, 4)], [R(-1, 4), R(1, 4)]])
    assert ex.jacobian * sympy.Matrix([1, 1]) == sympy.zeros(2, 1)
    assert ex.jacobian * sympy.Matrix([-1, 1]) == sympy.Matrix([R(-3, 8), R(3, 8)])
    assert ex.output_jacobian == sympy.Matrix([[0, 0], [R(-3, 8), R(3, 8)]])


def test_large_dimension_omits_the_matrices() -> None:
    d = MAX_MATRIX_DIMENSION + 1
    ex = worked_example(list(range(d)), 1)
    assert ex.jacobian is None and ex.output_jacobian is None
    assert ex.mean == R(d - 1, 2)
    assert f"Jacobians omitted: d = {d}" in ex.to_text()


# ---------------------------------------------------------------------------------------
# Finite perturbation, and the inverse variance relation

MILLI = Fraction(1, 1000)


def test_perturbed_point_has_variance_one_millionth() -> None:
    ex = worked_example([7 + MILLI, 7 - MILLI], Fraction(1, 10**4))
    assert ex.variance == R(1, 10**6)


@pytest.mark.parametrize(
    ("eps", "ratio", "decimal", "bound"),
    [
        (Fraction(1, 10**4), 1 / sqrt(R(101, 10**6)), 99.50371902, 100),
        (Fraction(1, 10**2), 1 / sqrt(R(10_001, 10**6)), 9.999500037, 10),
    ],
)
def test_finite_perturbation_ratio(
    eps: Fraction, ratio: sympy.Expr, decimal: float, bound: int
) -> None:
    result = perturbation_ratio([7, 7], [MILLI, -MILLI], eps)
    assert result.exact == ratio
    assert result.exact == 1 / sqrt(R(1, 10**6) + R(eps.numerator, eps.denominator))
    assert result.decimal == pytest.approx(decimal, abs=1e-8)
    assert result.bound == bound
    assert result.decimal < bound


def test_rounded_ratios_as_stated() -> None:
    assert (
        round(perturbation_ratio([7, 7], [MILLI, -MILLI], Fraction(1, 10**4)).decimal, 2) == 99.50
    )
    assert round(perturbation_ratio([7, 7], [MILLI, -MILLI], Fraction(1, 100)).decimal, 4) == 9.9995


def test_gain_scales_the_ratio_and_the_bound() -> None:
    result = perturbation_ratio([7, 7], [MILLI, -MILLI], Fraction(1, 100), gamma=[3, -2])
    # h is centered and u(z) = 0, so the difference is γ ⊙ h / s.
    assert result.exact == sqrt(13) / sqrt(2) / sqrt(R(10_001, 10**6))
    assert result.bound == 30


def test_inverse_variance_relation() -> None:
    eps = Fraction(1, 25)  # 0.04
    assert required_variance(Fraction(9, 10), eps) == R(9, 25)  # 0.36
    assert required_variance(Fraction(99, 100), eps) == 99 * R(1, 25) == R(396, 100)
    ex = worked_example([Fraction(-3, 5), Fraction(3, 5)], eps, gamma=[2, 2])
    assert ex.variance == R(9, 25)
    assert ex.core == (-sqrt(R(9, 10)), sqrt(R(9, 10)))
    assert ex.core_variance == R(9, 10)
    assert ex.output_variance == R(18, 5)  # 4 · 0.9 = 3.6


@pytest.mark.parametrize("r", [1, Fraction(3, 2), -1])
def test_core_variance_target_out_of_range(r: Any) -> None:
    with pytest.raises(UserInputError, match="0 ≤ r < 1"):
        required_variance(r, Fraction(1, 25))


# ---------------------------------------------------------------------------------------
# General properties on random exact inputs

_rational = st.fractions(min_value=-5, max_value=5, max_denominator=6)


@st.composite
def _inputs(draw: st.DrawFn) -> dict[str, Any]:
    d = draw(st.integers(1, 4))
    vector = st.lists(_rational, min_size=d, max_size=d)
    return {
        "z": draw(vector),
        "eps": draw(st.fractions(min_value=Fraction(1, 8), max_value=4, max_denominator=8)),
        "gamma": draw(vector),
        "beta": draw(vector),
        "upstream": draw(vector),
    }


@settings(max_examples=20, deadline=None)
@given(_inputs())
def test_identities_at_random_points(args: dict[str, Any]) -> None:
    ex = worked_example(**args)
    q, eps = ex.variance, ex.eps
    assert ex.core_mean == 0
    assert sympy.simplify(ex.core_variance - q / (q + eps)) == 0
    assert ex.grad_beta == tuple(sympy.Rational(g) for g in args["upstream"])
    assert ex.jacobian is not None
    assert ex.jacobian == ex.jacobian.T
    assert all(sympy.simplify(v) == 0 for v in ex.jacobian * sympy.ones(ex.d, 1))


def test_one_table_names_every_quantity() -> None:
    # The closed forms, the IR's values, the example's fields and its labels share the names.
    inputs = read_inputs([1, 2, 4], 1, upstream=[1, 0, 0], perturbation=[1, 0, 0])
    assert list(example_check.closed_values(inputs)) == list(QUANTITIES)
    assert list(through_ir(inputs)) == list(QUANTITIES)
    assert set(QUANTITIES) <= {f.name for f in dataclasses.fields(WorkedExample)}
    assert set(QUANTITIES) <= set(LABELS)


# ---------------------------------------------------------------------------------------
# The cross-check can fail


def test_disagreement_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    closed = example_check.closed_values

    def wrong(inputs: Any) -> dict[str, Any]:
        out = closed(inputs)
        out["variance"] += 1
        return out

    monkeypatch.setattr(example_check, "closed_values", wrong)
    with pytest.raises(CrossCheckError, match="variance"):
        worked_example([1, 2, 3], Fraction(1, 3))


def test_disagreement_in_a_surd_is_detected(monkeypatch: pytest.MonkeyPatch) -> None:
    closed = example_check.closed_values

    def wrong(inputs: Any) -> dict[str, Any]:
        out = closed(inputs)
        jac = out["jacobian"]
        out["jacobian"] = jac + sympy.ImmutableMatrix.eye(jac.rows) * sqrt(17) / 10**12
        return out

    monkeypatch.setattr(example_check, "closed_values", wrong)
    with pytest.raises(CrossCheckError, match="jacobian"):
        worked_example([1, 2, 4], Fraction(1, 3))


def test_cli_reports_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def broken(inputs: Any) -> dict[str, Any]:
        raise CrossCheckError("mean: deliberately broken")

    monkeypatch.setattr(example_check, "closed_values", broken)
    code, out, err = run_cli(capsys, "--z", "1,2,3", "--eps", "1/3")
    assert (code, out) == (1, "")
    assert err == "lnsym: internal error: mean: deliberately broken\n"


# ---------------------------------------------------------------------------------------
# Bad input through the API


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"z": [1, 2, 3], "eps": 0}, "ε must be positive"),
        ({"z": [1, 2, 3], "eps": -1}, "ε must be positive"),
        ({"z": [1, 2, 3], "eps": 1, "idealized": True}, "idealized variant means ε = 0"),
        ({"z": [3, 3, 3], "eps": 0, "idealized": True}, "z is constant"),
        ({"z": [1, 2, 3], "eps": 0.5}, "inexact"),
        ({"z": [1, 2.5], "eps": 1}, "inexact"),
        ({"z": [True, 2], "eps": 1}, "booleans"),
        ({"z": "1,2,3", "eps": 1}, "sequence of numbers"),
        ({"z": [], "eps": 1}, "empty"),
        ({"z": [1, 2, 3], "eps": 1, "gamma": [1, 2]}, "gamma has 2 entries, but z has 3"),
        ({"z": [1, 2], "eps": 1, "beta": [1]}, "beta has 1 entry, but z has 2"),
        ({"z": [1, 2], "eps": 1, "upstream": [1, 2, 3]}, "upstream has 3 entries"),
        ({"z": [1, 2], "eps": 1, "upstream": [1, 2], "loss": HALF}, "not both"),
        ({"z": [1, 2], "eps": 1, "loss": "cross-entropy"}, "unknown loss"),
        ({"z": [1, 2], "eps": 1, "perturbation": [0, 0]}, "must be nonzero"),
        (
            {"z": [1, 2], "eps": 0, "idealized": True, "perturbation": [1, 0]},
            "z \\+ h is constant",
        ),
    ],
)
def test_bad_input(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(UserInputError, match=message):
        worked_example(**kwargs)


# ---------------------------------------------------------------------------------------
# Renderings


def test_text_rendering() -> None:
    text = worked_example([1, 2, 4], Fraction(1, 3), gamma=[2, 0, -1], upstream=[1, 5, 7])
    lines = text.to_text().splitlines()
    assert lines[0] == "Worked example of layer normalization: d = 3, ε = 1/3"
    assert "  q = ‖Pz‖²/d = 14/9  ≈ 1.555555556" in lines
    assert "  s = √(q + ε) = √17/3  ≈ 1.374368542" in lines
    assert "      (3·√17/289) ·" in lines  # J with its common factor pulled out
    assert "      [ 6  -7   1]" in lines
    assert "  ∂ℓ/∂β = g = (1, 5, 7)" in lines


def test_markdown_rendering() -> None:
    md = worked_example([-1, 1], 3, gamma=[0, 2]).to_markdown()
    assert md.startswith(r"### Worked example of layer normalization ($d = 2,\ \varepsilon = 3$)")
    assert (
        r"| $J = \frac{1}{s} \left(P - \frac{\mathbf{u} \mathbf{u}^{\mathsf{T}}}{d}\right)$ "
        r"| $\begin{pmatrix} \frac{3}{16} & - \frac{3}{16} \\ - \frac{3}{16} & \frac{3}{16}"
        r" \end{pmatrix}$ |"
    ) in md
    assert r"| $q$" not in md  # every quantity row starts with its symbol and formula
    assert "| $q = " in md


def test_latex_rendering() -> None:
    tex = worked_example([1, 1, -2], 2, gamma=[2, 0, -1], loss=HALF).to_latex()
    assert r"\mathbf{y} &= \boldsymbol{\gamma} \odot \mathbf{u} + \boldsymbol{\beta}" in tex
    assert r"= \left(1, 0, 1\right)" in tex
    assert r"q(\mathbf{y}) &= \frac{2}{9} \approx 0.2222222222" in tex
    assert tex.count(r"\begin{align*}") == tex.count(r"\end{align*}") == 4
    assert r"\varepsilon" in tex


def test_json_rendering() -> None:
    data = json.loads(worked_example([1, 2, 4], Fraction(1, 3), loss=HALF).to_json())
    assert data["schema_version"] == 1
    assert (data["d"], data["eps"], data["idealized"], data["loss"]) == (3, "1/3", False, HALF)
    core = data["values"]["core"]
    assert core["exact"] == ["-4*sqrt(17)/17", "-sqrt(17)/17", "5*sqrt(17)/17"]
    assert core["decimal"] == pytest.approx([-4 / 17**0.5, -1 / 17**0.5, 5 / 17**0.5])
    assert all(type(x) is float for x in core["decimal"])
    assert core["display"] == "(-4, -1, 5)/√17"
    assert data["values"]["jacobian"]["exact"][0][0] == str(18 * sqrt(17) / 289)
    assert data["values"]["variance"] == {
        "symbol": "q",
        "formula": "‖Pz‖²/d",
        "exact": "14/9",
        "decimal": pytest.approx(14 / 9),
        "display": "14/9",
    }


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ((sqrt(2), 1), "(√2, 1)"),  # different surds: no common factor
        ((R(1, 2), R(-1, 2)), "(1/2, -1/2)"),  # rationals stay as they are
        ((sqrt(3) / 6, sqrt(3) / 3), "(√3/6)·(1, 2)"),
        ((-sqrt(R(9, 10)), sqrt(R(9, 10))), "(-3, 3)/√10"),
        ((sqrt(5), 0), "(√5, 0)"),  # a single nonzero entry needs no factoring
    ],
)
def test_common_surd_display(value: tuple[sympy.Expr, ...], shown: str) -> None:
    assert WorkedExample.format_value(value) == shown


# ---------------------------------------------------------------------------------------
# The command line: the same article examples


def test_cli_text_default(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--z", "1,2,3", "--eps", "1/3")
    assert (code, err) == (0, "")
    assert "  μ = ⟨1, z⟩/d = 2" in out.splitlines()
    assert "  y = γ ⊙ u + β = (-1, 0, 1)" in out.splitlines()
    assert "Gradients" not in out  # none unless --upstream or --loss


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["--z", "1,2,3", "--eps", "1/3"], {"mean": 2, "variance": R(2, 3), "output": (-1, 0, 1)}),
        (["--z", "11,12,13", "--eps", "1/3"], {"output": (-1, 0, 1)}),
        (["--z", "(101, 102, 103)", "--eps", "1/3"], {"output": (-1, 0, 1)}),
        (
            ["--z", "2,4,6", "--eps", "1/3"],
            {"variance": R(8, 3), "output": (-2 / sqrt(3), 0, 2 / sqrt(3))},
        ),
        (["--z", "1,2,4", "--eps", "1/3"], {"core": (-4 / sqrt(17), -1 / sqrt(17), 5 / sqrt(17))}),
        (
            ["--z", "3,3,3", "--eps", "1e-5", "--gamma", "5,-2,0", "--beta", "1,-1,2"]
            + ["--loss", HALF],
            {"output": (1, -1, 2), "output_mean": R(2, 3), "grad_beta": (1, -1, 2)},
        ),
        (
            ["--z", "1,1,-2", "--eps", "2", "--gamma", "2,0,-1", "--loss", HALF],
            {
                "mean": 0,
                "variance": 2,
                "core": (R(1, 2), R(1, 2), -1),
                "output": (1, 0, 1),
                "output_mean": R(2, 3),
                "output_variance": R(2, 9),
                "grad_gamma": (R(1, 2), 0, -1),
            },
        ),
        (
            ["--z", "-1,1", "--eps", "3", "--gamma", "0,2"],
            {"variance": 1, "core": (R(-1, 2), R(1, 2))},
        ),
        (
            ["--z", "[-0.6, 0.6]", "--eps", "0.04", "--gamma", "2,2"],
            {
                "variance": R(9, 25),
                "core": (-sqrt(R(9, 10)), sqrt(R(9, 10))),
                "core_variance": R(9, 10),
                "output_variance": R(18, 5),
            },
        ),
    ],
)
def test_cli_article_examples(
    capsys: pytest.CaptureFixture[str], argv: list[str], expected: dict[str, Any]
) -> None:
    values = run_json(capsys, *argv)
    for key, value in expected.items():
        assert values[key]["exact"] == exact(vec(*value) if isinstance(value, tuple) else value)


def test_cli_jacobian(capsys: pytest.CaptureFixture[str]) -> None:
    values = run_json(capsys, "--z", "-1,1", "--eps", "3", "--gamma", "0,2")
    assert values["jacobian"]["exact"] == [["3/16", "-3/16"], ["-3/16", "3/16"]]
    assert values["output_jacobian"]["exact"] == [["0", "0"], ["-3/8", "3/8"]]
    assert values["jacobian"]["decimal"] == [[0.1875, -0.1875], [-0.1875, 0.1875]]


@pytest.mark.parametrize(
    ("eps", "ratio", "decimal", "bound"),
    [
        ("1e-4", "1000*sqrt(101)/101", 99.50371902, "100"),
        ("1e-2", "1000*sqrt(10001)/10001", 9.9995, "10"),
    ],
)
def test_cli_perturbation(
    capsys: pytest.CaptureFixture[str], eps: str, ratio: str, decimal: float, bound: str
) -> None:
    values = run_json(capsys, "--z", "7,7", "--eps", eps, "--perturbation", "1e-3,-1e-3")
    assert values["perturbation_ratio"]["exact"] == ratio
    assert values["perturbation_ratio"]["decimal"] == pytest.approx(decimal, abs=5e-5)
    assert values["lipschitz_bound"]["exact"] == bound


def test_cli_upstream_and_formats(capsys: pytest.CaptureFixture[str]) -> None:
    values = run_json(capsys, "--z", "1,2,3", "--eps", "1/3", "--upstream", "1,0,0")
    assert values["upstream"]["exact"] == ["1", "0", "0"]
    # J = P - uuᵀ/3 at s = 1; ∂ℓ/∂z = Jᵀ e₁ is its first column.
    assert values["grad_z"]["exact"] == ["1/3", "-1/3", "0"]
    for fmt, marker in [("md", "#### Gradients"), ("tex", r"\paragraph{Gradients.}")]:
        code, out, err = run_cli(
            capsys, "--z", "1,2,3", "--eps", "1/3", "--loss", HALF, "--format", fmt
        )
        assert (code, err) == (0, "")
        assert marker in out


def test_cli_idealized(capsys: pytest.CaptureFixture[str]) -> None:
    values = run_json(capsys, "--z", "1,2,3", "--idealized")
    assert values["core_variance"]["exact"] == "1"
    assert values["core"]["exact"] == exact((-sqrt(R(3, 2)), sympy.Integer(0), sqrt(R(3, 2))))


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--z", "1,2,x", "--eps", "1"], "lnsym: error: --z: entry 3 of the vector: not a number"),
        (["--z", "1,2,3", "--eps", "1/0"], "lnsym: error: --eps: zero denominator"),
        (["--z", "1,2,3", "--eps", "abc"], "lnsym: error: --eps: not a number"),
        (["--z", "1,2,3", "--eps", "0"], "lnsym: error: ε must be positive"),
        (["--z", "1,2,3", "--eps", "-1/2"], "lnsym: error: ε must be positive"),
        (["--z", "1,2,3"], "lnsym: error: give --eps"),
        (["--z", "3,3,3", "--idealized"], "lnsym: error: z is constant"),
        (["--z", "1,2", "--eps", "1", "--idealized"], "lnsym: error: --idealized means ε = 0"),
        (["--z", "1,2,3", "--eps", "1", "--gamma", "1,2"], "lnsym: error: gamma has 2 entries"),
        (["--z", "1,2,3", "--eps", "1", "--beta", "1,2,3,4"], "lnsym: error: beta has 4"),
        (["--z", "1,2", "--eps", "1", "--upstream", "1"], "lnsym: error: upstream has 1 entry"),
        (
            ["--z", "1,2", "--eps", "1", "--upstream", "1,2", "--loss", HALF],
            "lnsym: error: give either --upstream or --loss, not both",
        ),
        (["--z", "1,2", "--eps", "1", "--loss", "l1"], "lnsym: error: unknown loss 'l1'"),
        (["--z", "1,,2", "--eps", "1"], "lnsym: error: --z: empty entry 2"),
        (["--z", "", "--eps", "1"], "lnsym: error: --z: empty vector"),
        (["--z", "1,2", "--eps", "1", "--perturbation", "0,0"], "lnsym: error: the perturbation"),
        (
            ["--z", "1,2", "--eps", "1", "--format", "pdf"],
            "lnsym example: error: argument --format",
        ),
        (["--eps", "1"], "lnsym example: error: the following arguments are required: --z"),
    ],
)
def test_cli_bad_input(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    try:
        code = main(["example", *argv])
    except SystemExit as exc:  # argparse's own usage errors exit directly
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.startswith(message)
    assert err.endswith("\n") and err.count("\n") == 1


def test_installed_script() -> None:
    script = Path(sys.executable).parent / "lnsym"
    good = subprocess.run(
        [str(script), "example", "--z", "-1,1", "--eps", "3", "--format", "json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (good.returncode, good.stderr) == (0, "")
    assert json.loads(good.stdout)["values"]["jacobian"]["exact"][0] == ["3/16", "-3/16"]
    bad = subprocess.run(
        [str(script), "example", "--z", "1,2", "--eps", "1", "--gamma", "1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == "lnsym: error: gamma has 1 entry, but z has 2\n"


def test_exact_comparison() -> None:
    assert exact_values.same(sqrt(3 + 2 * sqrt(2)), 1 + sqrt(2))  # equal, written differently
    assert not exact_values.same(sqrt(2), sqrt(2) + R(1, 10**40))  # below the numeric screen
    assert not exact_values.same(sqrt(2), R(141_421_356, 10**8))


def test_values_beyond_float_range() -> None:
    ex = worked_example([Fraction(10**310), Fraction(-(10**310))], 1)
    values = ex.to_dict()["values"]
    assert values["mean"]["decimal"] == 0.0
    assert values["variance"]["exact"] == str(10**620)
    assert values["variance"]["decimal"] is None  # no float holds 10^620
    assert values["core"]["decimal"] == pytest.approx([1.0, -1.0])
    scale_line = next(line for line in ex.to_text().splitlines() if line.startswith("  s = "))
    assert scale_line.endswith("≈ 1.000000000e+310")
    json.loads(ex.to_json())  # strict JSON: null, never Infinity


# An integer whose square root SymPy 1.14 cannot take (sympy/sympy#28621).
_SYMPY_BUG_INTEGER = 978188756923448938700236182276357436


def _sympy_sqrt_is_broken() -> bool:
    try:
        sympy.sqrt(sympy.Integer(_SYMPY_BUG_INTEGER))
    except ValueError:
        return True
    return False


def test_sympy_square_root_failure_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "--z", "0", "--eps", str(_SYMPY_BUG_INTEGER))
    if _sympy_sqrt_is_broken():
        with pytest.raises(examples.ExactArithmeticError, match="28621"):
            worked_example([0], _SYMPY_BUG_INTEGER)
        assert (code, out) == (1, "")
        assert err.startswith("lnsym: internal error: SymPy failed") and err.count("\n") == 1
    else:  # a fixed SymPy: the example simply works
        assert (code, err) == (0, "")
        assert worked_example([0], _SYMPY_BUG_INTEGER).scale == sqrt(_SYMPY_BUG_INTEGER)
