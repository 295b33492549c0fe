"""What a run's census says about its problem: ``tilecensus census RUN`` and the run's page.

A census (:mod:`core.census`) is one number per option: the solutions that use it.  The
ledger sums it over the run's subproblems (:func:`scheduler.ledger.censuses.run_census`);
here it is mapped back to the problem:

* a polyform problem: per piece kind, its *heat* at each free cell — the solutions in
  which that piece covers the cell, the sum of the census of the kind's placements that
  cover it; per cell, the pieces seen there (heat above 0);
* any exact cover: per item, the options covering it that some solution uses;
* every model: the *forced* options (used by every solution) and the *impossible* ones
  (used by none).

Two sum rules check it (tests/scheduler/test_census_views.py): at a cell of a filled
board the heat of all pieces adds up to the total; a piece placed exactly once has heat
summing over the board to the total times its size.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterator

from core.census import Census
from core.polyform.problem import PolyformProblem
from core.problem import Problem

from .db import Ledger
from .errors import LedgerError
from .states import RunStatus

Cell = tuple[int, int, int]


class CensusViewError(LedgerError):
    """A census that cannot be shown: a run without one, not finished, an unknown piece."""


@dataclass
class PieceHeat:
    """One piece kind: per free cell (board order), the solutions in which it covers it."""

    name: str
    size: int
    count: str
    heat: dict[Cell, int]


@dataclass
class CensusView:
    """A finished run's census and the problem it maps onto."""

    run_id: int
    problem: Problem
    census: Census
    #: the subproblems whose stored census was summed
    parts: int

    @property
    def total(self) -> int:
        return self.census.total

    @property
    def is_polyform(self) -> bool:
        return isinstance(self.problem, PolyformProblem)

    @property
    def cells(self) -> list[Cell]:
        """A polyform board's free cells, layer by layer, row by row (as they are shown)."""
        return sorted(self.problem.board.free)

    def option_text(self, k: int) -> str:
        return self.problem.exact_cover().option_text(k)

    def forced(self) -> list[int]:
        """The options every solution uses (none when there is no solution)."""
        total = self.total
        return [k for k, n in enumerate(self.census.per_option) if total and n == total]

    def impossible(self) -> list[int]:
        """The options no solution uses."""
        return [k for k, n in enumerate(self.census.per_option) if n == 0]

    # ------------------------------------------------------------ polyform problems
    def piece_kinds(self, piece: str | None = None) -> list[int]:
        """The piece kinds shown: all, or the one named ``piece`` (else an error naming them)."""
        if not self.is_polyform:
            if piece is not None:
                raise CensusViewError(f"run {self.run_id}: --piece is for polyform problems, not "
                                      f"{self.problem.kind} ones")
            return []
        pieces = self.problem.pieces
        if piece is None:
            return list(range(len(pieces)))
        found = [k for k, p in enumerate(pieces) if p.name == piece]
        if not found:
            raise CensusViewError(f"run {self.run_id}: no piece {piece!r} in {self.problem.name} "
                                  f"(its pieces: {', '.join(p.name for p in pieces)})")
        return found

    def heat(self, kind: int) -> PieceHeat:
        """The piece kind's heat at every free cell of the board."""
        problem = self.problem
        heat = dict.fromkeys(problem.board.order, 0)
        per = self.census.per_option
        for k, (placed, cells) in enumerate(problem.placements):
            n = per[k]
            if placed == kind and n:
                for c in cells:
                    heat[c] += n
        p = problem.pieces[kind]
        return PieceHeat(p.name, p.size, p.count_text(), heat)

    def heats(self, piece: str | None = None) -> list[PieceHeat]:
        return [self.heat(k) for k in self.piece_kinds(piece)]

    def options_of(self, kinds: list[int], options: list[int]) -> list[int]:
        """Those of ``options`` that place one of the piece kinds ``kinds``."""
        wanted = set(kinds)
        placements = self.problem.placements
        return [k for k in options if placements[k][0] in wanted]

    # ------------------------------------------------------------ any exact cover
    def item_uses(self) -> Iterator[tuple[str, list[tuple[int, int]]]]:
        """Per item: (its name, the options covering it that some solution uses, with their census)."""
        ec = self.problem.exact_cover()
        per = self.census.per_option
        for i, name in enumerate(ec.items):
            yield name, [(k, per[k]) for k in ec.covering[i] if per[k]]


def load_view(ledger: Ledger, run_id: int, problems: Callable[[int], Problem] | None = None) -> CensusView:
    """The finished run's census over its problem (``problems``: where to get a run's
    problem, such as the web page's cache; else rebuilt from the ledger); a
    :class:`CensusViewError` (one line) for a run without a census or not finished, a
    :class:`LedgerError` for an unknown run."""
    from .ledger import get_run
    from .ledger.censuses import run_census
    from .queries import problem_of
    from .run_options import RunOptions

    run = get_run(ledger, run_id)
    if not RunOptions.from_json(run.options).census:
        raise CensusViewError(f"run {run_id} was counted without --census: it has no census (take one with "
                              f"tilecensus solve {run.name} --census)")
    if run.status in (RunStatus.RUNNING, RunStatus.INTERRUPTED):
        then = "tilecensus resume" if run.status == RunStatus.INTERRUPTED else "tilecensus watch"
        raise CensusViewError(f"run {run_id} is {run.status}, not done: its census is shown once every "
                              f"subproblem is counted ({then} {run_id})")
    if run.status != RunStatus.DONE:
        raise CensusViewError(f"run {run_id} is {run.status}, not done: it has no whole census (count it again: "
                              f"tilecensus solve {run.name} --census)")
    found = run_census(ledger, run_id)
    if found is None or found.parts != found.done:
        held = 0 if found is None else found.parts
        done = 0 if found is None else found.done
        raise CensusViewError(f"run {run_id}: {held} of its {done} done subproblems hold a census: "
                              "it has no whole census")
    problem = (problems or (lambda i: problem_of(ledger, i)))(run_id)
    if problem.exact_cover() is None:
        raise CensusViewError(f"run {run_id}: {problem.kind} problems have no options to take a census of")
    return CensusView(run_id, problem, found.census, found.parts)


# ---------------------------------------------------------------- machine-readable forms
def view_json(view: CensusView, piece: str | None = None) -> dict[str, Any]:
    """The census as ``census RUN --json`` prints it (exact integers, however large)."""
    per = view.census.per_option
    kinds = view.piece_kinds(piece)
    forced, impossible = view.forced(), view.impossible()
    out: dict[str, Any] = {"run_id": view.run_id, "problem": view.problem.name, "kind": view.problem.kind,
                           "total": view.total, "subproblems": view.parts}
    if view.is_polyform:
        board = view.problem.board
        out["board"] = {"lattice": board.lattice, "dims": list(board.dims),
                        "cells": [_cell_json(board, c) for c in view.cells]}
        out["pieces"] = [{"name": h.name, "size": h.size, "count": h.count,
                          "heat": [h.heat[c] for c in view.cells]} for h in (view.heat(k) for k in kinds)]
        forced, impossible = view.options_of(kinds, forced), view.options_of(kinds, impossible)
    else:
        out["items"] = [{"item": name, "options": [{"option": k, "solutions": n} for k, n in uses]}
                        for name, uses in view.item_uses()]
        out["options"] = [{"option": k, "text": view.option_text(k), "solutions": n} for k, n in enumerate(per)]
    out["forced"] = [{"option": k, "text": view.option_text(k)} for k in forced]
    out["impossible"] = [{"option": k, "text": view.option_text(k)} for k in impossible]
    return out


def _cell_json(board, cell: Cell) -> dict[str, Any]:
    z, y, x = cell
    return {"cell": board.cell_name(cell), "row": y, "col": x, **({"layer": z} if board.space == 3 else {})}


def csv_rows(view: CensusView, piece: str | None = None) -> tuple[list[str], Iterator[list[Any]]]:
    """The census as ``census RUN --csv`` prints it: for a polyform problem one row per
    piece and free cell (its heat), else one row per option."""
    total = view.total
    if view.is_polyform:
        board = view.problem.board
        columns = ["piece", "cell", "layer", "row", "col", "solutions", "total"]
        rows = ([h.name, board.cell_name(c), *c, h.heat[c], total]
                for h in (view.heat(k) for k in view.piece_kinds(piece)) for c in view.cells)
        return columns, rows
    view.piece_kinds(piece)  # --piece refused
    per = view.census.per_option
    return ["option", "text", "solutions", "total"], ([k, view.option_text(k), n, total] for k, n in enumerate(per))
