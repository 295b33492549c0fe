"""A run's progress and its summary, made from values read from the ledger — without
SQLAlchemy, so that :mod:`scheduler.sqlite_direct` summarises the run it has just written
as :func:`scheduler.queries.run_summary` summarises one read back."""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence

from .codec import path_of
from .clock import utcnow
from .run_options import Mode, RunOptions
from .states import RunStatus

if TYPE_CHECKING:
    from core.problem import Problem


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
    verifications: dict[str, int] = field(default_factory=dict)
    verify_fraction: float | None = None
    estimated_nodes: int | None = None
    #: a count by levels: the seconds its probe projected for the count (plan statistics)
    projected_seconds: float | None = None

    @property
    def subproblems(self) -> int:
        return sum(self.states.values())


def progress_of(run: Any, *, states: dict[str, int], done_f: float | None, solutions: int | None, nodes: int | None,
                gone: dt.datetime | None = None, verifications: dict[str, int] | None = None) -> Progress:
    """A run's progress from its row (``run``: the ledger's columns as attributes) and its
    subproblems' sums: their ``states`` counted, the weight, solutions and nodes of the
    done ones; ``gone``: when a running local run's process stopped working, if it did."""
    end = run.finished_at or gone or utcnow()
    if run.status == RunStatus.DONE:
        done_f, solutions, nodes = 1.0 if run.mode != Mode.FIRST else done_f, run.solutions, run.nodes
    return Progress(
        run_id=run.id,
        status=RunStatus.INTERRUPTED if gone is not None else run.status,
        weight_done=float(done_f or 0.0),
        solutions=int(solutions or 0),
        nodes=int(nodes or 0),
        states=states,
        elapsed=(end - run.created_at).total_seconds(),
        verifications=verifications or {},
        verify_fraction=run.verify_fraction,
        estimated_nodes=run.estimated_nodes,
        projected_seconds=((run.plan_stats or {}).get("levels") or {}).get("seconds"),
    )


def iso(t: dt.datetime | None) -> str | None:
    return None if t is None else t.isoformat(timespec="seconds") + "Z"


def estimate_summary(run: Any, nodes: int) -> dict[str, Any] | None:
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
            "mean": round(sum(values) / len(values), 3)}


def summarise(run: Any, rows: Sequence[Any], stored_solutions: int, p: Progress,
              verification: dict[str, Any] | None, *, slowest: int = 5) -> dict[str, Any]:
    """Totals, status, timings, throughput, the slowest subproblems, the spread of sizes:
    ``run`` the run's row, ``rows`` its done subproblems (``id``, ``path``, ``seconds``,
    ``nodes``, ``count``, ``attempts``, ``n_donated``, ``worker``, ``distinct``), ``stored_solutions``
    how many of its solutions are stored, ``p`` its progress, ``verification`` how its
    verifications stand (``--verify``)."""
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
        "created": iso(run.created_at),
        "finished": iso(run.finished_at),
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
        "stored_solutions": stored_solutions,
        "workers": sorted({r.worker for r in rows if r.worker}),
        "stats": run.stats,
        "plan": run.plan_stats,
        "times": (run.plan_stats or {}).get("times"),
        "verification": verification,
        "estimate": estimate_summary(run, nodes),
    }
    if RunOptions.from_json(run.options).solver.distinct or run.distinct is not None:
        summary["distinct"] = run.distinct
    burnside = (run.plan_stats or {}).get("burnside")
    if burnside:
        summary["burnside"] = burnside_parts(burnside, rows)
    return summary


def burnside_parts(plan: dict[str, Any], rows) -> dict[str, Any]:
    """A Burnside count's sum from its parts so far (``rows``: the done subproblems, with
    their paths and ``distinct``): the identity's (every solution) and each class's, the
    solutions one element of it fixes (core/burnside.py)."""
    sums: dict[int, int] = {}
    for r in rows:
        path = path_of(r.path)
        if path and r.distinct is not None:
            sums[path[0]] = sums.get(path[0], 0) + int(r.distinct)
        elif not path:  # counted whole at the root: its parts as planning found them
            for c, n in (plan.get("root") or {}).items():
                sums[int(c)] = sums.get(int(c), 0) + int(n)
    classes = [{"size": 1, "fixed": sums.get(0, 0)}]
    for c in plan["classes"]:
        child = c["child"]
        classes.append({"size": c["size"], "fixed": 0 if child is None else sums.get(child, 0) // c["size"]})
    return {"order": plan["order"], "classes": classes}


def found_in(problem: Problem, s: dict[str, Any], stored: Callable[[], Iterable[tuple[int, ...]]]) -> bool | None:
    """Whether a finished run found the grid its crossword file was read from (the model's
    ``given_found``): for a count or ``--all``, whether that grid's path is a solution path
    of the tree the run searched in full; for ``--first N``, whether it is among the N
    stored solutions (``stored()``: their option ids).  None when the problem has no
    given grid, or the run (its summary ``s``) is not done."""
    if s["status"] != RunStatus.DONE:
        return None
    check = getattr(problem, "given_found", None)
    if check is None:
        return None
    # (a whole tree's run stored every solution, or counted it)
    return check(stored() if Mode(s["mode"]) is Mode.FIRST else None)
