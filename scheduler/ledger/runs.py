"""Runs in the ledger: create one with its planned subproblems, read it, close it with
exact totals, fail, cancel, interrupt or revive it, and read its progress."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, NamedTuple, Sequence

from sqlalchemy import Connection, bindparam, func, insert, select, update

from core.problem import Problem
from core.search import Stats, Subpath

from .. import reads
from ..batches import seconds_per_weight
from ..codec import count_of, count_text, fraction_of, total_of
from ..db import Ledger
from ..errors import LedgerError
from ..models import Run, Subproblem, Verification, utcnow
from ..rows import classes, counted_rows, run_row, stats_of
from ..summary import Progress
from ..run_options import ExecutorKind, Mode, RunOptions
from ..states import OPEN, RunStatus, SubproblemState
from ..work import Outcome
from . import verifications as V
from .ends import CHANNEL, announce_end
from .pipeline import pipelined, pipelines, single_statements, transaction
from .results import OPEN_STATES, insert_solutions, record, record_all, record_pipelined
from .subproblems import insert_subproblems, subproblem_rows

SUB = Subproblem.__table__
RUN = Run.__table__
_INSERT_RUN = insert(RUN).returning(RUN.c.id)
_INSERT_DONE = insert(SUB).returning(SUB.c.id)
_HAS_OPEN = select(SUB.c.id).where(SUB.c.run_id == bindparam("run_id"), SUB.c.state.in_(OPEN)).limit(1)


@dataclass(frozen=True)
class CreatedRun:
    """A run just written: its id, and its subproblems left for the workers (pending), in
    order, with their weights — what a submitter sends, without reading them back."""

    run_id: int
    pending: list[int] = field(default_factory=list)
    weights: list[Fraction] = field(default_factory=list)


def create_run(
    ledger: Ledger,
    *,
    problem: Problem,
    mode: Mode,
    options: RunOptions,
    executor: ExecutorKind,
    frontier: Sequence[Subpath],
    plan_stats: dict[str, Any] | None = None,
    verify_fraction: float | None = None,
    estimated_nodes: int | None = None,
    started: dt.datetime | None = None,
    first: Callable[[int, int], Outcome] | None = None,
    queued: bool = False,
    modulus: int | None = None,
    times: Callable[[], dict[str, float]] | None = None,
) -> CreatedRun:
    """The run row and one pending row per subproblem, in one transaction; ``started``:
    when its planning began (its ``created_at``, so its seconds count the planning).
    ``first(run_id, sub_id)``: the result of the single planned subproblem, found while
    planning, recorded in the same transaction (with its donated frontier).  ``queued``:
    the pending subproblems are stamped as sent to a queue (the submitter sends them
    next, so a Celery run's start costs no query to find them and none to stamp them;
    should it die first, the scheduler sends them once they are its grace period old).
    ``modulus``: the run's total is the sum of its counts modulo this (a count by levels
    in groups of moduli: core/level_shares.py).  ``times``: for a run that planning
    counted in full, where the command's time went (:mod:`scheduler.phases`), asked for
    last in the transaction and kept in the run's plan statistics."""
    if first is not None and len(frontier) != 1:
        raise ValueError("a result found while planning is the result of the one planned subproblem")
    sampling = V.sampling_of(verify_fraction, options.verify_seed)
    row = run_row(problem=problem, mode=mode, options=options, executor=executor, frontier=frontier,
                  plan_stats=plan_stats, verify_fraction=verify_fraction, estimated_nodes=estimated_nodes,
                  started=started, modulus=modulus)
    with ledger.engine.begin() as conn:
        if first is not None and sampling is None:
            outcome = first(0, 0)
            if not outcome.frontier:  # planning counted everything: the run is written closed
                return CreatedRun(_insert_counted(conn, row, outcome, times))
        run_id = conn.execute(_INSERT_RUN, row).scalar_one()
        now = utcnow() if queued else None
        ids = insert_subproblems(conn, subproblem_rows(run_id, frontier, None, None if first is not None else now))
        if first is None:
            return CreatedRun(run_id, ids, [s.weight for s in frontier])
        outcome = first(run_id, ids[0])
        children = record(conn, outcome, queued=queued, sampling=sampling)  # its row is new: never None
        return CreatedRun(run_id, children or [], [s.weight for s in outcome.frontier])


def _insert_counted(conn: Connection, row: dict[str, Any], outcome: Outcome,
                    times: Callable[[], dict[str, float]] | None) -> int:
    """A run that planning counted in full: the run row closed with its totals, the root
    subproblem done with the result, its solutions (:func:`scheduler.rows.counted_rows`)
    — the transaction of :func:`record` and :func:`close_run` in one; last, ``times``."""
    run, root = counted_rows(row, outcome)
    run_id = conn.execute(_INSERT_RUN, run).scalar_one()
    sub_id = conn.execute(_INSERT_DONE, dict(root, run_id=run_id)).scalar_one()
    insert_solutions(conn, run_id, sub_id, outcome.solutions or [])
    if times is not None:
        _add_plan_stats(conn, run_id, {"times": times()})
    return run_id


def record_times(ledger: Ledger, run_id: int, times: dict[str, float]) -> None:
    """Keep where the command's time went (:mod:`scheduler.phases`) in the run's plan
    statistics, once a run the pool counted is closed."""
    with ledger.engine.begin() as conn:
        _add_plan_stats(conn, run_id, {"times": times})


def _add_plan_stats(conn: Connection, run_id: int, added: dict[str, Any], **values: Any) -> None:
    """Add ``added`` to a run's plan statistics (and set the other columns ``values``)."""
    stats = conn.execute(select(RUN.c.plan_stats).where(RUN.c.id == run_id)).scalar_one()
    conn.execute(update(RUN).where(RUN.c.id == run_id).values(plan_stats={**(stats or {}), **added}, **values))


def record_estimate(ledger: Ledger, run_id: int, estimate: dict[str, Any], nodes: int) -> None:
    """Add an estimate made after the run was written (``submit`` samples once its
    subproblems are queued) to the run's plan statistics, and its node count for the ETA."""
    with ledger.engine.begin() as conn:
        _add_plan_stats(conn, run_id, {"estimate": estimate}, estimated_nodes=nodes)


def get_run(ledger: Ledger, run_id: int) -> Run:
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger {ledger.url}")
        session.expunge(run)
        return run


_DONE_SO_FAR = select(func.sum(SUB.c.seconds), func.sum(SUB.c.done_f)).where(
    SUB.c.run_id == bindparam("run_id"), SUB.c.state == SubproblemState.DONE)


def measured_rate(ledger: Ledger, run_id: int) -> float | None:
    """A run's seconds per unit of weight so far (its done subproblems), in one query;
    None before any weight is done."""
    with ledger.engine.connect() as conn:
        seconds, done = conn.execute(_DONE_SO_FAR, {"run_id": run_id}).one()
    return seconds_per_weight(float(seconds or 0.0), float(done or 0.0))


def run_status(ledger: Ledger, run_id: int) -> str:
    """A run's status, in one small query (what a waiting process polls): the SQL that
    :mod:`scheduler.read_direct` asks too (:func:`scheduler.reads.run_status`)."""
    with ledger.engine.connect() as conn:
        return reads.run_status(reads.session_query(conn), run_id, f"no run {run_id} in the ledger {ledger.url}")


def run_spec(ledger: Ledger, run_id: int) -> dict:
    """A run's problem spec (a worker's first message of a run): one round trip."""
    with single_statements(ledger.engine) as conn:
        return conn.execute(select(RUN.c.spec).where(RUN.c.id == run_id)).scalar_one()


def has_open(ledger: Ledger, run_id: int, *, verifications: bool = True) -> bool:
    """Whether some subproblem (or, with ``verifications``, verification) of the run is still
    pending or leased."""
    with ledger.engine.connect() as conn:
        if conn.execute(_HAS_OPEN, {"run_id": run_id}).first() is not None:
            return True
        return verifications and V.count_open(conn, run_id) > 0


_LOCK_RUN = select(RUN.c.id).where(RUN.c.id == bindparam("run_id")).with_for_update()
#: the same two in psycopg's placeholders, sent in one pipeline with the results
#: (:func:`~.results.record_pipelined`)
_LOCK_RUN_PG = f"SELECT id FROM {RUN.name} WHERE id = %(run_id)s FOR UPDATE"
_HAS_OPEN_PG = f"SELECT id FROM {SUB.name} WHERE run_id = %(run_id)s AND state = ANY(%(open)s) LIMIT 1"
#: the run's row locked where nothing of it is pending (a pending subproblem is open, and
#: whoever records it later looks again, so no lock is needed then)
_LOCK_RUN_UNLESS_PENDING_PG = (f"SELECT id FROM {RUN.name} WHERE id = %(run_id)s AND NOT EXISTS "
                               f"(SELECT 1 FROM {SUB.name} WHERE run_id = %(run_id)s AND state = %(pending)s) FOR UPDATE")


def open_look_pg(run_id: int) -> list[tuple[str, dict]]:
    """PostgreSQL: the statements of a look at whether anything of the run is open, in a
    transaction of its own after the caller's committed (:func:`.pulls.pull`, in the same
    flush): the run's row locked first, as :func:`close_if_done` locks it, so that of two
    workers recording the run's last results, the second to look sees the first's.  Their
    rows: the lock's, then a row where something is open."""
    params = {"run_id": run_id, "open": OPEN_STATES, "pending": str(SubproblemState.PENDING)}
    return [(_LOCK_RUN_UNLESS_PENDING_PG, params), (_HAS_OPEN_PG, params)]


def record_closing(ledger: Ledger, run_id: int, outcomes: Sequence[Outcome], *, queued: bool = False,
                   sampling: V.Sampling | None = None) -> tuple[list[list[int] | None], bool]:
    """A worker's last results of a message, and the run closed if nothing of it is open
    any more, in one transaction: what each recorded (see :func:`record`), and whether
    this call closed the run.  The record, the look at what is open and the close were
    three transactions, a dozen round trips to the database for each message.

    The run's row is locked first (PostgreSQL; SQLite's writers take turns anyway), so two
    workers recording the run's last two results take turns: the second sees the first's
    results and closes.  Without it each could see the other's subproblem still leased,
    and neither close.  On PostgreSQL the lock, the results and the look at what is open
    go in one round trip with the transaction's ``BEGIN`` and ``COMMIT``; the run, when
    nothing of it is open, is closed in a second transaction, which locks its row and
    looks again (:func:`close_if_done`): the last to lock it sees every result."""
    if pipelines(ledger.engine):
        with transaction(ledger.engine) as conn:  # the lock, the results, the look at what is open: one round trip
            recorded, (still_open,) = record_pipelined(
                conn, outcomes, queued=queued, sampling=sampling, before=[(_LOCK_RUN_PG, {"run_id": run_id})],
                after=[(_HAS_OPEN_PG, {"run_id": run_id, "open": OPEN_STATES})], commit=True)
        if still_open:
            return recorded, False
        return recorded, close_when_done(ledger, run_id)  # nothing open: closed in a transaction of its own
    with ledger.engine.begin() as conn:
        conn.execute(_LOCK_RUN, {"run_id": run_id})  # first, before the results' rows
        recorded = record_all(conn, outcomes, queued=queued, sampling=sampling)
        return recorded, close_if_done(conn, run_id)


def close_if_done(conn: Connection, run_id: int) -> bool:
    """In a transaction: close the run if nothing of it is open any more, its row locked
    first (see :func:`record_closing`); True when this call closed it."""
    conn.execute(_LOCK_RUN, {"run_id": run_id})
    if conn.execute(_HAS_OPEN, {"run_id": run_id}).first() is not None:
        return False
    return _close(conn, run_id)


def close_when_done(ledger: Ledger, run_id: int) -> bool:
    """:func:`close_if_done` in a transaction of its own: on PostgreSQL two round trips
    (:func:`_close_pipelined`), where its dozen statements were each one."""
    if pipelines(ledger.engine):
        with transaction(ledger.engine) as conn:
            return _close_pipelined(conn, run_id)
    with ledger.engine.begin() as conn:
        return close_if_done(conn, run_id)


def close_run(ledger: Ledger, run_id: int) -> bool:
    """Close a running run whose subproblems are all done: exact totals, timings, and the
    check that finished weights add up to 1.  True when this call closed it."""
    with ledger.engine.begin() as conn:
        return _close(conn, run_id)


_RUN_OPEN = select(RUN.c.status, RUN.c.mode, RUN.c.created_at, RUN.c.modulus, RUN.c.options).where(
    RUN.c.id == bindparam("run_id"))
_COUNT_OPEN = select(func.count()).select_from(SUB).where(SUB.c.run_id == bindparam("run_id"), SUB.c.state.in_(OPEN))
_DONE_ROWS = select(SUB.c.count, SUB.c.distinct, SUB.c.nodes, SUB.c.seconds, SUB.c.done_num, SUB.c.done_den,
                    SUB.c.stats).where(SUB.c.run_id == bindparam("run_id"), SUB.c.state == SubproblemState.DONE)


def _close(conn: Connection, run_id: int) -> bool:
    """:func:`close_run` inside a transaction."""
    run = conn.execute(_RUN_OPEN, {"run_id": run_id}).first()
    if run is None or run.status != RunStatus.RUNNING:
        return False
    if conn.execute(_COUNT_OPEN, {"run_id": run_id}).scalar_one() or V.count_open(conn, run_id):
        return False
    values = _closed_values(run, conn.execute(_DONE_ROWS, {"run_id": run_id}), V.first_mismatch(conn, run_id))
    r = conn.execute(update(RUN).where(RUN.c.id == run_id, RUN.c.status == RunStatus.RUNNING).values(**values))
    if r.rowcount != 1:
        return False
    announce_end(conn, run_id)
    return True


def _closed_values(run, done_rows, mismatch: str | None) -> dict[str, Any]:
    """The run's row as it closes: its totals summed over ``done_rows`` (as
    :data:`_DONE_ROWS` reads them; counts as integers or as their decimal text), its
    status (failed where the finished weights do not add up to 1, or ``mismatch``, the
    first failed verification), its timings."""
    counts: list[int] = []
    distinct = nodes = 0
    any_distinct = False
    cpu = 0.0
    weight = Fraction(0)
    stats = Stats()
    gave_up = None  # a count by levels that gave up for the search (core/level_shares.py): why
    for count, dist, n, secs, dn, dd, st in done_rows:
        counts.append(count if count is None or isinstance(count, int) else count_of(count))
        if dist is not None:
            any_distinct = True
            distinct += int(dist)
        nodes += int(n or 0)
        cpu += secs or 0.0
        weight += fraction_of(dn, dd)
        if st:
            stats.add(stats_of(st))
            gave_up = gave_up or st.get("gave_up")
    total = total_of(counts, run.modulus)
    now = utcnow()
    limited = run.mode == Mode.FIRST
    status, error = RunStatus.DONE, None
    if not limited and weight != 1:
        status, error = RunStatus.FAILED, f"finished weight adds up to {weight}, not 1"
    elif mismatch is not None:
        status, error = RunStatus.FAILED, f"verification failed: {mismatch}"
    if any_distinct:
        try:
            distinct = classes(distinct, run.options)
        except ValueError as e:  # a part missing or wrong: said, not rounded
            status, error, distinct = RunStatus.FAILED, str(e), None
    stats.solutions = total
    return dict(status=status, error=error, solutions=total, distinct=distinct if any_distinct else None,
                nodes=nodes, stats={**stats.to_json(), **({"gave_up": gave_up} if gave_up else {})}, cpu_seconds=cpu,
                seconds=(now - run.created_at).total_seconds(), finished_at=now)


#: :func:`_close`'s reads in psycopg's placeholders, for one pipeline (the run's row
#: locked first, as :func:`close_if_done` does)
_CLOSE_READS_PG = [
    _LOCK_RUN_PG,
    f"SELECT status, mode, created_at, modulus, options FROM {RUN.name} WHERE id = %(run_id)s",
    f"SELECT count(*) FROM {SUB.name} WHERE run_id = %(run_id)s AND state = ANY(%(open)s)",
    f"SELECT count(*) FROM {Verification.__tablename__} WHERE run_id = %(run_id)s AND state = ANY(%(open)s)",
    f"SELECT count, \"distinct\", nodes, seconds, done_num, done_den, stats FROM {SUB.name} "
    "WHERE run_id = %(run_id)s AND state = %(done)s",
    f"SELECT detail FROM {Verification.__tablename__} WHERE run_id = %(run_id)s AND ok IS false ORDER BY id LIMIT 1",
]
#: the run closed, and its end told (``NOTIFY``, :mod:`.ends`) where it was: after the
#: UPDATE, in the same pipeline
_CLOSE_PG = (
    f"UPDATE {RUN.name} SET status = %(status)s, error = %(error)s, solutions = %(solutions)s, "
    "\"distinct\" = %(distinct)s, nodes = %(nodes)s, stats = %(stats)s, cpu_seconds = %(cpu_seconds)s, "
    "seconds = %(seconds)s, finished_at = %(finished_at)s WHERE id = %(run_id)s AND status = %(running)s RETURNING id"
)
_NOTIFY_CLOSED_PG = (f"SELECT pg_notify(%(channel)s, %(run_text)s) FROM {RUN.name} "
                     "WHERE id = %(run_id)s AND status = ANY(%(ended)s)")


class _RunOpen(NamedTuple):  # a row of _CLOSE_READS_PG's second statement, as _closed_values reads it
    status: str
    mode: str
    created_at: dt.datetime
    modulus: int | None
    options: dict


def _close_pipelined(conn: Connection, run_id: int) -> bool:
    """PostgreSQL, in a :func:`~.pipeline.transaction`: :func:`close_if_done` as two round
    trips — the lock and every read in the first (``BEGIN`` with them), the totals summed
    here, the UPDATE, the ``NOTIFY`` and ``COMMIT`` in the second."""
    from psycopg.types.json import Json

    params = {"run_id": run_id, "open": OPEN_STATES, "done": str(SubproblemState.DONE)}
    _, (runs,), (open_subs,), (open_vers,), (done,), (mismatch,) = pipelined(
        conn, [(sql, [params]) for sql in _CLOSE_READS_PG])
    if not runs or runs[0][0] != RunStatus.RUNNING or open_subs[0][0] or open_vers[0][0]:
        return False
    status, mode, created_at, modulus, options = runs[0]
    run = _RunOpen(status, mode, created_at, None if modulus is None else count_of(modulus), options)
    values = _closed_values(run, done, mismatch[0][0] if mismatch else None)
    values.update(run_id=run_id, running=str(RunStatus.RUNNING), status=str(values["status"]),
                  stats=Json(values["stats"]), channel=CHANNEL, run_text=str(run_id),
                  ended=[str(s) for s in RunStatus if s != RunStatus.RUNNING],
                  **{k: None if values[k] is None else count_text(values[k]) for k in ("solutions", "distinct", "nodes")})
    (closed,), _ = pipelined(conn, [(_CLOSE_PG, [values]), (_NOTIFY_CLOSED_PG, [values])], commit=True)
    return bool(closed[0])


def fail_run(ledger: Ledger, run_id: int, error: str) -> bool:
    """Mark a running run ``failed`` with ``error``; True when it was running."""
    with ledger.session() as session:
        failed = session.execute(
            update(Run).where(Run.id == run_id, Run.status == RunStatus.RUNNING).values(status=RunStatus.FAILED, error=error[:2000], finished_at=utcnow())
        ).rowcount == 1
        if failed:
            announce_end(session, run_id)
        return failed


def interrupt_run(ledger: Ledger, run_id: int) -> bool:
    """Mark a running run ``interrupted`` (its process was stopped by a signal; its leases
    are released by the caller); True when it was running."""
    with ledger.session() as session:
        r = session.execute(
            update(Run).where(Run.id == run_id, Run.status == RunStatus.RUNNING)
            .values(status=RunStatus.INTERRUPTED, finished_at=utcnow())
        )
        if r.rowcount != 1:
            return False
        announce_end(session, run_id)
        return True


def cancel_run(ledger: Ledger, run_id: int) -> int:
    """Stop a run: open subproblems become cancelled (late results are then refused)."""
    with ledger.session() as session:
        run = session.get(Run, run_id, with_for_update=True)  # the run's row first, as record_closing
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger {ledger.url}")
        n = session.execute(
            update(Subproblem)
            .where(Subproblem.run_id == run_id, Subproblem.state.in_(OPEN))
            .values(state=SubproblemState.CANCELLED, lease_owner=None, lease_expires=None)
        ).rowcount
        V.cancel_verifications(session, run_id)
        if run.status in (RunStatus.RUNNING, RunStatus.INTERRUPTED):
            if run.status == RunStatus.RUNNING:
                announce_end(session, run_id)
            run.status = RunStatus.CANCELLED
            run.finished_at = utcnow()
        return n


def revive_run(ledger: Ledger, run_id: int) -> Run:
    """Make a cancelled, failed or interrupted run resumable again; returns the run."""
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger {ledger.url}")
        if run.status in (RunStatus.CANCELLED, RunStatus.FAILED, RunStatus.INTERRUPTED):
            session.execute(
                update(Subproblem)
                .where(Subproblem.run_id == run_id, Subproblem.state == SubproblemState.CANCELLED)
                .values(state=SubproblemState.PENDING, queued_at=None)
            )
            V.revive_verifications(session, run_id)
            run.status = RunStatus.RUNNING
            run.finished_at = None
            run.error = None
        session.flush()
        session.expunge(run)
        return run


#: SQLite's SUM adds integers in 64 bits (an error past 2^63) and CAST turns longer
#: decimals into floats: it sums the counts only while they cannot pass this together
def progress(ledger: Ledger, run_id: int) -> Progress:
    """A run's progress as the ledger sees it now (:func:`scheduler.reads.progress_of_run`,
    the SQL that ``runs`` and ``show`` also ask without SQLAlchemy)."""
    with ledger.session() as session:
        q = reads.session_query(session)
        return reads.progress_of_run(q, reads.read_run(q, run_id, f"no run {run_id} in the ledger {ledger.url}"))
