"""The transfer method (core/crossword/transfer.py), the second crossword counter.

Checked against the brute force of test_crossword_reference (every rule on and off, every
supported symmetry, counting all grids and rebuilding clue strings with and without a
start), against laws that hold for any correct counter (fixing a square splits the count,
transposing a grid keeps it), against the search (whole puzzles and the subtrees of a
split search), and against every count of the seed's library.
"""
from __future__ import annotations

import csv
import functools
import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.crossword import Grid, Puzzle, Rules
from core.crossword import symmetry as sym
from core.crossword.library import ALL_GRID_COUNTS, CSV_PATH, FOUND_COUNTS
from core.crossword.search import BLACK, WHITE, CrosswordSolver
from core.crossword.reachable import row_letters
from core.crossword.transfer import SUPPORTED, TransferCounter, count, row_patterns

sys.path.insert(0, os.path.dirname(__file__))
from test_crossword_reference import brute_force  # noqa: E402

with open(CSV_PATH, encoding="utf-8") as fh:
    LIBRARY = {int(r["number"]): r for r in csv.DictReader(fh)}

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: sizes whose every symmetric grid the brute force visits in a few seconds at most
BRUTE_SIZES = [
    (3, 3, "none"), (3, 4, "none"), (4, 3, "none"), (4, 4, "none"), (3, 5, "left-right"),
    (4, 4, "left-right"), (4, 4, "up-down"), (4, 5, "up-down"), (3, 3, "rotational"),
    (4, 4, "rotational"), (5, 4, "rotational"), (5, 5, "rotational"), (5, 5, "three-way"),
]
RULE_SETTINGS = [(mw, ch, co, nbl) for mw in (2, 3) for ch in (False, True) for co in (False, True)
                 for nbl in (False, True)]


@functools.lru_cache(maxsize=None)
def table(R, C, kind):
    return brute_force(R, C, kind)


def puzzle_of(n: int) -> Puzzle:
    r = LIBRARY[n]
    return Puzzle.build(int(r["rows"]), int(r["cols"]), symmetry=r["symmetry"], clues=r["clues"], start=int(r["start"]))


# -- the pieces --------------------------------------------------------------------------------
def test_row_patterns_are_the_rows_with_allowed_runs():
    for C, L, checked, nbl in [(5, 3, True, True), (6, 2, False, False), (7, 4, False, True)]:
        got = set(row_patterns(C, L, checked, nbl))
        for mask in range(1 << C):
            runs = [len(x) for x in format(mask, f"0{C}b").split("0") if x]
            ok = all((n == 1 and not checked) or n >= L for n in runs) and (mask != 0 or not nbl)
            assert (mask in got) == ok


@SETTINGS
@given(st.integers(1, 8), st.data())
def test_letters_agree_with_grid_numbering(C, data):
    """The mask arithmetic numbers a middle row like Grid.numbering does."""
    rows = [data.draw(st.integers(0, (1 << C) - 1)) for _ in range(3)]
    g = Grid(3, C, tuple(not (row >> c & 1) for row in rows for c in range(C)))
    s, mask = row_letters(rows[1], rows[0], rows[2])
    nums = [n for n in g.numbering() if n.row == 1]
    assert s == "".join(n.letter for n in nums)
    assert mask == sum(1 << n.col for n in nums)


def test_unsupported_symmetries_raise():
    for kind in set(sym.NAMES) - set(SUPPORTED):
        with pytest.raises(ValueError, match="does not support"):
            TransferCounter(Puzzle.build(5, 5, symmetry=kind))


# -- against the brute force -------------------------------------------------------------------
@SETTINGS
@given(st.sampled_from(BRUTE_SIZES), st.sampled_from(RULE_SETTINGS), st.data())
def test_agrees_with_brute_force(size, setting, data):
    R, C, kind = size
    mw, checked, connected, nbl = setting
    rules = Rules(mw, checked, connected, nbl)
    counter = table(R, C, kind)[setting]
    mode = data.draw(st.sampled_from(["all", "clues", "start", "other"]))
    if mode == "all":
        assert count(Puzzle.build(R, C, rules=rules, symmetry=kind)) == sum(counter.values())
        return
    keys = sorted(counter)
    if not keys:
        return
    clues, first = data.draw(st.sampled_from(keys))
    if mode == "clues":
        want = sum(n for (c, _), n in counter.items() if c == clues)
        assert count(Puzzle.build(R, C, rules=rules, symmetry=kind, clues=clues)) == want
    elif mode == "start":
        start = first or data.draw(st.integers(1, R * C))
        pz = Puzzle.build(R, C, rules=rules, symmetry=kind, clues=clues, start=start)
        assert count(pz) == counter.get((clues, start), 0)
    else:  # a clue string one letter longer or changed: often no grid at all
        i = data.draw(st.integers(0, len(clues)))
        other = clues[:i] + data.draw(st.sampled_from("ADZ")) + clues[i + 1:]
        want = sum(n for (c, _), n in counter.items() if c == other)
        assert count(Puzzle.build(R, C, rules=rules, symmetry=kind, clues=other)) == want


# -- laws -----------------------------------------------------------------------------------------
rules_st = st.builds(Rules, st.integers(1, 4), st.booleans(), st.booleans(), st.booleans())


@SETTINGS
@given(st.integers(3, 6), st.integers(3, 6), st.sampled_from(sorted(SUPPORTED)), rules_st, st.data())
def test_fixing_a_square_splits_the_count(R, C, kind, rules, data):
    """Every grid has the square black or white: the two counts add up to the whole."""
    if min(R, C) < rules.min_word or R * C > 30:
        return
    pz = Puzzle.build(R, C, rules=rules, symmetry=kind)
    q = data.draw(st.integers(0, R * C - 1))
    fixed = [None] * (R * C)
    parts = []
    for colour in (True, False):
        fixed[q] = colour
        parts.append(count(pz, fixed))
    assert sum(parts) == count(pz)


TRANSPOSED = {"none": "none", "left-right": "up-down", "up-down": "left-right", "rotational": "rotational",
              "three-way": "three-way"}


@SETTINGS
@given(st.integers(3, 6), st.integers(3, 6), st.sampled_from(sorted(SUPPORTED)), rules_st)
def test_transposing_keeps_the_count(R, C, kind, rules):
    """The rules do not tell rows from columns, but the method builds rows only."""
    if min(R, C) < rules.min_word or R * C > 30:
        return
    a = count(Puzzle.build(R, C, rules=rules, symmetry=kind))
    assert a == count(Puzzle.build(C, R, rules=rules, symmetry=TRANSPOSED[kind]))


# -- against the search ---------------------------------------------------------------------------
@settings(SETTINGS, max_examples=80)
@given(st.integers(1, 6), st.integers(1, 6), st.sampled_from(sorted(SUPPORTED)), rules_st, st.data())
def test_agrees_with_search(R, C, kind, rules, data):
    """Longer words, thin and larger grids than the brute force reaches; the clue string
    of a random grid (legal or not) with its start."""
    if min(R, C) < rules.min_word or (kind == "none" and R * C > 25):
        return
    n = len(set(sym.orbits(kind, R, C)))
    black = sym.from_orbits(kind, R, C, data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    g = Grid(R, C, black)
    start = g.first_square() if data.draw(st.booleans()) and g.first_square() and all(black[:g.first_square() - 1]) else None
    pz = Puzzle.build(R, C, rules=rules, symmetry=kind, clues=g.clue_string(), start=start)
    assert count(pz) == CrosswordSolver(pz).count()


def subtree_fixed(solver: CrosswordSolver, path) -> list[bool | None]:
    """The squares a subtree of the search has decided (its grids are exactly the grids
    with those colours)."""
    st_ = solver._replay(path)[0]
    return [True if x == BLACK else False if x == WHITE else None for x in st_.color]


@pytest.mark.parametrize("n,depth", [(39, 6), (53, 8), (54, 10), (20, 6), (31, 8)])
def test_subtrees_of_the_search(n, depth):
    """Each subtree of a split search, counted by both methods."""
    pz = puzzle_of(n)
    solver = CrosswordSolver(pz)
    frontier = solver.split(depth)
    assert len(frontier) > 3
    total = 0
    for sub in frontier:
        got = count(pz, subtree_fixed(solver, sub.path))
        assert got == solver.count(sub.path), sub.path
        total += got
    assert total == count(pz)


def test_numbered_squares_from_gridnums():
    g = Grid.from_text("...###...\n...###...\n...###...\n...###...\n#.......#\n"
                       "##.....##\n##.....##\n###...###\n###...###\n")
    nums = {n.row * 9 + n.col for n in g.numbering()}
    pz = Puzzle.build(9, 9, symmetry="left-right", clues=g.clue_string(),
                      numbered=tuple(q in nums for q in range(81)))
    assert count(pz) == CrosswordSolver(pz).count() >= 1


# -- the seed's library ---------------------------------------------------------------------------
SEED_KNOWN = [n for n, r in LIBRARY.items() if r["expected_grids"].strip() and puzzle_of(n).symmetry in SUPPORTED]


@pytest.mark.parametrize("n", SEED_KNOWN)
def test_library_seed_counts(n):
    assert count(puzzle_of(n)) == int(LIBRARY[n]["expected_grids"])


SLOW_FOUND = {57}  # about 16 s


@pytest.mark.parametrize("n", [n for n in FOUND_COUNTS if n not in SLOW_FOUND])
def test_library_found_counts(n):
    assert count(puzzle_of(n)) == FOUND_COUNTS[n]


@pytest.mark.slow
@pytest.mark.parametrize("n", sorted(SLOW_FOUND))
def test_library_found_counts_slow(n):
    assert count(puzzle_of(n)) == FOUND_COUNTS[n]


SLOW_ALL = {(11, 11, "rotational")}  # about 11 s


@pytest.mark.parametrize("key", sorted(set(ALL_GRID_COUNTS) - SLOW_ALL), ids=lambda k: f"{k[0]}x{k[1]}-{k[2]}")
def test_all_grid_counts(key):
    R, C, kind = key
    assert count(Puzzle.build(R, C, symmetry=kind)) == ALL_GRID_COUNTS[key]


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(SLOW_ALL), ids=lambda k: f"{k[0]}x{k[1]}-{k[2]}")
def test_all_grid_counts_slow(key):
    R, C, kind = key
    assert count(Puzzle.build(R, C, symmetry=kind)) == ALL_GRID_COUNTS[key]
