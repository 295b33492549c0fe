"""The placements of pieces on a board of triangles or hexagons: every form of every
kind moved onto the board by the lattice's translations (a triangle keeps its direction),
less those that wall off a region the other pieces cannot fill (fill goal) or leave less
room than they need (pack goal) — the rule the square and cubic boards apply in
:meth:`.problem.PolyformProblem._compiled`, with the regions of :mod:`.lattice_regions`."""
from __future__ import annotations

from typing import Callable, Sequence

from ..build_progress import report
from .board import Board
from .lattice import Cell, Form, lattice
from .lattice_regions import LatticeRegions
from .placing import PLACING, REPORT_EVERY, room_left


def lattice_placements(board: Board, forms: Sequence[Sequence[Form]], fill: bool, sums: Callable[[int], int],
                       remaining: Sequence[int]) -> list[tuple[int, frozenset[Cell]]]:
    """(kind, cells) of each placement kept: ``forms`` the orientations of each kind,
    ``sums(k)`` the areas the pieces can cover less one copy of kind ``k`` (a bitset),
    ``remaining[k]`` the area they still must cover once it is placed (pack goal).
    Reports how many (form, cell) pairs are tried (:data:`.placing.PLACING`) at the start,
    every :data:`.placing.REPORT_EVERY` plus one and at the end, as the square boards do."""
    grid = lattice(board.lattice)
    regions = LatticeRegions(board)
    room = len(board.free)
    out: list[tuple[int, frozenset[Cell]]] = []
    tried, to_try = 0, sum(len(kind_forms) for kind_forms in forms) * len(board.order)
    report(PLACING, 0, to_try)
    for k, kind_forms in enumerate(forms):
        areas = sums(k)
        for form in kind_forms:
            _, ay, ax = form[0]
            seen: set[frozenset[Cell]] = set()
            for _, by, bx in board.order:
                tried += 1
                if not tried & REPORT_EVERY:
                    report(PLACING, tried, to_try)
                move = (0, by - ay, bx - ax)
                if not grid.is_translation(move):
                    continue
                cells = frozenset((0, y + move[1], x + move[2]) for _, y, x in form)
                if cells in seen or not cells <= board.free:
                    continue
                seen.add(cells)
                if room_left(regions.touching(form, move), areas, fill, room - len(cells), remaining[k]):
                    out.append((k, cells))
    report(PLACING, to_try, to_try)
    return out

