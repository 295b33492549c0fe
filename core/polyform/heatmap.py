"""A number per cell of a board drawn as SVG: the heatmap of a census (in how many
solutions one piece covers each cell, :mod:`scheduler.census_views`).

Each free cell is filled on one scale from white (0: never there) through light orange to
dark brown (the piece's largest number on this board), with its number written in it
where it fits and in its tooltip; blocked cells are dark grey.  A box is drawn a slice
per layer, side by side, each slice named; triangles and hexagons as their polygons
(the geometry of :mod:`.render_lattice`).
"""
from __future__ import annotations

from typing import Mapping

from .board import Board
from .lattice import lattice
from .palette import esc
from .render_lattice import MARGIN, frame
from .shapes import Cell

#: the scale's ends: the colour of the smallest nonzero number and of the largest
LIGHT, DARK = (254, 230, 206), (127, 39, 4)
#: the fill of a cell no solution puts the piece on
NEVER = "#ffffff"
#: numbers of at most this many digits are written in the cells
WRITTEN_DIGITS = 5
#: the height of a layer's name above its slice
CAPTION = 14


def shade(n: int, top: int) -> str:
    """The fill of a cell with number ``n`` on a board whose largest is ``top``."""
    if n <= 0 or top <= 0:
        return NEVER
    t = n / top
    r, g, b = (round(a + (z - a) * t) for a, z in zip(LIGHT, DARK))
    return f"#{r:02x}{g:02x}{b:02x}"


def _ink(n: int, top: int) -> str:
    """Dark text on light cells, white on dark ones."""
    return "#ffffff" if top and n / top > 0.55 else "#000000"


def _cell(tag: str, where: str, n: int, top: int, name: str, total: int, centre: tuple[float, float],
          size: int) -> str:
    """One free cell (an SVG ``tag`` at ``where``), shaded, its number in its tooltip and in it."""
    out = (f'<{tag} {where} fill="{shade(n, top)}" stroke="#bbbbbb"><title>{esc(name)}: {n:,} of {total:,}</title>'
           f"</{tag}>")
    if len(str(top)) <= WRITTEN_DIGITS:
        out += (f'<text x="{centre[0]:.1f}" y="{centre[1]:.1f}" font-size="{size}" text-anchor="middle" '
                f'dominant-baseline="central" fill="{_ink(n, top)}">{n}</text>')
    return out


def heatmap_svg(board: Board, numbers: Mapping[Cell, int], total: int, title: str, cell: int = 28) -> str:
    """The board with each free cell's number (``numbers``, 0 where missing) out of
    ``total``, under the caption ``title``."""
    top = max(numbers.values(), default=0)
    if lattice(board.lattice) is not None:
        return _lattice_heatmap(board, numbers, top, total, title, cell)
    gap, layered = cell, board.space == 3
    head = CAPTION + (CAPTION if layered else 0)
    width = board.layers * board.cols * cell + (board.layers - 1) * gap + 2 * MARGIN
    height = board.rows * cell + 2 * MARGIN + head
    out = [_open(width, height, title)]
    for z in range(board.layers):
        ox = MARGIN + z * (board.cols * cell + gap)
        if layered:
            out.append(f'<text x="{ox}" y="{CAPTION * 2 - 3}" font-size="11">layer {z}</text>')
        for y in range(board.rows):
            for x in range(board.cols):
                c, px, py = (z, y, x), ox + x * cell, MARGIN + head + y * cell
                where = f'x="{px}" y="{py}" width="{cell}" height="{cell}"'
                if c in board.free:
                    out.append(_cell("rect", where, numbers.get(c, 0), top, board.cell_name(c), total,
                                     (px + cell / 2, py + cell / 2), cell // 3))
                else:
                    out.append(f'<rect {where} fill="#444444"/>')
    out.append("</svg>")
    return "\n".join(out)


def _open(width: int, height: int, title: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif">'
            f'<text x="{MARGIN}" y="{CAPTION - 3}" font-size="12">{esc(title)}</text>')


def _lattice_heatmap(board: Board, numbers: Mapping[Cell, int], top: int, total: int, title: str,
                     side: int) -> str:
    shapes, (x0, y0), (width, height) = frame(board, side)
    out = [_open(width, height + CAPTION, title)]
    for c in sorted(shapes):
        corners = [((x - x0) * side + MARGIN, (y - y0) * side + MARGIN + CAPTION) for x, y in shapes[c]]
        points = " ".join(f"{x:.2f},{y:.2f}" for x, y in corners)
        centre = (sum(x for x, _ in corners) / len(corners), sum(y for _, y in corners) / len(corners))
        out.append(_cell("polygon", f'points="{points}"', numbers.get(c, 0), top, board.cell_name(c), total,
                         centre, side // 4))
    out.append("</svg>")
    return "\n".join(out)
