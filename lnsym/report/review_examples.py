"""The worked examples of the source review, recomputed exactly and compared with the source.

Each example of :mod:`lnsym.report.review` is computed with
:func:`lnsym.exact.examples.worked_example` (through the IR engines, cross-checked), and
each quantity's exact value is set next to the number the source prints for it, marked
:data:`AGREES` or :data:`DIFFERS` by an exact comparison (:mod:`lnsym.report.quoted`), or
:data:`RECONSTRUCTED` where the source's display is missing. :func:`example_view` gives the
:class:`ExampleView` the review templates show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import sympy

from lnsym.exact.examples import WorkedExample, required_variance, worked_example
from lnsym.ir import eps, mean, norm, var, vector
from lnsym.ir.layers import core
from lnsym.printing.printer import Math, latex
from lnsym.report.quoted import Quoted, quote
from lnsym.report.review import Example, Source, SourcePoint, SourceQuantity, Target

#: The marks of a compared value.
AGREES, DIFFERS, RECONSTRUCTED = "agrees", "differs", "reconstructed"


@dataclass(frozen=True)
class ValueView:
    """One recomputed quantity next to the source's number.

    ``value`` is lnsym's exact value (a SymPy number, a tuple of them or a matrix) and
    ``exact`` its LaTeX; ``decimal`` is empty for integers and matrices; ``approx``
    (``≈ …`` as math) is set for a scalar that is not an integer. ``article_text`` is the
    source's number as written (empty for a reconstruction).
    """

    label: Math
    value: Any
    exact: Math
    decimal: str
    approx: Math | None
    article_text: str
    article: Math | None
    mark: str


@dataclass(frozen=True)
class ExampleView:
    """The values of one worked example at one point (``point`` describes the inputs)."""

    point: Math
    values: tuple[ValueView, ...]


@cache
def _quote(text: str) -> Quoted:
    return quote(text)


def _vector_value(text: str) -> tuple[sympy.Expr, ...]:
    value = _quote(text).value
    if not isinstance(value, tuple):
        raise ValueError(f"{text!r} is not a vector")
    return value


def _scalar_value(text: str) -> sympy.Expr:
    value = _quote(text).value
    if isinstance(value, tuple):
        raise ValueError(f"{text!r} is not a number")
    return value


@cache
def _worked(point: SourcePoint) -> WorkedExample:
    """The exact example at ``point``, computed through the IR and cross-checked."""
    return worked_example(
        _vector_value(point.z),
        _scalar_value(point.eps),
        gamma=None if point.gamma is None else _vector_value(point.gamma),
        beta=None if point.beta is None else _vector_value(point.beta),
        perturbation=None if point.h is None else _vector_value(point.h),
        loss="half-squared-norm" if point.half_squared_norm else None,
    )


def compute_examples(sources: Sequence[Source]) -> None:
    """Compute (and keep) every worked example the review of ``sources`` shows: they depend
    on nothing the check finds, so ``lnsym report`` computes them while the catalog is
    checked."""
    for source in sources:
        for paragraph in source.paragraphs:
            found = [*paragraph.examples, *(d.example for d in paragraph.displays)]
            for example in found:
                if example is not None and isinstance(example.at, SourcePoint):
                    _worked(example.at)


# Labels that name the input, where the example's own short symbol (μ, q, u) would not.
_LABELS = {
    "mean": latex(mean(vector("z"))),
    "variance": latex(var(vector("z"))),
    "core": latex(core(vector("z"))),
    "core_variance": latex(var(core(vector("z")))),
}
_CORE_LABELS = {
    "perturbation_ratio": latex(
        norm(core(vector("z") + vector("h")) - core(vector("z"))) / norm(vector("h")),
        ("s",),
    ),
    "lipschitz_bound": latex(eps ** sympy.Rational(-1, 2)),
}


def _point_latex(at: SourcePoint | Target) -> Math:
    if isinstance(at, Target):
        return Math(rf"r = {_quote(at.r).latex},\ \varepsilon = {_quote(at.eps).latex}")
    parts = [
        f"{latex(vector('z'))} = {_quote(at.z).latex}",
        rf"\varepsilon = {_quote(at.eps).latex}",
    ]
    for name, text in (("gamma", at.gamma), ("beta", at.beta), ("h", at.h)):
        if text is not None:
            parts.append(f"{latex(vector(name))} = {_quote(text).latex}")
    if at.half_squared_norm:
        parts.append(rf"\ell = \frac{{1}}{{2}} \lVert {latex(vector('y'))} \rVert^{{2}}")
    return Math(r",\ ".join(parts))


def _compute(at: SourcePoint | Target, value: SourceQuantity) -> tuple[Any, str]:
    """lnsym's exact value of one quantity and the LaTeX label to show it under."""
    if isinstance(at, Target):
        if value.quantity != "required_variance":
            raise ValueError(f"at a target only required_variance is known, not {value.quantity}")
        q = required_variance(_scalar_value(at.r), _scalar_value(at.eps))
        return q, value.label or r"q = \frac{\varepsilon r}{1 - r}"
    example = _worked(at)
    if value.quantity == "jacobian_times":
        if value.times is None or example.jacobian is None:
            raise ValueError("jacobian_times needs a direction and a Jacobian")
        direction = _quote(value.times)
        product = example.jacobian * sympy.Matrix(_vector_value(value.times))
        label = rf"J {direction.latex}^{{\mathsf{{T}}}}"
        return tuple(product), value.label or label
    labels = {row.key: row.latex_symbol for row in example.rows()} | _LABELS
    if at.gamma is None:  # unit gain: the ratio and its bound are those of the core
        labels |= _CORE_LABELS
    if value.quantity not in labels:
        raise ValueError(f"the example at {at} has no quantity {value.quantity!r}")
    return getattr(example, value.quantity), value.label or labels[value.quantity]


def _value_view(at: SourcePoint | Target, value: SourceQuantity) -> ValueView:
    exact, label = _compute(at, value)
    decimal = "" if isinstance(exact, sympy.MatrixBase) else WorkedExample.format_decimal(exact)
    if value.article is None:
        article, mark = None, RECONSTRUCTED
    else:
        quoted = _quote(value.article)
        article = Math(quoted.latex)
        mark = AGREES if quoted.agrees(exact) else DIFFERS
    scalar = not isinstance(exact, tuple | sympy.MatrixBase)
    approx = Math(rf"\approx {decimal}") if scalar and decimal else None
    exact_latex = Math(WorkedExample.format_latex(exact))
    return ValueView(
        Math(label), exact, exact_latex, decimal or "", approx, value.article or "", article, mark
    )


def example_view(example: Example) -> ExampleView:
    """The example's inputs and its quantities, each exact and compared with the source."""
    values = tuple(_value_view(example.at, v) for v in example.values)
    return ExampleView(_point_latex(example.at), values)
