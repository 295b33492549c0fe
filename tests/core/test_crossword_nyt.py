"""Published New York Times grids (tests/core/data/crossword/nyt, each naming its source)
rebuilt from their clue strings alone — no start, no other hint: the published grid is
among the grids found, and the count is the same by the C search and the Python one
where the Python one is quick.  Timings are in bench/bench_crossword.py, not here."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.crossword import Puzzle
from core.crossword.compiled import CompiledCrosswordSolver
from core.crossword.parse import from_grid_text
from core.crossword.rules import violation
from core.crossword.search import CrosswordSolver
from core.crossword.transfer import TransferCounter
from core.search import SolveRequest

NYT = Path(__file__).parent / "data" / "crossword" / "nyt"
FIXTURES = sorted(NYT.glob("*.txt"))

#: grids that fit each clue string (the C search and, for the 15x15, the Python one)
COUNTS = {
    "nyt-1976-01-04-sunday-21x21.txt": 5,
    "nyt-1977-01-02-sunday-23x23.txt": 2,
    "nyt-1984-01-01-sunday-21x21.txt": 1,
    "nyt-2005-01-02-sunday-21x21.txt": 1,
    "nyt-2010-01-05-tuesday-15x15.txt": 1,
    "nyt-2014-07-16-wednesday-15x15-left-right.txt": 76,
    "nyt-2015-06-19-friday-15x15-left-right.txt": 44,
}
#: quick enough for the Python reference here (under a second or so)
PYTHON_TOO = {"nyt-2010-01-05-tuesday-15x15.txt", "nyt-2014-07-16-wednesday-15x15-left-right.txt",
              "nyt-2015-06-19-friday-15x15-left-right.txt"}
#: counted by the transfer method too, in well under a second (the 2010 15x15 takes it 13 s)
TRANSFER_TOO = {"nyt-2014-07-16-wednesday-15x15-left-right.txt", "nyt-2015-06-19-friday-15x15-left-right.txt"}


def without_start(path: Path) -> tuple[Puzzle, Puzzle]:
    """The fixture's puzzle as read (its grid, no start: a file's rebuild goes by its clue
    string alone) and the same clue string with no grid."""
    given = from_grid_text(path.read_text(encoding="utf-8"), path.name)
    assert given.start is None
    bare = Puzzle.build(given.rows, given.cols, symmetry=given.symmetry, clues=given.clues)
    return given, bare


def test_fixtures_are_published_grids_with_sources():
    assert set(COUNTS) == {p.name for p in FIXTURES}
    for path in FIXTURES:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("// NYT ") and "doshea/nyt_crosswords" in first
        given, _ = without_start(path)
        assert violation(given.given, given.rules) is None


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_rebuilt_from_the_clue_string_alone(path):
    given, bare = without_start(path)
    solver = CompiledCrosswordSolver(bare)
    res = solver.solve((), SolveRequest(listing=True))
    assert res.complete and res.count == COUNTS[path.name]
    target = solver.path_of(given.given)
    assert target is not None and target in res.solutions
    assert all(solver.grid(s).clue_string() == bare.clues for s in res.solutions)
    if path.name in PYTHON_TOO:
        ref = CrosswordSolver(bare).solve((), SolveRequest(listing=True))
        assert ref.solutions == res.solutions and ref.stats.nodes == res.stats.nodes
    if path.name in TRANSFER_TOO:
        assert TransferCounter(bare).count() == res.count


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_the_start_only_narrows(path):
    """With number 1's square given the same grids are found, in fewer nodes."""
    given, bare = without_start(path)
    hint = Puzzle.build(given.rows, given.cols, symmetry=given.symmetry, clues=given.clues,
                        start=given.given.first_square())
    hinted = CompiledCrosswordSolver(hint).solve((), SolveRequest(listing=True))
    free = CompiledCrosswordSolver(bare).solve((), SolveRequest(listing=True))
    assert hinted.count == free.count
    assert hinted.stats.nodes <= free.stats.nodes
