"""The crossword search in C (``core/crossword/_crossword.c``): the tree of :mod:`.search`, node
for node, about 50 times faster.

:class:`CompiledCrosswordSolver` keeps the :class:`~core.search.Solver` contract the same
way the Python search does — the same paths, labels, weights, frontiers, budgets and
nodes per depth — so a run may mix the two; :class:`.search.CrosswordSolver` stays the
reference the tests compare it with.  Only :meth:`solve` is compiled; replaying a path to
draw a grid (:meth:`grid`, :meth:`path_of`) stays in Python.
"""
from __future__ import annotations

from array import array
from typing import Sequence

from . import _crossword
from ..errors import PathError
from ..search import COUNT, STOPPED, SolveRequest, SolveResult, Stats, Subpath, weight_of, weights_of
from .puzzle import Puzzle
from .search import CrosswordSolver


class CompiledCrosswordSolver(CrosswordSolver):
    """The crossword search with :meth:`solve` in C (see the module text)."""

    def __init__(self, puzzle: Puzzle):
        super().__init__(puzzle)
        at = array("i", [0])
        cells = array("i")
        for orb in self.orbit:
            cells.extend(orb)
            at.append(len(cells))
        rules = puzzle.rules
        numbered = None if puzzle.numbered is None else bytes(int(bool(x)) for x in puzzle.numbered)
        self._head = (puzzle.rows, puzzle.cols, at.tobytes(), cells.tobytes(), puzzle.clues, numbered,
                      puzzle.start - 1 if puzzle.start else -1, rules.min_word, rules.checked,
                      rules.no_black_lines, rules.connected)
        self._reach_table: object | None = None
        self._reach_built = False

    def _table(self) -> object | None:
        """The reachability table of the C search (over :meth:`reach_spec`'s rows), made
        once and kept between calls, its memo with it — its entries stay true, as the Python
        search's do — or None where the search does without.  Made anew for each call, it
        cost every subproblem tens of milliseconds (NYT 23x23 left-right: 54 ms; its
        listing in 43 subproblems took 3.3 s against 0.87 s in one)."""
        if not self._reach_built:
            spec = self.reach_spec()
            pz = self.puzzle
            self._reach_table = None if spec is None else _crossword.reach_table(pz.rows, pz.cols, pz.clues, spec)
            self._reach_built = True
        return self._reach_table

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)  # the kept table is this process's: a copy makes its own
        state.update(_reach_table=None, _reach_built=False)
        return state

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        path = tuple(path)
        (status, count, solutions, frontier, nodes, leaves, per_depth, factors, seconds, bad_step,
         bad_options) = _crossword.solve(*self._head, list(path), *request.c_arguments(), self._table())
        if status == 3:
            raise PathError(f"path {path!r}: step {bad_step + 1} goes below a leaf")
        if status == 4:
            raise PathError(f"path {path!r}: step {bad_step + 1} is {path[bad_step]!r}, not one of {bad_options}")
        stats = Stats(nodes=nodes, leaves=leaves, solutions=count, seconds=seconds, nodes_per_depth=list(per_depth))
        return SolveResult(
            path=path, weight=weight_of(factors), count=count, stats=stats,
            frontier=[Subpath(p, w) for (p, _), w in zip(frontier, weights_of([f for _, f in frontier]))],
            solutions=solutions, stopped_by=STOPPED[status],
        )

