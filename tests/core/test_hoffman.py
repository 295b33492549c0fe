"""Hoffman's 27 blocks (core/hoffman.py): the library's cover finds exactly the packings
that bench/hoffman_grid.py finds a second way (every arrangement of widths on the grid,
placed, overlaps thrown out), and those are the published 21 up to the cube's 48
symmetries (Hoffman, 1981).  Each solution is read back into boxes with this test's own
reading of the option names (place, widths, start), not from the cells the cover uses
against overlaps."""
from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from core.hoffman import hoffman_dlx, within_theorem
from core.kernel import KernelSolver
from core.library import load, named_spec
from core.dlx_format import parse_dlx

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import hoffman_grid as second  # noqa: E402  (the second method)

WIDTH = re.compile(r"([xyz])(\d)(\d)w(\d+)")


def boxes_of(ec, path, side: int) -> frozenset:
    """The boxes of a solution as bench/hoffman_grid.py writes them (x, y, z, widths), from
    its options' item names alone: the place ``pIJK``, the width along each axis
    (``xJKwW``), and the start — 0 first on a line, the first block's width (the color of
    ``xJKfirst``) second, the side less its own width third."""
    boxes = []
    for o in path:
        names = {ec.items[item]: ec.colors[color] for item, color in ec.options[o]}
        (place,) = [n for n in names if re.fullmatch(r"p\d\d\d", n)]
        grid = tuple(int(ch) for ch in place[1:])
        widths = [0, 0, 0]
        for n in names:
            m = WIDTH.fullmatch(n)
            if m:
                widths["xyz".index(m.group(1))] = int(m.group(4))
        start = []
        for axis, letter in enumerate("xyz"):
            u, v = (grid[d] for d in range(3) if d != axis)
            n = grid[axis]
            start.append(0 if n == 0 else int(names[f"{letter}{u}{v}first"]) if n == 1 else side - widths[axis])
        boxes.append((*start, tuple(widths)))
    return frozenset(boxes)


def _packings(widths) -> list[frozenset]:
    ec = parse_dlx(hoffman_dlx(*widths))
    return [boxes_of(ec, path, sum(widths)) for path in KernelSolver(ec).solutions()]


def test_the_cover_finds_the_packings_found_a_second_way():
    found = _packings((4, 5, 6))
    arrangements = second.arrangements((4, 5, 6))
    assert len(arrangements) == 46_272
    assert set(found) == {p for p in map(second.packing, arrangements) if p is not None}


@pytest.mark.parametrize("widths", [(4, 5, 6), (5, 6, 7)])
def test_the_cover_counts_hoffmans_21_packings_up_to_symmetry(widths):
    found = _packings(widths)
    assert len(set(found)) == len(found) == 21 * 48  # none symmetric
    assert second.classes(set(found), sum(widths)) == 21  # every image of one is found too


def test_the_library_entry_and_the_names():
    problem = load("hoffman-4x5x6")
    assert problem.solver().count() == 1008
    assert named_spec("hoffman-5x6x7")["text"] == hoffman_dlx(5, 6, 7)
    for outside in ("hoffman-4x4x6", "hoffman-2x3x9", "hoffman-6x5x4", "hoffman-40x50x60"):
        assert named_spec(outside) is None
    assert not within_theorem(3, 4, 6) and within_theorem(7, 8, 9)
    with pytest.raises(ValueError, match="a < b < c"):
        hoffman_dlx(2, 3, 9)
