"""The verifications of a ``--verify P`` run, in the ledger: which complete subproblems are
re-solved, and the rows of the ``verifications`` table that carry that work (re-solving
and comparing is :mod:`scheduler.verification`).

A subproblem is sampled by a hashed coin (:mod:`scheduler.sampling`).  The row is
written in the transaction that records the result, so a sampled result never exists
without its verification.

Each row names the worker that recorded the result (``worker``); whoever verifies must be
a different process.  States: pending, leased, done, cancelled — like subproblems.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Sequence

from sqlalchemy import Connection, and_, bindparam, func, insert, or_, select, update
from sqlalchemy.orm import Session

from .. import reads
from ..codec import path_of
from ..models import Run, Subproblem, Verification, utcnow
from ..sampling import Sampling, sampling_of, wants_verification  # noqa: F401  (re-exported)
from ..states import OPEN, RunStatus, SubproblemState
from .ends import announce_end

#: a verification refused this many times (it kept reaching the worker that recorded
#: the result) is left to the scheduler process, which solves it itself
MAX_REFUSALS = 6

VER = Verification.__table__
SUB = Subproblem.__table__
RUN = Run.__table__


def insert_verification(conn: Connection | Session, outcome, now: dt.datetime | None) -> None:
    """The pending verification of a just-recorded outcome (``now``: when it is queued)."""
    conn.execute(insert(VER), [dict(run_id=outcome.run_id, subproblem_id=outcome.sub_id, state=SubproblemState.PENDING,
                                    worker=outcome.worker, refusals=0, attempts=0, queued_at=now)])


@dataclass(frozen=True)
class VerificationTask:
    """A leased (or peeked) verification: re-solve ``path``, not in process ``worker``
    (the one that recorded the result)."""

    run_id: int
    sub_id: int
    path: tuple[int, ...]
    worker: str | None


_COLUMNS = (VER.c.run_id, VER.c.subproblem_id, SUB.c.path, VER.c.worker)
_JOINED = VER.join(SUB, SUB.c.id == VER.c.subproblem_id)
_LEASABLE = or_(VER.c.state == SubproblemState.PENDING, and_(VER.c.state == SubproblemState.LEASED, VER.c.lease_expires < bindparam("now")))
_LEASE = (
    update(VER)
    .where(VER.c.subproblem_id == bindparam("sub_id"), _LEASABLE)
    .values(state=SubproblemState.LEASED, lease_owner=bindparam("owner"), lease_expires=bindparam("expires"),
            attempts=VER.c.attempts + 1)
)


def _verification_task(row) -> VerificationTask:
    run_id, sub_id, path, worker = row
    return VerificationTask(run_id=run_id, sub_id=sub_id, path=path_of(path), worker=worker)


def lease_verifications(conn: Connection, run_id: int, owner: str, n: int, lease: float) -> list[VerificationTask]:
    """Lease up to ``n`` leasable verifications of a run (the local pool's parent)."""
    if n <= 0:
        return []
    now = utcnow()
    rows = conn.execute(
        select(*_COLUMNS).select_from(_JOINED)
        .where(VER.c.run_id == run_id, _LEASABLE).order_by(VER.c.id).limit(n), {"now": now}
    ).all()
    params = {"owner": owner, "expires": now + dt.timedelta(seconds=lease), "now": now}
    return [_verification_task(r) for r in rows if conn.execute(_LEASE, {**params, "sub_id": r[1]}).rowcount == 1]


def peek_verification(conn: Connection, sub_id: int) -> VerificationTask | None:
    """The verification of subproblem ``sub_id`` when it is leasable and its run running."""
    row = conn.execute(
        select(*_COLUMNS).select_from(_JOINED.join(RUN, RUN.c.id == VER.c.run_id))
        .where(VER.c.subproblem_id == sub_id, _LEASABLE, RUN.c.status == RunStatus.RUNNING), {"now": utcnow()}
    ).first()
    return None if row is None else _verification_task(row)


def lease_verification(conn: Connection, sub_id: int, owner: str, lease: float) -> bool:
    now = utcnow()
    params = {"sub_id": sub_id, "owner": owner, "expires": now + dt.timedelta(seconds=lease), "now": now}
    return conn.execute(_LEASE, params).rowcount == 1


def refuse_verification(conn: Connection, sub_id: int) -> int:
    """Count one refusal (the verification reached the worker that recorded the result)
    and stamp it as queued again; returns the refusals so far."""
    conn.execute(update(VER).where(VER.c.subproblem_id == sub_id, VER.c.state.in_(OPEN))
                 .values(refusals=VER.c.refusals + 1, queued_at=utcnow()))
    return int(conn.execute(select(VER.c.refusals).where(VER.c.subproblem_id == sub_id)).scalar_one())


def finish_verification(conn: Connection, sub_id: int, verifier: str, seconds: float, detail: str | None) -> bool:
    """Write a verdict once (``detail``: the mismatch, None when the results agree); a
    mismatch fails the run at once.  True when this call wrote it."""
    done = conn.execute(
        update(VER).where(VER.c.subproblem_id == sub_id, VER.c.state.in_(OPEN))
        .values(state=SubproblemState.DONE, verifier=verifier, ok=detail is None, detail=detail, seconds=seconds,
                finished_at=utcnow(), lease_expires=None)
    ).rowcount == 1
    if done and detail is not None:
        run_id = conn.execute(select(VER.c.run_id).where(VER.c.subproblem_id == sub_id)).scalar_one()
        if conn.execute(update(RUN).where(RUN.c.id == run_id, RUN.c.status == RunStatus.RUNNING)
                        .values(status=RunStatus.FAILED, error=f"verification failed: {detail}"[:2000],
                                finished_at=utcnow())).rowcount == 1:
            announce_end(conn, run_id)
    return done


def count_open(conn: Connection | Session, run_id: int) -> int:
    return int(conn.execute(select(func.count()).select_from(VER)
                            .where(VER.c.run_id == run_id, VER.c.state.in_(OPEN))).scalar_one())


def first_mismatch(conn: Connection | Session, run_id: int) -> str | None:
    """The first mismatch recorded for a run, or None."""
    return conn.execute(select(VER.c.detail).where(VER.c.run_id == run_id, VER.c.ok.is_(False))
                        .order_by(VER.c.id).limit(1)).scalar()


def verification_counts(conn: Connection | Session, run_id: int) -> dict[str, int]:
    """How a run's verifications stand (:func:`scheduler.reads.verification_counts`)."""
    return reads.verification_counts(reads.session_query(conn), run_id)


def mismatch_rows(conn: Connection | Session, run_id: int, *, limit: int = 10) -> list[dict[str, Any]]:
    """The run's mismatches (at most ``limit``), for ``show`` (:func:`scheduler.reads.mismatch_rows`)."""
    return reads.mismatch_rows(reads.session_query(conn), run_id, limit=limit)


def expire_verifications(conn: Connection, run_id: int) -> list[int]:
    """Put verifications whose lease expired back to pending; their subproblem ids."""
    now = utcnow()
    expired = list(conn.execute(select(VER.c.subproblem_id).where(
        VER.c.run_id == run_id, VER.c.state == SubproblemState.LEASED, VER.c.lease_expires < now)).scalars())
    for sub_id in expired:
        conn.execute(update(VER).where(VER.c.subproblem_id == sub_id, VER.c.state == SubproblemState.LEASED,
                                       VER.c.lease_expires < now)
                     .values(state=SubproblemState.PENDING, lease_owner=None, lease_expires=None))
    return expired


def stale_verifications(conn: Connection, run_id: int, older_than: float) -> list[int]:
    """Pending verifications not sent to a queue lately and still for the workers."""
    cutoff = utcnow() - dt.timedelta(seconds=older_than)
    return list(conn.execute(select(VER.c.subproblem_id).where(
        VER.c.run_id == run_id, VER.c.state == SubproblemState.PENDING, VER.c.refusals < MAX_REFUSALS,
        or_(VER.c.queued_at.is_(None), VER.c.queued_at < cutoff)).order_by(VER.c.id)).scalars())


def orphan_verifications(conn: Connection, run_id: int) -> list[int]:
    """Pending verifications refused :data:`MAX_REFUSALS` times: the scheduler's to do."""
    return list(conn.execute(select(VER.c.subproblem_id).where(
        VER.c.run_id == run_id, VER.c.state == SubproblemState.PENDING, VER.c.refusals >= MAX_REFUSALS)
        .order_by(VER.c.id)).scalars())


def mark_verifications_queued(conn: Connection, sub_ids: Sequence[int]) -> None:
    for i in range(0, len(sub_ids), 1000):
        conn.execute(update(VER).where(VER.c.subproblem_id.in_(sub_ids[i : i + 1000])).values(queued_at=utcnow()))


def release_verifications(conn: Connection | Session, run_id: int) -> None:
    conn.execute(update(VER).where(VER.c.run_id == run_id, VER.c.state == SubproblemState.LEASED)
                 .values(state=SubproblemState.PENDING, lease_owner=None, lease_expires=None))


def cancel_verifications(conn: Connection | Session, run_id: int) -> None:
    conn.execute(update(VER).where(VER.c.run_id == run_id, VER.c.state.in_(OPEN))
                 .values(state=SubproblemState.CANCELLED, lease_owner=None, lease_expires=None))


def revive_verifications(conn: Connection | Session, run_id: int) -> None:
    conn.execute(update(VER).where(VER.c.run_id == run_id, VER.c.state == SubproblemState.CANCELLED)
                 .values(state=SubproblemState.PENDING, queued_at=None, refusals=0))
