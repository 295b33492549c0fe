"""A faulty worker for the verified-run tests, loaded through ``TILECENSUS_PLUGINS`` by
one worker only: every result it records counts one solution too many, as a machine
with bad memory might.  It notes its process names in ``$TILECENSUS_FAULTY_LOG``, when
that is set.
Verifications do not go through ``solve_task``, so its re-solves stay honest."""
from __future__ import annotations

import os

from scheduler import celery_messages

_solve_task = celery_messages.solve_task


def _faulty_solve_task(solver, task, mode, options):
    outcome = _solve_task(solver, task, mode, options)
    outcome.count += 1
    if os.environ.get("TILECENSUS_FAULTY_LOG"):
        with open(os.environ["TILECENSUS_FAULTY_LOG"], "a") as log:
            log.write(f"{outcome.worker}\n")
    return outcome


celery_messages.solve_task = _faulty_solve_task
