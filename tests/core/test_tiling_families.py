"""The tiling families (``dominoes-RxC``, ``trominoes-RxC``, ``tetrominoes-RxC``,
``pentominoes-RxC``) counted by levels against counts computed without the code under
test: Kasteleyn's product formula, A174248's generating function, published terms."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import ProblemError
from core.frontier import LevelCounter
from core.library import load
from core.level_shares import LevelShares
from core.reference import ReferenceSolver
from core.solver_options import LevelPlan

from known_tilings import A174249, A230031_ROWS, A233427_ROW_10, a174248, kasteleyn


def by_levels(name: str, threads: int = 1) -> int:
    """The whole count of a named tiling by levels, as ``solve`` takes it (LevelShares);
    0 where the model refuses the board because no number of pieces fits its area (the
    published tables' zeros)."""
    try:
        problem = load(name)
        problem.exact_cover()
    except ProblemError as exc:
        if "covers exactly" in str(exc):
            return 0
        raise
    hints = problem.search_hints()
    return LevelShares(problem.exact_cover(), hints.board or hints.region, LevelPlan(threads=threads)).count()


def test_the_formula_here_is_kasteleyn_s():
    # the published domino counts of the squares (A004003), against the formula's rounding
    assert [kasteleyn(n, n) for n in (2, 4, 6, 8, 10, 12)] == [2, 36, 6728, 12988816, 258584046368,
                                                               53060477521960000]


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 11), st.integers(1, 11), st.integers(1, 2))
def test_domino_rectangles_equal_kasteleyn_s_product(m, n, threads):
    assert by_levels(f"dominoes-{m}x{n}", threads) == kasteleyn(m, n)


@pytest.mark.parametrize("n", [12, 14, 16, 18, 20])
def test_domino_squares_up_to_20x20_equal_kasteleyn_s_product(n):
    assert by_levels(f"dominoes-{n}x{n}", threads=2) == kasteleyn(n, n)  # 20x20: past 2^128


def test_tetrominoes_on_4_by_n_follow_a174248_s_generating_function():
    expected = a174248(121)
    for n in list(range(0, 41)) + [77, 120]:
        if n == 0:
            continue
        assert by_levels(f"tetrominoes-4x{n}") == expected[n], n


@pytest.mark.slow
def test_tetrominoes_on_4_by_1000_follow_a174248_s_generating_function():
    assert by_levels("tetrominoes-4x1000", threads=2) == a174248(1001)[1000]


def test_pentominoes_on_5_by_n_equal_a174249():
    for n, expected in enumerate(A174249):
        if n:
            assert by_levels(f"pentominoes-5x{n}") == expected, n


@pytest.mark.parametrize("rows", sorted(A230031_ROWS))
def test_tetromino_rectangles_equal_a230031(rows):
    for n, expected in enumerate(A230031_ROWS[rows]):
        if n:
            assert by_levels(f"tetrominoes-{rows}x{n}") == expected, (rows, n)


def test_pentomino_rectangles_equal_a233427():
    for n, expected in enumerate(A233427_ROW_10):
        if n:
            assert by_levels(f"pentominoes-10x{n}") == expected, n


@pytest.mark.parametrize("family", ["trominoes", "tetrominoes", "pentominoes"])
def test_small_rectangles_equal_the_reference_search(family):
    """Every rectangle of up to 18 cells, against the pure-Python reference search."""
    for r in range(1, 7):
        for c in range(r, 19 // r + 1):
            name = f"{family}-{r}x{c}"
            expected = ReferenceSolver(load(name).exact_cover()).count() if by_levels(name) else 0
            assert by_levels(name) == expected, name


def test_the_rectangle_turned_counts_the_same():
    for name in ("tetrominoes-4x9", "pentominoes-5x8", "trominoes-3x7", "dominoes-3x10"):
        family, size = name.split("-")
        r, c = size.split("x")
        assert by_levels(name) == by_levels(f"{family}-{c}x{r}")


def test_a_family_name_past_its_limits_is_a_clean_error():
    with pytest.raises(ProblemError, match="R\\*C at most"):
        load("pentominoes-300x300")
    with pytest.raises(ProblemError, match="at least 1"):
        load("tetrominoes-0x5")


def test_the_families_keep_their_walls_and_window():
    problem = load("pentominoes-8x10")
    hints = problem.search_hints()
    counter = LevelCounter(problem.exact_cover(), hints.board or hints.region)
    assert counter.has_walls and counter.period == 8 and counter.reach == 32  # 4 rows of 8 past a lead
