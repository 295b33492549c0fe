"""Read-only questions to the ledger: the runs, one run in detail, its solutions."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator

from sqlalchemy import func, select

from . import reads
from .codec import path_of, unpack
from .db import Ledger
from .errors import LedgerError
from .ledger import get_run
from .models import Run, Solution, Subproblem
from .run_options import Mode
from .states import RunStatus, SubproblemState
from .summary import found_in

if TYPE_CHECKING:
    from core.problem import Problem


def list_runs(ledger: Ledger, *, limit: int = 50, status: str | None = None,
              problem: str | None = None) -> list[dict[str, Any]]:
    """The newest runs first, a dict each; ``problem``: only runs whose problem name
    contains it (:func:`scheduler.reads.list_runs`, which ``runs`` also asks without
    SQLAlchemy)."""
    with ledger.session() as session:
        return reads.list_runs(reads.session_query(session), limit=limit, status=status, problem=problem)


def run_summary(ledger: Ledger, run_id: int, *, slowest: int = 5) -> dict[str, Any]:
    """Totals, status, timings, throughput, the slowest subproblems, the spread of sizes
    (:func:`scheduler.reads.run_summary`, which ``show`` also asks without SQLAlchemy)."""
    with ledger.session() as session:
        return reads.run_summary(reads.session_query(session), run_id, slowest=slowest)


#: at most this many stored solutions are read to summarise a run (``show``'s summary)
SUMMARY_LIMIT = 200_000


def problem_of(ledger: Ledger, run_id: int) -> Problem:
    """The run's problem, rebuilt from the spec stored with it."""
    from core.library import from_spec  # every model: imported only when a problem is needed

    return from_spec(get_run(ledger, run_id).spec)


def model_summary(ledger: Ledger, run_id: int, s: dict[str, Any]) -> dict[str, Any] | None:
    """The model's own summary of a finished run's stored solutions (crosswords: which
    squares are black, or white, in every grid), where the model has one; ``s`` is the
    run's :func:`run_summary`."""
    if s["status"] != RunStatus.DONE or not Mode(s["mode"]).listing:
        return None
    summarise = getattr(problem_of(ledger, run_id), "summarise", None)
    if summarise is None:
        return None
    return summarise(options for _, _, options in iter_solutions(ledger, run_id, limit=SUMMARY_LIMIT))


def given_found(ledger: Ledger, run_id: int, s: dict[str, Any], problem: Problem | None = None) -> bool | None:
    """Whether a finished run found the grid its crossword file was read from
    (:func:`scheduler.summary.found_in`), its stored solutions read from the ledger."""
    if s["status"] != RunStatus.DONE:
        return None
    return found_in(problem or problem_of(ledger, run_id), s,
                    lambda: (options for _, _, options in iter_solutions(ledger, run_id)))


def run_details(ledger: Ledger, run_id: int) -> dict[str, Any]:
    """What ``show --json`` prints: :func:`run_summary`, with the model's ``summary`` and,
    for a crossword read from a grid or file, ``given_found`` (:func:`given_found`)."""
    s = run_summary(ledger, run_id)
    summary = model_summary(ledger, run_id, s)
    if summary is not None:
        s["summary"] = summary
    found = given_found(ledger, run_id, s)
    if found is not None:
        s["given_found"] = found
    return s


def solution_rows(ledger: Ledger, run_id: int, problem: Problem, *, limit: int,
                  offset: int = 0) -> list[dict[str, Any]]:
    """What ``solutions --json`` prints: one page of stored solutions, with their text."""
    return [solution_entry(problem, i, sub, sol)
            for i, sub, sol in iter_solutions(ledger, run_id, limit=limit, offset=offset)]


def solution_entry(problem: Problem, index: int, subproblem: int, options: tuple[int, ...]) -> dict[str, Any]:
    """One stored solution as JSON: its 0-based index, subproblem, option ids and text,
    and what the model adds (:meth:`core.problem.Problem.solution_json`: a crossword's
    ``grid``)."""
    return {"index": index, "subproblem": subproblem, "options": list(options), "text": problem.render_text(options),
            **problem.solution_json(options)}


def count_solutions(ledger: Ledger, run_id: int) -> int:
    """How many solutions of the run are stored (an index-only count)."""
    with ledger.session() as session:
        return session.scalar(select(func.count()).select_from(Solution).where(Solution.run_id == run_id))


#: the node rate of a run's timeline is taken over this many samples (results arrive in bursts)
RATE_WINDOW = 5


def run_series(ledger: Ledger, run_id: int, *, points: int = 120) -> dict[str, Any]:
    """A run over time and its subproblems by size, for pictures: ``timeline`` (at most
    ``points`` samples of the finished subproblems in the order they finished: seconds
    since the run began, progress, nodes, solutions, and the node rate over the last
    :data:`RATE_WINDOW` samples) and ``sizes`` (finished subproblems counted by nodes, in
    powers of two)."""
    with ledger.session() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise LedgerError(f"no run {run_id} in the ledger")
        start = run.created_at
        rows = session.execute(
            select(Subproblem.finished_at, Subproblem.done_f, Subproblem.nodes, Subproblem.count)
            .where(Subproblem.run_id == run_id, Subproblem.state == SubproblemState.DONE)
            .order_by(Subproblem.finished_at, Subproblem.id)
        ).all()
    timeline: list[dict[str, Any]] = [{"seconds": 0.0, "progress": 0.0, "nodes": 0, "solutions": 0,
                                       "nodes_per_second": None}]
    weight = nodes = solutions = 0
    sizes: dict[int, int] = {}
    step = max(1, len(rows) // points)
    for i, (finished, done_f, n, count) in enumerate(rows):
        weight += done_f or 0.0
        nodes += n or 0
        solutions += int(count or 0)
        sizes[(n or 0).bit_length()] = sizes.get((n or 0).bit_length(), 0) + 1
        if (i + 1) % step and i + 1 != len(rows):
            continue
        seconds = max(0.0, ((finished or start) - start).total_seconds())
        last = timeline[max(0, len(timeline) - RATE_WINDOW)]
        span = seconds - last["seconds"]
        timeline.append({"seconds": round(seconds, 3), "progress": round(min(weight, 1.0), 9), "nodes": nodes,
                         "solutions": solutions,
                         "nodes_per_second": round((nodes - last["nodes"]) / span, 1) if span > 0 else None})
    return {"run_id": run_id, "timeline": timeline,
            "sizes": [{"low": 0 if b == 0 else 2 ** (b - 1), "high": 2 ** b - 1, "subproblems": sizes[b]}
                      for b in sorted(sizes)]}


def library_listing() -> dict[str, list[dict[str, Any]]]:
    """What ``problems --json`` prints: the built-in named problems and the name patterns."""
    from core.library import library, library_patterns

    return {"problems": [{"name": e.name, "kind": e.spec.get("kind"), "description": e.description, "known": e.known}
                         for e in library()],
            "patterns": [{"pattern": p.pattern, "description": p.description} for p in library_patterns()]}


def iter_solutions(ledger: Ledger, run_id: int, *, limit: int | None = None, offset: int = 0,
                   chunk: int = 5_000) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """``(index, subproblem id, option ids)`` of a run's stored solutions, in ledger order."""
    with ledger.session() as session:
        if session.get(Run, run_id) is None:
            raise LedgerError(f"no run {run_id} in the ledger")
    index, last_id, left = offset, None, limit
    if offset:  # skip through the (run_id, id) index alone, then read rows from the id found
        with ledger.session() as session:
            first = session.scalar(select(Solution.id).where(Solution.run_id == run_id).order_by(Solution.id)
                                   .offset(offset).limit(1))
        if first is None:
            return
        last_id = first - 1
    while left is None or left > 0:
        with ledger.session() as session:
            q = select(Solution.id, Solution.subproblem_id, Solution.options).where(Solution.run_id == run_id)
            if last_id is not None:
                q = q.where(Solution.id > last_id)
            q = q.order_by(Solution.id)
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
