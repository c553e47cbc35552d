"""Saturating every CPU with busy processes, to show that results do not depend on load."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from lnsym.checking.runner import usable_cpus


@contextmanager
def every_cpu_busy() -> Iterator[int]:
    """Run one busy-looping process per usable CPU for the duration of the block.

    Each stops by itself after ten minutes, should the block's clean-up never run.
    """
    spin = "import time\nend = time.monotonic() + 600\nwhile time.monotonic() < end: pass\n"
    procs = [
        subprocess.Popen([sys.executable, "-c", spin], env={**os.environ, "PYTHONPATH": ""})
        for _ in range(usable_cpus())
    ]
    try:
        yield len(procs)
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait()
