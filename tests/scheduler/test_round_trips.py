"""A worker's ledger transactions on PostgreSQL wait for the database as few times as
their statements need each other (scheduler/ledger/pipeline.py): a lease, a record, a
pull, a record that closes a message — one round trip, ``BEGIN`` and ``COMMIT``
included; a pull whose result donates a frontier, two.  Counted on the wire by libpq's
trace: each time the client waits is a ``Sync``, a ``Flush`` or a simple ``Query`` it
sent.  And the transaction stays one: a statement that fails leaves nothing written."""
from __future__ import annotations

import contextlib
import re

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError

from tc_helpers import make_run, states, sub_ids
from scheduler import db as DB
from scheduler import ledger as L
from scheduler.db import open_ledger
from scheduler.ledger.pipeline import ROUND_TRIPS, pipelined, transaction
from scheduler.ledger.pulls import Parcel
from scheduler.models import Run
from scheduler.run_options import Mode, RunOptions
from scheduler.work import build_solver, solve_task

SENT = re.compile(r"^F\t\d+\t(\w+)", re.M)


def _waits(trace: str) -> int:
    """The client's waits in a libpq trace: each ``Sync``, ``Query`` and ``Flush`` it
    sent, but a ``Flush`` right after a ``Sync`` (psycopg's, leaving a pipeline) waits
    for nothing more."""
    sent = SENT.findall(trace)
    return sum(1 for i, kind in enumerate(sent)
               if kind in ("Sync", "Query") or (kind == "Flush" and (i == 0 or sent[i - 1] != "Sync")))


@pytest.fixture
def ledger(pg_url, monkeypatch):
    monkeypatch.setattr(DB, "PING_AFTER_IDLE", 1e9)  # no ping on checkout in the counts
    return open_ledger(pg_url)


@contextlib.contextmanager
def waits(ledger, tmp_path):
    """The times the client waited for the database inside the block (a list, filled on
    leaving it: :func:`_waits`), over every connection the block checks out."""
    from psycopg import pq

    path = tmp_path / "trace.txt"
    counted: list[int] = []
    with open(path, "w") as trace:
        def on_checkout(dbapi_conn, _record, _proxy):
            dbapi_conn.pgconn.trace(trace.fileno())
            dbapi_conn.pgconn.set_trace_flags(pq.Trace.SUPPRESS_TIMESTAMPS | pq.Trace.REGRESS_MODE)

        def on_checkin(dbapi_conn, _record):
            dbapi_conn.pgconn.untrace()

        from sqlalchemy import event

        event.listen(ledger.engine, "checkout", on_checkout)
        event.listen(ledger.engine, "checkin", on_checkin)
        try:
            yield counted
        finally:
            event.remove(ledger.engine, "checkout", on_checkout)
            event.remove(ledger.engine, "checkin", on_checkin)
    counted.append(_waits(path.read_text()))


def _solve(ledger, task, run_id):
    run = L.get_run(ledger, run_id)
    opts = RunOptions.from_json(run.options)
    _, solver = build_solver(run.spec, opts)
    return solve_task(solver, task, Mode(run.mode), opts)


def test_a_lease_a_pull_and_a_record_are_one_round_trip_each(ledger, tmp_path):
    run_id = make_run(ledger, "pentomino-6x10", depth=2, executor="celery", memo=False)
    first = L.pull(ledger, run_id, "w0", [], Parcel(8), 60)
    message = sub_ids(ledger, run_id, state="pending")[:3]
    with waits(ledger, tmp_path) as leasing:
        run, tasks = L.lease_message(ledger, run_id, message, "w1")
    assert run is not None and [t.sub_id for t in tasks] == message
    assert leasing == [1]
    outcomes = [_solve(ledger, t, run_id) for t in first.tasks]
    with waits(ledger, tmp_path) as pulling:
        pulled = L.pull(ledger, run_id, "w0", outcomes[:2], Parcel(8), 60)
    assert pulled.recorded == [[], []] and pulled.tasks
    assert pulling == [1]
    with waits(ledger, tmp_path) as recording:
        assert L.record_results(ledger, outcomes[2:4], queued=True) == [[], []]
    assert recording == [1]
    observed = ROUND_TRIPS.observed
    with waits(ledger, tmp_path) as closing:
        recorded, closed = L.record_closing(ledger, run_id, outcomes[4:], queued=True)
    assert recorded == [[]] * len(outcomes[4:]) and not closed  # the others' parcels are open
    assert closing == [1]
    assert ROUND_TRIPS.observed == observed + 1  # a transaction in one flush is a round trip measured


def test_a_runs_first_message_brings_its_spec_in_the_leases_round_trip(ledger, tmp_path):
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    first, second = sub_ids(ledger, run_id)[:2]
    with waits(ledger, tmp_path) as leasing:
        run, tasks = L.lease_message(ledger, run_id, [first], "w1", known_specs=["another hash"])
    assert leasing == [1] and [t.sub_id for t in tasks] == [first]
    assert run.spec == L.get_run(ledger, run_id).spec
    run, _ = L.lease_message(ledger, run_id, [second], "w1", known_specs=[run.spec_hash])
    assert run.spec is None  # a solver of it is held: not read again
    assert L.lease_message(ledger, run_id, [], "w1")[0].spec is None  # nothing known asked: as before


def test_the_record_that_closes_the_run_is_three_round_trips(ledger, tmp_path):
    """The record, then the close in a transaction of its own: the lock and the reads,
    then the run's row, its NOTIFY and COMMIT; the totals as SQLAlchemy's close sums them."""
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    tasks = L.pull(ledger, run_id, "w1", [], Parcel(1), 60).tasks
    assert len(tasks) == len(sub_ids(ledger, run_id))
    outcomes = [_solve(ledger, t, run_id) for t in tasks]
    with waits(ledger, tmp_path) as closing:
        recorded, closed = L.record_closing(ledger, run_id, outcomes, queued=True)
    assert closed and closing == [3]
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions, run.error) == ("done", 95, None)
    assert run.nodes == sum(o.nodes for o in outcomes) and run.stats["solutions"] == 95


def test_a_pull_whose_result_donates_is_two_round_trips_and_records_it_once(ledger, tmp_path):
    run_id = make_run(ledger, "dominoes-6x6", depth=0, executor="celery", node_budget=300)
    (task,) = L.pull(ledger, run_id, "w1", [], Parcel(1), 60).tasks
    outcome = _solve(ledger, task, run_id)
    assert outcome.frontier
    with waits(ledger, tmp_path) as pulling:
        pulled = L.pull(ledger, run_id, "w1", [outcome], Parcel(1), 60)
    assert pulling == [2]
    (children,) = pulled.recorded
    assert len(children) == len(outcome.frontier)
    again = L.pull(ledger, run_id, "w2", [outcome], Parcel(1), 60)  # a duplicate: nothing more
    assert again.recorded == [None]
    assert sum(states(ledger, run_id).values()) == 1 + len(outcome.frontier)


def test_a_pull_that_finds_nothing_pending_while_another_searches_is_one_round_trip(ledger, tmp_path):
    """Its look at what is open goes in the same flush, a transaction of its own after the
    pull's COMMIT; the last pull, finding nothing open, closes the run (two more)."""
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    mine = L.pull(ledger, run_id, "w1", [], Parcel(4), 60).tasks
    n = len(sub_ids(ledger, run_id))
    theirs = L.lease_message(ledger, run_id, sub_ids(ledger, run_id, state="pending"), "w2")[1]
    assert len(mine) + len(theirs) == n and theirs
    solved = [_solve(ledger, t, run_id) for t in mine]
    with waits(ledger, tmp_path) as pulling:
        pulled = L.pull(ledger, run_id, "w1", solved, Parcel(1), 60)
    assert (pulled.tasks, pulled.closed, pulling) == ([], False, [1])  # w2 still searches
    assert L.get_run(ledger, run_id).status == "running"
    solved = [_solve(ledger, t, run_id) for t in theirs]
    with waits(ledger, tmp_path) as last:
        pulled = L.pull(ledger, run_id, "w2", solved, Parcel(1), 60)
    assert (pulled.tasks, pulled.closed, last) == ([], True, [3])
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 95)


def test_a_failed_statement_leaves_nothing_written_and_the_connection_usable(ledger):
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    with pytest.raises(DBAPIError, match="division by zero"):
        with transaction(ledger.engine) as conn:
            pipelined(conn, [(f"UPDATE {Run.__tablename__} SET error = 'x' WHERE id = %(id)s", [{"id": run_id}]),
                             ("SELECT 1 / 0", [{}])], commit=True)
    with ledger.engine.connect() as conn:  # the same pooled connection, out of autocommit again
        assert conn.connection.dbapi_connection.autocommit is False
        assert conn.execute(select(Run.error).where(Run.id == run_id)).scalar_one() is None
        conn.execute(update(Run).where(Run.id == run_id).values(error="y"))
        conn.rollback()  # rolled back: it was in a transaction
        assert conn.execute(select(Run.error).where(Run.id == run_id)).scalar_one() is None


def test_record_intervals_and_parcel_floors_grow_with_the_measured_round_trip(monkeypatch):
    """Nothing changes on a local network (nothing measured, or well under a millisecond);
    20 ms away (a round trip of 45 ms) a worker records every 20 round trips of solving
    and pulls parcels of 10 at least."""
    from scheduler import celery_messages as M
    from scheduler.batches import MESSAGE_FLOOR_SECONDS
    from scheduler.round_trips import RoundTrips

    trips = RoundTrips()
    monkeypatch.setattr(M, "ROUND_TRIPS", trips)
    assert (M.record_seconds(), M.parcel_floor()) == (M.RECORD_SECONDS, MESSAGE_FLOOR_SECONDS)
    for seconds in (0.0004, 0.0006, 0.0005):
        trips.observe(seconds)
    assert (M.record_seconds(), M.parcel_floor()) == (M.RECORD_SECONDS, MESSAGE_FLOOR_SECONDS)
    for seconds in [0.045] * 10 + [0.3]:  # the median: one slow transaction does not count
        trips.observe(seconds)
    assert trips.seconds == 0.045
    assert M.record_seconds() == pytest.approx(M.RECORD_TRIPS * 0.045)
    assert M.parcel_floor() == pytest.approx(M.FLOOR_TRIPS * 0.045)
    for _ in range(RoundTrips.KEPT):  # the link got faster: the last ones count
        trips.observe(0.001)
    assert (M.record_seconds(), M.parcel_floor()) == (M.RECORD_SECONDS, MESSAGE_FLOOR_SECONDS)


def test_a_pooled_connection_is_pinged_after_an_idle_time_that_grows_with_the_round_trip(pg_url, monkeypatch):
    """A second idle: pinged on a local network; not 50 ms away (a round trip of 0.1 s),
    where a worker idles a second or two between its transactions — until 50 round trips."""
    from scheduler.round_trips import RoundTrips

    trips = RoundTrips()
    monkeypatch.setattr(DB, "ROUND_TRIPS", trips)
    ledger = open_ledger(pg_url)
    pings = []
    monkeypatch.setattr(ledger.engine.dialect, "do_ping", lambda dbapi_conn: pings.append(1) or True)
    clock = [1000.0]
    monkeypatch.setattr(DB.time, "monotonic", lambda: clock[0])
    ledger.engine.dispose()  # no connection idle since a real time (below 1000 s a minute after boot: a ping more)

    def idle_then_use(seconds):
        with ledger.engine.connect():
            pass
        clock[0] += seconds
        with ledger.engine.connect():
            pass

    idle_then_use(1.5)
    assert len(pings) == 1
    for _ in range(5):
        trips.observe(0.1)
    idle_then_use(1.5)
    assert len(pings) == 1
    idle_then_use(5.5)
    assert len(pings) == 2
