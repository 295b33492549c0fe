"""A run that its planning counted in full, written into a SQLite ledger with the standard
library's sqlite3, without SQLAlchemy.

Importing SQLAlchemy and the ledger's models takes 0.3-0.6 s on the project's 2-core
machine (2026-12-03), where the whole ``solve`` of a small problem — the 8x8 board less
its centre, pentominoes 6x10 by levels — takes less than that once the run is planned.  So
when the trial of the planning finished the tree, ``solve`` writes the run here: the run
row closed with its totals, the root subproblem done with the result, its solutions and
where the time went, in one transaction; and summarises it from what it wrote
(:func:`scheduler.summary.summarise`, as ``show`` does from the ledger).

Only where that is the same as the way through :mod:`scheduler.db`: a plain SQLite file
(``sqlite:///PATH``, no query string) that exists, with its schema at the newest revision
(``alembic_version`` against :func:`scheduler.schema_head.head_revision`).  A fresh file,
an older schema (migrated, or refused, by :func:`scheduler.db.open_ledger`), PostgreSQL, a
run that the pool counts: all go through SQLAlchemy as before.  The connection is set up
as :mod:`scheduler.db` sets up SQLite's (WAL, ``synchronous=NORMAL``, foreign keys, a 60 s
busy timeout, ``BEGIN IMMEDIATE``), and each value is stored as SQLAlchemy's SQLite dialect
stores it for the column's type in :mod:`scheduler.models` (JSON as ``json.dumps`` text, a
``None`` as ``null``; counts as decimal text; times to the microsecond); the rows the rows
built by :mod:`scheduler.rows` make are the same either way, which a test checks.
"""
from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Callable

from .codec import count_text
from .rows import counted_rows, run_row
from .schema_head import head_revision
from .solution_index import store_sqlite
from .states import SubproblemState
from .summary import progress_of, summarise

if TYPE_CHECKING:
    from .planning import PreparedRun
    from .run_options import ExecutorKind
    from .work import Outcome

#: the URLs of a SQLite file that sqlite3 opens as SQLAlchemy's default SQLite driver does
PREFIXES = ("sqlite:///", "sqlite+pysqlite:///")
#: the columns this module (and :mod:`scheduler.direct_writes`) writes whose type in :mod:`scheduler.models` stores them
#: otherwise than as they are: JSON, exact counts (``BigCount``), times (``DateTime``)
JSON_COLUMNS = {"runs": {"spec", "options", "stats", "plan_stats"}, "subproblems": {"stats"}}
COUNT_COLUMNS = {"runs": {"solutions", "distinct", "nodes", "estimated_nodes", "modulus"},
                 "subproblems": {"count", "distinct"}}
TIME_COLUMNS = {"runs": {"created_at", "finished_at"}, "subproblems": {"lease_expires", "queued_at", "finished_at"},
                "verifications": {"lease_expires", "queued_at", "finished_at"}}


def sqlite_file(url: str) -> str | None:
    """The path of the SQLite file a plain ``sqlite:///PATH`` URL names, when it exists;
    None for any other URL (an in-memory or URI database, a query string, an escaped
    character: SQLAlchemy reads those)."""
    prefix = next((p for p in PREFIXES if url.startswith(p)), None)
    if prefix is None:
        return None
    path = url[len(prefix):]
    if not path or path == ":memory:" or path.startswith("file:") or any(c in path for c in "?%"):
        return None
    return path if os.path.isfile(path) else None


@dataclass
class Recorded:
    """A run written here: its id and its one subproblem's, its summary
    (:func:`scheduler.summary.summarise`), and its stored solutions' option ids, in the
    ledger's order."""

    run_id: int
    sub_id: int
    summary: dict[str, Any]
    solutions: list[tuple[int, ...]]


class DirectLedger:
    """A SQLite ledger at the newest schema, opened with sqlite3 (:meth:`open`)."""

    def __init__(self, url: str, conn: sqlite3.Connection):
        self.url = url
        self.conn = conn

    @classmethod
    def open(cls, url: str) -> DirectLedger | None:
        """The ledger at ``url`` when it is a SQLite file at the newest schema, else None
        (``url``'s database is then for :func:`scheduler.db.open_ledger` to open, check,
        migrate or refuse, as it always did)."""
        path = sqlite_file(url)
        head = head_revision()
        if path is None or head is None:
            return None
        conn = sqlite3.connect(path, timeout=60, isolation_level=None)  # transactions begin below
        try:
            # (no table yet, or not a SQLite file: open_ledger says what is wrong, or mends it)
            stored = [v for (v,) in conn.execute("SELECT version_num FROM alembic_version")]
        except sqlite3.DatabaseError:
            conn.close()
            return None
        if stored != [head]:
            conn.close()
            return None
        for pragma in ("journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON"):  # as scheduler.db's
            conn.execute(f"PRAGMA {pragma}")
        return cls(url, conn)

    def record_counted(self, prepared: PreparedRun, executor: ExecutorKind, outcome: Outcome,
                       times: Callable[[], dict[str, Any]]) -> Recorded:
        """Write the run ``prepared`` whose planning counted it in full (``outcome``: its
        result, :meth:`~scheduler.planning.PreparedRun.counted`) in one transaction: the
        run closed, its root subproblem done, its solutions, and last ``times()`` in its
        plan statistics (the rows of :func:`scheduler.ledger.create_run`)."""
        run, root = counted_rows(run_row(**prepared.run_fields(executor)), outcome)
        solutions = list(outcome.solutions or [])
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            run_id = self._insert("runs", run)
            sub_id = self._insert("subproblems", dict(root, run_id=run_id))
            store_sqlite(self.conn, run_id, sub_id, solutions)
            run["plan_stats"] = {**(run["plan_stats"] or {}), "times": times()}
            self.conn.execute("UPDATE runs SET plan_stats = ? WHERE id = ?",
                              (stored("runs", "plan_stats", run["plan_stats"]), run_id))
            self.conn.execute("COMMIT")
        except BaseException:  # an error, or Ctrl-C: nothing of the run stays
            self.conn.execute("ROLLBACK")
            raise
        return Recorded(run_id, sub_id, _summary(run_id, run, sub_id, root, len(solutions)), solutions)

    def _insert(self, table: str, values: dict[str, Any]) -> int:
        columns = ", ".join(f'"{c}"' for c in values)  # ("distinct" is a keyword)
        marks = ", ".join("?" * len(values))
        cur = self.conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})",
                                [stored(table, c, v) for c, v in values.items()])
        return cur.lastrowid

    def close(self) -> None:
        self.conn.close()


def stored(table: str, column: str, value: Any) -> Any:
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


def _summary(run_id: int, run: dict[str, Any], sub_id: int, root: dict[str, Any], n_stored: int) -> dict[str, Any]:
    """The summary of the run just written, as :func:`scheduler.queries.run_summary` would
    read it back: its JSON columns as JSON gives them back."""
    read = SimpleNamespace(id=run_id, error=None, **{c: json.loads(stored("runs", c, v))
                                                     if c in JSON_COLUMNS["runs"] else v for c, v in run.items()})
    done = SimpleNamespace(id=sub_id, **root)
    p = progress_of(read, states={str(SubproblemState.DONE): 1}, done_f=root["done_f"], solutions=None, nodes=None)
    return summarise(read, [done], n_stored, p, None)
