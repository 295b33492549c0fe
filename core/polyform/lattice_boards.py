"""Boards and drawings of the triangle and hexagon lattices: the parallelogram, the
triangle and the hexagon of a given side, and boards or pieces drawn as text (see
:mod:`.lattice` for the drawing: a character per cell, hexagons at every other column).

Sizes, in cells: on triangles a parallelogram ``[a, b]`` holds ``2ab``, a triangle of
side ``n`` holds ``n^2``, a hexagon of side ``n`` holds ``6n^2``; on hexagons ``ab``,
``n(n+1)/2`` and ``3n(n-1)+1``.
"""
from __future__ import annotations

from typing import Callable, Iterable

from ..errors import ProblemError
from .board import MAX_BOARD_CELLS, Board
from .lattice import Cell, Form, lattice

#: a drawing's free cells (boards), a piece's cells; what else may stand between them
BOARD_ON, BOARD_OFF = "-.", "# "
PIECE_ON, PIECE_OFF = "#", "-. "


def board_of(name: str, cells: Iterable[Cell]) -> Board:
    """A plane board of lattice ``name`` with these free cells (moved to row 0)."""
    grid = lattice(name)
    if grid is None:
        raise ValueError(f"{name!r} is not a plane lattice")
    free = grid.normalise(cells)
    if not free:
        raise ProblemError("the board has no free cell")
    rows = 1 + max(y for _, y, _ in free)
    cols = 1 + max(x for _, _, x in free)
    return Board(1, rows, cols, frozenset(free), 2, name)


def _parallelogram(name: str, a: int, b: int) -> list[Cell]:
    """``a`` rows of ``b`` rhombi (triangles) or hexagons, each row half a cell left of
    the one below."""
    if name == "triangle":
        return [(0, y, x) for y in range(a) for x in range(-y, -y + 2 * b)]
    return [(0, y, y + 2 * k) for y in range(a) for k in range(b)]


def _triangle(name: str, n: int) -> list[Cell]:
    """The triangle of side ``n``, pointing up."""
    if name == "triangle":
        return [(0, y, x) for y in range(n) for x in range(-y, y + 1)]
    return [(0, y, -y + 2 * k) for y in range(n) for k in range(y + 1)]


def _hexagon(name: str, n: int) -> list[Cell]:
    """The regular hexagon of side ``n``."""
    if name == "triangle":
        top = [(0, y, x) for y in range(n) for x in range(-y, 2 * n + y + 1)]
        bottom = [(0, n + j, x) for j in range(n) for x in range(-(n - 1 - j), 2 * n + (n - 1 - j) + 1)]
        return top + bottom
    return [(0, y, 2 * q + y) for y in range(-(n - 1), n) for q in range(-(n - 1), n) if abs(q + y) <= n - 1]


#: the board shapes a TOML file names: key -> (cells of the shape, how many numbers)
SHAPES: dict[str, tuple[Callable[..., list[Cell]], int]] = {
    "parallelogram": (_parallelogram, 2),
    "triangle": (_triangle, 1),
    "hexagon": (_hexagon, 1),
}


def shaped_board(name: str, shape: str, sides: list[int]) -> Board:
    """The board ``shape`` (a key of :data:`SHAPES`) with these sides."""
    make, count = SHAPES[shape]
    if min(sides) < 1:
        raise ProblemError(f"{shape}: every side must be at least 1")
    if max(sides) > MAX_BOARD_CELLS:
        raise ProblemError(f"{shape}: a side of at most {MAX_BOARD_CELLS:,}")
    cells = make(name, *sides)
    if len(cells) > MAX_BOARD_CELLS:
        raise ProblemError(f"{shape}: {len(cells):,} cells; a board has at most {MAX_BOARD_CELLS:,}")
    return board_of(name, cells)


def parse_drawing(name: str, text: str, *, on: str, off: str, what: str) -> Form:
    """The cells of a drawing on lattice ``name`` (rows counted from its first non-blank
    line, columns from each line's start, as written).  Raises ProblemError with a line
    offset (0-based, relative to ``text``)."""
    lines = text.splitlines()
    first = next((n for n, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return ()
    cells: list[Cell] = []
    where: dict[Cell, int] = {}
    for n in range(first, len(lines)):
        for x, ch in enumerate(lines[n].rstrip()):
            if ch in on:
                cell = (0, n - first, x)
                cells.append(cell)
                where[cell] = n
            elif ch not in off:
                shown = "".join(dict.fromkeys(on + off)).replace(" ", "")
                raise ProblemError(f"{what}: unexpected character {ch!r} (use {shown!r} or spaces)", line=n)
    if name == "hexagon" and cells:
        parity = (cells[0][1] + cells[0][2]) % 2
        for c in cells:
            if (c[1] + c[2]) % 2 != parity:
                raise ProblemError(f"{what}: a hexagon at column {c[2] + 1} is off the grid of the first row's "
                                   "(hexagons stand at every other column, each row shifted by one)", line=where[c])
        cells = [(0, y, x + parity) for _, y, x in cells]
    return lattice(name).normalise(cells)


def drawn_board(name: str, text: str, *, first_line: int | None = None) -> Board:
    """A board drawn on lattice ``name``: ``-`` or ``.`` a free cell, ``#`` or a space
    none; errors carry ``first_line + offset`` as their line."""
    try:
        cells = parse_drawing(name, text, on=BOARD_ON, off=BOARD_OFF, what="board")
    except ProblemError as exc:
        raise ProblemError(exc.message, line=None if first_line is None or exc.line is None
                           else first_line + exc.line) from None
    if not cells:
        raise ProblemError("the board has no free cell", line=first_line)
    return board_of(name, cells)


def toml_board(name: str, data: dict, text: str, source: str | None) -> Board:
    """The board of a TOML problem on lattice ``name``: one of ``board`` (a drawing) or a
    shape key of :data:`SHAPES` (``parallelogram = [a, b]``, ``triangle = n``,
    ``hexagon = n``)."""
    from ..toml_input import key_line, value_first_line

    given = [k for k in ("board", "size", *SHAPES) if k in data]
    if len(given) != 1:
        keys = "board, " + ", ".join(SHAPES)
        raise ProblemError(f"a {name} board needs exactly one of {keys}" + (f" (given: {', '.join(given)})" if given else ""),
                           source=source, line=key_line(text, given[-1]) if given else None)
    key = given[0]
    line = key_line(text, key)
    if key == "size":
        raise ProblemError(f"size is for square boards; a {name} board takes board = \"\"\"...\"\"\" or "
                           f"{', '.join(SHAPES)}", source=source, line=line)
    value = data[key]
    try:
        if key == "board":
            if not isinstance(value, str):
                raise ProblemError(f"board must be a string (a drawing of {name}s: '-' a free cell)")
            return drawn_board(name, value, first_line=value_first_line(text, "board"))
        count = SHAPES[key][1]
        sides = [value] if count == 1 else value
        if not (isinstance(sides, list) and len(sides) == count
                and all(isinstance(v, int) and not isinstance(v, bool) for v in sides)):
            raise ProblemError(f"{key} must be " + ("[rows, cols]" if count == 2 else "a side length (an integer)"))
        return shaped_board(name, key, sides)
    except ProblemError as exc:
        raise exc.located(source, line) from None
