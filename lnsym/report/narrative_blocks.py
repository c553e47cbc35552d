"""The building blocks of the report's narrative chapters, format-neutral.

A chapter is a title and a list of blocks: paragraphs, displayed formulas, tables, code and
figures. Paragraph text is written with a small markup, parsed by :func:`spans`:
``$...$`` is inline LaTeX math, ```...``` code, and ``[[item.id]]`` a reference to a
checked claim or derivation, shown as "Claim 2.3, PROVED" with the verdict read from the
checked results (``[[§item.id]]`` names the section that holds the item). Everything
else is plain Unicode text that each output format escapes.

>>> refs = {"core.mean_zero": Ref("Claim", "2.3", "core.mean_zero", "The core has mean zero",
...                              "PROVED", True)}
>>> [s.kind for s in spans("mean $0$ [[core.mean_zero]].", refs)]
['text', 'math', 'text', 'ref', 'text']
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from lnsym.printing.printer import Math


class MissingItem(KeyError):
    """A chapter cites an item that the checked catalog does not hold."""


@dataclass(frozen=True)
class Ref:
    """A link to a checked item: ``kind`` ("Claim", "Derivation") and ``number`` name it;
    ``statement`` is what it states, from the printer."""

    kind: str
    number: str
    id: str
    title: str
    verdict: str
    passed: bool
    statement: Math = Math("")


@dataclass(frozen=True)
class Span:
    """A piece of a paragraph: ``text``, ``math`` (``value`` is LaTeX), ``code`` or ``ref``."""

    kind: str
    value: str
    ref: Ref | None = None


_MARKUP = re.compile(r"(\$[^$]+\$|`[^`]+`|\[\[§?[a-z0-9_.]+\]\])")


def spans(text: str, refs: Mapping[str, Ref]) -> tuple[Span, ...]:
    """``text`` split into spans (see the module docstring).

    Raises:
        MissingItem: for a reference to an item that is not in ``refs``.
    """
    out = []
    for piece in _MARKUP.split(text):
        if not piece:
            continue
        if piece.startswith("$"):
            out.append(Span("math", Math(piece[1:-1])))
        elif piece.startswith("`"):
            out.append(Span("code", piece[1:-1]))
        elif piece.startswith("[["):
            key = piece[2:-2].removeprefix("§")
            if key not in refs:
                raise MissingItem(key)
            ref = refs[key]
            if piece.startswith("[[§"):  # the section that holds the item
                out.append(Span("text", f"Section {ref.number.split('.')[0]}"))
            else:
                out.append(Span("ref", ref.id, ref))
        else:
            out.append(Span("text", piece))
    return tuple(out)


@dataclass(frozen=True)
class Block:
    """One block of a chapter.

    ``kind`` is ``heading`` (``text``), ``paragraph`` (``spans``), ``display`` (``math``),
    ``table`` (``header``, ``rows``: cells of spans, ``spans``: the sentence that leads into
    it), ``code`` (``text``, ``caption``: its file, or empty for a command) or ``figure``
    (``figure``, a :class:`~lnsym.report.model.FigureView`).
    """

    kind: str
    spans: tuple[Span, ...] = ()
    math: Math | None = None
    header: tuple[tuple[Span, ...], ...] = ()
    rows: tuple[tuple[tuple[Span, ...], ...], ...] = ()
    caption: str = ""
    text: str = ""
    figure: object = None
    #: A table's column widths as fractions of the line (LaTeX); equal when empty.
    widths: tuple[float, ...] = ()


@dataclass(frozen=True)
class Chapter:
    """A narrative chapter: a title and its blocks."""

    slug: str
    title: str
    blocks: tuple[Block, ...]


class Writer:
    """Collects the blocks of one chapter, parsing paragraph markup against ``refs``."""

    def __init__(self, refs: Mapping[str, Ref]) -> None:
        self.refs = refs
        self.blocks: list[Block] = []

    def heading(self, text: str) -> None:
        self.blocks.append(Block("heading", text=text))

    def para(self, text: str) -> None:
        self.blocks.append(Block("paragraph", spans=spans(" ".join(text.split()), self.refs)))

    def display(self, latex: str) -> None:
        self.blocks.append(Block("display", math=Math(latex)))

    def statement(self, item: str) -> None:
        """Display what the checked item ``item`` states, as the printer writes it."""
        if item not in self.refs:
            raise MissingItem(item)
        self.display(self.refs[item].statement)

    def table(
        self,
        header: list[str],
        rows: list[list[str]],
        widths: tuple[float, ...] = (),
        lead: str = "",
    ) -> None:
        """A table; ``lead`` is the sentence that introduces it (kept on its page)."""
        cells = tuple(tuple(spans(c, self.refs) for c in row) for row in rows)
        equal = tuple(0.96 / len(header) for _ in header)
        self.blocks.append(
            Block("table", header=tuple(spans(h, self.refs) for h in header), rows=cells,
                  widths=widths or equal, spans=spans(" ".join(lead.split()), self.refs))
        )  # fmt: skip

    def code(self, text: str, caption: str) -> None:
        self.blocks.append(Block("code", text=text, caption=caption))

    def figure(self, figure: object) -> None:
        self.blocks.append(Block("figure", figure=figure))

    def chapter(self, slug: str, title: str) -> Chapter:
        chapter = Chapter(slug, title, tuple(self.blocks))
        self.blocks = []
        return chapter
