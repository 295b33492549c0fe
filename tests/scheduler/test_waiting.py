"""Waiting for a run's end is told by an event (scheduler/waiting.py): PostgreSQL's
NOTIFY from the transaction that ends the run, or the broker's channel; the waiter
returns within 0.2 s of the end, where its look between events comes every 5 s."""
from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
import redis

from tc_helpers import make_run
from scheduler.celery_executor import CeleryExecutor
from scheduler.db import open_ledger
from scheduler.ledger import fail_run
from scheduler.read_direct import open_direct
from scheduler.waiting import PATIENCE, LedgerLook, PostgresEnds, RedisEnds, follow, run_ends

#: the issue's bound on the wait past the run's end
TOLD_WITHIN = 0.2


def _ended_later(end, delay: float = 0.3) -> threading.Thread:
    thread = threading.Thread(target=lambda: (time.sleep(delay), end()))
    thread.start()
    return thread


def _waited(look, run_id: int, ends) -> tuple[str, float]:
    with ends:
        started = time.monotonic()
        status = follow(look, run_id, each=None, ends=ends)
        return status, time.monotonic() - started


def _look(ledger, url: str, how: str):
    """The run read by the ledger's own code, or by the database's driver alone (as
    ``submit --wait`` follows its run)."""
    if how == "ledger":
        return LedgerLook(ledger)
    look = open_direct(url)
    assert look is not None
    return look


LOOKS = pytest.mark.parametrize("how", ["ledger", "direct"])


@LOOKS
def test_a_postgresql_ledger_notifies_the_end(pg_url, how):
    ledger = open_ledger(pg_url)
    run_id = make_run(ledger, "dominoes-4x4", depth=1, executor="celery")
    look = _look(ledger, pg_url, how)
    ends = run_ends(look)
    assert isinstance(ends, PostgresEnds) and ends.patience == PATIENCE
    thread = _ended_later(lambda: fail_run(ledger, run_id, "stopped by the test"))
    status, waited = _waited(look, run_id, ends)
    thread.join()
    assert status == "failed" and waited < 0.3 + TOLD_WITHIN
    assert look.summary(run_id)["status"] == "failed" and look.executor_of(run_id) == "celery"


@LOOKS
def test_the_broker_tells_the_end_on_another_ledger(sqlite_url, broker_url, how):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x4", depth=1, executor="celery")
    executor = CeleryExecutor(broker_url)
    look = _look(ledger, sqlite_url, how)
    ends = run_ends(look, redis.Redis.from_url(broker_url))
    assert isinstance(ends, RedisEnds)

    def end() -> None:
        fail_run(ledger, run_id, "stopped by the test")
        executor.announce_end(run_id)

    thread = _ended_later(end)
    status, waited = _waited(look, run_id, ends)
    thread.join()
    assert status == "failed" and waited < 0.3 + TOLD_WITHIN


def test_both_looks_read_a_run_alike(pg_url):
    """The driver's look answers as the ledger's own code: status, progress, summary."""
    ledger = open_ledger(pg_url)
    run_id = make_run(ledger, "dominoes-4x4", depth=1, executor="celery")
    direct = _look(ledger, pg_url, "direct")
    for look in (LedgerLook(ledger), direct):
        assert look.status(run_id) == "running"
    # (the seconds since the run began differ by the time between the two looks)
    assert replace(LedgerLook(ledger).progress(run_id), elapsed=0) == replace(direct.progress(run_id), elapsed=0)
    fail_run(ledger, run_id, "stopped by the test")
    assert LedgerLook(ledger).summary(run_id) == direct.summary(run_id)
    with pytest.raises(Exception, match=f"no run {run_id + 1000} in the ledger"):
        direct.status(run_id + 1000)
