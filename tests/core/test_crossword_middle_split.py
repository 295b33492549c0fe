"""Whole counts of every grid of a size: the C transfer's state merges (edge-only `seen`,
left-right mirror) against the Python reference, its layer profile, and the split by the
state at a middle row (core/crossword/middle_split.py): shares add up to the whole and to
the search's count."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.crossword import Puzzle, Rules
from core.crossword import _transfer
from core.crossword.search import CrosswordSolver
from core.crossword.transfer import SUPPORTED, TransferCounter, count
from core.crossword.transfer_solver import TransferSolver, c_count

ALL_RULES = [Rules(mw, ch, co, nbl) for mw in (2, 3) for ch in (False, True) for co in (False, True)
             for nbl in (False, True)]


@pytest.mark.parametrize("kind", sorted(SUPPORTED))
@pytest.mark.parametrize("R,C", [(4, 4), (5, 5), (5, 6), (6, 5), (6, 6)])
def test_whole_counts_with_merged_states_equal_the_reference(kind, R, C):
    """Every rule setting: the merges apply only where they keep the count."""
    for rules in ALL_RULES:
        pz = Puzzle.build(R, C, rules=rules, symmetry=kind)
        assert c_count(pz) == count(pz), rules


@pytest.mark.parametrize("R,C,kind", [(9, 9, "rotational"), (8, 8, "up-down"), (7, 7, "none"),
                                      (9, 9, "left-right")])
def test_the_profile_is_the_count_layer_by_layer(R, C, kind):
    args = TransferCounter(Puzzle.build(R, C, symmetry=kind)).c_arguments()
    got, states, done, _ = _transfer.count(*args, -1.0, -1)
    total, layers, moves, _ = _transfer.profile(*args, -1.0, -1)
    steps = R // 2 if kind in ("rotational", "up-down") else R
    assert total == got
    assert len(layers) == steps and max(layers) == states
    assert len(moves) == steps + 1 and sum(moves) == done


def test_a_stopped_profile_has_the_layers_it_built():
    args = TransferCounter(Puzzle.build(11, 11, symmetry="rotational")).c_arguments()
    total, layers, moves, _ = _transfer.profile(*args, -1.0, 5_000)
    assert total is None and 0 < len(layers) < 5 and len(moves) == len(layers)


def test_the_mirror_merge_nearly_halves_the_states():
    """Whole counts merge mirror images; one row's patterns not closed under the mirror
    (one lopsided pattern left out) keep them apart."""
    counter = TransferCounter(Puzzle.build(9, 9, symmetry="rotational"))
    merged = max(_transfer.profile(*counter.c_arguments(), -1.0, -1)[1])
    first = counter._allowed(0)
    lopsided = next(p for p in first if counter._rev(p) != p)
    apart = counter.c_arguments(restrict={0: [p for p in first if p != lopsided]})
    assert merged < 0.6 * max(_transfer.profile(*apart, -1.0, -1)[1])


rows_kinds = st.sampled_from(sorted(SUPPORTED))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(3, 7), st.integers(3, 7), rows_kinds, st.sampled_from(ALL_RULES), st.integers(1, 9), st.data())
def test_shares_at_any_middle_row_add_up_to_the_whole(R, C, kind, rules, shares, data):
    """The split law: the shares of any split row partition the count, with weights 1."""
    pz = Puzzle.build(R, C, rules=rules, symmetry=kind)
    top = TransferCounter(pz).top_rows()
    row = data.draw(st.integers(0, top - 1))
    solver = TransferSolver(pz, split_row=row, shares=shares)
    whole = c_count(pz)
    for depth in (1, 2):
        frontier = solver.split(depth)
        assert sum(s.weight for s in frontier) == 1
        assert sum(solver.count(s.path) for s in frontier) == whole


@pytest.mark.parametrize("R,C,kind", [(7, 7, "rotational"), (6, 6, "none"), (7, 7, "left-right"), (8, 7, "up-down"),
                                      (7, 7, "three-way")])
def test_shares_add_up_to_the_search(R, C, kind):
    pz = Puzzle.build(R, C, symmetry=kind)
    solver = TransferSolver(pz)
    frontier = solver.split(1)
    assert len(frontier) > 1
    assert sum(solver.count(s.path) for s in frontier) == CrosswordSolver(pz).count()


def test_a_share_keeps_mirror_pairs_together():
    solver = TransferSolver(Puzzle.build(11, 11, symmetry="rotational"))
    rev = solver.counter._rev
    for share in solver.tree.slices:
        assert {rev(p) for p in share} == set(share)
    assert sum(len(s) for s in solver.tree.slices) == len(solver.counter.candidates(solver.tree.row, 0))


def test_shares_of_every_11x11_rotational_grid():
    solver = TransferSolver(Puzzle.build(11, 11, symmetry="rotational"))
    frontier = solver.split(1)
    assert len(frontier) == len(solver.tree.slices) > 16
    assert sum(s.weight for s in frontier) == Fraction(1)
    assert sum(solver.count(s.path) for s in frontier) == 17_438_702
