"""Problem-specific pruning the kernel applies on its hot path.

:class:`RegionRule` is the tile-puzzle seed's common-divisor rule, generalised: at every
node, each connected region of empty board cells must be fillable by the pieces that can
still be placed — at least as large as the smallest of them, and a multiple of the
greatest common divisor of their sizes.  A node that breaks it is a dead end.  It is
sound only where every board cell must be covered (the polyform ``fill`` goal).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RegionRule:
    """Board geometry for region pruning, in item indices of an :class:`ExactCover`."""

    #: item index of each board cell
    cells: tuple[int, ...]
    #: for each cell (by position in ``cells``), the positions of its orthogonal neighbours
    neighbors: tuple[tuple[int, ...], ...]
    #: the kinds of piece that may still be placed: ``(size, item)`` where ``item`` is the
    #: piece's primary item (the kind is available while that item is not saturated), or
    #: ``-1`` for a piece in unlimited supply
    pieces: tuple[tuple[int, int], ...]

    def __post_init__(self) -> None:
        if len(self.neighbors) != len(self.cells):
            raise ValueError("RegionRule needs one neighbour list per cell")
        for nb in self.neighbors:
            for j in nb:
                if not 0 <= j < len(self.cells):
                    raise ValueError(f"RegionRule neighbour {j} is not a cell position")
        for size, _ in self.pieces:
            if size < 1:
                raise ValueError("RegionRule piece sizes must be positive")
