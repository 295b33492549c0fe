"""Verified runs: re-solve a random sample of a run's finished subproblems and compare.

A subproblem that searched its whole subtree (not stopped by a budget) is a
deterministic function of its path, so solving it again — here, in another process than
the worker that recorded it — must give the same count, distinct count, node count and,
for enumeration runs, the same solutions.  A mismatch is written on the run (its
``error``) naming the subproblem and the worker that recorded it.
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update

from .codec import path_of, unpack
from .db import Ledger
from .ledger import get_run
from .models import DONE, Run, Solution, Subproblem
from .work import build_solver, worker_name


@dataclass
class Mismatch:
    """One subproblem whose stored result disagrees with a fresh solve."""

    sub_id: int
    path: tuple[int, ...]
    worker: str | None
    stored: dict[str, Any]
    found: dict[str, Any]

    def describe(self, verifier: str) -> str:
        diffs = ", ".join(f"{k} {self.stored[k]} (worker {self.worker}) vs {self.found[k]} ({verifier})"
                          for k in self.stored if self.stored[k] != self.found[k])
        return f"subproblem #{self.sub_id} path {list(self.path)}: {diffs}"


@dataclass
class VerifyReport:
    run_id: int
    checked: int
    eligible: int
    verifier: str
    mismatches: list[Mismatch] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "checked": self.checked,
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
    are any) and record any mismatch on the run."""
    if not 0 < fraction <= 1:
        raise ValueError("the fraction to verify must be in (0, 1]")
    run = get_run(ledger, run_id)
    _, solver = build_solver(run.spec, run.options or {})
    with ledger.session() as session:
        rows = session.execute(
            select(Subproblem.id, Subproblem.path, Subproblem.count, Subproblem.distinct, Subproblem.nodes,
                   Subproblem.worker)
            .where(Subproblem.run_id == run_id, Subproblem.state == DONE, Subproblem.stopped_by.is_(None))
            .order_by(Subproblem.id)
        ).all()
    sample = random.Random(seed).sample(rows, min(len(rows), max(1, math.ceil(fraction * len(rows))))) if rows else []
    verifier = worker_name()
    report = VerifyReport(run_id, len(sample), len(rows), verifier)
    enumerate_ = run.mode == "enumerate"
    for sub_id, path_text, count, distinct, nodes, worker in sorted(sample):
        path = path_of(path_text)
        result = solver.solve(path, enumerate=enumerate_)
        stored = {"count": int(count), "nodes": int(nodes)}
        found = {"count": result.count, "nodes": result.stats.nodes}
        if distinct is not None or result.distinct is not None:
            stored["distinct"] = None if distinct is None else int(distinct)
            found["distinct"] = result.distinct
        if enumerate_:
            with ledger.session() as session:
                blobs = session.scalars(select(Solution.options).where(Solution.subproblem_id == sub_id)).all()
            stored["solutions"] = sorted(tuple(sorted(unpack(b))) for b in blobs)
            found["solutions"] = sorted(tuple(sorted(s)) for s in result.solutions or [])
        if stored != found:
            if enumerate_:  # keep the report short: the solution lists only as counts
                stored["solutions"], found["solutions"] = len(stored["solutions"]), len(found["solutions"])
            report.mismatches.append(Mismatch(sub_id, path, worker, stored, found))
    if report.mismatches:
        text = "verify failed: " + "; ".join(m.describe(verifier) for m in report.mismatches[:5])
        if len(report.mismatches) > 5:
            text += f"; and {len(report.mismatches) - 5} more"
        with ledger.session() as session:
            session.execute(update(Run).where(Run.id == run_id).values(error=text))
    return report


def summary(report: VerifyReport) -> str:
    """One line for the terminal."""
    head = f"run {report.run_id}: re-solved {report.checked} of {report.eligible} complete subproblems"
    if report.ok:
        return head + " — all agree"
    return head + f" — {len(report.mismatches)} MISMATCH" + ("ES" if len(report.mismatches) > 1 else "")


__all__ = ["Mismatch", "VerifyReport", "summary", "verify_run"]
