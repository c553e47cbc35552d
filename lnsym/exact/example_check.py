"""The cross-check of a worked example: the IR's values against the closed forms.

:func:`check_against_closed_forms` takes the values :mod:`lnsym.exact.example_ir` computed
through the IR and compares each, entry by entry and exactly, with the closed form of
:mod:`lnsym.exact.closed_form` (brought into the example's shapes by
:func:`closed_values`). A disagreement is a bug in lnsym and raises
:class:`~lnsym.errors.CrossCheckError`, naming the first entry that differs.
"""

from __future__ import annotations

import sympy

import lnsym.exact.closed_form as cf
from lnsym.errors import CrossCheckError
from lnsym.exact.example_inputs import MAX_MATRIX_DIMENSION, Inputs
from lnsym.exact.values import ExampleValue, entries, same


def closed_values(x: Inputs) -> dict[str, ExampleValue | None]:
    """The quantities of :data:`~lnsym.exact.closed_form.QUANTITIES` from the closed forms.

    Jacobians become ``ImmutableMatrix``, as the IR computes them.

    Raises:
        CrossCheckError: if ∂ℓ/∂z disagrees with Jᵀ·diag(γ)·g, two closed forms of it.
    """
    full_jacobians = x.d <= MAX_MATRIX_DIMENSION
    table = cf.quantities(
        x.z,
        x.eps,
        x.gamma,
        x.beta,
        upstream=x.upstream,
        half_squared_norm=x.loss is not None,
        perturbation=x.perturbation,
        jacobians=full_jacobians,
    )
    full = table["output_jacobian"]
    if full is not None and table["grad_z"] is not None:
        through_jacobian = cf.apply(cf.transpose(full), table["upstream"])
        if not all(map(same, table["grad_z"], through_jacobian)):
            raise CrossCheckError("the gradient formula disagrees with Jᵀ·diag(γ)·g")
    for key in ("jacobian", "output_jacobian"):
        if table[key] is not None:
            table[key] = sympy.ImmutableMatrix(table[key])
    return table


def cross_check(
    through_ir: dict[str, ExampleValue | None], closed: dict[str, ExampleValue | None]
) -> None:
    """Raise :class:`CrossCheckError` at the first entry where the two computations differ."""
    for key, expected in closed.items():
        got = through_ir[key]
        if (got is None) != (expected is None):
            raise CrossCheckError(f"{key}: one computation is missing")
        if got is None or expected is None:
            continue
        left, right = entries(got), entries(expected)
        if len(left) != len(right):
            raise CrossCheckError(f"{key}: {len(left)} entries from the IR, {len(right)} closed")
        for index, (a, b) in enumerate(zip(left, right, strict=True)):
            if not same(a, b):
                where = f"{key}[{index}]" if len(left) > 1 else key
                raise CrossCheckError(
                    f"{where}: the IR gives {sympy.sstr(a)} but the closed form gives "
                    f"{sympy.sstr(b)}"
                )


def check_against_closed_forms(x: Inputs, through_ir: dict[str, ExampleValue | None]) -> None:
    """Check the values computed through the IR against :func:`closed_values`.

    Raises:
        CrossCheckError: at the first disagreement (a bug in lnsym).
    """
    cross_check(through_ir, closed_values(x))
