"""Estimates of crossword searches: within their band where random paths can size the
tree (counting every legal grid), a plain refusal where they cannot (a rebuild from a
clue string), and never a band whose top is below what a search already visited."""
from __future__ import annotations

import csv

import pytest

from core.crossword import Puzzle
from core.crossword.compiled import CompiledCrosswordSolver
from core.crossword.library import CSV_PATH
from core.estimate import CannotEstimate, estimate
from core.search import SolveRequest

with open(CSV_PATH, encoding="utf-8") as fh:
    LIBRARY = {int(r["number"]): r for r in csv.DictReader(fh)}


def library(n: int) -> Puzzle:
    r = LIBRARY[n]
    return Puzzle.build(int(r["rows"]), int(r["cols"]), symmetry=r["symmetry"], clues=r["clues"], start=int(r["start"]))


@pytest.mark.parametrize("pz", [Puzzle.build(5, 5), Puzzle.build(7, 7, symmetry="rotational"),
                                Puzzle.build(9, 9, symmetry="rotational"), Puzzle.build(7, 7, symmetry="left-right")],
                         ids=lambda p: p.describe())
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_every_grid_counts_are_estimated_within_the_band(pz, seed):
    solver = CompiledCrosswordSolver(pz)
    real = solver.solve().stats.nodes
    est = estimate(solver, 400, seed=seed, rate=1e6)
    assert est.nodes.low <= real <= est.nodes.high


@pytest.mark.parametrize("n", [20, 21, 23, 39, 53])
def test_rebuilds_from_clues_are_refused(n):
    with pytest.raises(CannotEstimate, match="cannot size a rebuild from a clue string"):
        estimate(CompiledCrosswordSolver(library(n)), 50, rate=1e6)


class Unrefusing(CompiledCrosswordSolver):
    """The search without its refusal: what the estimator alone would say."""

    def estimate_refusal(self):
        return None


def test_a_band_below_the_nodes_already_searched_is_refused():
    solver = Unrefusing(library(21))  # 1.3 million nodes; the random paths say a few dozen
    trial = solver.solve((), SolveRequest(node_budget=5_000))
    with pytest.raises(CannotEstimate, match="already visited 5,000"):
        estimate(solver, 200, rate=1e6, searched=trial.stats.nodes)
