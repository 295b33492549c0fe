"""The validated input of one crossword search: size, rules, symmetry and what is given.

A :class:`Puzzle` is what the search needs and nothing more; parsing (``parse.py``) turns
files into one, checking every field with a clear error.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from ..errors import ProblemError
from . import symmetry as sym
from .grid import LETTERS, Grid
from .rules import Rules

MAX_SIDE = 64


@dataclass(frozen=True)
class Puzzle:
    """``clues``: the clue string to rebuild (None: count every legal grid); ``start``: the
    1-based row-major square of number 1 (every square before it black), or None;
    ``numbered``: for each square whether it carries a number (from a JSON ``gridnums``),
    or None; ``given``: the grid the clues came from, when a grid was given."""

    rows: int
    cols: int
    rules: Rules = field(default_factory=Rules)
    symmetry: str = "none"
    clues: str | None = None
    start: int | None = None
    numbered: tuple[bool, ...] | None = None
    given: Grid | None = None

    @classmethod
    def build(
        cls,
        rows: object,
        cols: object,
        *,
        rules: Rules | None = None,
        symmetry: str = "none",
        clues: object = None,
        across: object = None,
        down: object = None,
        start: object = None,
        numbered: tuple[bool, ...] | None = None,
        given: Grid | None = None,
        source: str | None = None,
    ) -> "Puzzle":
        """Check every field and build; raises :class:`ProblemError` with one clear line."""
        rules = rules or Rules()
        for name, v in (("rows", rows), ("cols", cols)):
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_SIDE:
                raise ProblemError(f"{name} must be a whole number from 1 to {MAX_SIDE}, not {v!r}", source=source)
        rows, cols = cast(int, rows), cast(int, cols)
        if min(rows, cols) < rules.min_word:
            raise ProblemError(
                f"a {rows}x{cols} grid is smaller than the minimum word length {rules.min_word}", source=source
            )
        symmetry = sym.canonical(symmetry, source)
        sym.check_shape(symmetry, rows, cols, source)
        if clues is not None and (across is not None or down is not None):
            raise ProblemError("give either clues or the across and down lists, not both", source=source)
        if across is not None or down is not None:
            clues = clues_from_lists(across, down, source)
        if clues is not None:
            clues = check_clues(clues, source)
        if start is not None:
            if isinstance(start, bool) or not isinstance(start, int) or not 1 <= start <= rows * cols:
                raise ProblemError(
                    f"start must be a square from 1 to {rows * cols} (row-major), not {start!r}", source=source
                )
        if numbered is not None and len(numbered) != rows * cols:
            raise ProblemError(f"the numbered squares list has {len(numbered)} entries, not {rows * cols}", source=source)
        return cls(rows, cols, rules, symmetry, clues, start, numbered, given)

    def describe(self) -> str:
        what = f"rebuild {len(self.clues)} clues" if self.clues is not None else "every legal grid"
        extra = f", number 1 at square {self.start}" if self.start else ""
        return f"crossword {self.rows}x{self.cols}, {self.symmetry} symmetry, {what}{extra} ({self.rules.describe()})"


def check_clues(clues: object, source: str | None = None) -> str:
    """The clue string in capitals; an unknown letter is an error."""
    if not isinstance(clues, str):
        raise ProblemError(f"clues must be a string of A, D and Z, not {clues!r}", source=source)
    s = "".join(clues.split()).upper()
    for i, ch in enumerate(s):
        if ch not in LETTERS:
            raise ProblemError(
                f"unknown clue letter {ch!r} at number {i + 1} (A: Across only, D: Down only, Z: both)",
                source=source,
            )
    return s


def clues_from_lists(across: object, down: object, source: str | None = None) -> str:
    """The clue string of the lists of Across and Down numbers; they must cover 1..N."""
    sets = []
    for name, lst in (("across", across), ("down", down)):
        if lst is None:
            lst = []
        if not isinstance(lst, (list, tuple)) or any(isinstance(x, bool) or not isinstance(x, int) for x in lst):
            raise ProblemError(f"{name} must be a list of clue numbers, not {lst!r}", source=source)
        if any(x < 1 for x in lst):
            raise ProblemError(f"{name} has a clue number below 1", source=source)
        if len(set(lst)) != len(lst):
            raise ProblemError(f"{name} lists a clue number twice", source=source)
        sets.append(set(lst))
    a, d = sets
    every = a | d
    n = max(every, default=0)
    missing = sorted(set(range(1, n + 1)) - every)
    if missing:
        raise ProblemError(
            f"the across and down lists do not make a clue string: number {missing[0]} is in neither",
            source=source,
        )
    return "".join("Z" if i in a and i in d else "A" if i in a else "D" for i in range(1, n + 1))
