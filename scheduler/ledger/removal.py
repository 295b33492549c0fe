"""Removing runs from the ledger: ``tilecensus delete RUN`` and ``tilecensus runs --prune``.

A run goes with everything recorded for it — its subproblems (with their results and
statistics), stored solutions, censuses and verifications — in one transaction, so the ledger never
holds half a run.  A running run is refused: its workers would write into rows that are
gone (cancel it first)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from sqlalchemy import delete, select

from ..db import Ledger, safe_url
from ..errors import LedgerError
from ..models import CensusRow, Run, Solution, SolutionOption, Subproblem, Verification
from ..states import RunStatus

#: the statuses ``runs --prune`` removes by default: the runs that are over
FINISHED = (RunStatus.DONE, RunStatus.FAILED, RunStatus.CANCELLED)


@dataclass(frozen=True)
class RunLabel:
    """What a listing of removed runs says of each: id, problem, status."""

    run_id: int
    problem: str
    status: str


def prunable_runs(ledger: Ledger, statuses: Iterable[str] = FINISHED) -> list[RunLabel]:
    """The runs with one of ``statuses`` (never a running one), oldest first."""
    wanted = [s for s in statuses if s != RunStatus.RUNNING]
    with ledger.session() as session:
        rows = session.execute(select(Run.id, Run.name, Run.status).where(Run.status.in_(wanted))
                               .order_by(Run.id)).all()
    return [RunLabel(r.id, r.name, r.status) for r in rows]


def delete_runs(ledger: Ledger, run_ids: Iterable[int]) -> list[RunLabel]:
    """Delete these runs and all their rows in one transaction; what was deleted.  An
    unknown or running run is a :class:`LedgerError` and deletes nothing."""
    ids = sorted(set(run_ids))
    if not ids:
        return []
    with ledger.session() as session:
        found = {r.id: RunLabel(r.id, r.name, r.status)
                 for r in session.execute(select(Run.id, Run.name, Run.status).where(Run.id.in_(ids)))}
        missing = [i for i in ids if i not in found]
        if missing:
            raise LedgerError(f"no run {missing[0]} in the ledger {safe_url(ledger.url)}")
        running = [i for i in ids if found[i].status == RunStatus.RUNNING]
        if running:
            raise LedgerError(f"run {running[0]} is running: cancel it first (tilecensus cancel {running[0]})")
        for table in (Verification, SolutionOption, Solution, CensusRow, Subproblem):
            session.execute(delete(table).where(table.run_id.in_(ids)))
        session.execute(delete(Run).where(Run.id.in_(ids)))
    return [found[i] for i in ids]
