"""What a report is called and what it shows besides its items: its title, file name and
figures.

The built-in catalog's report is ``layernorm.*``, titled :data:`BUILTIN_TITLE`, with the
layer-normalization figures of :data:`~lnsym.report.figures.FIGURES`. A report of a user's
own derivation modules takes all three from the modules: the title from a module-level
``TITLE`` (else the first line of the module docstring), the file name from the module
file (or directory) given, and the figures from a module-level ``FIGURES`` list of
:class:`~lnsym.report.figures.FigureSpec` — none unless a module asks for them, so no
layer-normalization material enters a report that did not ask for it.

>>> from pathlib import Path
>>> from lnsym.checking.catalog import Section
>>> mine = Section(Path("work/my_rms.py"), "RMS identities", "", (), ())
>>> document_for([mine], [Path("work/my_rms.py")])
Document(name='my_rms', title='RMS identities', figures=(), builtin=False)
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from lnsym.checking.catalog import Section, builtin_dir, module_files
from lnsym.errors import CatalogError, UserInputError
from lnsym.report.figures import FIGURES, FigureSpec

#: The base name of the built-in catalog's report files.
BUILTIN_NAME = "layernorm"
#: The title of the built-in catalog's report.
BUILTIN_TITLE = "Layer normalization: derivations and checks"
#: The base name of a report of several user paths.
SEVERAL_NAME = "report"
#: Base names the report output keeps for other documents.
RESERVED = frozenset({"source-review", "exercises"})


@dataclass(frozen=True)
class Document:
    """A report's file base name (``name.md``, ``name.tex``, ``name.pdf``), title and
    figures."""

    name: str
    title: str
    figures: tuple[FigureSpec, ...]
    #: The built-in catalog's report, the only one with the layer-normalization introduction.
    builtin: bool = False


BUILTIN = Document(BUILTIN_NAME, BUILTIN_TITLE, FIGURES, builtin=True)


def is_builtin(paths: Sequence[Path]) -> bool:
    """Whether ``paths`` (as given on the command line) stand for the built-in catalog:
    none at all, or exactly its module files."""
    if not paths:
        return True
    try:
        given = {p.resolve() for p in module_files(list(paths))}
    except CatalogError:  # a bad path is reported by the catalog's loader
        return False
    return given == {p.resolve() for p in module_files([builtin_dir()])}


def document_for(sections: Sequence[Section], paths: Sequence[Path]) -> Document:
    """The title, file name and figures of the report of ``sections``, loaded from ``paths``.

    Raises:
        UserInputError: when a module's ``TITLE`` is not a one-line string, its
            ``FIGURES`` holds something that is not a FigureSpec, or two figures share
            a name.
    """
    if is_builtin(paths):
        return BUILTIN
    titles = []
    for section in sections:
        if section.report_title is None:
            continue
        if not isinstance(section.report_title, str) or not _one_line(section.report_title):
            raise UserInputError(f"{section.path}: TITLE must be a one-line string")
        titles.append(section.report_title.strip())
    title = titles[0] if titles else "; ".join(s.title for s in sections if s.title)
    return Document(_name(paths), title or "Derivations and checks", _figures(sections))


def _one_line(text: str) -> bool:
    return bool(text.strip()) and "\n" not in text.strip()


def _name(paths: Sequence[Path]) -> str:
    """The file stem of the one path given (a directory's name), else :data:`SEVERAL_NAME`;
    characters other than letters, digits, ``_``, ``-`` and ``.`` become ``-``."""
    if len(paths) != 1:
        return SEVERAL_NAME
    path = paths[0]
    stem = path.resolve().name if path.is_dir() else path.stem
    name = re.sub(r"[^A-Za-z0-9_.\-]+", "-", stem).strip(".-") or SEVERAL_NAME
    return name if name not in RESERVED else f"{name}-report"


def _figures(sections: Sequence[Section]) -> tuple[FigureSpec, ...]:
    out: dict[str, FigureSpec] = {}
    for section in sections:
        for spec in section.figures:
            if not isinstance(spec, FigureSpec):
                raise UserInputError(
                    f"{section.path}: FIGURES holds {spec!r}, which is not a "
                    "lnsym.report.figures.FigureSpec"
                )
            if not re.fullmatch(r"[A-Za-z0-9_\-]+", spec.name):
                raise UserInputError(
                    f"{section.path}: figure name {spec.name!r}: use letters, digits, _ and -"
                )
            if out.get(spec.name, spec) is not spec:
                raise UserInputError(f"{section.path}: a second figure is named {spec.name!r}")
            out[spec.name] = spec
    return tuple(out.values())
