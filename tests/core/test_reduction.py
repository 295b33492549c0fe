"""The tile-reduction engine: user-defined puzzles, the Solver contract, specs."""
from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import PathError, ProblemError
from core.library import load, spec_from_text
from core.library import from_spec
from core.reduction import ReductionProblem, ReductionSolver, TileReduction, n_queens
from core.search import SolveRequest

QUEENS = {1: 1, 2: 0, 3: 0, 4: 2, 5: 10, 6: 4, 7: 40, 8: 92}


def is_queens(n: int, cols: dict) -> bool:
    """Independent check: one queen per row, no two on a column or diagonal."""
    pts = [(r, cols[r]) for r in range(n)]
    return all(
        a[1] != b[1] and abs(a[0] - b[0]) != abs(a[1] - b[1]) for a, b in itertools.combinations(pts, 2)
    )


@pytest.mark.parametrize("n", sorted(QUEENS))
def test_queens_counts(n):
    red = n_queens(n)
    solver = red.solver()
    assert solver.count() == QUEENS[n]
    for path in solver.solutions():
        a = red.assignment(path)
        assert is_queens(n, a) and red.is_solution(a)


def test_fixed_tiles_and_domains():
    red = TileReduction(range(5), range(5), n_queens(5).rules, fixed={0: 0}, domains={1: [2, 3]})
    sols = [red.assignment(p) for p in red.solver().solutions()]
    assert sols and all(a[0] == 0 and a[1] in (2, 3) and is_queens(5, a) for a in sols)
    brute = [c for c in itertools.permutations(range(5)) if c[0] == 0 and c[1] in (2, 3)
             and is_queens(5, dict(enumerate(c)))]
    assert sorted(tuple(a[r] for r in range(5)) for a in sols) == sorted(brute)


def test_contradictory_fixed_tiles_give_no_solution():
    red = TileReduction(range(4), range(4), n_queens(4).rules, fixed={0: 0, 1: 0})
    assert red.solver().count() == 0


def test_mrv_branches_on_first_smallest_tile():
    # tile "b" has the fewest values; "c" ties with it later but comes after it
    red = TileReduction("abc", [1, 2, 3], lambda t, s: [], domains={"b": [1, 2], "c": [1, 2]})
    result = red.solver().solve((), SolveRequest(max_depth=1))
    firsts = {red.root()[2][s.path[0]][0] for s in result.frontier}
    assert firsts == {1} and all(s.weight == Fraction(1, 2) for s in result.frontier)
    assert ReductionSolver(red, heuristic="first").split(1)[0].weight == Fraction(1, 3)


# -- the Solver contract ------------------------------------------------------------
@pytest.fixture
def queens8():
    return n_queens(8).solver()


@pytest.mark.parametrize("depth", [0, 1, 2, 3, 5, 9])
def test_split_partitions_the_tree(queens8, depth):
    frontier = queens8.split(depth)
    assert sum(s.weight for s in frontier) == 1
    assert all(len(s.path) <= depth for s in frontier)
    assert sum(queens8.count(s.path) for s in frontier) == 92
    whole = queens8.solve().stats
    assert 92 <= whole.leaves < whole.nodes
    assert sum(queens8.solve(s.path).stats.leaves for s in frontier) == whole.leaves


def test_budget_frontier_loses_nothing(queens8):
    total, done, pending, calls = 0, Fraction(0), [((), Fraction(1))], 0
    while pending:
        path, weight = pending.pop()
        r = queens8.solve(path, SolveRequest(node_budget=37))
        assert r.weight == weight
        assert r.weight_done + sum(s.weight for s in r.frontier) == r.weight
        total += r.count
        done += r.weight_done
        pending.extend((s.path, s.weight) for s in r.frontier)
        calls += 1
    assert total == 92 and done == 1 and calls > 10


def test_seconds_budget_stops(queens8):
    r = n_queens(10).solver().solve((), SolveRequest(seconds=0.0))
    assert r.stopped_by == "budget" and r.frontier and r.stats.nodes >= 1


def test_limit_and_lazy_enumeration(queens8):
    first = queens8.first(5)
    assert len(first) == 5
    everything = list(queens8.solutions(batch=7))
    assert everything[:5] == first
    assert len(everything) == len(set(everything)) == 92
    r = queens8.solve((), SolveRequest(listing=True, limit=3))
    assert r.stopped_by == "limit" and r.count == 3 and r.frontier


def test_paths_replay(queens8):
    path = queens8.first(1)[0]
    r = queens8.solve(path, SolveRequest(listing=True))
    assert r.count == 1 and r.solutions == [path]
    assert r.weight > 0
    with pytest.raises(PathError):
        queens8.solve((path[0] + 1,) + path[1:])  # a choice of the wrong tile
    with pytest.raises(PathError):
        queens8.solve((10_000,))
    with pytest.raises(PathError):
        queens8.solve(path + (0,))  # below a solution


# -- brute-force agreement on random rule sets --------------------------------------
@st.composite
def small_reductions(draw):
    nt = draw(st.integers(1, 4))
    nv = draw(st.integers(1, 3))
    table = {}
    for t in range(nt):
        for s in range(nv):
            rules = []
            for u in range(nt):
                if draw(st.booleans()):
                    rules.append((u, draw(st.sets(st.integers(0, nv - 1)))))
            table[t, s] = rules
    fixed = draw(st.dictionaries(st.integers(0, nt - 1), st.integers(0, nv - 1), max_size=1))
    return TileReduction(range(nt), range(nv), lambda t, s: table[t, s], fixed)


@settings(max_examples=150, deadline=None)
@given(small_reductions())
def test_engine_matches_brute_force(red):
    found = sorted(tuple(sorted(red.assignment(p).items())) for p in red.solver().solutions())
    brute = []
    for vals in itertools.product(red.values, repeat=red.n_tiles):
        a = dict(zip(red.tiles, vals))
        if red.is_solution(a):
            brute.append(tuple(sorted(a.items())))
    assert found == sorted(brute)
    assert len(set(found)) == len(found)
    frontier = red.solver().split(2)
    assert sum(s.weight for s in frontier) == 1
    assert sum(red.solver().count(s.path) for s in frontier) == len(brute)


# -- user-defined puzzles as problems ----------------------------------------------
def test_factory_spec_rebuilds_anywhere():
    p = ReductionProblem.from_factory("core.reduction:n_queens", n=6)
    again = from_spec(p.spec)
    assert again.solver().count() == 4
    sol = again.solver().first(1)[0]
    assert again.is_solution(sol)
    assert again.render_text(sol).count("Q") == 6


def test_queens_pattern_and_toml():
    assert load("queens-8").solver().count() == 92
    spec = spec_from_text('kind = "reduction"\nfactory = "core.reduction:n_queens"\n[args]\nn = 5\n',
                          source_name="q.toml")
    assert from_spec(spec).solver().count() == 10
    with pytest.raises(ProblemError, match="the kernel engine cannot search a reduction problem"):
        from_spec(spec).solver(engine="kernel")


@pytest.mark.parametrize(
    "text, message",
    [
        ('kind = "reduction"\n', "factory"),
        ('kind = "reduction"\nfactory = "nosuchmodule:f"\n', "cannot import"),
        ('kind = "reduction"\nfactory = "core.reduction:nothing"\n', "no function"),
        ('kind = "reduction"\nfactory = "core.reduction:n_queens"\n[args]\nm = 3\n', "failed"),
        ('kind = "reduction"\nfactory = "core.reduction:n_queens"\n[args]\nn = 0\n', "n must be"),
    ],
)
def test_factory_errors(text, message):
    with pytest.raises(ProblemError, match=message) as err:
        from_spec(spec_from_text(text, source_name="bad.toml"))
    assert "bad.toml" in str(err.value)


def test_bad_rules_are_clear_errors():
    with pytest.raises(ProblemError, match="not a tile"):
        TileReduction([1, 2], [0], lambda t, s: [(9, [0])]).solver()
    with pytest.raises(ProblemError, match="listed twice"):
        TileReduction([1, 1], [0])
    with pytest.raises(ProblemError, match="not a value"):
        TileReduction([1, 2], [0], fixed={1: 5})
