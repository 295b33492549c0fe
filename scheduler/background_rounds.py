"""The scheduler's round (:func:`scheduler.scheduler_round.tick`) for a command that
follows a Celery run (``submit --wait``, ``resume``), in a thread of its own, so that
the command's main thread only waits for the run's end (:mod:`scheduler.waiting`).

The round needs the ledger's code (SQLAlchemy) and Celery's application: 0.3-0.4 s of
CPU to load.  ``submit --wait`` loads neither to plan and send its run
(:mod:`scheduler.direct_writes`, :mod:`scheduler.redis_sender`), so this thread loads
them only when its first round is due — a run that ends sooner never loads them.  And
since it loads them here, not in the main thread, a run that ends while they load
(slowly: the command has stepped back for the workers, :mod:`scheduler.priority`)
does not wait for them: the command prints its end and leaves (:meth:`stop`).

Measured (2026-12-07, the pentacube box's default count on two Celery workers, the
2-core machine): loaded before planning, as ``submit --wait`` did until then, they
delayed the run's start by 0.15-0.2 s of a 1.7 s command.
"""
from __future__ import annotations

import os
import sys
import threading
from typing import Any, Callable

#: seconds between rounds
EVERY = 5.0
#: how long :meth:`BackgroundRounds.stop` waits for a round under way
STOP_WAIT = 0.05


class BackgroundRounds:
    """Rounds over run ``run_id`` every :data:`EVERY` seconds, the first after ``first``
    seconds, on what ``connect`` returns (it runs in the thread: the ledger and the
    executor, loaded there).  A round that meets an outage (``outages(executor)``) is
    reported through ``report`` and tried again at the next; anything else ends the
    rounds, and the main thread raises it (:meth:`raise_failure`)."""

    def __init__(self, run_id: int, connect: Callable[[], tuple[Any, Any]],
                 outages: Callable[[Any], tuple[type[BaseException], ...]], report: Callable[[str], None], *,
                 first: float = EVERY, every: float = EVERY):
        self.run_id, self.connect, self.outages, self.report = run_id, connect, outages, report
        self.first, self.every = first, every
        self._stopped = threading.Event()
        self._failure: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name=f"rounds-{run_id}", daemon=True)

    def __enter__(self) -> "BackgroundRounds":
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def _run(self) -> None:
        if self._stopped.wait(self.first):
            return
        try:
            ledger, executor = self.connect()
            waited_out = self.outages(executor)
            from .scheduler_round import tick

            while not self._stopped.is_set():
                try:
                    tick(ledger, executor, run_ids=[self.run_id])
                except waited_out as exc:  # the workers keep going; the next round catches up
                    self.report(f"tilecensus: {str(exc).splitlines()[0]}; retrying")
                if self._stopped.wait(self.every):
                    return
        except BaseException as exc:  # handed to the main thread, which raises it
            self._failure = exc

    def raise_failure(self) -> None:
        """Raise what ended the rounds, if anything did (in the main thread)."""
        if self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure

    def stop(self) -> bool:
        """No more rounds; whether the thread is gone (it may still be loading, or in a
        round: see :meth:`leave`)."""
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(STOP_WAIT)
        return not self._thread.is_alive()

    def leave(self, status: int) -> None:
        """End the process with ``status`` now if the thread is still busy (loading the
        ledger's code, or a round under way: what it leaves half done, a round picks up
        next time, as after Ctrl-C); else return, for the usual exit."""
        if self.stop():
            return
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
