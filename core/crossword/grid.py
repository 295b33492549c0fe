"""A crossword grid: black and white squares, their numbers and the clue string.

Vocabulary: a **square** is ``(row, col)``, 0-based inside the code and 1-based in what a
user reads.  A **word** is a run of two or more white squares in a row (Across) or a column
(Down), ended by black squares or the edge (squares outside the grid count as black).  A
white square gets the next **number** in reading order when it starts a word.  The **clue
string** has one letter per number: ``A`` Across only, ``D`` Down only, ``Z`` both.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from ..errors import ProblemError

BLACK_CHARS = "#"
WHITE_CHARS = ".-_"
LETTERS = "ADZ"


@dataclass(frozen=True)
class Number:
    """One numbered square: its number, 0-based row and column, and its letter."""

    number: int
    row: int
    col: int
    letter: str


@dataclass(frozen=True)
class Grid:
    """Rows x cols squares; ``black[r * cols + c]`` is True for a black square."""

    rows: int
    cols: int
    black: tuple[bool, ...]

    def __post_init__(self) -> None:
        if len(self.black) != self.rows * self.cols:
            raise ValueError(f"a {self.rows}x{self.cols} grid needs {self.rows * self.cols} squares")

    # -- reading -------------------------------------------------------------
    @classmethod
    def from_text(cls, text: str, source: str | None = None, first_line: int = 1) -> "Grid":
        """Rows of ``#`` (black) and ``.`` (white); blank lines are skipped.  Any other
        character that is not a letter is an error (letters count as white, so a filled
        grid reads too)."""
        rows: list[list[bool]] = []
        for i, line in enumerate(text.splitlines()):
            s = line.strip()
            if not s:
                continue
            row = []
            for ch in s:
                if ch in BLACK_CHARS:
                    row.append(True)
                elif ch in WHITE_CHARS or ch.isalpha():
                    row.append(False)
                elif ch.isspace():
                    continue
                else:
                    raise ProblemError(
                        f"unknown square {ch!r} in a grid (use '#' for black, '.' for white)",
                        source=source, line=first_line + i,
                    )
            if rows and len(row) != len(rows[0]):
                raise ProblemError(
                    f"grid row has {len(row)} squares, the first row has {len(rows[0])}",
                    source=source, line=first_line + i,
                )
            rows.append(row)
        if not rows:
            raise ProblemError("the grid is empty", source=source)
        return cls(len(rows), len(rows[0]), tuple(b for row in rows for b in row))

    def to_text(self) -> str:
        """Rows of ``#`` and ``.``."""
        return "\n".join(
            "".join("#" if self.black[r * self.cols + c] else "." for c in range(self.cols))
            for r in range(self.rows)
        )

    # -- geometry --------------------------------------------------------------
    def is_black(self, r: int, c: int) -> bool:
        """True outside the grid, so the edge acts as a black square."""
        return not (0 <= r < self.rows and 0 <= c < self.cols) or self.black[r * self.cols + c]

    def white_squares(self) -> Iterator[tuple[int, int]]:
        for r in range(self.rows):
            for c in range(self.cols):
                if not self.black[r * self.cols + c]:
                    yield r, c

    def starts(self, r: int, c: int) -> tuple[bool, bool]:
        """Whether white square (r, c) starts an Across word and a Down word."""
        if self.is_black(r, c):
            return False, False
        across = self.is_black(r, c - 1) and not self.is_black(r, c + 1)
        down = self.is_black(r - 1, c) and not self.is_black(r + 1, c)
        return across, down

    # -- numbers ----------------------------------------------------------------
    def numbering(self) -> list[Number]:
        """The numbered squares in reading order."""
        out: list[Number] = []
        for r in range(self.rows):
            for c in range(self.cols):
                a, d = self.starts(r, c)
                if a or d:
                    out.append(Number(len(out) + 1, r, c, "Z" if a and d else "A" if a else "D"))
        return out

    def clue_string(self) -> str:
        """One letter per number: A, D or Z."""
        return "".join(n.letter for n in self.numbering())

    def first_square(self) -> int | None:
        """The 1-based row-major index of the square numbered 1, or None."""
        nums = self.numbering()
        return nums[0].row * self.cols + nums[0].col + 1 if nums else None

    def words(self) -> list[tuple[str, int, int, int]]:
        """Every word: (direction 'A'/'D', row, col, length)."""
        out = []
        for r in range(self.rows):
            for c in range(self.cols):
                a, d = self.starts(r, c)
                if a:
                    n = 0
                    while not self.is_black(r, c + n):
                        n += 1
                    out.append(("A", r, c, n))
                if d:
                    n = 0
                    while not self.is_black(r + n, c):
                        n += 1
                    out.append(("D", r, c, n))
        return out
