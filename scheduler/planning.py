"""Planning: split a run's search tree into subproblems (the frontier at a shallow depth).

By default the depth is the shallowest that gives many more subproblems than workers
(:data:`PER_WORKER` each, at least :data:`MINIMUM`), so the slow ones do not leave
workers idle at the end; ``split_depth`` or ``subproblems`` ask for a depth or a count.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from core.search import Solver, Subpath

PER_WORKER = 32
MINIMUM = 64
MAX_DEPTH = 12


@dataclass
class Plan:
    frontier: list[Subpath]
    depth: int | None
    seconds: float

    def to_json(self) -> dict:
        return {"subproblems": len(self.frontier), "depth": self.depth, "seconds": round(self.seconds, 6)}


def plan(
    solver: Solver,
    *,
    workers: int = 1,
    split_depth: int | None = None,
    subproblems: int | None = None,
    first: bool = False,
) -> Plan:
    """The subproblems of a run.  ``first`` (stop at the first N solutions) plans the
    root alone, so solutions come in search order."""
    started = time.perf_counter()
    if first:
        frontier, depth = [Subpath((), Fraction(1))], 0
    elif split_depth is not None:
        if split_depth < 0:
            raise ValueError("--split-depth must be 0 or more")
        frontier = solver.split(split_depth) if split_depth else [Subpath((), Fraction(1))]
        depth = split_depth
    else:
        target = subproblems if subproblems is not None else max(MINIMUM, PER_WORKER * workers)
        if target < 1:
            raise ValueError("--subproblems must be 1 or more")
        frontier = solver.split_into(target, max_depth=MAX_DEPTH) if target > 1 else [Subpath((), Fraction(1))]
        depth = max((len(s.path) for s in frontier), default=0)
    return Plan(frontier=list(frontier), depth=depth, seconds=time.perf_counter() - started)
