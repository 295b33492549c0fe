"""The crossword search: decide the squares in reading order, one label per square.

The tree.  Squares are visited in reading order (row-major).  At each square the search
chooses a **label**: black, or white together with whether the square starts an Across
word and a Down word.  A label decides the square's number at once (left and above are
already known; the label forces the squares to the right and below), so the clue string
is checked square by square, in order — the seed's idea.  Choice ids::

    0 black    1 white, no number    2 white, Across start    3 white, Down start    4 both

What a label forces: an Across start makes the next ``min_word - 1`` squares to the right
white; a white square with black on its left that does not start an Across word makes the
square to its right black (its Across run has one square); the same downwards.  Every
colour set is copied to the square's orbit under the symmetry; a row or column that
becomes entirely black, a colour set twice differently, a word that leaves the grid or a
letter that differs from the clue string ends the branch.  With ``checked`` on a white
square with black on its left must start an Across word (and the same for Down), so the
label follows from the colour and only the colour is a choice.

Nodes.  A square where exactly one label survives those tests is not a node: the search
takes it and moves on.  A **node** is a square with two or more surviving labels (the
path names one of them per node), a solution (every square decided, every clue used, the
white squares connected) or a dead end.  So the tree depends only on the puzzle, paths
replay anywhere, and a node's weight is the product of ``1/(labels)`` along its path.

The compiled search.  ``core/crossword/_crossword.c`` (:mod:`.compiled`, the ``crossword`` engine)
searches this tree node for node, 50-200x faster; this module stays its reference (the
``crossword-python`` engine; tests/core/test_crossword_compiled.py compares the two).
Large counts go to the transfer method instead (``core/crossword/transfer.py``, which
shares no code with this search).

The end of the clue string (2026-11-27).  At every square the squares at the end of the
grid whose numbers are already known (a symmetry that maps the top rows onto the bottom
ones decides them early) must carry the end of the clue string (:meth:`_State.suffix_scan`,
resumed from the parent's scan), and at row starts the squares whose numbers are still
open are tried both ways against it (:meth:`_State.open_scan_ok`) and the letters between
the two ends must fit the squares between (:meth:`_State.middle_ok`).  With them no
``start`` is needed: the first white square is found like every other (published NYT
grids, no start: a 15x15 in
22,363 nodes instead of 174,559 with the end checked at row starts only, a 21x21 Sunday in
1.3 million instead of 30.9 million; library entry 23 takes 1,113 nodes, 2,143 with the
end checked at row starts, about two million with no check of the end at all).

The rows below (2026-11-28).  Without symmetry (and left-right) nothing at the end of the
grid is decided early, so the checks above see the end of the clue string only when the
search gets there.  For those kinds, at the start of every row r >= 1, the rows decided
so far (their profile: the vertical runs ending in row r-1) and the clue position where
row r-1's letters begin must be able to carry the rest of the clue string by the
reachability table of :mod:`.reachable` (:meth:`_State.reach_ok`; the C search asks the
C twin of the table the same, node for node).  The table is built over the transfer's
rows (:class:`.transfer.TransferCounter`); it ignores connectivity, so it only ends
branches that reach no grid.  Replaying a path to draw a grid (:meth:`CrosswordSolver.grid`,
:meth:`CrosswordSolver.path_of`) skips it: along a grid's path it always holds.
"""
from __future__ import annotations

import time
from fractions import Fraction
from typing import Sequence

from ..errors import PathError
from ..search import COUNT, Path, SolveRequest, SolveResult, Solver, Stats, Subpath
from . import symmetry as sym
from .grid import Grid
from .puzzle import Puzzle
from .reachable import Reachable, row_letters
from .transfer import TransferCounter

#: the symmetries whose rows below do not depend on the rows above (the table's kinds)
UNFOLDED = ("none", "left-right")
#: rows with more patterns than this turn the table off in the search: the C table then
#: scans every pattern of the next row per entry (core/crossword/_reachable.h, PICK_MAX), and
#: a search may ask about branches whose dead rows take that long to rule out (from 19
#: columns without symmetry; left-right kinds keep it up to 33 columns)
TABLE_MAX_PATTERNS = 4096

UNKNOWN, WHITE, BLACK = 0, 1, 2
LABEL_NAMES = ("black", "white", "across", "down", "across+down")


class _Stop(Exception):
    """Unwinds the search when a budget or limit runs out, gathering the frontier."""

    def __init__(self, frontier: list[Subpath]):
        self.frontier = frontier


class _State:
    """The mutable state of one search: colours, black counts per line, trail, clue index."""

    def __init__(self, puzzle: Puzzle, orbit: tuple[tuple[int, ...], ...]):
        R, C = puzzle.rows, puzzle.cols
        self.R, self.C, self.n = R, C, R * C
        self.orbit = orbit
        self.color = [UNKNOWN] * (R * C)
        self.rb = [0] * R
        self.cb = [0] * C
        self.trail: list[int] = []
        self.k = 0
        rules = puzzle.rules
        self.L = max(rules.min_word, 2)
        self.checked = rules.checked
        self.nbl = rules.no_black_lines
        self.connected = rules.connected
        self.clues = puzzle.clues
        self.nclues = len(puzzle.clues) if puzzle.clues is not None else -1
        self.numbered = puzzle.numbered
        self.start = puzzle.start - 1 if puzzle.start else -1
        # the number of Across clues (A, Z) from clue k on
        clues = puzzle.clues or ""
        self.across_left = [sum(ch != "D" for ch in clues[k:]) for k in range(len(clues) + 1)]
        # the Across (A, Z) and Down (D, Z) clues before clue k
        self.a_before = [sum(ch != "D" for ch in clues[:k]) for k in range(len(clues) + 1)]
        self.d_before = [sum(ch != "A" for ch in clues[:k]) for k in range(len(clues) + 1)]
        # suffix_scan(): the squares after scan_q carry clues[scan_j:]
        self.scan_q = R * C - 1
        self.scan_j = len(clues)
        self.line_bounds = rules.checked and rules.no_black_lines
        self.reach: Reachable | None = None  # set by the search (CrosswordSolver.solve)

    # -- colours ---------------------------------------------------------------
    def set(self, q: int, col: int) -> bool:
        """Colour square q and its orbit; False on a clash or an all-black line."""
        cur = self.color[q]
        if cur:
            return cur == col
        color, trail, C = self.color, self.trail, self.C
        ok = True
        for x in self.orbit[q]:
            color[x] = col
            trail.append(x)
            if col == BLACK:
                r, c = divmod(x, C)
                self.rb[r] += 1
                self.cb[c] += 1
                if self.nbl and (self.rb[r] == C or self.cb[c] == self.R):
                    ok = False
        return ok

    def undo(self, mark: int, k: int) -> None:
        color, trail, C = self.color, self.trail, self.C
        while len(trail) > mark:
            x = trail.pop()
            if color[x] == BLACK:
                self.rb[x // C] -= 1
                self.cb[x % C] -= 1
            color[x] = UNKNOWN
        self.k = k

    def root(self) -> bool:
        """Apply what the puzzle gives before any choice: the start, the numbered squares."""
        if self.start >= 0:
            for q in range(self.start):
                if not self.set(q, BLACK):
                    return False
            if not self.set(self.start, WHITE):
                return False
        if self.numbered is not None:
            for q, numbered in enumerate(self.numbered):
                if numbered and not self.set(q, WHITE):
                    return False
        return True

    # -- labels ------------------------------------------------------------------
    def candidates(self, p: int) -> list[int]:
        """Labels at square p that pass the cheap tests (colour, clue letter)."""
        col = self.color[p]
        C = self.C
        r, c = divmod(p, C)
        out = []
        numbered = self.numbered[p] if self.numbered is not None else None
        if col != WHITE and p != self.start and not numbered:
            out.append(0)
        if col == BLACK:
            return out
        lb = c == 0 or self.color[p - 1] == BLACK
        ab = r == 0 or self.color[p - C] == BLACK
        a_opts = ((True,) if self.checked else (False, True)) if lb else (False,)
        d_opts = ((True,) if self.checked else (False, True)) if ab else (False,)
        clues, k = self.clues, self.k
        for a in a_opts:
            for d in d_opts:
                if a or d:
                    if p == self.start and self.k != 0:
                        continue
                    if numbered is False:
                        continue
                    if clues is not None:
                        if k >= self.nclues or clues[k] != ("Z" if a and d else "A" if a else "D"):
                            continue
                    out.append(4 if a and d else 2 if a else 3)
                else:
                    if p == self.start or numbered:
                        continue
                    out.append(1)
        return out

    def apply(self, p: int, lab: int) -> bool:
        """Set label ``lab`` at square p and what it forces; False if that clashes."""
        if lab == 0:
            return self.set(p, BLACK)
        if not self.set(p, WHITE):
            return False
        C, L = self.C, self.L
        r, c = divmod(p, C)
        color = self.color
        a = lab == 2 or lab == 4
        d = lab == 3 or lab == 4
        if a:
            if c + L > C:
                return False
            for j in range(1, L):
                if not self.set(p + j, WHITE):
                    return False
        elif (c == 0 or color[p - 1] == BLACK) and c + 1 < C:
            if not self.set(p + 1, BLACK):
                return False
        if d:
            if r + L > self.R:
                return False
            for j in range(1, L):
                if not self.set(p + j * C, WHITE):
                    return False
        elif (r == 0 or color[p - C] == BLACK) and r + 1 < self.R:
            if not self.set(p + C, BLACK):
                return False
        if a or d:
            self.k += 1
        return True

    def options(self, p: int) -> list[int]:
        """The labels at square p that survive :meth:`apply`."""
        out = []
        for lab in self.candidates(p):
            mark, k = len(self.trail), self.k
            if self.apply(p, lab):
                out.append(lab)
            self.undo(mark, k)
        return out

    def descend(self, p: int) -> tuple[int, list[int]]:
        """Take every forced label from square p on; the node reached: (square, labels).
        ``p == n`` means every square is decided; an empty list otherwise is a dead end."""
        n, C = self.n, self.C
        while p < n:
            if self.nclues >= 0 and not (self.suffix_scan(p) and self.lines_ok(p) and (
                    p % C or (self.open_scan_ok(p) and self.middle_ok(p) and self.reach_ok(p)))):
                return p, []
            opts = self.options(p)
            if len(opts) != 1:
                return p, opts
            self.apply(p, opts[0])
            p += 1
        return n, []

    def starts_known(self, q: int) -> tuple[bool, bool] | None:
        """Whether white square q starts an Across word and a Down word, from what is
        decided around it; None while either is still open.  An Across start has black
        (or the edge) on its left and white on its right; a white left or a black right
        rules it out.  The same downwards."""
        color, C, R = self.color, self.C, self.R
        r, c = divmod(q, C)
        left = BLACK if c == 0 else color[q - 1]
        right = BLACK if c + 1 == C else color[q + 1]
        if left == WHITE or right == BLACK:
            a = False
        elif left == BLACK and right == WHITE:
            a = True
        else:
            return None
        up = BLACK if r == 0 else color[q - C]
        down = BLACK if r + 1 == R else color[q + C]
        if up == WHITE or down == BLACK:
            d = False
        elif up == BLACK and down == WHITE:
            d = True
        else:
            return None
        return a, d

    def suffix_scan(self, p: int) -> bool:
        """The end of the clue string against the end of the grid.  From the last square
        back, the squares whose numbers are already known (a symmetry that maps the top
        rows to the bottom ones decides them early) must carry the end of the clue
        string; the scan stops at the first square not known yet, ``scan_q``, having
        matched ``clues[scan_j:]``.  Colours are only added below a node, so a square
        known stays known: the scan resumes where the parent's stopped (the search saves
        and restores ``scan_q`` and ``scan_j``).  False on a mismatch."""
        color, clues = self.color, self.clues
        j, q = self.scan_j, self.scan_q
        while q >= p:
            col = color[q]
            if col == UNKNOWN:
                break
            if col == WHITE:
                known = self.starts_known(q)
                if known is None:
                    break
                a, d = known
                if a or d:
                    j -= 1
                    if j < self.k or clues[j] != ("Z" if a and d else "A" if a else "D"):
                        return False
            q -= 1
        self.scan_q, self.scan_j = q, j
        return True

    def open_scan_ok(self, p: int) -> bool:
        """Past the end of :meth:`suffix_scan`: the squares before ``scan_q`` whose colour
        is decided but whose number is still open (a neighbour undecided) may or may not
        start a word; each such square's possible letters are tried, keeping the set of
        clue positions the end of the clue string could have reached.  False when none
        is left.  Not resumed (open squares close later): it runs to the first undecided
        colour; past 63 positions it says nothing (as the C search, whose set is 64 bits)."""
        color, C, R, clues, k = self.color, self.C, self.R, self.clues, self.k
        reach = {self.scan_j}
        q = self.scan_q
        while q >= p:
            col = color[q]
            if col == UNKNOWN:
                break
            if col == WHITE:
                r, c = divmod(q, C)
                left = BLACK if c == 0 else color[q - 1]
                right = BLACK if c + 1 == C else color[q + 1]
                up = BLACK if r == 0 else color[q - C]
                down = BLACK if r + 1 == R else color[q + C]
                a_opts = (False,) if left == WHITE or right == BLACK else (
                    (True,) if left == BLACK and right == WHITE else (False, True))
                d_opts = (False,) if up == WHITE or down == BLACK else (
                    (True,) if up == BLACK and down == WHITE else (False, True))
                nxt: set[int] = set()
                for a in a_opts:
                    for d in d_opts:
                        if not a and not d:
                            nxt |= reach
                            continue
                        want = "Z" if a and d else "A" if a else "D"
                        for j in reach:
                            if self.scan_j - j == 63:
                                return True
                            if j - 1 >= k and clues[j - 1] == want:
                                nxt.add(j - 1)
                reach = nxt
                if not reach:
                    return False
            q -= 1
        return True

    def middle_ok(self, p: int) -> bool:
        """At the start of a row (square p), after :meth:`suffix_scan`: squares p up to
        ``scan_q`` hold exactly ``clues[k:scan_j]`` — no more Across, Down or both
        letters than squares there could start such words, and (checked, no black
        lines) an Across word in every whole row there."""
        color, C, R, L, q = self.color, self.C, self.R, self.L, self.scan_q
        can_a = can_d = can_z = can_any = 0
        for x in range(p, q + 1):
            if color[x] == BLACK:
                continue
            r, c = divmod(x, C)
            left = BLACK if c == 0 else color[x - 1]
            right = BLACK if c + 1 == C else color[x + 1]
            up = BLACK if r == 0 else color[x - C]
            down = BLACK if r + 1 == R else color[x + C]
            a = left != WHITE and right != BLACK and c + L <= C
            d = up != WHITE and down != BLACK and r + L <= R
            can_a += a
            can_d += d
            can_z += a and d
            can_any += a or d
        k, j = self.k, self.scan_j
        want = j - k
        want_a = self.a_before[j] - self.a_before[k]
        want_d = self.d_before[j] - self.d_before[k]
        if want > can_any or want_a > can_a or want_d > can_d or want_a + want_d - want > can_z:
            return False
        if self.line_bounds:
            whole_rows = (q + 1) // C - (p + C - 1) // C
            if whole_rows > 0 and want_a < whole_rows:
                return False
        return True

    def reach_ok(self, p: int) -> bool:
        """At the start of row r = p // C (r >= 1), with the table on: the rows below can
        carry the clue string from where row r-1's letters begin (``k`` less its letters;
        its Down starts are decided, since every label forces the square below it)."""
        if self.reach is None or p == 0:
            return True
        C, L, color = self.C, self.reach.L, self.color
        r = p // C

        def white(rr: int) -> int:
            if rr < 0:
                return 0
            return sum(1 << c for c in range(C) if color[rr * C + c] == WHITE)

        levels = [white(r - 1)]
        for i in range(1, L):
            levels.append(levels[-1] & white(r - 1 - i))
        row = levels[0]
        word, _ = row_letters(row, levels[1], white(r) & row)
        return self.reach.can_finish(r - 1, tuple(levels), self.k - len(word))

    def lines_ok(self, p: int) -> bool:
        """Checked and no black lines: every row that starts at p or later starts an
        Across word, so the clue string must have that many Across clues left."""
        return not self.line_bounds or self.across_left[self.k] >= self.R - (p + self.C - 1) // self.C

    def is_solution(self) -> bool:
        """At p == n: every clue used, a white square (the all-black grid has no words, it
        is not a crossword) and the white squares connected."""
        if self.nclues >= 0 and self.k != self.nclues:
            return False
        if sum(self.rb) == self.n:
            return False
        if self.connected:
            color, C, R = self.color, self.C, self.R
            whites = [q for q in range(self.n) if color[q] == WHITE]
            if whites:
                seen = bytearray(self.n)
                seen[whites[0]] = 1
                todo = [whites[0]]
                reached = 1
                while todo:
                    q = todo.pop()
                    r, c = divmod(q, C)
                    for x, ok in ((q - 1, c > 0), (q + 1, c + 1 < C), (q - C, r > 0), (q + C, r + 1 < R)):
                        if ok and not seen[x] and color[x] == WHITE:
                            seen[x] = 1
                            reached += 1
                            todo.append(x)
                if reached != len(whites):
                    return False
        return True


class CrosswordSolver(Solver):
    """The :class:`Solver` of a :class:`Puzzle` (see the module text for the tree)."""

    def __init__(self, puzzle: Puzzle):
        self.puzzle = puzzle
        self.orbit = sym.orbits(puzzle.symmetry, puzzle.rows, puzzle.cols)
        self._reach: Reachable | None = None

    def reach_spec(self) -> tuple | None:
        """The rows the reachability table is built over, (min_word, checked, patterns,
        exact, need) — the transfer's per-row data — or None where the search does without
        it (a folded symmetry, no clue string, past 64 rows or columns, a row with more
        than :data:`TABLE_MAX_PATTERNS` patterns)."""
        pz = self.puzzle
        if pz.symmetry not in UNFOLDED or pz.clues is None or pz.rows > 64 or pz.cols > 64:
            return None
        (_R, _C, L, checked, _conn, _nbl, _fold, _clues, pats, exact, need) = \
            TransferCounter(pz, prune=False).c_arguments()
        if any(len(p) > TABLE_MAX_PATTERNS for p in pats):
            return None
        return L, checked, pats, exact, need

    def reachable(self) -> Reachable | None:
        """The Python table (built once, kept: its entries stay true), or None."""
        if self._reach is None:
            spec = self.reach_spec()
            if spec is None:
                return None
            L, checked, pats, exact, need = spec
            pz = self.puzzle
            self._reach = Reachable(pz.rows, pz.cols, L, bool(checked), pz.clues, pats, exact, need)
        return self._reach

    def estimate_refusal(self) -> str | None:
        """Why random paths cannot size this tree (see :mod:`core.estimate`), or None.
        Counting every legal grid they size within their band; a rebuild from a clue
        string they do not: its few grids lie at the end of long paths among many that end
        early, and the bands missed the real size 20 to 4,000 times (library entries 20,
        21, 23, 53; the NYT fixtures)."""
        if self.puzzle.clues is None:
            return None
        return ("random paths cannot size a rebuild from a clue string: its few grids lie at the end of long "
                "paths among many that end early")

    # -- replay -------------------------------------------------------------------
    def _replay(self, path: Sequence[int], prune: bool = False) -> tuple[_State, int, list[int], list[int]]:
        """Replay ``path``: the state, the node's square and labels, the branching factors;
        ``prune``: with the reachability table on (the search's tree)."""
        st = _State(self.puzzle, self.orbit)
        if prune:
            st.reach = self.reachable()
        if st.root():
            p, opts = st.descend(0)
        else:
            p, opts = 0, []
        factors = []
        for i, ch in enumerate(path):
            if not opts:
                raise PathError(f"path {tuple(path)!r}: step {i + 1} goes below a leaf")
            if ch not in opts:
                raise PathError(f"path {tuple(path)!r}: step {i + 1} is {ch!r}, not one of {opts}")
            factors.append(len(opts))
            st.apply(p, ch)
            p, opts = st.descend(p + 1)
        return st, p, opts, factors

    def grid(self, path: Sequence[int]) -> Grid:
        """The grid a solution path names (every square decided)."""
        st, p, opts, _ = self._replay(path)
        if p != st.n:
            raise PathError(f"path {tuple(path)!r} is not a complete grid")
        return Grid(st.R, st.C, tuple(x == BLACK for x in st.color))

    def path_of(self, grid: Grid) -> Path | None:
        """The path of ``grid`` in this search tree, or None when it is not a solution:
        follow the labels the grid gives at each square."""
        if (grid.rows, grid.cols) != (self.puzzle.rows, self.puzzle.cols):
            return None
        st = _State(self.puzzle, self.orbit)
        if not st.root():
            return None
        p, opts = st.descend(0)
        path = []
        while opts:
            r, c = divmod(p, st.C)
            if grid.black[p]:
                lab = 0
            else:
                a, d = grid.starts(r, c)
                lab = 1 + a + 2 * d
            if lab not in opts:
                return None
            path.append(lab)
            st.apply(p, lab)
            p, opts = st.descend(p + 1)
        if p != st.n or not st.is_solution():
            return None
        if tuple(x == BLACK for x in st.color) != grid.black:
            return None
        return tuple(path)

    # -- the contract ------------------------------------------------------------
    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        t0 = time.perf_counter()
        path = tuple(path)
        st, p, opts, factors = self._replay(path, prune=True)
        den = 1
        for f in factors:
            den *= f
        weight = Fraction(1, den)
        stats = Stats()
        run = _Run(st, stats, request, t0)
        stopped_by = None
        frontier: list[Subpath] = []
        try:
            run.node(p, opts, list(path), den)
        except _Stop as stop:
            frontier = stop.frontier
            stopped_by = run.stopped_by
        if request.max_depth is not None:
            frontier = run.split_frontier
            stopped_by = None
        stats.solutions = run.count
        stats.seconds = time.perf_counter() - t0
        return SolveResult(
            path=path, weight=weight, count=run.count, stats=stats, frontier=frontier,
            solutions=run.solutions if request.listing else None, stopped_by=stopped_by,
        )


class _Run:
    """One call of :meth:`CrosswordSolver.solve`: counters, limits and the recursion."""

    def __init__(self, st: "_State", stats: Stats, request: SolveRequest, t0: float):
        self.st = st
        self.stats = stats
        self.listing = request.listing
        self.limit = request.limit
        self.node_budget = request.node_budget
        self.deadline = t0 + request.seconds if request.seconds is not None else None
        self.max_depth = request.max_depth
        self.count = 0
        self.expanded = 0
        self.solutions: list[Path] = []
        self.split_frontier: list[Subpath] = []
        self.stopped_by: str | None = None

    def _visit(self, depth: int) -> None:
        stats = self.stats
        stats.nodes += 1
        npd = stats.nodes_per_depth
        while len(npd) <= depth:
            npd.append(0)
        npd[depth] += 1

    def node(self, p: int, opts: list[int], path: list[int], den: int) -> None:
        """Search the node at square p with labels opts; ``path`` is its path."""
        st = self.st
        depth = len(path)
        leaf = not opts
        if self.max_depth is not None and (leaf or depth >= self.max_depth):
            self.split_frontier.append(Subpath(tuple(path), Fraction(1, den)))
            return
        if leaf:
            self._visit(depth)
            self.stats.leaves += 1
            if p == st.n and st.is_solution():
                self.count += 1
                if self.listing:
                    self.solutions.append(tuple(path))
                if self.limit is not None and self.count >= self.limit:
                    self.stopped_by = "limit"
                    raise _Stop([])
            return
        if self.expanded and self._out_of_budget():
            self.stopped_by = "budget"
            raise _Stop([Subpath(tuple(path), Fraction(1, den))])
        self._visit(depth)
        self.expanded += 1
        d2 = den * len(opts)
        for i, lab in enumerate(opts):
            mark, k, scan = len(st.trail), st.k, (st.scan_q, st.scan_j)
            st.apply(p, lab)
            path.append(lab)
            try:
                p2, opts2 = st.descend(p + 1)
                self.node(p2, opts2, path, d2)
            except _Stop as stop:
                base = tuple(path[:-1])
                stop.frontier.extend(Subpath(base + (o,), Fraction(1, d2)) for o in opts[i + 1:])
                raise
            finally:
                path.pop()
                st.undo(mark, k)
                st.scan_q, st.scan_j = scan

    def _out_of_budget(self) -> bool:
        if self.node_budget is not None and self.stats.nodes >= self.node_budget:
            return True
        if self.deadline is not None and self.expanded % 64 == 0 and time.perf_counter() >= self.deadline:
            return True
        return False
