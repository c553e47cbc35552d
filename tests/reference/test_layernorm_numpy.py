"""The numpy reference code against lnsym's exact worked examples.

Every value the reference computes in float64 is compared with the exact value of
``lnsym example`` at the same rational point (``worked_example``), converted to float. A
deliberately wrong backward pass and a one-pass variance show that the comparison fails
when the code is wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from fractions import Fraction as F
from functools import cache

import numpy as np
import pytest
import sympy

from lnsym.exact.examples import WorkedExample, worked_example
from lnsym.exact.values import decimal
from lnsym.reference.layernorm_numpy import Cache, backward, forward, row_mean

# (z, ε, γ, β, g): exact rationals, one case per dimension d ∈ {1, 2, 3, 16} and a
# near-constant z whose variance is far below ε.
CASES: dict[str, tuple[list[F], F, list[F], list[F], list[F]]] = {
    "d1": ([F(5)], F(1, 2), [F(3)], [F(-1)], [F(2)]),
    "d2": ([F(1), F(-3)], F(1, 10), [F(2), F(-1, 2)], [F(1, 4), F(0)], [F(1), F(3)]),
    "d3": (
        [F(1), F(2), F(4)],
        F(1, 3),
        [F(2), F(-1), F(1, 2)],
        [F(0), F(1), F(3)],
        [F(1), F(-2), F(1, 3)],
    ),
    "d3-near-constant": (
        [F(1), F(1001, 1000), F(999, 1000)],
        F(1, 10**5),
        [F(1), F(2), F(3)],
        [F(0), F(0), F(0)],
        [F(1, 2), F(-1), F(2)],
    ),
    "d16": (
        [F((-1) ** i * (i * i % 7) + i, 3) for i in range(16)],
        F(1, 10**5),
        [F(i + 1, 4) * (-1) ** (i // 3) for i in range(16)],
        [F(i % 5 - 2, 2) for i in range(16)],
        [F((3 * i) % 11 - 5, 4) for i in range(16)],
    ),
}
TOL = {"rtol": 1e-12, "atol": 1e-12}


@cache
def exact(name: str) -> WorkedExample:
    z, eps, gamma, beta, g = CASES[name]
    return worked_example(z, eps, gamma=gamma, beta=beta, upstream=g)


def floats(values: Iterable[sympy.Expr] | None) -> np.ndarray:
    """Exact SymPy values (a tuple, or a matrix row by row) as a float64 array."""
    assert values is not None
    return np.array([decimal(v) for v in values], dtype=np.float64)


def rows(name: str, n: int = 1) -> tuple[np.ndarray, ...]:
    """z and g of a case as n identical (n, d) float rows; γ, β as (d,); ε."""
    z, eps, gamma, beta, g = CASES[name]
    z_rows, g_rows = (np.tile(np.array(v, dtype=np.float64), (n, 1)) for v in (z, g))
    return z_rows, np.array(gamma, float), np.array(beta, float), float(eps), g_rows


Backward = Callable[[np.ndarray, Cache], tuple[np.ndarray, np.ndarray, np.ndarray]]


def check_against_exact(name: str, backward_pass: Backward) -> None:
    """Raise AssertionError unless forward and ``backward_pass`` give the exact values."""
    ex = exact(name)
    z, gamma, beta, eps, g = rows(name)
    y, saved = forward(z, gamma, beta, eps)
    dz, dgamma, dbeta = backward_pass(g, saved)
    np.testing.assert_allclose(y[0], floats(ex.output), **TOL)
    np.testing.assert_allclose(dz[0], floats(ex.grad_z), **TOL)
    np.testing.assert_allclose(dgamma, floats(ex.grad_gamma), **TOL)
    np.testing.assert_allclose(dbeta, floats(ex.grad_beta), **TOL)


@pytest.mark.parametrize("name", CASES)
def test_forward_and_backward_give_the_exact_values(name: str):
    check_against_exact(name, backward)


def test_the_exact_values_are_the_expected_ones():
    # Pin a few by hand, so that the comparison is not against an empty or wrong oracle:
    # d = 1 has u = 0, so y = β, ∂ℓ/∂z = 0, ∂ℓ/∂γ = 0 and ∂ℓ/∂β = g.
    ex = exact("d1")
    assert [floats(v).tolist() for v in (ex.output, ex.grad_z, ex.grad_beta)] == [[-1], [0], [2]]
    # d = 3: Pz = (−4, −1, 5)/3, q = 14/9, s = √17/3, u = (−4, −1, 5)/√17.
    u = floats(exact("d3").core)
    np.testing.assert_allclose(u, np.array([-4, -1, 5]) / np.sqrt(17), **TOL)


@pytest.mark.parametrize("name", ["d2", "d3", "d16"])
def test_backward_rows_are_the_exact_output_jacobian(name: str):
    # With d copies of z and g = the identity, row j of ∂ℓ/∂z is eⱼᵀ diag(γ) J.
    ex = exact(name)
    z, gamma, beta, eps, _ = rows(name, n=ex.d)
    _, saved = forward(z, gamma, beta, eps)
    dz, _, _ = backward(np.eye(ex.d), saved)
    expected = floats(ex.output_jacobian).reshape(ex.d, ex.d)
    np.testing.assert_allclose(dz, expected, **TOL)


def _drop_the_u_term(g: np.ndarray, saved: Cache) -> tuple[np.ndarray, ...]:
    """Wrong: ∂ℓ/∂z = (ĝ − mean(ĝ)1)/s, forgetting that s depends on z."""
    u, s, gamma = saved
    g_hat = gamma * g
    return (g_hat - row_mean(g_hat)) / s, (g * u).sum(axis=0), g.sum(axis=0)


def _forget_the_gain(g: np.ndarray, saved: Cache) -> tuple[np.ndarray, ...]:
    """Wrong: ĝ = g, as if γ = 1."""
    dz, _, _ = backward(g, saved._replace(gamma=np.ones_like(saved.gamma)))
    return dz, *backward(g, saved)[1:]


@pytest.mark.parametrize("wrong", [_drop_the_u_term, _forget_the_gain])
@pytest.mark.parametrize("name", ["d2", "d3", "d3-near-constant", "d16"])
def test_a_wrong_backward_is_caught(name: str, wrong: Backward):
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        check_against_exact(name, wrong)


def test_a_wrong_backward_goes_unseen_at_d_1():
    # At d = 1 the core is 0 and ∂ℓ/∂z = 0 for any gain: the d = 1 case alone proves little,
    # which is why the other dimensions are there.
    check_against_exact("d1", _drop_the_u_term)
    check_against_exact("d1", _forget_the_gain)


def test_the_batch_sums_the_exact_parameter_gradients_over_rows():
    names = ["d3", "d3-near-constant"]  # same d; both rows use the γ and β of "d3"
    z = np.array([CASES[k][0] for k in names], dtype=np.float64)
    g = np.array([CASES[k][4] for k in names], dtype=np.float64)
    _, eps, gamma, beta, _ = CASES["d3"]
    examples = [
        worked_example(CASES[k][0], eps, gamma=gamma, beta=beta, upstream=CASES[k][4])
        for k in names
    ]
    y, saved = forward(z, np.array(gamma, float), np.array(beta, float), float(eps))
    dz, dgamma, dbeta = backward(g, saved)
    for t, ex in enumerate(examples):  # rows are independent: each is its own example
        np.testing.assert_allclose(y[t], floats(ex.output), **TOL)
        np.testing.assert_allclose(dz[t], floats(ex.grad_z), **TOL)
    np.testing.assert_allclose(dgamma, sum(floats(ex.grad_gamma) for ex in examples), **TOL)
    np.testing.assert_allclose(dbeta, sum(floats(ex.grad_beta) for ex in examples), **TOL)


def test_batch_gradients_match_central_differences():
    rng = np.random.default_rng(14)
    n, d, eps = 5, 7, 1e-3
    z, g = rng.normal(size=(n, d)), rng.normal(size=(n, d))
    gamma, beta = rng.normal(size=d), rng.normal(size=d)

    def loss(z: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> float:
        return float((g * forward(z, gamma, beta, eps)[0]).sum())  # ℓ = Σₜ ⟨gₜ, yₜ⟩

    def central(f: Callable[[np.ndarray], float], x: np.ndarray, h: float) -> np.ndarray:
        out = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            step = np.zeros_like(x)
            step[i] = h
            out[i] = (f(x + step) - f(x - step)) / (2 * h)
        return out

    dz, dgamma, dbeta = backward(g, forward(z, gamma, beta, eps)[1])
    # ℓ is linear in γ and β, so their central differences are exact up to rounding.
    np.testing.assert_allclose(dgamma, central(lambda a: loss(z, a, beta), gamma, 1.0), atol=1e-12)
    np.testing.assert_allclose(dbeta, central(lambda b: loss(z, gamma, b), beta, 1.0), atol=1e-12)
    np.testing.assert_allclose(dz, central(lambda x: loss(x, gamma, beta), z, 1e-6), atol=1e-8)


def _one_pass_output(z: np.ndarray, gamma: np.ndarray, beta: np.ndarray, eps: float):
    """Wrong at large offsets: q = mean(z²) − mean(z)², a difference of huge numbers."""
    q = row_mean(z * z) - row_mean(z) ** 2
    return gamma * (z - row_mean(z)) / np.sqrt(q + eps) + beta


def test_two_pass_variance_keeps_the_digits_at_a_large_offset():
    # z + 10⁸·1 has exactly the output of z  [layer.shift_invariant]. The shifted values
    # are exact in float64; the mean is rounded to a spacing of 1.5·10⁻⁸, so Pz keeps about
    # 8 digits, and the two-pass variance loses no more.
    ex = exact("d3")
    z, gamma, beta, eps, _ = rows("d3")
    y, _ = forward(z + 1e8, gamma, beta, eps)
    np.testing.assert_allclose(y[0], floats(ex.output), rtol=1e-7)
    # One pass rounds mean(z²) ≈ 10¹⁶ to a multiple of 2 and gets q = 2, not 14/9.
    with pytest.raises(AssertionError, match="Not equal to tolerance"):
        np.testing.assert_allclose(
            _one_pass_output(z + 1e8, gamma, beta, eps)[0], floats(ex.output), rtol=1e-7
        )
    np.testing.assert_allclose(
        _one_pass_output(z, gamma, beta, eps)[0], floats(ex.output), rtol=1e-7
    )  # …while it is right at small offsets


def test_every_claim_the_code_cites_is_a_catalog_claim_that_must_be_proved():
    """The ids in brackets name claims of the built-in catalog that are expected to be
    proved (their verdicts are checked by the catalog tests and the report)."""
    import re
    from pathlib import Path

    from lnsym.checking import catalog
    from lnsym.reference import layernorm_numpy

    source = Path(layernorm_numpy.__file__).read_text(encoding="utf-8")
    comments = [line.partition("#")[2] for line in source.splitlines()]
    groups = [g for c in comments for g in re.findall(r"\[([a-z_.,\s]+)\]", c)]
    cited = {i for group in groups for i in group.split(", ")}
    claims = {c.id: c for s in catalog.load() for c in s.claims}
    assert len(cited) >= 10
    for claim_id in cited:
        assert claim_id in claims, claim_id
        assert claims[claim_id].expect == "holds" and claims[claim_id].require == "PROVED"
