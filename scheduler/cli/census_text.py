"""A run's census as ``tilecensus census RUN`` prints it (:mod:`scheduler.census_views`
holds what it says): per piece a heatmap over the board — a grid of numbers on a square
board, one slice per layer on a box, a cell per line on triangles and hexagons — the
pieces seen at each cell, then the forced and impossible placements; for other models,
per item the options that some solution uses."""
from __future__ import annotations

from typing import Iterator

from ..census_views import CensusView, PieceHeat
from .render import plural

#: at most this many impossible options are listed one by one (``--json`` lists them all)
LISTED = 40


def census_lines(view: CensusView, piece: str | None) -> Iterator[str]:
    """Every line of the text form."""
    kinds = view.piece_kinds(piece)
    yield (f"run {view.run_id} {view.problem.name}: census of {plural(view.total, 'solution')} "
           f"(summed over {plural(view.parts, 'subproblem')})")
    if view.is_polyform:
        for heat in (view.heat(k) for k in kinds):
            yield ""
            yield from heat_lines(view, heat)
        if piece is None:
            yield ""
            yield from cell_lines(view)
        forced, impossible = view.options_of(kinds, view.forced()), view.options_of(kinds, view.impossible())
        unit, whole = "placement", len(view.options_of(kinds, list(range(len(view.census.per_option)))))
    else:
        yield ""
        yield from item_lines(view)
        forced, impossible, unit, whole = view.forced(), view.impossible(), "option", len(view.census.per_option)
    yield ""
    yield f"forced (in every solution): {plural(len(forced), unit)}"
    yield from (f"  {view.option_text(k)}" for k in forced)
    yield f"impossible (in no solution): {len(impossible):,} of {plural(whole, unit)}"
    if len(impossible) <= LISTED or piece is not None:
        yield from (f"  {view.option_text(k)}" for k in impossible)
    else:
        if view.is_polyform:
            per_piece: dict[str, int] = {}
            for k in impossible:
                name = view.problem.pieces[view.problem.placements[k][0]].name
                per_piece[name] = per_piece.get(name, 0) + 1
            yield "  " + ", ".join(f"{name} {n:,}" for name, n in per_piece.items())
        yield "  (census RUN --piece P lists a piece's; --json lists them all)" if view.is_polyform else \
            "  (--json lists them all)"


def heat_lines(view: CensusView, heat: PieceHeat) -> Iterator[str]:
    """One piece's heatmap: the solutions in which it covers each cell."""
    yield (f"{heat.name} ({plural(heat.size, 'cell')}, placed {heat.count}): the solutions in which it covers "
           "each cell")
    board = view.problem.board
    if board.lattice != "square":
        for c in view.cells:
            yield f"  {board.cell_name(c)}  {heat.heat[c]}"
        return
    width = max(len(str(n)) for n in heat.heat.values())
    width = max(width, len(str(board.cols - 1)))
    for z in range(board.layers):
        if board.space == 3:
            yield f"  layer {z}:"
        yield "  " + " " * 4 + " ".join(f"{x:>{width}}" for x in range(board.cols))
        for y in range(board.rows):
            row = [str(heat.heat[(z, y, x)]) if (z, y, x) in heat.heat else "#" for x in range(board.cols)]
            yield f"  {y:>3} " + " ".join(f"{v:>{width}}" for v in row)


def cell_lines(view: CensusView) -> Iterator[str]:
    """Per free cell, the pieces that stand there in some solution (and how often it stays
    empty, packing)."""
    board = view.problem.board
    heats = view.heats()
    yield "the pieces that stand at each cell in some solution:"
    for c in view.cells:
        seen = [h.name for h in heats if h.heat[c]]
        empty = view.total - sum(h.heat[c] for h in heats)
        yield f"  {board.cell_name(c)}: {' '.join(seen) or 'none'}" + (f" (empty in {empty:,})" if empty else "")


def item_lines(view: CensusView) -> Iterator[str]:
    """Per item, the options covering it that some solution uses, with how many do."""
    yield "per item, the options that some solution uses (in how many):"
    for name, uses in view.item_uses():
        shown = ", ".join(f"{view.option_text(k)} ({n:,})" for k, n in uses)
        yield f"  {name}: {shown or 'none'}"
