"""The grid of an ``.xd`` crossword (plain text), read with ``xdformat``, the reference
parser kept by the format's author.

An .xd file is headers (``Title: ...``), then the grid, then the clues, the sections
apart by two blank lines (or under ``## Metadata`` / ``## Grid`` / ``## Clues``
headings).  Grid squares in ``xdformat.NON_ANSWER_CHARS`` (``#`` a block, ``_`` an open
square outside the puzzle, and their full-width forms) belong to no word, so they are
black here; every other character (a letter, a rebus digit, ``.`` an unknown letter) is
white.  The parser reports malformed input by ``assert`` (a clue line without its
number, grid lines before any header); those become one :class:`ProblemError`, and the
grid it returns is checked here (rows of equal length, a size the search takes), since
the parser does not check it.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import ProblemError
from .grid import Grid
from .puzzle import MAX_SIDE

if TYPE_CHECKING:  # the library is imported when a file is read
    import xdformat


def load(text: str, source: str | None = None) -> "xdformat.xdfile":
    """The parsed .xd file, or one clean error."""
    import xdformat

    try:
        return xdformat.xdfile(text, filename=None)
    except (AssertionError, xdformat.Error, ValueError, IndexError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else "it does not follow the .xd layout"
        raise ProblemError(f"bad .xd file: {why}", source=source) from None


def grid_of(xd: "xdformat.xdfile", source: str | None = None) -> Grid:
    """The black squares of a parsed .xd file."""
    rows = xd.grid
    if not rows:
        raise ProblemError("bad .xd file: no grid (headers, two blank lines, then the grid)", source=source)
    cols = len(rows[0])
    for i, row in enumerate(rows):
        if len(row) != cols:
            raise ProblemError(f"bad .xd file: grid row {i + 1} has {len(row)} squares, the first row {cols}",
                               source=source)
    if len(rows) > MAX_SIDE or cols > MAX_SIDE:
        raise ProblemError(f"bad .xd file: a {len(rows)}x{cols} grid (at most {MAX_SIDE} a side)", source=source)
    from xdformat import NON_ANSWER_CHARS  # (# a block, _ an open square outside the answer)

    black = frozenset(NON_ANSWER_CHARS)
    return Grid(len(rows), cols, tuple(ch in black for row in rows for ch in row))


def read_grid(text: str, source: str | None = None) -> Grid:
    """The grid of an .xd file's text."""
    return grid_of(load(text, source), source)
