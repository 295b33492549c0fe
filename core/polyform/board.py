"""Boards: a grid of free and blocked cells in the plane or in space.

Text form (the tile-puzzle seed's): ``-`` or ``.`` a free cell, ``#`` a blocked one;
layers of a box separated by a blank line.  Cells are ``(z, y, x)``; a plane board has
one layer and ``space == 2``.  A board of triangles or hexagons (``lattice``, see
:mod:`.lattice`; its shapes and drawings in :mod:`.lattice_boards`) is a plane board
whose cells are its drawing's characters.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ..errors import ProblemError
from .lattice import SQUARE, drawing, lattice
from .shapes import NEIGHBOUR_STEPS, Cell, split_layers

FREE = "-."
BLOCKED = "#"
#: the most cells a ``size = [...]`` board may have: a board of more has more placements
#: than the kernel's tables hold (a bitset of the cells per placement, about a placement
#: per cell for the smallest piece: past :data:`core.kernel.MAX_KERNEL_BYTES`), so it is
#: refused before its cells are listed (a 2000x2000 board took 7 s and 0.5 GB to list)
MAX_BOARD_CELLS = 180_000


@dataclass(frozen=True)
class Board:
    """Free cells inside a ``layers x rows x cols`` box."""

    layers: int
    rows: int
    cols: int
    free: frozenset[Cell]
    space: int = 2
    #: ``"square"`` (squares, or cubes in a box), ``"triangle"`` or ``"hexagon"``
    lattice: str = SQUARE

    @classmethod
    def of_size(cls, dims: list[int] | tuple[int, ...]) -> "Board":
        if len(dims) == 2:
            nz, (ny, nx) = 1, dims
        elif len(dims) == 3:
            nz, ny, nx = dims
        else:
            raise ProblemError("size must be [rows, cols] or [layers, rows, cols]")
        if min(nz, ny, nx) < 1:
            raise ProblemError("every side of the board must be at least 1")
        if nz * ny * nx > MAX_BOARD_CELLS:
            raise ProblemError(f"size: {nz * ny * nx:,} cells; a board has at most {MAX_BOARD_CELLS:,} "
                               "(the cover of a bigger one would not fit in memory)")
        free = frozenset((z, y, x) for z in range(nz) for y in range(ny) for x in range(nx))
        return cls(nz, ny, nx, free, 3 if len(dims) == 3 else 2)

    @classmethod
    def from_text(cls, text: str, *, first_line: int | None = None) -> "Board":
        """Parse a board matrix; errors carry ``first_line + offset`` as their line."""
        def where(n: int) -> int | None:
            return None if first_line is None else first_line + n

        layers = split_layers(text)
        if not layers:
            raise ProblemError("the board is empty", line=where(0))
        rows = max(len(layer) for layer in layers)
        cols = max(len(line) for layer in layers for _, line in layer)
        free = set()
        for z, layer in enumerate(layers):
            for y, (n, line) in enumerate(layer):
                for x, ch in enumerate(line):
                    if ch in FREE:
                        free.add((z, y, x))
                    elif ch not in BLOCKED:
                        raise ProblemError(
                            f"board: unexpected character {ch!r} (use '-' or '.' for free, '#' for blocked)",
                            line=where(n),
                        )
        if not free:
            raise ProblemError("the board has no free cell", line=where(0))
        return cls(len(layers), rows, cols, frozenset(free), 3 if len(layers) > 1 else 2)

    # ------------------------------------------------------------------ views
    @property
    def dims(self) -> tuple[int, ...]:
        return (self.layers, self.rows, self.cols) if self.space == 3 else (self.rows, self.cols)

    @cached_property
    def order(self) -> tuple[Cell, ...]:
        """Free cells in search order: the longest axis outermost, the shortest innermost,
        so a lowest-cell-first search fills the board along its short side."""
        # a triangle or a hexagon takes two columns of the drawing
        sizes = (self.layers, self.rows, self.cols if self.lattice == SQUARE else self.cols // 2)
        axes = sorted(range(3), key=lambda a: (-sizes[a], a))
        return tuple(sorted(self.free, key=lambda c: tuple(c[a] for a in axes)))

    @cached_property
    def index(self) -> dict[Cell, int]:
        return {c: i for i, c in enumerate(self.order)}

    def neighbours(self, cell: Cell) -> list[Cell]:
        grid = lattice(self.lattice)
        if grid is not None:
            return [n for n in grid.neighbours(cell) if n in self.free]
        z, y, x = cell
        out = []
        for dz, dy, dx in NEIGHBOUR_STEPS:
            n = (z + dz, y + dy, x + dx)
            if n in self.free:
                out.append(n)
        return out

    def cell_name(self, cell: Cell) -> str:
        z, y, x = cell
        return f"r{y}c{x}" if self.space == 2 else f"l{z}r{y}c{x}"

    def text(self) -> str:
        """The board as a ``-``/``#`` matrix (a drawing of ``-`` on a plane lattice)."""
        if self.lattice != SQUARE:
            return drawing(self.lattice, {c: "-" for c in self.free}, " ")
        layers = [
            "\n".join(
                "".join("-" if (z, y, x) in self.free else "#" for x in range(self.cols))
                for y in range(self.rows)
            )
            for z in range(self.layers)
        ]
        return "\n\n".join(layers)
