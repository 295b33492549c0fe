"""The transfer method as a :class:`~core.search.Solver`: the C row-by-row count
(``core/crossword/_transfer.c``, reference :mod:`core.crossword.transfer`), split by rows.

The tree.  The root's children are the patterns the first row may take (folded kinds:
the first row decides its mirror row too, so the children are row pairs); a node at
depth d has fixed rows 0..d-1, and its children are the patterns of row d that continue
every vertical run its last row must continue.  A path names one child per depth (its
index in that list), the weight is ``1/children`` along it, and a node is counted by the
C transfer count with its rows fixed.  So a count too big for one process becomes a
distributed run of exact shares, and a budget that runs out hands back the unexplored
children of the node it was counting as the frontier (the work of the stopped count is
lost: one budget at most).  A node whose every top row is fixed is a leaf.

It only counts: listing grids is the search's job (:mod:`core.crossword.search`).
Symmetries: the five kinds :data:`core.crossword.transfer.SUPPORTED` are built row by
row in C; the square kinds (diagonal, anti-diagonal, quarter-turn, full) layer by layer
from the outside in (``core/crossword/_peel.c``, reference :mod:`core.crossword.peel`;
the tree's children are the patterns of the first layers), for whole counts only: with a clue string, ``start`` or
numbered squares they are the search's (:func:`refusal` says why, and the automatic
choice never picks the transfer where it cannot count).
"""
from __future__ import annotations

import time
from typing import Sequence

from ..errors import PathError, ProblemError
from ..search import COUNT, Path, SolveRequest, SolveResult, Solver, Stats, Subpath, weight_of
from . import _peel, _transfer, peel
from .puzzle import Puzzle
from .transfer import SUPPORTED, TransferCounter

#: what a listing ask gets: the transfer merges grids, it cannot name them
LISTING_REFUSAL = ("the transfer method counts grids without listing them; list them with the search "
                   "(--by-search or --engine crossword)")


def refusal(puzzle: Puzzle) -> str | None:
    """Why the transfer cannot count ``puzzle``, or None."""
    if puzzle.symmetry in SUPPORTED:
        return None
    return peel.refusal(puzzle)


def c_count(puzzle: Puzzle, fixed: Sequence[bool | None] | None = None) -> int:
    """The number of grids of ``puzzle`` by the C transfer count (the contract of
    :func:`core.crossword.transfer.count`, or for the square kinds of
    :func:`core.crossword.peel.count`); past 2^128 grids, by the Python reference."""
    if puzzle.symmetry in peel.PEELED:
        peeler = peel.PeelCounter(puzzle, fixed)
        try:
            return _peel.count(*peeler.c_arguments(), -1.0, -1)[0]
        except OverflowError:
            return peeler.count()
    counter = TransferCounter(puzzle, fixed)
    try:
        return _transfer.count(*counter.c_arguments(), -1.0, -1)[0]
    except OverflowError:
        return counter.count()


class TransferSolver(Solver):
    """Counts a crossword puzzle by the C transfer method, splittable by its first rows
    (see the module text)."""

    def __init__(self, puzzle: Puzzle):
        why = refusal(puzzle)
        if why is not None:
            raise ProblemError(why)
        self.puzzle = puzzle
        self.peeled = puzzle.symmetry not in SUPPORTED
        if self.peeled:
            self.peeler = peel.PeelCounter(puzzle)
            self.depth = self.peeler.layers
        else:
            self.counter = TransferCounter(puzzle)
            self.depth = self.counter.top_rows()
        self._children: dict[tuple[int, ...], list[int]] = {}

    # -- the tree -----------------------------------------------------------------------------
    def children(self, rows: tuple[int, ...]) -> list[int]:
        """The patterns row ``len(rows)`` may take below the fixed ``rows`` ([] at a leaf)."""
        r = len(rows)
        if r >= self.depth:
            return []
        got = self._children.get(rows)
        if got is None:
            got = self._children[rows] = (self.peeler.children(rows) if self.peeled else
                                          self.counter.candidates(r, self._must(rows)))
        return got

    def _must(self, rows: tuple[int, ...]) -> int:
        """The columns whose vertical run the next row must continue."""
        L, C = self.counter.L, self.counter.C
        run = [0] * C
        for row in rows:
            run = [min(run[c] + 1, L) if row >> c & 1 else 0 for c in range(C)]
        lo = 1 if self.counter.checked else 2
        return sum(1 << c for c in range(C) if lo <= run[c] < L)

    def rows_of(self, path: Sequence[int]) -> tuple[tuple[int, ...], list[int]]:
        """The fixed rows a path names and the branching factors along it."""
        rows: tuple[int, ...] = ()
        factors: list[int] = []
        for depth, j in enumerate(path):
            kids = self.children(rows)
            if not isinstance(j, int) or not 0 <= j < len(kids):
                raise PathError(f"path {tuple(path)}: choice {j!r} at depth {depth} is not one of the "
                                f"{len(kids)} rows there")
            rows += (kids[j],)
            factors.append(len(kids))
        return rows, factors

    # -- counting -------------------------------------------------------------------------------
    def _count(self, rows: tuple[int, ...], seconds: float, transitions: int) -> tuple[int | None, int, int]:
        """(count or None when stopped, most states, transitions) of the node with ``rows``."""
        if self.peeled:
            try:
                got, states, done, _ = _peel.count(*self.peeler.c_arguments(rows), seconds, transitions)
            except OverflowError:  # past 2^128 grids: the Python reference counts in Python ints
                return self.peeler.count(rows), self.peeler.max_states, self.peeler.done
            return got, states, done
        try:
            got, states, done, _ = _transfer.count(*self.counter.c_arguments(rows), seconds, transitions)
        except OverflowError:  # past 2^128 grids: the Python reference counts in Python ints
            fixed: list[bool | None] = [None] * (self.counter.R * self.counter.C)
            for r, row in enumerate(rows):
                for c in range(self.counter.C):
                    fixed[r * self.counter.C + c] = not row >> c & 1
            return TransferCounter(self.puzzle, fixed).count(), 0, 0
        return got, states, done

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        if request.listing or request.limit is not None:
            raise ProblemError(LISTING_REFUSAL)
        started = time.perf_counter()
        path = tuple(path)
        rows, factors = self.rows_of(path)
        deadline = None if request.seconds is None else started + max(0.0, request.seconds)
        transitions_left = request.node_budget
        stats = Stats(by_levels=1, nodes_per_depth=[0] * len(path))
        total = 0
        frontier: list[Subpath] = []
        # depth first, in path order: (path, rows, factors)
        todo: list[tuple[Path, tuple[int, ...], list[int]]] = [(path, rows, factors)]
        calls = 0
        while todo:
            node = todo.pop()
            node_path, node_rows, node_factors = node
            if request.max_depth is not None:  # a split: nothing is counted
                kids = self.children(node_rows)
                if not kids or len(node_path) >= request.max_depth:  # a leaf, or at the depth
                    frontier.append(Subpath(node_path, weight_of(node_factors)))
                else:
                    todo.extend(reversed(self._expand(node, kids)))
                continue
            # a stopped node's children are handed on unopened (their rows are found again
            # when they are counted: 14,327 first rows of a 21x21 took 46 s to list here)
            if calls and ((deadline is not None and time.perf_counter() >= deadline)
                          or (transitions_left is not None and transitions_left <= 0)):
                frontier.append(Subpath(node_path, weight_of(node_factors)))
                continue
            kids = self.children(node_rows)
            # a leaf (every top row fixed, or none can follow) is counted whole: it is cheap
            seconds = -1.0 if deadline is None or not kids else max(0.0, deadline - time.perf_counter())
            budget = -1 if transitions_left is None or not kids else max(0, transitions_left)
            got, states, done = self._count(node_rows, seconds, budget)
            calls += 1
            stats.nodes += states
            stats.updates += done
            if transitions_left is not None:
                transitions_left -= done
            if got is not None:
                total += got
            else:  # stopped: its children are what is left of it
                todo.extend(reversed(self._expand(node, kids)))
        frontier.sort(key=lambda s: s.path)
        stats.solutions = total
        stats.seconds = time.perf_counter() - started
        stopped = "budget" if frontier and request.budgeted else None
        return SolveResult(path, weight_of(factors), total, stats, frontier, stopped_by=stopped)

    @staticmethod
    def _expand(node: tuple[Path, tuple[int, ...], list[int]], kids: list[int]):
        """The children of a node, as todo entries in path order."""
        path, rows, factors = node
        return [(path + (j,), rows + (q,), factors + [len(kids)]) for j, q in enumerate(kids)]
