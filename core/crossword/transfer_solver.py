"""The transfer method as a :class:`~core.search.Solver`: the C row-by-row count
(``core/crossword/_transfer.c``, reference :mod:`core.crossword.transfer`), split by the
state at a middle row.

The tree (row-by-row kinds: :mod:`core.crossword.middle_split`).  The root's children are
slices of the patterns of a middle row (folded kinds: the third row from the end of the
top half); a slice's children fix that row to one pattern,
and deeper nodes fix the first rows in order.  A path names one child per depth (its index), the weight is
``1/children`` along it, and a node is counted by the C transfer count with those rows
restricted.  Each share counts the states of its slice from both ends, so the shares
divide the work (only the small layers above the split row are built again by each), and
a count too big for one process becomes a distributed run of exact shares.  A budget that
runs out hands back the unexplored children of the node it was counting as the frontier
(the work of the stopped count is lost: one budget at most) — except at the root of a
count the reachability table prunes (a clue string, no fold), which is counted whole:
each share would make the table, most of the work, again.

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
from ..search import COUNT, SolveRequest, SolveResult, Solver, Stats, Subpath, weight_of
from . import _peel, _transfer, peel
from .middle_split import MiddleSplit, Restriction
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


def prunes_by_table(puzzle: Puzzle) -> bool:
    """Whether the C transfer count of ``puzzle`` prunes by the reachability table (a
    clue string, a kind built row by row without folding: no symmetry, left-right), so
    that it is quick where the search's trial is slow: the method choice looks at it
    before carrying the search on (:func:`core.engines._own_levels_or_search`)."""
    return puzzle.clues is not None and SUPPORTED.get(puzzle.symmetry, ("", False))[0] is None


def transfer_is_slow(puzzle: Puzzle) -> bool:
    """Whether the transfer count of ``puzzle`` is slow where the search is quick: a clue
    string on a folded kind (rotational, the square symmetries), whose states keep the
    clue position from both ends and which the reachability table does not prune — the
    NYT rotational Sundays took the C transfer 49-92 s and the search 0.03-0.31 s — so the
    method choice carries the search on longer before trying it."""
    return puzzle.clues is not None and not prunes_by_table(puzzle)


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
    """Counts a crossword puzzle by the C transfer method, splittable by the state at a
    middle row (see the module text); ``split_row`` and ``shares`` override the tree's
    split row and number of root shares (:class:`MiddleSplit`)."""

    def __init__(self, puzzle: Puzzle, split_row: int | None = None, shares: int | None = None):
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
            self._split = (split_row, {} if shares is None else {"shares": shares})
            self._tree: MiddleSplit | None = None
        self._children: dict[tuple[int, ...], list] = {}

    @property
    def tree(self) -> MiddleSplit:
        """The middle split (row kinds), made when a path or a split first needs it (a
        whole count does without it)."""
        if self._tree is None:
            row, kw = self._split
            self._tree = MiddleSplit(self.counter, row, **kw)
        return self._tree

    # -- the tree -----------------------------------------------------------------------------
    def children(self, rows: tuple[int, ...]) -> list[int]:
        """Square kinds: the patterns layer ``len(rows)`` may take below the fixed
        ``rows`` ([] at a leaf)."""
        if len(rows) >= self.depth:
            return []
        got = self._children.get(rows)
        if got is None:
            got = self._children[rows] = self.peeler.children(rows)
        return got

    def _kids(self, node: "_Node") -> list:
        """The children of a node: patterns (square kinds) or restrictions of the next row."""
        path, fixed, _ = node
        if self.peeled:
            return self.children(fixed)
        return self.tree.children(fixed, len(path))

    def _is_leaf(self, node: "_Node") -> bool:
        """Whether a node is counted whole whatever its budget: one with no children (known
        without the tree where it can be: the root of a row kind has children, its whole
        count needs no split row), and the root of a count pruned by the reachability
        table (a clue string, no fold).  The table is most of such a count's work and each
        share would make it again: the NYT asymmetric 15x15 counted in 2.2 s whole, and took
        74 s as 65 shares of 1.1 s each (2026-11-28; whole now 0.35 s).  So, like the kernel's level count,
        it is not cut by a time budget; an explicit split (``split``) still divides it."""
        if not self.peeled and not node[0]:
            if self.counter.prunes:
                return True
            if self._tree is None:
                return False
        return not self._kids(node)

    def _walk(self, path: Sequence[int]) -> tuple[object, list[int]]:
        """The fixed rows (square kinds) or row restrictions a path names, and its factors."""
        if not self.peeled:
            if not path:
                return {}, []
            return self.tree.walk(path)
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
    def _count(self, fixed, seconds: float, transitions: int) -> tuple[int | None, int, int]:
        """(count or None when stopped, most states, transitions) of the node ``fixed``."""
        if self.peeled:
            try:
                got, states, done, _ = _peel.count(*self.peeler.c_arguments(fixed), seconds, transitions)
            except OverflowError:  # past 2^128 grids: the Python reference counts in Python ints
                return self.peeler.count(fixed), self.peeler.max_states, self.peeler.done
            return got, states, done
        try:
            got, states, done, _ = _transfer.count(*self.counter.c_arguments(restrict=fixed), seconds, transitions)
        except OverflowError:  # past 2^128 grids: the Python reference counts in Python ints
            return self._count_in_python(fixed), 0, 0
        return got, states, done

    def _count_in_python(self, fixed: Restriction) -> int:
        """A node's count by the Python reference (no 2^128 limit): the sum over its
        restricted rows' patterns, each fixed as squares."""
        R, C = self.counter.R, self.counter.C
        total = 0
        combos: list[dict[int, int]] = [{}]
        for r, pats in fixed.items():
            combos = [{**c, r: p} for c in combos for p in pats]
        for combo in combos:
            squares: list[bool | None] = [None] * (R * C)
            for r, row in combo.items():
                for c in range(C):
                    squares[r * C + c] = not row >> c & 1
            total += TransferCounter(self.puzzle, squares).count()
        return total

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        if request.listing or request.limit is not None:
            raise ProblemError(LISTING_REFUSAL)
        started = time.perf_counter()
        path = tuple(path)
        fixed, factors = self._walk(path)
        deadline = None if request.seconds is None else started + max(0.0, request.seconds)
        transitions_left = request.node_budget
        stats = Stats(by_levels=1, nodes_per_depth=[0] * len(path))
        total = 0
        frontier: list[Subpath] = []
        # depth first, in path order: (path, fixed rows or restrictions, factors)
        todo: list[_Node] = [(path, fixed, factors)]
        calls = 0
        while todo:
            node = todo.pop()
            node_path, node_fixed, node_factors = node
            if request.max_depth is not None:  # a split: nothing is counted
                kids = self._kids(node) if len(node_path) < request.max_depth else []
                if not kids:  # a leaf, or at the depth
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
            # a leaf (every row fixed, or none can follow) is counted whole: it is cheap
            leaf = (deadline is not None or transitions_left is not None) and self._is_leaf(node)
            seconds = -1.0 if deadline is None or leaf else max(0.0, deadline - time.perf_counter())
            budget = -1 if transitions_left is None or leaf else max(0, transitions_left)
            got, states, done = self._count(node_fixed, seconds, budget)
            calls += 1
            stats.nodes += states
            stats.updates += done
            if transitions_left is not None:
                transitions_left -= done
            if got is not None:
                total += got
            else:  # stopped: its children are what is left of it
                todo.extend(reversed(self._expand(node, self._kids(node))))
        frontier.sort(key=lambda s: s.path)
        stats.solutions = total
        stats.seconds = time.perf_counter() - started
        stopped = "budget" if frontier and request.budgeted else None
        return SolveResult(path, weight_of(factors), total, stats, frontier, stopped_by=stopped)

    def _expand(self, node: "_Node", kids: list) -> list["_Node"]:
        """The children of a node, as todo entries in path order."""
        path, fixed, factors = node
        if self.peeled:
            return [(path + (j,), fixed + (q,), factors + [len(kids)]) for j, q in enumerate(kids)]
        row = self.tree.row_of(len(path))
        return [(path + (j,), {**fixed, row: q}, factors + [len(kids)]) for j, q in enumerate(kids)]


#: a node of the tree: (path, fixed rows (square kinds) or row restrictions, factors)
_Node = tuple
