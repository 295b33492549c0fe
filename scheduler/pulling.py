"""Which runs' Celery workers stay on a run and pull its pending subproblems from the
ledger: shared by the workers' messages (:mod:`scheduler.celery_messages`), the
scheduler's round (:mod:`scheduler.scheduler_round`) and ``submit``."""
from __future__ import annotations

from .run_options import Mode


def pulls_from_ledger(mode: Mode, verified: bool) -> bool:
    """Whether the Celery workers of a run stay on it, pulling its pending subproblems
    from the ledger (:func:`scheduler.celery_messages.execute_batch`): not for
    ``--first`` (the run is its root alone) nor a verified run (its subproblems stay as
    planned, the messages that carry them too: the same seed samples the same ones)."""
    return mode is not Mode.FIRST and not verified
