"""The classics (issue 42): every count of core/polyform/classics.py against its published
figure (sources in docs/models.md).

Published counts come in two conventions.  Up to every symmetry of the board that keeps
the piece set (what ``distinct`` counts) for the pentomino boards, the flat pentacube
boxes, the Diabolical cube, the Slothouber-Graatsma puzzle and the hexiamond and
tetrahex figures (Polyform Puzzler); up to rotation only for the Soma figures and the
tetracube boxes (Polyform Puzzler) and the Bedlam and Tetris cubes (Kurowski).  The
rotation classes are counted here by Burnside's lemma over the enumerated solutions,
with this suite's own geometry (tests/core/polyform_check.py).  Conway's puzzle has no
published count: it is checked against a cover built here without the polyform model.
"""
from __future__ import annotations

import os
import sys
from itertools import permutations, product

import pytest

from core.exact_cover import ExactCover  # noqa: E402
from core.kernel import KernelSolver  # noqa: E402
from core.library import library, load  # noqa: E402
from core.polyform.classics import CLASSICS  # noqa: E402

sys.path.insert(0, os.path.dirname(__file__))
import polyform_check as pc  # noqa: E402

#: published counts up to every symmetry of the board and piece set
DISTINCT = {
    "pentomino-8x8-corners": 2170,
    "pentomino-8x8-holes-1": 188,
    "pentomino-8x8-holes-2": 21,
    "pentomino-8x8-holes-3": 126,
    "pentomino-8x8-holes-4": 74,
    "pentomino-8x8-tetromino": 16146,
    "pentacubes-2x3x10": 12,
    "pentacubes-2x5x6": 264,
    "diabolical-cube": 13,
    "slothouber-graatsma": 1,
    # on triangles and hexagons (Polyform Puzzler's counts)
    "hexiamonds-6x6": 156, "hexiamonds-4x9": 74, "hexiamonds-3x12": 0, "hexiamonds-trapezium-4x11": 76,
    "hexiamonds-long-hexagon": 856, "hexiamonds-irregular-hexagon": 5885, "hexiamonds-stacked-long-hexagons": 378,
    "hexiamonds-stacked-long-butterflies": 290, "hexiamonds-stacked-hexagons": 51, "hexiamonds-crescent": 87,
    "hexiamonds-ring": 11, "hexiamonds-coin": 304, "hexiamonds-tenyo": 4968,
    "tetrahexes-4x7": 9, "tetrahexes-3x10-clipped": 2, "tetrahexes-coin": 4,
    "trihexes-tetrahexes-hexagon": 12290, "trihexes-tetrahexes-hexagram": 167,
    "one-sided-hexiamonds-obeirne": 124519,
}
#: the entries on triangles and hexagons, by lattice
LATTICE_ENTRIES = {"triangle": {n for n in DISTINCT if n.startswith("hexiamonds-")},
                   "hexagon": {n for n in DISTINCT if n.startswith(("tetrahexes-", "trihexes-"))}}
#: published counts up to rotation only
UP_TO_ROTATION = {
    "tetracubes-2x4x4": 1390, "tetracubes-2x2x8": 224,
    "soma-bathtub": 158, "soma-castle-1": 6, "soma-castle-2": 10, "soma-clip": 20, "soma-cornerstone": 10,
    "soma-crystal": 2800, "soma-curved-wall": 66, "soma-high-wall": 46, "soma-long-wall": 104,
    "soma-pyramid": 14, "soma-screw": 14, "soma-skew-1": 244, "soma-skew-2": 14, "soma-sofa": 32,
    "soma-steamer": 152, "soma-steps": 164, "soma-tunnel": 26,
    "bedlam-cube": 19186, "tetris-cube": 9839,
}
#: counted here in more than about two seconds
SLOW = {"pentomino-8x8-tetromino"}
#: counted in tens of seconds: the Bedlam cube here (slow), the Tetris Cube (70 s) by
#: bench/bench_classics.py only
HEAVY = {"bedlam-cube", "tetris-cube"}
#: counted in minutes, by bench/bench_classics.py only: O'Beirne's hexagon (1,494,228
#: solutions, the search by orbits; its structure is tested here)
HEAVY_DISTINCT = {"one-sided-hexiamonds-obeirne"}


def _rotations(name: str) -> int:
    """The order of the rotation group of the board of ``name``, from its cells."""
    p = load(name)
    return len(pc.board_symmetries(pc.cells_of_items(p.exact_cover()), rotations_only=True,
                                   space=p.board.space))


def test_every_classic_has_a_published_count_here():
    names = [name for name, _, _ in CLASSICS]
    assert len(names) == len(set(names)) >= 30 + 18
    assert set(names) == set(DISTINCT) | set(UP_TO_ROTATION) | {"conway-puzzle"}
    assert set(names) <= {e.name for e in library()}


@pytest.mark.parametrize("name", sorted(UP_TO_ROTATION))
def test_the_library_totals_are_the_rotation_classes_times_the_rotations(name):
    known = {e.name: e.known for e in library()}[name]
    assert known["solutions"] == UP_TO_ROTATION[name] * _rotations(name)
    if name in HEAVY:  # the pieces have no mirror images: the group is the 24 rotations
        assert known["distinct"] == UP_TO_ROTATION[name]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in DISTINCT if n not in HEAVY_DISTINCT])
def test_distinct_counts_are_the_published_ones(name):
    r = load(name).solver(distinct=True).solve()
    assert r.complete and r.distinct == DISTINCT[name]
    assert {e.name: e.known for e in library()}[name] == {"distinct": DISTINCT[name]}


@pytest.mark.parametrize("lattice", sorted(LATTICE_ENTRIES))
def test_the_lattice_entries_are_on_their_lattice_with_the_pieces_filling_the_board(lattice):
    """Each entry's board is of its lattice and has the pieces' area (72 triangles for the
    12 hexiamonds, 28 hexagons for the 7 tetrahexes, 37 with the 3 trihexes too)."""
    area = {"hexiamonds": 72, "tetrahexes": 28, "trihexes-tetrahexes": 37}
    for name in LATTICE_ENTRIES[lattice]:
        p = load(name)
        assert p.board.lattice == lattice
        set_name = next(k for k in sorted(area, key=len, reverse=True) if name.startswith(k + "-"))
        assert len(p.board.free) == area[set_name]


@pytest.mark.parametrize("name", sorted(set(UP_TO_ROTATION) - HEAVY))
def test_rotation_classes_are_the_published_ones(name):
    p = load(name)
    ec = p.exact_cover()
    every = [frozenset(pc.decode(ec, o) for o in path) for path in p.solver().solutions()]
    assert len(set(every)) == len(every) == {e.name: e.known for e in library()}[name]["solutions"]
    free = pc.cells_of_items(ec)
    assert all(set().union(*(cells for _, cells in s)) == free for s in every)
    rotations = pc.board_symmetries(free, rotations_only=True, space=p.board.space)
    assert pc.orbit_count(every, rotations) == UP_TO_ROTATION[name]


@pytest.mark.slow
def test_bedlam_cube_by_orbits():
    """31 s of CPU: the one classic whose only rotations act on 13 chiral solid pieces
    that is counted in the suite (the Tetris Cube, 70 s, is counted by the benchmark)."""
    assert load("bedlam-cube").solver(symmetry=True).count() == 24 * UP_TO_ROTATION["bedlam-cube"]


# ---------------------------------------------------------------- Conway's puzzle
#: Conway's blocks (sides) and how many of each
CONWAY_BLOCKS = {"A": ((1, 2, 4), 13), "C": ((2, 2, 2), 1), "D": ((1, 2, 2), 1), "E": ((1, 1, 3), 3)}


def _conway_cover() -> tuple[ExactCover, list[tuple[str, frozenset]]]:
    """Conway's puzzle as an exact cover built here: every block in each of its axis
    orders at every position in the 5x5x5 cube; one item per kind with its count."""
    cells = [(z, y, x) for z in range(5) for y in range(5) for x in range(5)]
    placements = []
    for name, (sides, _) in CONWAY_BLOCKS.items():
        for dz, dy, dx in sorted(set(permutations(sides))):
            for z0, y0, x0 in product(range(6 - dz), range(6 - dy), range(6 - dx)):
                placements.append((name, frozenset((z0 + a, y0 + b, x0 + c)
                                                   for a in range(dz) for b in range(dy) for c in range(dx))))
    items = [f"{z}.{y}.{x}" for z, y, x in cells] + list(CONWAY_BLOCKS)
    options = [[f"{z}.{y}.{x}" for z, y, x in sorted(cs)] + [name] for name, cs in placements]
    bounds = {name: (n, n) for name, (_, n) in CONWAY_BLOCKS.items()}
    return ExactCover.build(items, [], options, bounds=bounds), placements


@pytest.mark.slow
def test_conway_puzzle_against_a_cover_built_here():
    ec, placements = _conway_cover()
    every = [frozenset(placements[o] for o in path) for path in KernelSolver(ec).solutions()]
    free = {(z, y, x) for z in range(5) for y in range(5) for x in range(5)}
    classes = pc.orbit_count(every, pc.board_symmetries(free))
    r = load("conway-puzzle").solver(distinct=True).solve()
    assert (r.count, r.distinct) == (len(every), classes) == (27456, 572)
    assert {e.name: e.known for e in library()}["conway-puzzle"] == {"solutions": 27456, "distinct": 572}


def test_obeirnes_hexagon_is_19_hexagons_of_six_triangles_with_the_19_one_sided_hexiamonds():
    """The board: 19 hexagons of side 1 in a honeycomb of radius 2 (each hexagon's six
    triangles around a vertex of the lattice), so its group is the hexagon's 12; the pieces:
    the one-sided hexiamonds, each once (12 free, 7 of them chiral: 19)."""
    p = load("one-sided-hexiamonds-obeirne")
    assert p.board.lattice == "triangle" and len(p.board.free) == 114
    assert [(k.size, k.count, k.mirror) for k in p.pieces] == [(6, (1, 1), False)] * 19
    group = p.symmetry()
    assert group is not None and len(group.permutations) == 12
    assert {e.name: e.known for e in library()}["one-sided-hexiamonds-obeirne"] == {"distinct": 124519}
