"""Statements sent together in psycopg's pipeline (PostgreSQL): one round trip for all,
where each statement was one.

A round trip is what a worker's ledger writes cost on a machine whose cores also
search: the database's process waits for a core each time (2026-11-28, the pentacube
box on two Celery workers: recording took each worker 0.08-0.19 s of a 2.5 s run, one
UPDATE a result).  SQLAlchemy reads each statement's row count before it sends the
next, so these go to the driver's connection, inside the transaction SQLAlchemy began.
"""
from __future__ import annotations

from typing import Any, Sequence

from sqlalchemy import Connection


def pipelines(conn: Connection) -> bool:
    """Whether ``conn`` can send statements together (PostgreSQL through psycopg)."""
    return conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg"


def pipelined(conn: Connection, statements: Sequence[tuple[str, Sequence[dict[str, Any]]]]) -> list[list[list[tuple]]]:
    """Run each ``(sql, params)`` once per parameter dict (psycopg's ``%(name)s``
    placeholders), all in one pipeline, in order, in the transaction ``conn`` is in.
    The rows returned: per statement, per parameter dict (an empty list where a
    statement returns none).  The driver's errors come out as SQLAlchemy's (an outage
    is an ``OperationalError``, as for any other statement), and a connection the
    database dropped is invalidated, so that the pool does not hand it out again."""
    import psycopg
    from sqlalchemy.exc import DBAPIError

    driver = conn.connection.dbapi_connection
    cursors = []
    try:
        with driver.pipeline():
            for sql, params in statements:
                cursor = driver.cursor()
                cursors.append(cursor)
                if params:
                    cursor.executemany(sql, params, returning=True)
        return [_rows(cursor) if params else [] for cursor, (_, params) in zip(cursors, statements)]
    except psycopg.Error as exc:
        dropped = driver.broken or driver.closed
        if dropped:
            conn.invalidate(exc)
        raise DBAPIError.instance("; ".join(sql for sql, _ in statements), None, exc, psycopg.Error,
                                  connection_invalidated=dropped, dialect=conn.dialect) from exc
    finally:
        for cursor in cursors:
            cursor.close()


def _rows(cursor) -> list[list[tuple]]:
    """Each result set of an ``executemany(..., returning=True)``, in order."""
    found = []
    while True:
        found.append(cursor.fetchall() if cursor.description is not None else [])
        if not cursor.nextset():
            return found
