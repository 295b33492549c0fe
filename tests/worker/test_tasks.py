"""The Celery app's settings for long batch work, the task's exactly-once behaviour, and
a message of several subproblems (called directly; the sending side records its
messages instead of reaching a broker)."""
from __future__ import annotations

from itertools import count

import pytest
from sqlalchemy import select

from tc_helpers import SentMessages, make_run, states, sub_ids
from scheduler import ledger as L
from scheduler.batches import MESSAGE_SECONDS, MOST_PER_MESSAGE
from scheduler.celery_config import SOLVE_TASK_NAME, VISIBILITY_TIMEOUT
from scheduler.db import open_ledger
from scheduler.models import Subproblem
from scheduler.celery_messages import execute_batch, execute_one


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


def test_a_batch_records_each_subproblem_and_closes_the_run(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    ids = sub_ids(ledger, run_id)
    assert execute_batch(ledger, run_id, ids, SentMessages()) == ["recorded"] * len(ids)
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 95)
    assert execute_batch(ledger, run_id, ids, None) == ["skipped"] * len(ids)  # delivered again


def test_after_a_messages_time_the_worker_leaves_its_run_and_invites_another(sqlite_url):
    """A worker stays on its run (pulling its pending subproblems) at most
    ``MESSAGE_SECONDS``: then what it has not started goes back to the ledger, a message
    with no subproblems invites a worker back to the run, and the worker returns to the
    queue, where other runs' messages wait their turn."""
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    ids = sub_ids(ledger, run_id)
    assert len(ids) >= 3
    ticks = count()
    clock = lambda: MESSAGE_SECONDS * next(ticks) / 2  # noqa: E731 — half a message's time a look
    executor = SentMessages()
    happened = execute_batch(ledger, run_id, ids, executor, clock=clock)
    assert happened == ["recorded", "recorded"] + ["handed back"] * (len(ids) - 2)
    assert executor.sent == [(SOLVE_TASK_NAME, [run_id, []])]  # the invitation, and nothing else
    assert states(ledger, run_id) == {"done": 2, "pending": len(ids) - 2}
    assert execute_batch(ledger, run_id, [], executor) == []  # the invited worker pulls the rest
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 95)


@pytest.mark.parametrize("waiting", [0, 1])
def test_a_worker_stays_on_its_run_past_its_time_while_no_message_waits(sqlite_url, broker_url, waiting):
    """Past ``MESSAGE_SECONDS`` a worker staying on its run (one that asks for work over
    Redis) looks at its queue: with no message waiting it stays and finishes the run
    itself, sending nothing; with one waiting it leaves as above, and invites a worker
    back."""
    from scheduler.work_requests import WorkRequests

    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    ids = sub_ids(ledger, run_id)
    ticks = count()
    clock = lambda: MESSAGE_SECONDS * next(ticks) / 2  # noqa: E731 — half a message's time a look
    executor = SentMessages()
    executor._requests = WorkRequests.for_broker(broker_url)
    looked = []
    executor.queue_size = lambda queue: looked.append(queue) or waiting
    happened = execute_batch(ledger, run_id, ids, executor, clock=clock)
    assert looked
    if waiting:
        assert happened == ["recorded", "recorded"] + ["handed back"] * (len(ids) - 2)
        assert executor.sent == [(SOLVE_TASK_NAME, [run_id, []])]
    else:
        assert happened == ["recorded"] * len(ids) and executor.sent == []
        assert (L.get_run(ledger, run_id).status, L.get_run(ledger, run_id).solutions) == ("done", 95)


def test_a_verified_runs_rest_goes_back_to_the_queue_once_the_message_time_has_passed(sqlite_url):
    """A verified run does not pull (its subproblems stay as planned): a message's
    unstarted subproblems are sent again, in order, for whichever worker is free."""
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery", verify=0.5, verify_seed=1)
    ids = sub_ids(ledger, run_id)
    ticks = count()
    clock = lambda: MESSAGE_SECONDS * next(ticks) / 2  # noqa: E731
    executor = SentMessages()
    happened = execute_batch(ledger, run_id, ids, executor, clock=clock)
    assert happened == ["recorded", "recorded"] + ["handed back"] * (len(ids) - 2)
    sent = [i for name, (run, batch) in executor.sent if name == SOLVE_TASK_NAME and run == run_id for i in batch]
    assert sent == ids[2:]
    assert states(ledger, run_id) == {"done": 2, "pending": len(ids) - 2}
    with ledger.session() as s:
        assert all(s.scalars(select(Subproblem.queued_at).where(Subproblem.id.in_(ids[2:]))))


def test_a_donated_frontier_is_pulled_by_the_worker_on_the_run(sqlite_url):
    """Each search stops after 2,000 nodes and donates its frontier; the worker pulls the
    donated subproblems (and theirs) from the ledger, sends nothing, and closes the run
    with the exact count."""
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=0, executor="celery", node_budget=2000)
    (root,) = sub_ids(ledger, run_id)
    executor = SentMessages()
    assert execute_batch(ledger, run_id, [root], executor) == ["recorded"]
    assert len(sub_ids(ledger, run_id, parent_id=root)) > 1
    assert executor.sent == []
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 6728)


def test_a_verified_runs_donated_children_are_sent_packed(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=0, executor="celery", node_budget=2000, verify=0.5,
                      verify_seed=1)
    (root,) = sub_ids(ledger, run_id)
    executor = SentMessages()
    assert execute_batch(ledger, run_id, [root], executor) == ["recorded"]
    children = sub_ids(ledger, run_id, parent_id=root)
    messages = [batch for name, (_, batch) in executor.sent if name == SOLVE_TASK_NAME]
    assert len(children) > 1
    assert [i for m in messages for i in m] == children  # every child once, in order
    assert all(len(m) <= MOST_PER_MESSAGE for m in messages)


def test_the_task_takes_one_id_or_a_list(sqlite_url, monkeypatch):
    from worker.tasks import solve_subproblems

    monkeypatch.setenv("TILECENSUS_DB_URL", sqlite_url)
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    first, *rest = sub_ids(ledger, run_id)
    assert solve_subproblems(run_id, first) == ["recorded"]  # a message sent before batching
    assert L.get_run(ledger, run_id).status == "done"  # its worker pulled the rest
    assert solve_subproblems(run_id, rest) == ["skipped"] * len(rest)


def test_a_worker_that_pulls_and_records_while_it_searches_records_each_subproblem_once(any_url, monkeypatch):
    """The next parcel pulled, and results recorded, from threads while the worker searches
    (as where the ledger is far away): every subproblem leased once and recorded once —
    donated frontiers included — and the run closed with the exact count."""
    from scheduler import celery_messages as M

    threads = []
    real = M._InThread.__init__

    def counted(self, exchange, name):
        threads.append(name)
        real(self, exchange, name)

    monkeypatch.setattr(M, "in_threads", lambda: True)
    monkeypatch.setattr(M._InThread, "__init__", counted)
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=3, executor="celery", node_budget=3000)
    ids = sub_ids(ledger, run_id)
    executor = SentMessages()
    assert execute_batch(ledger, run_id, ids[:2], executor) == ["recorded"] * 2
    assert threads.count("pull") >= 2 and threads.count("record") >= 2
    assert executor.sent == []
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 6728)
    with ledger.session() as s:
        attempts = s.execute(select(Subproblem.attempts).where(Subproblem.run_id == run_id)).scalars().all()
    assert set(attempts) == {1} and len(attempts) > len(ids)  # each leased once; frontiers donated
    assert set(states(ledger, run_id)) == {"done"}


def test_a_runs_first_message_reads_its_spec_before_a_thread_takes_the_connection(sqlite_url, monkeypatch):
    """A message of one subproblem on a worker without the run's solver: the spec is read
    (on the pooled connection) before the thread that pulls the next parcel starts — beside
    that thread the read opened a connection of its own, three round trips far away."""
    from scheduler import celery_messages as M
    from scheduler import work

    happened = []
    real_init, real_spec = M._InThread.__init__, M.run_spec

    def thread(self, exchange, name):
        happened.append(name)
        real_init(self, exchange, name)

    def spec(ledger, run_id):
        happened.append("spec")
        return real_spec(ledger, run_id)

    monkeypatch.setattr(M, "in_threads", lambda: True)
    monkeypatch.setattr(M._InThread, "__init__", thread)
    monkeypatch.setattr(M, "run_spec", spec)
    monkeypatch.setattr(work, "_CACHE", {})
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x4", depth=2, executor="celery")
    assert execute_batch(ledger, run_id, sub_ids(ledger, run_id)[:1], SentMessages())[0] == "recorded"
    assert happened[:2] == ["spec", "pull"]
    assert L.get_run(ledger, run_id).status == "done"


def test_on_postgresql_a_runs_first_message_brings_its_spec_with_the_lease(pg_url, monkeypatch):
    """The spec comes in the lease's round trip: no read of its own; a worker holding the
    problem's solver is not sent it again."""
    from scheduler import celery_messages as M
    from scheduler import work
    from scheduler.ledger import leases

    def no_read(ledger, run_id):
        raise AssertionError("the spec was read by itself")

    known = []
    real_lease = leases.lease_message

    def lease(*args, **kwargs):
        run, tasks = real_lease(*args, **kwargs)
        known.append((kwargs.get("known_specs"), run.spec is not None))
        return run, tasks

    monkeypatch.setattr(M, "run_spec", no_read)
    monkeypatch.setattr(M, "lease_message", lease)
    monkeypatch.setattr(work, "_CACHE", {})
    ledger = open_ledger(pg_url)
    for _ in range(2):  # the same problem twice
        run_id = make_run(ledger, "dominoes-4x4", depth=2, executor="celery")
        assert "recorded" in execute_batch(ledger, run_id, sub_ids(ledger, run_id)[:1], SentMessages())
        assert L.get_run(ledger, run_id).status == "done"
    (first, brought), (second, again) = known
    assert (first, brought) == ([], True)
    assert len(second) == 1 and not again
