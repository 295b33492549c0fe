"""The regions a placement leaves on a board of triangles or hexagons: what
:class:`.regions.Regions` tells of a square or cubic board (the sizes of the regions of
free cells, less the placement, that touch it), by a flood fill of every region at once
on the board held as the bits of one integer (:mod:`.flood`).

The board sits in a box padded by a row above and below and two columns each side, a bit
per position, so a step to a neighbour is a shift: on hexagons the six shifts (two
columns across, a row less or more one column up and down) move every bit; on triangles
a step across a side moves every bit one column, and a step up or down moves only the
triangles that point that way (their bits masked first).

Past :data:`FILL_AT_MOST` free cells no region is told (an empty answer): dropping a
placement is pruning, not counting, so keeping every placement changes no count, and a
fill per placement over a board that large costs more than it saves.
"""
from __future__ import annotations

from typing import Iterator

from .board import Board
from .flood import region_sizes
from .lattice import Cell, Form

#: boards with more free cells than this are not flood-filled (see the module docstring)
FILL_AT_MOST = 4096


class LatticeRegions:
    """The free cells of one board of triangles or hexagons; :meth:`touching` per
    placement."""

    def __init__(self, board: Board):
        self._row = board.cols + 4
        self.active = len(board.free) <= FILL_AT_MOST
        self._free_bits = sum(self._bit(c) for c in board.free)
        every = (1 << (self._row * (board.rows + 2))) - 1
        if board.lattice == "hexagon":
            r = self._row
            self._steps = tuple((s, every) for s in (2, -2, r + 1, r - 1, -(r + 1), -(r - 1)))
        else:
            up = sum(self._bit((0, y, x)) for y in range(-1, board.rows + 1) for x in range(-2, board.cols + 2)
                     if (y + x) % 2 == 0)
            self._steps = ((1, every), (-1, every), (self._row, up), (-self._row, every & ~up))

    def _bit(self, c: Cell) -> int:
        return 1 << ((c[1] + 1) * self._row + c[2] + 2)

    def _spread(self, m: int) -> int:
        out = m
        for shift, mask in self._steps:
            out |= (m & mask) << shift if shift > 0 else (m & mask) >> -shift
        return out

    def touching(self, form: Form, at: Cell) -> Iterator[int]:
        """The sizes of the regions of free cells, less the placement of ``form`` moved by
        ``at`` (whose cells must be free), that touch the placement, a region at a time
        (a caller may stop at the first it cannot use); none past :data:`FILL_AT_MOST`."""
        if not self.active:
            return
        _, ay, ax = at
        placed = 0
        for _, y, x in form:
            placed |= self._bit((0, ay + y, ax + x))
        yield from region_sizes(placed, self._free_bits, self._spread)
