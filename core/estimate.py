"""Estimates before a run: Knuth's random-path estimator of a search tree's size.

Walk from the root to a leaf choosing a child uniformly at random; with ``d_k`` the
branching factor at depth ``k``, ``1 + d_0 + d_0 d_1 + ...`` is an unbiased estimate of
the number of nodes, and ``d_0 d_1 ... d_{k-1}`` (when the leaf is a solution) of the
number of solutions (Knuth, "Estimating the efficiency of backtrack programs", 1975).
The mean over many walks, with its standard error, gives a confidence band; the time is
the estimated nodes over this machine's measured node rate on the same problem.

Where the estimator cannot be trusted it says so instead of giving a figure
(:class:`CannotEstimate`): a solver whose trees defeat it says why in
``estimate_refusal()`` (the crossword rebuild from a clue string: its few grids hide at the
end of long paths among paths that end early, and the bands missed the real size 20 to
4,000 times on library and published grids), and a band whose top is below the nodes a
search has already visited is wrong on its face.
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass
from fractions import Fraction
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


class CannotEstimate(Exception):
    """Random paths cannot size this tree; the message says why."""


def refusal(solver: Solver) -> str | None:
    """Why random paths cannot size ``solver``'s tree, or None (a solver that knows says
    so in an ``estimate_refusal()`` method)."""
    ask = getattr(solver, "estimate_refusal", None)
    return ask() if callable(ask) else None


def random_path(solver: Solver, rng: random.Random, path: Sequence[int] = (),
                deadline: float | None = None) -> tuple[int, int]:
    """One walk below ``path``: (estimated nodes, estimated solutions) of its subtree, as
    exact integers (a deep tree's products pass any float).  Raises
    :class:`CannotEstimate` when the walk outlasts ``deadline`` (a ``time.perf_counter``
    reading): each step replays the path from the root, so a tree thousands of levels deep
    takes longer than an estimate may."""
    path = tuple(path)
    nodes, product = 1, 1
    while True:
        if deadline is not None and time.perf_counter() > deadline:
            raise CannotEstimate(f"one random path did not reach a leaf in the time allowed ({len(path):,} levels "
                                 "down): the tree is too deep to sample")
        children = solver.split(len(path) + 1, path)
        if len(children) == 1 and children[0].path == path:  # a leaf: solution or dead end
            solutions = product if solver.count(path) else 0
            return nodes, solutions
        product *= len(children)
        nodes += product
        path = rng.choice(children).path


def _float(x: int | float) -> float:
    """A number as a float, infinity past the floats' range."""
    try:
        return float(x)
    except OverflowError:
        return math.inf


def _band(values: list[int], z: float = 1.96) -> Band:
    """The mean of integer samples with a band of ``z`` standard errors, computed exactly
    (the samples of a deep tree pass 10^308) and given as floats (infinity past them)."""
    n = len(values)
    total = sum(values)
    mean = Fraction(total, n)
    if n < 2:
        value = _float(mean)
        return Band(value, value, value)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half_squared = var * z * z / n
    half = math.sqrt(half_squared) if _float(half_squared) < math.inf else _float(math.isqrt(int(half_squared)))
    value = _float(mean)
    return Band(value, max(0.0, value - half), value + half)


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
    searched: int = 0,
) -> Estimate:
    """Estimate tree size, solutions and time below ``path`` from ``samples`` random walks
    (fewer if ``max_seconds`` runs out first; at least one).  ``searched``: nodes a search
    below ``path`` has already visited (a timed trial), so the tree has at least that many.
    Raises :class:`CannotEstimate` where the solver refuses, or where the band's top falls
    below ``searched``."""
    if samples < 1:
        raise ValueError("samples must be at least 1")
    why = refusal(solver)
    if why is not None:
        raise CannotEstimate(why)
    rng = random.Random(seed)
    started = time.perf_counter()
    # a walk may overrun the time by half (one walk at least: no estimate without one)
    deadline = None if max_seconds is None else started + 1.5 * max_seconds + 0.1
    node_samples: list[int] = []
    solution_samples: list[int] = []
    for _ in range(samples):
        n, s = random_path(solver, rng, path, deadline)
        node_samples.append(n)
        solution_samples.append(s)
        if max_seconds is not None and time.perf_counter() - started > max_seconds:
            break
    nodes = _band(node_samples)
    if nodes.high < searched:
        raise CannotEstimate(f"the random paths put the tree at {nodes.value:,.0f} nodes (at most {nodes.high:,.0f}), "
                             f"but a search has already visited {searched:,}: the tree is too uneven for them")
    rate = rate if rate is not None else node_rate(solver, path)
    seconds = Band(nodes.value / rate, nodes.low / rate, nodes.high / rate)  # (inf / rate is inf)
    reached = sum(1 for s in solution_samples if s)
    return Estimate(len(node_samples), nodes, _band(solution_samples), seconds, rate, reached)
