"""``solutions RUN --where`` on a million stored solutions (by hand, never in CI), on
SQLite and PostgreSQL: each query's count and first page through the options index, by
the designs tried side by side (SQL alone, EXISTS probes, bitmaps), beside the same answer
by a scan of every stored solution, and the whole command.

    .venv/bin/python bench/bench_where.py                       # both ledgers, 1,000,000
    .venv/bin/python bench/bench_where.py --backend sqlite --solutions 200000

The ledger: ``tilecensus solve pentomino-6x10 --all`` (9,356 solutions, stored with
their index rows), then its solutions cycled to ``--solutions`` rows of the same run,
written in bulk with explicit ids (sqlite3 ``executemany`` / PostgreSQL ``COPY``), the
index rows in key order; then ``ANALYZE`` (on PostgreSQL ``VACUUM ANALYZE``, which
autovacuum would do in time, so index-only scans need not visit the table).

Timed in this process, best of ``--repeat``, each the count (how many match) plus the
first page (the first 10 matches with their rows), by five designs side by side, which
must agree:

- ``sql``: SQL alone, ``INTERSECT`` / ``UNION`` / ``EXCEPT`` of the conditions' range
  scans (:func:`scheduler.where_sql.matches_sql`; what combined queries ran until
  2026-12-07);
- ``exists``: SQL that drives from the condition of an ``and`` with the fewest index rows
  (else from the run's solutions) and probes the primary key for the others with
  ``EXISTS`` / ``NOT EXISTS``;
- ``bits-py``: bitmaps (:mod:`core.where_bits`) with the ids turned into bits in Python;
- ``bits``: bitmaps with the ids turned into bits in C (``core/_idset.c``), single
  conditions too;
- ``chosen``: what ``solutions --where`` runs (:func:`scheduler.where_sql.find_matches`:
  a single condition in SQL, a combined query with bitmaps in C).

``scan``: the stored solutions read in full and filtered in Python by the same option
sets (once); ``command``: ``tilecensus solutions RUN --where Q`` as a process, start-up
included.  Last, the price of the index: storing 9,356 solutions in one transaction with
and without their index rows.

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


def sql_alone(ledger, run_id: int, q) -> tuple[int, list[int]]:
    """Count and first page by :func:`scheduler.where_sql.matches_sql`."""
    from sqlalchemy import text

    from scheduler.where_sql import matches_sql

    sql = matches_sql(run_id, q)
    return _count_and_page(ledger, f"SELECT count(*) FROM ({sql}) AS m",
                           f"SELECT solution_id FROM ({sql}) AS m ORDER BY solution_id LIMIT 10", text)


def probes(ledger, run_id: int, q) -> tuple[int, list[int]]:
    """Count and first page by ``EXISTS`` probes of the primary key, driven from an
    ``and``'s condition with the fewest index rows (else from the run's solutions)."""
    from sqlalchemy import text

    from core.where_options import AllOf, AnyOf, NoneOf, Uses

    def held(p) -> str:
        if isinstance(p, Uses):
            ids = ", ".join(map(str, sorted(p.options))) or "NULL"
            return (f"EXISTS (SELECT 1 FROM solution_options o WHERE o.run_id = {run_id} "
                    f"AND o.option_id IN ({ids}) AND o.solution_id = s.id)")
        if isinstance(p, NoneOf):
            return f"NOT {held(p.part)}"
        return "(" + (" AND " if isinstance(p, AllOf) else " OR ").join(held(x) for x in p.parts) + ")"

    def rows(u: Uses) -> str:
        return f"FROM solution_options WHERE run_id = {run_id} AND option_id IN ({', '.join(map(str, u.options))})"

    driver, rest = f"SELECT id FROM solutions WHERE run_id = {run_id}", q
    uses = [p for p in (q.parts if isinstance(q, AllOf) else (q,)) if isinstance(p, Uses) and p.options]
    if uses and not isinstance(q, AnyOf):
        with ledger.session() as session:
            first = min(uses, key=lambda u: session.execute(text(f"SELECT count(*) {rows(u)}")).scalar_one())
        driver = f"SELECT DISTINCT solution_id AS id {rows(first)}"
        others = tuple(p for p in (q.parts if isinstance(q, AllOf) else ()) if p is not first)
        rest = AllOf(others) if others else None
    where = f"WHERE {held(rest)}" if rest is not None else ""
    return _count_and_page(ledger, f"SELECT count(*) FROM ({driver}) AS s {where}",
                           f"SELECT s.id FROM ({driver}) AS s {where} ORDER BY s.id LIMIT 10", text)


def _count_and_page(ledger, count_sql: str, page_sql: str, text) -> tuple[int, list[int]]:
    with ledger.session() as session:
        count = session.execute(text(count_sql)).scalar_one()
        ids = list(session.execute(text(page_sql)).scalars())
        _read_rows(session, ids, text)
    return count, ids


def _read_rows(session, ids: list[int], text) -> None:
    if ids:
        session.execute(text(f"SELECT id, subproblem_id, options FROM solutions WHERE id IN "
                             f"({', '.join(map(str, ids))}) ORDER BY id")).all()


def bits_in_python(text: str | None, lo: int, nbits: int) -> int:
    """:func:`core.where_bits.bits_of_ids` without C: each id parsed and set in Python."""
    if not text:
        return 0
    bits = bytearray((nbits + 7) // 8)
    for i in map(int, text.split(",")):
        k = i - lo
        bits[k >> 3] |= 1 << (k & 7)
    return int.from_bytes(bits, "little")


def chosen(ledger, run_id: int, q) -> tuple[int, list[int]]:
    """Count and first page as ``solutions --where`` answers them."""
    from scheduler.where_sql import find_matches, iter_matches

    found = find_matches(ledger, run_id, q)
    return found.count, [m.solution_id for m in iter_matches(ledger, run_id, q, limit=10, found=found)]


def bitmaps(ledger, run_id: int, q, *, in_c: bool) -> tuple[int, list[int]]:
    """Count and first page with bitmaps, a single condition too (as an ``and`` of one)."""
    import scheduler.where_sql as where_sql
    from core.where_bits import bits_of_ids
    from core.where_options import AllOf

    where_sql.bits_of_ids = bits_of_ids if in_c else bits_in_python
    try:
        return chosen(ledger, run_id, AllOf((q,)))
    finally:
        where_sql.bits_of_ids = bits_of_ids


DESIGNS = {"sql": sql_alone, "exists": probes, "bits-py": lambda *a: bitmaps(*a, in_c=False),
           "bits": lambda *a: bitmaps(*a, in_c=True), "chosen": chosen}


def measure(url: str, run_id: int, repeat: int) -> list[dict]:
    from core.library import load
    from core.where_options import matches, resolve
    from core.where_syntax import parse_where
    from scheduler.db import open_ledger
    from scheduler.queries import iter_solutions

    ledger = open_ledger(url)
    problem = load(PROBLEM)
    rows = []
    for text in QUERIES:
        q = resolve(problem, parse_where(text))
        row, answers = {"query": text}, set()
        for name, design in DESIGNS.items():
            row[name], (count, page) = best(lambda: design(ledger, run_id, q), repeat)
            answers.add((count, tuple(page)))
        t = time.perf_counter()
        scanned = sum(1 for _, _, o in iter_solutions(ledger, run_id) if matches(q, set(o)))
        row["scan"] = time.perf_counter() - t
        if len(answers) != 1 or count != scanned or len(page) != min(10, count):
            raise SystemExit(f"{text}: the designs answer {sorted(answers)}, the scan {scanned}")
        t = time.perf_counter()
        subprocess.run([sys.executable, "-m", "scheduler", "solutions", str(run_id), "--where", text, "--db", url],
                       check=True, capture_output=True, cwd=ROOT)
        row.update(matches=count, command=time.perf_counter() - t)
        rows.append(row)
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
    print(f"\n{backend}: {n:,} stored solutions of {PROBLEM}; seconds for the count + the first page")
    print(f"{'query':<46} {'matches':>8} " + " ".join(f"{d:>7}" for d in DESIGNS)
          + f" {'scan':>7} {'scan/ch':>7} {'command':>7}")
    for r in rows:
        print(f"{r['query']:<46} {r['matches']:>8,} " + " ".join(f"{r[d]:>7.3f}" for d in DESIGNS)
              + f" {r['scan']:>7.2f} {r['scan'] / r['chosen']:>6.0f}x {r['command']:>7.2f}")
    worst = max(r["chosen"] for r in rows)
    print(f"slowest query (count + first page, chosen) {worst:.3f} s: "
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
