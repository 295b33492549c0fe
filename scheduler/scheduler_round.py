"""The scheduler's round over running Celery runs (:func:`tick`): re-queue expired leases
and messages the broker lost, verify what no other worker would take, close finished
runs.  Safe to run anywhere, any number of times.
"""
from __future__ import annotations

from typing import Sequence

from .batches import CLUSTER_WORKERS, message_target
from .celery_executor import CeleryExecutor
from .db import Ledger
from .ledger import close_run, expire_leases, measured_rate, searched_by_others, stale_pending, weights_of
from .ledger import verifications as V
from .models import Run
from .pulling import pulls_from_ledger
from .run_options import ExecutorKind, Mode, RunOptions
from .states import RunStatus
from .verification import verify_here
from .work import worker_name


def running_runs(ledger: Ledger, executor: ExecutorKind = ExecutorKind.CELERY, run_ids: Sequence[int] | None = None) -> list[Run]:
    from sqlalchemy import select

    with ledger.session() as session:
        q = select(Run).where(Run.status == RunStatus.RUNNING, Run.executor == executor)
        if run_ids is not None:
            q = q.where(Run.id.in_(list(run_ids)))
        runs = list(session.scalars(q))
        for r in runs:
            session.expunge(r)
        return runs


def tick(ledger: Ledger, executor: CeleryExecutor, *, grace: float = 10.0, run_ids: Sequence[int] | None = None) -> dict:
    """One scheduler round over the running Celery runs; returns what it did."""
    did = {"requeued": 0, "resent": 0, "verified": 0, "closed": 0}
    sizes: dict[str, int] = {}

    def idle(queue: str) -> bool:  # the broker is asked once a round, and only when it matters
        if queue not in sizes:
            sizes[queue] = executor.queue_size(queue)
        return sizes[queue] == 0

    for run in running_runs(ledger, ExecutorKind.CELERY, run_ids):
        options = RunOptions.from_json(run.options)
        queue = options.queue_name
        expired = expire_leases(ledger, run.id)
        _send_again(ledger, executor, run, expired, options)
        did["requeued"] += len(expired)
        lost = stale_pending(ledger, run.id, grace)
        if lost and idle(queue) and not _worked_on(ledger, run):
            _send_again(ledger, executor, run, lost, options)
            did["resent"] += len(lost)
        if run.verify_fraction:
            _tick_verifications(ledger, executor, run, queue, grace, idle(queue), did)
        if close_run(ledger, run.id):
            executor.announce_end(run.id)
            did["closed"] += 1
    return did


def _worked_on(ledger: Ledger, run: Run) -> bool:
    """Whether a worker is on a run that pulls (:func:`pulls_from_ledger`): one that holds
    a live lease pulls the run's pending subproblems itself, however long they have
    waited in the ledger, so they are not sent again."""
    if not pulls_from_ledger(Mode(run.mode), bool(run.verify_fraction)):
        return False
    with ledger.engine.connect() as conn:
        return searched_by_others(conn, run.id, None)


def _send_again(ledger: Ledger, executor: CeleryExecutor, run: Run, sub_ids: Sequence[int],
                options: RunOptions) -> None:
    """Send subproblems again (expired leases, lost messages, a resumed run), packed at
    the rate the run has shown so far — for a run that pulls, a message for each worker
    it was planned for: they pull the rest."""
    if not sub_ids:
        return
    with ledger.engine.connect() as conn:
        weights = weights_of(conn, sub_ids)
    pulls = pulls_from_ledger(Mode(run.mode), bool(run.verify_fraction))
    executor.dispatch(run.id, sub_ids, options.queue_name, ledger, weights=weights,
                      rate=measured_rate(ledger, run.id), target=message_target(options.task_seconds),
                      share=options.workers, at_most=(options.workers or CLUSTER_WORKERS) if pulls else None)


def _tick_verifications(ledger: Ledger, executor: CeleryExecutor, run: Run, queue: str, grace: float, idle: bool,
                 did: dict) -> None:
    """The verifications' share of a scheduler round: re-queue expired leases and lost
    messages, and solve here the ones that kept reaching the worker that recorded them."""
    with ledger.engine.begin() as conn:
        expired = V.expire_verifications(conn, run.id)
        lost = V.stale_verifications(conn, run.id, grace) if idle else []
        orphans = V.orphan_verifications(conn, run.id)
    executor.dispatch_verifications(run.id, sorted(set(expired) | set(lost)), queue, ledger)
    did["requeued"] += len(expired)
    did["resent"] += len(set(lost) - set(expired))
    owner = f"scheduler:{worker_name()}"
    did["verified"] += sum(verify_here(ledger, sub_id, owner) in ("verified", "mismatch") for sub_id in orphans)
