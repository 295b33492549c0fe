"""Every n x n crossword grid with 180-degree symmetry against the published counts.

Source: Michael Kleber, math-fun mailing list, February 2019 ("corrected values",
https://mailman.xmission.com/hyperkitty/list/mathfun@mailman.xmission.com/message/CL4MVPRKP2JSQDUBMK5VFTJCY7O62LDB),
proposing edits for OEIS A323838 and A323839.  His rules: every white square checked
(in an Across and a Down word), words of 3 or more letters, 180-degree symmetry, white
squares connected; so a grid has a white square (the all-black grid has no words).
"No black edges" (no all-black outer row or column; in a connected grid the same as no
all-black row or column at all) is A323838, "all grids" is A323839 — by these two
sources: Kleber's message, and the akshayravikumar/crosswords README, whose DP excludes
grids whose outer rows or columns are all black and "matches A323838 through 15x15".
OEIS itself could not be read offline.  The 15x15 terms are in bench/bench_crossword.py.
"""
from __future__ import annotations

import pytest

from core.crossword import Puzzle, Rules
from core.crossword import _transfer
from core.crossword.transfer import TransferCounter

#: A323838, n = 3, 5, ..., 13: no all-black row or column (the default rules here)
A323838 = {3: 1, 5: 12, 7: 312, 9: 31_187, 11: 17_438_702, 13: 40_575_832_476}
#: A323839, n = 3, 5, ..., 13: all-black rows and columns allowed
A323839 = {3: 1, 5: 15, 7: 397, 9: 35_324, 11: 18_446_134, 13: 41_752_489_852}

CASES = [(n, True, A323838[n]) for n in A323838] + [(n, False, A323839[n]) for n in A323839]


def every_rotational_grid(n: int, no_black_lines: bool) -> int:
    """Every n x n grid with 180-degree symmetry, by the C transfer count."""
    pz = Puzzle.build(n, n, symmetry="rotational", rules=Rules(no_black_lines=no_black_lines))
    return _transfer.count(*TransferCounter(pz).c_arguments(), -1.0, -1)[0]


@pytest.mark.parametrize("n,no_black_lines,published", [c for c in CASES if c[0] <= 11])
def test_every_rotational_grid_matches_kleber(n, no_black_lines, published):
    assert every_rotational_grid(n, no_black_lines) == published


@pytest.mark.slow
@pytest.mark.parametrize("no_black_lines,published", [(True, A323838[13]), (False, A323839[13])])
def test_every_13x13_rotational_grid_matches_kleber(no_black_lines, published):
    """15-25 CPU seconds each (docs/performance.md)."""
    assert every_rotational_grid(13, no_black_lines) == published


@pytest.mark.parametrize("n,no_black_lines,published", [c for c in CASES if c[0] <= 7])
def test_the_python_reference_and_the_search_match_kleber(n, no_black_lines, published):
    from core.crossword.search import CrosswordSolver

    pz = Puzzle.build(n, n, symmetry="rotational", rules=Rules(no_black_lines=no_black_lines))
    assert TransferCounter(pz).count() == published
    assert CrosswordSolver(pz).count() == published


@pytest.mark.parametrize("kind", ["rotational", "none", "three-way", "quarter-turn", "diagonal", "full"])
@pytest.mark.parametrize("n", [2, 3])
def test_the_all_black_grid_is_never_counted(kind, n):
    """With every rule off, every colouring but the all-black one: 2^orbits - 1, by the C
    transfer (or layer build), the search and the compiled search."""
    from core.crossword import symmetry as sym
    from core.crossword.compiled import CompiledCrosswordSolver
    from core.crossword.search import CrosswordSolver
    from core.crossword.transfer_solver import c_count

    rules = Rules(min_word=1, checked=False, connected=False, no_black_lines=False)
    pz = Puzzle.build(n, n, symmetry=kind, rules=rules)
    want = 2 ** len(set(sym.orbits(kind, n, n))) - 1
    assert c_count(pz) == CrosswordSolver(pz).count() == CompiledCrosswordSolver(pz).count() == want


def test_the_all_black_grid_breaks_the_rules_and_rebuilds_nothing():
    """The brute-force check names the rule; a given all-black grid is a clean error; an
    empty clue string (the all-black grid's) rebuilds no grid."""
    from core.crossword import Grid, violation
    from core.crossword.search import CrosswordSolver
    from core.crossword.transfer_solver import c_count
    from core.errors import ProblemError
    from core.crossword.parse import from_toml

    loose = Rules(no_black_lines=False, connected=False)
    assert violation(Grid(3, 3, (True,) * 9), loose) == "the grid has no white square"
    assert violation(Grid(3, 3, (False,) * 9), loose) is None
    with pytest.raises(ProblemError, match="no white square"):
        from_toml('kind = "crossword"\nno_black_lines = false\ngrid = """\n###\n###\n###\n"""\n')
    pz = Puzzle.build(3, 3, rules=loose, clues="")
    assert CrosswordSolver(pz).count() == c_count(pz) == 0
