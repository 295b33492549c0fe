"""Storing solutions with the rows of the index of their options (``solution_options``),
in the same transaction, so a ``--where`` query (:mod:`scheduler.where_sql`) always sees
exactly the stored solutions.

Through the driver's own cursor, inside the transaction SQLAlchemy began: SQLAlchemy's
``executemany`` of the index rows (twelve a pentomino solution) cost 7x the solutions
alone on PostgreSQL (9,356 solutions: 4.3 s against 0.58 s, 2026-12-04, load 12).  On
PostgreSQL the solutions' ids are drawn from their sequence first, then solutions and
index rows go by ``COPY``; on SQLite each solution's id is its insert's ``lastrowid``,
the index rows one ``executemany``.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Sequence

from .codec import pack

if TYPE_CHECKING:
    from sqlalchemy import Connection
    from sqlalchemy.orm import Session


def option_tuples(run_id: int, solution_ids: Sequence[int],
                  solutions: Iterable[Sequence[int]]) -> list[tuple[int, int, int]]:
    """``(run_id, option_id, solution_id)``: one row per distinct option of each solution."""
    return [(run_id, int(o), sid) for sid, options in zip(solution_ids, solutions) for o in sorted(set(options))]


def store_solutions(conn: "Connection | Session", run_id: int, sub_id: int, solutions: Sequence[Sequence[int]]) -> None:
    """Insert the solutions of one subproblem and their index rows."""
    from sqlalchemy.exc import DBAPIError  # (not at import: scheduler.sqlite_direct goes without SQLAlchemy)
    from sqlalchemy.orm import Session

    if not solutions:
        return
    connection = conn.connection() if isinstance(conn, Session) else conn
    dialect = connection.dialect
    driver = connection.connection.driver_connection
    try:
        if dialect.name == "postgresql":
            store_postgresql(driver, run_id, sub_id, solutions)
        else:
            store_sqlite(driver, run_id, sub_id, solutions)
    except dialect.loaded_dbapi.Error as exc:  # as SQLAlchemy's own (an outage is an OperationalError)
        raise DBAPIError.instance("INSERT INTO solutions, solution_options", None, exc, dialect.loaded_dbapi.Error,
                                  dialect=dialect) from exc


def store_sqlite(driver, run_id: int, sub_id: int, solutions: Sequence[Sequence[int]]) -> None:
    """The SQLite way, on a ``sqlite3`` connection (also :mod:`scheduler.sqlite_direct`'s)."""
    cursor = driver.cursor()
    try:
        ids = []
        for s in solutions:
            cursor.execute("INSERT INTO solutions (run_id, subproblem_id, options) VALUES (?, ?, ?)",
                           (run_id, sub_id, pack(s)))
            ids.append(cursor.lastrowid)
        # in key order: each row goes next to the last one in the table's B-tree
        cursor.executemany("INSERT INTO solution_options (run_id, option_id, solution_id) VALUES (?, ?, ?)",
                           sorted(option_tuples(run_id, ids, solutions)))
    finally:
        cursor.close()


def store_postgresql(driver, run_id: int, sub_id: int, solutions: Sequence[Sequence[int]]) -> None:
    """The PostgreSQL way, on a psycopg connection (also :mod:`scheduler.direct_writes`')."""
    with driver.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('solutions', 'id')) FROM generate_series(1, %s)",
                       (len(solutions),))
        ids = [i for (i,) in cursor.fetchall()]
        with cursor.copy("COPY solutions (id, run_id, subproblem_id, options) FROM STDIN") as copy:
            for sid, s in zip(ids, solutions):
                copy.write_row((sid, run_id, sub_id, pack(s)))
        with cursor.copy("COPY solution_options (run_id, option_id, solution_id) FROM STDIN") as copy:
            for row in option_tuples(run_id, ids, solutions):
                copy.write_row(row)
