"""Atomic file output: a reader sees the old files or the new ones, never half of either.

:func:`atomic_write` replaces one file; :func:`staged_outputs` replaces a set of files (a
report and its figures, an exercise sheet and its answer key) all or nothing. Both write
only to regular files or new paths — never over a device, a FIFO or a directory — and
clean up their temporaries when the write fails or the process gets SIGINT, SIGTERM or
SIGHUP (SIGKILL cannot be caught: it may leave a hidden ``.lnsym-staging-*`` directory or
``.<name>.*.tmp`` file behind).
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

from lnsym.errors import UserInputError

#: The signals that end a write with an exception (so cleanup runs) instead of killing it.
_SIGNALS = tuple(
    number
    for number in (getattr(signal, name, None) for name in ("SIGINT", "SIGTERM", "SIGHUP"))
    if number is not None
)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def check_output_path(path: Path) -> None:
    """Refuse to write over anything but a regular file.

    Replacing ``/dev/full``, a named pipe or a socket by a regular file is never what the
    user meant. A missing path is fine (it will be created); symbolic links are followed.

    Raises:
        UserInputError: when ``path`` exists and is a directory or not a regular file.
    """
    try:
        mode = path.stat().st_mode
    except OSError:  # missing (or unreachable: the write itself will then say why)
        return
    if stat.S_ISDIR(mode):
        raise UserInputError(f"{path}: is a directory")
    if not stat.S_ISREG(mode):
        raise UserInputError(
            f"{path}: not a regular file (lnsym writes only to regular files or new paths)"
        )


def atomic_write(path: Path, data: str | bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same directory and a rename.

    Raises:
        UserInputError: when ``path`` exists and is not a regular file.
        OSError: when the file cannot be written (nothing is left behind).
    """
    check_output_path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with _interruptible():
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(raw)
                handle.flush()
                os.fsync(handle.fileno())
            # mkstemp creates 0600; give the file the mode a plain open() would.
            os.chmod(tmp, 0o666 & ~_umask())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise


class StagedOutputs:
    """The files of one :func:`staged_outputs` block, written to a staging directory first.

    Attributes:
        directory: where the files go on commit.
        written: the final paths of the files written so far, in commit order.
    """

    def __init__(self, staging: Path, directory: Path) -> None:
        self._staging = staging
        self.directory = directory
        self._files: list[PurePosixPath] = []

    @property
    def written(self) -> list[Path]:
        return [self.directory.joinpath(*rel.parts) for rel in self._files]

    def write(self, relative: str, data: str | bytes) -> Path:
        """Stage ``data`` (text is UTF-8) for ``directory/relative``; returns that final path.

        The file is written and flushed to disk now, but appears at its final path only
        when the block ends without an exception.

        Raises:
            ValueError: for an absolute path, one with ``..``, or a path written twice.
            UserInputError: when the final path exists and is not a regular file.
        """
        rel = PurePosixPath(relative)
        if rel.is_absolute() or not rel.parts or ".." in rel.parts:
            raise ValueError(f"not a relative path below the output directory: {relative!r}")
        if rel in self._files:
            raise ValueError(f"{relative!r} is written twice")
        self._check_target(rel)  # fail now rather than after writing everything
        staged = self._staging.joinpath(*rel.parts)
        staged.parent.mkdir(parents=True, exist_ok=True)
        raw = data.encode("utf-8") if isinstance(data, str) else data
        with open(staged, "xb") as handle:  # a plain open(): the mode follows the umask
            handle.write(raw)
            handle.flush()
            os.fsync(handle.fileno())
        self._files.append(rel)
        return self.directory.joinpath(*rel.parts)

    def _check_target(self, rel: PurePosixPath) -> None:
        parent = self.directory
        for part in rel.parts[:-1]:
            parent = parent / part
            if parent.exists() and not parent.is_dir():
                raise UserInputError(f"{parent}: not a directory")
        check_output_path(self.directory.joinpath(*rel.parts))

    def _commit(self) -> None:
        for rel in self._files:
            self._check_target(rel)
        with _deferred_signals():  # the renames run to their end
            for rel in self._files:
                target = self.directory.joinpath(*rel.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(self._staging.joinpath(*rel.parts), target)
            for parent in sorted({self.directory.joinpath(*rel.parts[:-1]) for rel in self._files}):
                _fsync_directory(parent)


@contextmanager
def staged_outputs(directory: Path) -> Iterator[StagedOutputs]:
    """Write a set of files into ``directory`` all or nothing.

    Each :meth:`StagedOutputs.write` goes to a hidden staging directory inside
    ``directory`` (same file system, so renames are atomic) and is flushed to disk. When
    the block ends normally, every target is checked and the files are renamed into place
    in the order they were written (SIGINT/SIGTERM held back meanwhile); when it ends with
    an exception — including SIGINT, SIGTERM or SIGHUP, which raise ``KeyboardInterrupt``
    or ``SystemExit(128 + signal)`` while the block runs — ``directory`` is left exactly as
    it was: the staging directory is removed, and so is ``directory`` if it was created
    for the block. The previous signal handlers are restored afterwards.

    Args:
        directory: the output directory (created if missing).

    Yields:
        The :class:`StagedOutputs` to write to.

    Raises:
        UserInputError: when a target exists and is not a regular file (or a parent of one
            is not a directory); nothing is renamed then.

    >>> out = Path(tempfile.mkdtemp()) / "sheet"
    >>> with staged_outputs(out) as stage:
    ...     paths = [stage.write("exercises.md", "# Q\\n"), stage.write("answers.md", "# A\\n")]
    ...     [p.name.startswith(".lnsym-staging-") for p in out.iterdir()]  # not yet in place
    [True]
    >>> sorted(p.name for p in out.iterdir())
    ['answers.md', 'exercises.md']
    >>> shutil.rmtree(out.parent)
    """
    with _interruptible():
        created = _make_directory(directory)
        committed = False
        try:
            staging = Path(tempfile.mkdtemp(prefix=".lnsym-staging-", dir=directory))
        except BaseException:
            _remove_empty(created)
            raise
        try:
            stage = StagedOutputs(staging, directory)
            yield stage
            stage._commit()
            committed = True
        finally:
            with _deferred_signals():  # cleanup is not itself cut short
                shutil.rmtree(staging, ignore_errors=True)
                if not committed:
                    _remove_empty(created)


def _make_directory(directory: Path) -> list[Path]:
    """Create ``directory`` and its missing parents; returns those created, outermost first."""
    missing = []
    current = directory
    while not current.is_dir() and current.parent != current:
        missing.append(current)
        current = current.parent
    created: list[Path] = []
    try:
        for path in reversed(missing):
            path.mkdir()
            created.append(path)
    except BaseException:
        _remove_empty(created)
        raise
    return created


def _remove_empty(created: list[Path]) -> None:
    for path in reversed(created):
        try:
            path.rmdir()
        except OSError:  # no longer empty: someone else wrote there meanwhile
            return


def _fsync_directory(path: Path) -> None:
    """Flush a directory's entries (the renames) to disk, where the platform allows it."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _interrupt(signum: int, frame: object) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise SystemExit(128 + signum)


@contextmanager
def _interruptible() -> Iterator[None]:
    """Make SIGINT, SIGTERM and SIGHUP raise in the body (so ``finally`` blocks run).

    Signals the process ignores stay ignored; outside the main thread (where Python cannot
    set handlers) nothing changes. The previous handlers are restored afterwards.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {}
    try:
        for number in _SIGNALS:
            handler = signal.getsignal(number)
            if handler is signal.SIG_IGN or handler is None:  # None: installed outside Python
                continue
            previous[number] = handler
            signal.signal(number, _interrupt)
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


@contextmanager
def _deferred_signals() -> Iterator[None]:
    """Hold back SIGINT, SIGTERM and SIGHUP during the body; they arrive right after it."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
