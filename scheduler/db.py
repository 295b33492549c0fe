"""Where the ledger lives and how to talk to it: URLs, engines, sessions, the schema.

The URL comes from ``--db``, else ``TILECENSUS_DB_URL``, else a SQLite file in the
user's data directory.  :func:`open_ledger` checks that the database answers and brings
its schema to the newest Alembic revision, so every command can just use it.
"""
from __future__ import annotations

import contextlib
import os
import threading
import time
from pathlib import Path
from typing import Iterator

from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, DisconnectionError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from .env import ENV_DB_URL, default_url, resolve_url  # noqa: F401  (re-exported)
from .errors import LedgerError
from .round_trips import ROUND_TRIPS
from .schema_head import head_revision


def safe_url(url: str) -> str:
    """The URL without its password, for messages."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url


def make_engine(url: str, *, read_only: bool = False) -> Engine:
    """An engine for ``url``: SQLite in WAL mode with a long busy timeout, PostgreSQL
    with a short connect timeout so a database that does not answer fails fast.
    ``read_only``: every connection refuses writes (SQLite ``query_only``, PostgreSQL
    read-only transactions) and SQLite transactions take no write lock, so a reader (the
    web page) never holds up a worker."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        raise LedgerError(f"not a database URL: {url!r} (a SQLite file is sqlite:///PATH)") from None
    backend = parsed.get_backend_name()
    try:
        if backend == "sqlite":
            db = parsed.database
            if db and db != ":memory:" and not db.startswith("file:"):
                Path(db).expanduser().parent.mkdir(parents=True, exist_ok=True)
            engine = create_engine(parsed, connect_args={"timeout": 60})
            event.listen(engine, "connect", _sqlite_reader_pragmas if read_only else _sqlite_pragmas)
            event.listen(engine, "begin", _sqlite_begin_deferred if read_only else _sqlite_begin)
        elif backend == "postgresql":
            if parsed.drivername == "postgresql":
                parsed = parsed.set(drivername="postgresql+psycopg")
            # synchronous_commit=off: a commit lost in a database crash only means its
            # subproblem is solved again when its lease expires — never counted twice.
            options = "-c default_transaction_read_only=on" if read_only else "-c synchronous_commit=off"
            engine = create_engine(
                parsed, pool_size=5, max_overflow=5,
                connect_args={"connect_timeout": 5, "options": options},
            )
            _ping_when_idle(engine)
        else:
            engine = create_engine(parsed)
    except (ArgumentError, ImportError) as exc:
        raise LedgerError(f"cannot use database URL {safe_url(url)}: {exc}") from None
    return engine


#: a pooled PostgreSQL connection idle longer than this is pinged before it is used (seconds)
PING_AFTER_IDLE = 1.0
#: ... or than this many of the ledger's round trips as this process measured them, where
#: that is longer: 50 ms away a worker's connections idle a second or two between its
#: transactions (a record every 20 round trips of solving), and a ping before each was one
#: round trip more each (2026-12-07, bench/two_hosts.py --trace)
PING_AFTER_TRIPS = 50


def _ping_when_idle(engine: Engine) -> None:
    """Ping a pooled connection before use only when it has been idle for
    :data:`PING_AFTER_IDLE`; a dead one (the database restarted, a proxy dropped it) is
    replaced, as ``pool_pre_ping`` would.  A worker checks a connection out several times
    a message, milliseconds apart: a ping each time was a round trip more each time, two a
    message, waiting like the others for a core the searches hold.  A database that dies
    within a second of a connection's last use fails that use; the task's lease expires
    and the scheduler sends it again."""

    @event.listens_for(engine, "checkin")
    def _checked_in(_dbapi_conn, record) -> None:
        record.info["idle_since"] = time.monotonic()

    @event.listens_for(engine, "checkout")
    def _checked_out(dbapi_conn, record, _proxy) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < ROUND_TRIPS.at_least(PING_AFTER_IDLE, PING_AFTER_TRIPS):
            return  # new, or used a moment ago
        try:
            engine.dialect.do_ping(dbapi_conn)
        except engine.dialect.loaded_dbapi.Error as exc:  # the pool connects again
            raise DisconnectionError(f"a pooled connection idle {time.monotonic() - since:.0f} s is gone") from exc


def _sqlite_pragmas(dbapi_conn, _record) -> None:
    dbapi_conn.isolation_level = None  # transactions begin in _sqlite_begin
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=NORMAL")
    cur.execute("PRAGMA foreign_keys=ON")
    cur.close()


def _sqlite_reader_pragmas(dbapi_conn, _record) -> None:
    """A reader's connection: no write at all, not even the switch to WAL (a ledger that
    tilecensus wrote is in WAL mode already)."""
    dbapi_conn.isolation_level = None  # transactions begin in _sqlite_begin_deferred
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA query_only=ON")
    cur.close()


def _sqlite_begin_deferred(conn) -> None:
    """A reader's transaction: a snapshot, without SQLite's write lock."""
    conn.exec_driver_sql("BEGIN")


def _sqlite_begin(conn) -> None:
    """Take SQLite's write lock up front: a read-then-write transaction (a lease) never
    fails midway because another process wrote first; waiting obeys the busy timeout."""
    conn.exec_driver_sql("BEGIN IMMEDIATE")


class Ledger:
    """An engine and a session factory for one ledger URL."""

    def __init__(self, url: str, *, read_only: bool = False):
        self.url = url
        self.read_only = read_only
        self.engine = make_engine(url, read_only=read_only)
        self.Session = sessionmaker(self.engine, expire_on_commit=False)
        self.pid = os.getpid()

    @property
    def dialect(self) -> str:
        return self.engine.dialect.name

    @contextlib.contextmanager
    def session(self) -> Iterator[Session]:
        """A session in one transaction: committed on success, rolled back on error."""
        with self.Session() as session, session.begin():
            yield session

    def check(self) -> None:
        """Raise :class:`LedgerError` when the database does not answer."""
        try:
            with self.engine.connect() as conn:
                conn.execute(text("SELECT 1"))
        except OperationalError as exc:
            reason = str(exc.orig).strip().splitlines()[0] if exc.orig else str(exc).splitlines()[0]
            raise LedgerError(f"cannot reach the database {safe_url(self.url)}: {reason}") from None
        except SQLAlchemyError as exc:
            raise LedgerError(f"cannot use the database {safe_url(self.url)}: {str(exc).splitlines()[0]}") from None

    def schema_is_head(self) -> bool:
        """Whether the stored schema revision is the newest one (read without Alembic)."""
        head = head_revision()
        if head is None:
            return False
        with self.engine.connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return False
            stored = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
        return stored == [head]

    def dispose(self) -> None:
        self.engine.dispose()


_LEDGERS: dict[tuple[int, str], Ledger] = {}
#: one ledger is opened at a time (a worker's pool process opens its ledger from a thread
#: at its start, :mod:`scheduler.connect_ahead`, while its first message may ask too)
_OPENING = threading.Lock()


def missing_file(url: str) -> str | None:
    """The path of a SQLite ledger file that does not exist, else None (another database,
    an in-memory one, or a file that is there)."""
    try:
        parsed = make_url(url)
    except ArgumentError:
        return None
    db = parsed.database
    if parsed.get_backend_name() != "sqlite" or not db or db == ":memory:" or db.startswith("file:"):
        return None
    path = Path(db).expanduser()
    return None if path.exists() else str(path)


def open_ledger(url: str | None = None, *, upgrade: bool = True, existing: bool = False) -> Ledger:
    """The ledger at ``url`` (resolved as above), checked and migrated; one per process.
    ``existing``: a SQLite file that is not there is a :class:`LedgerError`, and nothing
    is created (the commands that only read).  Alembic is loaded only when the schema is
    behind (or its revision cannot be read)."""
    url = resolve_url(url)
    key = (os.getpid(), url)
    ledger = _LEDGERS.get(key)
    if ledger is not None:
        return ledger
    if existing and (path := missing_file(url)) is not None:
        raise LedgerError(f"no ledger at {path}: no run has been recorded there (--db or ${ENV_DB_URL} names "
                          "the ledger to read)")
    with _OPENING:
        ledger = _LEDGERS.get(key)
        if ledger is None:
            ledger = Ledger(url)
            ledger.check()
            if upgrade and not ledger.schema_is_head():
                from .migrate import ensure_schema  # Alembic is slow to import: only here

                ensure_schema(ledger.engine)
            _LEDGERS[key] = ledger
        return ledger


def open_reader(url: str | None = None) -> Ledger:
    """The ledger at ``url`` (resolved as above) for reading only: checked, never created
    nor migrated (a missing SQLite file or an old schema is a :class:`LedgerError`)."""
    url = resolve_url(url)
    parsed = make_url(url) if "://" in url else None
    if parsed is not None and parsed.get_backend_name() == "sqlite":
        db = parsed.database
        if not db or db == ":memory:" or not Path(db).expanduser().is_file():
            raise LedgerError(f"no ledger file at {safe_url(url)} (a run creates it)")
    ledger = Ledger(url, read_only=True)
    ledger.check()
    from .migrate import current_revision, head_revision  # Alembic is slow to import: only here

    current, head = current_revision(ledger.engine), head_revision()
    if current != head:
        ledger.dispose()
        raise LedgerError(f"the ledger {safe_url(url)} has schema {current or 'none'}, not {head}: "
                          "run `tilecensus db upgrade` first")
    return ledger


def close_ledger(url: str) -> None:
    """Forget this process's ledger at ``url`` and close its connections (a database about
    to be dropped)."""
    for key in [k for k in _LEDGERS if k[1] == url]:
        _LEDGERS.pop(key).dispose()


def after_fork() -> None:
    """In a forked child: let go of the connections inherited from the parent without
    closing them (they are the parent's, still in use there)."""
    for ledger in _LEDGERS.values():
        ledger.engine.dispose(close=False)
