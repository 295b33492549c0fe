"""The regions of free cells a placement leaves: the sizes of the connected regions of
the board's free cells, less the placement's cells, that touch the placement.

The pure-Python reference of the placements' region rule
(:func:`.placing.place_reference`; the compile itself asks the C side,
core/polyform/_placements.c, whose growth is exact), to drop those that wall off a region
no combination of the pieces can fill.  Removing a placement from its region
``K`` of free cells splits ``K`` only if the free cells next to the placement (its
*seeds*) fall apart: every cell of ``K`` less the placement reaches a seed.  So:

* when the seeds stay connected through the cells around the placement (those within
  one step in every axis), ``K`` less the placement is one region, of known size — no
  flood fill.  Whether they do depends only on the form and on which of those cells are
  free, so the answer is remembered per (form, pattern of free cells): on an open board
  a few patterns serve every placement;
* otherwise the seeds' regions are grown breadth first in lockstep, merging on contact;
  once one is left growing, its size is ``K``'s less the others'.  Past
  :data:`GROW_AT_MOST` cells grown with two or more still growing, the growth stops and
  only the regions that finished are told: the placement is kept unless one of those is
  of a size the pieces cannot fill.  Dropping placements is pruning, not counting — a
  placement kept that no solution uses changes no count — and on a long thin board
  the lockstep growth costs the smaller side, placement after placement (the 2x1000
  domino strip: 13 s in all, every split one an even size both sides).

A small board (at most :data:`BITWISE_CELLS` cells in its padded box) is flood-filled
instead, a step of every region at once per shift of one integer holding the board as
bits: there a fill costs a few machine words, less than the test above.  Measured and
dropped (2026-12-03): the window test first on those boards too, its pattern read off
the bits by one shift and remembered — on small boards most placements touch an edge,
so the patterns hardly repeat (564 for the 6x10's 2,056 placements) and the compile
took as long (6x10) or up to 2.4x longer (the 8x8 less its centre 1.6x, the pentacube
box 2.4x).

Measured on the project's 2-core x86_64 machine (2026-11-27, busy with other jobs): the
200x200 domino board's 79,600 placements in 2.6 s, and the 60x60 board's in 0.26-0.39 s
where the bit-parallel flood fill of the whole board per placement (the design before,
still used for small boards) took 2.8-4.6 s; it grows with the square of the cells (and
more), so the 200x200 took minutes.
"""
from __future__ import annotations

from collections import deque
from itertools import product
from typing import Iterable, Iterator

from .board import Board
from .flood import region_sizes
from .shapes import NEIGHBOUR_STEPS, Cell, Form


#: the lockstep growth of a split's regions stops past this many cells grown (see above)
GROW_AT_MOST = 256
#: boards of at most this many cells in their padded box are flood-filled bit-parallel
#: (measured 2026-11-27: the 6x10 pentomino box, 96, in 97 ms against 135 ms by the local
#: test; the 20x20 domino board, 484, in 47 ms against 13 ms)
BITWISE_CELLS = 256


class Regions:
    """The free cells of one board, split into regions once; :meth:`touching` per
    placement."""

    def __init__(self, board: Board):
        self.free = board.free
        self.space = board.space
        # the padded box, one bit per cell, for the bit-parallel fill of small boards
        self._row = board.cols + 2
        self._layer = self._row * (board.rows + 2)
        self.bitwise = self._layer * (board.layers + 2 if board.space == 3 else 1) <= BITWISE_CELLS
        if self.bitwise:
            self._steps = (1, self._row, self._layer) if board.space == 3 else (1, self._row)
            self._free_bits = sum(self._bit(c) for c in board.free)
        self.region_of: dict[Cell, int] = {}
        self.region_size: list[int] = []
        for cell in board.order:
            if cell not in self.region_of:
                self.region_size.append(self._label(cell, len(self.region_size)))
        #: form -> (window offsets, the offsets of the seeds, the window's adjacency)
        self._windows: dict[Form, tuple[tuple[Cell, ...], tuple[int, ...], tuple[tuple[int, ...], ...]]] = {}
        #: (form, free pattern of its window) -> whether the seeds stay connected there
        self._connected: dict[tuple[Form, int], bool] = {}

    def _label(self, start: Cell, region: int) -> int:
        """Mark the region of ``start``; its size."""
        self.region_of[start] = region
        queue = deque([start])
        size = 0
        while queue:
            c = queue.popleft()
            size += 1
            for n in self._free_neighbours(c):
                if n not in self.region_of:
                    self.region_of[n] = region
                    queue.append(n)
        return size

    def _free_neighbours(self, c: Cell) -> Iterable[Cell]:
        z, y, x = c
        for dz, dy, dx in NEIGHBOUR_STEPS:
            n = (z + dz, y + dy, x + dx)
            if n in self.free:
                yield n

    def touching(self, form: Form, at: Cell) -> Iterable[int]:
        """The sizes of the regions of free cells, less the placement of ``form`` moved by
        ``at`` (whose cells must be free), that touch the placement."""
        if self.bitwise:
            return self._fill_bitwise(form, at)
        offsets, seed_slots, adjacency = self._window(form)
        az, ay, ax = at
        pattern = 0
        for k, (dz, dy, dx) in enumerate(offsets):
            if (az + dz, ay + dy, ax + dx) in self.free:
                pattern |= 1 << k
        seeds = [k for k in seed_slots if pattern >> k & 1]
        if not seeds:
            return []
        region = self.region_size[self.region_of[(az + form[0][0], ay + form[0][1], ax + form[0][2])]]
        whole = region - len(form)
        key = (form, pattern)
        connected = self._connected.get(key)
        if connected is None:
            connected = self._connected[key] = _reaches_all(seeds, adjacency, pattern)
        if connected:
            return [whole]
        placed = {(az + z, ay + y, ax + x) for z, y, x in form}
        return self._grow_apart([(az + offsets[k][0], ay + offsets[k][1], ax + offsets[k][2]) for k in seeds],
                                placed, whole)

    def _bit(self, c: Cell) -> int:
        return 1 << ((c[0] + 1) * self._layer + (c[1] + 1) * self._row + (c[2] + 1))

    def _spread(self, m: int) -> int:
        out = m
        for s in self._steps:
            out |= (m << s) | (m >> s)
        return out

    def _fill_bitwise(self, form: Form, at: Cell) -> Iterator[int]:
        """:meth:`touching` by flooding every region at once on the board's bits, a region
        at a time (a caller may stop at the first it cannot use)."""
        az, ay, ax = at
        placed = 0
        for z, y, x in form:
            placed |= self._bit((az + z, ay + y, ax + x))
        yield from region_sizes(placed, self._free_bits, self._spread)

    def _window(self, form: Form):
        """The cells within one step (in every axis) of ``form``, less its own, as
        offsets; which of them are next to it; which are next to each other."""
        found = self._windows.get(form)
        if found is not None:
            return found
        own = set(form)
        steps = list(product((-1, 0, 1), repeat=3)) if self.space == 3 else [(0, dy, dx) for dy in (-1, 0, 1)
                                                                             for dx in (-1, 0, 1)]
        offsets = sorted({(z + dz, y + dy, x + dx) for z, y, x in form for dz, dy, dx in steps} - own)
        slot = {o: k for k, o in enumerate(offsets)}
        seeds = tuple(k for k, (z, y, x) in enumerate(offsets)
                      if any((z + dz, y + dy, x + dx) in own for dz, dy, dx in NEIGHBOUR_STEPS))
        adjacency = tuple(tuple(slot[n] for n in ((z + dz, y + dy, x + dx) for dz, dy, dx in NEIGHBOUR_STEPS)
                                if n in slot) for z, y, x in offsets)
        found = self._windows[form] = (tuple(offsets), seeds, adjacency)
        return found

    def _grow_apart(self, seeds: list[Cell], placed: set[Cell], whole: int) -> list[int]:
        """The sizes of the regions of the seeds, which together hold ``whole`` cells:
        grown a layer at a time side by side, merged where they meet, until at most one
        is still growing (its size is what the finished ones leave of ``whole``); past
        :data:`GROW_AT_MOST` cells grown, the sizes of those that finished."""
        parent = list(range(len(seeds)))

        def root(g: int) -> int:
            while parent[g] != g:
                parent[g] = parent[parent[g]]
                g = parent[g]
            return g

        owner = {s: g for g, s in enumerate(seeds)}
        size = [1] * len(seeds)
        grown = len(seeds)
        frontier: list[list[Cell]] = [[s] for s in seeds]
        while True:
            roots = {root(g) for g in range(len(seeds))}
            growing = [g for g in roots if frontier[g]]
            if len(growing) <= 1:
                break
            if grown > GROW_AT_MOST:
                return [size[g] for g in roots if not frontier[g]]
            for g in growing:
                g = root(g)
                layer, frontier[g] = frontier[g], []
                for c in layer:
                    for n in self._free_neighbours(c):
                        if n in placed:
                            continue
                        o = owner.get(n)
                        if o is None:
                            owner[n] = g
                            size[g] += 1
                            grown += 1
                            frontier[g].append(n)
                        elif (h := root(o)) != g:
                            parent[h] = g
                            size[g] += size[h]
                            frontier[g].extend(frontier[h])
                            frontier[h] = []
        finished = [size[g] for g in roots if not frontier[g]]
        return finished + [whole - sum(finished) for g in roots if frontier[g]]


def _reaches_all(seeds: list[int], adjacency: tuple[tuple[int, ...], ...], pattern: int) -> bool:
    """Whether the seeds are connected through the free slots of a window."""
    seen = 1 << seeds[0]
    stack = [seeds[0]]
    while stack:
        k = stack.pop()
        for n in adjacency[k]:
            if pattern >> n & 1 and not seen >> n & 1:
                seen |= 1 << n
                stack.append(n)
    return all(seen >> k & 1 for k in seeds)
