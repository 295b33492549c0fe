"""Ledger operations: create a run, lease subproblems, record results exactly once (with
the sampled verification of a ``--verify`` run: :mod:`scheduler.checks`), expire leases,
close, cancel and revive runs, and read progress.

Exactly once: a result is written by one conditional UPDATE (``state`` still pending or
leased); a second write of the same subproblem — a duplicate delivery, a retry after a
crash, a worker whose lease expired — matches no row and changes nothing.  The donated
frontier and the solutions are written in the same transaction, so they exist exactly
when the result does.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Sequence

from sqlalchemy import Connection, and_, bindparam, func, insert, or_, select, text, update
from sqlalchemy.orm import Session

from core.problem import Problem
from core.search import Stats, Subpath

from . import verifications as C
from .verifications import CheckTask, Sampling
from .codec import fraction_parts, pack, path_of, path_text
from .db import Ledger, LedgerError
from .models import CANCELLED, DONE, FAILED, LEASED, PENDING, RUNNING, Run, Solution, Subproblem, utcnow
from .work import Outcome, Task

SOLUTION_CHUNK = 5_000


def subproblem_rows(run_id: int, frontier: Iterable[Subpath], parent_id: int | None, now: dt.datetime | None):
    rows = []
    for sub in frontier:
        num, den, approx = fraction_parts(sub.weight)
        rows.append(
            dict(
                run_id=run_id,
                path=path_text(sub.path),
                depth=len(sub.path),
                weight_num=num,
                weight_den=den,
                weight_f=approx,
                parent_id=parent_id,
                state=PENDING,
                attempts=0,
                queued_at=now,
            )
        )
    return rows


def create_run(
    ledger: Ledger,
    *,
    problem: Problem,
    mode: str,
    options: dict[str, Any],
    executor: str,
    frontier: Sequence[Subpath],
    plan_stats: dict[str, Any] | None = None,
    verify_fraction: float | None = None,
    estimated_nodes: int | None = None,
) -> int:
    """The run row and one pending row per subproblem, in one transaction."""
    if sum((s.weight for s in frontier), Fraction(0)) != 1:
        raise ValueError("the planned subproblems' weights do not add up to 1")
    with ledger.session() as session:
        run = Run(
            name=str(problem.name),
            kind=problem.kind,
            spec=problem.spec,
            spec_hash=problem.spec_hash,
            mode=mode,
            options=options,
            executor=executor,
            status=RUNNING,
            n_planned=len(frontier),
            plan_stats=plan_stats,
            created_at=utcnow(),
            verify_fraction=verify_fraction,
            estimated_nodes=estimated_nodes,
        )
        session.add(run)
        session.flush()
        _insert_subproblems(session, subproblem_rows(run.id, frontier, None, None))
        return run.id


def get_run(ledger: Ledger, run_id: int) -> Run:
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger {ledger.url}")
        session.expunge(run)
        return run


SUB = Subproblem.__table__
SOL = Solution.__table__

# Hot-path statements, built once (SQLAlchemy caches their compiled SQL).
_TASK_COLUMNS = (SUB.c.id, SUB.c.run_id, SUB.c.path, SUB.c.weight_num, SUB.c.weight_den)
_LEASABLE = or_(SUB.c.state == PENDING, and_(SUB.c.state == LEASED, SUB.c.lease_expires < bindparam("now")))
_SELECT_LEASABLE = (
    select(*_TASK_COLUMNS).where(SUB.c.run_id == bindparam("run_id"), _LEASABLE).order_by(SUB.c.id).limit(bindparam("n"))
)
_SELECT_ONE = select(*_TASK_COLUMNS).where(SUB.c.id == bindparam("sub_id"))
_LEASE = (
    update(SUB)
    .where(SUB.c.id == bindparam("sub_id"), _LEASABLE)
    .values(state=LEASED, lease_owner=bindparam("owner"), lease_expires=bindparam("expires"),
            attempts=SUB.c.attempts + 1)
)
_RECORD = (
    update(SUB)
    .where(SUB.c.id == bindparam("sub_id"), SUB.c.state.in_((PENDING, LEASED)))
    .values(
        state=DONE, count=bindparam("r_count"), distinct=bindparam("r_distinct"), nodes=bindparam("r_nodes"),
        seconds=bindparam("r_seconds"), stats=bindparam("r_stats"), done_num=bindparam("r_num"),
        done_den=bindparam("r_den"), done_f=bindparam("r_f"), stopped_by=bindparam("r_stopped"),
        n_donated=bindparam("r_donated"), worker=bindparam("r_worker"), finished_at=bindparam("now"),
        lease_expires=None,
    )
)
_INSERT_SUBS = insert(SUB).returning(SUB.c.id, sort_by_parameter_order=True)
_INSERT_SOLUTIONS = insert(SOL)


def _task(row) -> Task:
    sub_id, run_id, path, num, den = row
    return Task(run_id=run_id, sub_id=sub_id, path=path_of(path), weight=Fraction(int(num), int(den)))


def _insert_subproblems(conn: Connection | Session, rows: list[dict]) -> list[int]:
    if not rows:
        return []
    return [r[0] for r in conn.execute(_INSERT_SUBS, rows)]


def _lease_rows(conn: Connection, run_id: int, owner: str, n: int, lease: float) -> list[Task]:
    now = utcnow()
    expires = now + dt.timedelta(seconds=lease)
    tasks = []
    for row in conn.execute(_SELECT_LEASABLE, {"run_id": run_id, "now": now, "n": n}).all():
        if conn.execute(_LEASE, {"sub_id": row[0], "owner": owner, "expires": expires, "now": now}).rowcount == 1:
            tasks.append(_task(row))
    return tasks


def lease_batch(ledger: Ledger, run_id: int, owner: str, n: int, lease_seconds: float) -> list[Task]:
    """Lease up to ``n`` leasable subproblems of a run, in id order."""
    with ledger.engine.begin() as conn:
        return _lease_rows(conn, run_id, owner, n, lease_seconds)


@dataclass
class Exchange:
    """What one round of the local pool's parent got back from the ledger."""

    recorded: list[list[int] | None]
    checks: list[CheckTask]
    tasks: list[Task]


def exchange(ledger: Ledger, outcomes: Sequence[Outcome], run_id: int, owner: str, n: int,
             lease_seconds: float, sampling: Sampling | None = None) -> Exchange:
    """Record results, then lease up to ``n`` more pieces of work — verifications first,
    then subproblems — in one transaction."""
    with ledger.engine.begin() as conn:
        recorded = [record(conn, o, sampling=sampling) for o in outcomes]
        checks = C.lease_checks(conn, run_id, owner, n, lease_seconds) if sampling is not None else []
        n -= len(checks)
        tasks = _lease_rows(conn, run_id, owner, n, lease_seconds) if n > 0 else []
        return Exchange(recorded, checks, tasks)


@dataclass(frozen=True)
class RunBrief:
    """What a worker needs of a run for each task (the spec is fetched once per run)."""

    id: int
    mode: str
    options: dict
    spec_hash: str
    verify_fraction: float | None = None

    @property
    def sampling(self) -> Sampling | None:
        return C.sampling_of(self.verify_fraction, self.options)


RUN = Run.__table__
_RUN_BRIEF = select(RUN.c.status, RUN.c.mode, RUN.c.options, RUN.c.spec_hash, RUN.c.verify_fraction).where(
    RUN.c.id == bindparam("run_id"))
_HAS_OPEN = select(SUB.c.id).where(SUB.c.run_id == bindparam("run_id"), SUB.c.state.in_((PENDING, LEASED))).limit(1)


def lease_one(ledger: Ledger, sub_id: int, owner: str) -> tuple[Task, RunBrief] | None:
    """Lease one subproblem for a worker; None when it is done, cancelled, or leased by
    someone whose lease has not expired (a duplicate delivery)."""
    now = utcnow()
    with ledger.engine.begin() as conn:
        row = conn.execute(_SELECT_ONE, {"sub_id": sub_id}).first()
        if row is None:
            return None
        brief = conn.execute(_RUN_BRIEF, {"run_id": row[1]}).first()
        if brief is None or brief.status != RUNNING:
            return None
        expires = now + dt.timedelta(seconds=lease_seconds(brief.options))
        if conn.execute(_LEASE, {"sub_id": sub_id, "owner": owner, "expires": expires, "now": now}).rowcount != 1:
            return None
        return _task(row), brief_of(row[1], brief)


def brief_of(run_id: int, row) -> RunBrief:
    return RunBrief(run_id, row.mode, row.options, row.spec_hash, row.verify_fraction)


def run_brief(conn: Connection, run_id: int) -> RunBrief | None:
    """The brief of a running run, or None."""
    row = conn.execute(_RUN_BRIEF, {"run_id": run_id}).first()
    return None if row is None or row.status != RUNNING else brief_of(run_id, row)


def run_spec(ledger: Ledger, run_id: int) -> dict:
    with ledger.engine.connect() as conn:
        return conn.execute(select(RUN.c.spec).where(RUN.c.id == run_id)).scalar_one()


def has_open(ledger: Ledger, run_id: int, *, checks: bool = True) -> bool:
    """Whether some subproblem (or, with ``checks``, verification) of the run is still
    pending or leased."""
    with ledger.engine.connect() as conn:
        if conn.execute(_HAS_OPEN, {"run_id": run_id}).first() is not None:
            return True
        return checks and C.count_open(conn, run_id) > 0


#: the lease of a level count's task (``--by-levels``), which no time budget cuts short
LEVELS_LEASE = 3600.0


def lease_seconds(options: dict[str, Any]) -> float:
    """How long a worker owns a subproblem: the run's ``lease`` option, else twice the
    budget plus half a minute — or, for a level count, at least an hour."""
    if options.get("lease") is not None:
        return float(options["lease"])
    budget = float(options.get("budget") or 60.0)
    if options.get("levels"):
        return max(2 * budget + 30.0, LEVELS_LEASE)
    return 2 * budget + 30.0


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
    children = _insert_subproblems(
        conn, subproblem_rows(outcome.run_id, outcome.frontier, outcome.sub_id, now if queued else None)
    )
    if C.wants_check(sampling, outcome):
        C.insert_check(conn, outcome, now if queued else None)
    if outcome.solutions:
        rows = [dict(run_id=outcome.run_id, subproblem_id=outcome.sub_id, options=pack(s)) for s in outcome.solutions]
        for i in range(0, len(rows), SOLUTION_CHUNK):
            conn.execute(_INSERT_SOLUTIONS, rows[i : i + SOLUTION_CHUNK])
    return children


def record_results(ledger: Ledger, outcomes: Sequence[Outcome], *, queued: bool = False,
                   sampling: Sampling | None = None) -> list[list[int] | None]:
    """Record several results in one transaction (see :func:`record`)."""
    with ledger.engine.begin() as conn:
        return [record(conn, o, queued=queued, sampling=sampling) for o in outcomes]


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
        cond = [Subproblem.state == LEASED, Subproblem.lease_expires < now]
        if run_id is not None:
            cond.append(Subproblem.run_id == run_id)
        ids = list(session.scalars(select(Subproblem.id).where(*cond)))
        back = []
        for sub_id in ids:
            r = session.execute(
                update(Subproblem)
                .where(Subproblem.id == sub_id, Subproblem.state == LEASED, Subproblem.lease_expires < now)
                .values(state=PENDING, lease_owner=None, lease_expires=None)
            )
            if r.rowcount == 1:
                back.append(sub_id)
        return back


def release_leases(ledger: Ledger, run_id: int) -> int:
    """Put every leased subproblem and verification of a run back to pending (a local run
    taken over); the number of subproblems."""
    with ledger.session() as session:
        C.release_checks(session, run_id)
        r = session.execute(
            update(Subproblem)
            .where(Subproblem.run_id == run_id, Subproblem.state == LEASED)
            .values(state=PENDING, lease_owner=None, lease_expires=None)
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
                    Subproblem.state == PENDING,
                    or_(Subproblem.queued_at.is_(None), Subproblem.queued_at < cutoff),
                )
                .order_by(Subproblem.id)
                .limit(limit)
            )
        )


def close_run(ledger: Ledger, run_id: int) -> bool:
    """Close a running run whose subproblems are all done: exact totals, timings, and the
    check that finished weights add up to 1.  True when this call closed it."""
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None or run.status != RUNNING:
            return False
        open_ = session.scalar(
            select(func.count()).where(Subproblem.run_id == run_id, Subproblem.state.in_((PENDING, LEASED)))
        )
        if open_ or C.count_open(session, run_id):
            return False
        total = distinct = nodes = 0
        any_distinct = False
        cpu = 0.0
        weight = Fraction(0)
        stats = Stats()
        rows = session.execute(
            select(
                Subproblem.count, Subproblem.distinct, Subproblem.nodes, Subproblem.seconds,
                Subproblem.done_num, Subproblem.done_den, Subproblem.stats,
            ).where(Subproblem.run_id == run_id, Subproblem.state == DONE)
        )
        for count, dist, n, secs, dn, dd, st in rows:
            total += count or 0
            if dist is not None:
                any_distinct = True
                distinct += dist
            nodes += n or 0
            cpu += secs or 0.0
            weight += Fraction(int(dn), int(dd))
            if st:
                stats.add(_stats_of(st))
        now = utcnow()
        limited = run.mode == "first"
        status, error = DONE, None
        mismatch = C.first_mismatch(session, run_id)
        if not limited and weight != 1:
            status, error = FAILED, f"finished weight adds up to {weight}, not 1"
        elif mismatch is not None:
            status, error = FAILED, f"verification failed: {mismatch}"
        stats.solutions = total
        r = session.execute(
            update(Run)
            .where(Run.id == run_id, Run.status == RUNNING)
            .values(
                status=status,
                error=error,
                solutions=total,
                distinct=distinct if any_distinct else None,
                nodes=nodes,
                stats=stats.to_json(),
                cpu_seconds=cpu,
                seconds=(now - run.created_at).total_seconds(),
                finished_at=now,
            )
            .execution_options(synchronize_session=False)
        )
        return r.rowcount == 1


def _stats_of(data: dict[str, Any]) -> Stats:
    return Stats(
        nodes=int(data.get("nodes", 0)),
        leaves=int(data.get("leaves", 0)),
        solutions=int(data.get("solutions", 0)),
        updates=int(data.get("updates", 0)),
        seconds=float(data.get("seconds", 0.0)),
        nodes_per_depth=list(data.get("nodes_per_depth", [])),
        by_levels=int(data.get("by_levels", 0)),
    )


def fail_run(ledger: Ledger, run_id: int, error: str) -> None:
    with ledger.session() as session:
        session.execute(
            update(Run).where(Run.id == run_id, Run.status == RUNNING).values(status=FAILED, error=error[:2000], finished_at=utcnow())
        )


def cancel_run(ledger: Ledger, run_id: int) -> int:
    """Stop a run: open subproblems become cancelled (late results are then refused)."""
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger {ledger.url}")
        n = session.execute(
            update(Subproblem)
            .where(Subproblem.run_id == run_id, Subproblem.state.in_((PENDING, LEASED)))
            .values(state=CANCELLED, lease_owner=None, lease_expires=None)
        ).rowcount
        C.cancel_checks(session, run_id)
        if run.status == RUNNING:
            run.status = CANCELLED
            run.finished_at = utcnow()
        return n


def revive_run(ledger: Ledger, run_id: int) -> Run:
    """Make a cancelled or failed run resumable again; returns the run."""
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger {ledger.url}")
        if run.status in (CANCELLED, FAILED):
            session.execute(
                update(Subproblem)
                .where(Subproblem.run_id == run_id, Subproblem.state == CANCELLED)
                .values(state=PENDING, queued_at=None)
            )
            C.revive_checks(session, run_id)
            run.status = RUNNING
            run.finished_at = None
            run.error = None
        session.flush()
        session.expunge(run)
        return run


@dataclass
class Progress:
    """A run's progress as the ledger sees it now."""

    run_id: int
    status: str
    weight_done: float
    solutions: int
    nodes: int
    states: dict[str, int] = field(default_factory=dict)
    elapsed: float = 0.0
    #: verifications (``--verify``): states, mismatches, nodes (done), open_nodes
    checks: dict[str, int] = field(default_factory=dict)
    verify_fraction: float | None = None
    estimated_nodes: int | None = None

    @property
    def subproblems(self) -> int:
        return sum(self.states.values())


#: SQLite's SUM adds integers in 64 bits (an error past 2^63) and CAST turns longer
#: decimals into floats: it sums the counts only while they cannot pass this together
_SQLITE_EXACT_SUM = 2**63 - 1


def _done_solutions(session: Any, run_id: int) -> int:
    """The solutions found by a run's done subproblems, exactly (counts are decimal text of
    any size): PostgreSQL sums them as NUMERIC; SQLite does when they are few and short
    enough for its 64-bit sum, else they are summed here."""
    where = "FROM subproblems WHERE run_id = :r AND state = 'done'"
    if session.get_bind().dialect.name != "sqlite":
        return int(session.scalar(text(f"SELECT SUM(CAST(count AS NUMERIC)) {where}"), {"r": run_id}) or 0)
    rows, digits = session.execute(text(f"SELECT COUNT(count), MAX(LENGTH(count)) {where}"), {"r": run_id}).one()
    if not rows:
        return 0
    if rows * 10 ** int(digits) <= _SQLITE_EXACT_SUM:
        return int(session.scalar(text(f"SELECT SUM(CAST(count AS INTEGER)) {where}"), {"r": run_id}) or 0)
    counts = session.scalars(text(f"SELECT count {where}"), {"r": run_id})
    return sum(int(c) for c in counts if c is not None)


def progress(ledger: Ledger, run_id: int) -> Progress:
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger {ledger.url}")
        states = dict(
            session.execute(
                select(Subproblem.state, func.count()).where(Subproblem.run_id == run_id).group_by(Subproblem.state)
            ).all()
        )
        done_f, nodes = session.execute(
            select(func.sum(Subproblem.done_f), func.sum(Subproblem.nodes)).where(
                Subproblem.run_id == run_id, Subproblem.state == DONE
            )
        ).one()
        solutions = _done_solutions(session, run_id)
        end = run.finished_at or utcnow()
        if run.status == DONE:
            done_f, solutions, nodes = 1.0 if run.mode != "first" else done_f, run.solutions, run.nodes
        checks = C.check_counts(session, run_id) if run.verify_fraction else {}
        return Progress(
            run_id=run_id,
            status=run.status,
            weight_done=float(done_f or 0.0),
            solutions=int(solutions or 0),
            nodes=int(nodes or 0),
            states=states,
            elapsed=(end - run.created_at).total_seconds(),
            checks=checks,
            verify_fraction=run.verify_fraction,
            estimated_nodes=run.estimated_nodes,
        )
