"""Pictures of grids: text with the numbers, SVG, and the summary of a set of grids."""
from __future__ import annotations

from typing import Iterable
from html import escape

from .grid import Grid


def cell_width(rows: int, cols: int) -> int:
    """The width of one square in :func:`grid_text`: the digits of the largest number a
    rows x cols grid could carry (rows * cols), at least 2 -- the same for every grid of a
    size, so the pictures of a run's grids line up (2 up to 9x9, 3 up to 31x31)."""
    return max(2, len(str(rows * cols)))


def grid_text(grid: Grid) -> str:
    """The grid with its numbers: black squares ``#`` and white ones ``.``, filling a
    fixed width (:func:`cell_width`), numbers right-aligned; one space between squares."""
    nums = {(n.row, n.col): n.number for n in grid.numbering()}
    w = cell_width(grid.rows, grid.cols)
    lines = []
    for r in range(grid.rows):
        cells = []
        for c in range(grid.cols):
            if grid.black[r * grid.cols + c]:
                cells.append("#" * w)
            elif (r, c) in nums:
                cells.append(str(nums[r, c]).rjust(w))
            else:
                cells.append(".".rjust(w))
        lines.append(" ".join(cells))
    return "\n".join(lines)


def grid_svg(grid: Grid, size: int = 32) -> str:
    """An SVG picture: black squares filled, numbers in the top-left corners."""
    W, H = grid.cols * size, grid.rows * size
    nums = {(n.row, n.col): n.number for n in grid.numbering()}
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W + 2}" height="{H + 2}" '
        f'viewBox="-1 -1 {W + 2} {H + 2}" font-family="sans-serif">',
        f'<rect x="0" y="0" width="{W}" height="{H}" fill="white" stroke="black" stroke-width="2"/>',
    ]
    for r in range(grid.rows):
        for c in range(grid.cols):
            x, y = c * size, r * size
            fill = "black" if grid.black[r * grid.cols + c] else "white"
            out.append(f'<rect x="{x}" y="{y}" width="{size}" height="{size}" fill="{fill}" '
                       f'stroke="black" stroke-width="1"/>')
            if (r, c) in nums:
                out.append(f'<text x="{x + 2}" y="{y + size * 0.34:.1f}" font-size="{size * 0.3:.1f}">'
                           f'{escape(str(nums[r, c]))}</text>')
    out.append("</svg>")
    return "\n".join(out)


def summarise_grids(grids: Iterable[Grid], rows: int, cols: int) -> dict:
    """How many grids, and the squares black in every one and white in every one (what
    the solver of a diagramless puzzle knows for sure).  Squares are 1-based [row, col]."""
    n = 0
    black_all = [True] * (rows * cols)
    white_all = [True] * (rows * cols)
    for g in grids:
        if (g.rows, g.cols) != (rows, cols):
            raise ValueError(f"a {g.rows}x{g.cols} grid in a summary of {rows}x{cols} grids")
        n += 1
        for q, b in enumerate(g.black):
            if b:
                white_all[q] = False
            else:
                black_all[q] = False
    if n == 0:
        return {"grids": 0, "rows": rows, "cols": cols, "black_in_every": [], "white_in_every": [],
                "undecided": rows * cols, "picture": None}

    def squares(flags: list[bool]) -> list[list[int]]:
        return [[q // cols + 1, q % cols + 1] for q, f in enumerate(flags) if f]

    picture = "\n".join(
        "".join("#" if black_all[r * cols + c] else "." if white_all[r * cols + c] else "?" for c in range(cols))
        for r in range(rows)
    )
    decided = sum(black_all) + sum(white_all)
    return {
        "grids": n, "rows": rows, "cols": cols,
        "black_in_every": squares(black_all), "white_in_every": squares(white_all),
        "undecided": rows * cols - decided, "picture": picture,
    }
