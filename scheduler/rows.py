"""The rows a run is written as, in plain Python values, without SQLAlchemy.

Built here once and written by :mod:`scheduler.ledger` (SQLAlchemy), or — a run that its
planning counted in full, on a SQLite ledger at the newest schema — by
:mod:`scheduler.sqlite_direct` (the standard library's sqlite3), so the two write the same
row for the same run.
"""
from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from core.search import Stats, Subpath

from .codec import fraction_parts, path_text
from .clock import utcnow
from .run_options import ExecutorKind, Mode, RunOptions
from .states import RunStatus, SubproblemState

if TYPE_CHECKING:
    from core.problem import Problem

    from .work import Outcome


def run_row(*, problem: Problem, mode: Mode, options: RunOptions, executor: ExecutorKind, frontier: Sequence[Subpath],
            plan_stats: dict[str, Any] | None = None, verify_fraction: float | None = None,
            estimated_nodes: int | None = None, started: dt.datetime | None = None,
            modulus: int | None = None) -> dict[str, Any]:
    """A new run's row, running (see :func:`scheduler.ledger.create_run`)."""
    if sum((s.weight for s in frontier), Fraction(0)) != 1:
        raise ValueError("the planned subproblems' weights do not add up to 1")
    return dict(
        name=str(problem.name), kind=problem.kind, spec=problem.spec, spec_hash=problem.spec_hash,
        mode=str(mode), options=options.to_json(), executor=str(executor), status=RunStatus.RUNNING,
        n_planned=len(frontier), plan_stats=plan_stats, created_at=started or utcnow(),
        verify_fraction=verify_fraction, estimated_nodes=estimated_nodes, modulus=modulus,
    )


def subproblem_rows(run_id: int, frontier: Iterable[Subpath], parent_id: int | None,
                    now: dt.datetime | None) -> list[dict[str, Any]]:
    """A frontier as pending subproblem rows of a run (``now``: stamped as sent to a queue)."""
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
                state=SubproblemState.PENDING,
                attempts=0,
                queued_at=now,
            )
        )
    return rows


def counted_rows(row: dict[str, Any], outcome: Outcome) -> tuple[dict[str, Any], dict[str, Any]]:
    """A run that planning counted in full: its row (``row``, from :func:`run_row`) closed
    with the totals, and its root subproblem's row, done with the result (all but its
    ``run_id``).  The solutions are ``outcome.solutions``."""
    now = utcnow()
    weight = outcome.weight_done
    if row["mode"] != Mode.FIRST and weight != 1:
        raise ValueError(f"a complete count's weight is {weight}, not 1")
    run = dict(row, status=RunStatus.DONE, solutions=outcome.count, nodes=outcome.nodes,
               distinct=None if outcome.distinct is None else classes(outcome.distinct, row["options"]),
               stats=stats_of(outcome.stats).to_json(), cpu_seconds=outcome.seconds, finished_at=now,
               seconds=(now - row["created_at"]).total_seconds())
    num, den, approx = fraction_parts(weight)
    root = dict(path=path_text(()), depth=0, weight_num="1", weight_den="1", weight_f=1.0,
                state=SubproblemState.DONE, attempts=1, count=outcome.count, distinct=outcome.distinct,
                nodes=outcome.nodes, seconds=outcome.seconds, stats=outcome.stats, done_num=num, done_den=den,
                done_f=approx, stopped_by=outcome.stopped_by, n_donated=0, worker=outcome.worker, finished_at=now)
    return run, root


def classes(distinct: int | str, options: dict[str, Any] | None) -> int:
    """A run's distinct count from the sum of its parts': the sum itself, or, where the
    run counts its classes by Burnside's lemma (``options["burnside"]``, the group's
    order), the sum over the order (:func:`core.burnside.classes_of`: a sum that is no
    multiple of it raises ValueError)."""
    order = int((options or {}).get("burnside") or 0)
    if not order:
        return int(distinct)
    from core.burnside import classes_of  # only where a run counts so

    return classes_of(int(distinct), order)


def stats_of(data: dict[str, Any]) -> Stats:
    """Search statistics from their JSON (a subproblem's, or a run's)."""
    return Stats(
        nodes=int(data.get("nodes", 0)),
        leaves=int(data.get("leaves", 0)),
        solutions=int(data.get("solutions", 0)),
        updates=int(data.get("updates", 0)),
        seconds=float(data.get("seconds", 0.0)),
        nodes_per_depth=list(data.get("nodes_per_depth", [])),
        by_levels=int(data.get("by_levels", 0)),
    )
