"""Solving one subproblem: rebuild the problem from the run's spec (cached per run),
search the path under the budget, and describe the outcome for the ledger.

This is pure computation — no database — so the local process pool and the Celery
worker run exactly the same code.
"""
from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Hashable

from core.engines import solver_for
from core.library import from_spec
from core.problem import Problem
from core.search import Path, SolveRequest, SolveResult, Solver, Stats, Subpath, heaviest_first

from .run_options import Mode, RunOptions

#: at most this many solutions are held in memory by one listing task
ENUMERATE_BATCH = 50_000


@dataclass
class Task:
    """A leased subproblem to solve."""

    run_id: int
    sub_id: int
    path: Path
    weight: Fraction


@dataclass
class Outcome:
    """What solving one subproblem found: ``frontier`` is donated as new subproblems."""

    run_id: int
    sub_id: int
    count: int
    distinct: int | None
    nodes: int
    seconds: float
    stats: dict[str, Any]
    weight_done: Fraction
    frontier: list[Subpath] = field(default_factory=list)
    solutions: list[Path] | None = None
    stopped_by: str | None = None
    worker: str = ""
    path: Path = ()
    #: ``--census``: for every option, the solutions below this subproblem that use it
    census: list[int] | None = None


def build_solver(spec: dict[str, Any], options: RunOptions) -> tuple[Problem, Solver]:
    """The run's problem, rebuilt from its spec, and the solver its options ask for."""
    problem = from_spec(spec)
    return problem, solver_for(problem, options.solver)


_CACHE: dict[Hashable, tuple[Problem, Solver]] = {}


def is_cached(key: Hashable) -> bool:
    return key in _CACHE


def cached_keys() -> list[Hashable]:
    """The keys of the solvers this process holds."""
    return list(_CACHE)


def cached_solver(key: Hashable, spec: dict[str, Any] | None, options: RunOptions) -> Solver:
    """The solver of a run, built once per process (``key``: the run's identity; ``spec``
    may be None when :func:`is_cached` says so)."""
    entry = _CACHE.get(key)
    if entry is None:
        if spec is None:
            raise ValueError(f"no spec given for uncached solver {key!r}")
        if len(_CACHE) > 16:
            _CACHE.clear()
        entry = _CACHE[key] = build_solver(spec, options)
    return entry[1]


def worker_name() -> str:
    """``host:pid``: the host from ``os.uname()`` (what ``socket.gethostname()`` gives on
    POSIX, without importing socket: about 3 ms a command that counts in planning need
    not pay), socket's where there is no ``os.uname``."""
    uname = getattr(os, "uname", None)
    if uname is not None:
        return f"{uname().nodename}:{os.getpid()}"
    import socket

    return f"{socket.gethostname()}:{os.getpid()}"


def request_for(mode: Mode, options: RunOptions, seconds: float | None = None) -> SolveRequest:
    """What one task of a run asks of the solver.  ``count``: count under the time budget
    (``seconds``, else the run's; and the node budget, when set); ``enumerate``: also list
    the solutions, at most :data:`ENUMERATE_BATCH` per task; ``first``: stop after
    ``limit`` solutions."""
    budget = options.task_seconds if seconds is None else seconds
    if mode is Mode.COUNT:
        return SolveRequest(seconds=budget, node_budget=options.node_budget)
    if mode is Mode.ENUMERATE:
        return SolveRequest(listing=True, seconds=budget, node_budget=options.node_budget, limit=ENUMERATE_BATCH)
    return SolveRequest(listing=True, limit=int(options.limit or 1))


def solve_task(solver: Solver, task: Task, mode: Mode, options: RunOptions) -> Outcome:
    """Search one subproblem as the run's mode and options say; whatever is left
    unexplored is the frontier (``first`` donates nothing: the run ends there)."""
    if options.census:
        return census_task(solver, task)
    result = solver.solve(task.path, request_for(mode, options))
    if result.weight != task.weight:
        raise ValueError(
            f"subproblem {task.sub_id}: the solver weighs path {list(task.path)} "
            f"{result.weight}, the ledger {task.weight}"
        )
    return outcome_of(result, task.run_id, task.sub_id, mode)


def census_task(solver: Solver, task: Task) -> Outcome:
    """The census of one subproblem (:meth:`core.search.Solver.census`): its count and,
    for every option, the solutions below it that use it.  A census has no budget and
    no frontier (its search has no stop: core/census.py), so the subproblem is done
    whole; the run's lease is long for it (:meth:`RunOptions.lease_seconds`)."""
    started, cpu = time.perf_counter(), time.process_time()
    census = solver.census(task.path)
    seconds = time.perf_counter() - started
    stats = Stats(solutions=census.total, seconds=seconds)
    return Outcome(run_id=task.run_id, sub_id=task.sub_id, count=census.total, distinct=None, nodes=0,
                   seconds=seconds, stats={**stats.to_json(), "cpu_seconds": round(time.process_time() - cpu, 6)},
                   weight_done=task.weight, worker=worker_name(), path=tuple(task.path),
                   census=census.per_option)


def outcome_of(result: SolveResult, run_id: int, sub_id: int, mode: Mode) -> Outcome:
    """A solver's result as the ledger records it for subproblem ``sub_id``."""
    # a count's donated subproblems heaviest first; a listing's in search order
    frontier = [] if mode is Mode.FIRST else heaviest_first(result.frontier) if mode is Mode.COUNT \
        else list(result.frontier)
    return Outcome(
        run_id=run_id,
        sub_id=sub_id,
        count=result.count,
        distinct=result.distinct,
        nodes=result.stats.nodes,
        seconds=result.stats.seconds,
        stats={**result.stats.to_json(), **({"gave_up": result.gave_up} if result.gave_up else {})},
        weight_done=result.weight_done,
        frontier=frontier,
        solutions=[tuple(s) for s in result.solutions] if result.solutions is not None else None,
        stopped_by=result.stopped_by,
        worker=worker_name(),
        path=tuple(result.path),
    )
