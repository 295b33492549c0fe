"""Estimates before a run: Knuth's random-path estimator of a search tree's size.

Walk from the root to a leaf choosing a child uniformly at random; with ``d_k`` the
branching factor at depth ``k``, ``1 + d_0 + d_0 d_1 + ...`` is an unbiased estimate of
the number of nodes, and ``d_0 d_1 ... d_{k-1}`` (when the leaf is a solution) of the
number of solutions (Knuth, "Estimating the efficiency of backtrack programs", 1975).
The mean over many walks, with its standard error, gives a confidence band; the time is
the estimated nodes over this machine's measured node rate on the same problem.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from typing import Sequence

from .search import SolveRequest, Solver


@dataclass(frozen=True)
class Band:
    """An estimate with a confidence band (``low``..``high`` at about 95%)."""

    value: float
    low: float
    high: float

    def to_json(self) -> dict:
        return {"estimate": self.value, "low": self.low, "high": self.high}


@dataclass(frozen=True)
class Estimate:
    """What a run of a problem will cost, estimated from random root-to-leaf paths."""

    samples: int
    nodes: Band
    solutions: Band
    seconds: Band
    nodes_per_second: float
    #: walks that ended in a solution: with none, the solutions band (0..0) says nothing
    #: (solutions rarer than about 3 walks in ``samples``, by the rule of three)
    solutions_reached: int = 0

    def to_json(self) -> dict:
        return {
            "samples": self.samples,
            "solutions_reached": self.solutions_reached,
            "nodes": self.nodes.to_json(),
            "solutions": self.solutions.to_json(),
            "seconds": self.seconds.to_json(),
            "nodes_per_second": self.nodes_per_second,
        }


def random_path(solver: Solver, rng: random.Random, path: Sequence[int] = ()) -> tuple[float, float]:
    """One walk below ``path``: (estimated nodes, estimated solutions) of its subtree."""
    path = tuple(path)
    nodes, product = 1.0, 1.0
    while True:
        children = solver.split(len(path) + 1, path)
        if len(children) == 1 and children[0].path == path:  # a leaf: solution or dead end
            solutions = product if solver.count(path) else 0.0
            return nodes, solutions
        product *= len(children)
        nodes += product
        path = rng.choice(children).path


def _band(values: list[float], z: float = 1.96) -> Band:
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return Band(mean, mean, mean)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = z * math.sqrt(var / n)
    return Band(mean, max(0.0, mean - half), mean + half)


def node_rate(solver: Solver, path: Sequence[int] = (), seconds: float = 0.5) -> float:
    """Nodes per second of this solver on this problem, measured for about ``seconds``."""
    result = solver.solve(path, SolveRequest(seconds=seconds))
    return result.stats.nodes / max(result.stats.seconds, 1e-9)


def estimate(
    solver: Solver,
    samples: int = 1000,
    *,
    seed: int = 0,
    path: Sequence[int] = (),
    max_seconds: float | None = None,
    rate: float | None = None,
) -> Estimate:
    """Estimate tree size, solutions and time below ``path`` from ``samples`` random walks
    (fewer if ``max_seconds`` runs out first; at least one)."""
    if samples < 1:
        raise ValueError("samples must be at least 1")
    rng = random.Random(seed)
    started = time.perf_counter()
    node_samples: list[float] = []
    solution_samples: list[float] = []
    for _ in range(samples):
        n, s = random_path(solver, rng, path)
        node_samples.append(n)
        solution_samples.append(s)
        if max_seconds is not None and time.perf_counter() - started > max_seconds:
            break
    nodes = _band(node_samples)
    rate = rate if rate is not None else node_rate(solver, path)
    seconds = Band(nodes.value / rate, nodes.low / rate, nodes.high / rate)
    reached = sum(1 for s in solution_samples if s)
    return Estimate(len(node_samples), nodes, _band(solution_samples), seconds, rate, reached)
