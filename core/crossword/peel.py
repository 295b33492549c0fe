"""The transfer method for the square symmetries: grids built layer by layer from the
outside in, counting every legal grid (no clue string).  Its C twin,
``core/crossword/_peel.c``, counts the same way (this module is its pure-Python
reference, and hands it each layer's patterns and geometry: :meth:`PeelCounter.c_arguments`).

Why layers.  Under ``diagonal`` symmetry row k equals column k, so a row-by-row build
would have to remember the columns it has not reached; under ``quarter-turn`` the bottom
rows are the top rows turned, with the same trouble.  Peeling layers keeps the state to
one side of what is left:

* **diagonal** — layer k is the L of row k from column k on and column k from row k on
  (equal by symmetry; its free squares are the *arm* ``(k, k..n-1)``).  What is left is the
  square ``[k+1, n)^2``, again symmetric, and the state is the vertical runs that end in
  row k above it (the horizontal runs ending in column k are the same, transposed).  The
  arm's first square continues the horizontal run that ends at ``(k, k-1)``: the vertical
  run ending at ``(k-1, k)``, transposed.  So the build is the row transfer on a width that
  shrinks by one per layer.  ``anti-diagonal`` is ``diagonal`` of the grid read right to
  left (the rules do not tell left from right).
* **quarter-turn** — layer k is the ring of squares k steps from the edge; one side
  (``(k, k..n-1-k)``, its last square equal to its first) decides the ring, the three
  others are that side turned.  The state is the vertical runs ending in row k above the
  inner square; row k continues, on its left, the vertical run of column n-1-k and, on its
  right, that of column k (both turned a quarter).  ``full`` is ``quarter-turn`` with
  palindromic sides (a quarter turn and a mirror make all eight maps).

Each state also keeps which columns had a white square (no all-black line: row k is
complete once layer k is placed, and equals a column by symmetry; without that rule, 1
once any square was white: every grid has a white square, the all-black grid has no
words and is not a crossword) and the connectivity
labels of the squares bordering what is left (both arms of the L, all four sides of the
ring), computed from coordinates; a white group that no longer borders what is left is
closed, which is fine only for the one and only group.

What it does not do: clue strings, ``start`` and numbered squares.  Reading order does not
follow layers — the letters of row k need the squares of row k+1, which later layers
decide — so a clue string would have to be carried as the clues of every row at once.
Those puzzles are left to the search, which the symmetry constrains heavily (a quarter
turn decides three squares of four).  Fixed squares (``fixed``) are supported, so a
subtree of another search can be counted.
"""
from __future__ import annotations

from typing import Iterable, Sequence

from .puzzle import Puzzle

#: the square kinds counted here (the others: core.crossword.transfer)
PEELED = ("diagonal", "anti-diagonal", "quarter-turn", "full")

Cell = tuple[int, int]


def refusal(puzzle: Puzzle) -> str | None:
    """Why the layer build cannot count ``puzzle``, or None."""
    if puzzle.symmetry not in PEELED:
        return f"the layer build counts {', '.join(PEELED)} symmetry, not {puzzle.symmetry}"
    if puzzle.clues is not None or puzzle.start is not None or puzzle.numbered is not None:
        return (f"with {puzzle.symmetry} symmetry the transfer method counts whole grids only (no clue string, "
                f"start or numbered squares: reading order does not follow its layers); the search rebuilds them")
    return None


def count(puzzle: Puzzle, fixed: Sequence[bool | None] | None = None, prefix: Sequence[int] = ()) -> int:
    """The number of grids of ``puzzle`` (a square kind, no clue string); ``fixed`` per
    square (row-major): True black, False white, None free; ``prefix``: the first layers'
    free patterns (a path of the solver)."""
    return PeelCounter(puzzle, fixed).count(prefix)


def run_ok(n: int, L: int, checked: bool) -> bool:
    """Whether a finished run of ``n`` squares (capped at L) is allowed."""
    return n == 0 or (n == 1 and not checked) or n >= L


class PeelCounter:
    """Counts the grids of one square-symmetric :class:`Puzzle` layer by layer (see the
    module text)."""

    def __init__(self, puzzle: Puzzle, fixed: Sequence[bool | None] | None = None):
        why = refusal(puzzle)
        if why is not None:
            raise ValueError(why)
        n = self.n = puzzle.rows
        if fixed is not None and len(fixed) != n * n:
            raise ValueError(f"fixed has {len(fixed)} squares, not {n * n}")
        self.ring = puzzle.symmetry in ("quarter-turn", "full")
        self.palin = puzzle.symmetry == "full"
        flip = puzzle.symmetry == "anti-diagonal"
        rules = puzzle.rules
        self.L = max(rules.min_word, 2)
        self.checked, self.connected, self.nbl = rules.checked, rules.connected, rules.no_black_lines
        self.fixed: dict[Cell, bool] = {}
        for q, x in enumerate(fixed or ()):
            if x is not None:
                r, c = divmod(q, n)
                self.fixed[(r, n - 1 - c) if flip else (r, c)] = x
        self.layers = (n + 1) // 2 if self.ring else n
        self._patterns: dict[int, list[int]] = {}

    # -- the geometry of a layer ---------------------------------------------------------------
    def width(self, k: int) -> int:
        """The number of squares of layer k's free side (arm or ring side)."""
        return self.n - 2 * k if self.ring else self.n - k

    def sides(self, k: int) -> list[list[Cell]]:
        """The squares of layer k as lists indexed like its free side (square i of every
        list has the colour of bit i)."""
        n, w = self.n, self.width(k)
        top = [(k, k + i) for i in range(w)]
        if not self.ring:
            return [top, [(k + i, k) for i in range(w)]]
        return [top, [(k + i, n - 1 - k) for i in range(w)], [(n - 1 - k, n - 1 - k - i) for i in range(w)],
                [(n - 1 - k - i, k) for i in range(w)]]

    def border(self, k: int) -> list[Cell]:
        """The squares of layer k that border the part left after it (what the labels of
        the next state are about), in a fixed order."""
        w = self.width(k)
        inner = range(1, w - 1) if self.ring else range(1, w)
        return [side[i] for side in self.sides(k) for i in inner]

    def patterns(self, k: int) -> list[int]:
        """Layer k's free-side patterns whose runs away from the side's ends are allowed
        (the runs at the ends continue runs of earlier layers), with its fixed squares."""
        if k in self._patterns:
            return self._patterns[k]
        w = self.width(k)
        black = white = 0
        for side in self.sides(k):
            for i, cell in enumerate(side):
                x = self.fixed.get(cell)
                if x is True:
                    black |= 1 << i
                elif x is False:
                    white |= 1 << i
        out = []
        for x in range(1 << w):
            if x & black or x & white != white:
                continue
            if self.ring and w > 1 and (x >> (w - 1) & 1) != (x & 1):
                continue
            if self.palin and x != int(format(x, f"0{w}b")[::-1], 2):
                continue
            if all(run_ok(len(r), self.L, self.checked) for r in _inner_runs(x, w, both_ends=self.ring)):
                out.append(x)
        self._patterns[k] = out
        return out

    def geometry(self, k: int) -> tuple[list[int], list[int], list[int], list[int]]:
        """Layer k as plain lists for the C build (``_peel.c``): the bit of the free side
        that colours each of its squares; the pairs of its squares that touch and the pairs
        (square, position on layer k-1's border) that touch, flattened; and its border as
        indices into its squares."""
        index: dict[Cell, int] = {}
        bits: list[int] = []
        for side in self.sides(k):
            for i, cell in enumerate(side):
                if cell not in index:
                    index[cell] = len(bits)
                    bits.append(i)
        prev = {cell: p for p, cell in enumerate(self.border(k - 1))} if k else {}
        intra: list[int] = []
        cross: list[int] = []
        for (r, c), a in index.items():
            for nb in ((r + 1, c), (r, c + 1)):
                if nb in index:
                    intra += [a, index[nb]]
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if nb in prev:
                    cross += [a, prev[nb]]
        return bits, intra, cross, [index[cell] for cell in self.border(k)]

    def c_arguments(self, prefix: Sequence[int] = ()) -> tuple:
        """The arguments of ``core.crossword._peel.count`` before its budgets: the side, the
        rules, ring or L, and per layer its width, patterns (``prefix``: the first layers'
        fixed patterns) and :meth:`geometry`."""
        layers = []
        for k in range(self.layers):
            pats = list(self.patterns(k))
            if k < len(prefix):
                pats = [prefix[k]] if prefix[k] in pats else []
            layers.append((self.width(k), pats, *self.geometry(k)))
        return (self.n, self.L, int(self.checked), int(self.connected), int(self.nbl), int(self.ring), layers)

    # -- the count -----------------------------------------------------------------------------
    def start_state(self) -> tuple:
        w = self.width(0)
        return (0,) * w, 0, (), False

    def count(self, prefix: Sequence[int] = ()) -> int:
        """The number of grids whose first layers take the patterns ``prefix``."""
        got = self.count_within(prefix)
        assert got is not None
        return got

    def count_within(self, prefix: Sequence[int] = (), deadline: float | None = None,
                     transitions: int | None = None) -> int | None:
        """:meth:`count`, or None once the clock passes ``deadline`` (``time.perf_counter``)
        or more than ``transitions`` states were tried; ``self.done``: states tried,
        ``self.max_states``: the largest layer."""
        import time

        self.done = self.max_states = 0
        layer: dict[tuple, int] = {self.start_state(): 1}
        for k in range(self.layers):
            pats = self.patterns(k)
            if k < len(prefix):
                pats = [prefix[k]] if prefix[k] in pats else []
            out: dict[tuple, int] = {}
            for state, v in layer.items():
                if (deadline is not None and time.perf_counter() >= deadline) or \
                        (transitions is not None and self.done >= transitions):
                    return None
                self.done += len(pats)
                for x in pats:
                    got = self.next_state(k, state, x)
                    if got is not None:
                        out[got] = out.get(got, 0) + v
            layer = out
            self.max_states = max(self.max_states, len(layer))
        return sum(v for state, v in layer.items() if state[1] or self.nbl)

    def children(self, prefix: Sequence[int]) -> list[int]:
        """The patterns layer ``len(prefix)`` may take ([] past the last layer)."""
        k = len(prefix)
        return list(self.patterns(k)) if k < self.layers else []

    def next_state(self, k: int, state: tuple, x: int) -> tuple | None:
        """The state after layer k takes free-side pattern ``x``; None if a rule breaks."""
        runs, seen, labels, closed = state
        w, L, ok = self.width(k), self.L, self.checked
        bit = [x >> i & 1 for i in range(w)]
        # the complete row k: [a] x [b] (diagonal: no b, the edge)
        a = runs[w - 1] if self.ring else runs[0]
        b = runs[0] if self.ring else 0
        cur = a
        for i in range(w):
            if bit[i]:
                cur = min(cur + 1, L)
            else:
                if not run_ok(cur, L, ok):
                    return None
                cur = 0
        if not run_ok(min(cur + b, L) if bit[w - 1] else b, L, ok):
            return None
        # the columns that go on into what is left
        inner = range(1, w - 1) if self.ring else range(1, w)
        new_runs = []
        for i in inner:
            if bit[i]:
                new_runs.append(min(runs[i] + 1, L))
            else:
                if not run_ok(runs[i], L, ok):
                    return None
                new_runs.append(0)
        new_seen = 0 if self.nbl else int(bool(seen or x))  # the columns, or "a white square yet"
        if self.nbl:
            row_white = x or (seen & 1) or (self.ring and seen >> (w - 1) & 1)
            if not row_white:
                return None
            for j, i in enumerate(inner):
                if seen >> i & 1 or bit[i]:
                    new_seen |= 1 << j
        new_labels: tuple = ()
        if self.connected:
            got = self.link(k, labels, closed, bit)
            if got is None:
                return None
            new_labels, closed = got
        return tuple(new_runs), new_seen, new_labels, closed

    def link(self, k: int, labels: tuple, closed: bool, bit: list[int]) -> tuple[tuple, bool] | None:
        """The labels of the next border, and whether the one white group has closed."""
        white = {cell for side in self.sides(k) for i, cell in enumerate(side) if bit[i]}
        if closed:
            return None if white else ((0,) * len(self.border(k)), True)
        old = dict(zip(self.border(k - 1), labels)) if k else {}
        parent: dict = {}

        def find(a):
            while parent.setdefault(a, a) != a:
                parent[a] = parent[parent[a]]
                a = parent[a]
            return a

        for cell, lab in old.items():
            if lab:
                parent[find(cell)] = find(("label", lab))
        for (r, c) in white:
            find((r, c))
            for nb in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                if nb in white or old.get(nb):
                    parent[find(nb)] = find((r, c))
        groups = {find(("label", lab)) for lab in old.values() if lab} | {find(cell) for cell in white}
        border = self.border(k)
        live = {find(cell) for cell in border if cell in white}
        ended = len(groups - live)
        if ended and (ended > 1 or live):
            return None
        names: dict = {}
        out = tuple(names.setdefault(find(cell), len(names) + 1) if cell in white else 0 for cell in border)
        return out, bool(ended)


def _inner_runs(x: int, w: int, both_ends: bool) -> Iterable[str]:
    """The white runs of a w-square side that touch neither end that continues an earlier
    layer's run: the first square (and, ``both_ends``, the last)."""
    s = format(x, f"0{w}b")[::-1]  # square i at index i
    pos = 0
    for part in s.split("0"):
        start, end = pos, pos + len(part)
        pos = end + 1
        if not part or start == 0 or (both_ends and end == w):
            continue
        yield part
