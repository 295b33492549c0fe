"""Waiting for a run's end (``submit --wait``, ``watch``)."""
from __future__ import annotations

import time
from typing import Any, Callable

from .db import Ledger
from .ledger import progress, run_status
from .states import RunStatus


def follow(
    ledger: Ledger,
    run_id: int,
    update: Callable[[Any], None] | None = None,
    *,
    interval: float = 1.0,
    each: Callable[[], None] | None = None,
    each_every: float = 5.0,
    each_first: bool = True,
    timeout: float | None = None,
) -> str:
    """Wait until a run is no longer running; returns its status.  Each round (every
    ``interval`` seconds) asks the ledger one thing: the run's status, or — when
    ``update`` shows it — its progress.  ``each`` (e.g. a scheduler tick) runs every
    ``each_every`` seconds, the first time at once (``each_first``) or after that long,
    so waiting costs next to no CPU."""
    started = time.monotonic()
    next_each = started if each_first else started + each_every
    while True:
        if each is not None and time.monotonic() >= next_each:
            each()
            next_each = time.monotonic() + each_every
        if update is not None:
            p = progress(ledger, run_id)
            update(p)
            status = p.status
        else:
            status = run_status(ledger, run_id)
        if status != RunStatus.RUNNING:
            return status
        if timeout is not None and time.monotonic() - started > timeout:
            return status
        time.sleep(interval)
