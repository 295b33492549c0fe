"""Leases: which worker owns which subproblem until when.  Leasing is one conditional
UPDATE, so two workers never own one subproblem; an expired lease puts it back to pending.
The local pool's parent trades results for new leases in one transaction (:func:`exchange`)."""
from __future__ import annotations

import datetime as dt
import os
import socket
from collections import namedtuple
from dataclasses import dataclass, field
from typing import Collection, Sequence

from sqlalchemy import Connection, and_, bindparam, or_, select, update

from ..codec import fraction_of, path_of
from ..db import Ledger
from ..models import Run, Subproblem, utcnow
from ..run_options import Mode, RunOptions
from ..states import RunStatus, SubproblemState
from ..work import Outcome, Task
from . import verifications as V
from .ends import announce_end
from .pipeline import pipelined, pipelines, single_statements, transaction
from .results import record_all
from .verifications import Sampling, VerificationTask

SUB = Subproblem.__table__
RUN = Run.__table__

# Hot-path statements, built once (SQLAlchemy caches their compiled SQL).
_TASK_COLUMNS = (SUB.c.id, SUB.c.run_id, SUB.c.path, SUB.c.weight_num, SUB.c.weight_den)


_LEASABLE = or_(SUB.c.state == SubproblemState.PENDING, and_(SUB.c.state == SubproblemState.LEASED, SUB.c.lease_expires < bindparam("now")))


_SELECT_LEASABLE = (
    select(*_TASK_COLUMNS).where(SUB.c.run_id == bindparam("run_id"), _LEASABLE).order_by(SUB.c.id).limit(bindparam("n"))
)


_SELECT_ONE = select(*_TASK_COLUMNS).where(SUB.c.id == bindparam("sub_id"))


_LEASE = (
    update(SUB)
    .where(SUB.c.id == bindparam("sub_id"), _LEASABLE)
    .values(state=SubproblemState.LEASED, lease_owner=bindparam("owner"), lease_expires=bindparam("expires"),
            attempts=SUB.c.attempts + 1)
)


def task_of(row) -> Task:
    """A leased row (id, run id, path, weight's numerator and denominator) as a task."""
    sub_id, run_id, path, num, den = row
    return Task(run_id=run_id, sub_id=sub_id, path=path_of(path), weight=fraction_of(num, den))


_LEASE_MANY = (
    update(SUB)
    .where(SUB.c.id.in_(bindparam("sub_ids", expanding=True)), _LEASABLE)
    .values(state=SubproblemState.LEASED, lease_owner=bindparam("owner"), lease_expires=bindparam("expires"),
            attempts=SUB.c.attempts + 1)
    .returning(*_TASK_COLUMNS)
)


def _lease_rows(conn: Connection, run_id: int, owner: str, n: int, lease: float) -> list[Task]:
    """Up to ``n`` leasable subproblems, in id order, leased by one conditional UPDATE
    (those another worker leased meanwhile are not returned); one UPDATE a row cost the
    local pool's parent 1.7 ms for the 43 subproblems a stolen frontier brings."""
    now = utcnow()
    ids = conn.execute(_SELECT_LEASABLE.with_only_columns(SUB.c.id), {"run_id": run_id, "now": now, "n": n}).scalars().all()
    if not ids:
        return []
    expires = now + dt.timedelta(seconds=lease)
    rows = conn.execute(_LEASE_MANY, {"sub_ids": ids, "owner": owner, "expires": expires, "now": now}).all()
    return [task_of(row) for row in sorted(rows, key=lambda row: row[0])]


def lease_ids(conn: Connection, sub_ids: Sequence[int], owner: str, now: dt.datetime, expires: dt.datetime) -> list:
    """Lease these subproblems where they are still leasable, in the transaction ``conn``
    is in (one conditional UPDATE): the rows leased (see :func:`task_of`), in any order."""
    return conn.execute(_LEASE_MANY, {"sub_ids": list(sub_ids), "owner": owner, "expires": expires, "now": now}).all()


def lease_batch(ledger: Ledger, run_id: int, owner: str, n: int, lease_seconds: float) -> list[Task]:
    """Lease up to ``n`` leasable subproblems of a run, in id order."""
    with ledger.engine.begin() as conn:
        return _lease_rows(conn, run_id, owner, n, lease_seconds)


@dataclass
class Exchange:
    """What one round of the local pool's parent got back from the ledger."""

    recorded: list[list[int] | None]
    verifications: list[VerificationTask]
    tasks: list[Task]


def exchange(ledger: Ledger, outcomes: Sequence[Outcome], run_id: int, owner: str, n: int,
             lease_seconds: float, sampling: Sampling | None = None) -> Exchange:
    """Record results, then lease up to ``n`` more pieces of work — verifications first,
    then subproblems — in one transaction."""
    with ledger.engine.begin() as conn:
        recorded = record_all(conn, outcomes, sampling=sampling)
        verifications = V.lease_verifications(conn, run_id, owner, n, lease_seconds) if sampling is not None else []
        n -= len(verifications)
        tasks = _lease_rows(conn, run_id, owner, n, lease_seconds) if n > 0 else []
        return Exchange(recorded, verifications, tasks)


@dataclass(frozen=True)
class RunBrief:
    """What a worker needs of a run for each task (the spec is fetched once per run:
    ``spec``, where the lease read it with the brief, :func:`lease_message`)."""

    id: int
    mode: Mode
    options: RunOptions
    spec_hash: str
    verify_fraction: float | None = None
    spec: dict | None = field(default=None, compare=False, repr=False)

    @property
    def sampling(self) -> Sampling | None:
        return V.sampling_of(self.verify_fraction, self.options.verify_seed)


_RUN_BRIEF = select(RUN.c.status, RUN.c.mode, RUN.c.options, RUN.c.spec_hash, RUN.c.verify_fraction).where(
    RUN.c.id == bindparam("run_id"))


def lease_one(ledger: Ledger, sub_id: int, owner: str) -> tuple[Task, RunBrief] | None:
    """Lease one subproblem for a worker; None when it is done, cancelled, or leased by
    someone whose lease has not expired (a duplicate delivery)."""
    now = utcnow()
    with ledger.engine.begin() as conn:
        row = conn.execute(_SELECT_ONE, {"sub_id": sub_id}).first()
        if row is None:
            return None
        brief = conn.execute(_RUN_BRIEF, {"run_id": row[1]}).first()
        if brief is None or brief.status != RunStatus.RUNNING:
            return None
        run = brief_of(row[1], brief)
        expires = now + dt.timedelta(seconds=run.options.lease_seconds())
        if conn.execute(_LEASE, {"sub_id": sub_id, "owner": owner, "expires": expires, "now": now}).rowcount != 1:
            return None
        return task_of(row), run


def lease_message(ledger: Ledger, run_id: int, sub_ids: Sequence[int], owner: str, *,
                  known_specs: Collection[str] | None = None) -> tuple[RunBrief | None, list[Task]]:
    """A worker's message: the run's brief and the leasable ones of these subproblems,
    leased, in the order given — one transaction, a conditional UPDATE returning the
    tasks (three statements and a connection more cost each message 2-3 ms, on a
    machine whose two cores also search).  (None, []) when the run is not running.

    On PostgreSQL the brief and the UPDATE go together in psycopg's pipeline with the
    transaction's ``BEGIN`` and ``COMMIT`` (:func:`_lease_pipelined`): one round trip
    where there were four, the lease as long as this run's last here (or the last run's,
    or the default options'), set right by one statement more when the brief says
    otherwise.  ``known_specs``: the spec hashes the caller holds a solver of; on
    PostgreSQL a run of another spec has its spec read in the same round trip (the
    brief's ``spec``), where the first message of each run read it in one more."""
    if pipelines(ledger.engine):
        with transaction(ledger.engine) as conn:
            run, tasks = _lease_pipelined(conn, run_id, sub_ids, owner, _lease_guess(run_id), known_specs)
    else:
        with ledger.engine.begin() as conn:
            run = run_brief(conn, run_id)
            if run is None or not sub_ids:
                return run, []
            now = utcnow()
            rows = conn.execute(_LEASE_MANY, {"sub_ids": list(sub_ids), "owner": owner, "now": now,
                                              "expires": now + dt.timedelta(seconds=run.options.lease_seconds())}).all()
            tasks = _in_order(sub_ids, rows)
    if run is not None and len(tasks) < len(set(sub_ids)):  # a duplicate, or a dead process's
        missing = set(sub_ids) - {t.sub_id for t in tasks}
        reclaimed = [task_of(row) for row in _reclaim_from_the_dead(ledger, run, missing, owner)]
        if reclaimed:
            by_id = {t.sub_id: t for t in tasks + reclaimed}
            tasks = [by_id[i] for i in dict.fromkeys(sub_ids) if i in by_id]
    return run, tasks


#: a subproblem under which worker processes died this many times fails its run (a crash
#: that comes back with the subproblem: the run stops, saying so, instead of killing
#: worker after worker)
CRASHES_ALLOWED = 3


def _local_pid(owner: str | None, host: str) -> int | None:
    """The process id of a Celery lease owner ``celery:HOST:PID`` on this host, else None."""
    kind, _, rest = (owner or "").partition(":")
    owner_host, _, pid = rest.rpartition(":")
    return int(pid) if kind == "celery" and owner_host == host and pid.isdigit() else None


def _process_gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's: alive
        return False
    return False


def _reclaim_from_the_dead(ledger: Ledger, run: RunBrief, sub_ids: set[int], owner: str) -> list:
    """Lease those of ``sub_ids`` whose lease a process of this host holds that is gone.

    A pool process killed under its task (the out-of-memory killer, a crash in C) leaves
    its lease behind, and Celery delivers the message again (``reject_on_worker_lost``),
    most often to this host; without this the redelivery would find the subproblem leased
    and the run would wait for the lease to expire: an hour or more for a count by levels.
    Past :data:`CRASHES_ALLOWED` deaths the run fails, naming the subproblem.  Returns the
    rows leased (as :func:`task_of` reads them)."""
    host = socket.gethostname()
    now = utcnow()
    with ledger.engine.begin() as conn:
        held = conn.execute(select(SUB.c.id, SUB.c.path, SUB.c.lease_owner, SUB.c.deaths).where(
            SUB.c.id.in_(sorted(sub_ids)), SUB.c.state == SubproblemState.LEASED, SUB.c.lease_expires >= now)).all()
        freed = []
        for sub_id, path, dead, deaths in held:
            pid = _local_pid(dead, host)
            if pid is None or pid == os.getpid() or not _process_gone(pid):
                continue
            if deaths + 1 >= CRASHES_ALLOWED:  # deaths, not leases: a lease that expired is no death
                if conn.execute(update(RUN).where(RUN.c.id == run.id, RUN.c.status == RunStatus.RUNNING).values(
                        status=RunStatus.FAILED, finished_at=now,
                        error=f"subproblem {sub_id} (path {path}): {deaths + 1} worker processes died counting it "
                              f"(the last {dead}); see the workers' logs")).rowcount == 1:
                    announce_end(conn, run.id)
                return []
            if conn.execute(update(SUB).where(SUB.c.id == sub_id, SUB.c.lease_owner == dead,
                                              SUB.c.state == SubproblemState.LEASED)
                            .values(lease_expires=now - dt.timedelta(seconds=1), deaths=SUB.c.deaths + 1)
                            ).rowcount == 1:
                freed.append(sub_id)
        if not freed:
            return []
        return lease_ids(conn, freed, owner, now, now + dt.timedelta(seconds=run.options.lease_seconds()))


#: the lease length of the runs this process leased for lately, by run (seconds)
_LEASE_SECONDS: dict[int, float] = {}
_REMEMBERED_RUNS = 64

#: :data:`_RUN_BRIEF` and :data:`_LEASE_MANY` in psycopg's placeholders, for one pipeline;
#: the UPDATE leases only while the run is running, which the brief read beside it tells
_RUN_BRIEF_PG = ("SELECT status, mode, options, spec_hash, verify_fraction, "
                 "CASE WHEN %(spec)s AND spec_hash <> ALL(%(known)s::text[]) THEN spec END "
                 f"FROM {RUN.name} WHERE id = %(run_id)s")
_BriefRow = namedtuple("_BriefRow", "status mode options spec_hash verify_fraction spec")  # as brief_of reads a row
_LEASE_MANY_PG = (
    f"UPDATE {SUB.name} SET state = %(leased)s, lease_owner = %(owner)s, lease_expires = %(expires)s, "
    "attempts = attempts + 1 WHERE id = ANY(%(sub_ids)s) "
    "AND (state = %(pending)s OR (state = %(leased)s AND lease_expires < %(now)s)) "
    f"AND EXISTS (SELECT 1 FROM {RUN.name} WHERE id = %(run_id)s AND status = %(running)s) "
    "RETURNING id, run_id, path, weight_num, weight_den"
)


def _lease_pipelined(conn: Connection, run_id: int, sub_ids: Sequence[int], owner: str,
                     seconds: float, known_specs: Collection[str] | None = None) -> tuple[RunBrief | None, list[Task]]:
    """:func:`lease_message` with the brief and the UPDATE in one pipeline, committed, the
    lease ``seconds`` long; set right at once (one statement more, a transaction of its
    own) where the brief says the run's lease is of another length (the first message of
    a run here, a ``resume`` with other options)."""
    now = utcnow()
    lease = [{"sub_ids": list(sub_ids), "owner": owner, "now": now, "run_id": run_id,
              "expires": now + dt.timedelta(seconds=seconds), "leased": str(SubproblemState.LEASED),
              "pending": str(SubproblemState.PENDING), "running": str(RunStatus.RUNNING)}] if sub_ids else []
    brief = {"run_id": run_id, "spec": known_specs is not None, "known": list(known_specs or ())}
    (briefs,), leased_rows = pipelined(conn, [(_RUN_BRIEF_PG, [brief]), (_LEASE_MANY_PG, lease)], commit=True)
    leased = leased_rows[0] if leased_rows else []
    if not briefs or briefs[0][0] != RunStatus.RUNNING:
        _LEASE_SECONDS.pop(run_id, None)
        return None, []
    run = brief_of(run_id, _BriefRow(*briefs[0]))
    if leased and run.options.lease_seconds() != seconds:
        conn.execute(update(SUB).where(SUB.c.id.in_([row[0] for row in leased]), SUB.c.lease_owner == owner)
                     .values(lease_expires=now + dt.timedelta(seconds=run.options.lease_seconds())))
    _remember_lease(run)
    return run, _in_order(sub_ids, leased)


def _lease_guess(run_id: int) -> float:
    """The lease length of this run's last message here, else of the last run's, else
    the default options'."""
    known = _LEASE_SECONDS.get(run_id)
    if known is None:
        known = next(reversed(_LEASE_SECONDS.values()), None)
    return RunOptions().lease_seconds() if known is None else known


def _remember_lease(run: RunBrief) -> None:
    _LEASE_SECONDS.pop(run.id, None)
    _LEASE_SECONDS[run.id] = run.options.lease_seconds()
    while len(_LEASE_SECONDS) > _REMEMBERED_RUNS:
        del _LEASE_SECONDS[next(iter(_LEASE_SECONDS))]


def _in_order(sub_ids: Sequence[int], rows) -> list[Task]:
    """The leased rows as tasks, in the order of ``sub_ids`` (each once)."""
    by_id = {row[0]: row for row in rows}
    return [task_of(by_id[sub_id]) for sub_id in dict.fromkeys(sub_ids) if sub_id in by_id]


def unlease(ledger: Ledger, sub_ids: Sequence[int], owner: str) -> None:
    """Give back leased subproblems not started (a message handed back): pending again."""
    if not sub_ids:
        return
    with single_statements(ledger.engine) as conn:  # one statement: on PostgreSQL one round trip
        conn.execute(update(SUB).where(SUB.c.id.in_(list(sub_ids)), SUB.c.lease_owner == owner,
                                       SUB.c.state == SubproblemState.LEASED)
                     .values(state=SubproblemState.PENDING, lease_owner=None, lease_expires=None))
        if not pipelines(conn):
            conn.commit()


def brief_of(run_id: int, row) -> RunBrief:
    return RunBrief(run_id, Mode(row.mode), RunOptions.from_json(row.options), row.spec_hash, row.verify_fraction,
                    getattr(row, "spec", None))


def run_brief(conn: Connection, run_id: int) -> RunBrief | None:
    """The brief of a running run, or None."""
    row = conn.execute(_RUN_BRIEF, {"run_id": run_id}).first()
    return None if row is None or row.status != RunStatus.RUNNING else brief_of(run_id, row)


def mark_queued(ledger: Ledger, sub_ids: Sequence[int]) -> None:
    if not sub_ids:
        return
    now = utcnow()
    with ledger.session() as session:
        for i in range(0, len(sub_ids), 1000):
            session.execute(
                update(Subproblem).where(Subproblem.id.in_(sub_ids[i : i + 1000])).values(queued_at=now)
            )


def expire_leases(ledger: Ledger, run_id: int | None = None) -> list[int]:
    """Put subproblems whose lease expired back to pending; their ids."""
    now = utcnow()
    with ledger.session() as session:
        cond = [Subproblem.state == SubproblemState.LEASED, Subproblem.lease_expires < now]
        if run_id is not None:
            cond.append(Subproblem.run_id == run_id)
        ids = list(session.scalars(select(Subproblem.id).where(*cond)))
        back = []
        for sub_id in ids:
            r = session.execute(
                update(Subproblem)
                .where(Subproblem.id == sub_id, Subproblem.state == SubproblemState.LEASED, Subproblem.lease_expires < now)
                .values(state=SubproblemState.PENDING, lease_owner=None, lease_expires=None)
            )
            if r.rowcount == 1:
                back.append(sub_id)
        return back


def release_leases(ledger: Ledger, run_id: int) -> int:
    """Put every leased subproblem and verification of a run back to pending (a local run
    taken over); the number of subproblems."""
    with ledger.engine.begin() as conn:  # (an ORM session would cost a run's start 5 ms more)
        V.release_verifications(conn, run_id)
        r = conn.execute(
            update(SUB)
            .where(SUB.c.run_id == run_id, SUB.c.state == SubproblemState.LEASED)
            .values(state=SubproblemState.PENDING, lease_owner=None, lease_expires=None)
        )
        return r.rowcount


def stale_pending(ledger: Ledger, run_id: int, older_than: float, limit: int = 100_000) -> list[int]:
    """Pending subproblems not sent to a queue in the last ``older_than`` seconds."""
    cutoff = utcnow() - dt.timedelta(seconds=older_than)
    with ledger.session() as session:
        return list(
            session.scalars(
                select(Subproblem.id)
                .where(
                    Subproblem.run_id == run_id,
                    Subproblem.state == SubproblemState.PENDING,
                    or_(Subproblem.queued_at.is_(None), Subproblem.queued_at < cutoff),
                )
                .order_by(Subproblem.id)
                .limit(limit)
            )
        )


def has_pending(conn: Connection, run_id: int) -> bool:
    """Whether the run has a pending subproblem (one a worker staying on the run may pull)."""
    return conn.execute(select(SUB.c.id).where(SUB.c.run_id == run_id, SUB.c.state == SubproblemState.PENDING)
                        .limit(1)).first() is not None


def searched_by_others(conn: Connection, run_id: int, owner: str | None) -> bool:
    """Whether a worker other than ``owner`` (None: any worker) holds a live lease on a
    subproblem of the run (someone is searching: a worker out of work may ask it for some;
    a worker staying on the run pulls its pending subproblems)."""
    others = () if owner is None else (SUB.c.lease_owner != owner,)
    return conn.execute(
        select(SUB.c.id).where(SUB.c.run_id == run_id, SUB.c.state == SubproblemState.LEASED, *others,
                               SUB.c.lease_expires >= utcnow()).limit(1)
    ).first() is not None


def pending_and_searched(ledger: Ledger, run_id: int, owner: str) -> tuple[bool, bool]:
    """Whether the run has a pending subproblem (:func:`has_pending`), and whether a worker
    other than ``owner`` holds a live lease on one (:func:`searched_by_others`): one read,
    on PostgreSQL one round trip (:func:`~.pipeline.single_statements`)."""
    pending = select(SUB.c.id).where(SUB.c.run_id == run_id, SUB.c.state == SubproblemState.PENDING).exists()
    searched = select(SUB.c.id).where(SUB.c.run_id == run_id, SUB.c.state == SubproblemState.LEASED,
                                      SUB.c.lease_owner != owner, SUB.c.lease_expires >= utcnow()).exists()
    with single_statements(ledger.engine) as conn:
        row = conn.execute(select(pending, searched)).one()
    return bool(row[0]), bool(row[1])
