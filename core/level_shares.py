"""A whole count by levels as a tree of shares, so that a ledger can hand them to workers.

The tree (paths of :class:`LevelShares`): the root is the whole count; its children
``(j,)`` are the shares, ``slices x groups`` of them, share j taking slice ``j //
groups`` of the states at the cut level and the moduli of group ``j % groups``
(:mod:`core.residues`).  A share is counted whole (a time budget does not cut a level
count: there is no frontier to hand back) and cannot be split (asked to, it hands itself
back); a split or a budget at the root hands the shares back as its frontier.

What a share counts:

* one group (every modulus): the paths through its slice's states, exactly;
* several groups: the count of its slice modulo its group's moduli, as its
  :func:`~core.residues.contribution` to the count modulo :attr:`LevelShares.modulus`,
  the product of all the moduli.  The shares' counts then add up to the count plus a
  multiple of the modulus; the ledger takes the sum modulo it (the count is below it:
  the moduli pass a proven bound).

Where each way pays (measured 2026-12-03, 2-core x86_64): groups split the residues'
work and memory, not the states' (each group sorts and expands every state): the 20x20
domino board in four groups of one residue, two at a time, took 4.95 s against 2.8 s as
one share on two threads, within a third of the memory; slices of a tiling's states save
nothing (a tiling's frontier forgets the cut within a band of levels: each of two slices
of a 9x10 board of pentominoes took 88-95% of the whole), and help covers whose states
remember (pieces used once, in the key's tail).  Threads (:attr:`LevelPlan.threads`)
share one count's states and so its work: two count the 24x24 domino board 1.97x faster
than one, a 9x10 board of pentominoes 1.8x.

A guarded plan (:attr:`LevelPlan.guarded`, one share: the count the method choice made
on a projection) gives up past its guard and hands the tree to the search: share 0 then
returns the search's result, its frontier as paths ``(0, *p)`` below the share, where
``p`` is a path of the search (:class:`~core.kernel.KernelSolver`, whose root weighs what
the one share does: the whole; by orbits where the problem has a group).  Measured on O'Beirne's hexagon (2026-12-07): the probe
saw 13 of 108 levels and projected 60 MB; the count passed 14 GB after three minutes.
"""
from __future__ import annotations

import time
from dataclasses import replace
from fractions import Fraction
from typing import Sequence

from .errors import PathError, ProblemError
from .exact_cover import ExactCover
from .frontier import LevelCount
from .kernel import KernelSolver
from .level_measure import counter_for, default_memory, human_bytes
from .pruning import RegionRule
from .residues import contribution, product
from .search import COUNT, SolveRequest, SolveResult, Solver, Stats, Subpath
from .solver_options import LevelPlan


class LevelShares(Solver):
    """The whole count of a cover by levels, in ``plan.slices x plan.groups`` shares,
    each counted on ``plan.threads`` threads (see the module text)."""

    def __init__(self, ec: ExactCover, region: RegionRule | None = None, plan: LevelPlan = LevelPlan(),
                 heuristic: str = "mrv", search: Solver | None = None):
        self.ec = ec
        self.region = region
        self.plan = plan
        #: the search that counts instead where a guarded count gives up (see the module
        #: text): ``search``, as the method choice would have searched (by orbits of the
        #: problem's group: :func:`core.engines.solver_for` gives it), else the kernel's
        #: plain search with ``heuristic``
        self.heuristic = heuristic
        self.search = search
        self.counter = counter_for(ec, region)
        self.moduli = self.counter.moduli()
        groups = max(1, min(plan.groups, len(self.moduli)))
        bounds = [len(self.moduli) * g // groups for g in range(groups + 1)]
        #: the moduli of each group, in order (the first holds 2^64)
        self.groups = [self.moduli[bounds[g]:bounds[g + 1]] for g in range(groups)]
        self.slices = max(1, plan.slices)
        #: the level whose states the slices divide
        self.cut = plan.cut if plan.cut is not None else self.counter.levels // 2
        #: the shares' counts add up to the count modulo this (None: exactly)
        self.modulus = product(self.moduli) if groups > 1 else None
        #: how the last solve counted (as the kernel's solvers say it)
        self.counted_by = "levels"

    def __reduce__(self):  # picklable for process pools: rebuilt from the exact cover
        return (LevelShares, (self.ec, self.region, self.plan, self.heuristic, self.search))

    @property
    def guarded(self) -> bool:
        """Whether the count gives up past the plan's guard, the search counting instead."""
        return self.plan.guarded and self.shares == 1

    @property
    def shares(self) -> int:
        return self.slices * len(self.groups)

    @property
    def description(self) -> str:
        """The shares in words (for ``show``)."""
        parts = []
        if self.slices > 1:
            parts.append(f"{self.slices} slices of the states at level {self.cut:,}")
        if len(self.groups) > 1:
            parts.append(f"{len(self.groups)} groups of its {len(self.moduli)} moduli")
        split = " x ".join(parts) if parts else "one share"
        threads = self.plan.threads
        return f"{split}, each on {threads} thread{'' if threads == 1 else 's'}"

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        if request.listing or request.limit is not None:
            raise ValueError("a count by levels lists no solutions: search to list them")
        path = tuple(path)
        if not path:
            return self._root(request)
        j = path[0]
        if len(path) > 1 and self.guarded and j == 0:
            return self._searched(path[1:], request)
        if len(path) != 1 or not isinstance(j, int) or not 0 <= j < self.shares:
            raise PathError(f"path {list(path)}: a count by levels has shares 0..{self.shares - 1} below its root")
        weight = Fraction(1, self.shares)
        if request.max_depth is not None:  # a share cannot be split: it is its own frontier
            return SolveResult(path, weight, 0, Stats(), [Subpath(path, weight)], stopped_by="budget")
        return self._share(j, weight, request)

    def _root(self, request: SolveRequest) -> SolveResult:
        """The whole count, or its shares as the frontier where asked to split or budgeted."""
        whole = Fraction(1)
        if request.max_depth is not None and request.max_depth <= 0:
            return SolveResult((), whole, 0, Stats(), [Subpath((), whole)], stopped_by="budget")
        if request.max_depth is not None or request.budgeted:
            share = Fraction(1, self.shares)
            frontier = [Subpath((j,), share) for j in range(self.shares)]
            return SolveResult((), whole, 0, Stats(nodes=1, nodes_per_depth=[1]), frontier, stopped_by="budget")
        started = time.perf_counter()
        stats = Stats(nodes=1, nodes_per_depth=[1])
        total = 0
        for j in range(self.shares):
            part = self._share(j, Fraction(1, self.shares))
            if part.frontier:  # a guarded count gave up: the search's result is the root's
                return SolveResult((), whole, part.count, part.stats, part.frontier, stopped_by=part.stopped_by,
                                   gave_up=part.gave_up)
            total += part.count
            stats.add(part.stats)
        if self.modulus is not None:
            total %= self.modulus
        stats.solutions = total
        stats.seconds = time.perf_counter() - started
        return SolveResult((), whole, total, stats, [])

    def _share(self, j: int, weight: Fraction, request: SolveRequest = COUNT) -> SolveResult:
        """Share j counted: its slice's paths, modulo its group (see the module text)."""
        started = time.perf_counter()
        slice_, g = divmod(j, len(self.groups))
        group = self.groups[g]
        cut = (self.cut, self.slices, slice_) if self.slices > 1 else None
        memory = self.plan.memory or default_memory()
        if self.guarded:
            guard = min(memory, self.plan.guard_bytes or memory)
            done = self.counter.count(threads=self.plan.threads, max_bytes=guard, seconds=self.plan.guard_seconds)
            if done is None or not done.complete:
                return self._gave_up(done, guard, time.perf_counter() - started, request)
            count = done.count
        elif len(self.groups) == 1:
            done = self.counter.count(threads=self.plan.threads, cut=cut, max_bytes=memory)
            count = None if done is None else done.count
        else:
            done = self.counter.count_modulo((), group, threads=self.plan.threads, cut=cut, max_bytes=memory)
            count = None if done is None else contribution(done.count, product(group), self.modulus)
        if done is None or count is None:
            raise ProblemError(f"share {j} of the count by levels needs more than the {human_bytes(memory)} of memory "
                               f"it may hold (--memory): give it more, or more machines to share it")
        stats = Stats(nodes=done.states, leaves=done.leaves, solutions=count, updates=done.updates,
                      seconds=time.perf_counter() - started, nodes_per_depth=[0, done.states], by_levels=1)
        return SolveResult((j,), weight, count, stats, [])


    def _gave_up(self, done: LevelCount | None, guard: int, seconds: float, request: SolveRequest) -> SolveResult:
        """The search's result for the whole tree, below share 0, where the guarded count
        gave up after ``seconds`` (``done`` None: past ``guard`` bytes), with why."""
        if done is None:
            why = f"passed its guard of {human_bytes(guard)} after {seconds:.3g} s"
        else:
            largest = max(done.level_states, default=0)
            why = (f"passed its guard of {self.plan.guard_seconds:.3g} s with {done.levels_done:,} of its "
                   f"{self.counter.levels:,} levels done" + (f" ({largest:,} states in the largest)" if largest else ""))
        result = self._searched((), request)
        stats = result.stats
        stats.seconds += seconds
        return replace(result, stats=stats, gave_up=f"the count by levels {why}; the search counts instead")

    def _searched(self, path: tuple[int, ...], request: SolveRequest) -> SolveResult:
        """The search below share 0 (``path``: the search's own), its paths under ``(0,)``."""
        if self.search is None:
            self.search = KernelSolver(self.ec, self.heuristic, self.region)
        if request.max_depth is not None:  # a depth of the whole tree: the share is one level
            request = replace(request, max_depth=request.max_depth - 1)
        result = self.search.solve(path, request)
        frontier = [Subpath((0, *s.path), s.weight) for s in result.frontier]
        return replace(result, path=(0, *result.path), frontier=frontier)
