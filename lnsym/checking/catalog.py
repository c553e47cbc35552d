"""Loading derivation modules: the built-in catalog or the user's own files.

A derivation module is a trusted Python file that defines ``CLAIMS`` (a list of
:class:`~lnsym.checking.claims.Claim`) and optionally ``DERIVATIONS`` (a list of
:class:`~lnsym.checking.proof.Derivation`); its docstring introduces the section (first line:
title). A directory stands for its ``*.py`` files not starting with ``_``, in name order.
Optional names kept for the report of the module (:mod:`lnsym.report` checks them):
``TITLE``, the report's title, ``FIGURES``, the figures it shows, and ``TABLES``, the verdict
grids it shows (:class:`~lnsym.report.tables.TableSpec`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import traceback
from dataclasses import dataclass
from pathlib import Path

from lnsym.checking.claims import Claim
from lnsym.checking.proof import Derivation
from lnsym.errors import CatalogError

#: The lnsym package directory (the wheel ships the catalog inside it).
_PACKAGE = Path(__file__).parent.parent


@dataclass(frozen=True)
class Section:
    """The claims and derivations of one derivation module."""

    path: Path
    title: str
    description: str
    claims: tuple[Claim, ...]
    derivations: tuple[Derivation, ...]
    #: The module's ``TITLE`` (None when it defines none), for the title of its report.
    report_title: object = None
    #: The module's ``FIGURES``, unchecked (the report checks them).
    figures: tuple[object, ...] = ()
    #: The module's ``TABLES``, unchecked (the report checks them).
    tables: tuple[object, ...] = ()

    @property
    def name(self) -> str:
        return self.path.stem

    @property
    def items(self) -> tuple[Claim | Derivation, ...]:
        """The claims, then the derivations."""
        return (*self.claims, *self.derivations)


def builtin_dir() -> Path:
    """The built-in derivations: inside the wheel, or beside the package in a checkout."""
    packaged = _PACKAGE / "derivations"
    if packaged.is_dir():
        return packaged
    return _PACKAGE.parent / "derivations"


def module_files(paths: list[Path]) -> list[Path]:
    """Expand directories into their derivation files.

    Raises:
        CatalogError: for a missing path or a file that is not ``.py``.
    """
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            files.extend(sorted(p for p in path.glob("*.py") if not p.name.startswith("_")))
        elif path.is_file() and path.suffix == ".py":
            files.append(path)
        elif path.exists():
            raise CatalogError(f"{path}: not a Python file")
        else:
            raise CatalogError(f"{path}: no such file or directory")
    return files


def load(paths: list[Path] | None = None) -> list[Section]:
    """Load the sections of the given files/directories (default: the built-in catalog).

    Raises:
        CatalogError: when a module fails to import (raises or exits), lacks ``CLAIMS``,
            holds something that is not a Claim/Derivation, or two items share an id.
    """
    files = module_files(paths if paths else [builtin_dir()])
    if not files:
        raise CatalogError("no derivation modules found in " + ", ".join(map(str, paths or [])))
    sections = [_load_file(f) for f in files]
    seen: dict[str, Path] = {}
    for section in sections:
        for item in section.items:
            if item.id in seen:
                raise CatalogError(
                    f"{section.path}: id {item.id!r} is already used in {seen[item.id]}"
                )
            seen[item.id] = section.path
    return sections


def _load_file(path: Path) -> Section:
    resolved = path.resolve()
    digest = hashlib.sha1(str(resolved).encode()).hexdigest()[:12]
    name = f"lnsym_catalog_{resolved.stem.replace('-', '_')}_{digest}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise CatalogError(f"{path}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # a user's module may fail in any way
        del sys.modules[name]
        raise CatalogError(f"{path}{_where(exc, resolved)}: {_describe(exc)}") from exc
    claims = getattr(module, "CLAIMS", None)
    if not isinstance(claims, list | tuple):
        raise CatalogError(f"{path}: defines no CLAIMS list")
    derivations = getattr(module, "DERIVATIONS", [])
    if not isinstance(derivations, list | tuple):
        raise CatalogError(f"{path}: DERIVATIONS must be a list")
    for item in claims:
        if not isinstance(item, Claim):
            raise CatalogError(f"{path}: CLAIMS holds {item!r}, which is not a Claim")
    for item in derivations:
        if not isinstance(item, Derivation):
            raise CatalogError(f"{path}: DERIVATIONS holds {item!r}, which is not a Derivation")
    doc = (module.__doc__ or path.stem).strip()
    title, _, description = doc.partition("\n")
    figures = getattr(module, "FIGURES", ())
    if not isinstance(figures, list | tuple):
        raise CatalogError(f"{path}: FIGURES must be a list")
    tables = getattr(module, "TABLES", ())
    if not isinstance(tables, list | tuple):
        raise CatalogError(f"{path}: TABLES must be a list")
    return Section(
        path,
        title.strip(),
        description.strip(),
        tuple(claims),
        tuple(derivations),
        getattr(module, "TITLE", None),
        tuple(figures),
        tuple(tables),
    )


def _describe(exc: BaseException) -> str:
    """``Type: message`` of an exception raised at import, on one line."""
    if isinstance(exc, SystemExit):
        code = "" if exc.code is None else f": {exc.code}"
        text = f"SystemExit{code} (a derivation module must not exit when imported)"
    else:
        text = f"{type(exc).__name__}: {exc}"
    return " ".join(text.splitlines())


def _where(exc: BaseException, path: Path) -> str:
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    if isinstance(exc, SyntaxError) and exc.lineno:
        return f":{exc.lineno}"
    return f":{frames[-1].lineno}" if frames else ""
