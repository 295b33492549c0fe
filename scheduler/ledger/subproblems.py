"""Subproblem rows: a frontier written as pending subproblems of a run; their weights."""
from __future__ import annotations

from functools import lru_cache
from fractions import Fraction
from typing import Sequence

from sqlalchemy import Connection, insert, select
from sqlalchemy.orm import Session

from ..codec import fraction_of
from ..models import Subproblem
from ..rows import subproblem_rows  # noqa: F401  (re-exported: written without SQLAlchemy too)
from .pipeline import pipelined, pipelines

SUB = Subproblem.__table__
_INSERT_SUBS = insert(SUB).returning(SUB.c.id, sort_by_parameter_order=True)


def insert_subproblems(conn: Connection | Session, rows: list[dict]) -> list[int]:
    """Insert subproblem rows (from :func:`subproblem_rows`); their ids, in order."""
    if not rows:
        return []
    connection = conn.connection() if isinstance(conn, Session) else conn
    if pipelines(connection):
        return _insert_pipelined(connection, rows)
    return [r[0] for r in conn.execute(_INSERT_SUBS, rows)]


def _insert_pipelined(conn: Connection, rows: list[dict]) -> list[int]:
    """PostgreSQL: one short INSERT per row, sent together in psycopg's pipeline (one
    round trip, each row's id returned in order).  SQLAlchemy's one INSERT of many VALUES
    is a query as long as the rows, which psycopg parses afresh each time: 266 rows took
    9 ms that way, 4 ms this way (2026-11-28), on every donated frontier a worker records."""
    return [returned[0][0] for returned in pipelined(conn, [(insert_one(tuple(rows[0])), rows)])[0]]


@lru_cache(maxsize=8)
def insert_one(columns: tuple[str, ...]) -> str:
    """One row's INSERT with these columns, psycopg's named placeholders, its id returned."""
    return (f"INSERT INTO {SUB.name} ({', '.join(columns)}) VALUES ({', '.join(f'%({c})s' for c in columns)}) "
            "RETURNING id")


def weights_of(conn: Connection | Session, sub_ids: Sequence[int]) -> list[Fraction]:
    """The weights of these subproblems, in the order given, in one query (chunked past
    a thousand ids); an id not in the ledger weighs 0."""
    found: dict[int, Fraction] = {}
    for i in range(0, len(sub_ids), 1000):
        chunk = list(sub_ids[i : i + 1000])
        rows = conn.execute(select(SUB.c.id, SUB.c.weight_num, SUB.c.weight_den).where(SUB.c.id.in_(chunk)))
        found.update((sub_id, fraction_of(num, den)) for sub_id, num, den in rows)
    return [found.get(sub_id, Fraction(0)) for sub_id in sub_ids]
