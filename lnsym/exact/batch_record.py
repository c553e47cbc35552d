"""A batch example as a record of exact values, and its text, Markdown, LaTeX and JSON.

:class:`BatchExample` holds every quantity :func:`~lnsym.exact.batch_example.batch_example`
computed and cross-checked, and renders them one section at a time in the style of the
single-vector :class:`~lnsym.exact.example_record.WorkedExample`, labelled by
:mod:`lnsym.exact.batch_labels`. A batch is shown row by row in text (each row with its
common surd pulled out, as a vector is), and as a matrix in Markdown and LaTeX.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import sympy

from lnsym.exact.batch_format import (
    exact_text,
    float_value,
    number_decimal,
    number_text,
    row_decimals,
    row_text,
    value_latex,
)
from lnsym.exact.batch_labels import (
    LAYER_NAMES,
    SECTIONS,
    axis_note,
    batch_labels,
    gradient_note,
)
from lnsym.exact.example_labels import Row, by_section, labelled_rows
from lnsym.exact.example_record import latex_body
from lnsym.exact.value_format import is_integer, latex_number, text_number


def _rows_of(value: sympy.MatrixBase) -> list[tuple[sympy.Expr, ...]]:
    return [tuple(value.row(i)) for i in range(value.rows)]


def _text_lines(value: Any) -> tuple[list[str], list[str] | None]:
    """The exact lines and the decimal lines (None: all integers) of a value: one line for a
    number or a vector, one per row for a matrix."""
    if isinstance(value, sympy.MatrixBase):
        rows = _rows_of(value)
        if all(is_integer(v) for v in value):
            return [row_text(r) for r in rows], None
        return [row_text(r) for r in rows], [row_decimals(r) or row_text(r) for r in rows]
    if isinstance(value, tuple):
        approx = row_decimals(value)
        return [row_text(value)], None if approx is None else [approx]
    return [number_text(value)], None if is_integer(value) else [number_decimal(value)]


def _json_value(value: Any) -> dict[str, Any]:
    """``exact`` (SymPy strings), ``decimal`` (floats or None) and ``display`` (the text)."""
    if isinstance(value, sympy.MatrixBase):
        exact: Any = [[exact_text(v) for v in r] for r in _rows_of(value)]
        decimals: Any = [[float_value(v) for v in r] for r in _rows_of(value)]
    elif isinstance(value, tuple):
        exact, decimals = [exact_text(v) for v in value], [float_value(v) for v in value]
    else:
        exact, decimals = exact_text(value), float_value(value)
    return {"exact": exact, "decimal": decimals, "display": "\n".join(_text_lines(value)[0])}


@dataclass(frozen=True)
class BatchExample:
    """An exact worked example of a normalization layer on a batch Z of n rows and d columns.

    ``values`` maps each key of :func:`~lnsym.exact.batch_labels.batch_labels` to its
    exact value — a SymPy number, a vector (tuple) or a matrix (``ImmutableMatrix``: the
    batches, and group norm's n × G statistics) — or None where it was not computed (the
    gradients without an upstream gradient or a loss).
    """

    layer: str
    groups: int | None
    eps: sympy.Rational
    idealized: bool
    loss: str | None
    values: dict[str, Any] = field(repr=False)

    @property
    def n(self) -> int:
        """The number of rows."""
        return int(self.values["z"].rows)

    @property
    def d(self) -> int:
        """The number of columns (features)."""
        return int(self.values["z"].cols)

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def rows(self) -> list[Row]:
        """The quantities to display, in order, skipping those not computed."""
        return labelled_rows(batch_labels(self.layer), self.values.get, self.loss is None)

    def _sections(self) -> list[tuple[str, list[Row]]]:
        return by_section(self.rows(), SECTIONS)

    def _name(self) -> str:
        name = LAYER_NAMES[self.layer]
        return f"{name}, G = {self.groups}" if self.layer == "group_norm" else name

    def _title(self) -> tuple[str, str]:
        eps_text = "0 (idealized)" if self.idealized else text_number(self.eps)
        eps_latex = r"0 \text{ (idealized)}" if self.idealized else latex_number(self.eps)
        sizes = f"n = {self.n}, d = {self.d}"
        groups = f",\\ G = {self.groups}" if self.layer == "group_norm" else ""
        return (
            f"{sizes}, ε = {eps_text}",
            rf"n = {self.n},\ d = {self.d}{groups},\ \varepsilon = {eps_latex}",
        )

    def _heading(self) -> str:
        return f"Worked example of {LAYER_NAMES[self.layer]} on a batch"

    def _notes(self) -> list[str]:
        notes = [axis_note(self.layer, self.n, self.d, self.groups)]
        if self.loss is not None:
            notes.append("Loss: ℓ = ½·Σₜⱼ yₜⱼ², so the upstream gradient is G = Y.")
        if self.values.get("grad_gamma") is not None:
            notes.append(gradient_note(self.layer))
        return notes

    def to_text(self) -> str:
        """Plain text: one quantity per line (a batch one row per line), exact then decimal.

        >>> from lnsym.exact.batch_example import batch_example
        >>> print(batch_example([[1, 3], [3, 7]], 1, layer="batch_norm").to_text().splitlines()[0])
        Worked example of batch normalization (training mode) on a batch: n = 2, d = 2, ε = 1
        """
        heading = self._heading()
        if self.layer == "group_norm":
            heading += f" (G = {self.groups} groups)"
        lines = [f"{heading}: {self._title()[0]}", *self._notes()]
        for title, rows in self._sections():
            lines += ["", title]
            for row in rows:
                head = f"  {row.symbol} = " + (f"{row.formula} = " if row.formula else "")
                exact, approx = _text_lines(row.value)
                if isinstance(row.value, sympy.MatrixBase):
                    lines.append(head.rstrip())
                    lines += ["      " + line for line in exact]
                    if approx is not None:
                        lines.append("    ≈")
                        lines += ["      " + line for line in approx]
                else:
                    lines.append(head + exact[0] + (f"  ≈ {approx[0]}" if approx else ""))
        return "\n".join(lines) + "\n"

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def to_markdown(self) -> str:
        """Markdown: one table per section, exact values as inline LaTeX, decimals as text.

        >>> from lnsym.exact.batch_example import batch_example
        >>> print(batch_example([[1, 3], [3, 7]], 1, layer="batch_norm").to_markdown().split()[-1])
        |
        """
        lines = [f"### {self._heading()} (${self._title()[1]}$)", ""]
        lines += self._notes()
        for title, rows in self._sections():
            lines += ["", f"#### {title}", "", "| Quantity | Exact | Decimal |", "|---|---|---|"]
            for row in rows:
                quantity = row.latex_symbol + (
                    f" = {row.latex_formula}" if row.latex_formula else ""
                )
                exact, approx = _text_lines(row.value)
                shown = "<br>".join(approx) if approx else ""
                shown = shown.replace("\n", "<br>")
                lines.append(f"| ${quantity}$ | ${value_latex(row.value)}$ | {shown} |")
        return "\n".join(lines) + "\n"

    def to_latex(self) -> str:
        r"""A LaTeX body (needs amsmath): one ``align*`` block per section.

        >>> from lnsym.exact.batch_example import batch_example
        >>> print(batch_example([[1, 3], [3, 7]], 1, layer="rms_norm").to_latex().splitlines()[0])
        % Worked example of RMS normalization on a batch: $n = 2,\ d = 2,\ \varepsilon = 1$
        """
        heading = f"{self._heading()}: ${self._title()[1]}$"
        return latex_body(heading, self._notes(), self._sections(), value_latex, number_decimal)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: exact values as SymPy strings, decimals as floats (or None).

        >>> from lnsym.exact.batch_example import batch_example
        >>> values = batch_example([[1, 3], [3, 7]], 1, layer="batch_norm").to_dict()["values"]
        >>> values["mean"]["exact"], values["core"]["exact"]
        (['2', '5'], [['-sqrt(2)/2', '-2*sqrt(5)/5'], ['sqrt(2)/2', '2*sqrt(5)/5']])
        """
        return {
            "schema_version": 1,
            "layer": self.layer,
            "groups": self.groups,
            "n": self.n,
            "d": self.d,
            "eps": sympy.sstr(self.eps),
            "idealized": self.idealized,
            "loss": self.loss,
            "axis": axis_note(self.layer, self.n, self.d, self.groups),
            "values": {
                row.key: {"symbol": row.symbol, "formula": row.formula, **_json_value(row.value)}
                for row in self.rows()
            },
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON text (deterministic key order)."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False) + "\n"
