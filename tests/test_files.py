"""Atomic writes."""

from __future__ import annotations

import os
import stat

import pytest

from lnsym.files import atomic_write


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
