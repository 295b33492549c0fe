"""Published New York Times grids (tests/core/data/crossword/nyt, each naming its source)
rebuilt from their clue strings alone — no start, no other hint: the published grid is
among the grids found, and the count is the same by the C search and the Python one
where the Python one is quick.  One published grid has too many grids to list from its clue
string alone (the asymmetric 15x15: 235,001,614): it is counted by the transfer method,
its first grids listed by the search, checked on the search tree and rebuilt from its
numbered squares.  Timings are in bench/bench_crossword.py, not here."""
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
    "nyt-2011-12-25-sunday-23x23-left-right.txt": 43_648,
    "nyt-2014-07-16-wednesday-15x15-left-right.txt": 76,
    "nyt-2015-06-19-friday-15x15-left-right.txt": 44,
}
#: quick enough for the Python reference here (under a second or so)
PYTHON_TOO = {"nyt-2010-01-05-tuesday-15x15.txt", "nyt-2014-07-16-wednesday-15x15-left-right.txt",
              "nyt-2015-06-19-friday-15x15-left-right.txt"}
#: counted by the transfer method too, in well under a second (the 2010 15x15 takes it 13 s)
TRANSFER_TOO = {"nyt-2011-12-25-sunday-23x23-left-right.txt", "nyt-2014-07-16-wednesday-15x15-left-right.txt",
                "nyt-2015-06-19-friday-15x15-left-right.txt"}
#: ten seconds or more of search each (tens of millions of nodes)
SLOW = {"nyt-2011-12-25-sunday-23x23-left-right.txt"}
#: no symmetry: with its numbered squares (the JSON's gridnums) these many fit
FROM_NUMBERS = {"nyt-2017-02-16-thursday-15x15-asymmetric.txt": 320}
#: ... and from its clue string alone these many, too many to list: the C transfer count
#: with the reachability table (about 0.35 s) and without it (128 s, 1.56 to 5.6 million
#: states a row; 2026-11-28) agree on it (see docs/models.md)
FROM_CLUES_ONLY = {"nyt-2017-02-16-thursday-15x15-asymmetric.txt": 235_001_614}
COUNTED = [p for p in FIXTURES if p.name in COUNTS]


def _params(paths: list[Path]) -> list:
    """The fixtures as test parameters, the slow ones marked ``slow``."""
    return [pytest.param(p, id=p.name, marks=[pytest.mark.slow] if p.name in SLOW else []) for p in paths]


def without_start(path: Path) -> tuple[Puzzle, Puzzle]:
    """The fixture's puzzle as read (its grid, no start: a file's rebuild goes by its clue
    string alone) and the same clue string with no grid."""
    given = from_grid_text(path.read_text(encoding="utf-8"), path.name)
    assert given.start is None
    bare = Puzzle.build(given.rows, given.cols, symmetry=given.symmetry, clues=given.clues)
    return given, bare


def test_fixtures_are_published_grids_with_sources():
    assert set(COUNTS) | set(FROM_NUMBERS) == {p.name for p in FIXTURES}
    assert not set(COUNTS) & set(FROM_NUMBERS)
    for path in FIXTURES:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert first.startswith("// NYT ") and "doshea/nyt_crosswords" in first
        given, _ = without_start(path)
        assert violation(given.given, given.rules) is None


@pytest.mark.parametrize("path", _params(COUNTED))
def test_rebuilt_from_the_clue_string_alone(path):
    given, bare = without_start(path)
    solver = CompiledCrosswordSolver(bare)
    res = solver.solve((), SolveRequest(listing=True))
    assert res.complete and res.count == COUNTS[path.name]
    target = solver.path_of(given.given)
    assert target is not None and target in res.solutions
    # every grid, or 200 spread over a long listing (43,648 grids take minutes in Python)
    step = max(1, len(res.solutions) // 200)
    assert all(solver.grid(s).clue_string() == bare.clues for s in res.solutions[::step])
    if path.name in PYTHON_TOO:
        ref = CrosswordSolver(bare).solve((), SolveRequest(listing=True))
        assert ref.solutions == res.solutions and ref.stats.nodes == res.stats.nodes
    if path.name in TRANSFER_TOO:
        assert TransferCounter(bare).count() == res.count


@pytest.mark.parametrize("path", _params(COUNTED))
def test_the_start_only_narrows(path):
    """With number 1's square given the same grids are found, in fewer nodes."""
    given, bare = without_start(path)
    hint = Puzzle.build(given.rows, given.cols, symmetry=given.symmetry, clues=given.clues,
                        start=given.given.first_square())
    hinted = CompiledCrosswordSolver(hint).solve((), SolveRequest(listing=True))
    free = CompiledCrosswordSolver(bare).solve((), SolveRequest(listing=True))
    assert hinted.count == free.count
    assert hinted.stats.nodes <= free.stats.nodes


@pytest.mark.parametrize("name", sorted(FROM_NUMBERS))
def test_out_of_reach_grid_lies_on_the_search_tree(name):
    """The clue string alone: the published grid is a leaf of the search's tree (its path
    replays to exactly one grid, itself), though the whole tree is too big to list."""
    given, bare = without_start(NYT / name)
    assert given.symmetry == "none"
    solver = CompiledCrosswordSolver(bare)
    target = solver.path_of(given.given)
    assert target is not None
    res = solver.solve(target, SolveRequest(listing=True))
    assert res.complete and res.count == 1 and res.solutions == [target]
    assert solver.grid(target).clue_string() == bare.clues


@pytest.mark.parametrize("name", sorted(FROM_CLUES_ONLY))
def test_too_many_to_list_counted_by_the_transfer_and_first_grids_listed(name):
    """The clue string alone: the C transfer count (the reachability table on) is the
    cross-checked count; the C search lists a first ten grids, each with that clue string."""
    from core.crossword import _transfer

    given, bare = without_start(NYT / name)
    assert _transfer.count(*TransferCounter(bare).c_arguments(), -1.0, -1)[0] == FROM_CLUES_ONLY[name]
    solver = CompiledCrosswordSolver(bare)
    res = solver.solve((), SolveRequest(listing=True, limit=10))
    assert res.count == 10 and res.stopped_by == "limit"
    assert all(solver.grid(s).clue_string() == bare.clues for s in res.solutions)


@pytest.mark.parametrize("name", sorted(FROM_CLUES_ONLY))
def test_the_method_choice_counts_it_whole(name):
    """Chosen by itself, the count is the transfer's, made whole during the choice: the
    planner neither counts again nor splits it into shares that would each make the
    reachability table again (65 shares took 74 s where the whole takes about 2 s)."""
    from core.crossword.problem import CrosswordProblem
    from core.engines import choose_method
    from core.solver_options import Method, SolverOptions

    _, bare = without_start(NYT / name)
    text = (f'kind = "crossword"\nrows = {bare.rows}\ncols = {bare.cols}\nsymmetry = "{bare.symmetry}"\n'
            f'clues = "{bare.clues}"\n')
    problem = CrosswordProblem({"kind": "crossword", "format": "toml", "text": text})
    choice = choose_method(problem, SolverOptions(method=Method.AUTO), whole_count=True)
    assert choice.options.method is Method.LEVELS
    assert choice.trial is not None and choice.trial.complete and choice.trial.count == FROM_CLUES_ONLY[name]


@pytest.mark.parametrize("name", sorted(FROM_CLUES_ONLY))
def test_the_pruned_transfer_is_tried_before_the_search_is_carried_on(name, monkeypatch):
    """A count the reachability table prunes (a clue string, no fold) is the transfer's to
    try first once the search's trial is slow: here it ends, so the search is never carried
    on (its 0.25 s slice was a quarter of a 0.9 s choice, 2026-11-28)."""
    from core import engines
    from core.crossword.problem import CrosswordProblem
    from core.solver_options import Method, SolverOptions

    _, bare = without_start(NYT / name)
    text = (f'kind = "crossword"\nrows = {bare.rows}\ncols = {bare.cols}\nsymmetry = "{bare.symmetry}"\n'
            f'clues = "{bare.clues}"\n')
    carried = []
    real = engines._carried_on
    monkeypatch.setattr(engines, "_carried_on", lambda *a, **k: carried.append(k) or real(*a, **k))
    problem = CrosswordProblem({"kind": "crossword", "format": "toml", "text": text})
    choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO), whole_count=True)
    assert choice.options.method is Method.LEVELS and choice.trial.count == FROM_CLUES_ONLY[name]
    assert carried == []


def _problem_of(path: Path):
    """The fixture as a crossword file holding only its size, symmetry and clue string."""
    from core.crossword.problem import CrosswordProblem

    _, bare = without_start(path)
    text = (f'kind = "crossword"\nrows = {bare.rows}\ncols = {bare.cols}\nsymmetry = "{bare.symmetry}"\n'
            f'clues = "{bare.clues}"\n')
    return CrosswordProblem({"kind": "crossword", "format": "toml", "text": text})


def test_a_folded_clue_string_gives_the_search_longer_before_the_transfer(monkeypatch):
    """A clue string on a folded kind (the rotational Sundays) is slow by the transfer and
    quick by the search: past its trial the search is carried on for
    OWN_SEARCH_FIRST_SECONDS, not the 0.25 s slice, before any transfer trial (the 1984
    Sunday needs 0.30-0.31 s: past the slice it went into the transfer's 1 s trial, 1.35 s
    in all); the unfolded and clue-less kinds keep the slice."""
    from core import engines
    from core.crossword.transfer_solver import transfer_is_slow
    from core.solver_options import Method, SolverOptions

    sunday = _problem_of(NYT / "nyt-1984-01-01-sunday-21x21.txt")
    assert transfer_is_slow(sunday.puzzle)
    assert not transfer_is_slow(_problem_of(NYT / "nyt-2011-12-25-sunday-23x23-left-right.txt").puzzle)
    assert not transfer_is_slow(Puzzle.build(13, 13, symmetry="rotational"))  # every grid: no clue string
    slices = []
    real = engines._carried_on
    monkeypatch.setattr(engines, "_carried_on", lambda *a, **k: slices.append(k.get("seconds")) or real(*a, **k))
    choice = engines.choose_method(sunday, SolverOptions(method=Method.AUTO), whole_count=True)
    assert slices[0] == engines.OWN_SEARCH_FIRST_SECONDS
    assert choice.solver.count() == COUNTS["nyt-1984-01-01-sunday-21x21.txt"]


@pytest.mark.parametrize("name", sorted(FROM_NUMBERS))
def test_out_of_reach_grid_rebuilt_from_its_numbered_squares(name):
    """With the numbered squares given too the count is small, and the C search, the
    Python one and the transfer method agree on it."""
    given, _ = without_start(NYT / name)
    numbered = [False] * (given.rows * given.cols)
    for n in given.given.numbering():
        numbered[n.row * given.cols + n.col] = True
    puzzle = Puzzle.build(given.rows, given.cols, symmetry=given.symmetry, clues=given.clues,
                          numbered=tuple(numbered))
    solver = CompiledCrosswordSolver(puzzle)
    res = solver.solve((), SolveRequest(listing=True))
    assert res.complete and res.count == FROM_NUMBERS[name]
    assert solver.path_of(given.given) in res.solutions
    ref = CrosswordSolver(puzzle).solve((), SolveRequest(listing=True))
    assert ref.solutions == res.solutions and ref.stats.nodes == res.stats.nodes
    assert TransferCounter(puzzle).count() == res.count


@pytest.mark.parametrize("name", sorted(FROM_CLUES_ONLY))
def test_time_budgets_hold_inside_the_table(name):
    """The table's own search heeds the caller's deadline: a 0.1 s transfer count stops
    (no count: the whole takes about 0.35 s, the table's making 0.12 s of it, 2026-11-28)
    and a 0.2 s search stops with a frontier; the search's frontier still names subtrees
    its continuation can search."""
    from core.crossword import _transfer

    _, bare = without_start(NYT / name)
    assert _transfer.count(*TransferCounter(bare).c_arguments(), 0.1, -1)[0] is None
    solver = CompiledCrosswordSolver(bare)
    res = solver.solve((), SolveRequest(seconds=0.2))
    assert res.stopped_by == "budget" and res.frontier
    more = solver.solve(res.frontier[-1].path, SolveRequest(listing=True, limit=1, seconds=30))
    assert more.count <= 1
