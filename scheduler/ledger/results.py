"""Recording results exactly once.

A result is written by one conditional UPDATE (``state`` still pending or leased); a
second write of the same subproblem — a duplicate delivery, a retry after a crash, a
worker whose lease expired — matches no row and changes nothing.  The donated frontier,
the solutions, the census (``--census``: one packed row) and a sampled verification are
written in the same transaction, so they exist exactly when the result does."""
from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any, Callable, Sequence

from sqlalchemy import Connection, bindparam, insert, update
from sqlalchemy.orm import Session

from ..census_codec import pack_census
from ..codec import count_text
from ..db import Ledger
from ..models import CensusRow, Subproblem, utcnow
from ..record_sql import RECORD as _RECORD_SQLITE, STATES, record_values as _values
from ..solution_index import store_solutions
from ..states import OPEN, SubproblemState
from ..work import Outcome
from . import verifications as V
from .pipeline import pipelined, pipelines, transaction
from .subproblems import insert_one, insert_subproblems, subproblem_rows
from .verifications import Sampling

SUB = Subproblem.__table__
CEN = CensusRow.__table__

SOLUTION_CHUNK = 5_000


_RECORD = (
    update(SUB)
    .where(SUB.c.id == bindparam("sub_id"), SUB.c.state.in_(OPEN))
    .values(
        state=SubproblemState.DONE, count=bindparam("r_count"), distinct=bindparam("r_distinct"), nodes=bindparam("r_nodes"),
        seconds=bindparam("r_seconds"), stats=bindparam("r_stats"), done_num=bindparam("r_num"),
        done_den=bindparam("r_den"), done_f=bindparam("r_f"), stopped_by=bindparam("r_stopped"),
        n_donated=bindparam("r_donated"), worker=bindparam("r_worker"), finished_at=bindparam("now"),
        lease_expires=None,
    )
)




def record(conn: Connection | Session, outcome: Outcome, *, queued: bool = False,
           sampling: Sampling | None = None) -> list[int] | None:
    """Write one result: None when it was already written (nothing changes), else the ids
    of the donated subproblems (pending; ``queued`` stamps them as sent to a queue).  A
    verified run (``sampling``) also gets the result's verification, when it is sampled."""
    now = utcnow()
    result = conn.execute(_RECORD, _values(outcome, now))
    if result.rowcount != 1:
        return None
    return _record_rest(conn, outcome, now, queued=queued, sampling=sampling)


def _record_rest(conn: Connection | Session, outcome: Outcome, now, *, queued: bool,
                 sampling: Sampling | None) -> list[int]:
    """What a result writes beside its row, once its row is written: the donated
    subproblems (their ids), the verification when sampled, the solutions, the census."""
    children = insert_subproblems(
        conn, subproblem_rows(outcome.run_id, outcome.frontier, outcome.sub_id, now if queued else None)
    )
    if V.wants_verification(sampling, outcome):
        V.insert_verification(conn, outcome, now if queued else None)
    insert_solutions(conn, outcome.run_id, outcome.sub_id, outcome.solutions or [])
    if outcome.census is not None:
        conn.execute(insert(CEN), dict(subproblem_id=outcome.sub_id, run_id=outcome.run_id,
                                       counts=pack_census(outcome.census)))
    return children


#: :data:`_RECORD` in psycopg's placeholders, its id returned when it wrote, for sending
#: many together (:mod:`.pipeline`); its values typed as the columns' types would
#: (:func:`_pg_values`).  Tested against :data:`_RECORD` row for row.
_RECORD_PG = (
    f"UPDATE {SUB.name} SET state = %(done)s, count = %(r_count)s, \"distinct\" = %(r_distinct)s, "
    "nodes = %(r_nodes)s, seconds = %(r_seconds)s, stats = %(r_stats)s, done_num = %(r_num)s, "
    "done_den = %(r_den)s, done_f = %(r_f)s, stopped_by = %(r_stopped)s, n_donated = %(r_donated)s, "
    "worker = %(r_worker)s, finished_at = %(now)s, lease_expires = NULL "
    "WHERE id = %(sub_id)s AND state = ANY(%(open)s) RETURNING id"
)
OPEN_STATES = [str(state) for state in OPEN]


def _pg_values(outcome: Outcome, now) -> dict:
    from psycopg.types.json import Json

    values = _values(outcome, now)
    values.update(done=str(SubproblemState.DONE), open=OPEN_STATES, r_count=count_text(outcome.count),
                  r_distinct=None if outcome.distinct is None else str(int(outcome.distinct)),
                  r_stats=None if outcome.stats is None else Json(outcome.stats))
    return values


def writes_alone(outcome: Outcome, sampling: Sampling | None) -> bool:
    """Whether recording this result writes its row and nothing else: no donated frontier,
    no solutions, no census, no sampled verification (most results of a count)."""
    return (not outcome.frontier and not outcome.solutions and outcome.census is None
            and not V.wants_verification(sampling, outcome))


def record_all(conn: Connection, outcomes: Sequence[Outcome], *, queued: bool = False,
               sampling: Sampling | None = None) -> list[list[int] | None]:
    """Write several results in the transaction ``conn`` is in, in order (see
    :func:`record`): on PostgreSQL by :func:`record_pipelined`, on SQLite by
    :func:`record_direct`."""
    if pipelines(conn):
        return record_pipelined(conn, outcomes, queued=queued, sampling=sampling)[0]
    if conn.dialect.name == "sqlite":
        return record_direct(conn, outcomes, queued=queued, sampling=sampling)
    return [record(conn, o, queued=queued, sampling=sampling) for o in outcomes]


#: a result's census row (:func:`record`'s insert) for the sqlite3 driver's own cursor
_INSERT_CENSUS_SQLITE = f"INSERT INTO {CEN.name} (subproblem_id, run_id, counts) VALUES (?, ?, ?)"


@lru_cache(maxsize=4)
def _sqlite_binds(dialect) -> dict[str, Callable[[Any], Any]]:
    """How the columns of :data:`_RECORD_SQLITE` bind their values on this dialect (the
    types' own processors: counts as decimal text, statistics as JSON, times as SQLite's
    text), by parameter name."""
    columns = {"r_count": "count", "r_distinct": "distinct", "r_stats": "stats", "now": "finished_at"}
    return {name: SUB.c[column].type.dialect_impl(dialect).bind_processor(dialect) or (lambda v: v)
            for name, column in columns.items()}


def _sqlite_values(outcome: Outcome, now, dialect) -> dict:
    values = _values(outcome, now)
    for name, bind in _sqlite_binds(dialect).items():
        values[name] = bind(values[name])
    values.update(STATES)
    return values


def record_direct(conn: Connection, outcomes: Sequence[Outcome], *, queued: bool = False,
                  sampling: Sampling | None = None) -> list[list[int] | None]:
    """SQLite: :func:`record_all`, the results that :func:`writes_alone` (or with a census
    beside, one row more) by the driver's own cursor, in the transaction SQLAlchemy began — each its row count read at once,
    so a result written before is told apart as :func:`record` tells it.  SQLAlchemy's
    own execution of the same UPDATE cost the local pool's parent about 0.3 ms of CPU a
    result (2026-12-01), which on two cores each searching is taken from a search."""
    now = utcnow()
    recorded: list[list[int] | None] = [None] * len(outcomes)
    cursor = None
    try:
        for i, outcome in enumerate(outcomes):
            census = outcome.census
            if not writes_alone(replace(outcome, census=None) if census is not None else outcome, sampling):
                recorded[i] = record(conn, outcome, queued=queued, sampling=sampling)
                continue
            if cursor is None:
                cursor = conn.connection.driver_connection.cursor()
            cursor.execute(_RECORD_SQLITE, _sqlite_values(outcome, now, conn.dialect))
            recorded[i] = [] if cursor.rowcount == 1 else None
            if census is not None and recorded[i] is not None:
                cursor.execute(_INSERT_CENSUS_SQLITE, (outcome.sub_id, outcome.run_id, pack_census(census)))
    except conn.dialect.loaded_dbapi.Error as exc:
        from sqlalchemy.exc import DBAPIError

        raise DBAPIError.instance(_RECORD_SQLITE, None, exc, conn.dialect.loaded_dbapi.Error,
                                  dialect=conn.dialect) from exc
    finally:
        if cursor is not None:
            cursor.close()
    return recorded


def donates_only(outcome: Outcome, sampling: Sampling | None) -> bool:
    """Whether recording this result writes its row and its donated frontier, nothing
    else (a budget's stop, a hand-over to a worker that asked)."""
    return bool(outcome.frontier) and writes_alone(replace(outcome, frontier=[]), sampling)


def record_pipelined(conn: Connection, outcomes: Sequence[Outcome], *, queued: bool = False,
                     sampling: Sampling | None = None, before: Sequence[tuple[str, dict]] = (),
                     after: Sequence[tuple[str, dict]] = (), then: Sequence[tuple[str, dict]] = (),
                     commit: bool = False) -> tuple[list[list[int] | None], list[list[tuple]]]:
    """PostgreSQL (:func:`~.pipeline.pipelines`): :func:`record_all` in psycopg's pipeline,
    after the statements ``before`` and before those ``after`` (psycopg placeholders, one
    parameter dict each); ``commit``: the transaction's ``COMMIT`` after them (in a
    :func:`~.pipeline.transaction`), then the statements ``then`` in a transaction of their
    own, in the same flush (:func:`~.pipeline.pipelined`).  What each result recorded, in
    order, and the rows of ``after``'s statements, then of ``then``'s.

    Every result's row goes in the first flush.  Where each writes its row alone (most
    results of a count), ``after`` goes with them: one round trip, ``BEGIN`` and
    ``COMMIT`` included.  Where some donate a frontier, their subproblems are inserted —
    for those whose row was written here, so exactly once — with ``after`` in a second
    flush; solutions, a census or a verification are written statement by statement
    between the two."""
    now = utcnow()
    statements = [(sql, [params]) for sql, params in before]
    statements.append((_RECORD_PG, [_pg_values(o, now) for o in outcomes]))
    more = [i for i, o in enumerate(outcomes) if not writes_alone(o, sampling)]
    last = [(sql, [params]) for sql, params in then]
    if not more:
        statements += [(sql, [params]) for sql, params in after]
    rows = pipelined(conn, statements, commit=commit and not more, then=last if not more else ())
    recorded: list[list[int] | None] = [[] if returned else None for returned in rows[len(before)]]
    if not more:
        return recorded, [r[0] for r in rows[len(before) + 1:]]
    inserts, donors = [], []
    for i in more:
        if recorded[i] is None:  # written before: nothing more
            continue
        outcome = outcomes[i]
        if donates_only(outcome, sampling):
            inserts.append(subproblem_rows(outcome.run_id, outcome.frontier, outcome.sub_id, now if queued else None))
            donors.append(i)
        else:
            recorded[i] = _record_rest(conn, outcome, now, queued=queued, sampling=sampling)
    second = [(insert_one(tuple(children[0])), children) for children in inserts]
    rows = pipelined(conn, second + [(sql, [params]) for sql, params in after], commit=commit, then=last)
    for i, inserted in zip(donors, rows):
        recorded[i] = [returned[0][0] for returned in inserted]
    return recorded, [r[0] for r in rows[len(second):]]


def insert_solutions(conn: Connection | Session, run_id: int, sub_id: int, solutions: Sequence[Sequence[int]]) -> None:
    """A subproblem's solutions, packed (:func:`scheduler.codec.pack`), in chunks, each
    with its rows of the options index (:func:`scheduler.solution_index.store_solutions`)."""
    for i in range(0, len(solutions), SOLUTION_CHUNK):
        store_solutions(conn, run_id, sub_id, solutions[i : i + SOLUTION_CHUNK])


def record_results(ledger: Ledger, outcomes: Sequence[Outcome], *, queued: bool = False,
                   sampling: Sampling | None = None) -> list[list[int] | None]:
    """Record several results in one transaction (see :func:`record`): on PostgreSQL one
    round trip where each writes its row alone, ``BEGIN`` and ``COMMIT`` included."""
    with transaction(ledger.engine) as conn:
        if pipelines(conn):
            return record_pipelined(conn, outcomes, queued=queued, sampling=sampling, commit=True)[0]
        return record_all(conn, outcomes, queued=queued, sampling=sampling)
