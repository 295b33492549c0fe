"""Planning: split a run's search tree into subproblems (the frontier at a shallow depth),
and estimate its size before it starts.

By default the depth is the shallowest that gives many more subproblems than workers
(:data:`PER_WORKER` each, at least :data:`MINIMUM`), so the slow ones do not leave
workers idle at the end; ``split_depth`` or ``subproblems`` ask for a depth or a count.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

from core.estimate import Band, Estimate, estimate
from core.search import SolveRequest, Solver, Subpath

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


#: a quick estimate before a run: time the search for this long, then sample random
#: paths for at most this long (or this many)
RATE_SECONDS = 0.3
ESTIMATE_SECONDS = 1.0
ESTIMATE_SAMPLES = 500


def quick_estimate(solver: Solver, *, rate_seconds: float = RATE_SECONDS, seconds: float = ESTIMATE_SECONDS,
                   samples: int = ESTIMATE_SAMPLES, seed: int = 0) -> Estimate:
    """The run's size in about ``rate_seconds + seconds``: time the search from the root;
    if that search finishes, its nodes, solutions and time are exact (``samples == 0``),
    else Knuth's estimator over random paths, at the measured node rate."""
    trial = solver.solve((), SolveRequest(seconds=rate_seconds))
    rate = trial.stats.nodes / max(trial.stats.seconds, 1e-9)
    if trial.stopped_by is None and not trial.frontier:
        n, c, t = float(trial.stats.nodes), float(trial.count), float(trial.stats.seconds)
        return Estimate(0, Band(n, n, n), Band(c, c, c), Band(t, t, t), rate)
    return estimate(solver, samples, seed=seed, max_seconds=seconds, rate=rate)


def estimate_json(est: Estimate) -> dict:
    """An estimate as stored in the run's plan statistics (``exact``: searched in full)."""
    return {**est.to_json(), "exact": est.samples == 0}
