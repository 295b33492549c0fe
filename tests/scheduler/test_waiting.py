"""Waiting for a run's end is told by an event (scheduler/waiting.py): PostgreSQL's
NOTIFY from the transaction that ends the run, or the broker's channel; the waiter
returns within 0.2 s of the end, where its look between events comes every 5 s."""
from __future__ import annotations

import threading
import time

import redis

from tc_helpers import make_run
from scheduler.celery_executor import CeleryExecutor
from scheduler.db import open_ledger
from scheduler.ledger import fail_run
from scheduler.waiting import PATIENCE, PostgresEnds, RedisEnds, follow, run_ends

#: the issue's bound on the wait past the run's end
TOLD_WITHIN = 0.2


def _ended_later(end, delay: float = 0.3) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), end()))
    thread.start()
    return thread


def _waited(ledger, run_id: int, ends) -> tuple[str, float]:
    with ends:
        started = time.monotonic()
        status = follow(ledger, run_id, each=None, ends=ends)
        return status, time.monotonic() - started


def test_a_postgresql_ledger_notifies_the_end(pg_url):
    ledger = open_ledger(pg_url)
    run_id = make_run(ledger, "dominoes-4x4", depth=1, executor="celery")
    ends = run_ends(ledger)
    assert isinstance(ends, PostgresEnds) and ends.patience == PATIENCE
    thread = _ended_later(lambda: fail_run(ledger, run_id, "stopped by the test"))
    status, waited = _waited(ledger, run_id, ends)
    thread.join()
    assert status == "failed" and waited < 0.3 + TOLD_WITHIN


def test_the_broker_tells_the_end_on_another_ledger(sqlite_url, broker_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x4", depth=1, executor="celery")
    executor = CeleryExecutor(broker_url)
    ends = run_ends(ledger, redis.Redis.from_url(broker_url))
    assert isinstance(ends, RedisEnds)

    def end() -> None:
        fail_run(ledger, run_id, "stopped by the test")
        executor.announce_end(run_id)

    thread = _ended_later(end)
    status, waited = _waited(ledger, run_id, ends)
    thread.join()
    assert status == "failed" and waited < 0.3 + TOLD_WITHIN
