"""A Celery worker staying on its run: its results traded for the next parcel of the run's
pending subproblems, in one transaction (:func:`pull`).

A run's subproblems reach Celery workers two ways.  ``submit`` sends a message for each
worker serving the queue; the rest of the plan, and every frontier donated later, wait
in the ledger as pending rows.  A worker that has solved its message's subproblems stays
on the run and pulls those rows itself: each pull records what it solved since the last
one and leases the next parcel — the heaviest pending subproblems of a count, a listing's
in search order, up to 1/``share`` of the pending work (guided self-scheduling: big
parcels first, small ones toward the end; :class:`Parcel`).  A pull that finds nothing
pending closes the run when nothing of it is open any more.

Measured against a message for each parcel (2026-12-02, the pentacube box on two Celery
workers): a message cost a worker its Celery hand-over, a lease and a closing record,
three exchanges with two other processes on a machine whose two cores both search; a
pull is one exchange with the database.  Two messages a run where there were eleven, and
a worker's time between searches 73-78 ms a run instead of 110-135 (docs/performance.md,
"Distributed runs").
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Sequence

from sqlalchemy import Connection, bindparam, select

from ..db import Ledger
from ..models import Run, Subproblem, utcnow
from ..states import RunStatus, SubproblemState
from ..work import Outcome, Task
from .leases import lease_ids, task_of
from .pipeline import pipelines, transaction
from .results import record_all, record_pipelined
from .runs import close_when_done, open_look_pg

SUB = Subproblem.__table__
RUN = Run.__table__

#: at most this many subproblems in one parcel
MOST_PER_PARCEL = 64


@dataclass(frozen=True)
class Parcel:
    """How big the next parcel of a run may be, in its share of the tree (weight): 1/``share``
    of the weight of the run's :data:`MOST_PER_PARCEL` heaviest pending subproblems (of a
    listing, its first in search order), but not over ``most_weight`` nor under
    ``least_weight`` (None: no bound) — and at least one subproblem.  Where few are
    pending that is nearly all the pending weight; where many are, less, and no pull reads
    every pending row (an index gives the heaviest: 43,310 pending, 23 ms a pull when it
    summed them all)."""

    share: int
    most_weight: float | None = None
    least_weight: float | None = None
    #: heaviest first (a count), or in search order (a listing: its solutions come in order)
    heaviest_first: bool = True

    @classmethod
    def of_seconds(cls, share: int, rate: float | None, most: float, least: float,
                   heaviest_first: bool = True) -> "Parcel":
        """A parcel of ``most`` seconds at most and ``least`` at least, at ``rate``
        seconds per unit of weight (None: unmeasured, no bound in seconds)."""
        if rate is None or rate <= 0:
            return cls(share, None, None, heaviest_first)
        return cls(share, most / rate, least / rate, heaviest_first)

    def cap(self, pending_weight: float) -> float:
        """The weight a parcel may hold, ``pending_weight`` the candidates' weight."""
        cap = pending_weight / self.share
        if self.least_weight is not None:
            cap = max(cap, self.least_weight)
        if self.most_weight is not None:
            cap = min(cap, self.most_weight)
        return cap

    def pick(self, candidates: Sequence[tuple[int, float]]) -> list[int]:
        """The ids of the parcel among the ``candidates`` (id, weight; the run's heaviest
        pending subproblems, or its first, at most :data:`MOST_PER_PARCEL`), in order:
        while the weight taken before each is under the cap."""
        candidates = candidates[:MOST_PER_PARCEL]
        cap, taken, ids = self.cap(sum(weight for _, weight in candidates)), 0.0, []
        for sub_id, weight in candidates:
            if ids and taken >= cap:
                break
            ids.append(sub_id)
            taken += weight
        return ids


@dataclass(frozen=True)
class Pull:
    """What one pull did: what each result recorded (see :func:`~.results.record`), the
    parcel leased, and whether this pull closed the run."""

    recorded: list[list[int] | None]
    tasks: list[Task]
    closed: bool = False


def pull(ledger: Ledger, run_id: int, owner: str, outcomes: Sequence[Outcome], parcel: Parcel,
         lease_seconds: float) -> Pull:
    """Record ``outcomes`` (their donated frontiers stay pending here, for whoever pulls
    next) and lease ``owner`` the run's next parcel, in one transaction; when none is
    pending, close the run if nothing of it is open any more (a second transaction).
    Nothing is leased from a run that is not running.  On PostgreSQL the results and the
    parcel go in one pipeline with the transaction's ``BEGIN`` and ``COMMIT``: one round
    trip (two where a result donates, :func:`~.results.record_pipelined`) — and with them,
    in a transaction of its own, the look at whether anything of the run is still open
    (:func:`~.runs.open_look_pg`): a pull that finds nothing pending while something is
    open (another worker's search, or this one's own, pulled ahead of it) is done in that
    round trip, where the look and its ``COMMIT`` were two more (0.3 s a pull at 50 ms
    one way, traced 2026-12-07); only one that finds nothing open goes on to close."""
    now = utcnow()
    expires = now + dt.timedelta(seconds=lease_seconds)
    with transaction(ledger.engine) as conn:
        if pipelines(conn):
            params = _pull_params(run_id, owner, parcel, expires)
            sql = _PULL_PG_HEAVIEST if parcel.heaviest_first else _PULL_PG_IN_ORDER
            recorded, (rows, _locked, still_open) = record_pipelined(
                conn, outcomes, queued=True, after=[(sql, params)], then=open_look_pg(run_id), commit=True)
            if not rows and still_open:
                return Pull(recorded, [])
        else:
            recorded = record_all(conn, outcomes, queued=True)
            rows = _pull_rows(conn, run_id, owner, parcel, now, expires)
        if rows:
            return Pull(recorded, _in_parcel_order([task_of(row) for row in rows], parcel))
    # nothing pending (nor open, on PostgreSQL): the run closed if nothing of it is open, in
    # a transaction of its own that locks the run's row and nothing else (the results'
    # rows, locked above, then the run's row deadlocked against a message's closing record,
    # which locks the run's row first; the last pull to take the run's row sees every
    # result committed before it)
    return Pull(recorded, [], close_when_done(ledger, run_id))


def _in_parcel_order(tasks: list[Task], parcel: Parcel) -> list[Task]:
    """The leased tasks in the parcel's order (a statement returns its rows in any order):
    heaviest first, the last planned or donated first among equals, as the index reads
    them (a count's order among equal weights is of no matter); or by id."""
    if parcel.heaviest_first:
        return sorted(tasks, key=lambda t: (-t.weight, -t.sub_id))
    return sorted(tasks, key=lambda t: t.sub_id)


def _pull_params(run_id: int, owner: str, parcel: Parcel, expires: dt.datetime) -> dict:
    return {"run_id": run_id, "owner": owner, "expires": expires, "share": float(parcel.share),
            "most_w": parcel.most_weight, "least_w": parcel.least_weight, "limit": MOST_PER_PARCEL,
            "pending": str(SubproblemState.PENDING), "leased": str(SubproblemState.LEASED),
            "running": str(RunStatus.RUNNING)}


def _pull_pg(order: str) -> str:
    """The parcel as one statement (PostgreSQL): the candidates (read from the index in
    order) and their weight, each computed once (``MATERIALIZED``: planned without it,
    the sum was taken again for each candidate, 18 ms for 40 rows), the ones whose weight
    before them is under the cap, leased if still pending.  ``LEAST``/``GREATEST`` pass
    over a NULL bound."""
    return (
        f"WITH cand AS MATERIALIZED (SELECT id, weight_f FROM {SUB.name} "
        f"WHERE run_id = %(run_id)s AND state = %(pending)s ORDER BY {order} LIMIT %(limit)s), "
        f"cap AS MATERIALIZED (SELECT LEAST(%(most_w)s, GREATEST(%(least_w)s, COALESCE(SUM(weight_f), 0) / %(share)s)) "
        f"AS w FROM cand), "
        f"pick AS MATERIALIZED (SELECT c.id FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY {order}) AS n, "
        f"COALESCE(SUM(weight_f) OVER (ORDER BY {order} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before "
        f"FROM cand) c, cap WHERE c.n = 1 OR c.before < cap.w) "
        f"UPDATE {SUB.name} s SET state = %(leased)s, lease_owner = %(owner)s, lease_expires = %(expires)s, "
        f"attempts = s.attempts + 1 FROM pick WHERE s.id = pick.id AND s.state = %(pending)s "
        f"AND EXISTS (SELECT 1 FROM {RUN.name} WHERE id = %(run_id)s AND status = %(running)s) "
        f"RETURNING s.id, s.run_id, s.path, s.weight_num, s.weight_den"
    )


_PULL_PG_HEAVIEST = _pull_pg("weight_f DESC, id DESC")
_PULL_PG_IN_ORDER = _pull_pg("id")

_PENDING = (SUB.c.run_id == bindparam("run_id"), SUB.c.state == SubproblemState.PENDING)
_CANDIDATES_HEAVIEST = select(SUB.c.id, SUB.c.weight_f).where(*_PENDING) \
    .order_by(SUB.c.weight_f.desc(), SUB.c.id.desc()).limit(MOST_PER_PARCEL)
_CANDIDATES_IN_ORDER = select(SUB.c.id, SUB.c.weight_f).where(*_PENDING).order_by(SUB.c.id).limit(MOST_PER_PARCEL)
_RUNNING = select(RUN.c.id).where(RUN.c.id == bindparam("run_id"), RUN.c.status == RunStatus.RUNNING)


def _pull_rows(conn: Connection, run_id: int, owner: str, parcel: Parcel, now: dt.datetime,
               expires: dt.datetime) -> list:
    """:func:`pull`'s parcel on another database (SQLite: its writers take turns, so the
    three statements see what the UPDATE does)."""
    if conn.execute(_RUNNING, {"run_id": run_id}).first() is None:
        return []
    candidates = conn.execute(_CANDIDATES_HEAVIEST if parcel.heaviest_first else _CANDIDATES_IN_ORDER,
                              {"run_id": run_id}).all()
    if not candidates:
        return []
    ids = parcel.pick([(row[0], row[1]) for row in candidates])
    return lease_ids(conn, ids, owner, now, expires)
