"""How long a whole count will take where no tree can be walked at random: count a
random sample of the root's shares, and scale.

A count by levels (the crossword transfer, the polyform level count) walks no search
tree, so Knuth's random paths (:mod:`core.estimate`) say nothing of it.  Its root splits
into shares that partition the count (the transfer's slices of a middle row, the orbit
units), each counted on its own as a subproblem of a distributed run: drawn uniformly
without replacement, ``k`` of the ``m`` shares give the whole's time as ``m`` times their
mean, with a band of two standard errors (the finite-population correction included; a
sample of all the shares is exact).  The same for the count.  This is the ETA a
distributed run can have before it starts: every 15x15 grid with 180-degree symmetry,
six shares of 64 sampled, 0.64 +- 0.22 core-hours (docs/performance.md).
"""
from __future__ import annotations

import math
import random
import statistics
import time
from dataclasses import dataclass
from fractions import Fraction

from .estimate import Band
from .search import SolveRequest, Solver, Subpath

#: shares counted at least (two give a band), unless the tree has fewer
SHARES_AT_LEAST = 2


@dataclass(frozen=True)
class SharesEstimate:
    """A whole count's CPU time and count, from ``sampled`` of its ``shares``."""

    shares: int
    sampled: list[tuple[int, float, int]]  # (share index, CPU seconds, count)
    seconds: Band
    count: Band

    def to_json(self) -> dict:
        return {"shares": self.shares, "sampled": [{"share": j, "seconds": s, "count": c} for j, s, c in self.sampled],
                "seconds": self.seconds.to_json(), "count": self.count.to_json()}


def estimate_by_shares(solver: Solver, samples: int, *, seed: int = 0, max_seconds: float = 30.0) -> SharesEstimate:
    """Count up to ``samples`` shares of the root of ``solver``, drawn at random (``seed``),
    stopping once ``max_seconds`` of CPU have passed after at least
    :data:`SHARES_AT_LEAST`; the whole's time and count from them."""
    # a root that ends within a step (nothing to share) is its own one share
    shares = solver.solve((), SolveRequest(max_depth=1)).frontier or [Subpath((), Fraction(1))]
    m = len(shares)
    order = random.Random(seed).sample(range(m), min(max(samples, 1), m))
    sampled: list[tuple[int, float, int]] = []
    started = time.process_time()
    for j in order:
        if len(sampled) >= SHARES_AT_LEAST and time.process_time() - started >= max_seconds:
            break
        t = time.process_time()
        count = solver.solve(shares[j].path).count
        sampled.append((j, time.process_time() - t, count))
    return SharesEstimate(m, sampled, scaled_total([s for _, s, _ in sampled], m), scaled_total([c for _, _, c in sampled], m))


def scaled_total(values: list[float], m: int) -> Band:
    """The total of ``m`` values from a uniform sample of them: ``m`` times the mean, and
    two standard errors either side (none where the sample is all of them)."""
    k = len(values)
    total = m * statistics.fmean(values)
    if k == m:
        return Band(total, total, total)
    if k < 2:
        return Band(total, 0.0, math.inf)
    error = 2 * m * statistics.stdev(values) / math.sqrt(k) * math.sqrt(1 - k / m)
    return Band(total, max(0.0, total - error), total + error)
