"""A Celery run written through the database's own driver — sqlite3 or psycopg — without
SQLAlchemy: what ``submit`` writes before it sends the run's first messages.

Importing SQLAlchemy and the ledger's modules took 0.5 s of ``submit``'s CPU and opening
the ledger through them 0.24 s (2026-12-03, 2-core machine).  This writes what
:func:`scheduler.ledger.create_run` writes with ``queued=True``, statement for statement,
in one transaction: the run's row (:func:`scheduler.rows.run_row`); its planned
subproblems, pending (:func:`scheduler.rows.subproblem_rows`), stamped as sent unless
planning searched the root; where it did (its trial), the root's result recorded by the
UPDATE that records any result (:mod:`scheduler.record_sql`), the frontier it handed on
as pending children stamped as sent, its verification when sampled
(:mod:`scheduler.sampling`), its solutions with their options index
(:mod:`scheduler.solution_index`).  Each value is bound as SQLAlchemy's column type stores
it (:func:`stored`).  A test holds the rows to the SQLAlchemy path's on SQLite and
PostgreSQL (tests/scheduler/test_direct_writes.py).

Only where :func:`scheduler.read_direct.open_direct` opens the ledger: a plain SQLite file
or PostgreSQL URL, answering, at the newest schema; else ``submit`` goes through
SQLAlchemy as before.  A run that planning counted in full is written closed by
:meth:`DirectWrites.record_counted` (the rows of ``create_run``'s counted branch; ``solve``
writes its counted runs there too, on SQLite: :mod:`scheduler.sqlite_direct`).
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

from .census_codec import pack_census
from .clock import utcnow
from .codec import count_text
from .read_direct import DirectReads, open_direct
from .record_sql import RECORD, STATES, record_values
from .rows import counted_rows, run_row, subproblem_rows
from .sampling import sampling_of, wants_verification
from .solution_index import store_postgresql, store_sqlite
from .states import SubproblemState
from .summary import progress_of, summarise
from .work import outcome_of

if TYPE_CHECKING:
    from .planning import PreparedRun
    from .run_options import ExecutorKind
    from .work import Outcome

#: the columns written here whose type in :mod:`scheduler.models` stores them otherwise
#: than as they are: JSON, exact counts (``BigCount``), times (``DateTime``)
JSON_COLUMNS = {"runs": {"spec", "options", "stats", "plan_stats"}, "subproblems": {"stats"}}
COUNT_COLUMNS = {"runs": {"solutions", "distinct", "nodes", "estimated_nodes", "modulus"},
                 "subproblems": {"count", "distinct"}}
TIME_COLUMNS = {"runs": {"created_at", "finished_at"}, "subproblems": {"lease_expires", "queued_at", "finished_at"},
                "verifications": {"lease_expires", "queued_at", "finished_at"}}
#: the connection's settings, as :mod:`scheduler.db` sets up SQLite's
SQLITE_PRAGMAS = ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON")
#: how :data:`scheduler.record_sql.RECORD`'s parameters are typed: the column each sets
RECORD_COLUMNS = {"r_count": "count", "r_distinct": "distinct", "r_stats": "stats", "now": "finished_at"}


@dataclass
class Created:
    """A run written: its id, its pending subproblems (ids, and their weights in the same
    order), and the subproblems whose verification waits for a worker."""

    run_id: int
    pending: list[int]
    weights: list[Fraction]
    verifications: list[int] = field(default_factory=list)


@dataclass
class Recorded:
    """A run that planning counted in full, written (:meth:`DirectWrites.record_counted`):
    its id and its one subproblem's, its summary (:func:`scheduler.summary.summarise`),
    and its stored solutions' option ids, in the ledger's order."""

    run_id: int
    sub_id: int
    summary: dict[str, Any]
    solutions: list[tuple[int, ...]]


def sqlite_stored(table: str, column: str, value: Any) -> Any:
    """A value as SQLAlchemy's SQLite dialect stores it in ``table.column``."""
    if column in JSON_COLUMNS.get(table, ()):
        return json.dumps(value)  # (None too: the JSON type stores null, not NULL)
    if value is None:
        return None
    if column in COUNT_COLUMNS.get(table, ()):
        return count_text(value)
    if column in TIME_COLUMNS.get(table, ()):
        return value.isoformat(sep=" ", timespec="microseconds")
    if isinstance(value, str):
        return str(value)  # a status's StrEnum, as its text
    return value


def pg_stored(table: str, column: str, value: Any) -> Any:
    """A value as SQLAlchemy's PostgreSQL dialect (psycopg) stores it in ``table.column``:
    JSON as JSON (a None too: the JSON type stores null, not NULL), exact counts as
    decimal text, a status's StrEnum as its text, times as they are (naive UTC)."""
    if column in JSON_COLUMNS.get(table, ()):
        from psycopg.types.json import Json

        return Json(value)
    if value is None:
        return None
    if column in COUNT_COLUMNS.get(table, ()):
        return count_text(value)
    if isinstance(value, str):
        return str(value)
    return value


class DirectWrites(DirectReads):
    """A ledger at the newest schema, written (and read) through its DB-API connection."""

    @classmethod
    def open(cls, url: str) -> DirectWrites | None:
        """The ledger at ``url``, or None: then :func:`scheduler.db.open_ledger` opens,
        checks, migrates or refuses it, as it always did."""
        writes = open_direct(url, cls)
        if writes is not None and writes.dialect == "sqlite":  # (a SQLite file at the newest schema)
            for pragma in SQLITE_PRAGMAS:
                writes.conn.execute(f"PRAGMA {pragma}")
        return writes  # type: ignore[return-value]

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One transaction: all of it, or (an error, Ctrl-C) nothing."""
        if self.dialect == "postgresql":
            with self.conn.transaction():
                yield
            return
        self.conn.execute("BEGIN IMMEDIATE")  # the write lock at once, as scheduler.db's
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def stored(self, table: str, column: str, value: Any) -> Any:
        if self.dialect == "sqlite":
            return sqlite_stored(table, column, value)
        return pg_stored(table, column, value)

    def insert(self, table: str, rows: Sequence[dict[str, Any]]) -> list[int]:
        """Insert rows (all with the same columns) into ``table``; their ids, in order.
        On PostgreSQL one round trip (psycopg's ``executemany``, each id returned)."""
        if not rows:
            return []
        columns = list(rows[0])
        quoted = ", ".join(f'"{c}"' for c in columns)  # ("distinct" is a keyword)
        sql = self.driver_sql(f"INSERT INTO {table} ({quoted}) VALUES ({', '.join(f':{c}' for c in columns)}) "
                              "RETURNING id")
        params = [{c: self.stored(table, c, row[c]) for c in columns} for row in rows]
        if self.dialect == "sqlite":
            return [self.conn.execute(sql, p).fetchall()[0][0] for p in params]
        ids = []
        with self.conn.cursor() as cur:
            cur.executemany(sql, params, returning=True)
            while True:
                ids.append(cur.fetchone()[0])
                if not cur.nextset():
                    break
        return ids

    def create_run(self, prepared: PreparedRun, executor: ExecutorKind) -> Created:
        """Write the prepared run, its subproblems stamped as sent (``submit`` sends them
        next), in one transaction: :func:`scheduler.ledger.create_run` with ``queued``."""
        if prepared.counted() is not None:
            raise ValueError("a run that planning counted in full is written closed: record_counted")
        fields = prepared.run_fields(executor)
        row = run_row(**fields)
        first = prepared.plan.first
        with self.transaction():
            (run_id,) = self.insert("runs", [row])
            frontier = fields["frontier"]
            ids = self.insert("subproblems", subproblem_rows(run_id, frontier, None, None if first is not None else utcnow()))
            if first is None:
                return Created(run_id, ids, [s.weight for s in frontier])
            outcome = outcome_of(first, run_id, ids[0], prepared.mode)
            children, verified = self._record_root(outcome, sampling_of(fields["verify_fraction"],
                                                                        prepared.options.verify_seed))
        return Created(run_id, children, [s.weight for s in outcome.frontier], verified)

    def _record_root(self, outcome: Outcome, sampling) -> tuple[list[int], list[int]]:
        """:func:`scheduler.ledger.record` of the root's result, queued: the ids of its
        children and of the subproblems whose verification was written."""
        now = utcnow()
        values = record_values(outcome, now)
        for name, column in RECORD_COLUMNS.items():
            values[name] = self.stored("subproblems", column, values[name])
        self.execute(RECORD, {**values, **STATES})
        children = self.insert("subproblems", subproblem_rows(outcome.run_id, outcome.frontier, outcome.sub_id, now))
        verified = []
        if wants_verification(sampling, outcome):
            self.insert("verifications", [dict(run_id=outcome.run_id, subproblem_id=outcome.sub_id,
                                               state=SubproblemState.PENDING, worker=outcome.worker, refusals=0,
                                               attempts=0, queued_at=now)])
            verified.append(outcome.sub_id)
        self._store_solutions(outcome.run_id, outcome.sub_id, outcome.solutions or [])
        if outcome.census is not None:
            self.execute("INSERT INTO censuses (subproblem_id, run_id, counts) VALUES (:sub_id, :run_id, :counts)",
                         dict(sub_id=outcome.sub_id, run_id=outcome.run_id, counts=pack_census(outcome.census)))
        return children, verified

    def record_counted(self, prepared: PreparedRun, executor: ExecutorKind, outcome: Outcome,
                       times: Callable[[], dict[str, Any]] | None = None) -> Recorded:
        """Write the run ``prepared`` whose planning counted it in full (``outcome``: its
        result, :meth:`~scheduler.planning.PreparedRun.counted`) in one transaction: the
        run closed, its root subproblem done, its solutions, and last ``times()`` in its
        plan statistics (the rows of :func:`scheduler.ledger.create_run`)."""
        run, root = counted_rows(run_row(**prepared.run_fields(executor)), outcome)
        solutions = list(outcome.solutions or [])
        with self.transaction():  # an error, or Ctrl-C: nothing of the run stays
            (run_id,) = self.insert("runs", [run])
            (sub_id,) = self.insert("subproblems", [dict(root, run_id=run_id)])
            self._store_solutions(run_id, sub_id, solutions)
            if times is not None:
                run["plan_stats"] = {**(run["plan_stats"] or {}), "times": times()}
                self.execute("UPDATE runs SET plan_stats = :plan_stats WHERE id = :run_id",
                             dict(plan_stats=self.stored("runs", "plan_stats", run["plan_stats"]), run_id=run_id))
        return Recorded(run_id, sub_id, _summary(run_id, run, sub_id, root, len(solutions)), solutions)

    def _store_solutions(self, run_id: int, sub_id: int, solutions: Sequence[Sequence[int]]) -> None:
        if solutions:
            store = store_sqlite if self.dialect == "sqlite" else store_postgresql
            store(self.conn, run_id, sub_id, solutions)

    def record_estimate(self, run_id: int, estimate: dict[str, Any], nodes: int) -> None:
        """:func:`scheduler.ledger.record_estimate`: an estimate made once the run was
        written, added to its plan statistics, its node count for the ETA."""
        with self.transaction():
            (stats,) = self("SELECT plan_stats FROM runs WHERE id = :run_id", run_id=run_id)[0]
            if isinstance(stats, str):  # sqlite3 gives the JSON's text, psycopg the value
                stats = json.loads(stats)
            self.execute("UPDATE runs SET plan_stats = :plan_stats, estimated_nodes = :estimated_nodes "
                         "WHERE id = :run_id",
                         dict(plan_stats=self.stored("runs", "plan_stats", {**(stats or {}), "estimate": estimate}),
                              estimated_nodes=self.stored("runs", "estimated_nodes", nodes), run_id=run_id))


def _summary(run_id: int, run: dict[str, Any], sub_id: int, root: dict[str, Any], n_stored: int) -> dict[str, Any]:
    """The summary of a counted run just written, as :func:`scheduler.queries.run_summary`
    would read it back: its JSON columns as JSON gives them back."""
    read = SimpleNamespace(id=run_id, error=None, **{c: json.loads(sqlite_stored("runs", c, v))
                                                     if c in JSON_COLUMNS["runs"] else v for c, v in run.items()})
    done = SimpleNamespace(id=sub_id, **root)
    p = progress_of(read, states={str(SubproblemState.DONE): 1}, done_f=root["done_f"], solutions=None, nodes=None)
    return summarise(read, [done], n_stored, p, None)
