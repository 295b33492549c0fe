"""Driving runs to completion.

* :func:`run_local` — the embedded executor: a local process pool solves, this process
  leases and records (so SQLite has a single writer).
* :class:`CeleryExecutor` — sends subproblem ids to a Celery queue; workers lease, solve
  and record themselves (:func:`execute_one`) and send their donated frontier on.
* :func:`tick` — one round of the scheduler: re-queue expired leases and messages lost by
  the broker, close finished runs.  Safe to run anywhere, any number of times.
"""
from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Sequence

from core.errors import PathError

from . import db as _db
from .celery_config import TASK_NAME, broker_url, make_app
from .ledger import (
    close_run,
    exchange,
    expire_leases,
    fail_run,
    get_run,
    has_open,
    lease_one,
    lease_seconds,
    mark_queued,
    progress,
    record_results,
    release_leases,
    run_spec,
    stale_pending,
)
from .db import Ledger, safe_url
from .models import RUNNING, Run
from .work import Outcome, Task, cached_solver, is_cached, solve_task, worker_name

ProgressHook = Callable[[], None]


class BrokerError(Exception):
    """The broker does not answer: one line for the user."""


# ----------------------------------------------------------------------------- local pool
_POOL: dict[str, Any] = {}


def _pool_init(run_id: int, spec: dict, options: dict) -> None:
    for ledger in _db._LEDGERS.values():  # inherited over fork: never touch the parent's connections
        ledger.engine.dispose(close=False)
    _POOL.update(run_id=run_id, spec=spec, options=options)


def _pool_solve(task: Task, mode: str) -> Outcome:
    solver = cached_solver(("local", task.run_id), _POOL["spec"], _POOL["options"])
    return solve_task(solver, task, mode, _POOL["options"])


def run_local(ledger: Ledger, run_id: int, workers: int, on_progress: ProgressHook | None = None) -> bool:
    """Solve a run's open subproblems on ``workers`` processes until none is left; close
    the run.  Returns False when the run was cancelled meanwhile."""
    run = get_run(ledger, run_id)
    release_leases(ledger, run_id)  # this process takes the run over
    lease = lease_seconds(run.options)
    owner = f"local:{worker_name()}"
    ctx = multiprocessing.get_context("fork")
    pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_pool_init, initargs=(run_id, run.spec, run.options))
    in_flight: dict[Future, Task] = {}
    outcomes: list[Outcome] = []
    checked = time.monotonic()
    try:
        while True:
            if time.monotonic() - checked > 1.0:
                checked = time.monotonic()
                if get_run(ledger, run_id).status != RUNNING:
                    pool.shutdown(wait=False, cancel_futures=True)
                    return False
            _, tasks = exchange(ledger, outcomes, run_id, owner, 2 * workers - len(in_flight), lease)
            for task in tasks:
                in_flight[pool.submit(_pool_solve, task, run.mode)] = task
            if not in_flight:
                break
            done, _ = wait(in_flight, timeout=0.25, return_when=FIRST_COMPLETED)
            outcomes = []
            for fut in done:
                task = in_flight.pop(fut)
                try:
                    outcomes.append(fut.result())
                except (PathError, ValueError) as exc:
                    fail_run(ledger, run_id, f"subproblem {task.sub_id}: {exc}")
                    raise
            if on_progress is not None:
                on_progress()
    except BaseException:
        for fut in in_flight:
            fut.cancel()
        release_leases(ledger, run_id)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    close_run(ledger, run_id)
    if on_progress is not None:
        on_progress()
    return True


# ----------------------------------------------------------------------------- Celery
class CeleryExecutor:
    """Sends subproblems to a Celery queue (Redis) by task name; no import of ``worker``."""

    def __init__(self, url: str | None = None):
        self.url = broker_url(url)
        self.app = make_app(self.url, name="tilecensus-sender")

    def check(self) -> None:
        """Raise :class:`BrokerError` when the broker does not answer."""
        try:
            with self.app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, interval_start=0.2, interval_step=0.2, timeout=3)
        except Exception as exc:  # kombu raises a variety of OSError / OperationalError types
            raise BrokerError(f"cannot reach the broker {safe_url(self.url)}: {str(exc).splitlines()[0]}") from exc

    def dispatch(self, run_id: int, sub_ids: Sequence[int], queue: str, ledger: Ledger | None = None) -> None:
        """Stamp the subproblems as queued, then send one message each."""
        if not sub_ids:
            return
        if ledger is not None:
            mark_queued(ledger, sub_ids)
        with self.app.producer_or_acquire() as producer:
            for sub_id in sub_ids:
                self.app.send_task(TASK_NAME, args=[run_id, sub_id], queue=queue, producer=producer)

    def queue_size(self, queue: str) -> int:
        with self.app.connection_for_write() as conn:
            return int(conn.default_channel.queue_declare(queue=queue, passive=False).message_count)


def execute_one(ledger: Ledger, sub_id: int, executor: CeleryExecutor | None) -> str:
    """A worker's whole task: lease, solve, record (exactly once), send the donated
    frontier on, close the run when it was the last.  Returns what happened."""
    leased = lease_one(ledger, sub_id, f"celery:{worker_name()}")
    if leased is None:
        return "skipped"
    task, run = leased
    key = (ledger.url, run.id, run.spec_hash)
    solver = cached_solver(key, None if is_cached(key) else run_spec(ledger, run.id), run.options)
    try:
        outcome = solve_task(solver, task, run.mode, run.options)
    except (PathError, ValueError) as exc:
        fail_run(ledger, run.id, f"subproblem {sub_id}: {exc}")
        raise
    (children,) = record_results(ledger, [outcome], queued=True)
    if children is None:
        return "duplicate"
    if children:
        if executor is not None:
            executor.dispatch(run.id, children, run.options.get("queue", "tilecensus"))
    elif not has_open(ledger, run.id):
        close_run(ledger, run.id)
    return "recorded"


def running_runs(ledger: Ledger, executor: str = "celery", run_ids: Sequence[int] | None = None) -> list[Run]:
    from sqlalchemy import select

    with ledger.session() as session:
        q = select(Run).where(Run.status == RUNNING, Run.executor == executor)
        if run_ids is not None:
            q = q.where(Run.id.in_(list(run_ids)))
        runs = list(session.scalars(q))
        for r in runs:
            session.expunge(r)
        return runs


def tick(ledger: Ledger, executor: CeleryExecutor, *, grace: float = 10.0, run_ids: Sequence[int] | None = None) -> dict:
    """One scheduler round over the running Celery runs; returns what it did."""
    did = {"requeued": 0, "resent": 0, "closed": 0}
    sizes: dict[str, int] = {}
    for run in running_runs(ledger, "celery", run_ids):
        queue = run.options.get("queue", "tilecensus")
        expired = expire_leases(ledger, run.id)
        executor.dispatch(run.id, expired, queue, ledger)
        did["requeued"] += len(expired)
        if queue not in sizes:
            sizes[queue] = executor.queue_size(queue)
        if sizes[queue] == 0:
            lost = stale_pending(ledger, run.id, grace)
            executor.dispatch(run.id, lost, queue, ledger)
            did["resent"] += len(lost)
        if close_run(ledger, run.id):
            did["closed"] += 1
    return did


def follow(
    ledger: Ledger,
    run_id: int,
    update: Callable[[Any], None],
    *,
    interval: float = 0.5,
    each: Callable[[], None] | None = None,
    timeout: float | None = None,
):
    """Poll a run's progress until it is no longer running (``each`` runs every round,
    e.g. a scheduler tick); returns the last progress."""
    started = time.monotonic()
    while True:
        if each is not None:
            each()
        p = progress(ledger, run_id)
        update(p)
        if p.status != RUNNING:
            return p
        if timeout is not None and time.monotonic() - started > timeout:
            return p
        time.sleep(interval)
