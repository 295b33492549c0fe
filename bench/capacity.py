"""Capacity: how many workers one PostgreSQL ledger and one Redis broker hold.

    .venv/bin/python bench/capacity.py --db postgresql://postgres@127.0.0.1:5432/capacity40 \\
        --broker redis://127.0.0.1:6379/10 [--workers 8,32,64] [--board 6x8] [--depth 16] \\
        [--pad 0.05] [--queue capacity] [--json]
    .venv/bin/python bench/capacity.py --db postgresql://.../capacity40m --broker redis://... --million

For each worker count N it starts N light worker processes (forked from this one, each
a real Celery worker of the project — ``worker.app`` with the solo pool, one process,
announced on the queue as ``tilecensus worker`` announces its pool processes — whose
ledger engine holds one connection), submits a domino count with ``tilecensus submit
dominoes-RxC --by-search --no-memo --no-symmetry --no-estimate --split-depth D`` (every
tiling visited; the tree split into thousands of real subproblems), and lets the
project's own code do the rest: the first N subproblems go out as Celery messages on
Redis, the workers lease them, solve them, record them and pull the rest from the
ledger in parcels (:mod:`scheduler.celery_messages`, :mod:`scheduler.ledger.pulls`).

Each subproblem is solved for real (its count is exact) and then *padded*: the worker
sleeps until ``--pad`` seconds have passed since the search began, and reports that
time as the search's, so that the run's rates and parcel sizes are those of
subproblems of that size.  A sleeping worker takes no core: N workers on two cores
drive the ledger and the broker as N workers on N cores would (what they cost the
machine beside their searches — Python, their own exchanges — is measured too).

Meanwhile this process runs the scheduler's round (:func:`scheduler.scheduler_round.tick`)
every second, timed.  Printed per worker count: results recorded per second (over the
run, submit to close), the latency of the workers' leases (a message's) and pulls
(median, p99), of their other recording transactions, the scheduler's round time, and
the CPU seconds of the PostgreSQL backends serving this database, of all PostgreSQL
processes, and of Redis (``/proc/PID/stat``; the server processes are shared with
whatever else the machine runs, see the load printed) — and the run's total checked
against Kasteleyn's formula (``tests/known_tilings.py``).

``--million`` instead writes a run of 2**20 subproblems straight into the ledger (``COPY``;
each a real leaf path of 20 independent binary choices with its exact result, a sample
solved again by the kernel), lets the scheduler's round close it (``tilecensus scheduler
--once``), reads it with ``tilecensus show`` and the web page (its JSON API and run page,
in-process) and prints each one's peak RSS beside ``tilecensus runs``'s, and the total
against 2**20.  Give it a database of its own: the round goes over every running run.

PostgreSQL's ``max_connections`` bounds N: each worker holds one connection (two at the
moment its listening thread hands work back), so a worker count that would pass the
connections left free (less a margin of 10) is skipped, and said so.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import replace
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def kasteleyn(m: int, n: int) -> int:
    """``tests/known_tilings.py``'s Kasteleyn formula, loaded from its file (with
    ``tests/`` on ``sys.path`` its ``core`` folder hid ``core.data`` from the workers)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("known_tilings", ROOT / "tests" / "known_tilings.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kasteleyn(m, n)

TICKS = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------- workers

def _timed(log_fd: int, kind: str, fn):
    def wrapper(*args, **kwargs):
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            os.write(log_fd, f"{kind} {time.perf_counter() - t0:.6f}\n".encode())
    return wrapper


def _patch_worker(pad: float, log_path: str) -> None:
    """In a worker process: one pooled connection; searches padded to ``pad`` seconds;
    the ledger exchanges timed into ``log_path``."""
    import sqlalchemy

    import scheduler.celery_messages as M
    import scheduler.db as D

    def one_connection(*args, **kwargs):
        if "pool_size" in kwargs:
            kwargs.update(pool_size=1, max_overflow=0, pool_timeout=120)
        return sqlalchemy.create_engine(*args, **kwargs)

    D.create_engine = one_connection
    real_solve = M.solve_task

    def padded(solver, task, mode, options):
        t0 = time.perf_counter()
        outcome = real_solve(solver, task, mode, options)
        spent = time.perf_counter() - t0
        if spent < pad:
            time.sleep(pad - spent)
        return replace(outcome, seconds=max(outcome.seconds, pad))

    M.solve_task = padded
    fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    M.lease_message = _timed(fd, "lease", M.lease_message)
    M.pull = _timed(fd, "pull", M.pull)
    M.record_results = _timed(fd, "record", M.record_results)
    M.record_closing = _timed(fd, "record", M.record_closing)


def _worker_main(index: int, db_url: str, broker_url: str, queue: str, pad: float, log_path: str) -> None:
    os.environ["TILECENSUS_DB_URL"] = db_url
    os.environ["TILECENSUS_BROKER_URL"] = broker_url
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = os.open(f"{log_path}.worker{index}", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(out, 1)  # Celery's banner and warnings, and any error, in a log of its own
    os.dup2(out, 2)
    _patch_worker(pad, log_path)
    import redis

    from scheduler.workforce import Announcement
    from worker.app import app

    app.conf.broker_url = broker_url
    announcement = Announcement(redis.Redis.from_url(broker_url, socket_timeout=5), [queue]).start()
    try:
        app.worker_main(["worker", "--pool=solo", "-Q", queue, "--loglevel=ERROR", "--without-gossip",
                         "--without-mingle", "--without-heartbeat", "-n", f"cap{index}@%h"])
    finally:
        announcement.stop()


# ---------------------------------------------------------------------------- measuring

def _cpu(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid``; 0 once it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def _pids_named(name: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == name:
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def _backends(engine, database: str) -> list[int]:
    from sqlalchemy import text

    with engine.connect() as conn:
        return [r[0] for r in conn.execute(text("SELECT pid FROM pg_stat_activity WHERE datname = :d AND pid <> "
                                                "pg_backend_pid()"), {"d": database})]


def _free_connections(engine) -> int:
    from sqlalchemy import text

    with engine.connect() as conn:
        most = int(conn.execute(text("SHOW max_connections")).scalar())
        used = int(conn.execute(text("SELECT count(*) FROM pg_stat_activity")).scalar())
    return most - used


def _quantiles(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    values = sorted(values)
    return statistics.median(values), values[min(len(values) - 1, int(0.99 * len(values)))]


def _rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total / 1024


def measure(n: int, args, ledger, executor, log_dir: Path) -> dict:
    """One configuration: ``n`` workers, one run."""
    from sqlalchemy import text

    from scheduler.scheduler_round import tick

    ctx = mp.get_context("fork")
    log_path = log_dir / f"exchanges-{n}.log"
    log_path.unlink(missing_ok=True)
    executor.requests  # noqa: B018  (connected before forking is fine: the workers make their own)
    procs = [ctx.Process(target=_worker_main, args=(i, args.db, args.broker, args.queue, args.pad, str(log_path)), daemon=True)
             for i in range(n)]
    started = time.monotonic()
    for p in procs:
        p.start()
    try:
        deadline = time.monotonic() + 60 + n
        while (executor.workforce(args.queue) or 0) < n:
            if time.monotonic() > deadline:
                raise RuntimeError(f"only {executor.workforce(args.queue)} of {n} workers announced themselves")
            time.sleep(0.2)
        time.sleep(1.0)  # the last ones' Celery consumers start
        _say(f"{n} workers announced in {time.monotonic() - started:.1f} s")
        rows, cols = (int(x) for x in args.board.split("x"))
        env = dict(os.environ, TILECENSUS_DB_URL=args.db, TILECENSUS_BROKER_URL=args.broker)
        pg_all = {pid: _cpu(pid) for pid in _pids_named("postgres")}
        redis_pids = _pids_named("redis-server")
        redis0 = sum(_cpu(pid) for pid in redis_pids)
        load0 = os.getloadavg()[0]
        t_submit = time.monotonic()
        out = subprocess.run([sys.executable, "-m", "scheduler", "submit", f"dominoes-{args.board}", "--by-search",
                              "--no-memo", "--no-symmetry", "--no-estimate", "--split-depth", str(args.depth),
                              "--queue", args.queue, "--json"], env=env, capture_output=True, text=True, check=True)
        submitted = json.loads(out.stdout)
        run_id = submitted["run_id"]
        t_sent = time.monotonic()
        _say(f"run {run_id} submitted in {t_sent - t_submit:.1f} s: {submitted['subproblems']} subproblems")
        backends = {pid: _cpu(pid) for pid in _backends(ledger.engine, args.database)}
        workers0 = sum(_cpu(p.pid) for p in procs)
        rounds: list[float] = []
        status = "running"
        with ledger.engine.connect() as conn:
            while True:
                t0 = time.perf_counter()
                tick(ledger, executor, grace=30.0, run_ids=[run_id])
                rounds.append(time.perf_counter() - t0)
                status = conn.execute(text("SELECT status FROM runs WHERE id = :r"), {"r": run_id}).scalar()
                conn.rollback()
                if status != "running" or time.monotonic() - t_sent > args.timeout:
                    break
                time.sleep(args.interval)
            t_end = time.monotonic()
            final_backends = _backends(ledger.engine, args.database)
            pg_ours = sum(_cpu(pid) - backends.get(pid, 0.0) for pid in set(final_backends) | set(backends))
            pg_total = sum(_cpu(pid) - pg_all.get(pid, 0.0) for pid in _pids_named("postgres"))
            redis_cpu = sum(_cpu(pid) for pid in redis_pids) - redis0
            workers_mb = _rss_mb([p.pid for p in procs])
            workers_cpu = sum(_cpu(p.pid) for p in procs) - workers0
            row = conn.execute(text("SELECT solutions, (SELECT count(*) FROM subproblems WHERE run_id = :r), "
                                    "(SELECT count(*) FROM subproblems WHERE run_id = :r AND state = 'done') "
                                    "FROM runs WHERE id = :r"), {"r": run_id}).one()
            weight = sum((Fraction(int(a), int(b)) for a, b in conn.execute(
                text("SELECT done_num, done_den FROM subproblems WHERE run_id = :r AND state = 'done'"), {"r": run_id})),
                Fraction(0))
        # the run's own span: from its first lease to its close
        wall = t_end - t_sent
        done = int(row[2])
        exchanges: dict[str, list[float]] = {"lease": [], "pull": [], "record": []}
        for line in log_path.read_text().splitlines():
            kind, seconds = line.split()
            exchanges[kind].append(float(seconds))
        expected = kasteleyn(rows, cols)
        total = None if row[0] is None else int(row[0])
        lease_q, pull_q, rec_q, round_q = (_quantiles(exchanges["lease"]), _quantiles(exchanges["pull"]),
                                           _quantiles(exchanges["record"]), _quantiles(rounds))
        n_ex = sum(len(v) for v in exchanges.values())
        errors = sum(path.read_text(errors="replace").count("Traceback")
                     for path in log_dir.glob(f"{log_path.name}.worker*"))
        return {
            "workers": n, "run_id": run_id, "status": status, "subproblems": int(row[1]), "done": done,
            "submit_s": round(t_sent - t_submit, 2), "seconds": round(wall, 2),
            "results_per_s": round(done / wall, 1), "ideal_per_s": round(n / args.pad, 1),
            "exchanges": n_ex, "exchanges_per_s": round(n_ex / wall, 1),
            "lease_ms": [_ms(x) for x in lease_q], "pull_ms": [_ms(x) for x in pull_q],
            "record_ms": [_ms(x) for x in rec_q], "round_ms": [_ms(x) for x in round_q],
            "pulls": len(exchanges["pull"]), "leases": len(exchanges["lease"]),
            "pg_cpu_ours_s": round(pg_ours, 2), "pg_cpu_all_s": round(pg_total, 2),
            "pg_ms_per_result": round(1000 * pg_ours / max(done, 1), 3),
            "pg_core_share": round(pg_ours / wall, 2),
            "redis_cpu_s": round(redis_cpu, 2), "redis_core_share": round(redis_cpu / wall, 3),
            "workers_pss_mb": round(workers_mb), "workers_cpu_s": round(workers_cpu, 2),
            "worker_ms_per_result": round(1000 * workers_cpu / max(done, 1), 2),
            "results_per_pull": round(done / max(1, len(exchanges["pull"])), 2), "load_before": round(load0, 2),
            "load_after": round(os.getloadavg()[0], 2),
            "worker_errors": errors, "total": total, "expected": expected, "exact": total == expected,
            "weights_sum_1": weight == 1,
        }
    finally:
        for p in procs:
            if p.is_alive():
                os.kill(p.pid, signal.SIGTERM)
        stop = time.monotonic() + 15
        for p in procs:
            p.join(max(0.1, stop - time.monotonic()))
            if p.is_alive():
                p.kill()
                p.join(2)


def _say(text: str) -> None:
    print(f"capacity: {text}", file=sys.stderr, flush=True)


def _ms(x: float | None) -> float | None:
    return None if x is None else round(1000 * x, 2)


def _table(rows: list[dict]) -> str:
    head = ("workers", "subs", "s", "results/s", "ideal/s", "lease ms p50/p99", "pull ms p50/p99", "record ms p50/p99",
            "round ms p50/p99", "PG cpu (ours/all) s", "PG ms/result", "PG cores", "Redis cpu s", "workers cpu s", "worker ms/result",
            "results/pull", "load", "exact")
    lines = [" | ".join(head)]
    for r in rows:
        if "skipped" in r:
            lines.append(f"{r['workers']} | skipped: {r['skipped']}")
            continue

        def q(v):
            return "-" if v[0] is None else f"{v[0]:.1f}/{v[1]:.1f}"
        lines.append(" | ".join(str(x) for x in (
            r["workers"], r["subproblems"], r["seconds"], r["results_per_s"], r["ideal_per_s"], q(r["lease_ms"]),
            q(r["pull_ms"]), q(r["record_ms"]), q(r["round_ms"]), f"{r['pg_cpu_ours_s']}/{r['pg_cpu_all_s']}",
            r["pg_ms_per_result"], r["pg_core_share"], r["redis_cpu_s"], r["workers_cpu_s"],
            r["worker_ms_per_result"], r["results_per_pull"], f"{r['load_before']}->{r['load_after']}",
            f"{r['total']} {'==' if r['exact'] else '!='} {r['expected']}")))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- a million subproblems

#: the million's problem: 20 independent binary choices, 2**20 solutions; split at depth
#: 20, every subproblem is a leaf holding one solution, of weight 2**-20
MILLION_ITEMS = 20

_WEB_PROBE = """
import json, resource, sys, time
from starlette.testclient import TestClient
from scheduler.db import open_reader
from scheduler.web import create_app
client = TestClient(create_app(open_reader(sys.argv[1])))
out = {}
for url in ("/api/runs/" + sys.argv[2], "/runs/" + sys.argv[2]):
    t0 = time.perf_counter()
    response = client.get(url)
    out[url] = [response.status_code, round(time.perf_counter() - t0, 2)]
out["solutions"] = client.get("/api/runs/" + sys.argv[2]).json().get("solutions")
out["peak_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
print(json.dumps(out))
"""


def _peak(command: list[str], env: dict) -> tuple[float, float, str]:
    """Run ``command``: its peak RSS (MB, from ``wait4``), its seconds, its output."""
    t0 = time.monotonic()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ... failed ({proc.returncode}): {out[-2000:]}")
    return usage.ru_maxrss / 1024, time.monotonic() - t0, out


def million(args, ledger) -> dict:
    """A run of 2**20 subproblems written straight into the ledger (COPY), each a real
    leaf path of a tiny exact cover with its exact result (one solution; a sample solved
    again by the kernel to check), then closed by the scheduler's round (``tilecensus
    scheduler --once``) and read by ``show`` and the web page (its JSON API and run page,
    in-process): each one's peak RSS, and the total against 2**20."""
    import datetime as dt
    import random
    import tempfile

    from scheduler.codec import path_of, path_text
    from scheduler.ledger import run_spec
    from scheduler.run_options import Mode, RunOptions
    from scheduler.work import Task, build_solver, solve_task

    k = MILLION_ITEMS
    env = dict(os.environ, TILECENSUS_DB_URL=args.db, TILECENSUS_BROKER_URL=args.broker)
    tilecensus = [sys.executable, "-m", "scheduler"]
    with tempfile.TemporaryDirectory() as tmp:
        problem = Path(tmp) / f"choices{k}.dlx"
        items = " ".join(f"x{i}" for i in range(k)) + " | " + " ".join(f"a{i} b{i}" for i in range(k))
        problem.write_text(f"| {k} independent binary choices: 2**{k} solutions\n{items}\n"
                           + "".join(f"x{i} a{i}\nx{i} b{i}\n" for i in range(k)))
        out = subprocess.run(tilecensus + ["submit", str(problem), "--no-memo", "--no-symmetry", "--no-estimate",
                                           "--split-depth", "2", "--queue", f"{args.queue}-million-unserved", "--json"],
                             env=env, capture_output=True, text=True, check=True)
    run_id = json.loads(out.stdout)["run_id"]
    from sqlalchemy import text

    with ledger.engine.begin() as conn:
        planned = sorted(path_of(r[0]) for r in conn.execute(text("SELECT path FROM subproblems WHERE run_id = :r"),
                                                               {"r": run_id}))
        if planned != [(0, 2), (0, 3), (1, 2), (1, 3)]:
            raise RuntimeError(f"the planned split is not the one assumed: {planned}")
        options = RunOptions.from_json(conn.execute(text("SELECT options FROM runs WHERE id = :r"),
                                                    {"r": run_id}).scalar())
    _, solver = build_solver(run_spec(ledger, run_id), options)
    weight = Fraction(1, 2 ** k)
    rng = random.Random(1)
    for bits in [0, 2 ** k - 1] + [rng.randrange(2 ** k) for _ in range(20)]:  # the leaves are what they seem
        path = tuple(2 * i + (bits >> i & 1) for i in range(k))
        outcome = solve_task(solver, Task(run_id, 0, path, weight), Mode.COUNT, options)
        assert outcome.count == 1 and outcome.weight_done == weight and not outcome.frontier, outcome
    t0 = time.monotonic()
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    driver = ledger.engine.raw_connection()
    try:
        with driver.cursor() as cur:
            cur.execute("DELETE FROM subproblems WHERE run_id = %s", (run_id,))
            columns = ("run_id, path, depth, weight_num, weight_den, weight_f, state, attempts, count, nodes, seconds, "
                       "done_num, done_den, done_f, n_donated, worker, finished_at")
            with cur.copy(f"COPY subproblems ({columns}) FROM STDIN") as copy:
                for bits in range(2 ** k):
                    path = path_text([2 * i + (bits >> i & 1) for i in range(k)])
                    copy.write_row((run_id, path, k, "1", str(2 ** k), float(weight), "done", 1, "1", k, 1e-5,
                                    "1", str(2 ** k), float(weight), 0, "million", now))
            cur.execute("UPDATE runs SET n_planned = %s WHERE id = %s", (2 ** k, run_id))
            cur.execute("ANALYZE subproblems")
        driver.commit()
    finally:
        driver.close()
    inserted = time.monotonic() - t0
    _say(f"million: run {run_id}, {2 ** k:,} subproblems written in {inserted:.1f} s")
    row = {"run_id": run_id, "subproblems": 2 ** k, "insert_s": round(inserted, 1)}
    base, _, _ = _peak(tilecensus + ["runs", "--json"], env)
    row["runs_peak_mb"] = round(base)
    peak, seconds, out = _peak(tilecensus + ["scheduler", "--once", "--json"], env)
    row["round_peak_mb"], row["round_s"] = round(peak), round(seconds, 1)
    peak, seconds, out = _peak(tilecensus + ["show", str(run_id), "--json"], env)
    shown = json.loads(out)
    row["show_peak_mb"], row["show_s"] = round(peak), round(seconds, 1)
    row["status"], row["total"] = shown.get("status"), shown.get("solutions")
    peak, seconds, out = _peak([sys.executable, "-c", _WEB_PROBE, args.db, str(run_id)], env)
    web = json.loads(out.splitlines()[-1])
    row["web_peak_mb"], row["web_s"], row["web"] = web["peak_mb"], round(seconds, 1), web
    row["exact"] = row["total"] == 2 ** k and row["status"] == "done" and web["solutions"] == 2 ** k
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", required=True, help="a PostgreSQL ledger URL (its database is used by this alone)")
    parser.add_argument("--broker", required=True, help="a Redis URL (its database number is used by this alone)")
    parser.add_argument("--workers", default="8,32,64", help="comma-separated worker counts")
    parser.add_argument("--board", default="6x8", help="the domino board RxC")
    parser.add_argument("--depth", type=int, default=16, help="the split depth (6x8 at 16: 8,064 subproblems)")
    parser.add_argument("--pad", type=float, default=0.05, help="seconds each subproblem takes (padded)")
    parser.add_argument("--queue", default="capacity", help="the Celery queue (this alone serves it)")
    parser.add_argument("--interval", type=float, default=1.0, help="seconds between the scheduler's rounds")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds a run may take")
    parser.add_argument("--million", action="store_true",
                        help="instead: a run of 2**20 subproblems written into the ledger, closed by the scheduler's "
                             "round and read by show and the web page; their peak memory")
    parser.add_argument("--json", action="store_true", help="print the rows as one JSON line, last")
    args = parser.parse_args(argv)
    from sqlalchemy.engine import make_url

    from scheduler.celery_executor import CeleryExecutor
    from scheduler.db import open_ledger

    args.database = make_url(args.db).database
    ledger = open_ledger(args.db)
    executor = CeleryExecutor(args.broker)
    log_dir = Path(os.environ.get("TMPDIR", "/tmp")) / f"capacity-{os.getpid()}"
    log_dir.mkdir(parents=True, exist_ok=True)
    if args.million:
        row = million(args, ledger)
        print("\n".join(f"{key:14} {value}" for key, value in row.items()))
        if args.json:
            print(json.dumps(row))
        return 0 if row["exact"] else 1
    rows = []
    for n in (int(x) for x in args.workers.split(",")):
        free = _free_connections(ledger.engine) - 10
        if n > free:
            rows.append({"workers": n, "skipped": f"PostgreSQL has {free + 10} connections free (max_connections), "
                                                  f"{n} workers want {n} + a margin of 10"})
            print(_table(rows[-1:]), flush=True)
            continue
        ledger.engine.dispose()  # no pooled connection crosses the fork
        rows.append(measure(n, args, ledger, executor, log_dir))
        print(_table(rows[-1:]), flush=True)
    print(f"\nload average {os.getloadavg()}; {os.cpu_count()} CPUs; pad {args.pad} s a subproblem;"
          f" dominoes-{args.board} split at depth {args.depth}")
    print(_table(rows))
    if args.json:
        print(json.dumps(rows))
    return 0 if all(r.get("exact", True) and r.get("weights_sum_1", True) for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
