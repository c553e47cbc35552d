"""Atomic writes: one file, or a set of files all or nothing."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from lnsym.errors import UserInputError
from lnsym.files import atomic_write, staged_outputs


def test_atomic_write_creates_and_replaces(tmp_path):
    target = tmp_path / "sub" / "out.txt"
    atomic_write(target, "first")
    atomic_write(target, b"second")
    assert target.read_bytes() == b"second"
    assert [p.name for p in target.parent.iterdir()] == ["out.txt"]


def test_mode_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write(tmp_path / "f", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "f").stat().st_mode) == 0o644


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def broken(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError):
        atomic_write(tmp_path / "f", "x")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------------------------------
# Only regular files are replaced


def test_atomic_write_refuses_what_is_not_a_regular_file(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(UserInputError, match="not a regular file"):
        atomic_write(fifo, "x")
    with pytest.raises(UserInputError, match="is a directory"):
        atomic_write(tmp_path, "x")
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


# ---------------------------------------------------------------------------------------
# A set of files, all or nothing


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every entry below ``root`` (hidden ones too): file contents, None for directories."""
    return {
        str(p.relative_to(root)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def test_staged_outputs_write_every_file_with_a_plain_mode(tmp_path):
    out = tmp_path / "new" / "out"
    old = os.umask(0o022)
    try:
        with staged_outputs(out) as stage:
            first = stage.write("figures/a.svg", "<svg/>")
            second = stage.write("doc.md", b"# doc\n")
            assert not first.exists() and not second.exists()  # nothing before the commit
    finally:
        os.umask(old)
    assert [first, second] == [out / "figures" / "a.svg", out / "doc.md"]
    assert stage.written == [first, second]
    assert snapshot(out) == {"doc.md": b"# doc\n", "figures": None, "figures/a.svg": b"<svg/>"}
    assert stat.S_IMODE(second.stat().st_mode) == 0o644


@pytest.mark.parametrize("interruption", [KeyboardInterrupt, OSError, SystemExit])
def test_an_interrupted_set_leaves_the_directory_as_it_was(tmp_path, interruption):
    out = tmp_path / "out"
    (out / "figures").mkdir(parents=True)
    (out / "doc.md").write_text("old md\n")
    (out / "doc.tex").write_text("old tex\n")
    before = snapshot(out)
    with pytest.raises(interruption), staged_outputs(out) as stage:
        stage.write("figures/a.svg", "<svg/>")
        stage.write("doc.md", "new md\n")
        raise interruption()  # e.g. Ctrl-C before doc.tex is written
    assert snapshot(out) == before


def test_an_interrupted_set_does_not_create_its_directory(tmp_path):
    with pytest.raises(KeyboardInterrupt), staged_outputs(tmp_path / "a" / "b") as stage:
        stage.write("doc.md", "new\n")
        raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_a_target_that_is_not_a_regular_file_stops_the_whole_set(tmp_path):
    (tmp_path / "doc.md").write_text("old\n")
    os.mkfifo(tmp_path / "doc.tex")
    before = snapshot(tmp_path)
    with pytest.raises(UserInputError, match="doc.tex: not a regular file"):
        with staged_outputs(tmp_path) as stage:
            stage.write("doc.md", "new\n")
            stage.write("doc.tex", "new\n")
    assert snapshot(tmp_path) == before
    (tmp_path / "figures").write_text("a file where a directory should be\n")
    before = snapshot(tmp_path)
    with pytest.raises(UserInputError, match="figures: not a directory"):
        with staged_outputs(tmp_path) as stage:
            stage.write("doc.md", "new\n")
            stage.write("figures/a.svg", "<svg/>")
    assert snapshot(tmp_path) == before


def test_paths_outside_the_directory_are_refused(tmp_path):
    with staged_outputs(tmp_path) as stage:
        for bad in ("../escape", "/etc/passwd", "", "."):
            with pytest.raises(ValueError, match="relative path"):
                stage.write(bad, "x")
        stage.write("a", "x")
        with pytest.raises(ValueError, match="twice"):
            stage.write("a", "y")
    assert snapshot(tmp_path) == {"a": b"x"}


def test_signal_handlers_are_restored(tmp_path):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    with staged_outputs(tmp_path) as stage:
        assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, before[1])
        stage.write("a", "x")
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


TERMINATED = """
import os, signal, sys
from pathlib import Path
from lnsym.files import staged_outputs

with staged_outputs(Path(sys.argv[1])) as stage:
    stage.write("doc.md", "new md\\n")
    os.kill(os.getpid(), signal.SIGTERM)  # as if the user's shell or CI killed the run
    stage.write("doc.tex", "new tex\\n")
"""


def test_sigterm_while_staging_cleans_up_and_exits(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "doc.md").write_text("old md\n")
    before = snapshot(out)
    done = subprocess.run(
        [sys.executable, "-c", TERMINATED, str(out)], capture_output=True, text=True
    )
    assert done.returncode == 128 + signal.SIGTERM, done.stderr
    assert snapshot(out) == before
