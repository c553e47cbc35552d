"""Verdict grids: a table whose cells are the verdicts of a family of claims.

A derivation module may list :class:`TableSpec` values in a module-level ``TABLES``; the
report shows each as a grid in that module's section. The cell in row ``r`` and column
``c`` is the verdict of the claim ``pattern.format(row=r, column=c)``, put in words by
``words`` (e.g. PROVED → "invariant") — so a grid is assembled from the computed verdicts,
never typed in. A cell whose claim the catalog lacks shows ``missing``; :func:`grid_view`
fills a spec in.

>>> spec = TableSpec("demo", "Demo", "", (("a", "A"),), (("x", "X"),), "demo.{row}.{column}")
>>> spec.claim_id("a", "x")
'demo.a.x'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lnsym.errors import UserInputError
from lnsym.report.narrative_blocks import Ref


@dataclass(frozen=True)
class TableSpec:
    """A grid of claim verdicts.

    Args:
        name: a label for the table (letters, digits, ``_``, ``-``).
        title: the table's heading, plain Unicode text.
        caption: what the grid shows, plain Unicode text.
        rows: ``(key, label)`` pairs, top to bottom.
        columns: ``(key, label)`` pairs, left to right.
        pattern: the claim id of a cell, with ``{row}`` and ``{column}`` fields.
        words: verdict → the word shown in the cell; other verdicts are shown as they are.
        missing: the text of a cell without a claim.
    """

    name: str
    title: str
    caption: str
    rows: tuple[tuple[str, str], ...]
    columns: tuple[tuple[str, str], ...]
    pattern: str
    words: Mapping[str, str] = field(
        default_factory=lambda: {"PROVED": "holds", "REFUTED": "fails"}, compare=False
    )
    missing: str = "—"

    def claim_id(self, row: str, column: str) -> str:
        """The id of the claim shown in the cell (row, column)."""
        return self.pattern.format(row=row, column=column)


def checked_tables(tables: tuple[object, ...], where: str) -> tuple[TableSpec, ...]:
    """``tables`` (a module's ``TABLES``) when each is a well-formed :class:`TableSpec`.

    Raises:
        UserInputError: naming ``where`` for anything else.
    """
    for spec in tables:
        if not isinstance(spec, TableSpec):
            raise UserInputError(
                f"{where}: TABLES holds {spec!r}, which is not a lnsym.report.tables.TableSpec"
            )
        if not re.fullmatch(r"[A-Za-z0-9_\-]+", spec.name):
            raise UserInputError(f"{where}: table name {spec.name!r}: use letters, digits, _ and -")
    return tables  # type: ignore[return-value]  # every element was checked above


@dataclass(frozen=True)
class GridCell:
    """One cell: the verdict in words, and the claim it comes from (None when missing)."""

    text: str
    ref: Ref | None


@dataclass(frozen=True)
class GridView:
    """A verdict grid as the report shows it: labelled rows of cells under the columns."""

    name: str
    title: str
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, tuple[GridCell, ...]], ...]


def grid_view(spec: TableSpec, refs: Mapping[str, Ref]) -> GridView:
    """``spec`` filled in from the checked items ``refs`` (by id); a row none of whose
    claims is there is left out."""
    rows = []
    for row, label in spec.rows:
        cells = []
        for column, _ in spec.columns:
            ref = refs.get(spec.claim_id(row, column))
            text = spec.missing if ref is None else spec.words.get(ref.verdict, ref.verdict)
            cells.append(GridCell(text, ref))
        if any(cell.ref is not None for cell in cells):
            rows.append((label, tuple(cells)))
    columns = tuple(label for _, label in spec.columns)
    return GridView(spec.name, spec.title, spec.caption, columns, tuple(rows))
