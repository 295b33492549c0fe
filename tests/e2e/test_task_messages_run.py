"""A stock Celery worker of the project runs the messages :mod:`scheduler.task_messages`
writes to Redis without Celery: a run planned in the ledger, its subproblems sent that
way, counted to the end by a real worker process, its total the count one process finds."""
from __future__ import annotations

import json
import time

import pytest
import redis

from services import Processes, run_cli
from tc_helpers import finished_weight, make_run
from scheduler.celery_config import SOLVE_TASK_NAME
from scheduler.db import open_ledger
from scheduler.ledger import progress
from scheduler.task_messages import TaskMessages, binding_keys

pytestmark = pytest.mark.e2e


def test_a_worker_runs_the_messages(pg_url, broker_url, queue, tmp_path):
    from core.library import load

    run_cli("db", "upgrade", db_url=pg_url, check=True)
    ledger = open_ledger(pg_url)
    run_id = make_run(ledger, "pentomino-6x10", executor="celery", depth=2)
    with ledger.engine.connect() as conn:
        ids = [i for (i,) in conn.exec_driver_sql("SELECT id FROM subproblems WHERE run_id = %s ORDER BY id",
                                                  (run_id,))]
    client = redis.Redis.from_url(broker_url)
    TaskMessages(client).send(SOLVE_TASK_NAME, [[run_id, ids[:5]], [run_id, ids[5:]]], queue)
    procs = Processes(tmp_path)
    try:
        procs.worker(pg_url, broker_url, queue, concurrency=1)
        deadline = time.monotonic() + 120
        while progress(ledger, run_id).status == "running":
            assert time.monotonic() < deadline, open(procs.procs[0].log_path).read()[-3000:]
            time.sleep(0.2)
        assert client.llen(queue) == 0  # both messages taken (a worker also pulls from the ledger)
        assert "Traceback" not in open(procs.procs[0].log_path).read()
    finally:
        procs.stop_all()
        client.delete(queue, *binding_keys(queue))
    show = json.loads(run_cli("show", str(run_id), "--json", db_url=pg_url, check=True).stdout)
    assert show["status"] == "done"
    assert show["solutions"] == load("pentomino-6x10").solver().solve(()).count == 9356
    assert finished_weight(ledger, run_id) == 1
