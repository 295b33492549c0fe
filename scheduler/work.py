"""Solving one subproblem: rebuild the problem from the run's spec (cached per run),
search the path under the budget, and describe the outcome for the ledger.

This is pure computation — no database — so the local process pool and the Celery
worker run exactly the same code.
"""
from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from core.problem import Problem, from_spec
from core.search import Path, SolveRequest, Solver, Subpath

#: the default time budget of one task, in seconds
DEFAULT_BUDGET = 60.0
#: at most this many solutions are held in memory by one enumerating task
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


def solver_options(options: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of ``Problem.solver`` a run's options ask for."""
    kw: dict[str, Any] = {"engine": options.get("engine", "kernel")}
    if options.get("distinct"):
        kw["distinct"] = True
    if options.get("memo") is False:
        kw["memo"] = False
    if options.get("levels"):
        kw["levels"] = True
    return kw


def build_solver(spec: dict[str, Any], options: dict[str, Any]) -> tuple[Problem, Solver]:
    problem = from_spec(spec)
    return problem, problem.solver(**solver_options(options))


_CACHE: dict[tuple, tuple[Problem, Solver]] = {}


def is_cached(key: Any) -> bool:
    return key in _CACHE


def cached_solver(key: Any, spec: dict[str, Any] | None, options: dict[str, Any]) -> Solver:
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
    return f"{socket.gethostname()}:{os.getpid()}"


def solve_task(solver: Solver, task: Task, mode: str, options: dict[str, Any]) -> Outcome:
    """Search one subproblem as the run's mode and options say.

    ``count``: count under the time budget (and the node budget, when set); ``enumerate``: also collect the solutions, at
    most :data:`ENUMERATE_BATCH` per task; ``first``: stop after ``limit`` solutions and
    donate nothing (the run ends there).  Whatever is left unexplored is the frontier.
    """
    budget = options.get("budget", DEFAULT_BUDGET)
    nodes = options.get("node_budget")
    if mode == "count":
        result = solver.solve(task.path, SolveRequest(seconds=budget, node_budget=nodes))
    elif mode == "enumerate":
        result = solver.solve(task.path, SolveRequest(listing=True, seconds=budget, node_budget=nodes,
                                                      limit=ENUMERATE_BATCH))
    elif mode == "first":
        result = solver.solve(task.path, SolveRequest(listing=True, limit=int(options["limit"])))
    else:
        raise ValueError(f"unknown run mode {mode!r}")
    frontier = [] if mode == "first" else list(result.frontier)
    if result.weight != task.weight:
        raise ValueError(
            f"subproblem {task.sub_id}: the solver weighs path {list(task.path)} "
            f"{result.weight}, the ledger {task.weight}"
        )
    return Outcome(
        run_id=task.run_id,
        sub_id=task.sub_id,
        count=result.count,
        distinct=result.distinct,
        nodes=result.stats.nodes,
        seconds=result.stats.seconds,
        stats=result.stats.to_json(),
        weight_done=result.weight_done,
        frontier=frontier,
        solutions=[tuple(s) for s in result.solutions] if result.solutions is not None else None,
        stopped_by=result.stopped_by,
        worker=worker_name(),
        path=tuple(task.path),
    )
