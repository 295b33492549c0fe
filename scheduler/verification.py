"""Verified runs: re-solve a complete subproblem in another process, and compare.

A subproblem that searched its whole subtree (not stopped by a budget) is a
deterministic function of its path, so solving it again — in another process than the
worker that recorded it — must give the same count, distinct count, node count and, for
enumeration runs, the same solutions.

Two ways in:

* ``--verify P`` on ``solve``/``submit``: while the run goes on, a sampled share P of the
  complete subproblems (:mod:`scheduler.ledger.verifications`) is re-solved by a different
  worker (:func:`execute_verification` on Celery, the local pool's other processes, or the
  scheduler process itself: :func:`verify_here`).  A mismatch fails the run at once, naming the
  subproblem, its path and both workers; the run is not done until every verification is.
* ``tilecensus verify RUN`` (:func:`verify_run`): after the fact, here, on a random sample.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update

from core.errors import PathError
from core.search import SolveRequest

from .codec import path_of, unpack
from .db import Ledger
from .ledger import close_run, fail_run, get_run, has_open, run_brief, run_spec
from .ledger import verifications as T
from .ledger.verifications import VerificationTask
from .models import Run, Solution, Subproblem
from .run_options import Mode, RunOptions
from .states import SubproblemState
from .work import ENUMERATE_BATCH, build_solver, cached_solver, is_cached, worker_name

@dataclass
class Mismatch:
    """One subproblem whose stored result disagrees with a fresh solve."""

    sub_id: int
    path: tuple[int, ...]
    worker: str | None
    stored: dict[str, Any]
    found: dict[str, Any]

    def describe(self, verifier: str) -> str:
        diffs = ", ".join(f"{k} {self.stored[k]} (worker {self.worker}) vs {self.found[k]} (verifier {verifier})"
                          for k in self.stored if self.stored[k] != self.found[k])
        return f"subproblem #{self.sub_id} path {list(self.path)}: {diffs}"


# ----------------------------------------------------------------------------- comparing
def fresh_result(solver, path: tuple[int, ...], mode: Mode, options: RunOptions) -> dict[str, Any]:
    """Solve ``path`` again as the run did, with no time budget: count, nodes, distinct,
    whether it completed, and (enumerations) the solutions as sorted option sets."""
    listing = mode.listing
    limit = int(options.limit or 0) if mode is Mode.FIRST else ENUMERATE_BATCH if listing else None
    result = solver.solve(path, SolveRequest(listing=listing, limit=limit, node_budget=options.node_budget))
    found: dict[str, Any] = {"count": result.count, "nodes": result.stats.nodes,
                             "complete": result.stopped_by is None and not result.frontier}
    if result.distinct is not None:
        found["distinct"] = result.distinct
    if listing:
        found["solutions"] = sorted(tuple(sorted(s)) for s in result.solutions or [])
    return found


def stored_result(conn, sub_id: int, listing: bool) -> tuple[dict[str, Any], str | None, tuple[int, ...]]:
    """What the ledger holds for a complete subproblem: (result, worker, path)."""
    row = conn.execute(select(Subproblem.count, Subproblem.distinct, Subproblem.nodes, Subproblem.worker,
                              Subproblem.path).where(Subproblem.id == sub_id)).one()
    stored: dict[str, Any] = {"count": int(row.count), "nodes": int(row.nodes), "complete": True}
    if row.distinct is not None:
        stored["distinct"] = int(row.distinct)
    if listing:
        blobs = conn.execute(select(Solution.options).where(Solution.subproblem_id == sub_id)).scalars()
        stored["solutions"] = sorted(tuple(sorted(unpack(b))) for b in blobs)
    return stored, row.worker, path_of(row.path)


def compare(sub_id: int, path: tuple[int, ...], worker: str | None, stored: dict[str, Any],
            found: dict[str, Any]) -> Mismatch | None:
    """None when the results agree, else the mismatch (solution lists shown as counts)."""
    keys = sorted(set(stored) | set(found))
    stored = {k: stored.get(k) for k in keys}
    found = {k: found.get(k) for k in keys}
    if stored == found:
        return None
    if "solutions" in keys:
        stored["solutions"], found["solutions"] = len(stored["solutions"] or []), len(found["solutions"] or [])
    return Mismatch(sub_id, path, worker, stored, found)


# ----------------------------------------------------------------------------- during a run
@dataclass
class Verdict:
    """A verification's fresh result, found by ``verifier``."""

    run_id: int
    sub_id: int
    verifier: str
    found: dict[str, Any]
    seconds: float


def solve_again(solver, task: VerificationTask, mode: Mode, options: RunOptions) -> Verdict | None:
    """Re-solve a verification's subproblem here; None (refused) when this very process
    recorded it.  Pure computation, like :func:`scheduler.work.solve_task`."""
    me = worker_name()
    if task.worker == me:
        return None
    started = time.perf_counter()
    found = fresh_result(solver, task.path, mode, options)
    return Verdict(task.run_id, task.sub_id, me, found, time.perf_counter() - started)


def judge(ledger: Ledger, verdict: Verdict, mode: Mode) -> Mismatch | None:
    """Compare a verdict with the stored result and write it (once); a mismatch fails the
    run, naming the subproblem, its path and both workers."""
    with ledger.engine.begin() as conn:
        stored, worker, path = stored_result(conn, verdict.sub_id, mode.listing)
        mismatch = compare(verdict.sub_id, path, worker, stored, verdict.found)
        detail = None if mismatch is None else mismatch.describe(verdict.verifier)
        T.finish_verification(conn, verdict.sub_id, verdict.verifier, verdict.seconds, detail)
    return mismatch


def _run_solver(ledger: Ledger, run_id: int, brief) -> Any:
    key = (ledger.url, run_id, brief.spec_hash)
    return cached_solver(key, None if is_cached(key) else run_spec(ledger, run_id), brief.options)


def execute_verification(ledger: Ledger, sub_id: int, executor) -> str:
    """A Celery worker's verification task.  When it reaches the worker that recorded the
    result, the worker sends it back to the queue (after :data:`MAX_REFUSALS
    <scheduler.ledger.verifications.MAX_REFUSALS>` refusals it is left to the scheduler process);
    otherwise lease, re-solve, judge, close the run when it was the last."""
    with ledger.engine.begin() as conn:
        task = T.peek_verification(conn, sub_id)
        brief = None if task is None else run_brief(conn, task.run_id)
    if task is None or brief is None:
        return "skipped"
    if task.worker == worker_name():
        return _refuse(ledger, task, brief, executor)
    with ledger.engine.begin() as conn:
        if not T.lease_verification(conn, sub_id, f"celery:{worker_name()}", brief.options.lease_seconds()):
            return "skipped"
    return _finish(ledger, task, brief, _run_solver(ledger, task.run_id, brief), executor)


def _refuse(ledger: Ledger, task: VerificationTask, brief, executor) -> str:
    with ledger.engine.begin() as conn:
        refusals = T.refuse_verification(conn, task.sub_id)
    if refusals < T.MAX_REFUSALS and executor is not None:
        executor.dispatch_verifications(task.run_id, [task.sub_id], brief.options.queue_name)
    return "refused"


def _finish(ledger: Ledger, task: VerificationTask, brief, solver, executor=None) -> str:
    """Re-solve, judge, close the run when it was the last; a run this ended is told on
    the broker (``executor``'s :meth:`~scheduler.celery_executor.CeleryExecutor.announce_end`)."""
    try:
        verdict = solve_again(solver, task, brief.mode, brief.options)
    except (PathError, ValueError) as exc:
        if fail_run(ledger, task.run_id, f"verification of subproblem {task.sub_id}: {exc}") and executor is not None:
            executor.announce_end(task.run_id)
        raise
    if verdict is None:  # cannot happen after the worker test above; refuse loudly
        raise RuntimeError(f"verification of subproblem {task.sub_id} reached its own worker")
    mismatch = judge(ledger, verdict, brief.mode)
    ended = mismatch is not None  # (the judgement failed the run)
    if not has_open(ledger, task.run_id):
        ended = close_run(ledger, task.run_id) or ended
    if ended and executor is not None:
        executor.announce_end(task.run_id)
    return "verified" if mismatch is None else "mismatch"


def verify_here(ledger: Ledger, sub_id: int, owner: str) -> str:
    """Verify one subproblem in this process (the scheduler's share: verifications that
    kept reaching the worker that recorded them)."""
    with ledger.engine.begin() as conn:
        task = T.peek_verification(conn, sub_id)
        brief = None if task is None else run_brief(conn, task.run_id)
        if task is None or brief is None or task.worker == worker_name():
            return "skipped"
        if not T.lease_verification(conn, sub_id, owner, brief.options.lease_seconds()):
            return "skipped"
    return _finish(ledger, task, brief, _run_solver(ledger, task.run_id, brief))


# ----------------------------------------------------------------------------- after the fact
@dataclass
class VerifyReport:
    run_id: int
    verified: int
    eligible: int
    verifier: str
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "verified": self.verified,
            "eligible": self.eligible,
            "verifier": self.verifier,
            "ok": self.ok,
            "mismatches": [
                {"subproblem": m.sub_id, "path": list(m.path), "worker": m.worker, "stored": m.stored, "found": m.found}
                for m in self.mismatches
            ],
        }


def verify_run(ledger: Ledger, run_id: int, fraction: float, *, seed: int = 0) -> VerifyReport:
    """Re-solve ``fraction`` of the run's complete subproblems (at least one, when there
    are any) here, and record any mismatch on the run."""
    if not 0 < fraction <= 1:
        raise ValueError("the fraction to verify must be in (0, 1]")
    run = get_run(ledger, run_id)
    mode, options = Mode(run.mode), RunOptions.from_json(run.options)
    _, solver = build_solver(run.spec, options)
    with ledger.session() as session:
        ids = list(session.scalars(
            select(Subproblem.id)
            .where(Subproblem.run_id == run_id, Subproblem.state == SubproblemState.DONE,
                   Subproblem.stopped_by.is_(None))
            .order_by(Subproblem.id)
        ))
    sample = random.Random(seed).sample(ids, min(len(ids), max(1, math.ceil(fraction * len(ids))))) if ids else []
    report = VerifyReport(run_id, len(sample), len(ids), worker_name())
    for sub_id in sorted(sample):
        with ledger.engine.connect() as conn:
            stored, worker, path = stored_result(conn, sub_id, mode.listing)
        mismatch = compare(sub_id, path, worker, stored, fresh_result(solver, path, mode, options))
        if mismatch is not None:
            report.mismatches.append(mismatch)
    if report.mismatches:
        _write_error(ledger, run_id, report)
    return report


def _write_error(ledger: Ledger, run_id: int, report: VerifyReport) -> None:
    text = "verify failed: " + "; ".join(m.describe(report.verifier) for m in report.mismatches[:5])
    if len(report.mismatches) > 5:
        text += f"; and {len(report.mismatches) - 5} more"
    with ledger.session() as session:
        session.execute(update(Run).where(Run.id == run_id).values(error=text))


def summary(report: VerifyReport) -> str:
    """One line for the terminal."""
    head = f"run {report.run_id}: re-solved {report.verified} of {report.eligible} complete subproblems"
    if report.ok:
        return head + " — all agree"
    return head + f" — {len(report.mismatches)} MISMATCH" + ("ES" if len(report.mismatches) > 1 else "")


