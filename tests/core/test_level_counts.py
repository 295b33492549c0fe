"""Counting by levels on published counts (no symmetry breaking), through the library."""
from __future__ import annotations

import pytest

from core.library import load
from core.polyform import problem_from_text
from core.search import SolveRequest


@pytest.mark.parametrize(
    "name, expected",
    [
        ("pentomino-6x10", 9_356),
        ("pentomino-5x12", 4_040),
        ("pentomino-8x8-centre", 520),
        ("soma", 11_520),
        ("dominoes-8x8", 12_988_816),
        ("dominoes-10x10", 258_584_046_368),
        ("dominoes-12x12", 53_060_477_521_960_000),  # 144 items: counted in one window
        ("dominoes-16x16", 2_444_888_770_250_892_795_802_079_170_816),  # 256 items, past 2^64
        ("sudoku-6x6", 28_200_960),  # 144 items: 36 cells, then a tail of 108 constraints
        ("latin-5", 161_280),
    ],
)
def test_published_counts_by_levels(name, expected):
    solver = load(name).solver(levels=True)
    assert solver.count() == expected
    assert solver.counted_by == "levels"


def test_level_count_equals_the_memoised_search_on_a_bigger_board():
    problem = load("dominoes-10x12")  # 120 items: near the level count's 128
    assert problem.solver(levels=True).count() == problem.solver().count()


def test_a_long_strip_past_128_cells_by_levels_equals_the_memoised_search():
    text = 'kind = "polyform"\nsize = [4, 45]\n[[pieces]]\nname = "L"\nshape = """\n#.\n##\n"""\ncount = "any"\n'
    problem = problem_from_text(text, format="toml")  # 180 cells
    solver = problem.solver(levels=True)
    assert solver.count() == problem.solver().count() and solver.counted_by == "levels"


def test_tromino_tilings_of_4x18_by_levels():
    text = 'kind = "polyform"\nsize = [4, 18]\n[[pieces]]\nname = "L"\nshape = """\n#.\n##\n"""\ncount = "any"\n'
    assert problem_from_text(text, format="toml").solver(levels=True).count() == 16_072


@pytest.mark.parametrize("pieces, expected", [("trominoes", 80_092), ("tetrominoes", 178_939)])
def test_6x6_tilings_by_levels(pieces, expected):
    text = f'kind = "polyform"\nsize = [6, 6]\n[[pieces]]\nset = "{pieces}"\ncount = "any"\n'
    assert problem_from_text(text, format="toml").solver(levels=True).count() == expected


def test_a_level_count_past_2_to_the_128_is_exact():
    from core.exact_cover import ExactCover
    from core.kernel import KernelSolver

    # 81 items, each taken by any of 3 options of its own: 3^81 > 2^128 covers (the formula)
    ec = ExactCover.from_indices([f"i{j}" for j in range(81)], 81, [[(j, 0)] for j in range(81) for _ in range(3)])
    solver = KernelSolver(ec, levels=True)
    assert solver.solve().count == 3**81 and solver.counted_by == "levels"
    assert solver.solve([0, 3, 6]).count == 3**78 and solver.counted_by == "levels"
    # under a budget the search hands on the rest, each part below 2^128
    search = KernelSolver(ec)
    part = search.solve((), SolveRequest(seconds=600))
    assert not part.complete and part.frontier and part.count < 2**128
