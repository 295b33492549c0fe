"""The tree of exact shares of a row-by-row transfer count, split at a middle row.

Why not the first rows.  The transfer count's work is in its middle layers (the states
of the rows next to the centre); fixing the first rows barely shrinks them, so subproblems
that fix the first rows each redo most of the whole.  Here the split is by the state next
to the middle instead: every state of a layer knows its last row, so a subproblem that
allows row ``s`` only the patterns of one share counts exactly the states of that layer
whose row ``s`` is in the share, from both ends: the rows above are built up to them
(the few small layers before ``s`` are the only work each share repeats) and the rows
below (folded kinds: the join with the mirror half) finish them.  The shares partition the
patterns of row ``s``, so their counts add up to the whole.

The tree (paths of :class:`~core.crossword.transfer_solver.TransferSolver`):

* depth 1: share ``j`` of the ``K`` slices of the split row's allowed patterns;
* depth 2: one pattern of that slice (row ``s`` fixed);
* deeper: the first rows fixed in order (0, 1, ..., skipping ``s``), as a budget that runs
  out needs children to hand back; a node whose every row is fixed is a leaf.

The split row (folded kinds): the third row from the end of the top half (three steps
before the join), or row 0.  A later split row makes every share repeat more of the
layers above it; an earlier one lets more of the states after it be reached from
several slices.  Unfolded kinds: the middle
row (they split poorly anywhere: every 9x9 grid in 25 shares is 5.9x the whole's
transitions at the middle row, 9-11x elsewhere).  ``K``: up to :data:`SHARES` slices.

Measured (bench/bench_crossword.py): every 13x13 rotational grid in 64 shares split at
row 3, all shares together take 1.3x the whole count's CPU time (2.9x its transitions:
smaller tables are faster); at row 4, 2.6x (each share rebuilds the 1.7 million
transitions before it).  Every 15x15 rotational grid: two sampled shares at row 3 built
last layers of 3.8 and 6.9 million states (many shares reach the same states), one at
row 4 (the default) 0.5 million (each share repeats the 21 million transitions above
it, a few CPU seconds).
"""
from __future__ import annotations

from typing import Sequence

from ..errors import PathError
from .transfer import TransferCounter

#: how many shares the root has at most (the split row's patterns, in slices)
SHARES = 64

#: a node: for each fixed or restricted row, the patterns it may take
Restriction = dict[int, tuple[int, ...]]


def default_row(counter: TransferCounter) -> int:
    """The row whose patterns the root splits (see the module text)."""
    rows = counter.top_rows()
    if counter.fold is None:
        return rows // 2
    return max(0, rows - 3)


class MiddleSplit:
    """The tree of one puzzle's middle split: which rows each path fixes or restricts."""

    def __init__(self, counter: TransferCounter, row: int | None = None, shares: int = SHARES):
        self.counter = counter
        self.rows = counter.top_rows()
        self.row = default_row(counter) if row is None else row
        if not 0 <= self.row < self.rows:
            raise ValueError(f"split row {self.row} is not one of the {self.rows} rows built")
        # a pattern and its mirror image in one slice, so a slice's share keeps the C
        # count's mirror merge (it needs every row's patterns closed under the mirror)
        allowed = set(counter.candidates(self.row, 0))
        pairs = sorted({tuple(sorted({p, counter._rev(p)} & allowed)) for p in allowed})
        k = max(1, min(shares, len(pairs)))
        # contiguous slices: patterns alike in their high columns share a slice, so fewer
        # states below the split row are reached from two slices
        bounds = [len(pairs) * i // k for i in range(k + 1)]
        self.slices = [tuple(p for pair in pairs[bounds[i]:bounds[i + 1]] for p in pair) for i in range(k)]
        self.order = [r for r in range(self.rows) if r != self.row]  # the rows fixed below depth 2

    def children(self, fixed: Restriction, depth: int) -> list[tuple[int, ...]]:
        """The choices below a node at ``depth`` with restrictions ``fixed``: each child's
        patterns for the next row the tree decides ([] at a leaf)."""
        if depth == 0:
            return list(self.slices)
        if depth == 1:
            return [(p,) for p in fixed[self.row]]
        i = depth - 2
        if i >= len(self.order):
            return []
        r = self.order[i]
        return [(p,) for p in self.counter.candidates(r, self._must(fixed, r))]

    def _must(self, fixed: Restriction, r: int) -> int:
        """The columns whose vertical run row ``r`` must continue, from rows 0..r-1 (all
        fixed when the tree reaches r)."""
        L, C, checked = self.counter.L, self.counter.C, self.counter.checked
        run = [0] * C
        for q in range(r):
            row = fixed[q][0]
            run = [min(run[c] + 1, L) if row >> c & 1 else 0 for c in range(C)]
        lo = 1 if checked else 2
        return sum(1 << c for c in range(C) if lo <= run[c] < L)

    def row_of(self, depth: int) -> int:
        """The row the choice at ``depth`` restricts."""
        return self.row if depth < 2 else self.order[depth - 2]

    def walk(self, path: Sequence[int]) -> tuple[Restriction, list[int]]:
        """The restrictions a path names and the branching factors along it."""
        fixed: Restriction = {}
        factors: list[int] = []
        for depth, j in enumerate(path):
            kids = self.children(fixed, depth)
            if not isinstance(j, int) or not 0 <= j < len(kids):
                raise PathError(f"path {tuple(path)}: choice {j!r} at depth {depth} is not one of the "
                                f"{len(kids)} choices there")
            fixed = {**fixed, self.row_of(depth): kids[j]}
            factors.append(len(kids))
        return fixed, factors
