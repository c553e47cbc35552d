"""A worked example as a record of exact values, and its text, Markdown, LaTeX and JSON.

:class:`WorkedExample` holds every quantity :func:`~lnsym.exact.examples.worked_example`
computed (and cross-checked), under the names of :data:`lnsym.exact.closed_form.QUANTITIES`,
and renders them one section at a time, labelled by :mod:`lnsym.exact.example_labels`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import sympy

from lnsym.exact.example_inputs import MAX_MATRIX_DIMENSION, rational
from lnsym.exact.example_labels import LABELS, SECTIONS, Row, by_section, labelled_rows
from lnsym.exact.value_format import (
    decimal_value_text,
    is_integer,
    json_value,
    latex_number,
    latex_value,
    text_number,
    text_value,
)
from lnsym.exact.values import ExampleValue, Vector, decimal_text


@dataclass(frozen=True)
class WorkedExample:
    """An exact worked example of layer normalization at one point.

    Scalars are SymPy numbers, vectors tuples of them, Jacobians ``ImmutableMatrix``
    (``None`` when d > :data:`MAX_MATRIX_DIMENSION`). The gradient fields are ``None``
    unless an upstream gradient or a loss was given, ``perturbation_ratio`` and
    ``lipschitz_bound`` (max|γᵢ|/√ε) unless a perturbation was given; the bound is also
    ``None`` for the idealized ε = 0, where no finite bound exists.
    """

    z: Vector
    eps: sympy.Rational
    gamma: Vector
    beta: Vector
    idealized: bool
    loss: str | None
    perturbation: Vector | None
    mean: sympy.Expr
    centered: Vector
    variance: sympy.Expr
    variance_plus_eps: sympy.Expr
    scale: sympy.Expr
    core: Vector
    core_mean: sympy.Expr
    core_variance: sympy.Expr
    output: Vector
    output_mean: sympy.Expr
    output_variance: sympy.Expr
    jacobian: sympy.ImmutableMatrix | None
    output_jacobian: sympy.ImmutableMatrix | None
    loss_value: sympy.Expr | None
    upstream: Vector | None
    grad_beta: Vector | None
    grad_gamma: Vector | None
    scaled_upstream: Vector | None
    grad_z: Vector | None
    perturbation_ratio: sympy.Expr | None
    lipschitz_bound: sympy.Expr | None

    @property
    def d(self) -> int:
        """The dimension."""
        return len(self.z)

    @staticmethod
    def format_value(value: ExampleValue) -> str:
        """The exact value as text, with a common surd pulled out where all entries share it.

        >>> WorkedExample.format_value((-2 / sympy.sqrt(3), sympy.Integer(0), 2 / sympy.sqrt(3)))
        '(-2, 0, 2)/√3'
        """
        if isinstance(value, tuple):  # allow plain ints and Fractions among the entries
            value = tuple(v if isinstance(v, sympy.Basic) else rational(v, "entry") for v in value)
        return text_value(value)

    @staticmethod
    def format_latex(value: ExampleValue) -> str:
        r"""The exact value as LaTeX (math mode), in the same style as :meth:`format_value`.

        >>> print(WorkedExample.format_latex((-4 / sympy.sqrt(17), -1 / sympy.sqrt(17))))
        \left(-4, -1\right) / \sqrt{17}
        """
        return latex_value(value)

    @staticmethod
    def format_decimal(value: ExampleValue) -> str | None:
        """The value's decimals as text; None when every entry is an integer.

        >>> WorkedExample.format_decimal(1000 / sympy.sqrt(101))
        '99.50371902'
        """
        return decimal_value_text(value)

    def rows(self) -> list[Row]:
        """The quantities to display, in order, skipping those not computed."""
        return labelled_rows(LABELS, lambda key: getattr(self, key), self.loss is None)

    def _title(self) -> tuple[str, str]:
        eps_text = "0 (idealized)" if self.idealized else text_number(self.eps)
        eps_latex = r"0 \text{ (idealized)}" if self.idealized else latex_number(self.eps)
        return f"d = {self.d}, ε = {eps_text}", rf"d = {self.d},\ \varepsilon = {eps_latex}"

    def _notes(self) -> list[str]:
        notes = []
        if self.loss is not None:
            notes.append("Loss: ℓ = ½‖y‖², so the upstream gradient is g = y.")
        if self.jacobian is None:
            notes.append(f"Jacobians omitted: d = {self.d} > {MAX_MATRIX_DIMENSION}.")
        return notes

    def _sections(self) -> list[tuple[str, list[Row]]]:
        return by_section(self.rows(), SECTIONS)

    def to_text(self) -> str:
        """Plain text: one quantity per line, exact value then its decimal.

        >>> from lnsym.exact.examples import worked_example
        >>> print(worked_example([-1, 1], 3).to_text().splitlines()[0])
        Worked example of layer normalization: d = 2, ε = 3
        """
        lines = [f"Worked example of layer normalization: {self._title()[0]}"]
        lines += self._notes()
        for title, rows in self._sections():
            lines += ["", title]
            for row in rows:
                head = f"  {row.symbol} = " + (f"{row.formula} = " if row.formula else "")
                exact = text_value(row.value)
                approx = decimal_value_text(row.value)
                if isinstance(row.value, sympy.MatrixBase):
                    lines.append(head.rstrip())
                    lines += ["      " + line for line in exact.splitlines()]
                    if approx is not None:
                        lines.append("    ≈")
                        lines += ["      " + line for line in approx.splitlines()]
                else:
                    lines.append(head + exact + (f"  ≈ {approx}" if approx else ""))
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_markdown(self) -> str:
        """Markdown: one table per section, exact values as inline LaTeX, decimals as text.

        >>> from fractions import Fraction
        >>> from lnsym.exact.examples import worked_example
        >>> print(worked_example([1, 2, 3], Fraction(1, 3)).to_markdown().splitlines()[0])
        ### Worked example of layer normalization ($d = 3,\\ \\varepsilon = \\frac{1}{3}$)
        """
        lines = [f"### Worked example of layer normalization (${self._title()[1]}$)"]
        lines += ["", *self._notes()] if self._notes() else []
        for title, rows in self._sections():
            lines += ["", f"#### {title}", "", "| Quantity | Exact | Decimal |", "|---|---|---|"]
            for row in rows:
                quantity = row.latex_symbol + (
                    f" = {row.latex_formula}" if row.latex_formula else ""
                )
                approx = decimal_value_text(row.value) or ""
                approx = approx.replace("\n", "<br>")
                lines.append(f"| ${quantity}$ | ${latex_value(row.value)}$ | {approx} |")
        return "\n".join(lines) + "\n"

    def to_latex(self) -> str:
        r"""A LaTeX body (needs amsmath): one ``align*`` block per section.

        >>> from fractions import Fraction
        >>> from lnsym.exact.examples import worked_example
        >>> print(worked_example([1, 2, 3], Fraction(1, 3)).to_latex().splitlines()[0])
        % Worked example of layer normalization: $d = 3,\ \varepsilon = \frac{1}{3}$
        """
        heading = f"Worked example of layer normalization: ${self._title()[1]}$"
        return latex_body(heading, self._notes(), self._sections(), latex_value, decimal_text)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: exact values as SymPy strings, decimals as floats (or None).

        >>> from fractions import Fraction
        >>> from lnsym.exact.examples import worked_example
        >>> worked_example([1, 2, 3], Fraction(1, 3)).to_dict()["values"]["variance"]["exact"]
        '2/3'
        """
        return {
            "schema_version": 1,
            "d": self.d,
            "eps": sympy.sstr(self.eps),
            "idealized": self.idealized,
            "loss": self.loss,
            "values": {
                row.key: {
                    "symbol": row.symbol,
                    "formula": row.formula,
                    **json_value(row.value),
                }
                for row in self.rows()
            },
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text (deterministic key order).

        Decimals are floats, or ``null`` where no float holds the value.

        >>> from lnsym.exact.examples import worked_example
        >>> print(worked_example([7, 7], 1).to_json().splitlines()[2])
          "d": 2,
        """
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"


def latex_body(
    heading: str,
    notes: list[str],
    sections: list[tuple[str, list[Row]]],
    value: Callable[[Any], str],
    decimal: Callable[[Any], str],
) -> str:
    """The LaTeX body of a worked example (a single vector's or a batch's): the heading and
    notes as comments, one ``align*`` block per section, a scalar's decimal beside it."""
    lines = [f"% {heading}", *(f"% {note}" for note in notes)]
    for title, rows in sections:
        lines += [rf"\paragraph{{{title}.}}", r"\begin{align*}"]
        body = []
        for row in rows:
            line = f"  {row.latex_symbol} &= "
            if row.latex_formula:
                line += f"{row.latex_formula} = "
            line += value(row.value)
            if not isinstance(row.value, tuple | sympy.MatrixBase) and not is_integer(row.value):
                line += rf" \approx {decimal(row.value)}"
            body.append(line)
        lines.append(" \\\\\n".join(body))
        lines.append(r"\end{align*}")
    return "\n".join(lines) + "\n"
