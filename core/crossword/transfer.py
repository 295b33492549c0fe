"""A second, independent crossword counter: a row-by-row transfer method.

Why it exists.  Counts that nobody published (library entries without an expected count,
every legal grid of a size) need a cross-check by a method that shares no search code
with :mod:`core.crossword.search`.  This module shares only the input types
(:class:`Puzzle`, :class:`Rules`); numbers, words, symmetry and connectivity are computed
here again, from bit masks of whole rows.  It counts, it never lists grids.

How it works.  A row is a mask of its white squares (bit c = column c).  The grid is
built one row at a time, and the rows built so far are summed up in a **state**:

* ``levels``: the vertical white runs that end in the last row, capped at the minimum word
  length L, as L masks (``levels[i]``: the columns whose run has more than i squares) —
  so the state knows the last row, which of its squares have white above, and which
  runs must go on;
* ``seen``: the columns that have had a white square (no all-black column); without
  ``no_black_lines``, 1 once any square was white: every grid has a white square (the
  all-black grid has no words, it is not a crossword);
* ``labels``: which white squares of the last row are joined by the rows above (the
  connectivity of the frontier), and ``closed``: the white squares ended for good;
* the number of clues used so far, kept apart as a dictionary ``clue position -> grids``.

A row's clue letters are known once the row below it is placed, so each step places row
r + 1 and checks the letters of row r against the clue string.  Equal states merge, so
the work grows with the number of states, not of grids.

Symmetries: ``left-right`` allows only palindromic rows; ``up-down`` and ``rotational``
place row pairs from the outside in (the top row uses the clue string from the front,
its mirror row from the back) and join the two halves in the middle; ``three-way`` does
both.  The diagonal and quarter-turn kinds do not fit a row-by-row build and raise.
"""
from __future__ import annotations

from functools import cached_property
from typing import Sequence

from .puzzle import Puzzle
from .reachable import Reachable, row_letters

#: symmetry -> (how the bottom half mirrors the top: None, "same" or "reverse"; palindromic rows)
SUPPORTED: dict[str, tuple[str | None, bool]] = {
    "none": (None, False),
    "left-right": (None, True),
    "up-down": ("same", False),
    "rotational": ("reverse", False),
    "three-way": ("same", True),
}

Geometry = tuple  # (levels, seen, labels, closed)


def count(puzzle: Puzzle, fixed: Sequence[bool | None] | None = None) -> int:
    """The number of grids of ``puzzle`` (see the module text); ``fixed``: per square
    (row-major) True for black, False for white, None for free."""
    return TransferCounter(puzzle, fixed).count()


# -- rows as bit masks ---------------------------------------------------------------------
def row_patterns(C: int, L: int, checked: bool, no_black_lines: bool) -> list[int]:
    """Every row whose white runs are allowed: one square (no word) unless ``checked``,
    else at least L squares; the all-black row only without ``no_black_lines``."""
    out: list[int] = []

    def go(c: int, mask: int) -> None:
        if c >= C:
            out.append(mask)
            return
        go(c + 1, mask)  # black at c
        for n in range(1, C - c + 1):
            if (n == 1 and checked) or 2 <= n < L:
                continue
            go(c + n + 1, mask | (((1 << n) - 1) << c))  # a white run, then black or the edge

    go(0, 0)
    return [m for m in out if m or not no_black_lines]


def run_ok(n: int, L: int, checked: bool) -> bool:
    """Whether a finished vertical run of ``n`` squares (capped at L) is allowed."""
    return n == 0 or (n == 1 and not checked) or n >= L


def components(edges: list[tuple[int, int]], nodes: set[int]) -> int:
    """The number of groups of ``nodes`` joined by ``edges`` (a small union-find)."""
    parent = {x: x for x in nodes}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        parent[find(a)] = find(b)
    return len({find(x) for x in nodes})


def connect(labels: bytes, row: int) -> tuple[bytes, bool]:
    """The labels of a new row below a row labelled ``labels`` (0 black, equal labels
    joined above), and whether a group of the old row has no square in the new row.
    (Labels are bytes: their hash is cached, and states are hashed often.)"""
    C = len(labels)
    parent: dict[int, int] = {}

    def find(x: int) -> int:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    seg = [0] * C
    n = 0
    for c in range(C):
        if row >> c & 1:
            if c == 0 or not row >> (c - 1) & 1:
                n += 1
            seg[c] = -n  # new runs: negative ids, old labels: positive
            if labels[c]:
                parent[find(-n)] = find(labels[c])
    names: dict[int, int] = {}
    out = bytes(names.setdefault(find(s), len(names) + 1) if s else 0 for s in seg)
    vanished = any(find(x) not in names for x in set(labels) if x)
    return out, vanished


class TransferCounter:
    """Counts the grids of one :class:`Puzzle` with the transfer method; ``fixed`` gives
    squares their colour (True black, False white, None free), e.g. to count one subtree
    of another search; ``prune``: drop the states the reachability table
    (:mod:`.reachable`) proves dead (unfolded kinds with a clue string; False only to
    check that the pruned count is the same)."""

    def __init__(self, puzzle: Puzzle, fixed: Sequence[bool | None] | None = None, prune: bool = True):
        if puzzle.symmetry not in SUPPORTED:
            raise ValueError(f"the transfer counter does not support {puzzle.symmetry!r} symmetry "
                             f"(supported: {', '.join(SUPPORTED)})")
        self.pz = puzzle
        self.R, self.C = puzzle.rows, puzzle.cols
        if fixed is not None and len(fixed) != self.R * self.C:
            raise ValueError(f"fixed has {len(fixed)} squares, not {self.R * self.C}")
        self.fixed = fixed
        self.fold, self.palin = SUPPORTED[puzzle.symmetry]
        rules = puzzle.rules
        self.L = max(rules.min_word, 2)
        self.checked, self.connected, self.nbl = rules.checked, rules.connected, rules.no_black_lines
        self.clues = puzzle.clues
        self.full = (1 << self.C) - 1
        pats = row_patterns(self.C, self.L, self.checked, self.nbl)
        self.patterns = [p for p in pats if not self.palin or p == self._rev(p)]
        self.forced = [self._forced(r) for r in range(self.R)]
        self.numbers = [self._numbers(r) for r in range(self.R)]
        self._cands: dict[tuple[int, int], list[int]] = {}
        self._allowed_rows: dict[int, list[int]] = {}
        self._letters: dict[tuple[int, int, int], tuple[str, int]] = {}
        self._links: dict[bytes, dict[int, tuple[bytes, bool]]] = {}
        self.max_states = 0
        #: unfolded with a clue string: states whose rows below cannot carry the rest of the
        #: clue string are dropped (core/crossword/reachable.py); counts are unchanged
        self.prunes = prune and self.fold is None and self.clues is not None

    @cached_property
    def reach(self) -> Reachable | None:
        """The Python reachability table this count prunes by (None: no pruning), made when
        the Python count first asks: the C count makes its own (25 ms for a 15x15)."""
        return Reachable.of(self) if self.prunes else None

    # -- fixed data ------------------------------------------------------------------------
    def _rev(self, mask: int) -> int:
        """The row read right to left."""
        return int(format(mask, f"0{self.C}b")[::-1], 2) if self.C else 0

    def _f(self, mask: int) -> int:
        """The mirror row's mask (the bottom half is the top half under this map)."""
        return self._rev(mask) if self.fold == "reverse" else mask

    def _forced(self, r: int) -> tuple[int, int]:
        """(black, white) squares of row r that ``start`` and ``fixed`` decide."""
        black = white = 0
        s = self.pz.start
        if s is not None:
            black = (1 << max(0, min(self.C, s - 1 - r * self.C))) - 1
            white = 1 << (s - 1 - r * self.C) if r * self.C <= s - 1 < (r + 1) * self.C else 0
        if self.fixed is not None:
            for c, x in enumerate(self.fixed[r * self.C:(r + 1) * self.C]):
                black |= (x is True) << c
                white |= (x is False) << c
        return black, white

    def _numbers(self, r: int) -> tuple[int | None, int]:
        """(exact numbered mask or None, squares that must be numbered) of row r."""
        exact = None
        if self.pz.numbered is not None:
            exact = sum(1 << c for c in range(self.C) if self.pz.numbered[r * self.C + c])
        s = self.pz.start
        need = 1 << (s - 1 - r * self.C) if s is not None and r * self.C <= s - 1 < (r + 1) * self.C else 0
        return exact, need

    def _allowed(self, r: int) -> list[int]:
        """The patterns row r may take (its own and its mirror row's givens), remembered."""
        got = self._allowed_rows.get(r)
        if got is None:
            got = self._allowed_rows[r] = self._allowed_uncached(r)
        return got

    def _allowed_uncached(self, r: int) -> list[int]:
        black, white = self.forced[r]
        if self.fold is not None:
            mb, mw = self.forced[self.R - 1 - r]
            black, white = black | self._f(mb), white | self._f(mw)
        middle = self.fold is not None and 2 * r == self.R - 1
        return [p for p in self.patterns if not p & black and p & white == white and (not middle or p == self._f(p))]

    def candidates(self, r: int, must: int) -> list[int]:
        """The patterns of row r that continue every run in ``must``."""
        key = (r, must)
        if key not in self._cands:
            self._cands[key] = [p for p in self._allowed(r) if p & must == must]
        return self._cands[key]

    # -- what the C count takes ------------------------------------------------------------------
    def top_rows(self) -> int:
        """The rows a state is built from: every row, or (folded) the top half."""
        return self.R if self.fold is None else self.R // 2

    def c_arguments(self, prefix: Sequence[int] = (), restrict: dict[int, Sequence[int]] | None = None) -> tuple:
        """The arguments of ``core.crossword._transfer.count`` before its budgets: the
        rules, the fold (0 none, 1 same, 2 reverse), the clue string, each row's allowed
        patterns (folded: the top half and the middle row), and the numbered-square givens
        per row; ``prefix``: patterns the first rows are fixed to (a path of the solver);
        ``restrict``: row -> the only patterns that row may take (a middle split's share)."""
        rows = self.R if self.fold is None else self.R // 2 + self.R % 2
        pats = [list(self._allowed(r)) for r in range(rows)]
        for r, p in enumerate(prefix):
            pats[r] = [p] if p in pats[r] else []
        for r, only in (restrict or {}).items():
            keep = set(only)
            pats[r] = [p for p in pats[r] if p in keep]
        exact = [-1 if e is None else e for e, _ in self.numbers]
        need = [n for _, n in self.numbers]
        fold = {None: 0, "same": 1, "reverse": 2}[self.fold]
        clues = None if self.clues is None else self.clues.encode("ascii")
        return (self.R, self.C, self.L, int(self.checked), int(self.connected), int(self.nbl), fold, clues,
                pats, exact, need)

    # -- one row ---------------------------------------------------------------------------------
    def row_letters(self, r: int, row: int, above: int, below: int) -> tuple[str, int] | None:
        """The letters of row r, or None when they break its numbered-square givens."""
        key = (row, above & row, below & row)
        got = self._letters.get(key)
        if got is None:
            got = self._letters[key] = row_letters(*key)
        if 0 <= r < self.R:
            exact, need = self.numbers[r]
            if (exact is not None and got[1] != exact) or got[1] & need != need:
                return None
        return got

    def derive(self, levels: tuple[int, ...]) -> tuple[int, int, int]:
        """(last row, its squares with white above, the columns whose run must go on:
        runs of 2 to L-1 squares, and of one square when ``checked``)."""
        row, above = levels[0], levels[1]
        must = above & ~levels[-1]
        if self.checked:
            must |= row & ~above
        return row, above, must

    def lengths(self, levels: tuple[int, ...]) -> list[int]:
        """The capped run length of each column."""
        return [sum(m >> c & 1 for m in levels) for c in range(self.C)]

    def link(self, labels: bytes, row: int) -> tuple[bytes, bool]:
        """:func:`connect`, remembered (a few thousand label rows meet the same rows)."""
        memo = self._links.get(labels)
        if memo is None:
            memo = self._links[labels] = {}
        got = memo.get(row)
        if got is None:
            got = memo[row] = connect(labels, row)
        return got

    def next_geometry(self, g: Geometry, row: int) -> Geometry | None:
        """The state after placing ``row`` below state ``g``; None if the white squares
        split for good."""
        levels, seen, labels, closed = g
        levels2 = (row,) + tuple(row & m for m in levels[:-1])
        seen2 = seen | row if self.nbl else int(bool(seen or row))
        if not self.connected:
            return levels2, seen2, None, False
        if closed:
            return (levels2, seen2, labels, True) if not row else None
        labels2, vanished = self.link(labels, row)
        if vanished:  # fine only when the one group ends and nothing white follows
            if self.fold is not None or row or len(set(labels) - {0}) > 1:
                return None
            return levels2, seen2, labels2, True
        return levels2, seen2, labels2, False

    # -- clue positions ------------------------------------------------------------------------
    def advance(self, ks: dict, top: str, bottom: str) -> dict:
        """Clue positions after a top row with letters ``top`` and (folded) its mirror row
        with letters ``bottom``; positions whose clues differ are dropped."""
        if self.clues is None:
            return ks
        clues, out = self.clues, {}
        lt, lb = len(top), len(bottom)
        if self.fold is None:
            for k, v in ks.items():
                if clues.startswith(top, k):
                    out[k + lt] = v
            return out
        for (kf, kb), v in ks.items():
            kb2 = kb - lb
            if kf + lt <= kb2 and clues.startswith(top, kf) and clues.startswith(bottom, kb2):
                out[kf + lt, kb2] = v
        return out

    def _step_letters(self, r: int, row: int, above: int, below: int) -> tuple[str, str] | None:
        """Letters of top row r (row below it: ``below``) and, folded, of its mirror row."""
        top = self.row_letters(r, row, above, below)
        if top is None:
            return None
        if self.fold is None:
            return top[0], ""
        f = self._f
        bottom = self.row_letters(self.R - 1 - r, f(row), f(below), f(above))
        return None if bottom is None else (top[0], bottom[0])

    # -- the count ---------------------------------------------------------------------------
    def count(self) -> int:
        """The number of grids: the rows top down (folded: the top half), then the end."""
        R, C = self.R, self.C
        ks0 = {0: 1} if self.fold is None else {(0, len(self.clues or "")): 1}
        start = ((0,) * self.L, 0, bytes(C) if self.connected else None, False)
        layer: dict[Geometry, dict] = {start: ks0}
        top_rows = R if self.fold is None else R // 2
        for r in range(top_rows):
            layer = self.step(layer, r)
            self.max_states = max(self.max_states, len(layer))
        if self.fold is None:
            return self.finish(layer)
        return self.join_even(layer) if R % 2 == 0 else self.join_odd(layer)

    def step(self, layer: dict, r: int) -> dict:
        """Place row r below every state of ``layer``."""
        out: dict[Geometry, dict] = {}
        for g, ks in layer.items():
            row, above, must = self.derive(g[0])
            cands = self.candidates(r, must)
            if g[3]:  # closed: only black rows follow
                cands = [q for q in cands if not q]
            # the letters depend on the new row only where it can start a Down word (and,
            # folded, end one): one check per value of the new row there
            keymask = row if self.fold is not None else row & ~above
            by_key: dict[int, dict] = {}
            for q in cands:
                key = q & keymask
                ks2 = by_key.get(key)
                if ks2 is None:
                    lets = self._step_letters(r - 1, row, above, q)
                    ks2 = by_key[key] = {} if lets is None else self.advance(ks, *lets)
                if not ks2:
                    if not keymask & ~must:  # the only key: the whole state is dead
                        break
                    continue
                g2 = self.next_geometry(g, q)
                if g2 is not None:
                    if self.reach is not None:
                        ks3 = {k: v for k, v in ks2.items() if self.reach.can_finish(r, g2[0], k)}
                        if ks3:
                            _merge(out, g2, ks3)
                        continue
                    _merge(out, g2, ks2)
        return out

    def finish(self, layer: dict) -> int:
        """Unfolded: the edge below the last row ends every run and numbers the last row."""
        total = 0
        for (levels, seen, labels, closed), ks in layer.items():
            row, above, must = self.derive(levels)
            if must or not seen or (self.nbl and seen != self.full):
                continue
            if self.connected and len(set(labels) - {0}) + closed > 1:
                continue
            lets = self.row_letters(self.R - 1, row, above, 0)
            if lets is None:
                continue
            ks2 = self.advance(ks, lets[0], "")
            total += sum(v for k, v in ks2.items() if self.clues is None or k == len(self.clues))
        return total

    def _closing(self, ks: dict, parts: list[str]) -> int:
        """Grids of the folded clue positions ``ks`` whose gap is exactly ``parts`` joined:
        the last top row, (the middle row,) the first bottom row."""
        if self.clues is None:
            return sum(ks.values())
        gap = "".join(parts)
        return sum(v for (kf, kb), v in ks.items() if kb - kf == len(gap) and self.clues.startswith(gap, kf))

    def join_even(self, layer: dict) -> int:
        """Even rows: the last top row meets its own mirror image."""
        total, f, h = 0, self._f, self.R // 2
        for (levels, seen, labels, _), ks in layer.items():
            row, above, _must = self.derive(levels)
            mrow = f(row)
            if not seen or (self.nbl and seen | f(seen) != self.full):
                continue
            runs = self.lengths(levels)
            mruns = self._mirror(runs)
            if not all(run_ok(a + b, self.L, self.checked) if a and b else run_ok(a, self.L, self.checked)
                       for a, b in zip(runs, mruns)):
                continue
            if self.connected and not self._joined(labels, None):
                continue
            top = self.row_letters(h - 1, row, above, mrow)
            bottom = self.row_letters(h, mrow, row, f(above))
            if top is None or bottom is None:
                continue
            total += self._closing(ks, [top[0], bottom[0]])
        return total

    def join_odd(self, layer: dict) -> int:
        """Odd rows: a middle row (its own mirror image) between the two halves."""
        total, f, h = 0, self._f, self.R // 2
        for (levels, seen, labels, _), ks in layer.items():
            row, above, _must = self.derive(levels)
            runs = self.lengths(levels)
            mrow, mruns = f(row), self._mirror(runs)
            for mid in self.candidates(h, 0):
                if not (seen or mid) or (self.nbl and seen | f(seen) | mid != self.full):
                    continue
                if not all(run_ok(a + 1 + b, self.L, self.checked) if mid >> c & 1 else
                           run_ok(a, self.L, self.checked) and run_ok(b, self.L, self.checked)
                           for c, (a, b) in enumerate(zip(runs, mruns))):
                    continue
                if self.connected and not self._joined(labels, mid):
                    continue
                top = self.row_letters(h - 1, row, above, mid)
                middle = self.row_letters(h, mid, row, mrow)
                bottom = self.row_letters(h + 1, mrow, mid, f(above))
                if top is None or middle is None or bottom is None:
                    continue
                total += self._closing(ks, [top[0], middle[0], bottom[0]])
        return total

    def _mirror(self, t):
        """A per-column tuple of the top half as seen in the mirror row."""
        return t[::-1] if self.fold == "reverse" else t

    def _joined(self, labels: bytes, mid: int | None) -> bool:
        """Whether the top half, its mirror (and the middle row) form one group."""
        C, off = self.C, self.C + 1
        mlabels = self._mirror(labels)
        nodes = {x for x in labels if x} | {x + off for x in mlabels if x}
        edges = []
        if mid is None:
            edges = [(labels[c], mlabels[c] + off) for c in range(C) if labels[c] and mlabels[c]]
        else:
            seg, n = [0] * C, 0
            for c in range(C):
                if mid >> c & 1:
                    n += 0 if c and mid >> (c - 1) & 1 else 1
                    seg[c] = 2 * off + n
                    nodes.add(seg[c])
                    edges += [(seg[c], labels[c])] if labels[c] else []
                    edges += [(seg[c], mlabels[c] + off)] if mlabels[c] else []
        return components(edges, nodes) <= 1


def _merge(layer: dict, g: Geometry, ks: dict) -> None:
    """Add the clue positions ``ks`` of state ``g`` into ``layer``."""
    d = layer.get(g)
    if d is None:
        layer[g] = dict(ks)
        return
    for k, v in ks.items():
        d[k] = d.get(k, 0) + v
