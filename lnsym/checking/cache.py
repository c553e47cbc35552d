"""Results kept between runs: a claim's result, reused while nothing that decides it changes.

A result is stored under a SHA-256 of everything its verdict depends on: the claim itself
(every field, structurally — IR nodes, SymPy objects with their assumptions, premises and
lemmas), the checking options that choose the evidence (engines, max_d, samples, seed), the
source of the installed ``lnsym`` package, and the versions of Python, SymPy (with its ground
types), mpmath, NumPy and python-flint. Change any of them and the result is checked afresh.
Only results the engines reached within their deterministic limits are kept: one cut by the
wall-clock safety net is not.

Claims that hold objects lnsym cannot key by content (a function or class from a user's
module, say a lemma schema of their own) are never cached. The command line uses the cache
unless ``--no-cache`` is given or ``$LNSYM_CACHE`` is ``off`` (directory: ``$LNSYM_CACHE_DIR``,
else ``$XDG_CACHE_HOME/lnsym``, else ``~/.cache/lnsym``); the Python API only when asked
(``Options(cache_dir=...)``). Entries are Python pickles, so the directory must be writable
by you alone, like any cache of Python objects.
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import hashlib
import os
import pickle
import platform
import re
import sys
import tempfile
import types
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

import sympy

from lnsym.engines.base import Outcome

if TYPE_CHECKING:
    from lnsym.checking.claims import Claim, Result

#: Bump when the stored format or the meaning of a key changes.
FORMAT = 1
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
        self._options = settings
        #: id of a claim → (the claim, its entry's path): a miss is a get, then a put, and
        #: the key walks the whole claim. The claim stays alive, so its id stays its own.
        self._paths: dict[int, tuple[Claim, Path | None]] = {}

    def get(self, claim: Claim) -> Result | None:
        """The stored result of ``claim`` (with this very claim object), or None."""
        path = self._path(claim)
        if path is None or not path.is_file():
            return None
        try:
            result = pickle.loads(path.read_bytes())
        except Exception:  # noqa: BLE001 — a damaged entry is only a miss
            return None
        return dataclasses.replace(result, claim=claim)

    def put(self, claim: Claim, result: Result) -> None:
        """Keep ``result`` unless it depends on the clock; a failed write is only a miss."""
        if any(e.outcome == Outcome.TIMEOUT for e in result.evidence):
            return
        if any(e.detail.startswith("internal ") for e in result.evidence):
            return  # an engine crashed (perhaps out of memory): not a fact about the claim
        path = self._path(claim)
        if path is None:
            return
        try:
            data = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 — evidence that cannot be stored is not kept
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            if self.root not in _TIDIED:
                _forget_other_environments(self.root)
                _TIDIED.add(self.root)
            # Written beside its place and renamed: a reader never sees half an entry.
            with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as tmp:
                tmp.write(data)
            os.replace(tmp.name, path)
        except OSError:
            with contextlib.suppress(OSError, NameError):
                os.unlink(tmp.name)

    def _path(self, claim: Claim) -> Path | None:
        found = self._paths.get(id(claim))
        if found is None:
            key = content_key((self._options, claim))
            path = None if key is None else self.root / key[:2] / f"{key}.pickle"
            found = self._paths[id(claim)] = (claim, path)
        return found[1]


def content_key(obj: Any) -> str | None:
    """A SHA-256 of ``obj``'s structure, or None when it holds something not keyable."""
    out: list[str] = []
    try:
        _encode(obj, out, {})
    except _NotKeyable:
        return None
    return hashlib.sha256("\x00".join(out).encode("utf-8")).hexdigest()


class _NotKeyable(Exception):
    pass


def _encode(obj: Any, out: list[str], seen: dict[int, int]) -> None:
    """Append a description of ``obj`` that differs for any two objects that differ.

    A part met twice (the same object) is written as a back-reference, so a claim built
    with much sharing costs its number of distinct parts, not the size of its tree.
    """
    if obj is None or isinstance(obj, bool | int | float | str | Fraction):
        out.append(f"{type(obj).__name__}:{obj!r}")
        return
    if id(obj) in seen:
        out.append(f"ref:{seen[id(obj)]}")
        return
    seen[id(obj)] = len(seen)  # every part is alive (reachable from the key's root)
    if isinstance(obj, sympy.Basic):
        out.append("sympy:" + sympy.srepr(obj))
    elif isinstance(obj, enum.Enum):
        out.append(f"enum:{_lnsym_name(type(obj))}.{obj.name}")
    elif isinstance(obj, tuple | list):
        out.append(f"{type(obj).__name__}:{len(obj)}")
        for item in obj:
            _encode(item, out, seen)
    elif isinstance(obj, frozenset | set):
        parts = []
        for item in obj:
            inner: list[str] = []
            _encode(item, inner, {})
            parts.append("\x01".join(inner))
        out.append(f"set:{len(parts)}")
        out.extend(sorted(parts))
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        out.append(f"dataclass:{_lnsym_name(type(obj))}")
        for field in dataclasses.fields(obj):
            out.append(field.name)
            _encode(getattr(obj, field.name), out, seen)
    elif isinstance(obj, type) or (isinstance(obj, types.FunctionType) and obj.__closure__ is None):
        # Named code of lnsym, keyed by the package's source; a closure or a bound method
        # would carry state its name does not show.
        out.append(f"code:{_lnsym_name(obj)}")
    else:
        raise _NotKeyable(type(obj).__name__)


def _lnsym_name(obj: Any) -> str:
    """The qualified name of a class or function of lnsym itself (whose code is keyed by the
    package's source); anything from elsewhere is not keyable."""
    module = getattr(obj, "__module__", "") or ""
    if module != "lnsym" and not module.startswith("lnsym."):
        raise _NotKeyable(f"{module}.{getattr(obj, '__qualname__', '?')}")
    return f"{module}.{obj.__qualname__}"


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


def _forget_other_environments(current: Path) -> None:
    """Remove the results of other lnsym versions: they can never be read again."""
    for other in current.parent.iterdir():  # results-<FORMAT>/: only lnsym writes there
        if other != current and other.is_dir() and _DIGEST.fullmatch(other.name):
            _remove_tree(other)


def _remove_tree(path: Path) -> None:
    for child in sorted(path.rglob("*"), reverse=True):
        try:
            child.rmdir() if child.is_dir() else child.unlink()
        except OSError:
            pass
    try:
        path.rmdir()
    except OSError:
        pass
