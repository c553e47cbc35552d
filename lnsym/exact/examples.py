"""Exact worked examples of layer normalization at a given point.

Given z, ε and optionally γ, β, an upstream gradient g (or the loss ℓ = ½‖y‖², so g = y)
and a perturbation h, :func:`worked_example` computes every intermediate quantity exactly:
μ, Pz, q, q + ε, s = √(q + ε), the core u = Pz/s, y = γ ⊙ u + β, the Jacobians
J = (P − uuᵀ/d)/s and diag(γ)J, and the gradients ∂ℓ/∂β = g, ∂ℓ/∂γ = g ⊙ u and
∂ℓ/∂z = (ĝ − μ(ĝ)1 − μ(ĝ ⊙ u)u)/s with ĝ = γ ⊙ g.

The values are computed through the IR — e.g. ``jvp(core(z), z, e)`` for the columns of J,
``vjp(layer_norm(z, gamma, beta), z, g)`` for ∂ℓ/∂z — by the general-d engine evaluated at
the point, so an example exercises the same machinery as the proofs. They are then checked
against the closed forms of :mod:`lnsym.exact.closed_form`, in SymPy numbers; a
disagreement is a bug in lnsym and raises :class:`CrossCheckError`.

This module is the entry point (:func:`worked_example`, :func:`perturbation_ratio`,
:func:`required_variance`); the parts are :mod:`~lnsym.exact.example_inputs` (checking the
input), :mod:`~lnsym.exact.example_ir` (the computation through the IR),
:mod:`~lnsym.exact.example_check` (the cross-check) and :mod:`~lnsym.exact.example_record`
(the :class:`WorkedExample` and its renderings).

>>> from fractions import Fraction
>>> ex = worked_example([1, 2, 4], Fraction(1, 3))
>>> ex.variance, ex.scale
(14/9, sqrt(17)/3)
>>> ex.format_value(ex.core)
'(-4, -1, 5)/√17'
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import sympy

from lnsym.errors import CrossCheckError as CrossCheckError
from lnsym.errors import ExactArithmeticError as ExactArithmeticError
from lnsym.errors import UserInputError
from lnsym.exact.closed_form import lipschitz_bound, normalized_variance, variance_for
from lnsym.exact.example_check import check_against_closed_forms
from lnsym.exact.example_inputs import LOSSES as LOSSES
from lnsym.exact.example_inputs import MAX_DIMENSION as MAX_DIMENSION
from lnsym.exact.example_inputs import MAX_MATRIX_DIMENSION as MAX_MATRIX_DIMENSION
from lnsym.exact.example_inputs import Number as Number
from lnsym.exact.example_inputs import epsilon, rational, read_inputs
from lnsym.exact.example_ir import through_ir
from lnsym.exact.example_labels import Row as Row
from lnsym.exact.example_record import WorkedExample as WorkedExample
from lnsym.exact.values import ExampleValue as ExampleValue
from lnsym.exact.values import Vector as Vector
from lnsym.exact.values import decimal
from lnsym.exact.values import same_value as same_value

__all__ = [
    "LOSSES",
    "MAX_DIMENSION",
    "MAX_MATRIX_DIMENSION",
    "CrossCheckError",
    "ExactArithmeticError",
    "PerturbationRatio",
    "Row",
    "WorkedExample",
    "perturbation_ratio",
    "required_variance",
    "same_value",
    "sympy_root_failures",
    "worked_example",
]


@contextmanager
def sympy_root_failures() -> Iterator[None]:
    """Exact arithmetic of a worked example, with SymPy's failure on some square roots as
    one :class:`ExactArithmeticError`: SymPy 1.14's factorint, used by sqrt to pull out
    square factors, can fail on some large integers (sympy/sympy#28621)."""
    try:
        yield
    except ValueError as exc:
        if isinstance(exc, UserInputError) or "is not a prime factor" not in str(exc):
            raise
        raise ExactArithmeticError(
            "SymPy failed to take an exact square root for these numbers "
            "(SymPy bug sympy/sympy#28621); try inputs with fewer digits"
        ) from None


def worked_example(
    z: Sequence[Number],
    eps: Number,
    *,
    gamma: Sequence[Number] | None = None,
    beta: Sequence[Number] | None = None,
    upstream: Sequence[Number] | None = None,
    loss: str | None = None,
    perturbation: Sequence[Number] | None = None,
    idealized: bool = False,
) -> WorkedExample:
    """Compute an exact worked example of layer normalization at z.

    Args:
        z: the input, 1 ≤ d ≤ :data:`MAX_DIMENSION` exact rationals (int, Fraction or
            SymPy Rational).
        eps: ε > 0; ``0`` only together with ``idealized=True`` and a non-constant z.
        gamma: the gain γ (default all ones).
        beta: the bias β (default zero).
        upstream: an upstream gradient g = ∂ℓ/∂y; exclusive with ``loss``.
        loss: a named loss from :data:`LOSSES` (``"half-squared-norm"``: ℓ = ½‖y‖²).
        perturbation: a nonzero h for the finite ratio ‖y(z + h) − y(z)‖/‖h‖.
        idealized: allow ε = 0 (the idealized layer without stabilizer).

    Returns:
        The example; every value was computed through the IR and cross-checked.

    Raises:
        UserInputError: for inexact or malformed numbers, d > :data:`MAX_DIMENSION`,
            vectors of the wrong length, ε ≤ 0 without ``idealized``, ε = 0 at a constant
            z, both ``upstream`` and ``loss``, an unknown loss, or h = 0.
        CrossCheckError: if the IR and the closed forms disagree (a bug in lnsym).
        ExactArithmeticError: if SymPy fails on the exact arithmetic (sympy/sympy#28621).

    >>> ex = worked_example([1, 1, -2], 2, gamma=[2, 0, -1], loss="half-squared-norm")
    >>> ex.core, ex.output, ex.output_mean, ex.output_variance
    ((1/2, 1/2, -1), (1, 0, 1), 2/3, 2/9)
    >>> ex.grad_gamma
    (1/2, 0, -1)
    """
    inputs = read_inputs(
        z,
        eps,
        gamma=gamma,
        beta=beta,
        upstream=upstream,
        loss=loss,
        perturbation=perturbation,
        idealized=idealized,
    )
    h = inputs.perturbation
    with sympy_root_failures():
        values = through_ir(inputs)
        check_against_closed_forms(inputs, values)
        bound = lipschitz_bound(inputs.gamma, inputs.eps) if h is not None else None
    return WorkedExample(
        z=inputs.z,
        eps=inputs.eps,
        gamma=inputs.gamma,
        beta=inputs.beta,
        idealized=idealized,
        loss=loss,
        perturbation=h,
        lipschitz_bound=bound,
        **values,  # type: ignore[arg-type]
    )


# ---------------------------------------------------------------------------------------
# Finite perturbations and the inverse variance relation


@dataclass(frozen=True)
class PerturbationRatio:
    """‖y(z + h) − y(z)‖/‖h‖ exactly, its decimal, and the bound max|γᵢ|/√ε.

    ``decimal`` is None only where no float holds the value; ``bound`` is None at ε = 0.
    """

    exact: sympy.Expr
    decimal: float | None
    bound: sympy.Expr | None


def perturbation_ratio(
    z: Sequence[Number],
    h: Sequence[Number],
    eps: Number,
    gamma: Sequence[Number] | None = None,
    *,
    idealized: bool = False,
) -> PerturbationRatio:
    """The exact finite amplification ‖y(z + h) − y(z)‖/‖h‖ of layer normalization.

    β cancels in the difference, so only γ (default all ones) matters. The value is
    computed through the IR and cross-checked against the definitions.

    Args:
        z: the base point.
        h: a nonzero perturbation of the same length.
        eps: ε > 0 (0 only with ``idealized=True`` and non-constant z, z + h).
        gamma: the gain γ.
        idealized: allow ε = 0.

    Returns:
        The exact ratio, its decimal and the Lipschitz bound max|γᵢ|/√ε.

    Raises:
        UserInputError: for malformed input (as :func:`worked_example`).
        CrossCheckError: if the IR and the definitions disagree.

    >>> from fractions import Fraction
    >>> r = perturbation_ratio([7, 7], [Fraction(1, 1000), Fraction(-1, 1000)], Fraction(1, 10**4))
    >>> r.exact, round(r.decimal, 4), r.bound
    (1000*sqrt(101)/101, 99.5037, 100)
    """
    ex = worked_example(z, eps, gamma=gamma, perturbation=h, idealized=idealized)
    assert ex.perturbation_ratio is not None
    return PerturbationRatio(
        ex.perturbation_ratio, decimal(ex.perturbation_ratio), ex.lipschitz_bound
    )


def required_variance(r: Number, eps: Number) -> sympy.Rational:
    """The input variance q with core variance q/(q + ε) = r, i.e. q = εr/(1 − r).

    Args:
        r: the target core variance, 0 ≤ r < 1 (r = 1 is never reached for ε > 0).
        eps: ε > 0.

    Returns:
        q as an exact rational.

    Raises:
        UserInputError: for r outside [0, 1) or ε ≤ 0.

    >>> from fractions import Fraction
    >>> required_variance(Fraction(9, 10), Fraction(1, 25))
    9/25
    """
    target, eps_value = rational(r, "r"), epsilon(eps, idealized=False)
    if not 0 <= target < 1:
        raise UserInputError(f"the core variance must satisfy 0 ≤ r < 1, got {target}")
    q = variance_for(target, eps_value)
    if normalized_variance(q, eps_value) != target:  # the defining relation, checked exactly
        raise CrossCheckError(f"q = {q} does not give core variance {target}")
    return q
