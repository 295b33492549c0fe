"""The tasks: solve a message's subproblems and write each result into the ledger;
verify one (``--verify`` runs: re-solve a subproblem another worker recorded, and
compare).

The ledger is ``TILECENSUS_DB_URL`` (``tilecensus worker --db`` sets it).  Delivering
the same message twice, or re-running it after a crash, records each result once
(:func:`scheduler.celery_messages.execute_batch`).
"""
from __future__ import annotations

from scheduler.celery_config import SOLVE_TASK_NAME, VERIFY_TASK_NAME
from scheduler.db import open_ledger
from scheduler.celery_executor import CeleryExecutor, process_executor
from scheduler.celery_messages import execute_batch
from scheduler.verification import execute_verification

from .app import app


def executor() -> CeleryExecutor:
    """This process's sender on the worker's broker."""
    return process_executor(app.conf.broker_url)


@app.task(name=SOLVE_TASK_NAME, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def solve_subproblems(run_id: int, sub_ids: list[int] | int) -> list[str]:
    """Solve the subproblems ``sub_ids`` of run ``run_id`` in order, each under the run's
    budget, handing back the rest after a message's time (one id: a message sent before
    subproblems travelled together)."""
    ids = [int(sub_ids)] if isinstance(sub_ids, int) else [int(i) for i in sub_ids]
    return execute_batch(open_ledger(), int(run_id), ids, executor())


@app.task(name=VERIFY_TASK_NAME, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def verify_subproblem(run_id: int, sub_id: int) -> str:
    """Re-solve subproblem ``sub_id`` of run ``run_id`` here, unless this process recorded
    it (then it goes back to the queue), and compare
    (:func:`scheduler.verification.execute_verification`)."""
    return execute_verification(open_ledger(), int(sub_id), executor())
