"""The scheduler's loop waits out a broker or database outage instead of dying with it."""
from __future__ import annotations

import pytest
import redis.exceptions
from click.testing import CliRunner
from sqlalchemy.exc import OperationalError

from scheduler import runner
from scheduler.cli import cli
from scheduler.runner import CeleryExecutor


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

    monkeypatch.setattr(runner, "tick", tick)
    with pytest.raises(Stop):
        CliRunner().invoke(cli, ["scheduler", "--interval", "0.05"], catch_exceptions=False)
    assert len(rounds) == 2


def test_a_programming_error_is_not_mistaken_for_an_outage(ledger_and_broker, monkeypatch):
    def tick(ledger, executor, *, grace):
        raise KeyError("subproblem")  # kombu's redis transport lists KeyError among its errors

    monkeypatch.setattr(runner, "tick", tick)
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

    monkeypatch.setattr(runner, "tick", tick)
    result = CliRunner().invoke(cli, ["submit", "dominoes-4x4", "--split-depth", "1", "--queue", queue,
                                      "--no-estimate", "--wait", "--no-progress"], catch_exceptions=False)
    assert "Connection refused.; retrying" in result.stderr
    assert result.exit_code == 1 and "cancelled" in result.output  # the run ended, not the command
    assert len(rounds) == 2
