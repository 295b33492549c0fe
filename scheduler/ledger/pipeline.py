"""Statements sent together in psycopg's pipeline (PostgreSQL): one round trip for all,
where each statement was one — and, in a :func:`transaction`, the transaction's
``BEGIN`` and ``COMMIT`` in the same flush, so that a worker's lease, record or pull is
one round trip on the wire.

A round trip is what a worker's ledger writes cost on a machine whose cores also
search: the database's process waits for a core each time (2026-11-28, the pentacube
box on two Celery workers: recording took each worker 0.08-0.19 s of a 2.5 s run, one
UPDATE a result).  Over a link with latency it is the latency, twice: at 20 ms one way a
transaction of four or five round trips (psycopg's ``BEGIN`` waited for, each
``executemany`` flushed and waited for, the pipeline's ``Sync``, ``COMMIT``) took
0.16-0.2 s (docs/performance.md, "Two hosts").  SQLAlchemy reads each statement's row
count before it sends the next, so these go to the driver's connection, inside the
transaction SQLAlchemy began.
"""
from __future__ import annotations

import contextlib
import time
from typing import Any, Iterator, Sequence

from sqlalchemy import Connection, Engine, event

from ..round_trips import ROUND_TRIPS

#: the key, in a pooled connection's ``info``, saying that its transaction's ``BEGIN`` is
#: not sent yet (it goes with the next pipeline, or before SQLAlchemy's next statement)
_BEGIN_PENDING = "tilecensus_begin_pending"


def pipelines(conn: Connection | Engine) -> bool:
    """Whether ``conn`` (or an engine's connections) can send statements together
    (PostgreSQL through psycopg)."""
    return conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg"


@contextlib.contextmanager
def transaction(engine: Engine) -> Iterator[Connection]:
    """``engine.begin()``, but on PostgreSQL through psycopg the transaction's ``BEGIN``
    goes with its first :func:`pipelined` statements and, where that call says it is the
    last (``commit=True``), its ``COMMIT`` too: one round trip where there were four.

    psycopg sends ``BEGIN`` by itself and waits for it (it syncs its pipeline after it),
    and commits by one more round trip; so the driver's connection is put in autocommit
    for the transaction and the ``BEGIN`` and ``COMMIT`` are sent as statements.  A
    SQLAlchemy statement run before any pipeline sends the ``BEGIN`` first (an event);
    one run after a pipeline that committed runs in a transaction of its own (the
    callers pass ``commit=True`` only on their last statements).  On an error SQLAlchemy
    rolls back as ever: psycopg sends ``ROLLBACK`` while the database is in the
    transaction, and nothing when the ``COMMIT`` went through or the connection is gone."""
    with engine.connect() as conn:
        if not pipelines(conn):
            with conn.begin():
                yield conn
            return
        _listen(engine)
        driver = conn.connection.dbapi_connection
        driver.autocommit = True
        conn.info[_BEGIN_PENDING] = True
        try:
            with conn.begin():
                yield conn
        finally:
            conn.info.pop(_BEGIN_PENDING, None)
            if not (driver.closed or driver.broken):
                driver.autocommit = False


@contextlib.contextmanager
def single_statements(engine: Engine) -> Iterator[Connection]:
    """A connection for statements that are each a transaction of their own: on
    PostgreSQL in autocommit, one round trip each where ``engine.connect()`` made three
    (psycopg's ``BEGIN``, the statement, the ``ROLLBACK`` or ``COMMIT``); elsewhere as it
    is (a write is committed by the caller)."""
    with engine.connect() as conn:
        yield conn.execution_options(isolation_level="AUTOCOMMIT") if pipelines(conn) else conn


def _listen(engine: Engine) -> None:
    """The event that sends a pending ``BEGIN`` before SQLAlchemy's next statement (once
    an engine)."""
    if not event.contains(engine, "before_cursor_execute", _begin_first):
        event.listen(engine, "before_cursor_execute", _begin_first)


def _begin_first(conn, cursor, _statement, _parameters, _context, _executemany) -> None:
    if conn.info.pop(_BEGIN_PENDING, False):
        cursor.execute("BEGIN")


def pipelined(conn: Connection, statements: Sequence[tuple[str, Sequence[dict[str, Any]]]], *,
              commit: bool = False, then: Sequence[tuple[str, Sequence[dict[str, Any]]]] = ()) -> list[list[list[tuple]]]:
    """Run each ``(sql, params)`` once per parameter dict (psycopg's ``%(name)s``
    placeholders), all in one pipeline, in order, in the transaction ``conn`` is in —
    after its ``BEGIN`` where it was not sent yet (:func:`transaction`), and ``commit``:
    followed by its ``COMMIT`` (in a :func:`transaction`; nothing must follow but
    ``then``: statements in a transaction of their own, begun and committed in the same
    flush, which sees the first committed).  The rows returned: per statement, ``then``'s
    after the others, per parameter dict (an empty list where a statement returns
    none).  The driver's errors come out as SQLAlchemy's (an outage is an
    ``OperationalError``, as for any other statement), and a connection the database
    dropped is invalidated, so that the pool does not hand it out again.

    Each statement is an ``execute`` of its own: psycopg's ``executemany(...,
    returning=True)`` waits for its results before the next statement is sent."""
    import psycopg
    from sqlalchemy.exc import DBAPIError

    driver = conn.connection.dbapi_connection
    if then and not (commit and driver.autocommit):
        raise ValueError("statements in a transaction of their own follow a COMMIT sent here (commit=True, in a transaction())")
    begin = conn.info.pop(_BEGIN_PENDING, False)
    whole = begin and commit  # the whole transaction in one flush: a round trip, timed
    cursors: list[list] = []
    started = time.perf_counter()
    try:
        with driver.pipeline():
            if begin:
                driver.execute("BEGIN")
            _execute_each(driver, statements, cursors)
            if commit and driver.autocommit:
                driver.execute("COMMIT")
            if then:
                driver.execute("BEGIN")
                _execute_each(driver, then, cursors)
                driver.execute("COMMIT")
        rows = [[cursor.fetchall() if cursor.description is not None else [] for cursor in each] for each in cursors]
    except psycopg.Error as exc:
        dropped = driver.broken or driver.closed
        if dropped:
            conn.invalidate(exc)
        raise DBAPIError.instance("; ".join(sql for sql, _ in [*statements, *then]), None, exc, psycopg.Error,
                                  connection_invalidated=dropped, dialect=conn.dialect) from exc
    finally:
        for each in cursors:
            for cursor in each:
                cursor.close()
    if whole:
        ROUND_TRIPS.observe(time.perf_counter() - started)
    return rows


def _execute_each(driver, statements: Sequence[tuple[str, Sequence[dict[str, Any]]]], cursors: list[list]) -> None:
    """Each statement once per parameter dict, its cursors kept in ``cursors``."""
    for sql, params in statements:
        cursors.append([])
        for one in params:
            cursor = driver.cursor()
            cursors[-1].append(cursor)
            cursor.execute(sql, one)
