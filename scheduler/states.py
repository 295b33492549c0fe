"""Where a run and a subproblem stand: the values of their ``status`` / ``state``
columns.  They are ``str`` enums, so they compare equal to the text in the ledger."""
from __future__ import annotations

from enum import StrEnum


class RunStatus(StrEnum):
    """A run: running until its subproblems are done (or it is cancelled, or fails).
    ``interrupted``: a local run stopped by a signal, or whose process died (shown so once
    its leases expired); ``tilecensus resume`` finishes it."""

    RUNNING = "running"
    DONE = "done"
    CANCELLED = "cancelled"
    FAILED = "failed"
    INTERRUPTED = "interrupted"


class SubproblemState(StrEnum):
    """A subproblem (and a verification): pending, leased by a worker, done, cancelled."""

    PENDING = "pending"
    LEASED = "leased"
    DONE = "done"
    CANCELLED = "cancelled"


#: the states of work not finished yet
OPEN = (SubproblemState.PENDING, SubproblemState.LEASED)
