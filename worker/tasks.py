"""The tasks: solve a subproblem and write its result into the ledger; verify one
(``--verify`` runs: re-solve a subproblem another worker recorded, and compare).

The ledger is ``TILECENSUS_DB_URL`` (``tilecensus worker --db`` sets it).  Delivering
the same message twice, or re-running it after a crash, records the result once
(:func:`scheduler.runner.execute_one`).
"""
from __future__ import annotations

from scheduler.celery_config import SOLVE_TASK_NAME, VERIFY_TASK_NAME
from scheduler.db import open_ledger
from scheduler.runner import CeleryExecutor, execute_one
from scheduler.verification import execute_verification

from .app import app

_EXECUTOR: dict[str, CeleryExecutor] = {}


def _executor() -> CeleryExecutor:
    url = app.conf.broker_url
    if url not in _EXECUTOR:
        _EXECUTOR[url] = CeleryExecutor(url)
    return _EXECUTOR[url]


@app.task(name=SOLVE_TASK_NAME, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def solve_subproblem(run_id: int, sub_id: int) -> str:
    """Solve subproblem ``sub_id`` of run ``run_id`` under the run's budget."""
    return execute_one(open_ledger(), int(sub_id), _executor())


@app.task(name=VERIFY_TASK_NAME, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def verify_subproblem(run_id: int, sub_id: int) -> str:
    """Re-solve subproblem ``sub_id`` of run ``run_id`` here, unless this process recorded
    it (then it goes back to the queue), and compare
    (:func:`scheduler.verification.execute_verification`)."""
    return execute_verification(open_ledger(), int(sub_id), _executor())
