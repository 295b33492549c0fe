"""Two checkouts' Celery runs, alternating, on one machine, by hand:

    .venv/bin/python bench/bench_celery_alternating.py A=/path/to/old B=/path/to/new
        [--problem pentacubes-3x4x5] [--runs 16] [--pg postgresql://postgres@127.0.0.1:5432/test]
        [--broker redis://127.0.0.1:6379/12] [-- extra submit flags]

For a change to how Celery runs go (the ledger, the workers, the messages) whose effect is
a few percent — less than one run's noise here (the box's Celery run read 1.38-1.61 s
within minutes, 2026-11-28).  Each checkout gets two warm ``tilecensus worker -c 1``
processes on a queue and a fresh PostgreSQL database of its own (all four idle but for
the run in hand), then ``submit --wait`` runs alternate between the checkouts (A B, B A,
...), so a machine whose speed drifts affects both alike.  The first run of each is cold
(the workers build the solver) and left out.  Prints each checkout's median, mean and
best run seconds (the run's own: planning, workers, ledger), and B's median over A's.

A checkout needs its C extensions built (``setup.py build_ext --inplace``); the workers
and ``submit`` run with this interpreter, from the checkout's own directory.
"""
from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trees", nargs=2, metavar="NAME=PATH", help="the two checkouts")
    ap.add_argument("--problem", default="pentacubes-3x4x5")
    ap.add_argument("--runs", type=int, default=16, help="runs of each checkout, the first (cold) left out")
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--broker", default="redis://127.0.0.1:6379/12")
    ap.add_argument("flags", nargs="*", help="submit flags for every run (after --)")
    args = ap.parse_args()
    trees = dict(t.split("=", 1) for t in args.trees)
    if len(trees) != 2:
        raise SystemExit("two checkouts, named apart: NAME=PATH NAME=PATH")
    import psycopg

    sides, workers = {}, []
    try:
        for name, path in trees.items():
            root = str(Path(path).resolve())
            db = f"tilecensus_alternating_{name.lower()}_{secrets.token_hex(3)}"
            with psycopg.connect(args.pg, autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{db}"')
            env = dict(os.environ, PYTHONPATH=root, TILECENSUS_DB_URL=args.pg.rsplit("/", 1)[0] + "/" + db,
                       TILECENSUS_BROKER_URL=args.broker)
            subprocess.run([sys.executable, "-m", "scheduler", "db", "upgrade"], cwd=root, env=env, check=True,
                           capture_output=True)
            queue = f"alternating-{name.lower()}-{secrets.token_hex(3)}"
            workers += [subprocess.Popen([sys.executable, "-m", "scheduler", "worker", "-c", "1", "-Q", queue, "-l",
                                          "WARNING", "-n", f"alt{name}{i}@%h"], cwd=root, env=env,
                                         start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                        for i in range(2)]
            sides[name] = (root, env, queue, db)
        time.sleep(5)  # the workers connect before the first run
        seconds: dict[str, list[float]] = {name: [] for name in sides}
        counts = set()
        for k in range(args.runs):
            for name in (list(sides) if k % 2 == 0 else list(sides)[::-1]):
                root, env, queue, _ = sides[name]
                out = subprocess.run([sys.executable, "-m", "scheduler", "submit", args.problem, "--queue", queue,
                                      "--wait", "--json", "--no-progress", *args.flags], cwd=root, env=env,
                                     capture_output=True, text=True, check=True, start_new_session=True).stdout
                run = json.loads(out.strip().splitlines()[-1])
                counts.add(run["solutions"])
                seconds[name].append(run["seconds"])
        if len(counts) != 1:
            raise SystemExit(f"the checkouts counted differently: {sorted(counts)}")
        medians = {}
        for name, values in seconds.items():
            warm = values[1:]
            medians[name] = statistics.median(warm)
            print(f"{name}: median {medians[name]:.3f} s, mean {statistics.mean(warm):.3f} s, best {min(warm):.3f} s "
                  f"({len(warm)} warm runs: {' '.join(f'{v:.2f}' for v in values)})")
        a, b = list(sides)
        print(f"{b} / {a}, medians: {medians[b] / medians[a]:.3f} ({args.problem}, {counts.pop()} solutions)")
    finally:
        for w in workers:
            os.killpg(w.pid, signal.SIGTERM)
        for w in workers:
            w.wait(timeout=60)
        for _, _, _, db in sides.values():
            with psycopg.connect(args.pg, autocommit=True) as conn:
                conn.execute(f'DROP DATABASE IF EXISTS "{db}" WITH (FORCE)')


if __name__ == "__main__":
    main()
