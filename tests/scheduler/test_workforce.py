"""The worker processes serving a queue, as they announce themselves in the broker's Redis
(scheduler/workforce.py), and ``submit`` planning a run for them — with the real Redis."""
from __future__ import annotations

import json
import secrets

import pytest
import redis
from click.testing import CliRunner

from scheduler import workforce
from scheduler.cli import cli
from scheduler.celery_executor import CeleryExecutor
from scheduler.workforce import STALE_SECONDS, Announcement, workforce_key

QUEENS = "examples/queens8.dlx"


@pytest.fixture
def client(broker_url):
    return redis.Redis.from_url(broker_url)


def test_announced_processes_are_counted_until_they_withdraw(client, queue):
    other = f"{queue}-other"
    a = Announcement(client, [queue, other], member="host-a:1").start()
    b = Announcement(client, [queue], member="host-b:2").start()
    try:
        assert workforce.workforce(client, queue) == 2
        assert workforce.workforce(client, other) == 1
        a.stop()
        assert workforce.workforce(client, queue) == 1
        assert workforce.workforce(client, other) == 0
    finally:
        a.stop()
        b.stop()
    assert workforce.workforce(client, queue) == 0


def test_a_process_that_went_silent_is_not_counted(client, queue):
    """A process killed without withdrawing (SIGKILL, a lost machine) stops renewing its
    announcement: once it is STALE_SECONDS old by the broker's clock it is not counted,
    and it is forgotten."""
    seconds, micros = client.time()
    now = seconds + micros / 1e6
    client.zadd(workforce_key(queue), {"gone:1": now - STALE_SECONDS - 1, "alive:2": now})
    assert workforce.workforce(client, queue) == 1
    assert client.zrange(workforce_key(queue), 0, -1) == [b"alive:2"]
    client.delete(workforce_key(queue))


def test_a_broker_that_is_not_redis_tells_no_workforce():
    assert CeleryExecutor("amqp://guest@127.0.0.1:1//").workforce("tilecensus") is None


def test_an_announcement_survives_a_broker_away(monkeypatch, caplog):
    """A broker that does not answer: the worker goes on (Celery reports the outage), the
    announcement is a warning, not an exception."""
    gone = redis.Redis(host="127.0.0.1", port=1, socket_timeout=0.2)
    announcement = Announcement(gone, ["q"], member="m:1")
    announcement.announce = lambda: gone.ping()  # type: ignore[method-assign]
    announcement.start().stop()
    assert "not announced on q" in caplog.text


@pytest.fixture
def submit(broker_url, sqlite_url, queue, monkeypatch):
    monkeypatch.setenv("TILECENSUS_DB_URL", sqlite_url)
    monkeypatch.setenv("TILECENSUS_BROKER_URL", broker_url)

    def run(*args: str) -> dict:
        result = CliRunner().invoke(cli, ["submit", *args, "--queue", queue, "--json"], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    yield run
    redis.Redis.from_url(broker_url).delete(queue)


def test_submit_plans_for_the_workers_serving_the_queue(submit, client, queue):
    """Two processes announced on the queue: the run is planned for two, one message each,
    the rest of the plan left in the ledger for them to pull."""
    announced = [Announcement(client, [queue], member=f"w{i}:{secrets.token_hex(2)}") for i in range(2)]
    for a in announced:
        a.announce()
    try:
        data = submit(QUEENS, "--split-depth", "3")
    finally:
        for a in announced:
            a.stop()
    assert data["workers"] == 2
    assert 1 <= data["messages"] <= 2 and data["messages"] == client.llen(queue)
    assert data["held"] == data["subproblems"] - sum(len(json.loads(_body(m))[0][1])
                                                     for m in client.lrange(queue, 0, -1))


def test_submit_with_no_worker_announced_plans_for_a_cluster(submit, client, queue):
    data = submit(QUEENS, "--split-depth", "3")
    assert data["workers"] is None
    assert data["messages"] == client.llen(queue) <= 8


def _body(raw: bytes) -> str:
    """A Celery message's arguments as kombu's Redis transport stores them."""
    import base64

    message = json.loads(raw)
    body = message["body"]
    return base64.b64decode(body).decode() if message.get("properties", {}).get("body_encoding") == "base64" else body


def test_submit_says_whom_it_planned_for(broker_url, sqlite_url, client, queue, monkeypatch):
    monkeypatch.setenv("TILECENSUS_DB_URL", sqlite_url)
    monkeypatch.setenv("TILECENSUS_BROKER_URL", broker_url)
    announced = [Announcement(client, [queue], member=f"w{i}:{secrets.token_hex(2)}") for i in range(2)]
    for a in announced:
        a.announce()
    try:
        out = CliRunner().invoke(cli, ["submit", QUEENS, "--split-depth", "3", "--queue", queue], catch_exceptions=False)
    finally:
        for a in announced:
            a.stop()
        client.delete(queue)
    line = out.output.splitlines()[-1]
    assert f"on queue {queue} (2 worker processes serving it; the other " in line
    assert line.endswith(" wait in the ledger for the workers to pull)")
