"""Read-only questions to the ledger: the runs, one run in detail, its solutions."""
from __future__ import annotations

import statistics
from typing import Any, Iterator

from sqlalchemy import func, select

from .codec import path_of, unpack
from .db import Ledger
from .errors import LedgerError
from .ledger import Progress, progress
from .models import Run, Solution, Subproblem
from .run_options import RunOptions
from .states import RunStatus, SubproblemState
from .ledger import verifications as V


def _iso(t) -> str | None:
    return None if t is None else t.isoformat(timespec="seconds") + "Z"


def list_runs(ledger: Ledger, *, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
    """The newest runs first, a dict each."""
    stored = [status, RunStatus.RUNNING] if status in (RunStatus.RUNNING, RunStatus.INTERRUPTED) else [status]
    with ledger.session() as session:
        q = select(Run).order_by(Run.id.desc()).limit(limit)
        if status:  # a running local run whose process died shows as interrupted (progress says)
            q = q.where(Run.status.in_(stored))
        runs = list(session.scalars(q))
    out = []
    for run in runs:
        p = progress(ledger, run.id)
        if status and p.status != status:
            continue
        out.append(
            {
                "run_id": run.id,
                "problem": run.name,
                "mode": run.mode,
                "executor": run.executor,
                "status": p.status,
                "solutions": run.solutions if run.solutions is not None else p.solutions,
                "distinct": run.distinct,
                "nodes": run.nodes if run.nodes is not None else p.nodes,
                "progress": round(p.weight_done, 6),
                "subproblems": p.subproblems,
                "created": _iso(run.created_at),
                "seconds": round(run.seconds if run.seconds is not None else p.elapsed, 3),
                "verified": p.verifications.get("done") if run.verify_fraction else None,
                "mismatches": p.verifications.get("mismatches") if run.verify_fraction else None,
                "error": run.error,
            }
        )
    return out


def verification(ledger: Ledger, run: Run, p: Progress) -> dict[str, Any] | None:
    """How a ``--verify`` run's verifications stand, with its mismatches; None otherwise."""
    if not run.verify_fraction:
        return None
    c = p.verifications
    with ledger.session() as session:
        bad = V.mismatch_rows(session, run.id)
    return {"fraction": run.verify_fraction, "seed": RunOptions.from_json(run.options).verify_seed or 0,
            "verified": c["done"], "agree": c["done"] - c["mismatches"], "mismatches": c["mismatches"],
            "open": c["pending"] + c["leased"], "cancelled": c["cancelled"], "nodes": c["nodes"],
            "mismatched": bad}


def estimate_summary(run: Run, nodes: int) -> dict[str, Any] | None:
    """The estimate made before the run, beside the nodes searched (``ratio``: actual over
    estimated, once the run is done)."""
    est = (run.plan_stats or {}).get("estimate")
    if est is None:
        return None
    ratio = nodes / run.estimated_nodes if run.status == RunStatus.DONE and run.estimated_nodes else None
    return {**est, "estimated_nodes": run.estimated_nodes, "ratio": None if ratio is None else round(ratio, 4)}


def _quantiles(values: list) -> dict[str, Any]:
    if not values:
        return {}
    values = sorted(values)

    def q(f: float):
        return values[min(len(values) - 1, int(f * len(values)))]

    return {"min": values[0], "p50": q(0.5), "p90": q(0.9), "p99": q(0.99), "max": values[-1],
            "mean": round(statistics.fmean(values), 3)}


def run_summary(ledger: Ledger, run_id: int, *, slowest: int = 5) -> dict[str, Any]:
    """Totals, status, timings, throughput, the slowest subproblems, the spread of sizes."""
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger")
        rows = session.execute(
            select(Subproblem.id, Subproblem.path, Subproblem.seconds, Subproblem.nodes, Subproblem.count,
                   Subproblem.attempts, Subproblem.n_donated, Subproblem.worker)
            .where(Subproblem.run_id == run_id, Subproblem.state == SubproblemState.DONE)
        ).all()
        n_solutions_stored = session.scalar(select(func.count()).where(Solution.run_id == run_id))
    p = progress(ledger, run_id)
    seconds = run.seconds if run.seconds is not None else p.elapsed
    nodes = run.nodes if run.nodes is not None else p.nodes
    slow = sorted(rows, key=lambda r: -(r.seconds or 0.0))[:slowest]
    summary: dict[str, Any] = {
        "run_id": run.id,
        "problem": run.name,
        "kind": run.kind,
        "spec_hash": run.spec_hash,
        "mode": run.mode,
        "executor": run.executor,
        "options": run.options,
        "status": p.status,
        "error": run.error,
        "solutions": run.solutions if run.solutions is not None else p.solutions,
        "nodes": nodes,
        "seconds": round(seconds, 6),
        "cpu_seconds": round(run.cpu_seconds if run.cpu_seconds is not None else sum(r.seconds or 0 for r in rows), 6),
        "progress": round(p.weight_done, 9),
        "created": _iso(run.created_at),
        "finished": _iso(run.finished_at),
        "subproblems": {"planned": run.n_planned, "total": p.subproblems, **p.states,
                        "donated": sum(r.n_donated or 0 for r in rows),
                        "retried": sum(1 for r in rows if (r.attempts or 0) > 1)},
        "throughput": {
            "nodes_per_second": round(nodes / seconds, 1) if seconds else None,
            "subproblems_per_second": round(len(rows) / seconds, 2) if seconds else None,
        },
        "slowest": [
            {"id": r.id, "path": list(path_of(r.path)), "seconds": round(r.seconds or 0.0, 6),
             "nodes": r.nodes, "solutions": r.count, "worker": r.worker}
            for r in slow
        ],
        "sizes": {"nodes": _quantiles([r.nodes or 0 for r in rows]),
                  "seconds": _quantiles([round(r.seconds or 0.0, 6) for r in rows])},
        "stored_solutions": n_solutions_stored,
        "workers": sorted({r.worker for r in rows if r.worker}),
        "stats": run.stats,
        "plan": run.plan_stats,
        "verification": verification(ledger, run, p),
        "estimate": estimate_summary(run, nodes),
    }
    if RunOptions.from_json(run.options).solver.distinct or run.distinct is not None:
        summary["distinct"] = run.distinct
    return summary


def iter_solutions(ledger: Ledger, run_id: int, *, limit: int | None = None, offset: int = 0,
                   chunk: int = 5_000) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """``(index, subproblem id, option ids)`` of a run's stored solutions, in ledger order."""
    with ledger.session() as session:
        if session.get(Run, run_id) is None:
            raise LedgerError(f"no run {run_id} in the ledger")
    index, last_id, left = offset, None, limit
    skip = offset
    while left is None or left > 0:
        with ledger.session() as session:
            q = select(Solution.id, Solution.subproblem_id, Solution.options).where(Solution.run_id == run_id)
            if last_id is not None:
                q = q.where(Solution.id > last_id)
            q = q.order_by(Solution.id)
            if skip:
                q = q.offset(skip)
                skip = 0
            n = chunk if left is None else min(chunk, left)
            rows = session.execute(q.limit(n)).all()
        if not rows:
            return
        for sid, sub, blob in rows:
            yield index, sub, unpack(blob)
            index += 1
        last_id = rows[-1][0]
        if left is not None:
            left -= len(rows)


def iter_subproblems(ledger: Ledger, run_id: int) -> Iterator[dict[str, Any]]:
    with ledger.session() as session:
        rows = session.execute(select(Subproblem).where(Subproblem.run_id == run_id).order_by(Subproblem.id)).scalars().all()
    for s in rows:
        yield {
            "id": s.id, "path": list(path_of(s.path)), "weight": f"{s.weight_num}/{s.weight_den}",
            "parent": s.parent_id, "state": s.state, "attempts": s.attempts, "solutions": s.count,
            "distinct": s.distinct, "nodes": s.nodes, "seconds": s.seconds, "stopped_by": s.stopped_by,
            "donated": s.n_donated, "worker": s.worker,
        }
