"""Pictures of solutions on boards of triangles or hexagons: the text drawing (a
character per cell, as boards are drawn: :mod:`.lattice`) and SVG polygons, one colour per
placed piece and a thick line where two pieces, or a piece and the board's edge, meet."""
from __future__ import annotations

from .board import Board
from .lattice import Cell, drawing, lattice
from .palette import colour, esc

MARGIN = 4


def lattice_text(board: Board, owner: dict[Cell, int], symbols: list[str]) -> str:
    """Each free cell's piece symbol (``.`` where it stays empty) in the board's drawing."""
    return drawing(board.lattice, {c: symbols[owner[c]] if c in owner else "." for c in board.free}, " ")


def frame(board: Board, side: int) -> tuple[dict[Cell, list[tuple[float, float]]], tuple[float, float],
                                           tuple[int, int]]:
    """Each free cell's polygon (a side of 1), the plane's top left corner, and the
    picture's width and height in pixels at ``side`` pixels a side, margins included."""
    grid = lattice(board.lattice)
    shapes = {c: grid.polygon(c) for c in sorted(board.free)}
    xs = [x for poly in shapes.values() for x, _ in poly]
    ys = [y for poly in shapes.values() for _, y in poly]
    x0, y0 = min(xs), min(ys)
    return shapes, (x0, y0), (round((max(xs) - x0) * side) + 2 * MARGIN, round((max(ys) - y0) * side) + 2 * MARGIN)


def lattice_svg(board: Board, owner: dict[Cell, int], names: list[str], side: int = 24) -> str:
    """The board's cells as polygons of side ``side`` pixels, filled by their pieces."""
    grid = lattice(board.lattice)
    cells = sorted(board.free)
    shapes, (x0, y0), (width, height) = frame(board, side)

    def at(p: tuple[float, float]) -> str:
        return f"{(p[0] - x0) * side + MARGIN:.2f},{(p[1] - y0) * side + MARGIN:.2f}"

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}">']
    lines = []
    for c in cells:
        poly = shapes[c]
        points = " ".join(at(p) for p in poly)
        me = owner.get(c, -1)
        if me >= 0:
            out.append(f'<polygon points="{points}" fill="{colour(me, len(names))}"><title>{esc(names[me])}</title>'
                       "</polygon>")
        else:
            out.append(f'<polygon points="{points}" fill="#ffffff" stroke="#dddddd"/>')
        for k, (dz, dy, dx) in enumerate(grid.edge_steps(c)):
            n = (c[0] + dz, c[1] + dy, c[2] + dx)
            inside = n in board.free
            if inside and n < c:
                continue  # drawn from the other side
            other = owner.get(n, -1 if inside else -2)
            if other != me and (me >= 0 or other >= 0 or not inside):
                lines.append((at(poly[k]), at(poly[(k + 1) % len(poly)])))
    for a, b in lines:
        (x1, y1), (x2, y2) = a.split(","), b.split(",")
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#000000" stroke-width="2" '
                   'stroke-linecap="round"/>')
    out.append("</svg>")
    return "\n".join(out)
