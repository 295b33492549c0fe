"""Recording results exactly once.

A result is written by one conditional UPDATE (``state`` still pending or leased); a
second write of the same subproblem — a duplicate delivery, a retry after a crash, a
worker whose lease expired — matches no row and changes nothing.  The donated frontier,
the solutions and a sampled verification are written in the same transaction, so they
exist exactly when the result does."""
from __future__ import annotations

from typing import Sequence

from sqlalchemy import Connection, bindparam, insert, update
from sqlalchemy.orm import Session

from ..codec import fraction_parts, pack
from ..db import Ledger
from ..models import Solution, Subproblem, utcnow
from ..states import OPEN, SubproblemState
from ..work import Outcome
from . import verifications as V
from .subproblems import insert_subproblems, subproblem_rows
from .verifications import Sampling

SUB = Subproblem.__table__
SOL = Solution.__table__

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


_INSERT_SOLUTIONS = insert(SOL)


def record(conn: Connection | Session, outcome: Outcome, *, queued: bool = False,
           sampling: Sampling | None = None) -> list[int] | None:
    """Write one result: None when it was already written (nothing changes), else the ids
    of the donated subproblems (pending; ``queued`` stamps them as sent to a queue).  A
    verified run (``sampling``) also gets the result's verification, when it is sampled."""
    now = utcnow()
    num, den, approx = fraction_parts(outcome.weight_done)
    result = conn.execute(
        _RECORD,
        {
            "sub_id": outcome.sub_id, "r_count": outcome.count, "r_distinct": outcome.distinct,
            "r_nodes": outcome.nodes, "r_seconds": outcome.seconds, "r_stats": outcome.stats, "r_num": num,
            "r_den": den, "r_f": approx, "r_stopped": outcome.stopped_by, "r_donated": len(outcome.frontier),
            "r_worker": outcome.worker, "now": now,
        },
    )
    if result.rowcount != 1:
        return None
    children = insert_subproblems(
        conn, subproblem_rows(outcome.run_id, outcome.frontier, outcome.sub_id, now if queued else None)
    )
    if V.wants_verification(sampling, outcome):
        V.insert_verification(conn, outcome, now if queued else None)
    insert_solutions(conn, outcome.run_id, outcome.sub_id, outcome.solutions or [])
    return children


def insert_solutions(conn: Connection | Session, run_id: int, sub_id: int, solutions: Sequence[Sequence[int]]) -> None:
    """A subproblem's solutions, packed (:func:`scheduler.codec.pack`), in chunks."""
    rows = [dict(run_id=run_id, subproblem_id=sub_id, options=pack(s)) for s in solutions]
    for i in range(0, len(rows), SOLUTION_CHUNK):
        conn.execute(_INSERT_SOLUTIONS, rows[i : i + SOLUTION_CHUNK])


def record_results(ledger: Ledger, outcomes: Sequence[Outcome], *, queued: bool = False,
                   sampling: Sampling | None = None) -> list[list[int] | None]:
    """Record several results in one transaction (see :func:`record`)."""
    with ledger.engine.begin() as conn:
        return [record(conn, o, queued=queued, sampling=sampling) for o in outcomes]
