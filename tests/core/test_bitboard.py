"""The bitboard engine (core/bitboard.py) keeps the search contract: counts and listings
equal the kernel's (and the reference's), splits and budgets partition its own tree,
limits resume, ``given`` starts below a placement, bad paths and inputs are errors."""
from __future__ import annotations

import os
import pickle
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core import library
from core.bitboard import BitboardSolver, accepts, classify, clear_stop, refusal, request_stop
from core.dlx_format import parse_dlx
from core.errors import PathError, ProblemError
from core.exact_cover import ExactCover
from core.kernel import KernelSolver
from core.polyform.problem import problem_from_text
from core.reference import ReferenceSolver
from core.search import SolveRequest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench", "problems")
#: the bench's DLX files are not there when the tests run from a copy (the ASan run)
needs_bench = pytest.mark.skipif(not os.path.isdir(BENCH), reason="no bench/problems beside the tests")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
#: the engine's tree for every switch depth and check (the counts must not change)
TUNINGS = st.tuples(st.sampled_from([0, 1, 2, 6, 100]), st.integers(0, 3))

SHAPES = {
    "M": "#", "D": "##", "V": "##/#.", "I": "###", "O": "##/##", "T": "###/.#.", "S": ".##/##.",
    "L": "###/#..", "P": "##/##/#.",
}


def _toml(rows: int, cols: int, blocked: set, pieces: dict) -> str:
    board = "\n".join("".join("#" if (y, x) in blocked else "-" for x in range(cols)) for y in range(rows))
    out = f'kind = "polyform"\ngoal = "fill"\nboard = """\n{board}\n"""\n'
    for name, (count, mirror) in pieces.items():
        shape = SHAPES[name].replace("/", "\n")
        out += (f'\n[[pieces]]\nname = "{name}"\nshape = """\n{shape}\n"""\ncount = {count}\n'
                f"mirror = {str(mirror).lower()}\n")
    return out


@st.composite
def fill_problems(draw):
    """A small board with blocked cells and a few pieces, each once or "any"."""
    rows, cols = draw(st.integers(2, 4)), draw(st.integers(2, 5))
    cells = [(y, x) for y in range(rows) for x in range(cols)]
    blocked = set(draw(st.lists(st.sampled_from(cells), max_size=3)))
    names = draw(st.lists(st.sampled_from(sorted(SHAPES)), min_size=1, max_size=4, unique=True))
    pieces = {n: (draw(st.sampled_from(['1', '"any"'])), draw(st.booleans())) for n in names}
    if draw(st.booleans()):
        pieces.setdefault("D", ('"any"', True))
    try:
        problem = problem_from_text(_toml(rows, cols, blocked, pieces), format="toml")
        ec = problem.exact_cover()
    except ProblemError:
        assume(False)
    assume(ec.n_options > 0)
    return problem


def _solver(problem, tuning=(6, 3), region=True, **kw):
    return BitboardSolver(problem.exact_cover(), region=problem.region_rule() if region else None,
                          mrv_depth=tuning[0], checks=tuning[1], **kw)


def _sorted(solutions):
    return {tuple(sorted(s)) for s in solutions}


# ---------------------------------------------------------------------------- known counts
@pytest.mark.parametrize("name", ["pentomino-8x8-centre", "soma", "pentomino-seed-5x5", "bitmask-seed-5x5",
                                  "tilepuzzle-seed-hexominoes", "tilepuzzle-seed-octominoes", "pentomino-3x20"])
def test_library_counts_equal_the_kernel(name):
    problem = library.load(name)
    ec = problem.exact_cover()
    assert accepts(ec)
    expected = KernelSolver(ec).count()
    assert _solver(problem).count() == expected
    assert BitboardSolver(ec).count() == expected  # the board's neighbours inferred


@pytest.mark.slow
@pytest.mark.parametrize("name,total", [("pentomino-6x10", 9356), ("pentomino-5x12", 4040),
                                        ("dominoes-8x8", 12988816)])
def test_library_big_counts(name, total):
    problem = library.load(name)
    assert _solver(problem).count() == total


@needs_bench
@pytest.mark.parametrize("name", ["pentomino-6x10", "pentomino-8x8-hole", "soma", "pentacubes-3x4x5",
                                  "dominoes-8x8"])
def test_bench_dlx_files_are_accepted_by_their_shape(name):
    with open(os.path.join(BENCH, f"{name}.dlx"), encoding="utf-8") as fh:
        ec = parse_dlx(fh.read())
    assert refusal(ec) is None
    cells, pieces = classify(ec)
    expected_pieces = {"dominoes-8x8": 0, "soma": 7}.get(name, 12)
    assert len(pieces) == expected_pieces
    if name in ("soma", "pentomino-8x8-hole"):
        assert BitboardSolver(ec).count() == KernelSolver(ec).count()


@needs_bench
def test_dlx_file_with_pieces_first_is_split_the_same_way():
    text = open(os.path.join(BENCH, "soma.dlx"), encoding="utf-8").read()
    ec = parse_dlx(text)
    cells, pieces = classify(ec)
    order = pieces + cells  # the same cover, items renumbered: pieces first
    renumber = {item: k for k, item in enumerate(order)}
    flipped = ExactCover.from_indices([ec.items[i] for i in order], ec.n_items,
                                      [[(renumber[i], 0) for i, _ in o] for o in ec.options])
    assert {flipped.items[i] for i in classify(flipped)[1]} == {ec.items[i] for i in pieces}
    assert BitboardSolver(flipped).count() == 11520


# ---------------------------------------------------------------------------- properties
@SETTINGS
@given(fill_problems(), TUNINGS, st.booleans())
def test_count_and_listing_equal_kernel_and_reference(problem, tuning, region):
    ec = problem.exact_cover()
    kernel = KernelSolver(ec, memo=False).solve((), SolveRequest(listing=True))
    result = _solver(problem, tuning, region).solve((), SolveRequest(listing=True))
    assert result.count == kernel.count == ReferenceSolver(ec).count()
    assert result.complete and result.weight == 1
    assert _sorted(result.solutions) == _sorted(kernel.solutions)
    assert len(_sorted(result.solutions)) == len(result.solutions)
    assert all(ec.is_solution(s) for s in result.solutions)
    assert result.count <= result.stats.leaves <= result.stats.nodes == sum(result.stats.nodes_per_depth)


@SETTINGS
@given(fill_problems())
def test_node_for_node_with_the_kernel_where_they_share_an_order(problem):
    """No MRV levels and no checks: the first empty cell, its placements; the kernel's
    "first" heuristic branches on the lowest uncovered item and tries the options it leads.
    The same nodes at every depth (their siblings' order aside), the same leaves."""
    ec = problem.exact_cover()
    if ec.bounds is not None:  # pieces with counts: the kernel branches on multiplicities too
        return
    pieces = sorted(problem.piece_items.values())
    if classify(ec)[1] != pieces:  # split otherwise (pieces in unlimited supply have no item): another order
        return
    cheap = _solver(problem, (0, 0), region=False).solve()
    first = KernelSolver(ec, heuristic="first", memo=False).solve()
    assert cheap.count == first.count
    assert cheap.stats.nodes_per_depth == first.stats.nodes_per_depth
    assert cheap.stats.leaves == first.stats.leaves


@SETTINGS
@given(fill_problems(), TUNINGS, st.integers(0, 6))
def test_split_at_any_depth_sums_to_the_whole(problem, tuning, depth):
    solver = _solver(problem, tuning)
    whole = solver.solve()
    frontier = solver.split(depth)
    assert sum(s.weight for s in frontier) == 1
    assert all(len(s.path) <= depth for s in frontier)
    assert sum(solver.count(s.path) for s in frontier) == whole.count
    assert sum(solver.solve(s.path).stats.leaves for s in frontier) == whole.stats.leaves
    for sub in frontier[:3]:
        deeper = solver.split(depth + 2, sub.path)
        assert sum(s.weight for s in deeper) == sub.weight
        assert sum(solver.count(s.path) for s in deeper) == solver.count(sub.path)


@SETTINGS
@given(fill_problems(), TUNINGS, st.integers(1, 5))
def test_node_budget_resumed_from_the_frontier_sums_to_the_whole(problem, tuning, budget):
    solver = _solver(problem, tuning)
    whole = solver.solve()
    assume(whole.stats.nodes <= 3000 * budget)  # one round per `budget` nodes or fewer
    total, leaves, done, pending, rounds = 0, 0, Fraction(0), [()], 0
    while pending:
        result = solver.solve(pending.pop(), SolveRequest(node_budget=budget))
        assert result.stats.nodes >= 1
        assert result.weight_done + sum(s.weight for s in result.frontier) == result.weight
        assert result.stopped_by == ("budget" if result.frontier else None)
        total += result.count
        leaves += result.stats.leaves
        done += result.weight_done
        pending.extend(s.path for s in result.frontier)
        rounds += 1
        assert rounds <= whole.stats.nodes
    assert total == whole.count
    assert leaves == whole.stats.leaves
    assert done == 1


@SETTINGS
@given(fill_problems(), TUNINGS, st.integers(1, 3))
def test_limit_then_resume_lists_every_solution_once(problem, tuning, batch):
    solver = _solver(problem, tuning)
    everything = solver.solve((), SolveRequest(listing=True)).solutions
    assert list(solver.solutions(batch=batch)) == everything
    assert solver.first(batch) == everything[:batch]
    first = solver.solve((), SolveRequest(listing=True, limit=batch))
    if len(everything) > batch:
        assert first.stopped_by == "limit" and first.count == batch
        assert first.weight_done + sum(s.weight for s in first.frontier) == 1


@SETTINGS
@given(fill_problems(), st.data())
def test_given_placement_counts_the_solutions_containing_it(problem, data):
    ec = problem.exact_cover()
    every = KernelSolver(ec, memo=False).solve((), SolveRequest(listing=True)).solutions
    option = data.draw(st.integers(0, ec.n_options - 1))
    solver = _solver(problem, given=[option])
    result = solver.solve((), SolveRequest(listing=True))
    containing = _sorted(s for s in every if option in s)
    assert result.count == len(containing)
    assert _sorted(result.solutions) == containing
    assert all(option in s for s in result.solutions)
    assert pickle.loads(pickle.dumps(solver)).count() == result.count
    frontier = solver.split(2)
    assert sum(solver.count(s.path) for s in frontier) == result.count


@SETTINGS
@given(fill_problems(), st.lists(st.integers(0, 40), max_size=4))
def test_illegal_paths_are_path_errors(problem, path):
    solver = _solver(problem)
    try:
        result = solver.solve(path)
    except PathError:
        # some entry is not a branch of its node: check by walking the branches
        node = ()
        for k in path:
            branches = [s.path[-1] for s in solver.split(len(node) + 1, node) if len(s.path) > len(node)]
            if k not in branches:
                return
            node += (k,)
        raise AssertionError(f"{path} was a legal path")
    assert result.path == tuple(path)


# ---------------------------------------------------------------------------- the rest
def test_conflicting_given_options_are_a_value_error():
    problem = library.load("pentomino-seed-5x5")
    ec = problem.exact_cover()
    with pytest.raises(ValueError, match="conflicts"):
        BitboardSolver(ec, given=[0, 0])
    with pytest.raises(ValueError, match="outside"):
        BitboardSolver(ec, given=[ec.n_options])


def test_refusals_name_the_reason():
    colored = ExactCover.build(["a"], ["x"], [["a", "x:red"]])
    assert "colors" in refusal(colored)
    counted = ExactCover.build(["a", "b"], [], [["a"], ["b"]], bounds={"a": (1, 2)})
    assert "multiplicities" in refusal(counted)
    secondary = ExactCover.build(["a"], ["x"], [["a", "x"]])
    assert "secondary" in refusal(secondary)
    wide = ExactCover.build([f"c{i}" for i in range(130)], [], [[f"c{i}", f"c{i + 1}"] for i in range(129)])
    assert "128 cells" in refusal(wide)
    with pytest.raises(ValueError, match="128 cells"):
        BitboardSolver(wide)
    assert not accepts(wide)
    many = ExactCover.build(["a", "b"], [], [["a", "b"]] * 50_000)
    assert "conflicts" in refusal(many)


def test_empty_cover_and_single_options():
    assert BitboardSolver(ExactCover.build([], [], [])).count() == 1
    assert BitboardSolver(ExactCover.build(["a", "b"], [], [["a"], ["b"], ["a", "b"]])).count() == 2
    nothing = ExactCover.build(["a", "b"], [], [["a"]])
    assert BitboardSolver(nothing).count() == 0


def test_request_stop_stops_like_a_budget():
    problem = library.load("pentomino-6x10")
    solver = _solver(problem)
    request_stop()
    try:
        result = solver.solve((), SolveRequest(seconds=60))
    finally:
        clear_stop()
    assert result.stopped_by == "budget"
    assert result.stats.nodes >= 1 and result.frontier
    assert result.weight_done + sum(s.weight for s in result.frontier) == 1
    assert solver.solve((), SolveRequest(node_budget=10)).stats.nodes == 10


def test_time_budget_hands_back_a_frontier():
    problem = library.load("pentomino-6x10")
    result = _solver(problem).solve((), SolveRequest(seconds=0.0))
    assert result.stopped_by == "budget" and result.stats.nodes >= 1
    assert result.weight_done + sum(s.weight for s in result.frontier) == 1


def test_pickle_round_trip_keeps_everything():
    problem = library.load("soma")
    solver = BitboardSolver(problem.exact_cover(), region=problem.region_rule(), mrv_depth=2, checks=1)
    again = pickle.loads(pickle.dumps(solver))
    assert (again.mrv_depth, again.checks, again.given) == (2, 1, ())
    assert again.count() == 11520
