"""``runs`` and ``show`` read through the database's own DB-API driver — sqlite3 for a
SQLite file, psycopg for PostgreSQL — without SQLAlchemy, the ledger's models or the
problem library.

The questions and the summary are :mod:`scheduler.reads`, the same SQL and code the
SQLAlchemy path runs; this module only opens the connection and runs the text.  Only
where that is the same as the way through :func:`scheduler.db.open_ledger`: a plain
SQLite file that exists (:func:`sqlite_file`), or a PostgreSQL
URL of plain user, password, host, port and database (no query string, nothing escaped),
that answers, with its schema at the newest revision (``alembic_version`` against
:func:`scheduler.schema_head.head_revision`).  Anything else — another URL, a database
that does not answer, an older schema, a run whose summary needs its problem (a
crossword's, see :data:`core.catalog.SOLUTION_READERS`) — returns None and the command
goes through SQLAlchemy as before, with its checks and its messages.
"""
from __future__ import annotations

import os
import re
from typing import Any, Sequence

from . import reads
from .schema_head import head_revision
from .states import RunStatus

#: the URLs of a SQLite file that sqlite3 opens as SQLAlchemy's default SQLite driver does
PREFIXES = ("sqlite:///", "sqlite+pysqlite:///")
#: a PostgreSQL URL read here: ``postgresql[+psycopg]://[user[:password]@]host[:port]/database``
_PG_URL = re.compile(r"^postgresql(?:\+psycopg)?://(?:(?P<user>[\w.~-]+)(?::(?P<password>[\w.~-]+))?@)?"
                     r"(?P<host>[\w.-]+)(?::(?P<port>\d+))?/(?P<database>[\w.~-]+)$")
_PARAM = re.compile(r"(?<![:\w]):(\w+)")
#: as :func:`scheduler.db.make_engine` connects to PostgreSQL
PG_CONNECT_TIMEOUT = 5


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


class DirectReads:
    """A ledger at the newest schema, read through its DB-API connection ``conn``."""

    def __init__(self, conn: Any, dialect: str, shown_url: str, connect: dict[str, Any] | None = None):
        self.conn = conn
        self.dialect = dialect
        #: the URL without its password, as :func:`scheduler.db.safe_url` shows it
        self.shown_url = shown_url
        #: PostgreSQL: psycopg's arguments for another connection to the same database
        self.connect = connect
        self._sql: dict[str, str] = {}

    def __call__(self, sql: str, **params: Any) -> Sequence[Sequence[Any]]:
        return self.execute(sql, params).fetchall()

    def execute(self, sql: str, params: dict[str, Any]) -> Any:
        """Run ``sql`` (``:name`` parameters) with ``params``; the driver's cursor."""
        return self.conn.execute(self.driver_sql(sql), params)

    def driver_sql(self, sql: str) -> str:
        """``sql`` in the driver's parameters: psycopg's are ``%(name)s``."""
        if self.dialect != "postgresql":
            return sql
        return self._sql.get(sql) or self._sql.setdefault(sql, _PARAM.sub(r"%(\1)s", sql))

    def list_runs(self, **kwargs: Any) -> list[dict[str, Any]]:
        return reads.list_runs(self, **kwargs)

    def run_details(self, run_id: int) -> dict[str, Any] | None:
        """What ``show --json`` prints (:func:`scheduler.queries.run_details`), or None
        where that needs the run's problem (then ask :mod:`scheduler.queries`)."""
        from core.catalog import KIND_MODELS, SOLUTION_READERS

        s = reads.run_summary(self, run_id)
        # a finished run of a model that reads its stored solutions back (a summary, the
        # given grid found) is summarised by its problem; a plugin's kind might be one
        if s["status"] == RunStatus.DONE and (s["kind"] in SOLUTION_READERS or s["kind"] not in KIND_MODELS):
            return None
        return s

    # a waiter's look (scheduler.waiting.RunLook): submit --wait follows its run without SQLAlchemy

    def status(self, run_id: int) -> str:
        return reads.run_status(self, run_id, self._missing(run_id))

    def progress(self, run_id: int) -> Any:
        return reads.progress_of_run(self, reads.read_run(self, run_id, self._missing(run_id)))

    def summary(self, run_id: int) -> dict[str, Any]:
        return reads.run_summary(self, run_id)

    def executor_of(self, run_id: int) -> str:
        return reads.read_run(self, run_id, self._missing(run_id)).executor

    def listening_connection(self) -> Any:
        """A new autocommit connection to the same PostgreSQL database."""
        import psycopg

        return psycopg.connect(**self.connect, connect_timeout=PG_CONNECT_TIMEOUT, autocommit=True)

    def _missing(self, run_id: int) -> str:
        return f"no run {run_id} in the ledger {self.shown_url}"

    def close(self) -> None:
        self.conn.close()


def open_direct(url: str, cls: type[DirectReads] = DirectReads) -> DirectReads | None:
    """The ledger at ``url`` for reading without SQLAlchemy, or None (see above), as
    ``cls`` (:class:`scheduler.direct_writes.DirectWrites` writes too)."""
    head = head_revision()
    if head is None:
        return None
    path = sqlite_file(url)
    if path is not None:
        import sqlite3

        try:
            conn = sqlite3.connect(path, timeout=60, isolation_level=None)
        except sqlite3.Error:
            return None
        reader = cls(conn, "sqlite", url)
    else:
        m = _PG_URL.match(url)
        if m is None:
            return None
        try:
            import psycopg
        except ImportError:
            return None
        parts = {k: v for k, v in m.groupdict().items() if v is not None}
        parts["dbname"] = parts.pop("database")
        try:
            conn = psycopg.connect(**parts, connect_timeout=PG_CONNECT_TIMEOUT, autocommit=True)
        except psycopg.Error:  # open_ledger says why, as it always did
            return None
        shown = url if m["password"] is None else url.replace(f":{m['password']}@", ":***@", 1)
        reader = cls(conn, "postgresql", shown, parts)
    try:
        stored = [v for (v,) in reader("SELECT version_num FROM alembic_version")]
    except Exception:  # no such table (open_ledger makes it, or says what is wrong)
        reader.close()
        return None
    if stored != [head]:
        reader.close()
        return None
    return reader

