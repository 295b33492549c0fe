"""An independent checker and brute force for polyform tests.

Nothing here uses the polyform compiler: placements are read back from the exact
cover's item names (``r{y}c{x}`` / ``l{z}r{y}c{x}``) and labels, and checked against
the board and the pieces with this file's own geometry.
"""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import permutations, product


def cells_of_text(text: str) -> set[tuple[int, int, int]]:
    """'#' cells of a matrix (layers separated by blank lines)."""
    out = set()
    z = y = 0
    started = False
    for line in text.strip("\n").splitlines():
        s = line.strip()
        if not s:
            if started:
                z, y = z + 1, 0
                started = False
            continue
        started = True
        for x, ch in enumerate(s):
            if ch == "#":
                out.add((z, y, x))
        y += 1
    return out


def norm(cells) -> tuple:
    cells = list(cells)
    m = [min(c[a] for c in cells) for a in range(3)]
    return tuple(sorted((c[0] - m[0], c[1] - m[1], c[2] - m[2]) for c in cells))


def variants(cells, *, mirror=True, space=2) -> set[tuple]:
    """Every orientation, by brute force over signed axis permutations."""
    return _variants(frozenset(cells), mirror, space)


@lru_cache(maxsize=None)
def _variants(cells, mirror, space) -> set[tuple]:
    out = set()
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            if space == 2 and (perm[0] != 0 or signs[0] != 1):
                continue
            # determinant of a signed permutation matrix
            inv = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j])
            det = (-1) ** inv * signs[0] * signs[1] * signs[2]
            if det < 0 and not mirror:
                continue
            out.add(norm(tuple(signs[i] * c[perm[i]] for i in range(3)) for c in cells))
    return out


def decode(ec, option: int) -> tuple[str, frozenset]:
    """(piece name, cells) of an option, from its label and item names."""
    name = ec.labels[option].split(" ", 1)[0]
    cells = set()
    for i, _ in ec.options[option]:
        m = re.fullmatch(r"(?:l(\d+))?r(\d+)c(\d+)", ec.items[i])
        if m:
            cells.add((int(m.group(1) or 0), int(m.group(2)), int(m.group(3))))
    return name, frozenset(cells)


def check(ec, solution, free: set, pieces: dict, goal: str = "fill", space: int = 2) -> None:
    """Raise AssertionError unless ``solution`` places pieces legally.

    ``pieces``: name -> (cells, mirror, (lo, hi or None))."""
    covered: set = set()
    used: dict[str, int] = {}
    for o in solution:
        name, cells = decode(ec, o)
        assert name in pieces, name
        shape, mirror, _ = pieces[name]
        assert cells <= free, (name, sorted(cells - free))
        assert not cells & covered, (name, sorted(cells & covered))
        assert norm(cells) in variants(shape, mirror=mirror, space=space), (name, sorted(cells))
        covered |= cells
        used[name] = used.get(name, 0) + 1
    for name, (_, _, (lo, hi)) in pieces.items():
        n = used.get(name, 0)
        assert n >= lo and (hi is None or n <= hi), (name, n, lo, hi)
    if goal == "fill":
        assert covered == free, sorted(free - covered)


def brute_force_solutions(free: set, pieces: dict, goal: str, space: int = 2) -> set[frozenset]:
    """Every solution as a set of (name, cells), by plain recursion piece by piece
    (fixed counts only): fill covers every cell; pack places every piece."""
    placements = {}
    for name, (shape, mirror, _) in pieces.items():
        ps = set()
        for v in variants(shape, mirror=mirror, space=space):
            for b in free:
                d = (b[0] - v[0][0], b[1] - v[0][1], b[2] - v[0][2])
                cells = frozenset((c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in v)
                if cells <= free:
                    ps.add(cells)
        placements[name] = sorted(ps, key=sorted)
    found: set[frozenset] = set()
    left = {name: lo for name, (_, _, (lo, hi)) in pieces.items()}
    assert all(lo == hi for _, _, (lo, hi) in pieces.values())
    if goal == "fill":
        by_cell = {name: {} for name in placements}
        for name, ps in placements.items():
            for cells in ps:
                for c in cells:
                    by_cell[name].setdefault(c, []).append(cells)

        def fill(used, chosen):
            if used == free:
                if not any(left.values()):
                    found.add(frozenset(chosen))
                return
            c = min(free - used)
            for name in placements:
                if left[name]:
                    left[name] -= 1
                    for cells in by_cell[name].get(c, []):
                        if not cells & used:
                            fill(used | cells, chosen + [(name, cells)])
                    left[name] += 1

        fill(frozenset(), [])
        return found
    todo = [name for name in sorted(pieces) for _ in range(left[name])]

    def rec(k, used, chosen, start):
        if k == len(todo):
            found.add(frozenset(chosen))
            return
        same = k > 0 and todo[k - 1] == todo[k]
        ps = placements[todo[k]]
        for j in range(start if same else 0, len(ps)):
            cells = ps[j]
            if not cells & used:
                rec(k + 1, used | cells, chosen + [(todo[k], cells)], j + 1)

    rec(0, frozenset(), [], 0)
    return found


def cells_of_items(ec) -> set[tuple[int, int, int]]:
    """The board's free cells, read back from the cover's cell item names."""
    out = set()
    for name in ec.items:
        m = re.fullmatch(r"(?:l(\d+))?r(\d+)c(\d+)", name)
        if m:
            out.add((int(m.group(1) or 0), int(m.group(2)), int(m.group(3))))
    return out


def board_symmetries(free: set, *, rotations_only: bool = False, space: int = 3) -> list[dict]:
    """Every signed axis permutation that maps ``free`` onto itself (about its bounding
    box), as a cell -> cell map; in the plane (``space=2``) only those that fix z."""
    lo = [min(c[a] for c in free) for a in range(3)]
    maps: dict[tuple, dict] = {}
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            if space == 2 and (perm[0] != 0 or signs[0] != 1):
                continue
            inv = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j])
            if rotations_only and (-1) ** inv * signs[0] * signs[1] * signs[2] < 0:
                continue
            img = {c: tuple(signs[i] * c[perm[i]] for i in range(3)) for c in free}
            off = [lo[a] - min(d[a] for d in img.values()) for a in range(3)]
            g = {c: (d[0] + off[0], d[1] + off[1], d[2] + off[2]) for c, d in img.items()}
            if set(g.values()) == free:
                maps.setdefault(tuple(sorted(g.items())), g)
    return list(maps.values())


def orbit_count(solutions: list[frozenset], maps: list[dict]):
    """The classes of ``solutions`` (each a set of (name, cells)) under the group ``maps``
    by Burnside's lemma: the average number of solutions each map fixes.  Every map must
    keep every piece's name (rotations; reflections of a set without chiral pieces)."""
    from fractions import Fraction

    fixed = sum(1 for g in maps for s in solutions
                if all((name, frozenset(g[c] for c in cells)) in s for name, cells in s))
    return Fraction(fixed, len(maps))
