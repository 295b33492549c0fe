"""The ledger's read questions behind ``runs`` and ``show`` — a run's row, its progress,
its summary, the list of runs — written once, in plain SQL, without SQLAlchemy.

Two ways ask them.  :mod:`scheduler.ledger` and :mod:`scheduler.queries` run the SQL
through a SQLAlchemy session (:func:`session_query`); :mod:`scheduler.read_direct` runs
the same text through the database's own DB-API driver (sqlite3, psycopg), so that
``tilecensus runs`` and ``show`` answer without importing SQLAlchemy (0.3-0.5 s on the
project's 2-core machine, 2026-12-03).  The values come back as the driver gives them
either way (SQL text is not typed), and :func:`run_of` and :func:`_sub` turn them into
what SQLAlchemy's column types give (JSON, exact counts stored as text, times); from
there :func:`scheduler.summary.summarise` makes the summary for both.  A test checks
that both ways print the same on SQLite and PostgreSQL.

The SQL uses ``:name`` parameters (SQLAlchemy's ``text()`` and sqlite3 read them as they
are; :mod:`scheduler.read_direct` rewrites them for psycopg), no ``%`` and no casts with
``::``; a column named by a keyword (``distinct``) is quoted.
"""
from __future__ import annotations

import datetime as dt
import json
from types import SimpleNamespace
from typing import Any, Protocol, Sequence

from .clock import utcnow
from .codec import path_of, total_of
from .errors import LedgerError
from .run_options import ExecutorKind, RunOptions
from .states import RunStatus, SubproblemState
from .summary import Progress, iso, progress_of, summarise

#: the columns of ``runs``, in the order :data:`RUN` and :data:`RUNS` select them
RUN_COLUMNS = ("id", "name", "kind", "spec", "spec_hash", "mode", "options", "executor", "status", "n_planned",
               "solutions", "distinct", "nodes", "stats", "plan_stats", "cpu_seconds", "seconds", "created_at",
               "finished_at", "error", "verify_fraction", "estimated_nodes", "modulus")
#: how :mod:`scheduler.models` types them, where the stored value is not the value
JSON_COLUMNS = frozenset({"spec", "options", "stats", "plan_stats"})
COUNT_COLUMNS = frozenset({"solutions", "distinct", "nodes", "estimated_nodes", "modulus", "count"})
TIME_COLUMNS = frozenset({"created_at", "finished_at"})

_SELECT_RUN = "SELECT " + ", ".join(f'"{c}"' for c in RUN_COLUMNS) + " FROM runs"
RUN = f"{_SELECT_RUN} WHERE id = :run_id"
STATUS = "SELECT status FROM runs WHERE id = :run_id"
DONE = f"'{SubproblemState.DONE}'"
LEASED = f"'{SubproblemState.LEASED}'"
STATES = "SELECT state, COUNT(*) FROM subproblems WHERE run_id = :run_id GROUP BY state"
DONE_SUMS = f"SELECT SUM(done_f), SUM(nodes) FROM subproblems WHERE run_id = :run_id AND state = {DONE}"
_DONE_COUNTS = f"FROM subproblems WHERE run_id = :run_id AND state = {DONE}"
LEASES_HELD = {table: f"SELECT MAX(lease_expires) FROM {table} WHERE run_id = :run_id AND state = {LEASED}"
               for table in ("subproblems", "verifications")}
LAST_FINISHED = "SELECT MAX(finished_at) FROM subproblems WHERE run_id = :run_id"
SUMMARY_ROWS = ('SELECT id, path, seconds, nodes, count, attempts, n_donated, worker, "distinct" FROM subproblems '
                f"WHERE run_id = :run_id AND state = {DONE}")
STORED_SOLUTIONS = "SELECT COUNT(*) FROM solutions WHERE run_id = :run_id"
_VER_JOINED = "FROM verifications v JOIN subproblems s ON s.id = v.subproblem_id"
VER_STATES = "SELECT state, COUNT(*) FROM verifications WHERE run_id = :run_id GROUP BY state"
VER_BAD = "SELECT COUNT(*) FROM verifications WHERE run_id = :run_id AND ok = :no"
VER_NODES = f"SELECT v.state, SUM(s.nodes) {_VER_JOINED} WHERE v.run_id = :run_id GROUP BY v.state"
MISMATCHES = (f"SELECT v.subproblem_id, s.path, v.worker, v.verifier, v.detail {_VER_JOINED} "
              "WHERE v.run_id = :run_id AND v.ok = :no ORDER BY v.id LIMIT :limit")
#: SQLite's SUM is exact up to this (64-bit integers)
SQLITE_EXACT_SUM = 2**63 - 1


class Query(Protocol):
    """Rows of a SQL text with ``:name`` parameters, and the database's dialect name."""

    dialect: str

    def __call__(self, sql: str, **params: Any) -> Sequence[Sequence[Any]]: ...


def session_query(conn: Any) -> Query:
    """A SQLAlchemy ``Session`` or ``Connection`` as a :class:`Query`."""
    from sqlalchemy import text

    bind = conn.get_bind() if hasattr(conn, "get_bind") else conn

    def query(sql: str, **params: Any) -> Sequence[Sequence[Any]]:
        return conn.execute(text(sql), params).all()

    query.dialect = bind.dialect.name  # type: ignore[attr-defined]
    return query  # type: ignore[return-value]


def _scalar(q: Query, sql: str, **params: Any) -> Any:
    rows = q(sql, **params)
    return rows[0][0] if rows else None


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, (str, bytes)) else value


def _time(value: Any) -> dt.datetime | None:
    """A time as SQLAlchemy's ``DateTime`` gives it: SQLite stores ISO text."""
    if value is None or isinstance(value, dt.datetime):
        return value
    return dt.datetime.fromisoformat(value)


def _count(value: Any) -> int | None:
    return None if value is None else int(value)


def _value(column: str, value: Any) -> Any:
    if column in JSON_COLUMNS:
        return _json(value)
    if column in COUNT_COLUMNS:
        return _count(value)
    if column in TIME_COLUMNS:
        return _time(value)
    return value


def run_of(row: Sequence[Any]) -> SimpleNamespace:
    """A ``runs`` row (:data:`RUN_COLUMNS`) with its values as :class:`scheduler.models.Run` has them."""
    return SimpleNamespace(**{c: _value(c, v) for c, v in zip(RUN_COLUMNS, row)})


def read_run(q: Query, run_id: int, missing: str) -> SimpleNamespace:
    """The run's row; :class:`LedgerError` ``missing`` where there is none."""
    rows = q(RUN, run_id=run_id)
    if not rows:
        raise LedgerError(missing)
    return run_of(rows[0])


def run_status(q: Query, run_id: int, missing: str) -> str:
    """The run's status alone, in one small query (what a waiting process asks between
    events); :class:`LedgerError` ``missing`` where there is no such run."""
    rows = q(STATUS, run_id=run_id)
    if not rows:
        raise LedgerError(missing)
    return rows[0][0]


def done_solutions(q: Query, run_id: int) -> int:
    """The solutions found by a run's done subproblems, exactly (counts are decimal text of
    any size): PostgreSQL sums them as NUMERIC; SQLite does when they are few and short
    enough for its 64-bit sum, else they are summed here."""
    if q.dialect != "sqlite":
        return int(_scalar(q, f"SELECT SUM(CAST(count AS NUMERIC)) {_DONE_COUNTS}", run_id=run_id) or 0)
    rows, digits = q(f"SELECT COUNT(count), MAX(LENGTH(count)) {_DONE_COUNTS}", run_id=run_id)[0]
    if not rows:
        return 0
    if rows * 10 ** int(digits) <= SQLITE_EXACT_SUM:
        return int(_scalar(q, f"SELECT SUM(CAST(count AS INTEGER)) {_DONE_COUNTS}", run_id=run_id) or 0)
    return total_of(c for (c,) in q(f"SELECT count {_DONE_COUNTS}", run_id=run_id))


def owner_gone(q: Query, run: Any) -> dt.datetime | None:
    """When a running local run whose process is gone stopped working (its last recorded
    result, else its start); None while it may be alive.  A live local run holds at least
    one unexpired lease from its first lease until it closes (results and new leases are
    traded in one transaction), so a run that holds leases, all expired, has lost its
    process (SIGKILL, a crash, a reboot).  A run with no lease at all is just starting —
    it leases within milliseconds of being written (or of ``resume``) — unless it has held
    none for a whole lease period since its last sign of life: then its process died
    before its first lease."""
    if run.status != RunStatus.RUNNING or run.executor != ExecutorKind.LOCAL:
        return None
    latest = [_time(_scalar(q, sql, run_id=run.id)) for sql in LEASES_HELD.values()]
    held = [t for t in latest if t is not None]
    now = utcnow()
    if held and max(held) >= now:
        return None
    last = _time(_scalar(q, LAST_FINISHED, run_id=run.id))
    since = max(last or run.created_at, run.created_at)
    if not held and (now - since).total_seconds() <= RunOptions.from_json(run.options).lease_seconds():
        return None
    return since


def verification_counts(q: Query, run_id: int) -> dict[str, int]:
    """How a run's verifications stand: pending, leased, done, cancelled, mismatches, the
    nodes the finished ones re-searched (``nodes``) and the open ones will (``open_nodes``)."""
    states = dict(q(VER_STATES, run_id=run_id))
    bad = _scalar(q, VER_BAD, run_id=run_id, no=False)
    nodes = dict(q(VER_NODES, run_id=run_id))
    S = SubproblemState
    return {**{s: int(states.get(s, 0)) for s in (S.PENDING, S.LEASED, S.DONE, S.CANCELLED)},
            "mismatches": int(bad), "nodes": int(nodes.get(S.DONE) or 0),
            "open_nodes": int(nodes.get(S.PENDING) or 0) + int(nodes.get(S.LEASED) or 0)}


def mismatch_rows(q: Query, run_id: int, *, limit: int = 10) -> list[dict[str, Any]]:
    """The run's mismatches (at most ``limit``), for ``show``."""
    return [{"subproblem": s, "path": list(path_of(p)), "worker": w, "verifier": v, "detail": d}
            for s, p, w, v, d in q(MISMATCHES, run_id=run_id, no=False, limit=limit)]


def progress_of_run(q: Query, run: Any) -> Progress:
    """A run's progress (``run``: its row, :func:`read_run`)."""
    states = dict(q(STATES, run_id=run.id))
    done_f, nodes = q(DONE_SUMS, run_id=run.id)[0]
    # the counts of a run in residues make its total only once all are in
    solutions = done_solutions(q, run.id) if run.modulus is None and run.status != RunStatus.DONE else 0
    return progress_of(run, states=states, done_f=done_f, solutions=solutions, nodes=nodes,
                       gone=owner_gone(q, run), verifications=verification_counts(q, run.id) if run.verify_fraction
                       else None)


def list_runs(q: Query, *, limit: int = 50, status: str | None = None,
              problem: str | None = None) -> list[dict[str, Any]]:
    """The newest runs first, a dict each; ``problem``: only runs whose problem name
    contains it (``LIKE``, as SQLAlchemy's ``contains(autoescape=True)``)."""
    where, params = [], {}
    if status:  # a running local run whose process died shows as interrupted (progress says)
        stored = [status, RunStatus.RUNNING] if status in (RunStatus.RUNNING, RunStatus.INTERRUPTED) else [status]
        where.append("status IN (" + ", ".join(f":status_{i}" for i in range(len(stored))) + ")")
        params.update({f"status_{i}": str(s) for i, s in enumerate(stored)})
    if problem:
        escaped = problem.replace("/", "//").replace("%", "/%").replace("_", "/_")
        where.append("name LIKE :pattern ESCAPE '/'")
        params["pattern"] = f"%{escaped}%"
    sql = _SELECT_RUN + (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY id DESC LIMIT :limit"
    out = []
    for run in map(run_of, q(sql, limit=limit, **params)):
        p = progress_of_run(q, run)
        if status and p.status != status:
            continue
        out.append(
            {
                "run_id": run.id,
                "problem": run.name,
                "mode": run.mode,
                "executor": run.executor,
                "status": p.status,
                "solutions": run.solutions if run.solutions is not None else p.solutions,
                "distinct": run.distinct,
                "nodes": run.nodes if run.nodes is not None else p.nodes,
                "progress": round(p.weight_done, 6),
                "subproblems": p.subproblems,
                "created": iso(run.created_at),
                "seconds": round(run.seconds if run.seconds is not None else p.elapsed, 3),
                "verified": p.verifications.get("done") if run.verify_fraction else None,
                "mismatches": p.verifications.get("mismatches") if run.verify_fraction else None,
                "error": run.error,
            }
        )
    return out


def verification(q: Query, run: Any, p: Progress) -> dict[str, Any] | None:
    """How a ``--verify`` run's verifications stand, with its mismatches; None otherwise."""
    if not run.verify_fraction:
        return None
    c = p.verifications
    return {"fraction": run.verify_fraction, "seed": RunOptions.from_json(run.options).verify_seed or 0,
            "verified": c["done"], "agree": c["done"] - c["mismatches"], "mismatches": c["mismatches"],
            "open": c["pending"] + c["leased"], "cancelled": c["cancelled"], "nodes": c["nodes"],
            "mismatched": mismatch_rows(q, run.id)}


_SUB_COLUMNS = ("id", "path", "seconds", "nodes", "count", "attempts", "n_donated", "worker", "distinct")


def _sub(row: Sequence[Any]) -> SimpleNamespace:
    return SimpleNamespace(**{c: _count(v) if c in COUNT_COLUMNS else v for c, v in zip(_SUB_COLUMNS, row)})


def run_summary(q: Query, run_id: int, *, slowest: int = 5) -> dict[str, Any]:
    """Totals, status, timings, throughput, the slowest subproblems, the spread of sizes
    (:func:`scheduler.summary.summarise`)."""
    run = read_run(q, run_id, f"no run {run_id} in the ledger")
    rows = [_sub(r) for r in q(SUMMARY_ROWS, run_id=run_id)]
    stored = int(_scalar(q, STORED_SOLUTIONS, run_id=run_id) or 0)
    p = progress_of_run(q, run)
    return summarise(run, rows, stored, p, verification(q, run, p), slowest=slowest)
