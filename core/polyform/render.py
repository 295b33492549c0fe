"""Pictures of solutions: text (a letter per piece, as the seeds print them) and SVG.

Text: ``#`` a blocked cell, ``.`` a free cell left empty (pack goal), otherwise the
piece's symbol.  Copies of one kind are told apart by giving neighbouring copies
different symbols.  A box prints its layers side by side.
SVG: one colour per placed piece, thick outlines between pieces; boxes as a row of layers.
Boards of triangles or hexagons are drawn by :mod:`.render_lattice`.
"""
from __future__ import annotations

from typing import Protocol, Sequence

from .board import Board
from .lattice import lattice
from .palette import colour, esc
from .render_lattice import lattice_svg, lattice_text
from .shapes import NEIGHBOUR_STEPS, Cell

#: the symbols pieces are printed with, in the order they are handed out
SYMBOL_POOL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789@$%&*+=?!<>~^"


class _Piece(Protocol):
    name: str
    symbol: str


class Drawable(Protocol):
    """What the pictures need of a problem: its board, its placements (kind, cells) and
    its piece kinds (their names and symbols)."""

    board: Board
    placements: Sequence[tuple[int, frozenset[Cell]]]
    pieces: Sequence[_Piece]


def _symbols(problem: Drawable, solution) -> tuple[dict[Cell, int], list[str], list[int]]:
    """cell -> placed piece number, the symbol and kind of each placed piece."""
    owner: dict[Cell, int] = {}
    kinds = []
    for n, o in enumerate(solution):
        k, cells = problem.placements[o]
        kinds.append(k)
        for c in cells:
            owner[c] = n
    copies = {}
    for k in kinds:
        copies[k] = copies.get(k, 0) + 1
    single = {problem.pieces[k].symbol for k in copies if copies[k] == 1}
    grid = lattice(problem.board.lattice)
    spare = [s for s in SYMBOL_POOL if s not in single]
    symbols: list[str] = []
    for n, k in enumerate(kinds):
        if copies[k] == 1:
            symbols.append(problem.pieces[k].symbol)
            continue
        taken = set()
        for c, m in owner.items():
            if m == n:
                for d in NEIGHBOUR_STEPS if grid is None else grid.steps(c):
                    nb = owner.get((c[0] + d[0], c[1] + d[1], c[2] + d[2]))
                    if nb is not None and nb < n:
                        taken.add(symbols[nb])
        first = problem.pieces[k].symbol
        pool = ([first] if first not in single else []) + [s for s in spare if s != first]
        symbols.append(next((s for s in pool if s not in taken), "?"))
    return owner, symbols, kinds


def render_text(problem: Drawable, solution) -> str:
    board = problem.board
    owner, symbols, _ = _symbols(problem, solution)
    if lattice(board.lattice) is not None:
        return lattice_text(board, owner, symbols)
    layers = []
    for z in range(board.layers):
        rows = []
        for y in range(board.rows):
            row = []
            for x in range(board.cols):
                c = (z, y, x)
                if c in owner:
                    row.append(symbols[owner[c]])
                elif c in board.free:
                    row.append(".")
                else:
                    row.append("#")
            rows.append("".join(row))
        layers.append(rows)
    return "\n".join("  ".join(layer[y] for layer in layers) for y in range(board.rows))


def render_svg(problem: Drawable, solution, cell: int = 24) -> str:
    board = problem.board
    owner, symbols, kinds = _symbols(problem, solution)
    if lattice(board.lattice) is not None:
        return lattice_svg(board, owner, [problem.pieces[k].name for k in kinds], cell)
    gap = cell
    margin = 4
    width = board.layers * board.cols * cell + (board.layers - 1) * gap + 2 * margin
    height = board.rows * cell + 2 * margin
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">'
    ]
    lines = []
    for z in range(board.layers):
        ox = margin + z * (board.cols * cell + gap)
        for y in range(board.rows):
            for x in range(board.cols):
                c = (z, y, x)
                px, py = ox + x * cell, margin + y * cell
                if c in owner:
                    n = owner[c]
                    fill = colour(n, len(symbols))
                    name = problem.pieces[kinds[n]].name
                    out.append(
                        f'<rect x="{px}" y="{py}" width="{cell}" height="{cell}" fill="{fill}">'
                        f"<title>{esc(name)}</title></rect>"
                    )
                elif c in board.free:
                    out.append(f'<rect x="{px}" y="{py}" width="{cell}" height="{cell}" fill="#ffffff" stroke="#dddddd"/>')
                else:
                    out.append(f'<rect x="{px}" y="{py}" width="{cell}" height="{cell}" fill="#444444"/>')
                me = owner.get(c, -1 if c in board.free else -2)
                # outline: right and bottom edges inside, plus the borders
                for (dy, dx), seg in (
                    ((0, 1), (px + cell, py, px + cell, py + cell)),
                    ((1, 0), (px, py + cell, px + cell, py + cell)),
                    ((0, -1), (px, py, px, py + cell)),
                    ((-1, 0), (px, py, px + cell, py)),
                ):
                    nc = (z, y + dy, x + dx)
                    other = owner.get(nc, -1 if nc in board.free else -2)
                    inside = 0 <= y + dy < board.rows and 0 <= x + dx < board.cols
                    if inside and (dy, dx) in ((0, -1), (-1, 0)):
                        continue  # drawn from the other side
                    if other != me and (me >= 0 or other >= 0 or not inside):
                        lines.append(seg)
    for x1, y1, x2, y2 in lines:
        out.append(f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#000000" stroke-width="2" stroke-linecap="square"/>')
    out.append("</svg>")
    return "\n".join(out)
