"""The general-d engine: normal forms, derivatives, equality, assumptions."""

from __future__ import annotations

import random

import pytest
import sympy
from hypothesis import given
from strategies import c, expressions, h, scalars, vectors, z

from lnsym import (
    Eq,
    center,
    centered,
    core,
    d,
    dimension,
    dot,
    eps,
    grad,
    jvp,
    layer_norm,
    mean,
    norm,
    ones,
    orthogonal,
    scalar,
    var,
    vector,
    vjp,
)
from lnsym.engines.general import (
    GeneralEngine,
    VectorForm,
    canonical,
    instantiate,
    is_zero,
    power_sum,
    root,
    to_expr,
)
from lnsym.errors import DomainError, UnsupportedError

gamma, beta, g = vector("gamma"), vector("beta"), vector("g")
s = (var(z) + eps) ** sympy.Rational(1, 2)
u = core(z)


@pytest.fixture
def engine() -> GeneralEngine:
    return GeneralEngine()


def proved(engine: GeneralEngine, lhs, rhs, assumptions=()) -> bool:
    return engine.decide(Eq(lhs, rhs), assumptions).proved


# -- normal forms of the primitives ----------------------------------------------------


def test_vector_normal_form_is_a_combination_of_monomials(engine):
    form = engine.form(2 * z + z * h - 3 * ones)
    assert form == VectorForm.of(
        {("z",): sympy.Integer(2), ("h", "z"): sympy.Integer(1), (): sympy.Integer(-3)}
    )


def test_inner_products_become_power_sums(engine):
    assert engine.form(dot(z, h)) == power_sum(("h", "z"))
    assert engine.form(dot(ones, ones)) == d
    assert engine.form(mean(z)) == power_sum(("z",)) / d


def test_power_sums_are_never_assumed_positive():
    assert power_sum(("z",)).is_nonnegative is None
    assert power_sum(("z", "z")).is_nonnegative is True
    assert power_sum(("h", "z")).is_nonnegative is None


def test_variance_normal_form(engine):
    q = engine.form(var(z))
    expected = power_sum(("z", "z")) / d - power_sum(("z",)) ** 2 / d**2
    assert is_zero(q - expected)


def test_roots_are_interned_by_radicand():
    r1 = root(power_sum(("z", "z")) + eps)
    r2 = root(eps + power_sum(("z", "z")))
    assert r1 == r2
    assert root(sympy.Integer(4)) == 2
    with pytest.raises(DomainError):
        root(sympy.Integer(-1))


def test_is_zero_reduces_modulo_root_relations():
    r = root(power_sum(("z", "z")) + eps)
    assert is_zero(r**3 - r * (power_sum(("z", "z")) + eps))
    assert not is_zero(r - eps)
    assert not is_zero(r**2 - power_sum(("z", "z")))


def test_canonical_rationalizes_denominators():
    r = root(power_sum(("z", "z")) + eps)
    left = canonical(1 / (1 + r))
    right = canonical((1 - r) / (1 - power_sum(("z", "z")) - eps))
    assert left == right
    assert not left.has(sympy.Pow(1 + r, -1))


# -- derivatives are computed, and agree with SymPy's own differentiation ---------------


def test_jvp_of_core_matches_closed_form(engine):
    closed = (center(h) - u * dot(u, h) / d) / s
    assert proved(engine, jvp(u, z, h), closed)


def test_dropping_the_rank_one_term_is_not_proved(engine):
    # What SymPy's matrix-expression calculus returns: P h / s.
    assert not proved(engine, jvp(u, z, h), center(h) / s)


def test_jacobian_along_input(engine):
    assert proved(engine, jvp(u, z, z), eps / (var(z) + eps) * u)
    assert not proved(engine, jvp(u, z, z), 0 * ones)


def test_gradients_of_layer_norm(engine):
    y = layer_norm(z, gamma, beta)
    g_hat = gamma * g
    assert proved(engine, vjp(y, beta, g), g)
    assert proved(engine, vjp(y, gamma, g), g * u)
    expected = (g_hat - mean(g_hat) * ones - u * mean(g_hat * u)) / s
    assert proved(engine, vjp(y, z, g), expected)
    # The backpropagation notes' per-coordinate reading sums over the feature index:
    assert not proved(engine, vjp(y, beta, g), dot(ones, g) * ones)


def test_vjp_holds_the_cotangent_fixed(engine):
    # Jᵀz = Jz = ε/(q + ε)·u, whereas ∇⟨z, u⟩ = Jᵀz + u would differentiate z as well.
    assert proved(engine, vjp(u, z, z), eps / (var(z) + eps) * u)
    assert proved(engine, grad(dot(z, u), z), eps / (var(z) + eps) * u + u)


def test_grad_of_half_squared_norm(engine):
    y = layer_norm(z, gamma, beta)
    assert proved(engine, grad(dot(y, y) / 2, beta), y)
    assert proved(engine, grad(dot(y, y) / 2, gamma), y * u)


def test_gradient_needs_a_scalar_linear_in_the_probe(engine):
    form = engine.form(grad(dot(z, z) * mean(z), z))
    expected = engine.form(2 * mean(z) * z + dot(z, z) / d * ones)
    assert is_zero_vector(form, expected)


def is_zero_vector(left: VectorForm, right: VectorForm) -> bool:
    diff = left + right.scale(sympy.Integer(-1))
    return all(is_zero(coefficient) for _, coefficient in diff.terms)


@pytest.mark.parametrize("seed", range(4))
def test_jvp_agrees_with_sympy_diff_at_rational_points(engine, seed):
    rng = random.Random(seed)
    dim = 3
    point = {
        name: [sympy.Rational(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(dim)]
        for name in ("z", "h", "gamma", "beta", "g")
    }
    scalars_at = {eps: sympy.Rational(rng.randint(1, 9), 7)}
    f = dot(g, layer_norm(z, gamma, beta)) * var(z + gamma)
    ours = instantiate(engine.form(jvp(f, z, h)), point, scalars_at)
    t = sympy.Symbol("t", real=True)
    moved = dict(point, z=[zi + t * hi for zi, hi in zip(point["z"], point["h"], strict=True)])
    along = instantiate(engine.form(f), moved, scalars_at)
    reference = sympy.diff(along, t).subs(t, 0)
    assert sympy.nsimplify(sympy.radsimp(ours - reference)) == 0


# -- assumptions and substitutions ------------------------------------------------------


def test_centered_assumption(engine):
    assert proved(engine, center(h), h, [centered(h)])
    assert not proved(engine, center(h), h)


def test_orthogonal_assumption_gives_the_eigenvalue_one_over_s(engine):
    v = vector("v")
    assert proved(engine, jvp(u, z, v), v / s, [centered(v), orthogonal(v, z)])
    assert not proved(engine, jvp(u, z, v), v / s, [centered(v)])


def test_substitution_of_a_constant_input(engine):
    at_constant = jvp(u, z, h).subs(z, c * ones)
    assert proved(engine, at_constant, h / eps ** sympy.Rational(1, 2), [centered(h)])
    assert proved(engine, norm(at_constant) ** 2, norm(h) ** 2 / eps, [centered(h)])


def test_substitution_of_a_scalar(engine):
    k = scalar("k")  # real: ε itself is positive and may not be set to 0
    assert proved(engine, core(z, k).subs(k, 0), center(z) / var(z) ** sympy.Rational(1, 2))


def test_fixed_dimension_replaces_d(engine):
    assert proved(engine, dot(ones, ones), 2, [dimension(2)])
    assert not proved(engine, dot(ones, ones), 2)


def test_division_by_zero_is_a_domain_error(engine):
    with pytest.raises(DomainError):
        engine.decide(Eq(core(z, eps=0).subs(z, c * ones), 0 * ones))


def test_unsupported_nodes_raise(engine):
    from lnsym import opnorm

    with pytest.raises(UnsupportedError):
        engine.form(opnorm(u, z))


def test_instantiate_reproduces_the_article_core():
    engine = GeneralEngine()
    third = sympy.Rational(1, 3)
    assert instantiate(engine.form(u), {"z": [1, 2, 3]}, {eps: third}) == [-1, 0, 1]
    values = instantiate(engine.form(u), {"z": [1, 2, 4]}, {eps: third})
    expected = [sympy.Integer(k) / sympy.sqrt(17) for k in (-4, -1, 5)]
    assert all(sympy.radsimp(v - e) == 0 for v, e in zip(values, expected, strict=True))


# -- properties of the normal form --------------------------------------------------------


@given(expressions)
def test_equality_is_reflexive(e):
    assert GeneralEngine().residual(e, e) is None


@given(expressions, expressions)
def test_equality_is_symmetric(x, y):
    if x.kind != y.kind:
        return
    engine = GeneralEngine()
    assert (engine.residual(x, y) is None) == (engine.residual(y, x) is None)


@given(vectors, vectors, vectors)
def test_vector_algebra_laws(x, y, w):
    engine = GeneralEngine()
    assert engine.residual(x + y, y + x) is None
    assert engine.residual((x + y) + w, x + (y + w)) is None
    assert engine.residual(x * (y + w), x * y + x * w) is None
    assert engine.residual(center(x + y), center(x) + center(y)) is None
    assert engine.residual(dot(x, y), dot(y, x)) is None


@given(vectors, vectors, vectors)
def test_equality_is_transitive_along_rewrites(x, y, w):
    engine = GeneralEngine()
    first, second, third = x * (y + w), x * y + x * w, w * x + y * x
    assert engine.residual(first, second) is None
    assert engine.residual(second, third) is None
    assert engine.residual(first, third) is None


@given(expressions)
def test_normalization_is_idempotent(e):
    engine = GeneralEngine()
    once = _canonical(engine.form(e))
    again = _canonical(engine.form(to_expr(once)))
    assert again == once


def _canonical(form):
    if isinstance(form, VectorForm):
        return form.map(canonical)
    return canonical(form)


@given(scalars)
def test_a_nonzero_shift_is_detected(x):
    assert GeneralEngine().residual(x, x + 1) is not None


@given(vectors)
def test_the_core_is_shift_invariant_for_any_argument(x):
    assert GeneralEngine().residual(core(x + c * ones), core(x)) is None
