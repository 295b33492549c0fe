"""``submit --wait`` follows its run without SQLAlchemy or Celery, and its scheduler
rounds go on in a thread of their own (scheduler/background_rounds.py) that loads them
only when the first round is due; a command whose run has ended leaves without waiting
for that thread."""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import redis
from sqlalchemy import text

from scheduler.background_rounds import BackgroundRounds
from scheduler.db import close_ledger, open_ledger
from scheduler.end_channels import REDIS_CHANNEL
from scheduler import ledger as L
from services import ROOT


def _first_run(ledger, proc: subprocess.Popen, seconds: float = 60.0) -> int:
    """The id of the first run written to ``ledger``, once ``proc`` has written it."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with ledger.engine.connect() as conn:
            row = conn.execute(text("SELECT id FROM runs ORDER BY id LIMIT 1")).first()
        if row is not None:
            return row[0]
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError("no run was written")


def test_submit_wait_follows_its_run_without_sqlalchemy_or_celery(any_url, broker_url, queue):
    """No worker serves the queue: the test cancels the run, and ``submit --wait`` — in a
    fresh process — tells its end (exit 1, "cancelled") having loaded neither."""
    open_ledger(any_url)
    close_ledger(any_url)
    code = textwrap.dedent(f"""
        import json, sys
        from scheduler.cli import cli
        try:
            cli(['submit', 'pentomino-6x10', '--split-depth', '2', '--no-estimate', '--wait', '--db', {any_url!r},
                 '--broker', {broker_url!r}, '--queue', {queue!r}, '--json', '--no-progress'], prog_name='tilecensus')
        except SystemExit as exc:
            status = exc.code
        print(json.dumps([status, sorted({{m.split('.')[0] for m in sys.modules}} &
                                         {{'sqlalchemy', 'celery', 'kombu', 'alembic'}})]))
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        ledger = open_ledger(any_url)
        run_id = _first_run(ledger, proc)
        L.cancel_run(ledger, run_id)
        redis.Redis.from_url(broker_url).publish(REDIS_CHANNEL, str(run_id))  # (SQLite: told on the broker)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        redis.Redis.from_url(broker_url).delete(queue)
        close_ledger(any_url)
    lines = out.splitlines()
    submitted, ended, (status, loaded) = json.loads(lines[0]), json.loads(lines[-2]), json.loads(lines[-1])
    assert submitted["run_id"] == run_id and ended["status"] == "cancelled", err
    assert status == 1 and loaded == []


def test_the_first_round_loads_when_it_is_due():
    """Nothing is loaded before the first round is due; stopped before it, never."""
    connected = []
    with BackgroundRounds(7, lambda: connected.append(1) or (None, None), lambda executor: (), print, first=30.0):
        time.sleep(0.1)
    assert connected == []


def test_a_round_that_fails_is_raised_in_the_main_thread(monkeypatch):
    from scheduler import scheduler_round

    def tick(ledger, executor, *, run_ids):
        raise LookupError(f"round over {run_ids}")

    monkeypatch.setattr(scheduler_round, "tick", tick)
    rounds = BackgroundRounds(7, lambda: ("ledger", "executor"), lambda executor: (ConnectionError,), print,
                              first=0.0)
    with rounds:
        deadline = time.monotonic() + 30
        while rounds._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        with pytest.raises(LookupError, match=r"round over \[7\]"):
            rounds.raise_failure()
    rounds.raise_failure()  # raised once


def test_outages_are_reported_and_tried_again(monkeypatch):
    from scheduler import scheduler_round

    calls, reported = [], []
    done = threading.Event()

    def tick(ledger, executor, *, run_ids):
        calls.append(run_ids)
        if len(calls) == 3:
            done.set()
        raise ConnectionError("Connection refused.\nmore")

    monkeypatch.setattr(scheduler_round, "tick", tick)
    with BackgroundRounds(7, lambda: (None, None), lambda executor: (ConnectionError,), reported.append,
                          first=0.0, every=0.01) as rounds:
        assert done.wait(30)
    rounds.raise_failure()  # outages end nothing
    assert reported[0] == "tilecensus: Connection refused.; retrying"


def test_leaving_does_not_wait_for_a_round_under_way():
    """A round still loading (here: 60 s) does not hold the command's exit: its status
    and what it printed are kept."""
    code = textwrap.dedent("""
        import time
        from scheduler.background_rounds import BackgroundRounds
        rounds = BackgroundRounds(7, lambda: time.sleep(60), lambda executor: (), print, first=0.0)
        rounds.__enter__()
        time.sleep(0.2)
        print("the run's end", end="")
        rounds.leave(3)
        print("not reached")
    """)
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=50)
    assert proc.returncode == 3 and proc.stdout == "the run's end"
    assert time.monotonic() - started < 50  # (the loading's 60 s never waited for)


def test_leaving_returns_when_no_round_is_under_way():
    rounds = BackgroundRounds(7, lambda: (None, None), lambda executor: (), print, first=30.0)
    with rounds:
        pass
    rounds.leave(0)  # the thread is gone: the usual exit follows
