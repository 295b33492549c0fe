"""The Celery app's settings for long batch work, and the task's exactly-once behaviour
(called directly, no broker)."""
from __future__ import annotations

from tc_helpers import make_run, states
from scheduler import ledger as L
from scheduler.celery_config import SOLVE_TASK_NAME, VISIBILITY_TIMEOUT
from scheduler.db import open_ledger
from scheduler.runner import execute_one


def test_app_settings_for_long_batch_work():
    from worker.app import app
    import worker.tasks  # noqa: F401

    c = app.conf
    assert c.task_acks_late and c.task_reject_on_worker_lost
    assert c.worker_prefetch_multiplier == 1
    assert c.broker_transport_options["visibility_timeout"] == VISIBILITY_TIMEOUT >= 3600
    assert c.task_ignore_result and not c.result_backend
    assert c.accept_content == ["json"] and c.task_serializer == "json"
    assert SOLVE_TASK_NAME in app.tasks


def test_task_twice_records_once(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    with ledger.session() as s:
        from sqlalchemy import select

        from scheduler.models import Subproblem

        ids = list(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id)))
    results = [execute_one(ledger, i, None) for i in ids]
    assert set(results) == {"recorded"}
    assert [execute_one(ledger, i, None) for i in ids] == ["skipped"] * len(ids)
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 95)


def test_task_of_a_cancelled_run_does_nothing(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    L.cancel_run(ledger, run_id)
    assert execute_one(ledger, 1, None) == "skipped"
    assert set(states(ledger, run_id)) == {"cancelled"}
