"""Restarting a worker that Celery stopped on an error, not on request.

Celery ends a worker for good on an error it cannot recover from ("Unrecoverable
error", exit status 1). One such error is a broker blip: celery 5.7.0 closes a Redis
connection that dropped while the consumer was polling, with a task unacknowledged,
twice, and the second close raises AttributeError inside kombu (seen in 2 of 10 Redis
restarts here). A container's restart policy would bring the worker back; `tilecensus
worker` does it itself, so a worker started by hand survives as well.

The worker restarts *in place*: it re-executes its own command line (same process id,
same process group, a fresh interpreter — Celery's state is not reusable after a stop),
after a pause that doubles with each failure in quick succession. Only a worker that
had become ready restarts: one that fails while starting (a bad option, a queue it
cannot use) exits with Celery's status, so a mistake is reported, not looped on.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass

ENV_RESTARTS = "TILECENSUS_WORKER_RESTARTS"


@dataclass(frozen=True)
class RestartPolicy:
    """When and how soon a stopped worker starts again."""

    first_pause: float = 1.0
    max_pause: float = 30.0
    healthy_after: float = 60.0  # a worker that ran this long starts the doubling over

    def should_restart(self, exit_code: int | None, ready: bool, asked_to_stop: bool) -> bool:
        """A worker that was serving and stopped with a failure nobody asked for."""
        return bool(exit_code) and ready and not asked_to_stop

    def failures(self, previous: int, ran_for: float) -> int:
        """Failures in quick succession, this one included."""
        return 1 if ran_for >= self.healthy_after else previous + 1

    def pause(self, failures: int) -> float:
        """Seconds to wait before the next start: 1, 2, 4, ... up to ``max_pause``."""
        return min(self.max_pause, self.first_pause * 2 ** max(0, failures - 1))


def previous_failures() -> int:
    """Failures in quick succession before this start (0 on a first start)."""
    try:
        return max(0, int(os.environ.get(ENV_RESTARTS, "0")))
    except ValueError:
        return 0


def restart_in_place(failures: int, pause: float) -> None:
    """Wait ``pause`` seconds, then replace this process by a fresh run of its own
    command line; never returns."""
    sys.stdout.flush()
    sys.stderr.flush()
    time.sleep(pause)
    os.environ[ENV_RESTARTS] = str(failures)
    os.execv(sys.executable, [sys.executable, *sys.orig_argv[1:]])
