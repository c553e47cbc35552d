"""Time budgets for checks: a slow computation becomes TIMEOUT, never a hang.

SymPy cannot be interrupted cooperatively, so the budget is an interval timer that raises
:class:`~lnsym.errors.BudgetExceeded` inside the running computation. Timers work only in
the main thread of a process; elsewhere (e.g. a worker thread) the budget is not enforced
and :func:`time_budget` says so through ``enforced``.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from lnsym.errors import BudgetExceeded

#: Budgets at least this long (about 11.5 days) are not enforced at all.
UNENFORCED = 1e6
#: After a budget has expired, the timer fires again this often until the body is left.
_REPEAT = 0.02


def _enforceable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def time_budget(seconds: float | None) -> Iterator[bool]:
    """Run the body with at most ``seconds`` of wall time (None: unlimited).

    Yields whether the budget is enforced. Nested budgets: the inner one wins while active
    and the outer timer is restored afterwards.

    Raises:
        BudgetExceeded: when the time runs out.
    """
    if seconds is None or seconds >= UNENFORCED or not _enforceable():
        # (setitimer overflows past ~1e9 s; a budget of weeks is no budget)
        yield False
        return

    def expire(signum: int, frame: object) -> None:
        # Fire again soon: the exception may land where it is swallowed (a garbage
        # collector callback, a broad ``except`` inside a library), and the budget must
        # still end the computation.
        signal.setitimer(signal.ITIMER_REAL, _REPEAT)
        raise BudgetExceeded(f"time budget of {seconds:g} s exceeded")

    previous_delay, _ = signal.getitimer(signal.ITIMER_REAL)
    if previous_delay and previous_delay <= seconds:
        # An enclosing budget ends first: it stays in charge.
        yield True
        return
    started = time.monotonic()
    previous_handler = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))
    try:
        yield True
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous_handler)
        if previous_delay:
            # Resume the enclosing budget with what is left of it (at least a tick, so an
            # exhausted outer budget still fires).
            left = previous_delay - (time.monotonic() - started)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))
