"""Results kept between runs: a claim's result, reused while nothing that decides it changes.

A result is stored as a JSON record (:mod:`lnsym.checking.records`) named by a SHA-256 of
everything its verdict depends on: the claim itself (its fingerprint,
:func:`lnsym.checking.fingerprint.content_key`: every field, structurally — IR nodes, SymPy
objects with their assumptions, premises and lemmas), the checking options that choose the
evidence (engines, max_d, samples, seed), the source of the installed ``lnsym`` package, and
the versions of Python, SymPy (with its ground types), mpmath, NumPy and python-flint. Change
any of them and the result is checked afresh. Only results the engines reached within their
deterministic limits are kept: one cut by the wall-clock safety net is not.

A record names the fingerprints of its claim and options and is served only when both match
what is asked: a record copied under another claim's name is a miss. Reading one runs no code
(JSON, SymPy numbers rebuilt from a short list of classes); one that does not parse, has the
wrong shape or names another claim is a miss and is removed, never an error.

Claims that hold objects lnsym cannot key by content (a function or class from a user's
module, say a lemma schema of their own) are never cached, nor are results holding values a
record cannot represent exactly. The command line uses the cache unless ``--no-cache`` is
given or ``$LNSYM_CACHE`` is ``off`` (directory: ``$LNSYM_CACHE_DIR``, else
``$XDG_CACHE_HOME/lnsym``, else ``~/.cache/lnsym``); the Python API only when asked
(``Options(cache_dir=...)``).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import platform
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sympy

from lnsym.checking.fingerprint import content_key
from lnsym.checking.records import FORMAT, NotRecordable, read_record, write_record
from lnsym.engines.base import Outcome

if TYPE_CHECKING:
    from lnsym.checking.claims import Claim, Result

_PACKAGE = Path(__file__).resolve().parents[1]


def default_dir() -> Path | None:
    """Where the command line keeps results: ``$LNSYM_CACHE_DIR``, else the user's cache;
    None when ``$LNSYM_CACHE`` is ``off``."""
    if os.environ.get("LNSYM_CACHE", "").lower() == "off":
        return None
    explicit = os.environ.get("LNSYM_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lnsym"


class ResultCache:
    """Results of claims under ``root``, for checks made with ``settings``: the checking
    options that choose the evidence (``Options.evidence_settings()``)."""

    def __init__(self, root: Path, settings: tuple[Any, ...]) -> None:
        self.root = Path(root) / f"results-{FORMAT}" / _environment()
        self._settings = content_key(settings)
        #: id of a claim → (the claim, its fingerprint, its record's path): a miss is a get,
        #: then a put, and the fingerprint walks the whole claim. The claim stays alive, so
        #: its id stays its own.
        self._places: dict[int, tuple[Claim, str | None, Path | None]] = {}

    def get(self, claim: Claim) -> Result | None:
        """The stored result of ``claim`` (with this very claim object), or None.

        Only a record naming this claim's fingerprint and these settings is served; any
        other file in its place is a miss, and is removed.
        """
        fingerprint, path = self._place(claim)
        if fingerprint is None or path is None or self._settings is None:
            return None
        try:
            if not path.is_file():  # nothing there, or not a file lnsym writes
                return None
            data = path.read_bytes()
        except OSError:
            return None
        try:
            return read_record(data, claim, claim=fingerprint, settings=self._settings)
        except Exception:  # noqa: BLE001 — BadRecord, or anything else a damaged record does
            with contextlib.suppress(OSError):
                path.unlink()  # never believed, and never in the way again
            return None

    def put(self, claim: Claim, result: Result) -> None:
        """Keep ``result`` unless it depends on the clock; a failed write is only a miss."""
        if any(e.outcome == Outcome.TIMEOUT for e in result.evidence):
            return
        if any(e.detail.startswith("internal ") for e in result.evidence):
            return  # an engine crashed (perhaps out of memory): not a fact about the claim
        if result.claim is not claim:
            return  # a record is bound to the claim it names: only its own result goes there
        fingerprint, path = self._place(claim)
        if fingerprint is None or path is None or self._settings is None:
            return
        try:
            data = write_record(result, claim=fingerprint, settings=self._settings)
        except NotRecordable:  # evidence that cannot be stored exactly is not kept
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if self.root not in _TIDIED:
                _forget_other_environments(self.root)
                _TIDIED.add(self.root)
            # Written beside its place and renamed: a reader never sees half a record.
            with tempfile.NamedTemporaryFile(dir=path.parent, suffix=".tmp", delete=False) as tmp:
                tmp.write(data)
            os.replace(tmp.name, path)
        except OSError:
            with contextlib.suppress(OSError, NameError):
                os.unlink(tmp.name)

    def _place(self, claim: Claim) -> tuple[str | None, Path | None]:
        """The claim's fingerprint and its record's path (None: the claim is not keyable)."""
        found = self._places.get(id(claim))
        if found is None:
            fingerprint = content_key(claim)
            path = None
            if fingerprint is not None and self._settings is not None:
                key = hashlib.sha256(f"{self._settings}\x00{fingerprint}".encode()).hexdigest()
                path = self.root / key[:2] / f"{key}.json"
            found = self._places[id(claim)] = (claim, fingerprint, path)
        return found[1], found[2]


@functools.cache
def _environment() -> str:
    """A digest of the lnsym source and the versions that can change a verdict."""
    import flint
    import mpmath  # type: ignore[import-untyped]
    import numpy
    from sympy.external.gmpy import GROUND_TYPES

    digest = hashlib.sha256()
    for value in (FORMAT, sys.version, platform.machine(), sympy.__version__, GROUND_TYPES):
        digest.update(f"{value}\x00".encode())
    for value in (mpmath.__version__, numpy.__version__, flint.__version__):
        digest.update(f"{value}\x00".encode())
    for path in sorted(_PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(_PACKAGE)).encode() + b"\x00" + path.read_bytes())
    return digest.hexdigest()[:32]


_TIDIED: set[Path] = set()
_DIGEST = re.compile("[0-9a-f]{32}")
_FORMATS = re.compile("results-[0-9]+")


def _forget_other_environments(current: Path) -> None:
    """Remove the results of other lnsym versions and record formats (pickles of format 1
    included): they can never be read again."""
    for other in current.parent.iterdir():  # results-<FORMAT>/: only lnsym writes there
        if other != current and _is_folder(other) and _DIGEST.fullmatch(other.name):
            _remove_tree(other)
    formats = current.parent
    for other in formats.parent.iterdir():  # the cache directory: results-<n>/ are lnsym's
        if other != formats and _is_folder(other) and _FORMATS.fullmatch(other.name):
            if _lnsyms_layout(other):  # never a folder of the user's that happens to match
                _remove_tree(other)


def _is_folder(path: Path) -> bool:
    """A folder itself, not a link to one (whose target lnsym did not make)."""
    return path.is_dir() and not path.is_symlink()


def _lnsyms_layout(folder: Path) -> bool:
    """Whether ``folder`` holds lnsym's layout alone: environment folders (32 hex digits),
    each holding folders of two hex digits, each holding records (and temporary files)."""
    try:
        for environment in folder.iterdir():
            if not (_is_folder(environment) and _DIGEST.fullmatch(environment.name)):
                return False
            for shard in environment.iterdir():
                if not (_is_folder(shard) and _SHARD.fullmatch(shard.name)):
                    return False
                if any(_is_folder(entry) for entry in shard.iterdir()):
                    return False
    except OSError:
        return False
    return True


_SHARD = re.compile("[0-9a-f]{2}")


def _remove_tree(path: Path) -> None:
    for child in sorted(path.rglob("*"), reverse=True):
        try:
            child.rmdir() if _is_folder(child) else child.unlink()
        except OSError:
            pass
    try:
        path.rmdir()
    except OSError:
        pass
