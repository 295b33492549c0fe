"""A worker that Celery stops on an unrecoverable error starts again by itself (same
process, fresh interpreter) and the run finishes; with ``--no-restart`` it exits with
Celery's status. The failure is injected by the ``crashing_worker`` plugin."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from services import run_cli
from test_distributed import check_run, submit, wait_done

pytestmark = pytest.mark.e2e

HERE = Path(__file__).resolve().parent
CRASHING = {"TILECENSUS_PLUGINS": "crashing_worker", "PYTHONPATH": str(HERE)}


def test_a_worker_stopped_by_celery_starts_again(pg_url, broker_url, queue, processes, monkeypatch):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    with monkeypatch.context() as m:
        for key, value in CRASHING.items():
            m.setenv(key, value)
        w = processes.worker(pg_url, broker_url, queue, concurrency=2)
    processes.scheduler(pg_url, broker_url)
    run_id = submit(pg_url, broker_url, queue, "pentomino-6x10", "--distinct", "--split-depth", "2", "--lease", "3")
    wait_done(pg_url, run_id, processes)
    check_run(pg_url, run_id, "pentomino-6x10", distinct=True)
    log = Path(w.log_path).read_text()
    assert "Unrecoverable error" in log and "injected" in log, log[-3000:]
    assert "tilecensus worker: Celery stopped the worker (status 1) without being asked to; " \
           "starting again in 1 s" in log
    assert w.poll() is None  # the same process, serving again


def test_no_restart_exits_with_celerys_status(pg_url, broker_url, queue, processes, monkeypatch):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    with monkeypatch.context() as m:
        for key, value in CRASHING.items():
            m.setenv(key, value)
        w = processes.start("worker", "--concurrency", "1", "--queues", queue, "--loglevel", "WARNING",
                            "--no-restart", db_url=pg_url, broker=broker_url, name="worker")
    deadline = time.monotonic() + 60
    while w.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    log = Path(w.log_path).read_text()
    assert w.returncode == 1, log[-3000:]
    assert "Unrecoverable error" in log and "starting again" not in log
