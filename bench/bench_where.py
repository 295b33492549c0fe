"""``solutions RUN --where`` on a million stored solutions (by hand, never in CI), on
SQLite and PostgreSQL: each query's count and first page through the options index,
beside the same answer by a scan of every stored solution, and the whole command.

    .venv/bin/python bench/bench_where.py                       # both ledgers, 1,000,000
    .venv/bin/python bench/bench_where.py --backend sqlite --solutions 200000

The ledger: ``tilecensus solve pentomino-6x10 --all`` (9,356 solutions, stored with
their index rows), then its solutions cycled to ``--solutions`` rows of the same run,
written in bulk with explicit ids (sqlite3 ``executemany`` / PostgreSQL ``COPY``), the
index rows in key order; then ``ANALYZE`` (on PostgreSQL ``VACUUM ANALYZE``, which
autovacuum would do in time, so index-only scans need not visit the table).

Timed in this process, best of ``--repeat``: ``count`` (how many match) and ``page``
(the first 10 matches with their rows), through :mod:`scheduler.where_sql`; ``scan``: the
stored solutions read in full and filtered in Python by the same option sets (once);
``command``: ``tilecensus solutions RUN --where Q`` as a process, start-up included.
Last, the price of the index: storing 9,356 solutions in one transaction with and
without their index rows.

Target (issue 41): a query within 0.2 s at a million stored solutions.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

#: seconds a query may take at a million stored solutions
TARGET_SECONDS = 0.2
PROBLEM = "pentomino-6x10"
QUERIES = ["X@2,2", "5,9 in {I,L}", "I touches 2,2", "X@2,2 and not I@0,0",
           "X@1,1 and 5,9 in {I,L} and not U touches 3,3", "X@2,2 or X@3,7", "not X@2,2"]
PG_URL = os.environ.get("TILECENSUS_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/bench_where")


def solve_into(url: str) -> int:
    """The run of ``tilecensus solve PROBLEM --all`` in the ledger at ``url``."""
    out = subprocess.run([sys.executable, "-m", "scheduler", "solve", PROBLEM, "--all", "--json", "--no-progress",
                          "--workers", "1", "--db", url], check=True, capture_output=True, text=True, cwd=ROOT)
    return json.loads(out.stdout)["run_id"]


def synthesise(url: str, run_id: int, n: int) -> None:
    """Cycle the run's stored solutions to ``n`` rows, with their index rows."""
    from scheduler.codec import unpack

    raw = _connect(url)
    cur = raw.cursor()
    cur.execute(f"SELECT id, subproblem_id, options FROM solutions WHERE run_id = {run_id} ORDER BY id")
    base = cur.fetchall()
    cur.execute("SELECT max(id) FROM solutions")
    first = cur.fetchone()[0] + 1
    more = n - len(base)
    solutions = [(run_id, first + i, base[i % len(base)][1], bytes(base[i % len(base)][2])) for i in range(more)]
    postings: dict[int, list[int]] = {}
    for _, sid, _, blob in solutions:
        for o in set(unpack(blob)):
            postings.setdefault(o, []).append(sid)
    index = ((run_id, o, sid) for o in sorted(postings) for sid in postings[o])
    if url.startswith("sqlite"):
        cur.execute("BEGIN")
        cur.executemany("INSERT INTO solutions (run_id, id, subproblem_id, options) VALUES (?, ?, ?, ?)", solutions)
        cur.executemany("INSERT INTO solution_options (run_id, option_id, solution_id) VALUES (?, ?, ?)", index)
        cur.execute("COMMIT")
        cur.execute("ANALYZE")
    else:
        with cur.copy("COPY solutions (run_id, id, subproblem_id, options) FROM STDIN") as copy:
            for row in solutions:
                copy.write_row(row)
        with cur.copy("COPY solution_options (run_id, option_id, solution_id) FROM STDIN") as copy:
            for row in index:
                copy.write_row(row)
        cur.execute("SELECT setval(pg_get_serial_sequence('solutions', 'id'), (SELECT max(id) FROM solutions))")
        raw.commit()
        raw.autocommit = True
        cur.execute("VACUUM ANALYZE solutions")
        cur.execute("VACUUM ANALYZE solution_options")
    raw.close()


def _connect(url: str):
    if url.startswith("sqlite"):
        import sqlite3

        return sqlite3.connect(url.split("///", 1)[1], isolation_level=None)
    import psycopg

    return psycopg.connect(url.replace("postgresql://", "postgresql://", 1))


def fresh_pg(url: str) -> None:
    """Drop and create the benchmark's PostgreSQL database."""
    import psycopg

    admin, name = url.rsplit("/", 1)
    with psycopg.connect(f"{admin}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')


def best(f, repeat: int) -> tuple[float, object]:
    """The fastest of ``repeat`` calls, and the last answer."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def measure(url: str, run_id: int, repeat: int) -> list[dict]:
    from core.library import load
    from core.where_options import matches, resolve
    from core.where_syntax import parse_where
    from scheduler.db import open_ledger
    from scheduler.queries import iter_solutions
    from scheduler.where_sql import count_matches, iter_matches

    ledger = open_ledger(url)
    problem = load(PROBLEM)
    rows = []
    for text in QUERIES:
        q = resolve(problem, parse_where(text))
        count_s, count = best(lambda: count_matches(ledger, run_id, q), repeat)
        page_s, page = best(lambda: list(iter_matches(ledger, run_id, q, limit=10)), repeat)
        t = time.perf_counter()
        scanned = sum(1 for _, _, o in iter_solutions(ledger, run_id) if matches(q, set(o)))
        scan_s = time.perf_counter() - t
        if scanned != count or len(page) != min(10, count):
            raise SystemExit(f"{text}: the index says {count}, the scan {scanned}")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "scheduler", "solutions", str(run_id), "--where", text, "--db", url],
                       check=True, capture_output=True, cwd=ROOT)
        command_s = time.perf_counter() - t
        rows.append({"query": text, "matches": count, "count_s": count_s, "page_s": page_s,
                     "query_s": count_s + page_s, "scan_s": scan_s, "command_s": command_s})
    return rows


def write_cost(url: str, run_id: int, repeat: int) -> tuple[float, float, int]:
    """Seconds to store the run's first 9,356 solutions again, under its first subproblem,
    as a result's transaction does (:func:`scheduler.ledger.results.insert_solutions`,
    with the index rows) and without the index rows (the solutions alone), best of
    ``repeat``, each rolled back."""
    from sqlalchemy import insert, select

    from scheduler.codec import pack, unpack
    from scheduler.db import open_ledger
    from scheduler.ledger.results import insert_solutions
    from scheduler.models import Solution

    SOL = Solution.__table__

    ledger = open_ledger(url)
    with ledger.engine.connect() as conn:
        rows = conn.execute(select(SOL.c.subproblem_id, SOL.c.options).where(SOL.c.run_id == run_id)
                            .order_by(SOL.c.id).limit(9_356)).all()
    sub, sols = rows[0][0], [unpack(b) for _, b in rows]

    def once(with_index: bool) -> None:
        with ledger.engine.connect() as conn:
            tx = conn.begin()
            if with_index:
                insert_solutions(conn, run_id, sub, sols)
            else:
                conn.execute(insert(SOL), [dict(run_id=run_id, subproblem_id=sub, options=pack(s)) for s in sols])
            tx.rollback()

    plain, _ = best(lambda: once(False), repeat)
    indexed, _ = best(lambda: once(True), repeat)
    return plain, indexed, len(sols)


def report(backend: str, n: int, rows: list[dict]) -> None:
    print(f"\n{backend}: {n:,} stored solutions of {PROBLEM}")
    print(f"{'query':<48} {'matches':>9} {'count':>8} {'page':>8} {'query':>8} {'scan':>8} {'scan/q':>7} "
          f"{'command':>8}")
    for r in rows:
        print(f"{r['query']:<48} {r['matches']:>9,} {r['count_s']:>8.3f} {r['page_s']:>8.3f} {r['query_s']:>8.3f} "
              f"{r['scan_s']:>8.2f} {r['scan_s'] / r['query_s']:>6.0f}x {r['command_s']:>8.2f}")
    worst = max(r["query_s"] for r in rows)
    print(f"slowest query (count + first page) {worst:.3f} s: "
          f"{'within' if worst <= TARGET_SECONDS else 'past'} the {TARGET_SECONDS} s target")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", choices=["sqlite", "postgresql", "both"], default="both")
    ap.add_argument("--solutions", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--keep", metavar="DIR", help="build the SQLite ledger here (default: a temporary directory)")
    args = ap.parse_args()
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load {os.getloadavg()[0]:.1f}")
    backends = ["sqlite", "postgresql"] if args.backend == "both" else [args.backend]
    with tempfile.TemporaryDirectory() as tmp:
        for backend in backends:
            if backend == "sqlite":
                url = f"sqlite:///{os.path.join(args.keep or tmp, 'where.sqlite')}"
            else:
                url = PG_URL
                fresh_pg(url)
            t = time.perf_counter()
            run_id = solve_into(url)
            synthesise(url, run_id, args.solutions)
            print(f"{backend}: ledger built in {time.perf_counter() - t:.0f} s (load {os.getloadavg()[0]:.1f})")
            report(backend, args.solutions, measure(url, run_id, args.repeat))
            plain, indexed, k = write_cost(url, run_id, args.repeat)
            print(f"storing {k:,} solutions in one transaction: {plain:.3f} s alone, {indexed:.3f} s with their "
                  f"index rows ({indexed / plain:.1f}x)")


if __name__ == "__main__":
    main()
