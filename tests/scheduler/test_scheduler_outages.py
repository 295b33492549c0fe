"""The scheduler's loop waits out a broker or database outage instead of dying with it."""
from __future__ import annotations

import pytest
import redis.exceptions
from click.testing import CliRunner
from sqlalchemy.exc import OperationalError

from scheduler import scheduler_round
from scheduler.cli import cli
from scheduler.celery_executor import CeleryExecutor


@pytest.fixture
def ledger_and_broker(broker_url, sqlite_url, monkeypatch):
    """The CLI's database and broker for this test: a fresh SQLite ledger, the test Redis."""
    monkeypatch.setenv("TILECENSUS_DB_URL", sqlite_url)
    monkeypatch.setenv("TILECENSUS_BROKER_URL", broker_url)


class Stop(Exception):
    """Ends the otherwise endless loop once the test has seen enough rounds."""


@pytest.mark.parametrize("outage", [
    # what redis-py raises from a pooled connection when Redis went away between two rounds
    redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused."),
    redis.exceptions.TimeoutError("Timeout reading from socket"),
    OperationalError("SELECT 1", {}, Exception("server closed the connection unexpectedly")),
])
def test_a_round_that_meets_an_outage_is_retried(outage, ledger_and_broker, monkeypatch):
    rounds = []

    def tick(ledger, executor, *, grace):
        rounds.append(grace)
        if len(rounds) == 1:
            raise outage
        raise Stop

    monkeypatch.setattr(scheduler_round, "tick", tick)
    with pytest.raises(Stop):
        CliRunner().invoke(cli, ["scheduler", "--interval", "0.05"], catch_exceptions=False)
    assert len(rounds) == 2


def test_a_programming_error_is_not_mistaken_for_an_outage(ledger_and_broker, monkeypatch):
    def tick(ledger, executor, *, grace):
        raise KeyError("subproblem")  # kombu's redis transport lists KeyError among its errors

    monkeypatch.setattr(scheduler_round, "tick", tick)
    with pytest.raises(KeyError):
        CliRunner().invoke(cli, ["scheduler", "--interval", "0.05"], catch_exceptions=False)


def test_an_unreachable_broker_raises_an_outage_error():
    executor = CeleryExecutor("redis://127.0.0.1:1/0")  # nothing listens on port 1
    with pytest.raises(executor.outage_errors):
        executor.queue_size("tc-nowhere")


def test_submit_wait_outlives_an_outage(ledger_and_broker, queue, monkeypatch):
    """`submit --wait` keeps following the run when a round of its own scheduling fails."""
    from scheduler.ledger import cancel_run

    rounds = []

    def tick(ledger, executor, *, run_ids):
        rounds.append(run_ids)
        if len(rounds) == 1:
            raise redis.exceptions.ConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")
        cancel_run(ledger, run_ids[0])  # ends the run without a worker

    monkeypatch.setattr(scheduler_round, "tick", tick)
    result = CliRunner().invoke(cli, ["submit", "dominoes-4x4", "--split-depth", "1", "--queue", queue,
                                      "--no-estimate", "--wait", "--no-progress"], catch_exceptions=False)
    assert "Connection refused.; retrying" in result.stderr
    assert result.exit_code == 1 and "cancelled" in result.output  # the run ended, not the command
    assert len(rounds) == 2


def _from_kombu(message: str):
    """A function whose frames count as kombu's own (its module name), raising what kombu's
    Redis transport raises when it publishes on a channel whose connection it dropped."""
    scope = {"__name__": "kombu.transport.redis"}
    exec("def send_task(*args, **kwargs):\n    conninfo = None\n    return conninfo.client\n", scope)
    return scope["send_task"]


def test_a_channel_kombu_dropped_is_an_outage_and_the_pools_are_emptied(broker_url, monkeypatch):
    """Right after Redis restarts, kombu may publish on a channel it has dropped and fail
    inside itself with an AttributeError (it ended the scheduler in the Redis-restart
    test): that is raised as an outage, which the scheduler's loop waits out, and the
    pools are closed so that the next send connects afresh."""
    executor = CeleryExecutor(broker_url)
    closed = []
    monkeypatch.setattr(executor.app, "send_task", _from_kombu("'NoneType' object has no attribute 'client'"))
    monkeypatch.setattr(executor.app.pool, "force_close_all", lambda: closed.append("connections"))
    monkeypatch.setattr(executor.app.producer_pool, "force_close_all", lambda: closed.append("producers"))
    with pytest.raises(executor.outage_errors) as raised:
        executor.invite(1, "tc-nowhere")
    assert "closed under a message" in str(raised.value) and isinstance(raised.value.__cause__, AttributeError)
    assert closed == ["producers", "connections"]


def test_an_attribute_error_of_ours_is_not_an_outage(broker_url, monkeypatch):
    executor = CeleryExecutor(broker_url)

    def ours(*args, **kwargs):
        raise AttributeError("'Task' object has no attribute 'sub_id'")

    monkeypatch.setattr(executor.app, "send_task", ours)
    with pytest.raises(AttributeError):
        executor.invite(1, "tc-nowhere")


def test_waking_waiting_workers_with_the_broker_away_only_warns(caplog):
    """A worker that has left a donated frontier in the ledger wakes the waiting ones; with
    the broker away it warns and goes on (the work is in the ledger; a waiting worker
    looks again within POLL_SECONDS) instead of failing its message."""
    from scheduler.work_requests import WorkRequests

    requests = WorkRequests.for_broker("redis://127.0.0.1:1/0")  # nothing listens on port 1
    requests.fed(7)
    assert "run 7: waiting workers not woken" in caplog.text
