"""``submit`` sizes its messages from the planning's measure: a problem that takes
milliseconds is done in planning or goes out as one message (the real Redis; nothing
consumes the queue).  A scheduler round sends lost subproblems packed the same way."""
from __future__ import annotations

import json

import pytest
import redis
import redis.connection
from click.testing import CliRunner
from sqlalchemy import select

from tc_helpers import make_run
from scheduler.celery_config import SOLVE_TASK_NAME
from scheduler.cli import cli
from scheduler import ledger as L
from scheduler.db import open_ledger
from scheduler.models import Subproblem
from scheduler.celery_executor import CeleryExecutor
from scheduler.celery_messages import execute_one
from scheduler.scheduler_round import tick

QUEENS = "examples/queens8.dlx"  # 1,199 nodes


@pytest.fixture
def submit(broker_url, sqlite_url, queue, monkeypatch):
    """Run ``submit`` on a fresh SQLite ledger and the test Redis; the queue is emptied after."""
    monkeypatch.setenv("TILECENSUS_DB_URL", sqlite_url)
    monkeypatch.setenv("TILECENSUS_BROKER_URL", broker_url)

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, ["submit", *args, "--queue", queue], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.output

    yield run
    redis.Redis.from_url(broker_url).delete(queue)


def queued(broker_url: str, queue: str) -> int:
    return int(redis.Redis.from_url(broker_url).llen(queue))


def test_queens_is_done_in_planning(submit, broker_url, queue):
    data = json.loads(submit(QUEENS, "--json"))
    assert (data["status"], data["subproblems"], data["messages"]) == ("done", 0, 0)
    assert queued(broker_url, queue) == 0


def test_queens_split_goes_out_as_one_message(submit, broker_url, queue):
    data = json.loads(submit(QUEENS, "--split-depth", "2", "--json"))
    assert data["status"] == "running" and data["subproblems"] > 8
    assert data["messages"] == 1 == queued(broker_url, queue)


def test_without_an_estimate_each_subproblem_is_a_message(submit, broker_url, queue):
    data = json.loads(submit(QUEENS, "--split-depth", "1", "--no-estimate", "--json"))
    assert data["messages"] == data["subproblems"] == 8 == queued(broker_url, queue)


def test_the_text_says_how_many_messages(submit):
    out = submit(QUEENS, "--split-depth", "2")
    assert " subproblems in 1 message on queue " in out.splitlines()[-1]


class KeptMessages(CeleryExecutor):
    """The real executor (stamping, packing) with an empty queue and its messages kept here."""

    def __init__(self):
        super().__init__("redis://127.0.0.1:1/0")  # never connected
        self.sent: list[list[int]] = []

    def _send(self, name, messages, queue):
        self.sent.extend(list(args[1]) for args in messages if name == SOLVE_TASK_NAME)

    def queue_size(self, queue):
        return 0


@pytest.mark.parametrize("verified", [False, True])
def test_a_scheduler_round_sends_lost_subproblems_packed_at_the_runs_rate(sqlite_url, verified):
    """Nobody on the run: its pending subproblems go out again, packed at the rate the run
    has shown — for a run that pulls, a message for each worker it was planned for (2
    here; they pull the rest), for a verified run every one of them."""
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery", workers=2,
                      **({"verify": 0.5, "verify_seed": 1} if verified else {}))
    with ledger.session() as s:
        ids = list(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id).order_by(Subproblem.id)))
    unmeasured = KeptMessages()
    tick(ledger, unmeasured, grace=0, run_ids=[run_id])  # nothing done yet: no rate, one each
    assert unmeasured.sent == [[i] for i in ids][:None if verified else 2]
    assert execute_one(ledger, ids[0], None) == "recorded"  # the run's rate, measured
    measured = KeptMessages()
    tick(ledger, measured, grace=0, run_ids=[run_id])
    assert measured.sent == [ids[1:]]  # milliseconds of work: one message


def test_a_scheduler_round_leaves_a_run_its_workers_pull_to_them(sqlite_url):
    """A worker holds a live lease on the run: it pulls the run's pending subproblems
    itself, however long they have waited, so nothing is sent again."""
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery", workers=2)
    L.lease_batch(ledger, run_id, "celery:elsewhere:1", 1, 60)
    kept = KeptMessages()
    tick(ledger, kept, grace=0, run_ids=[run_id])
    assert kept.sent == []


def test_the_queue_size_is_asked_over_one_kept_connection(broker_url, queue, monkeypatch):
    """A worker waiting for work asks the queue's size every 50 ms: over a connection of
    the app's pool, not a new one each time (3 ms of CPU each, redis-py reading its own
    package metadata at every connect).  The connects counted in this process (Redis's own
    count of connections received takes in the other test process's too)."""
    executor = CeleryExecutor(broker_url)
    client = redis.Redis.from_url(broker_url)
    connects = []
    connect = redis.connection.AbstractConnection.connect

    def counted(self, *args, **kwargs):
        if getattr(self, "_sock", None) is None:
            connects.append(self)
        return connect(self, *args, **kwargs)

    try:
        assert executor.queue_size(queue) == 0
        executor._send(SOLVE_TASK_NAME, [[1, [2]], [1, [3]]], queue)
        monkeypatch.setattr(redis.connection.AbstractConnection, "connect", counted)
        sizes = [executor.queue_size(queue) for _ in range(20)]
        assert sizes == [2] * 20
        assert connects == []
    finally:
        monkeypatch.undo()
        client.delete(queue)

