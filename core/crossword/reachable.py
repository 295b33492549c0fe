"""Which rows can still carry the rest of the clue string: a backward reachability table.

Why it exists.  Built top down, a crossword (by the transfer count or by the search) learns
only at the bottom row that the rows it placed left the wrong letters for the rows below;
without symmetry nothing at the end of the grid is decided early, so billions of dead
states or nodes are made first.  This table answers early: given the last row placed
and where its letters begin in the clue string, can the rows below be filled legally so
that the letters of those rows are exactly the rest of the clue string?

The question, ``can_finish(r, levels, j)``: row r is the last row placed; ``levels`` is
its **profile** (the transfer's ``levels``: ``levels[i]`` = the columns whose vertical
white run ending in row r has more than i squares, capped at the minimum word length L,
so it holds row r, which of its squares have white above and which runs must go on);
``j`` is where the letters of row r begin.  True when rows r+1 .. R-1 can be chosen from
their allowed patterns (the rules' runs, palindromic rows for left-right, start and fixed
squares), every vertical run ending legally, every row's numbered-square givens kept,
with the letters of rows r .. R-1 equal to ``clues[j:]``.  Connectivity and the no-black-
line rule's columns are ignored: the table is a relaxation of the real question, so a
False proves a dead end and a True proves nothing (it only prunes, it never adds grids).

How.  Memoised depth-first search over (r, profile, j), stopping at the first row that
works; only the entries a caller asks about (and what they need) are computed.  Before
it recurses it asks a coarser table, ``fit[r]``: the j from which rows r.. could carry
``clues[j:]`` each on its own (any allowed pattern, a Down word wherever one fits below,
givens kept) — a relaxation that ends most dead branches rows before the last.  The C
twin adds finer filters of the same kind (pattern pairs, a trie of the next row); the
answers are the same, since each filter only skips what cannot finish.  The C
twin is ``core/crossword/_reachable.h`` (shared by ``_transfer.c`` and ``_crossword.c``);
tests compare the two on small puzzles.  Unfolded kinds only (no symmetry, left-right):
the folded kinds build both ends at once and check the end of the clue string already.
"""
from __future__ import annotations

from typing import Sequence


def row_letters(row: int, above: int, below: int) -> tuple[str, int]:
    """A row's clue letters in reading order and its numbered squares (a mask): an Across
    start has black (or the edge) on its left and white on its right, a Down start black
    above and white below (``above``/``below``: the white squares of the rows next to it,
    0 at the edge).  The transfer method's too (:mod:`.transfer` imports it)."""
    across = row & ~(row << 1) & (row >> 1)
    down = row & ~above & below
    out = []
    m = across | down
    while m:
        bit = m & -m
        out.append("Z" if across & bit and down & bit else "A" if across & bit else "D")
        m ^= bit
    return "".join(out), across | down


class Reachable:
    """The table of one unfolded puzzle with a clue string (see the module text).

    ``pats[r]``: the patterns row r may take; ``exact[r]``: its exact numbered mask or -1;
    ``need[r]``: squares of row r that must be numbered — the transfer's own per-row data
    (:meth:`TransferCounter.c_arguments`), so the table and the count agree on the rules."""

    def __init__(self, R: int, C: int, L: int, checked: bool, clues: str,
                 pats: Sequence[Sequence[int]], exact: Sequence[int], need: Sequence[int]):
        self.R, self.C, self.L, self.checked = R, C, L, checked
        self.clues = clues
        self.pats = [list(p) for p in pats]
        self.exact = list(exact)
        self.need = list(need)
        self.memo: dict[tuple[int, tuple[int, ...], int], bool] = {}
        self.fit = self._fit()

    @classmethod
    def of(cls, counter) -> "Reachable":
        """The table of a transfer counter's puzzle (its rows and givens): a
        :class:`~core.crossword.transfer.TransferCounter`, unfolded, with a clue string."""
        if counter.fold is not None or counter.clues is None:
            raise ValueError("the reachability table is for unfolded puzzles with a clue string")
        (R, C, L, checked, _conn, _nbl, _fold, _clues, pats, exact, need) = counter.c_arguments()
        return cls(R, C, L, bool(checked), counter.clues, pats, exact, need)

    def _fit(self) -> list[int]:
        """``fit[r]``, bit j set when rows r.. may carry ``clues[j:]`` row by row: each
        row's pattern read right to left, an Across start taking an A (or a Z where a Down
        word fits below), another white square a D there or nothing (the givens decide
        where they number the square)."""
        clues, R = self.clues, self.R
        ma, md, mz = ({j for j, ch in enumerate(clues) if ch == x} for x in "ADZ")
        mask = {x: sum(1 << j for j in js) for x, js in zip("ADZ", (ma, md, mz))}
        fit = [0] * (R + 1)
        fit[R] = 1 << len(clues)
        for r in range(R - 1, -1, -1):
            down_fits = r + self.L <= R
            for p in self.pats[r]:
                across = p & ~(p << 1) & (p >> 1)
                if self.exact[r] >= 0 and across & ~self.exact[r]:
                    continue
                cur = fit[r + 1]
                for c in range(self.C - 1, -1, -1):
                    if not p >> c & 1:
                        continue
                    num = self.exact[r] >> c & 1 if self.exact[r] >= 0 else None
                    if self.need[r] >> c & 1:
                        num = 1
                    sh = cur >> 1
                    if across >> c & 1:
                        cur = sh & (mask["A"] | (mask["Z"] if down_fits else 0))
                    else:
                        d = sh & mask["D"] if down_fits else 0
                        cur = d if num == 1 else cur if num == 0 else cur | d
                fit[r] |= cur
        return fit

    def _letters(self, r: int, row: int, above: int, below: int) -> str | None:
        """Row r's letters, or None when its numbered squares break the givens."""
        word, nums = row_letters(row, above & row, below & row)
        if (self.exact[r] >= 0 and nums != self.exact[r]) or nums & self.need[r] != self.need[r]:
            return None
        return word

    def can_finish(self, r: int, levels: tuple[int, ...], j: int) -> bool:
        """Whether rows r+1.. can end the grid with rows r.. carrying ``clues[j:]``."""
        key = (r, levels, j)
        got = self.memo.get(key)
        if got is None:
            got = self.memo[key] = self._compute(r, levels, j)
        return got

    def _compute(self, r: int, levels: tuple[int, ...], j: int) -> bool:
        if not self.fit[r] >> j & 1:
            return False
        row, above = levels[0], levels[1]
        must = above & ~levels[-1]
        if self.checked:
            must |= row & ~above
        clues = self.clues
        if r == self.R - 1:
            word = self._letters(r, row, above, 0)
            return not must and word is not None and clues[j:] == word
        keymask = row & ~above  # the letters depend on the next row only there
        tried: dict[int, str | None] = {}
        for q in self.pats[r + 1]:
            if q & must != must:
                continue
            key = q & keymask
            if key not in tried:
                word = self._letters(r, row, above, q)
                tried[key] = word if word is not None and clues.startswith(word, j) else None
            word = tried[key]
            if word is None:
                continue
            levels2 = (q,) + tuple(q & m for m in levels[:-1])
            if self.can_finish(r + 1, levels2, j + len(word)):
                return True
        return False


def profile_of(rows: Sequence[int], r: int, L: int) -> tuple[int, ...]:
    """The profile (``levels``) of row r, from the white masks ``rows`` of rows 0..r."""
    out = [rows[r]]
    for i in range(1, L):
        out.append(out[-1] & rows[r - i] if r - i >= 0 else 0)
    return tuple(out)
