"""Distributed speed-up and ledger overhead, by hand:

    .venv/bin/python bench/bench_distributed.py [--problem pentomino-6x10] [--subproblems 500]
        [--pg postgresql://postgres@127.0.0.1:5432/test] [--broker redis://127.0.0.1:6379/12]
        [--enumerate dominoes-6x8]

1. the single-process kernel on the whole problem (one ``solve``), wall seconds;
2. the same problem split into >= N subproblems, on two worker processes: the local
   process pool (SQLite ledger) and Celery (two ``tilecensus worker`` processes, the
   PostgreSQL ledger); speed-up = single / distributed, and the ledger overhead per
   subproblem = (workers x wall - seconds spent solving) / subproblems;
3. solutions persisted per second by an enumeration run, into SQLite and PostgreSQL.

Results go to stdout and bench/out/bench_distributed.json.  Needs PostgreSQL and Redis
for the Celery and PostgreSQL parts (skipped with --no-celery / --no-pg).
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def tc(*args: str, env: dict) -> dict:
    out = subprocess.run([sys.executable, "-m", "scheduler", *args, "--json", "--no-progress"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def env_for(db: str, broker: str | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TILECENSUS_DB_URL=db)
    if broker:
        env["TILECENSUS_BROKER_URL"] = broker
    return env


def overhead(run: dict, workers: int) -> float:
    return (workers * run["seconds"] - run["cpu_seconds"]) / max(1, run["subproblems"])


def fresh_pg(admin: str) -> tuple[str, str]:
    import psycopg

    name = f"tilecensus_bench_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, admin.rsplit("/", 1)[0] + "/" + name


def drop_pg(admin: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="pentomino-6x10")
    ap.add_argument("--subproblems", type=int, default=500)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--enumerate", default="dominoes-6x8", help="problem for the solutions-per-second part")
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--broker", default="redis://127.0.0.1:6379/12")
    ap.add_argument("--no-celery", action="store_true")
    ap.add_argument("--no-pg", action="store_true")
    args = ap.parse_args()
    results: dict = {"problem": args.problem, "workers": args.workers, "load": os.getloadavg()}

    from core.library import load

    solver = load(args.problem).solver()
    t = time.perf_counter()
    single = solver.solve(())
    results["single"] = {"seconds": time.perf_counter() - t, "solutions": single.count, "nodes": single.stats.nodes}
    print(f"single process: {single.count} solutions in {results['single']['seconds']:.2f} s")

    tmp = Path(tempfile.mkdtemp(prefix="tc-bench-"))
    sqlite = f"sqlite:///{tmp / 'ledger.sqlite'}"
    local = tc("solve", args.problem, "--subproblems", str(args.subproblems), "--workers", str(args.workers),
               env=env_for(sqlite))
    assert local["solutions"] == single.count, local
    results["local"] = {**local, "speedup": results["single"]["seconds"] / local["seconds"],
                        "overhead_per_subproblem": overhead(local, args.workers)}
    print(f"local pool x{args.workers}: {local['subproblems']} subproblems, {local['seconds']:.2f} s, "
          f"speed-up {results['local']['speedup']:.2f}, ledger overhead "
          f"{1000 * results['local']['overhead_per_subproblem']:.2f} ms/subproblem")

    pg_name = None
    if not args.no_pg:
        pg_name, pg = fresh_pg(args.pg)
    try:
        if not args.no_celery and not args.no_pg:
            queue = f"bench-{secrets.token_hex(3)}"
            env = env_for(pg, args.broker)
            subprocess.run([sys.executable, "-m", "scheduler", "db", "upgrade"], cwd=ROOT, env=env, check=True,
                           capture_output=True)
            workers = [subprocess.Popen([sys.executable, "-m", "scheduler", "worker", "-c", "1", "-Q", queue,
                                         "-l", "WARNING", "-n", f"bench{i}@%h"], cwd=ROOT, env=env,
                                        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                       for i in range(args.workers)]
            try:
                time.sleep(3)
                run = tc("submit", args.problem, "--subproblems", str(args.subproblems), "--queue", queue, "--wait",
                         env=env)
            finally:
                for w in workers:
                    os.killpg(w.pid, signal.SIGTERM)
                for w in workers:
                    w.wait(timeout=60)
            assert run["solutions"] == single.count, run
            results["celery"] = {**run, "speedup": results["single"]["seconds"] / run["seconds"],
                                 "overhead_per_subproblem": overhead(run, args.workers)}
            print(f"celery x{args.workers} (PostgreSQL): {run['subproblems']} subproblems, {run['seconds']:.2f} s, "
                  f"speed-up {results['celery']['speedup']:.2f}, ledger+queue overhead "
                  f"{1000 * results['celery']['overhead_per_subproblem']:.2f} ms/subproblem")

        targets = [("sqlite", f"sqlite:///{tmp / 'enum.sqlite'}")] + ([] if args.no_pg else [("postgresql", pg)])
        for label, url in targets:
            count = tc("solve", args.enumerate, "--workers", str(args.workers), env=env_for(url))
            enum = tc("solve", args.enumerate, "--all", "--limit", "0", "--workers", str(args.workers),
                      env=env_for(url))
            extra = enum["seconds"] - count["seconds"]
            results[f"enumerate_{label}"] = {
                "solutions": enum["solutions"], "seconds": enum["seconds"], "count_seconds": count["seconds"],
                "solutions_per_second": enum["solutions"] / enum["seconds"],
                "persist_per_second": enum["solutions"] / extra if extra > 0 else None,
            }
            print(f"enumerate {args.enumerate} into {label}: {enum['solutions']} solutions in {enum['seconds']:.2f} s "
                  f"({enum['solutions'] / enum['seconds']:,.0f}/s overall; counting alone {count['seconds']:.2f} s)")
    finally:
        if pg_name:
            drop_pg(args.pg, pg_name)
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_distributed.json").write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
