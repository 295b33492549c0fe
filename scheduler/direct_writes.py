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
SQLAlchemy as before.  A run that planning counted in full is not written here
(:meth:`DirectWrites.create_run` refuses it; ``submit`` writes it the old way).
"""
from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from .census_codec import pack_census
from .clock import utcnow
from .codec import count_text
from .read_direct import DirectReads, open_direct
from .record_sql import RECORD, STATES, record_values
from .rows import run_row, subproblem_rows
from .sampling import sampling_of, wants_verification
from .solution_index import store_postgresql, store_sqlite
from .sqlite_direct import COUNT_COLUMNS, JSON_COLUMNS
from .sqlite_direct import stored as sqlite_stored
from .states import SubproblemState
from .work import outcome_of

if TYPE_CHECKING:
    from .planning import PreparedRun
    from .run_options import ExecutorKind
    from .work import Outcome

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

    def __init__(self, conn: Any, dialect: str, shown_url: str):
        super().__init__(conn, dialect, shown_url)
        if dialect == "sqlite":
            for pragma in SQLITE_PRAGMAS:
                conn.execute(f"PRAGMA {pragma}")

    @classmethod
    def open(cls, url: str) -> DirectWrites | None:
        """The ledger at ``url``, or None: then :func:`scheduler.db.open_ledger` opens,
        checks, migrates or refuses it, as it always did."""
        return open_direct(url, cls)  # type: ignore[return-value]

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
            raise ValueError("a run that planning counted in full is written closed, by scheduler.ledger")
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
        if outcome.solutions:
            store = store_sqlite if self.dialect == "sqlite" else store_postgresql
            store(self.conn, outcome.run_id, outcome.sub_id, outcome.solutions)
        if outcome.census is not None:
            self.execute("INSERT INTO censuses (subproblem_id, run_id, counts) VALUES (:sub_id, :run_id, :counts)",
                         dict(sub_id=outcome.sub_id, run_id=outcome.run_id, counts=pack_census(outcome.census)))
        return children, verified

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
