"""Hoffman's 27 blocks counted on the structure every solution has (issue 42), by hand,
never in CI:

    .venv/bin/python bench/hoffman_grid.py            # 4x5x6 blocks in a 15x15x15 cube
    .venv/bin/python bench/hoffman_grid.py 5 6 7      # other block sizes (a < b < c, a+b+c < 4a)

Every packing of 27 a x b x c blocks in the cube of side a+b+c is an approximate 3x3x3
grid of blocks, with one block of each width along each axis-parallel line of three
(Hoffman, "Packing problems and inequalities", in *The Mathematical Gardner*, 1981), and
there are 21 packings up to the cube's 48 symmetries.  This script counts them from that
structure alone: the orientation of each of the 27 grid places such that each line of
three has the widths a, b and c once each (a backtrack), each such arrangement placed
(a block starts where the ones before it on its line end) and kept where no two blocks
overlap, then the packings' classes under the 48 symmetries.  It prints the three
numbers (4x5x6: 46,272 arrangements, 1,008 packings, 21 classes).

The library's entry (``hoffman-4x5x6``, core/hoffman.py) is the same structure as an
exact cover the kernel counts (1,008 in 0.12 s); this script is the second method beside
it: arrangements first, overlaps after, classes by its own symmetries.  As a polycube
packing (``goal = "pack"``, 27 copies of one block, 135 cells left empty) the search
finds no first solution in minutes, and neither did a cell-first search in C with a
budget of empty cells (1e9 nodes in a minute, and 5e9 in five with the blocks' corners
held to the grid's coordinates, without one; 2026-12-07).
"""
from __future__ import annotations

import argparse
import itertools
import time

Box = tuple[int, int, int, tuple[int, int, int]]  # the low corner (x, y, z) and the widths


def arrangements(widths: tuple[int, int, int]) -> list[dict[tuple[int, int, int], tuple[int, int, int]]]:
    """Every orientation of the 27 places with each line of three holding each width once
    along its axis."""
    orientations = list(itertools.permutations(widths))
    places = list(itertools.product(range(3), repeat=3))
    found, chosen = [], {}
    # the widths each line of three already holds along its axis: the line of a place along
    # an axis is the axis and the place's two other coordinates
    lines = {place: [(axis, tuple(c for d, c in enumerate(place) if d != axis)) for axis in range(3)]
             for place in places}
    held: dict = {line: set() for place in places for line in lines[place]}

    def place_next(n: int) -> None:
        if n == len(places):
            found.append(dict(chosen))
            return
        place = places[n]
        mine = [held[line] for line in lines[place]]
        for o in orientations:
            if o[0] in mine[0] or o[1] in mine[1] or o[2] in mine[2]:
                continue
            chosen[place] = o
            for axis in range(3):
                mine[axis].add(o[axis])
            place_next(n + 1)
            for axis in range(3):
                mine[axis].discard(o[axis])
            del chosen[place]

    place_next(0)
    return found


def packing(arrangement) -> frozenset[Box] | None:
    """The blocks where each starts as the ones before it on its lines end, or None where
    two overlap."""
    boxes = []
    for (i, j, k), w in arrangement.items():
        x = sum(arrangement[(t, j, k)][0] for t in range(i))
        y = sum(arrangement[(i, t, k)][1] for t in range(j))
        z = sum(arrangement[(i, j, t)][2] for t in range(k))
        boxes.append((x, y, z, w))
    spans = [(x, x + w[0], y, y + w[1], z, z + w[2]) for x, y, z, w in boxes]
    for n, (x0, x1, y0, y1, z0, z1) in enumerate(spans):
        for u0, u1, v0, v1, t0, t1 in spans[n + 1:]:
            if x0 < u1 and u0 < x1 and y0 < v1 and v0 < y1 and z0 < t1 and t0 < z1:
                return None
    return frozenset(boxes)


def image(boxes: frozenset[Box], side: int, axes: tuple[int, int, int], flips: tuple[int, int, int]) -> frozenset[Box]:
    """The packing under a symmetry of the cube: its axes permuted, some reversed."""
    out = []
    for x, y, z, w in boxes:
        low = (x, y, z)
        new_w = tuple(w[a] for a in axes)
        new_low = tuple(side - low[a] - w[a] if flip else low[a] for a, flip in zip(axes, flips))
        out.append((*new_low, new_w))
    return frozenset(out)


def classes(packings: set[frozenset[Box]], side: int) -> int:
    """The packings' classes under the 48 symmetries of the cube."""
    seen, n = set(), 0
    for p in packings:
        if p in seen:
            continue
        n += 1
        for axes in itertools.permutations(range(3)):
            for flips in itertools.product((0, 1), repeat=3):
                q = image(p, side, axes, flips)
                if q not in packings:
                    raise AssertionError("a symmetric image of a packing is not a packing")
                seen.add(q)
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("widths", nargs="*", type=int, default=[4, 5, 6], help="a b c (default 4 5 6)")
    args = ap.parse_args()
    a, b, c = sorted(args.widths)
    if len(args.widths) != 3 or not a < b < c or a + b + c >= 4 * a:
        ap.error("three widths a < b < c with a+b+c < 4a")
    started = time.perf_counter()
    found = arrangements((a, b, c))
    packings = {p for p in map(packing, found) if p is not None}
    n = classes(packings, a + b + c)
    print(f"{a}x{b}x{c} blocks in a {a + b + c}-cube: {len(found):,} arrangements, {len(packings):,} packings, "
          f"{n} up to the cube's 48 symmetries ({time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
