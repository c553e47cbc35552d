"""Drawing the report's figures in a process of their own while the catalog is checked.

A cold ``lnsym report`` spends seconds in matplotlib after the check, on one CPU. The
figures do not depend on the check (each is a pure function of its spec), so
:func:`figures_drawn_meanwhile` forks a process that draws them while the checks run, and
hands their bytes to :func:`~lnsym.report.figures.render_figures`. The bytes are those the
report process would draw (same code, same settings; the tests compare them). If that
process fails or is stopped, nothing is kept and the figures are drawn as before, where
any error is reported.
"""

from __future__ import annotations

import multiprocessing
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from multiprocessing.connection import Connection

from lnsym.report.figures import FigureSpec, keep_drawn, render_figures


@contextmanager
def figures_drawn_meanwhile(specs: Sequence[FigureSpec], formats: Sequence[str]) -> Iterator[None]:
    """Draw every figure of ``specs`` in each of ``formats`` (``"svg"``, ``"pdf"``) in a
    forked process while the body runs; afterwards the report process uses its bytes."""
    if not specs or not formats:
        yield
        return
    receiver, sender = multiprocessing.Pipe(duplex=False)
    process = multiprocessing.get_context("fork").Process(
        target=_draw, args=(sender, list(specs), tuple(formats)), daemon=True
    )
    process.start()
    sender.close()
    drawn = None
    try:
        yield
        try:
            drawn = receiver.recv()
        except EOFError:  # the process ended without an answer: they are drawn here
            pass
    finally:
        if process.is_alive():
            process.terminate()  # the body failed or was interrupted (or it is exiting)
        process.join()
        receiver.close()
    if drawn is not None:
        for spec, by_format in zip(specs, drawn, strict=True):
            for fmt, data in by_format.items():
                keep_drawn(spec, fmt, data)


def _draw(sender: Connection, specs: list[FigureSpec], formats: tuple[str, ...]) -> None:
    try:
        drawn = [render_figures(spec, formats) for spec in specs]
    except BaseException:  # noqa: BLE001 — the report process draws them and reports it
        drawn = None
    sender.send(drawn)
    sender.close()
