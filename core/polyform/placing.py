"""The placements of pieces on a square or cubic board: every form of every kind moved
onto the free cells, less those that wall off a region the other pieces cannot fill (fill
goal) or that leave less room than they need (pack goal).

:func:`place` does it in C (:mod:`core.polyform._placements`, whose header explains the
exact region growth), a chunk of anchor cells at a time so that progress is reported
between chunks; :func:`place_reference` is the pure-Python contract beside it, with the
regions of :mod:`.regions`, for differential tests.  Both give ``(kind, cells)`` with the
cells as sorted indices into :attr:`Board.order`.

They differ only on big boards: the reference stops growing a split's regions past
:data:`.regions.GROW_AT_MOST` cells and then keeps the placement unless a region that
finished is unusable, where the C growth is exact and drops it (tetrominoes-2x400: 1,790
placements against the reference's 3,545).  A placement dropped that way walls off a
region no combination of the pieces fills, so no solution uses it and no count changes.

Measured (2026-12-04, the project's 2-core x86_64 machine): see docs/kernel.md, "Placing
the pieces".
"""
from __future__ import annotations

from typing import Callable, Iterable, Sequence

from ..build_progress import report
from ._placements import Grid
from .board import Board
from .regions import Regions
from .shapes import Form

#: the stage :func:`core.build_progress.report` names while placing the pieces
PLACING = "placing pieces"
#: report progress each time this many more (piece form, cell) pairs are tried (minus 1):
#: the C side is handed the anchor cells in chunks of this size plus one
REPORT_EVERY = (1 << 12) - 1

#: (kind, sorted indices of its cells in the board's order) of each placement kept
Placed = tuple[int, tuple[int, ...]]


def _ok_bytes(areas: int, n: int) -> bytes:
    """A byte per area 0..n: 1 where the bitset ``areas`` has it."""
    bits = format(areas & ((1 << (n + 1)) - 1), "b")[::-1].ljust(n + 1, "0")
    return bits.encode().translate(_BITS)


_BITS = bytes.maketrans(b"01", b"\x00\x01")


def place(board: Board, forms: Sequence[Sequence[Form]], fill: bool, sums: Callable[[int], int],
          remaining: Sequence[int]) -> list[Placed]:
    """The placements kept, in the order kind, form, anchor cell: ``forms`` the orientations
    of each kind, ``sums(k)`` the areas the pieces can cover less one copy of kind ``k`` (a
    bitset), ``remaining[k]`` the area they still must cover once it is placed (pack goal)."""
    order = board.order
    n = len(order)
    grid = Grid(board.layers, board.rows, board.cols, order)
    chunk = REPORT_EVERY + 1
    tried, to_try = 0, sum(len(f) for f in forms) * n
    report(PLACING, 0, to_try)
    out: list[Placed] = []
    for k, kind_forms in enumerate(forms):
        ok = _ok_bytes(sums(k), n)
        for form in kind_forms:
            for start in range(0, n, chunk):
                out.extend((k, cells) for cells in grid.place(form, start, start + chunk, ok, remaining[k], fill))
                tried += min(chunk, n - start)
                if tried < to_try:
                    report(PLACING, tried, to_try)
    report(PLACING, to_try, to_try)
    return out


def place_reference(board: Board, forms: Sequence[Sequence[Form]], fill: bool, sums: Callable[[int], int],
                    remaining: Sequence[int]) -> list[Placed]:
    """:func:`place` in Python, with :class:`.regions.Regions` (its growth capped)."""
    regions = Regions(board)
    index = board.index
    n = len(board.order)
    out: list[Placed] = []
    for k, kind_forms in enumerate(forms):
        ok = sums(k)
        for form in kind_forms:
            a = form[0]
            for b in board.order:
                move = (b[0] - a[0], b[1] - a[1], b[2] - a[2])
                cells = [(z + move[0], y + move[1], x + move[2]) for z, y, x in form]
                if not all(c in index for c in cells):
                    continue
                if room_left(regions.touching(form, move), ok, fill, n - len(cells), remaining[k]):
                    out.append((k, tuple(sorted(index[c] for c in cells))))
    return out


def room_left(regions: Iterable[int], areas: int, fill: bool, free_after: int, need: int) -> bool:
    """Whether the regions a placement touches can still be used: each one an area the
    pieces cover (fill goal); or, packing, the room they can use plus the untouched
    cells at least the area still needed (the rule the C side applies too)."""
    if fill:
        return all(areas >> size & 1 for size in regions)
    sizes = list(regions)
    usable = sum((areas & ((1 << (size + 1)) - 1)).bit_length() - 1 for size in sizes)
    return usable + free_after - sum(sizes) >= need
