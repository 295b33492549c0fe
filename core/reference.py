"""The pure-Python reference solver: the kernel's contract, written for reading.

It searches the same tree as the C kernel (``core/_kernel.c``) node for node — the same
branching item, the same option order, the same pruning — so counts, solutions, splits
and frontiers can be compared exactly on small instances.  Speed is not its job.

The tree (Knuth's Algorithm X, with DLX2 colors and Algorithm M-style multiplicities):

* a node **needs** an item when it is an exact (1:1) primary item not yet covered, or a
  primary item with bounds ``lo:hi`` covered fewer than ``lo`` times;
* no item needed: the node is a **solution** — unless some item with multiplicity still
  has **slack** (covered at least ``lo`` but fewer than ``hi`` times) and a live option;
  then it branches on that item (fewest live options, ties to the lowest index; or the
  lowest) with a first branch "take no more options of it" — path entry
  ``n_options + item`` — followed by its live options;
* otherwise it branches on one needed item — the one with the fewest live options (ties:
  the lowest item index), or with ``heuristic="first"`` the lowest needed item — trying
  its live options in increasing id; no live option: a **dead end**;
* an option is **live** when it is not excluded, none of its uncolored items is covered
  (or saturated: covered ``hi`` times), and each colored item is unset or has its color;
* branching on an item with multiplicity, the options tried before option ``j`` are
  excluded below it, so no set of options is found twice;
* with a :class:`~core.pruning.RegionRule`, a node where some empty region cannot be
  filled by the pieces still available is a dead end.
"""
from __future__ import annotations

import math
import time
from fractions import Fraction
from typing import Sequence

from .census import Census, tally
from .errors import PathError
from .exact_cover import ExactCover
from .pruning import RegionRule
from .search import COUNT, Path, SolveRequest, SolveResult, Solver, Stats, Subpath

HEURISTICS = ("mrv", "first")


class _Stop(Exception):
    """Unwinds the recursion when a budget or a solution limit is reached."""


class ReferenceSolver(Solver):
    """Exact cover search in plain Python, with the kernel's contract."""

    def __init__(self, ec: ExactCover, heuristic: str = "mrv", region: RegionRule | None = None,
                 given: Sequence[int] = ()):
        if heuristic not in HEURISTICS:
            raise ValueError(f"unknown heuristic {heuristic!r} (use one of {', '.join(HEURISTICS)})")
        self.ec = ec
        self.heuristic = heuristic
        self.region = region
        #: options covered before the root (see :meth:`Solver.below`)
        self.given = tuple(int(k) for k in given)
        self._bounds = [ec.bound(i) for i in range(ec.n_primary)]

    def below(self, given: Sequence[int]) -> "ReferenceSolver":
        return ReferenceSolver(self.ec, self.heuristic, self.region, self.given + tuple(given))

    # -- state -----------------------------------------------------------------
    def _reset(self) -> None:
        ec = self.ec
        self.count_of = [0] * ec.n_items          # times each item is covered
        self.color = [0] * ec.n_items             # secondary: 0 unset, -1 plain use, c >= 1
        self.excluded: set[int] = set()
        self.closed: set[int] = set()             # items whose "skip" branch was taken

    def _saturated(self, i: int) -> bool:
        hi = self._bounds[i][1] if i < self.ec.n_primary else 1
        return self.count_of[i] >= hi or i in self.closed

    def _live(self, k: int) -> bool:
        if k in self.excluded:
            return False
        for i, c in self.ec.options[k]:
            if c == 0:
                if self._saturated(i):
                    return False
            elif self.color[i] not in (0, c):
                return False
        return True

    def _apply(self, k: int) -> list[int]:
        self.excluded.add(k)  # an option is chosen at most once
        newly_colored = []
        for i, c in self.ec.options[k]:
            self.count_of[i] += 1
            if i >= self.ec.n_primary:
                if c == 0:
                    self.color[i] = -1
                elif self.color[i] == 0:
                    self.color[i] = c
                    newly_colored.append(i)
        return newly_colored

    def _unapply(self, k: int, newly_colored: list[int]) -> None:
        self.excluded.discard(k)
        for i, c in self.ec.options[k]:
            self.count_of[i] -= 1
            if i >= self.ec.n_primary and c == 0:
                self.color[i] = 0
        for i in newly_colored:
            self.color[i] = 0

    def _needed(self) -> list[int]:
        return [i for i in range(self.ec.n_primary) if self.count_of[i] < self._bounds[i][0]]

    def _branches(self) -> tuple[str, int, list[int]]:
        """``("solution"|"dead"|"branch", item, branches)`` at the current node."""
        ec = self.ec
        needed = self._needed()
        slack = [
            i for i in range(ec.n_primary)
            if self._is_multiplicity(i) and self.count_of[i] >= self._bounds[i][0] and not self._saturated(i)
        ]
        if not needed and not slack:
            return "solution", -1, []
        if self.region is not None and not self._regions_fillable():
            return "dead", -1, []
        self.stats.updates += ec.n_options
        live = [k for k in range(ec.n_options) if self._live(k)]
        tally = [0] * ec.n_items
        for k in live:
            for i, _ in ec.options[k]:
                tally[i] += 1
        skip: list[int] = []
        if needed:
            item = needed[0] if self.heuristic == "first" else min(needed, key=lambda i: (tally[i], i))
        else:
            slack = [i for i in slack if tally[i] > 0]
            if not slack:
                return "solution", -1, []
            item = slack[0] if self.heuristic == "first" else min(slack, key=lambda i: (tally[i], i))
            skip = [ec.n_options + item]
        options = [k for k in live if any(i == item for i, _ in ec.options[k])]
        return ("branch" if options else "dead"), item, skip + options

    def _enter(self, k: int) -> list[int]:
        """Take branch ``k``: an option, or ``n_options + item`` to close an item."""
        if k >= self.ec.n_options:
            self.closed.add(k - self.ec.n_options)
            return []
        return self._apply(k)

    def _leave(self, k: int, colored: list[int]) -> None:
        if k >= self.ec.n_options:
            self.closed.discard(k - self.ec.n_options)
        else:
            self._unapply(k, colored)

    def _regions_fillable(self) -> bool:
        rule = self.region
        assert rule is not None
        sizes = [s for s, item in rule.pieces if item < 0 or not self._saturated(item)]
        empty = [not self._saturated(c) and self.color[c] == 0 for c in rule.cells]
        if not any(empty):
            return True
        if not sizes:
            return False
        g = math.gcd(*sizes)
        smallest = min(sizes)
        seen = [False] * len(rule.cells)
        for start, is_empty in enumerate(empty):
            if not is_empty or seen[start]:
                continue
            seen[start] = True
            stack, size = [start], 0
            while stack:
                p = stack.pop()
                size += 1
                for q in rule.neighbors[p]:
                    if empty[q] and not seen[q]:
                        seen[q] = True
                        stack.append(q)
            if size < smallest or size % g:
                return False
        return True

    def _is_multiplicity(self, item: int) -> bool:
        return self._bounds[item] != (1, 1)

    # -- the contract ------------------------------------------------------------
    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        self._reset()
        self.stats = Stats()
        started = time.perf_counter()
        path = tuple(int(k) for k in path)
        for k in self.given:  # the partial cover the search starts from
            if not 0 <= k < self.ec.n_options or not self._live(k):
                raise ValueError(f"the given options {list(self.given)} conflict (option {k})")
            self._apply(k)
        branching: list[int] = []
        for depth, k in enumerate(path):
            kind, item, options = self._branches()
            if k not in options:
                raise PathError(f"option {k} is not a branch at depth {depth} of path {list(path)}")
            branching.append(len(options))
            if self._is_multiplicity(item):
                self.excluded.update(options[: options.index(k)])
            self._enter(k)
        weight = Fraction(1, math.prod(branching)) if branching else Fraction(1)

        self._listing = request.listing
        self._limit = request.limit
        self._node_budget = request.node_budget
        self._deadline = None if request.seconds is None else started + request.seconds
        self._max_depth = request.max_depth
        self._found: list[Path] = []
        self._count = 0
        self._frontier: list[Subpath] = []
        self._stopped_by: str | None = None
        self._base = len(path)
        self.stats.nodes_per_depth = [0] * len(path)
        try:
            self._visit(list(path), weight)
        except _Stop:
            pass
        self.stats.seconds = time.perf_counter() - started
        self.stats.solutions = self._count
        return SolveResult(
            path=path,
            weight=weight,
            count=self._count,
            stats=self.stats,
            frontier=self._frontier,
            solutions=self._found if request.listing else None,
            stopped_by=self._stopped_by,
        )

    def census(self, path: Sequence[int] = ()) -> Census:
        """The census by listing: every solution below ``path`` listed (each holds the
        partial cover and the path) and its options tallied — the reference the compiled
        censuses are tested against, never used to take one."""
        return tally(self.solve(path, SolveRequest(listing=True)).solutions or [], self.ec.n_options)

    def _out_of_budget(self) -> bool:
        if self._node_budget is not None and self.stats.nodes >= self._node_budget:
            return True
        return self._deadline is not None and time.perf_counter() >= self._deadline

    def _visit(self, path: list[int], weight: Fraction) -> None:
        depth = len(path)
        if depth > self._base and self._out_of_budget():
            self._stopped_by = "budget"
            self._frontier.append(Subpath(tuple(path), weight))
            raise _Stop
        self.stats.nodes += 1
        while len(self.stats.nodes_per_depth) <= depth:
            self.stats.nodes_per_depth.append(0)
        self.stats.nodes_per_depth[depth] += 1
        if self._max_depth is not None and depth >= self._max_depth:
            self._frontier.append(Subpath(tuple(path), weight))
            return
        kind, item, options = self._branches()
        if kind != "branch":
            if self._max_depth is not None:  # a leaf above the split: its own subproblem
                self._frontier.append(Subpath(tuple(path), weight))
                return
            self.stats.leaves += 1
            if kind == "solution":
                self._count += 1
                if self._listing:
                    self._found.append(self.given + tuple(k for k in path if k < self.ec.n_options))
                if self._limit is not None and self._count >= self._limit:
                    self._stopped_by = "limit"
                    raise _Stop
            return
        child_weight = weight / len(options)
        multiplicity = self._is_multiplicity(item)
        for j, k in enumerate(options):
            if multiplicity and j:
                self.excluded.add(options[j - 1])
            colored = self._enter(k)
            path.append(k)
            try:
                self._visit(path, child_weight)
            except _Stop:
                # hand back the siblings not yet tried, in search order
                self._frontier.extend(Subpath(tuple(path[:-1]) + (s,), child_weight) for s in options[j + 1 :])
                raise
            finally:
                path.pop()
                self._leave(k, colored)
        if multiplicity:
            self.excluded.difference_update(options[:-1])
