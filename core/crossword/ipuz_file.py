"""The grid of an ``.ipuz`` crossword (JSON, possibly wrapped as ``ipuz(...)``), read
with the ``ipuz`` library.

The library checks the file against the ipuz specification (mandatory fields, the types
of known fields); the grid is then taken from ``puzzle``: a square is black when it is the
file's ``block`` value (``#`` unless the file says otherwise) or omitted (``null``, a
square that is no part of the puzzle: it ends words like a black one); any other square --
a clue number, the ``empty`` value, a letter, a ``{"cell": ...}`` object -- is white.
"""
from __future__ import annotations

from typing import Any

from ..errors import ProblemError
from .grid import Grid
from .puzzle import MAX_SIDE

#: the start of a crossword's kind URI
CROSSWORD_KIND = "http://ipuz.org/crossword"


def load(text: str, source: str | None = None) -> dict[str, Any]:
    """The checked ipuz data of a file's text, or one clean error (the library is
    imported here, when a file is read)."""
    import ipuz

    try:
        data = ipuz.read(text.strip())
    except ipuz.IPUZException as exc:
        raise ProblemError(f"bad .ipuz file: {str(exc).splitlines()[0] if str(exc) else 'invalid'}",
                           source=source) from None
    except (TypeError, AttributeError, KeyError, ValueError, IndexError) as exc:
        # the library meets a field of an unexpected type (a kind that is not a list, ...)
        raise ProblemError(f"bad .ipuz file: {type(exc).__name__} in its fields", source=source) from None
    kinds = data["kind"]
    if not isinstance(kinds, list) or not any(isinstance(k, str) and k.startswith(CROSSWORD_KIND) for k in kinds):
        raise ProblemError(f"an .ipuz file of kind {kinds!r}, not a crossword", source=source)
    return data


def grid_of(data: dict[str, Any], source: str | None = None) -> Grid:
    """The black squares of checked ipuz crossword data."""
    dims = data.get("dimensions")
    if not isinstance(dims, dict):
        raise ProblemError("bad .ipuz file: no dimensions", source=source)
    cols, rows = dims.get("width"), dims.get("height")
    for name, v in (("width", cols), ("height", rows)):
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_SIDE:
            raise ProblemError(f"bad .ipuz file: dimensions.{name} must be from 1 to {MAX_SIDE}, not {v!r}",
                               source=source)
    puzzle = data.get("puzzle")
    if not isinstance(puzzle, list) or len(puzzle) != rows or any(
            not isinstance(row, list) or len(row) != cols for row in puzzle):
        raise ProblemError(f"bad .ipuz file: puzzle must be {rows} rows of {cols} squares", source=source)
    block = data.get("block", "#")
    return Grid(rows, cols, tuple(_is_black(cell, block) for row in puzzle for cell in row))


def _is_black(cell: object, block: object) -> bool:
    if isinstance(cell, dict):
        cell = cell.get("cell", 0)
    return cell is None or str(cell) == str(block)


def read_grid(text: str, source: str | None = None) -> Grid:
    """The grid of an .ipuz file's text."""
    return grid_of(load(text, source), source)
