"""The regions of a board's free cells around a placement, flooded bit-parallel: the
board held as the bits of one integer, every region grown a step at a time by shifts
(``spread``: a set of cells and their neighbours), until it grows no more.  Shared by the
square and cubic boards (:mod:`.regions`) and those of triangles and hexagons
(:mod:`.lattice_regions`), which differ only in their shifts."""
from __future__ import annotations

from typing import Callable, Iterator


def region_sizes(placed: int, free: int, spread: Callable[[int], int]) -> Iterator[int]:
    """The sizes of the regions of ``free`` less ``placed`` that touch ``placed``, a
    region at a time (a caller may stop at the first it cannot use)."""
    rest = free & ~placed
    seeds = spread(placed) & rest
    while seeds:
        region = seeds & -seeds
        while True:
            grown = spread(region) & rest
            if grown == region:
                break
            region = grown
        yield region.bit_count()
        seeds &= ~region
