"""The ledger: exactly-once results, leases, closing, exact big counts, cancel — on
SQLite and PostgreSQL."""
from __future__ import annotations

import datetime as dt
import os
import time
from fractions import Fraction

import pytest
from sqlalchemy import func, select, update

from core.search import Subpath
from tc_helpers import finished_weight, make_run, states
from scheduler import ledger as L
from scheduler.db import open_ledger
from scheduler.models import Run, Solution, Subproblem
from scheduler.run_options import ExecutorKind, Mode, RunOptions
from scheduler.work import Outcome, Task, build_solver, solve_task


def _solve(ledger, task: Task, **options) -> Outcome:
    run = L.get_run(ledger, task.run_id)
    opts = RunOptions.from_json({**run.options, **options})
    _, solver = build_solver(run.spec, opts)
    return solve_task(solver, task, Mode(run.mode), opts)


def test_record_is_exactly_once(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2)
    tasks = L.lease_batch(ledger, run_id, "t", 1000, 60)
    outcomes = [_solve(ledger, t) for t in tasks]
    first = L.record_results(ledger, outcomes)
    assert all(c is not None for c in first)
    again = L.record_results(ledger, outcomes)  # a duplicate delivery, a retry after a crash
    assert again == [None] * len(outcomes)
    assert L.close_run(ledger, run_id)
    assert not L.close_run(ledger, run_id)
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 95)
    assert finished_weight(ledger, run_id) == 1


def test_donated_frontier_is_written_with_the_result(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=0, node_budget=50)
    rounds = 0
    while True:
        tasks = L.lease_batch(ledger, run_id, "t", 100, 60)
        if not tasks:
            break
        rounds += 1
        L.record_results(ledger, [_solve(ledger, t) for t in tasks])
    assert rounds > 3
    assert L.close_run(ledger, run_id)
    run = L.get_run(ledger, run_id)
    assert run.solutions == 6728
    assert finished_weight(ledger, run_id) == 1
    with ledger.session() as s:
        donated = s.scalar(select(func.count()).where(Subproblem.run_id == run_id, Subproblem.parent_id.is_not(None)))
    assert donated > 0


def test_lease_expiry_and_duplicate_leases(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=1, executor="celery", lease=0.2)
    sub_id = L.lease_batch(ledger, run_id, "a", 1, 60)[0].sub_id
    assert L.lease_one(ledger, sub_id, "b") is None  # leased by a, not expired
    assert L.expire_leases(ledger, run_id) == []
    L.release_leases(ledger, run_id)
    first = L.lease_one(ledger, sub_id, "b")
    assert first is not None
    assert L.lease_one(ledger, sub_id, "c") is None
    time.sleep(0.3)
    assert L.expire_leases(ledger, run_id) == [sub_id]
    task, _ = L.lease_one(ledger, sub_id, "c")
    out = _solve(ledger, task)
    assert L.record_results(ledger, [out]) != [None]
    assert L.record_results(ledger, [out]) == [None]  # b finishing late changes nothing
    assert L.lease_one(ledger, sub_id, "d") is None


def test_counts_beyond_64_bits_are_exact(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=1)
    tasks = L.lease_batch(ledger, run_id, "t", 100, 60)
    huge = 2**70 + 12345
    outcomes = []
    for t in tasks:
        outcomes.append(Outcome(run_id=run_id, sub_id=t.sub_id, count=huge, distinct=huge // 4, nodes=2**40,
                                seconds=0.1, stats={"nodes": 2**40}, weight_done=t.weight))
    # while it runs too: counts below 2^63 that pass it together (SQLite's SUM would
    # overflow), then counts past it (SQLite's CAST would round them)
    L.record_results(ledger, [Outcome(**{**o.__dict__, "count": 2**62 + 1}) for o in outcomes[:2]])
    assert L.progress(ledger, run_id).solutions == 2 * (2**62 + 1)
    with ledger.session() as s:  # as they were: the test's own numbers go
        s.execute(Subproblem.__table__.update().where(Subproblem.run_id == run_id).values(state="pending", count=None))
    L.record_results(ledger, outcomes)
    assert L.progress(ledger, run_id).solutions == huge * len(tasks)
    assert L.close_run(ledger, run_id)
    run = L.get_run(ledger, run_id)
    assert run.solutions == huge * len(tasks)
    assert run.distinct == (huge // 4) * len(tasks)
    assert run.nodes == 2**40 * len(tasks)


def test_weights_that_do_not_add_up_fail_the_run(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=1)
    tasks = L.lease_batch(ledger, run_id, "t", 100, 60)
    L.record_results(ledger, [Outcome(run_id=run_id, sub_id=t.sub_id, count=1, distinct=None, nodes=1, seconds=0,
                                      stats={}, weight_done=t.weight / 2) for t in tasks])
    L.close_run(ledger, run_id)
    run = L.get_run(ledger, run_id)
    assert run.status == "failed" and "not 1" in run.error


def test_cancel_refuses_late_results_and_revive_resumes(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2)
    tasks = L.lease_batch(ledger, run_id, "t", 3, 60)
    L.cancel_run(ledger, run_id)
    assert L.record_results(ledger, [_solve(ledger, tasks[0])]) == [None]
    assert L.get_run(ledger, run_id).status == "cancelled"
    assert set(states(ledger, run_id)) == {"cancelled"}
    L.revive_run(ledger, run_id)
    assert set(states(ledger, run_id)) == {"pending"}


def test_create_run_refuses_a_frontier_that_is_not_a_partition(sqlite_url):
    from core.library import load

    ledger = open_ledger(sqlite_url)
    with pytest.raises(ValueError):
        L.create_run(ledger, problem=load("dominoes-4x5"), mode=Mode.COUNT, options=RunOptions(),
                     executor=ExecutorKind.LOCAL,
                     frontier=[Subpath((), Fraction(1, 2))])
    with ledger.session() as s:
        assert s.scalar(select(func.count()).select_from(Run)) == 0


def test_solutions_are_stored_compactly_once(sqlite_url):
    from scheduler.codec import unpack
    from core.library import load

    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", mode="enumerate", depth=2)
    tasks = L.lease_batch(ledger, run_id, "t", 1000, 60)
    outcomes = [_solve(ledger, t) for t in tasks]
    L.record_results(ledger, outcomes)
    L.record_results(ledger, outcomes)
    L.close_run(ledger, run_id)
    problem = load("dominoes-4x5")
    with ledger.session() as s:
        blobs = list(s.scalars(select(Solution.options).where(Solution.run_id == run_id)))
    assert len(blobs) == 95
    sols = {unpack(b) for b in blobs}
    assert len(sols) == 95 and all(problem.is_solution(sol) for sol in sols)


def test_a_level_count_task_holds_its_lease_for_an_hour():
    from scheduler.run_options import LEVELS_LEASE

    def lease_seconds(options: dict) -> float:  # as the ledger stores them, old keys and new
        return RunOptions.from_json(options).lease_seconds()

    assert lease_seconds({"budget": 60.0}) == 150.0
    assert lease_seconds({"budget": 60.0, "levels": True}) == LEVELS_LEASE == 3600.0
    assert lease_seconds({"budget": 60.0, "method": "levels"}) == LEVELS_LEASE
    assert lease_seconds({"budget": 4000.0, "levels": True}) == 8030.0
    assert lease_seconds({"budget": 60.0, "levels": True, "lease": 90.0}) == 90.0


def _pending_rows(ledger, run_id: int) -> list[tuple[int, Fraction, bool]]:
    with ledger.session() as s:
        rows = s.execute(select(Subproblem.id, Subproblem.weight_num, Subproblem.weight_den, Subproblem.queued_at)
                         .where(Subproblem.run_id == run_id, Subproblem.state == "pending")
                         .order_by(Subproblem.id)).all()
    return [(i, Fraction(int(n), int(d)), q is not None) for i, n, d, q in rows]


@pytest.mark.parametrize("queued", [False, True])
def test_a_created_run_names_its_pending_subproblems(any_url, queued):
    """What create_run returns is what the ledger holds pending, in order, with the same
    weights (a submitter sends them without reading them back), stamped as sent when
    ``queued`` — for a planned frontier and for a root searched while planning."""
    from core.library import load
    from core.search import SolveRequest
    from scheduler.planning import plan
    from scheduler.work import outcome_of

    ledger = open_ledger(any_url)
    problem = load("pentomino-6x10")
    opts = RunOptions.from_json({"engine": "kernel", "distinct": False, "budget": 60.0})
    _, solver = build_solver(problem.spec, opts)
    planned = plan(solver, split_depth=2).frontier
    trial = solver.solve((), SolveRequest(node_budget=2_000))
    assert trial.frontier  # the root is left unfinished: its frontier is what stays pending
    for frontier, first in ((planned, None), ([Subpath((), Fraction(1))],
                                              lambda run_id, sub_id: outcome_of(trial, run_id, sub_id, Mode.COUNT))):
        created = L.create_run(ledger, problem=problem, mode=Mode.COUNT, options=opts, executor=ExecutorKind.CELERY,
                               frontier=frontier, first=first, queued=queued)
        rows = _pending_rows(ledger, created.run_id)
        assert created.pending == [i for i, _, _ in rows]
        assert created.weights == [w for _, w, _ in rows]
        assert all(q == queued for _, _, q in rows)
        assert sum(created.weights) == (1 if first is None else 1 - trial.weight_done)
        assert L.stale_pending(ledger, created.run_id, 3600.0) == ([] if queued else created.pending)


def test_record_closing_closes_the_run_with_its_last_results(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2)
    tasks = L.lease_batch(ledger, run_id, "t", 1000, 60)
    outcomes = [_solve(ledger, t) for t in tasks]
    recorded, closed = L.record_closing(ledger, run_id, outcomes[:-1])
    assert all(c is not None for c in recorded) and not closed  # the last one is still leased
    assert L.get_run(ledger, run_id).status == "running"
    recorded, closed = L.record_closing(ledger, run_id, outcomes[-1:])
    assert recorded == [[]] and closed
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 95)
    assert L.record_closing(ledger, run_id, outcomes[-1:]) == ([None], False)  # delivered again: nothing changes


def test_two_last_results_recorded_at_once_close_the_run(pg_url):
    """Two workers record a run's last two results at the same moment: whichever commits
    second sees the other's result and closes the run (the run's row is locked first;
    without it each could see the other's subproblem still leased, and neither close)."""
    import threading

    ledger = open_ledger(pg_url)
    for _ in range(12):
        run_id = make_run(ledger, "dominoes-4x5", depth=1)
        tasks = L.lease_batch(ledger, run_id, "t", 1000, 60)
        assert len(tasks) >= 2
        outcomes = [_solve(ledger, t) for t in tasks]
        L.record_results(ledger, outcomes[:-2])
        start = threading.Barrier(2)
        closed: list[bool] = []

        def last(outcome: Outcome) -> None:
            start.wait()
            closed.append(L.record_closing(ledger, run_id, [outcome])[1])

        threads = [threading.Thread(target=last, args=(o,)) for o in outcomes[-2:]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sorted(closed) == [False, True]
        run = L.get_run(ledger, run_id)
        assert (run.status, run.solutions) == ("done", 95)


def test_results_sent_together_write_what_one_at_a_time_writes(any_url):
    """The results that write only their row go past SQLAlchemy's execution — on
    PostgreSQL in one pipeline (``record_pipelined``), on SQLite by the driver's own
    cursor (``record_direct``): the rows equal those :func:`record` writes, column by
    column — a count past 2**64, a distinct count and none, the statistics —, the ones
    that donate are written beside them, and a result delivered twice in one batch is
    written once."""
    from dataclasses import replace

    from scheduler.ledger.results import record, record_all

    ledger = open_ledger(any_url)
    runs = [make_run(ledger, "dominoes-6x6", depth=3, node_budget=2000) for _ in range(2)]
    leased = [sorted(L.lease_batch(ledger, run_id, "t", 1000, 60), key=lambda t: t.path) for run_id in runs]
    outcomes = [_solve(ledger, t) for t in leased[0]]
    outcomes[0] = replace(outcomes[0], count=2**70 + 3, distinct=12)
    # the same results for the second run's subproblems (the same paths)
    solved = [outcomes, [replace(o, run_id=t.run_id, sub_id=t.sub_id) for o, t in zip(outcomes, leased[1])]]
    assert any(o.frontier for o in solved[0]) and any(not o.frontier for o in solved[0])
    with ledger.engine.begin() as conn:
        one_by_one = [record(conn, o) for o in solved[0]]
    together = L.record_results(ledger, solved[1] + solved[1][:1])
    assert [c is None for c in together] == [c is None for c in one_by_one] + [True]
    assert [len(c) for c in together[:-1]] == [len(c) for c in one_by_one]
    columns = ("path", "state", "count", "distinct", "nodes", "seconds", "stats", "done_num", "done_den", "done_f",
               "stopped_by", "n_donated", "worker", "lease_expires")

    def rows(run_id: int) -> list[tuple]:
        with ledger.session() as s:
            found = s.execute(select(*(getattr(Subproblem, c) for c in columns))
                              .where(Subproblem.run_id == run_id).order_by(Subproblem.path)).all()
        return [tuple(r) for r in found]

    assert rows(runs[0]) == rows(runs[1])
    assert any(r[columns.index("count")] == 2**70 + 3 for r in rows(runs[1]))
    with ledger.session() as s:  # the time each was written, read back as a time
        written = s.scalars(select(Subproblem.finished_at).where(Subproblem.run_id == runs[1],
                                                                 Subproblem.state == "done")).all()
    from scheduler.models import utcnow

    assert written and all(abs((utcnow() - t).total_seconds()) < 60 for t in written)
    with ledger.engine.begin() as conn:  # everything written already: nothing changes
        assert record_all(conn, solved[1]) == [None] * len(solved[1])


def test_a_message_leased_with_its_brief_in_one_pipeline(pg_url):
    """On PostgreSQL a process's second message of a run leases with the brief in one
    pipeline, its lease as long as the first's: the same tasks, in the message's order,
    leased once; a lease length changed meanwhile (a resume with other options) is set
    right; a run no longer running leases nothing."""
    import datetime as dt

    from sqlalchemy import update

    from scheduler.ledger import leases
    from scheduler.models import utcnow

    ledger = open_ledger(pg_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=4, executor="celery")
    with ledger.session() as s:
        ids = sorted(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id)))
    run, first = L.lease_message(ledger, run_id, ids[:3], "w")
    assert [t.sub_id for t in first] == ids[:3]
    assert leases._LEASE_SECONDS[run_id] == run.options.lease_seconds()
    wanted = [ids[6], ids[4], ids[1], ids[5], ids[4]]  # one leased already, one twice
    again, tasks = L.lease_message(ledger, run_id, wanted, "w")
    assert again == run
    assert [t.sub_id for t in tasks] == [ids[6], ids[4], ids[5]]
    with ledger.session() as s:
        rows = {r.id: r for r in s.scalars(select(Subproblem).where(Subproblem.id.in_(ids[:7])))}
    assert all(rows[i].state == "leased" and rows[i].attempts == 1 for i in ids[:7] if i != ids[3])
    expected = utcnow() + dt.timedelta(seconds=run.options.lease_seconds())
    assert abs((rows[ids[6]].lease_expires - expected).total_seconds()) < 5
    # a resume with another budget: the next lease is set to the new length at once
    with ledger.session() as s:
        options = dict(s.get(Run, run_id).options, budget=600.0)
        s.execute(update(Run).where(Run.id == run_id).values(options=options))
    changed, tasks = L.lease_message(ledger, run_id, [ids[7]], "w")
    assert [t.sub_id for t in tasks] == [ids[7]] and changed.options.lease_seconds() == 2 * 600.0 + 30.0
    with ledger.session() as s:
        expires = s.get(Subproblem, ids[7]).lease_expires
    assert abs((expires - (utcnow() + dt.timedelta(seconds=1230.0))).total_seconds()) < 5
    assert leases._LEASE_SECONDS[run_id] == 1230.0
    L.fail_run(ledger, run_id, "a path the solver rejected")  # its pending subproblems stay pending
    assert states(ledger, run_id)["pending"] > 0
    leased_before = states(ledger, run_id)["leased"]
    assert L.lease_message(ledger, run_id, [ids[8]], "w") == (None, [])
    assert states(ledger, run_id)["leased"] == leased_before


def test_a_lease_of_a_process_that_died_is_taken_by_the_message_delivered_again(any_url):
    """A Celery pool process killed under its task leaves its lease (an hour for a count
    by levels); the message delivered again to this host takes it over at once, where the
    owner is gone, never from a live process or another host; the third death under one
    subproblem fails the run, naming it (found: a share that crashed its worker left a run
    waiting an hour, 2026-12-03)."""
    import socket
    import subprocess
    import sys

    from scheduler.ledger import leases

    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=3, executor="celery")
    with ledger.session() as s:
        ids = sorted(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id)))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    host = socket.gethostname()
    dead, alive, elsewhere = f"celery:{host}:{gone.pid}", f"celery:{host}:{os.getpid()}", f"celery:other-host:{gone.pid}"
    for sub_id, owner in zip(ids[:3], (dead, alive, elsewhere)):
        assert [t.sub_id for t in L.lease_message(ledger, run_id, [sub_id], owner)[1]] == [sub_id]
    run, tasks = L.lease_message(ledger, run_id, ids[:4], "celery:new:1")
    assert [t.sub_id for t in tasks] == [ids[0], ids[3]]  # the dead one's and the free one
    with ledger.session() as s:
        row = s.get(Subproblem, ids[0])
        assert (row.lease_owner, row.attempts) == ("celery:new:1", 2)
    # died again and again under the same subproblem: the run fails, saying where
    for attempt in range(leases.CRASHES_ALLOWED - 1):
        with ledger.session() as s:
            s.execute(update(Subproblem).where(Subproblem.id == ids[0]).values(lease_owner=dead))
        tasks = L.lease_message(ledger, run_id, [ids[0]], "celery:new:1")[1]
        assert [t.sub_id for t in tasks] == ([ids[0]] if attempt < leases.CRASHES_ALLOWED - 2 else [])
    with ledger.session() as s:
        failed = s.get(Run, run_id)
        assert failed.status == "failed" and f"subproblem {ids[0]}" in failed.error and "died" in failed.error


def test_leases_that_expired_are_no_deaths(any_url):
    """A subproblem leased three times without a death — a worker stopped past its lease,
    the lease expired, the message sent again — then held by one pool process that died:
    the message delivered again takes it over, and the run goes on.  The run failed there
    ('3 worker processes died counting it', deaths read from the leases), found by the
    chaos soak (bench/chaos_soak.py); deaths are counted apart (``subproblems.deaths``)."""
    import socket
    import subprocess
    import sys

    from scheduler.ledger import leases

    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=3, executor="celery")
    with ledger.session() as s:
        sub_id = min(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id)))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    dead = f"celery:{socket.gethostname()}:{gone.pid}"
    for attempt in range(leases.CRASHES_ALLOWED):  # each lease expires; the last holder then dies
        owner = dead if attempt == leases.CRASHES_ALLOWED - 1 else f"celery:stopped-host:{attempt}"
        assert [t.sub_id for t in L.lease_message(ledger, run_id, [sub_id], owner)[1]] == [sub_id]
        if owner != dead:
            with ledger.session() as s:
                s.execute(update(Subproblem).where(Subproblem.id == sub_id).values(
                    lease_expires=Subproblem.lease_expires - dt.timedelta(hours=2)))
            assert L.expire_leases(ledger, run_id) == [sub_id]
    run, tasks = L.lease_message(ledger, run_id, [sub_id], "celery:new:1")
    assert [t.sub_id for t in tasks] == [sub_id]
    with ledger.session() as s:
        row = s.get(Subproblem, sub_id)
        assert (row.lease_owner, row.attempts, row.deaths) == ("celery:new:1", leases.CRASHES_ALLOWED + 1, 1)
        assert s.get(Run, run_id).status == "running"


def test_a_pipeline_the_database_drops_raises_an_outage_and_the_connection_is_replaced(pg_url):
    """Statements sent together (``scheduler/ledger/pipeline.py``) on a connection the
    database dropped: SQLAlchemy's ``OperationalError`` (what the commands and the
    scheduler take for an outage, not a traceback), and the next transaction gets a
    connection that works."""
    import psycopg
    from sqlalchemy.exc import OperationalError

    from scheduler.ledger.pipeline import pipelined

    ledger = open_ledger(pg_url)
    admin_url = pg_url.replace("postgresql+psycopg://", "postgresql://")
    with ledger.engine.connect() as conn:
        backend = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (backend,))
        time.sleep(0.1)
        with pytest.raises(OperationalError):
            pipelined(conn, [("SELECT %(x)s::int", [{"x": 1}])])
        assert conn.invalidated
    with ledger.engine.begin() as conn:
        assert pipelined(conn, [("SELECT %(x)s::int", [{"x": 1}, {"x": 2}])]) == [[[(1,)], [(2,)]]]
        assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() != backend
