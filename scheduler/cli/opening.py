"""The ledger opened beside the planning of a local run.

Opening the ledger — importing SQLAlchemy and the models, connecting, checking the
schema — is most of what a short ``solve`` costs beyond its count (about 0.2 s of the
0.5 s of ``solve pentomino-6x10``), and planning is mostly a C search that releases the
GIL.  So ``solve`` opens the ledger in a thread while the main thread plans, and the two
overlap.

The ledger must still answer before work is lost: when opening fails, the thread sends
the main thread ``SIGUSR1``, whose handler raises :class:`LedgerUnavailable` there — a
C search hears it within a second (``core/_interrupt.h``), Python code at once — and
:meth:`LedgerOpening.ledger` raises the ledger's own error.  A failure of the ledger
wins over one of the planning, as it did when the ledger was opened first.  Outside the
main thread (no signals there) the ledger is opened first, in the caller's thread.
"""
from __future__ import annotations

import signal
import threading
from typing import Any, Callable


class LedgerUnavailable(BaseException):
    """Raised in the main thread when the ledger failed to open while it planned (a
    BaseException, like KeyboardInterrupt: nothing on the way may take it for the
    planning's own error)."""


class LedgerOpening:
    """``open_ledger`` run in a thread from ``__enter__``; :meth:`ledger` waits for it.

    On leaving, the thread is waited for (a migration is never cut short), except when a
    signal stopped the command: then the process is on its way out and the thread, a
    daemon, goes with it."""

    def __init__(self, open_ledger: Callable[[], Any]):
        self._open = open_ledger
        self._ledger: Any = None
        self._error: BaseException | None = None
        self._thread: threading.Thread | None = None
        self._armed = False
        self._previous: Any = None

    def __enter__(self) -> "LedgerOpening":
        if threading.current_thread() is not threading.main_thread():
            self._run_here()
            return self
        self._previous = signal.signal(signal.SIGUSR1, self._heard)
        self._armed = True
        self._thread = threading.Thread(target=self._run, name="ledger-opening", daemon=True)
        self._thread.start()
        return self

    def _run_here(self) -> None:
        try:
            self._ledger = self._open()
        except Exception as exc:  # kept for ledger(), which raises it
            self._error = exc

    def _run(self) -> None:
        self._run_here()
        if self._error is not None:
            signal.pthread_kill(threading.main_thread().ident, signal.SIGUSR1)

    def _heard(self, signum: int, frame: Any) -> None:
        if self._armed:
            self._armed = False
            raise LedgerUnavailable()

    def ledger(self) -> Any:
        """The opened ledger, once the thread is done; else the error that stopped it."""
        try:
            if self._thread is not None:
                self._thread.join()
        except LedgerUnavailable:  # the failure's signal, heard while waiting: raised below
            pass
        self._armed = False  # a signal still on its way changes nothing now
        if self._error is not None:
            raise self._error
        return self._ledger

    def __exit__(self, kind: Any, exc: BaseException | None, tb: Any) -> bool:
        stopped_by_signal = isinstance(exc, KeyboardInterrupt)
        try:
            if self._thread is not None and not stopped_by_signal:
                self._thread.join()
        except LedgerUnavailable:  # the failure's signal, heard while waiting: raised below
            pass
        self._armed = False
        if self._previous is not None:
            signal.signal(signal.SIGUSR1, self._previous)
        if self._error is not None and exc is not None and not stopped_by_signal:
            raise self._error  # the ledger's failure wins over the planning's (and LedgerUnavailable)
        return False
