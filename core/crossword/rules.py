"""The rules a legal grid keeps, each on or off, and an independent check of a grid.

:func:`violation` is deliberately simple and shares no code with the search: the tests
use it as the brute-force reference, and :meth:`CrosswordProblem.verify` uses it to check
each solution the search returns.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

from ..errors import ProblemError
from .grid import Grid


@dataclass(frozen=True)
class Rules:
    """``min_word``: every word has at least this many squares (2 or less: no limit beyond
    the two squares that make a word); ``checked``: every white square is in an Across and
    a Down word; ``no_black_lines``: no row or column is entirely black; ``connected``: the
    white squares form one group (side to side).  Always, whatever the switches: a grid
    has at least one white square (the all-black grid has no words, it is no crossword;
    by Kleber's counts, OEIS A323838/A323839, see docs/models.md)."""

    min_word: int = 3
    checked: bool = True
    connected: bool = True
    no_black_lines: bool = True

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def build(cls, data: dict, source: str | None = None) -> "Rules":
        """Rules from a mapping of the TOML keys; missing keys keep their defaults.
        ``min_word = false`` turns the length rule off (same as 2)."""
        kw = {}
        mw = data.get("min_word", 3)
        if mw is False:
            mw = 2
        if isinstance(mw, bool) or not isinstance(mw, int) or mw < 1:
            raise ProblemError(f"min_word must be a whole number >= 1 (or false), not {mw!r}", source=source)
        kw["min_word"] = mw
        for key in ("checked", "connected", "no_black_lines"):
            v = data.get(key, True)
            if not isinstance(v, bool):
                raise ProblemError(f"{key} must be true or false, not {v!r}", source=source)
            kw[key] = v
        return cls(**kw)

    def describe(self) -> str:
        parts = [f"min word {self.min_word}" if self.min_word > 2 else "no min word"]
        parts += [name for name, on in (
            ("checked", self.checked), ("connected", self.connected), ("no black lines", self.no_black_lines)
        ) if on]
        return ", ".join(parts)


def violation(grid: Grid, rules: Rules) -> str | None:
    """The first rule ``grid`` breaks, as a sentence with 1-based squares, or None."""
    R, C = grid.rows, grid.cols
    if all(grid.black):
        return "the grid has no white square"
    for r in range(R):
        for c in range(C):
            if grid.is_black(r, c):
                continue
            h = _run(grid, r, c, 0, 1)
            v = _run(grid, r, c, 1, 0)
            if rules.checked and (h < 2 or v < 2):
                return f"square ({r + 1}, {c + 1}) is not in both an Across and a Down word"
            if 2 <= h < rules.min_word:
                return f"the Across word through ({r + 1}, {c + 1}) is shorter than {rules.min_word}"
            if 2 <= v < rules.min_word:
                return f"the Down word through ({r + 1}, {c + 1}) is shorter than {rules.min_word}"
    if rules.no_black_lines:
        for r in range(R):
            if all(grid.is_black(r, c) for c in range(C)):
                return f"row {r + 1} is entirely black"
        for c in range(C):
            if all(grid.is_black(r, c) for r in range(R)):
                return f"column {c + 1} is entirely black"
    if rules.connected:
        whites = set(grid.white_squares())
        if whites:
            seen = {next(iter(whites))}
            todo = list(seen)
            while todo:
                r, c = todo.pop()
                for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                    if nb in whites and nb not in seen:
                        seen.add(nb)
                        todo.append(nb)
            if len(seen) != len(whites):
                return "the white squares are not connected"
    return None


def _run(grid: Grid, r: int, c: int, dr: int, dc: int) -> int:
    """The length of the white run through (r, c) along (dr, dc)."""
    n = 1
    rr, cc = r - dr, c - dc
    while not grid.is_black(rr, cc):
        n += 1
        rr, cc = rr - dr, cc - dc
    rr, cc = r + dr, c + dc
    while not grid.is_black(rr, cc):
        n += 1
        rr, cc = rr + dr, cc + dc
    return n
