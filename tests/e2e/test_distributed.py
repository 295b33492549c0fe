"""End to end: real Celery workers (subprocesses) on Redis, the ledger in PostgreSQL
(and SQLite); distributed counts equal the single-process counts, and faults — a worker
killed with -9, a task delivered twice, the scheduler stopped, Redis restarted, a
database that does not answer — change nothing but the time taken; a census summed from
two workers is the census of one."""
from __future__ import annotations

import datetime as dt
import json
import secrets
import signal
import subprocess
import time

import pytest
from sqlalchemy import func, select

from services import (
    SESSION_TAG, Processes, create_pg_database, drop_pg_database, redis_up, run_cli, start_redis,
)
from tc_helpers import finished_weight
from scheduler.db import open_ledger
from scheduler.ledger import progress
from scheduler.models import Solution, Subproblem

pytestmark = pytest.mark.e2e

SINGLE: dict[str, tuple[int, int | None]] = {}


def single_process(name: str, distinct: bool) -> tuple[int, int | None]:
    """The count (and distinct count) by one solver in this process, no ledger."""
    key = f"{name}:{distinct}"
    if key not in SINGLE:
        from core.library import load

        solver = load(name).solver(**({"distinct": True} if distinct else {}))
        r = solver.solve(())
        SINGLE[key] = (r.count, r.distinct)
    return SINGLE[key]


def wait_done(url: str, run_id: int, procs: Processes | None = None, timeout: float = 120) -> None:
    ledger = open_ledger(url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if progress(ledger, run_id).status != "running":
            return
        time.sleep(0.2)
    logs = ""
    if procs is not None:
        for p in procs.procs:
            logs += f"\n--- {p.args}\n" + open(p.log_path).read()[-3000:]
    raise AssertionError(f"run {run_id} did not finish: {progress(ledger, run_id)}{logs}")


def wait_until(condition, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out")
        time.sleep(0.05)


def submit(url: str, broker: str, queue: str, name: str, *args: str) -> int:
    out = run_cli("submit", name, "--queue", queue, "--json", "--no-progress", *args, db_url=url, broker=broker,
                  check=True).stdout
    return json.loads(out.splitlines()[0])["run_id"]


def check_run(url: str, run_id: int, name: str, distinct: bool = False, expected: int | None = None) -> dict:
    """The run is done, with the count one process finds (or the published ``expected``)."""
    show = json.loads(run_cli("show", str(run_id), "--json", db_url=url, check=True).stdout)
    total, dist = (expected, None) if expected is not None else single_process(name, distinct)
    assert show["status"] == "done", show
    assert show["solutions"] == total
    if distinct:
        assert show["distinct"] == dist
    assert finished_weight(open_ledger(url), run_id) == 1
    return show


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, pg_available, redis_available):
    """One PostgreSQL database, one queue, a worker (2 processes) and a scheduler."""
    name, url = create_pg_database()
    broker = "redis://127.0.0.1:6379/11"
    queue = f"tc-e2e-{SESSION_TAG}-{secrets.token_hex(3)}"
    run_cli("db", "upgrade", db_url=url, check=True)
    procs = Processes(tmp_path_factory.mktemp("cluster"))
    procs.worker(url, broker, queue, concurrency=2)
    procs.scheduler(url, broker)
    yield url, broker, queue, procs
    procs.stop_all()
    drop_pg_database(name)


@pytest.mark.parametrize(
    "name, distinct, args",
    [
        ("pentomino-6x10", True, ["--split-depth", "2"]),
        ("pentomino-6x10", True, ["--split-depth", "3", "--node-budget", "20000"]),
        ("dominoes-6x6", False, ["--split-depth", "4", "--node-budget", "40"]),
        ("dominoes-6x6", False, ["--subproblems", "500", "--budget", "0.0005"]),
        ("pentomino-6x10", True, ["--by-levels"]),  # one level count in a Celery worker
        ("dominoes-6x6", False, ["--by-levels", "--split-depth", "3"]),  # level counts below nodes
    ],
)
def test_distributed_equals_single_process(cluster, name, distinct, args):
    url, broker, queue, procs = cluster
    run_id = submit(url, broker, queue, name, *(["--distinct"] if distinct else []), *args)
    wait_done(url, run_id, procs)
    show = check_run(url, run_id, name, distinct)
    if "--node-budget" in args:
        assert show["subproblem_states"]["donated"] > 50  # frontier donated many times over


@pytest.mark.parametrize("args", [[], ["--level-shares", "3x2"]])
def test_a_count_by_levels_on_celery_workers(cluster, args):
    """A tiling counted by levels as shares on the workers (one share on the worker's two
    processes as threads, or three groups of moduli x two slices), past 2^128: the
    ledger's sum, modulo the moduli where there are groups, is Kasteleyn's count."""
    from known_tilings import kasteleyn

    url, broker, queue, procs = cluster
    run_id = submit(url, broker, queue, "dominoes-18x18", *args)
    wait_done(url, run_id, procs)
    show = check_run(url, run_id, "dominoes-18x18", expected=kasteleyn(18, 18))
    assert show["options"]["method"] == "levels"
    assert show["subproblems"] == (7 if args else 2)  # the root and its shares


def test_distinct_folds_by_levels_on_celery_workers(cluster):
    """The 10x10 domino board's classes by Burnside's lemma, split: the workers rebuild the
    folds each by the method the planner measured (``fold_methods``, levels for the half
    turn's), and the classes equal the count with every fold searched here."""
    from known_tilings import kasteleyn

    from core.engines import solver_for
    from core.library import load
    from core.solver_options import SolverOptions

    url, broker, queue, procs = cluster
    run_id = submit(url, broker, queue, "dominoes-10x10", "--distinct", "--split-depth", "2")
    wait_done(url, run_id, procs)
    show = check_run(url, run_id, "dominoes-10x10", expected=kasteleyn(10, 10))
    searched = solver_for(load("dominoes-10x10"), SolverOptions(distinct=True, burnside=8)).solve()
    assert show["distinct"] * 8 == searched.distinct
    assert "levels" in [m["method"] for m in show["options"]["fold_methods"]]


def test_enumeration_with_duplicate_deliveries(cluster):
    """Every task sent twice more: each solution is stored once."""
    from scheduler.celery_executor import CeleryExecutor

    url, broker, queue, procs = cluster
    run_id = submit(url, broker, queue, "dominoes-6x6", "--all", "--split-depth", "3", "--node-budget", "200")
    ledger = open_ledger(url)
    executor = CeleryExecutor(broker)
    with ledger.session() as s:
        ids = list(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id)))
    executor.dispatch(run_id, ids + ids, queue)
    wait_done(url, run_id, procs)
    check_run(url, run_id, "dominoes-6x6")
    with ledger.session() as s:
        sols = list(s.scalars(select(Solution.options).where(Solution.run_id == run_id)))
    assert len(sols) == len(set(sols)) == 6728


def freshly_leased(ledger, run_id: int, lease: float, within: float) -> bool:
    """Whether a subproblem of the run was leased in the last ``within`` seconds (so its
    task is still running when the test acts at once)."""
    from scheduler.models import utcnow

    soon = utcnow() + dt.timedelta(seconds=lease - within)
    with ledger.session() as s:
        return s.scalar(select(func.count()).where(
            Subproblem.run_id == run_id, Subproblem.state == "leased", Subproblem.lease_expires > soon)) > 0


def test_a_real_worker_announces_its_processes_and_a_run_is_planned_for_them(cluster):
    """The cluster's worker (two pool processes) is counted on its queue; submit plans for
    two — a message each, the rest left in the ledger, pulled — and the count is exact;
    a worker stopped withdraws its processes."""
    import redis

    from scheduler.workforce import workforce

    url, broker, queue, procs = cluster
    client = redis.Redis.from_url(broker)
    wait_until(lambda: workforce(client, queue) == 2)
    out = run_cli("submit", "pentomino-6x10", "--by-search", "--split-depth", "2", "--queue", queue, "--json",
                  "--no-progress", db_url=url, broker=broker, check=True).stdout
    submitted = json.loads(out.splitlines()[0])
    assert submitted["workers"] == 2 and submitted["messages"] <= 2 and submitted["held"] > 0
    wait_done(url, submitted["run_id"], procs)
    check_run(url, submitted["run_id"], "pentomino-6x10", expected=9356)
    extra = procs.worker(url, broker, queue, concurrency=1)
    wait_until(lambda: workforce(client, queue) == 3)
    procs.kill(extra, signal.SIGTERM)
    wait_until(lambda: workforce(client, queue) == 2)


def test_kill_9_a_worker_mid_run(pg_url, broker_url, queue, processes):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    doomed = processes.worker(pg_url, broker_url, queue, concurrency=1)
    processes.scheduler(pg_url, broker_url)
    # the pentacube box (~15 s of search): every task runs its whole 0.3 s budget, so a task
    # leased just now is mid-search (the 6x10's subproblems, memoised, end in milliseconds)
    run_id = submit(pg_url, broker_url, queue, "pentacubes-3x4x5", "--split-depth", "1",
                    "--budget", "0.3", "--lease", "3")
    ledger = open_ledger(pg_url)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        p = progress(ledger, run_id)
        if p.states.get("done", 0) >= 2 and freshly_leased(ledger, run_id, lease=3.0, within=0.1):
            break
        time.sleep(0.01)
    processes.kill(doomed)  # kill -9, the worker and its pool, mid-task (a task runs its 0.3 s budget)
    processes.worker(pg_url, broker_url, queue, concurrency=2)
    wait_done(pg_url, run_id, processes)
    check_run(pg_url, run_id, "pentacubes-3x4x5", expected=31_520)  # 3,940 up to the box's 8 symmetries
    with ledger.session() as s:
        assert s.scalar(select(func.max(Subproblem.attempts)).where(Subproblem.run_id == run_id)) >= 2


def test_scheduler_stopped_then_resume(pg_url, broker_url, queue, processes):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    w = processes.worker(pg_url, broker_url, queue, concurrency=1)
    sched = processes.scheduler(pg_url, broker_url)
    run_id = submit(pg_url, broker_url, queue, "pentomino-6x10", "--distinct", "--split-depth", "2",
                    "--node-budget", "50000", "--lease", "2")
    ledger = open_ledger(pg_url)
    wait_until(lambda: progress(ledger, run_id).states.get("done", 0) >= 3)
    processes.kill(sched)
    processes.kill(w)  # its leases are orphaned, nobody keeps the run moving
    time.sleep(0.5)
    assert progress(ledger, run_id).status == "running"
    processes.worker(pg_url, broker_url, queue, concurrency=2)
    out = run_cli("resume", str(run_id), "--json", "--no-progress", db_url=pg_url, broker=broker_url,
                  timeout=180, check=True).stdout
    data = json.loads(out.splitlines()[-1])
    assert (data["status"], data["solutions"], data["distinct"]) == ("done", 9356, 2339)
    check_run(pg_url, run_id, "pentomino-6x10", distinct=True)


def test_redis_restarted_mid_run(pg_url, broker_url, queue, processes):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    processes.worker(pg_url, broker_url, queue, concurrency=2)
    processes.scheduler(pg_url, broker_url, interval=0.3, grace=1.0)
    run_id = submit(pg_url, broker_url, queue, "pentomino-6x10", "--distinct", "--split-depth", "3",
                    "--node-budget", "20000", "--lease", "3")
    ledger = open_ledger(pg_url)
    wait_until(lambda: progress(ledger, run_id).states.get("done", 0) >= 5)
    try:
        subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", "6379", "shutdown", "nosave"], capture_output=True)
        for _ in range(200):
            if not redis_up():
                break
            time.sleep(0.05)
        assert not redis_up()
        time.sleep(0.5)
    finally:
        start_redis()
    wait_done(pg_url, run_id, processes, timeout=150)
    check_run(pg_url, run_id, "pentomino-6x10", distinct=True)


def test_celery_on_a_sqlite_ledger(sqlite_url, broker_url, queue, processes):
    run_cli("db", "upgrade", db_url=sqlite_url, check=True)
    processes.worker(sqlite_url, broker_url, queue, concurrency=2)
    run_id = submit(sqlite_url, broker_url, queue, "dominoes-6x6", "--split-depth", "3", "--node-budget", "100")
    out = run_cli("watch", str(run_id), "--json", "--no-progress", "--interval", "0.2", db_url=sqlite_url,
                  timeout=120, check=True).stdout
    assert json.loads(out)["solutions"] == 6728
    check_run(sqlite_url, run_id, "dominoes-6x6")


def test_unreachable_database_and_broker(tmp_path, broker_url, queue):
    bad_db = "postgresql://postgres@127.0.0.1:1/nothing"
    for args in (["submit", "dominoes-4x5", "--queue", queue], ["worker", "--queues", queue],
                 ["scheduler", "--once"], ["watch", "1"]):
        r = run_cli(*args, db_url=bad_db, broker=broker_url, timeout=60)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and "cannot reach the database" in r.stderr, r
    sqlite = f"sqlite:///{tmp_path / 'l.sqlite'}"
    r = run_cli("submit", "dominoes-4x5", "--json", db_url=sqlite, broker="redis://127.0.0.1:1/0", timeout=60)
    assert r.returncode == 2 and "cannot reach the broker" in r.stderr and r.stderr.count("\n") == 1, r
    assert not (tmp_path / "l.sqlite").exists()  # nothing written: not even an empty ledger
    r = run_cli("runs", "--json", db_url=sqlite)
    assert r.returncode == 2 and "no ledger at" in json.loads(r.stderr)["error"], r


def census_of(url: str, run_id: int) -> dict:
    """``census RUN --json`` without what differs between two runs of one problem."""
    shown = json.loads(run_cli("census", str(run_id), "--json", db_url=url, check=True).stdout)
    return {k: v for k, v in shown.items() if k not in ("run_id", "subproblems")}


@pytest.mark.parametrize("args", [["--split-depth", "2"], ["--subproblems", "300", "--no-symmetry"]])
def test_a_census_on_two_celery_workers_equals_one_local_worker(pg_url, broker_url, queue, processes, args):
    """Each subproblem's census taken on one of two workers and summed in the ledger: the
    run's census (every heatmap, forced and impossible placement) is the census of the
    same count on one local worker."""
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    import redis

    from scheduler.workforce import workforce

    processes.worker(pg_url, broker_url, queue, concurrency=1)
    processes.worker(pg_url, broker_url, queue, concurrency=1)
    processes.scheduler(pg_url, broker_url)
    # both up before the run: a submit quicker than the second worker's start (0.4 s without
    # SQLAlchemy and Celery) left the whole run to the first, which pulls it from the ledger
    wait_until(lambda: workforce(redis.Redis.from_url(broker_url), queue) == 2)
    run_id = submit(pg_url, broker_url, queue, "pentomino-6x10", "--census", *args)
    wait_done(pg_url, run_id, processes)
    show = check_run(pg_url, run_id, "pentomino-6x10")
    assert len(show["workers"]) == 2, show["workers"]  # both workers took their share
    local = json.loads(run_cli("solve", "pentomino-6x10", "--census", "--workers", "1", "--json", "--no-progress",
                               db_url=pg_url, check=True).stdout)["run_id"]
    assert census_of(pg_url, run_id) == census_of(pg_url, local)
