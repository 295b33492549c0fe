"""The layer build for the square symmetries (core/crossword/peel.py) against the brute
force, the search and laws any counter keeps; the transfer engine's place in the
automatic choice of method (core/engines.py)."""
from __future__ import annotations

import functools
import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.crossword import Puzzle, Rules
from core.crossword.peel import PEELED, PeelCounter, count
from core.crossword.search import CrosswordSolver
from core.crossword.transfer_solver import TransferSolver
from core.engines import Method, SolverOptions, choose_method
from core.library import load

sys.path.insert(0, os.path.dirname(__file__))
from test_crossword_reference import brute_force  # noqa: E402

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
rules_st = st.builds(Rules, st.integers(1, 4), st.booleans(), st.booleans(), st.booleans())


@functools.lru_cache(maxsize=None)
def table(n, kind):
    return brute_force(n, n, kind)


@pytest.mark.parametrize("n", [3, 4, 5])
@pytest.mark.parametrize("kind", PEELED)
def test_every_rule_setting_agrees_with_the_brute_force(n, kind):
    for (mw, checked, connected, nbl), counter in table(n, kind).items():
        pz = Puzzle.build(n, n, rules=Rules(mw, checked, connected, nbl), symmetry=kind)
        assert count(pz) == sum(counter.values()), (mw, checked, connected, nbl)


@pytest.mark.parametrize("n,kind,rules", [
    (6, "diagonal", Rules()), (7, "diagonal", Rules()), (6, "anti-diagonal", Rules(3, True, False, True)),
    (6, "quarter-turn", Rules(2, False, True, False)), (8, "quarter-turn", Rules()), (6, "full", Rules(2, False, True, False)),
    (9, "full", Rules()), (7, "quarter-turn", Rules(2, False, True, False)),
])
def test_agrees_with_the_search(n, kind, rules):
    pz = Puzzle.build(n, n, rules=rules, symmetry=kind)
    assert count(pz) == CrosswordSolver(pz).count()


@SETTINGS
@given(st.integers(3, 7), st.sampled_from(PEELED), rules_st, st.data())
def test_fixing_a_square_splits_the_count(n, kind, rules, data):
    if n < rules.min_word:
        return
    pz = Puzzle.build(n, n, rules=rules, symmetry=kind)
    q = data.draw(st.integers(0, n * n - 1))
    fixed = [None] * (n * n)
    parts = []
    for colour in (True, False):
        fixed[q] = colour
        parts.append(count(pz, fixed))
    assert sum(parts) == count(pz)


@SETTINGS
@given(st.integers(3, 7), st.sampled_from(["diagonal", "quarter-turn"]), rules_st)
def test_a_mirror_image_keeps_the_count(n, kind, rules):
    """Anti-diagonal grids are diagonal grids read right to left; the other quarter turn
    (the same group) reached by the mirror: counts of whole grids agree."""
    if n < rules.min_word:
        return
    if kind == "diagonal":
        assert count(Puzzle.build(n, n, rules=rules, symmetry="diagonal")) == \
            count(Puzzle.build(n, n, rules=rules, symmetry="anti-diagonal"))
    else:
        full = count(Puzzle.build(n, n, rules=rules, symmetry="full"))
        assert full <= count(Puzzle.build(n, n, rules=rules, symmetry="quarter-turn"))


@pytest.mark.parametrize("kind", PEELED)
def test_the_solver_splits_square_kinds_by_layers(kind):
    solver = TransferSolver(Puzzle.build(7, 7, symmetry=kind))
    whole = solver.count()
    for depth in (1, 2):
        frontier = solver.split(depth)
        assert sum(s.weight for s in frontier) == 1
        assert sum(solver.count(s.path) for s in frontier) == whole
    assert whole == PeelCounter(Puzzle.build(7, 7, symmetry=kind)).count()


# -- the automatic choice --------------------------------------------------------------------------
AUTO = SolverOptions(method=Method.AUTO)


def test_a_count_the_search_cannot_finish_at_once_goes_to_the_transfer():
    choice = choose_method(load("crossword-all-11x11-left-right"), AUTO, whole_count=True)
    assert choice.method is Method.LEVELS and choice.reason.startswith("levels: the transfer method")
    assert isinstance(choice.solver, TransferSolver)
    assert choice.trial is not None and choice.trial.count == choice.solver.count() == 34_035_406


def test_a_small_count_stays_with_the_search():
    choice = choose_method(load("crossword-all-5x5"), AUTO, whole_count=True)
    assert choice.method is Method.SEARCH and choice.trial is not None and choice.trial.count == 104


def _nyt_rebuild_choice(name: str):
    """The method choice of a whole count of an NYT fixture's clue string (no start)."""
    from pathlib import Path

    from core.crossword import CrosswordProblem
    from core.crossword.parse import from_grid_text

    path = Path(__file__).parent / "data" / "crossword" / "nyt" / name
    pz = from_grid_text(path.read_text(encoding="utf-8"), path.name)
    text = (f'kind = "crossword"\nrows = {pz.rows}\ncols = {pz.cols}\nsymmetry = "{pz.symmetry}"\n'
            f'clues = "{pz.clues}"\n')
    return choose_method(CrosswordProblem({"kind": "crossword", "format": "toml", "source_name": "t.toml",
                                           "text": text}), AUTO, whole_count=True)


def test_a_search_kept_after_its_trial_hands_its_count_to_the_planner():
    """A rebuild from a clue string whose search the 50 ms trial forecasts far too long
    (NYT Sunday 1976-01-04): the search is carried on from the trial and its count handed
    on as the choice's trial, so the planner does not search it again; the transfer
    (which takes this one a minute) is not chosen."""
    choice = _nyt_rebuild_choice("nyt-1976-01-04-sunday-21x21.txt")
    assert choice.method is Method.SEARCH, choice.reason
    assert choice.trial is not None and choice.trial.complete and choice.trial.count == 5


def test_a_search_whose_forecast_undershot_goes_on_to_the_transfer():
    """NYT Sunday 2011-12-25 (23x23, left-right): the search's 50 ms trial covers 98% of
    its tree's weight, yet the search takes 10 s or more (43,648 grids to list); carried
    on for its second and still unfinished, it yields to the transfer, which counts them."""
    choice = _nyt_rebuild_choice("nyt-2011-12-25-sunday-23x23-left-right.txt")
    assert choice.method is Method.LEVELS, choice.reason
    assert choice.trial is not None and choice.trial.complete and choice.trial.count == 43_648


def test_listing_never_goes_to_the_transfer():
    choice = choose_method(load("crossword-all-9x9-rotational"), AUTO, whole_count=False)
    assert choice.method is Method.SEARCH


def test_a_square_kind_with_clues_stays_with_the_search_and_says_why():
    from core.crossword import CrosswordProblem

    spec = {"kind": "crossword", "format": "toml", "source_name": "t.toml",
            "text": 'kind = "crossword"\nrows = 13\ncols = 13\nsymmetry = "quarter-turn"\nclues = "' + "Z" * 9 + '"\n'}
    choice = choose_method(CrosswordProblem(spec), AUTO, whole_count=True)
    assert choice.method is Method.SEARCH


def test_by_levels_on_a_crossword_is_the_transfer():
    from core.engines import solver_for

    solver = solver_for(load("crossword-all-7x7"), SolverOptions(method=Method.LEVELS))
    assert isinstance(solver, TransferSolver) and solver.count() == 58_684
