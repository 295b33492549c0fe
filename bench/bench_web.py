"""The web page on a large ledger (by hand, never in CI): a run with a million stored
solutions in SQLite, and how long the solutions gallery, its JSON download, the API
and the run's page take on page 1, a page deep in the middle and the last page.

    .venv/bin/python bench/bench_web.py                  # 1,000,000 solutions
    .venv/bin/python bench/bench_web.py --solutions 200000 --repeat 3

The ledger: ``tilecensus solve pentomino-seed-5x5 --all`` (8 solutions), then its 8
solutions copied, cycled, to ``--solutions`` rows by one bulk insert (sqlite3
``executemany`` in one transaction).  Requests go through Starlette's test client (the
whole application: middleware, templates, the models' pictures), timed as the median of
``--repeat``; the process's peak memory is printed beside the ledger's size, to show the
table is never read whole.

Target (issue 23): every page answers in under 0.5 s at a million stored solutions, and
the process grows by far less than the solutions table.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

#: seconds one page may take at a million stored solutions
TARGET_SECONDS = 0.5


def build_ledger(path: str, n: int) -> int:
    """A SQLite ledger at ``path`` with one enumeration run holding ``n`` stored
    solutions; returns the run's id."""
    env = dict(os.environ, TILECENSUS_DB_URL=f"sqlite:///{path}")
    out = subprocess.run([sys.executable, "-m", "scheduler", "solve", "pentomino-seed-5x5", "--all", "--json",
                          "--no-progress", "--workers", "1"], env=env, check=True, capture_output=True, text=True)
    run_id = json.loads(out.stdout)["run_id"]
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT subproblem_id, options FROM solutions WHERE run_id = ? ORDER BY id",
                        (run_id,)).fetchall()
    more = n - len(rows)
    with conn:
        conn.executemany("INSERT INTO solutions (run_id, subproblem_id, options) VALUES (?, ?, ?)",
                         ((run_id, rows[i % len(rows)][0], rows[i % len(rows)][1]) for i in range(more)))
    conn.close()
    return run_id


def timed(client, url: str, repeat: int) -> tuple[float, int]:
    """Median seconds of ``repeat`` GETs of ``url``, and the response's size."""
    times, size = [], 0
    for _ in range(repeat):
        t = time.perf_counter()
        r = client.get(url)
        times.append(time.perf_counter() - t)
        if r.status_code != 200:
            raise SystemExit(f"{url}: HTTP {r.status_code}: {r.text[:200]}")
        size = len(r.content)
    return statistics.median(times), size


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--solutions", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    from starlette.testclient import TestClient

    from scheduler.db import open_reader
    from scheduler.web import create_app
    from scheduler.web.reading import PAGE_SIZE

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ledger.sqlite")
        t = time.perf_counter()
        run_id = build_ledger(path, args.solutions)
        built = time.perf_counter() - t
        print(f"ledger: {args.solutions:,} stored solutions, {os.path.getsize(path) / 1e6:,.0f} MB, "
              f"built in {built:.1f} s")
        rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        client = TestClient(create_app(open_reader(f"sqlite:///{path}")))
        pages = -(-args.solutions // PAGE_SIZE)
        middle = pages // 2
        urls = [
            ("gallery page 1", f"/runs/{run_id}/solutions?page=1"),
            (f"gallery page {middle:,} (middle)", f"/runs/{run_id}/solutions?page={middle}"),
            (f"gallery page {pages:,} (last)", f"/runs/{run_id}/solutions?page={pages}"),
            ("JSON download, middle page", f"/runs/{run_id}/solutions.json?page={middle}"),
            ("API solutions, offset in the middle", f"/api/runs/{run_id}/solutions?offset={args.solutions // 2}"),
            ("API show (counts stored solutions)", f"/api/runs/{run_id}"),
            ("run page", f"/runs/{run_id}"),
            ("runs page", "/runs"),
        ]
        worst = 0.0
        for label, url in urls:
            seconds, size = timed(client, url, args.repeat)
            worst = max(worst, seconds)
            print(f"{label:40s} {seconds * 1000:8.1f} ms  {size / 1000:8.1f} kB")
        rss_after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"slowest page {worst:.3f} s against the target {TARGET_SECONDS} s: "
              f"{'met' if worst < TARGET_SECONDS else 'MISSED'} ({TARGET_SECONDS / worst:.1f}x under)")
        print(f"peak memory {rss_before:,.0f} MB before the requests, {rss_after:,.0f} MB after "
              f"(the ledger file is {os.path.getsize(path) / 1e6:,.0f} MB)")
        client.close()


if __name__ == "__main__":
    main()
