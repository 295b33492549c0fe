"""The census (core/census.py): beside the total, the solutions that use each option.

Checked against the reference, which lists every solution and tallies its options, and
against brute force, on random small exact covers (colors, multiplicities) and random
boards with and without symmetry; whole, below a partial cover and split (the census of
a split's subproblems add up to the whole); and the sum rules: the options covering a
primary item covered exactly once (a cell, a piece placed once) share out the total."""
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.census import Census, tally
from core.errors import CensusError
from core.exact_cover import ExactCover
from core.frontier import LevelCounter, refusal
from core.kernel import KernelSolver
from core.library import load
from core.reference import ReferenceSolver
from core.symmetry import OrbitCounter

sys.path.insert(0, os.path.dirname(__file__))
from test_frontier_properties import WIDTHS, plain_covers  # noqa: E402
from test_kernel_properties import SETTINGS, brute_force, exact_covers  # noqa: E402
from test_symmetry import DRAWN, problem_of, symmetric_problems  # noqa: E402

HEURISTICS = ["mrv", "first"]


def assert_sum_rules(ec: ExactCover, census: Census) -> None:
    """Every option's census is at most the total; the options covering a primary item
    covered exactly once (a board cell, a piece placed once) sum to the total."""
    assert len(census.per_option) == ec.n_options
    assert all(0 <= n <= census.total for n in census.per_option)
    for i in range(ec.n_primary):
        if ec.bound(i) == (1, 1):
            assert sum(census.per_option[k] for k in ec.covering[i]) == census.total, ec.items[i]


def assert_split_sums(solver, whole: Census, depths) -> None:
    """At each depth, the census of the split's subproblems add up to the whole."""
    for depth in depths:
        summed = Census.empty(len(whole.per_option))
        for sub in solver.split(depth):
            summed.add(solver.census(sub.path))
        assert summed == whole


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS))
def test_the_search_census_is_the_tally_of_every_solution(ec, heuristic):
    kernel = KernelSolver(ec, heuristic)
    census = kernel.census()
    assert census == ReferenceSolver(ec, heuristic).census()
    assert census == tally(brute_force(ec), ec.n_options)
    assert census.total == kernel.count()
    assert_sum_rules(ec, census)


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS), st.integers(0, 5), st.data())
def test_the_census_of_a_split_adds_up_to_the_whole(ec, heuristic, depth, data):
    kernel, reference = KernelSolver(ec, heuristic), ReferenceSolver(ec, heuristic)
    summed = Census.empty(ec.n_options)
    for sub in kernel.split(depth):
        part = kernel.census(sub.path)
        assert part == reference.census(sub.path)
        summed.add(part)
    assert summed == kernel.census()
    # below a partial cover (an option the search starts from): its census too
    k = data.draw(st.integers(0, ec.n_options - 1))
    if KernelSolver(ec, heuristic).solve().count and all(c == 0 for _, c in ec.options[k]):
        try:
            below = ReferenceSolver(ec, heuristic, given=(k,)).census()
        except ValueError:  # the option conflicts with itself (an item twice over its bound)
            return
        assert kernel.below((k,)).census() == below


@DRAWN
@given(symmetric_problems())
def test_the_census_by_orbits_is_the_plain_census(drawn):
    p = problem_of(drawn)
    if p is None:
        return
    ec = p.exact_cover()
    plain = p.solver(engine="reference").census()
    assert p.solver(method="search").census() == plain
    by_orbits = p.solver(symmetry=True, method="search")
    assert by_orbits.census() == plain
    assert p.solver(symmetry=True, engine="reference").census() == plain
    assert_sum_rules(ec, plain)
    if isinstance(by_orbits, OrbitCounter):
        assert_split_sums(by_orbits, plain, (1, 2, 3))


@settings(max_examples=1, deadline=None)
@given(st.just("dominoes-6x6"))
def test_the_memo_does_not_enter_a_census(name):
    """A count with the memo takes most of its subtrees from it on a domino board; a
    census, asked of the same solver, searches without it.  Each option's census is
    checked against a second method: the count, memo on, of the covers that contain it."""
    p = load(name)
    ec, hints = p.exact_cover(), p.search_hints()
    with_memo = KernelSolver(ec, hints.heuristic, hints.region, memo=True)
    counted = with_memo.solve()
    assert with_memo.memo_hits > 0  # (the memo does answer this count)
    census = with_memo.census()
    assert census.total == counted.count == 6728  # 6x6 domino tilings (OEIS A004003)
    assert_sum_rules(ec, census)
    for k in range(0, ec.n_options, 7):
        assert census.per_option[k] == with_memo.below((k,)).count(), ec.options[k]


def test_pentomino_6x10_census_by_search_and_by_orbits():
    """The 2,339 distinct 6x10 pentomino tilings, 9,356 in all: the census's sum rules,
    the X piece's census (the X is placed once in every solution), the census by orbits
    equal to the plain one."""
    p = load("pentomino-6x10")
    ec = p.exact_cover()
    plain = p.solver(method="search").census()
    assert plain.total == 9356
    assert_sum_rules(ec, plain)
    assert p.solver(method="search", symmetry=True).census() == plain


def test_a_solver_without_a_census_says_so():
    p = load("pentomino-6x10")
    with pytest.raises(CensusError, match="takes no census"):
        p.solver(method="bitboard").census()


# ----------------------------------------------------------------------------- by levels
@SETTINGS
@given(plain_covers(), st.sampled_from(WIDTHS), st.booleans(), st.data())
def test_the_census_by_levels_is_the_tally_of_every_solution(ec, words, walls, data):
    """In every key width, with walls inferred from the options or none, from the root
    and from below a node of the search (the items a path covers)."""
    counter = LevelCounter(ec, walls=walls, key_words=words)
    done = counter.census()
    assert done.status == "done"
    expected = ReferenceSolver(ec).census()
    assert done.census == expected
    for sub in KernelSolver(ec).split(data.draw(st.integers(1, 3))):
        covered = sorted({i for k in sub.path for i, _ in ec.options[k]})
        below = counter.census(covered).census
        below.credit(sub.path)  # (the start's own options are the caller's to credit)
        assert below == ReferenceSolver(ec).census(sub.path)


@SETTINGS
@given(plain_covers(), st.integers(0, 4))
def test_the_kernel_census_by_levels_splits_and_sums(ec, depth):
    solver = KernelSolver(ec, levels=True)
    whole = solver.census()
    assert solver.counted_by == "levels"
    assert whole == ReferenceSolver(ec).census()
    assert_split_sums(solver, whole, (depth,))


@DRAWN
@given(symmetric_problems())
def test_the_census_by_levels_and_orbits_is_the_plain_census(drawn):
    p = problem_of(drawn)
    if p is None:
        return
    ec = p.exact_cover()
    if refusal(ec) is not None:  # (a piece count of 2 is a multiplicity: levels refuse it)
        return
    plain = p.solver(engine="reference").census()
    by_levels = p.solver(method="levels")
    assert by_levels.census() == plain
    by_orbits = p.solver(method="levels", symmetry=True)
    assert by_orbits.census() == plain
    if isinstance(by_orbits, OrbitCounter):
        assert_split_sums(by_orbits, plain, (1, 2))


def fibonacci(n: int) -> int:
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.mark.parametrize("n", [1, 2, 7, 150])
def test_the_census_of_a_domino_strip_by_levels(n):
    """A 2 x n strip has F(n+1) domino tilings; those with an upright domino in column j
    tile the columns on either side: F(j+1) x F(n-j) (0-indexed j)."""
    p = load(f"dominoes-2x{n}")
    ec = p.exact_cover()
    census = p.solver(method="levels").census()
    assert census.total == fibonacci(n + 1)
    assert_sum_rules(ec, census)
    for k, option in enumerate(ec.options):
        a, b = (ec.items[i] for i, _ in option)
        if a[a.index("c"):] == b[b.index("c"):]:  # upright: one column
            j = int(a[a.index("c") + 1:])
            assert census.per_option[k] == fibonacci(j + 1) * fibonacci(n - j)


def test_a_census_past_2_to_the_128_is_refused_not_wrong():
    """F(201) > 2^128: the census by levels stops (status "overflow") and the solver says
    so in one line, where a search would never end."""
    p = load("dominoes-2x200")
    assert fibonacci(201) > 1 << 128
    counter = LevelCounter(p.exact_cover())
    assert counter.census().status == "overflow"
    with pytest.raises(CensusError, match="passes 2"):
        p.solver(method="levels").census()


def test_a_census_by_levels_past_its_memory_is_declined_then_searched():
    p = load("pentomino-3x20")
    ec, hints = p.exact_cover(), p.search_hints()
    counter = LevelCounter(ec, hints.board or hints.region)
    small = counter.census(max_bytes=4096)
    assert small.status == "declined" and small.census is None
    whole = counter.census()
    assert whole.status == "done" and small.peak_bytes <= 4096 < whole.peak_bytes
    solver = KernelSolver(ec, hints.heuristic, hints.region, memo=4096, levels=True, board=hints.board)
    assert solver.census() == whole.census
    assert solver.counted_by == "search"
    assert whole.census == KernelSolver(ec, hints.heuristic, hints.region).census()
