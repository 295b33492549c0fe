"""An independent reference for the triangle and hexagon lattices: cells as points in
the plane (their centres, in floating point), pieces grown and told apart by turning
those points with cos/sin, and tilings enumerated by a plain Algorithm X on dicts of sets
(:func:`tilings`).  It shares no code with core.polyform (which works on integer
matrices and the C kernel): only the drawing's convention, that cell (y, x) is the
character at row y and column x, triangles pointing up where y + x is even and hexagons
at every other column."""
from __future__ import annotations

from math import cos, pi, sin, sqrt

H = sqrt(3) / 2


def centre(lattice: str, cell) -> tuple[float, float]:
    _, y, x = cell
    if lattice == "triangle":
        up = (y + x) % 2 == 0
        return ((x + 1) / 2, (y + (2 / 3 if up else 1 / 3)) * H)
    return (x * H, 1.5 * y)


def cell_at(lattice: str, point) -> tuple[int, int, int] | None:
    """The cell whose centre is ``point``, or None."""
    px, py = point
    if lattice == "triangle":
        y = int(py // H)
        x = round(2 * px - 1)
    else:
        y = round(py / 1.5)
        x = round(px / H)
        if (x + y) % 2:
            return None
    c = (0, y, x)
    cx, cy = centre(lattice, c)
    return c if abs(cx - px) < 1e-3 and abs(cy - py) < 1e-3 else None


def neighbours(lattice: str, cell) -> list:
    """Cells whose centres are at the distance of edge neighbours."""
    _, y, x = cell
    near = 1 / sqrt(3) if lattice == "triangle" else sqrt(3)
    cx, cy = centre(lattice, cell)
    out = []
    for dy in (-1, 0, 1):
        for dx in (-2, -1, 0, 1, 2):
            n = (0, y + dy, x + dx)
            if n == cell or (lattice == "hexagon" and (y + dy + x + dx) % 2):
                continue
            nx, ny = centre(lattice, n)
            if abs((nx - cx) ** 2 + (ny - cy) ** 2 - near ** 2) < 1e-6:
                out.append(n)
    return out


#: a point of the lattice that its symmetries turn about: a triangle's corner, a hexagon's centre
PIVOT = {"triangle": (0.5, 0.0), "hexagon": (0.0, 0.0)}


def turned(lattice: str, cells, k: int, flip: bool) -> list:
    """The cells turned by k sixths of a turn about the pivot, mirrored first if ``flip``."""
    ox, oy = PIVOT[lattice]
    a = k * pi / 3
    out = []
    for c in cells:
        x, y = centre(lattice, c)
        x, y = x - ox, y - oy
        if flip:
            x = -x
        x, y = x * cos(a) - y * sin(a), x * sin(a) + y * cos(a)
        out.append(cell_at(lattice, (x + ox, y + oy)))
    assert None not in out
    return out


def key(lattice: str, cells) -> tuple:
    """Cells up to translation: their centres less the smallest, rounded."""
    pts = sorted((round(x, 4), round(y, 4), x, y) for x, y in (centre(lattice, c) for c in cells))
    x0, y0 = pts[0][2:]
    return tuple((round(x - x0, 4) + 0.0, round(y - y0, 4) + 0.0) for _, _, x, y in pts)


def orientations(lattice: str, cells, mirror: bool = True) -> list[tuple]:
    """The distinct keys of a piece's images under the lattice's turns (and flips)."""
    seen = {}
    for flip in (False, True) if mirror else (False,):
        for k in range(6):
            seen.setdefault(key(lattice, turned(lattice, cells, k, flip)), None)
    return list(seen)


def free_pieces(lattice: str, n: int, mirror: bool = True) -> list[list]:
    """One cell set for each n-cell polyform up to turns (and flips)."""
    start = (0, 0, 0)
    found = {min(orientations(lattice, [start], mirror)): [start]}
    for _ in range(n - 1):
        nxt = {}
        for cells in found.values():
            for c in cells:
                for m in neighbours(lattice, c):
                    if m not in cells:
                        grown = cells + [m]
                        nxt.setdefault(min(orientations(lattice, grown, mirror)), grown)
        found = nxt
    return list(found.values())


def placements(lattice: str, board: set, shape_keys: list[tuple]) -> list[frozenset]:
    """Every placement of the keyed shapes on the board's cells."""
    out = set()
    for k in shape_keys:
        for c in board:
            x0, y0 = centre(lattice, c)
            cells = [cell_at(lattice, (x0 + dx, y0 + dy)) for dx, dy in k]
            if all(x in board for x in cells):
                out.add(frozenset(cells))
    return list(out)


def tilings(lattice: str, board: set, pieces: list[tuple[list, int, int | None]], mirror: bool = True) -> list[frozenset]:
    """Every tiling of ``board`` by the pieces (cells, least and most copies: 1 and 1,
    0 and 1, or 0 and None for any number): each as the set of its placements (piece
    index, cells).  Knuth's Algorithm X on dicts of sets (after Ali Assaf's short
    version): the cells and the once-only pieces are primary items, the at-most-once
    pieces secondary, branching on the primary item with the fewest options."""
    rows = {}
    for i, (cells, lo, hi) in enumerate(pieces):
        assert (lo, hi) in ((1, 1), (0, 1), (0, None)), (lo, hi)
        for p in placements(lattice, board, orientations(lattice, cells, mirror)):
            rows[(i, p)] = list(p) + ([("piece", i)] if hi == 1 else [])
    primary = set(board) | {("piece", i) for i, (_, lo, hi) in enumerate(pieces) if lo == 1}
    columns: dict = {c: set() for c in primary | {("piece", i) for i, (_, _, hi) in enumerate(pieces) if hi == 1}}
    for r, items in rows.items():
        for c in items:
            columns[c].add(r)
    out = []

    def select(r):
        removed = []
        for c in rows[r]:
            for other in columns[c]:
                for d in rows[other]:
                    if d != c:
                        columns[d].discard(other)
            removed.append(columns.pop(c))
        return removed

    def deselect(r, removed):
        for c in reversed(rows[r]):
            columns[c] = removed.pop()
            for other in columns[c]:
                for d in rows[other]:
                    if d != c:
                        columns[d].add(other)

    def go(chosen):
        open_items = [c for c in columns if c in primary]
        if not open_items:
            out.append(frozenset(chosen))
            return
        c = min(open_items, key=lambda c: len(columns[c]))
        for r in list(columns[c]):
            chosen.append(r)
            removed = select(r)
            go(chosen)
            deselect(r, removed)
            chosen.pop()

    go([])
    return out


def board_images(lattice: str, board: set) -> list:
    """The symmetries of the board, as maps cell -> cell: each turn (and flip) of the
    plane, moved back onto the board where a translation of the lattice does that."""
    maps = []
    target = key(lattice, board)
    bx, by = min(centre(lattice, c) for c in board)
    for flip in (False, True):
        for k in range(6):
            image = turned(lattice, sorted(board), k, flip)
            if key(lattice, image) != target:
                continue
            ix, iy = min(centre(lattice, c) for c in image)
            moved = [cell_at(lattice, (x + bx - ix, y + by - iy)) for x, y in (centre(lattice, c) for c in image)]
            maps.append(dict(zip(sorted(board), moved)))
    return maps


def orbits(lattice: str, board: set, found: list[frozenset], pieces_of=lambda i: i) -> int:
    """The number of tilings up to the board's symmetries (each map sends a piece to a
    piece of the same kind: ``pieces_of`` names the kind of a piece index)."""
    maps = board_images(lattice, board)
    seen = set()
    count = 0
    for t in found:
        norm = frozenset((pieces_of(i), cells) for i, cells in t)
        if norm in seen:
            continue
        count += 1
        for m in maps:
            seen.add(frozenset((pieces_of(i), frozenset(m[c] for c in cells)) for i, cells in t))
    return count
