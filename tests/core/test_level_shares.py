"""A whole count by levels as shares (core/level_shares.py): the shares add up to the
count, exactly or modulo their moduli's product; a share cannot be split; the root hands
its shares back under a budget; the tree is what the planner and the workers see."""
from __future__ import annotations

import os
import pickle
import sys
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import PathError
from core.exact_cover import ExactCover
from core.library import load
from core.level_shares import LevelShares
from core.reference import ReferenceSolver
from core.search import SolveRequest
from core.solver_options import LevelPlan

sys.path.insert(0, os.path.dirname(__file__))
from known_tilings import kasteleyn  # noqa: E402
from test_frontier_properties import independent, plain_covers  # noqa: E402


def shares_sum(solver: LevelShares) -> int:
    frontier = solver.split(1)
    assert sum((s.weight for s in frontier), Fraction(0)) == 1
    total = sum(solver.solve(s.path).count for s in frontier)
    return total % solver.modulus if solver.modulus else total


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_covers(max_primary=8), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.data())
def test_shares_add_up_to_the_count(ec, groups, slices, threads, data):
    cut = data.draw(st.one_of(st.none(), st.integers(0, 9)))
    solver = LevelShares(ec, None, LevelPlan(threads=threads, groups=groups, slices=slices, cut=cut))
    expected = ReferenceSolver(ec).count()
    assert solver.count() == expected
    assert shares_sum(solver) == expected
    assert solver.shares == slices * len(solver.groups)


@pytest.mark.parametrize("groups, slices", [(1, 1), (2, 1), (3, 2), (5, 3)])
def test_a_count_past_2_to_the_128_equals_the_sum_of_its_shares(groups, slices):
    solver = LevelShares(independent(100, 3), None, LevelPlan(groups=groups, slices=slices))  # 3^100: 159 bits
    assert len(solver.moduli) >= 3
    assert (solver.modulus is None) == (len(solver.groups) == 1)
    assert shares_sum(solver) == solver.count() == 3 ** 100


def test_the_shares_of_a_domino_board_past_2_to_the_128():
    problem = load("dominoes-18x18")
    hints = problem.search_hints()
    solver = LevelShares(problem.exact_cover(), hints.board, LevelPlan(threads=2, groups=3))
    assert shares_sum(solver) == kasteleyn(18, 18) > 2 ** 128


def test_the_root_hands_its_shares_back_under_a_budget_and_a_share_is_never_split():
    solver = LevelShares(independent(20, 2), None, LevelPlan(groups=1, slices=3))
    budgeted = solver.solve((), SolveRequest(seconds=0.5))
    assert budgeted.count == 0 and [s.path for s in budgeted.frontier] == [(0,), (1,), (2,)]
    assert solver.split(5, (1,)) == [budgeted.frontier[1]]  # its own frontier: no children
    assert solver.divide(budgeted.frontier, 8) == budgeted.frontier
    timed = solver.solve((2,), SolveRequest(seconds=1e-9))  # a task's budget does not cut a share
    assert timed.complete and timed.weight == Fraction(1, 3)
    with pytest.raises(PathError):
        solver.solve((3,))
    with pytest.raises(PathError):
        solver.solve((0, 0))
    with pytest.raises(ValueError, match="lists no solutions"):
        solver.solve((), SolveRequest(listing=True))


def test_a_share_solver_travels_to_a_pool_process():
    solver = LevelShares(independent(100, 3), None, LevelPlan(threads=2, groups=2))
    copy = pickle.loads(pickle.dumps(solver))
    assert copy.plan == solver.plan and copy.modulus == solver.modulus
    assert [copy.solve((j,)).count for j in range(2)] == [solver.solve((j,)).count for j in range(2)]


def test_the_description_says_how_it_is_shared():
    solver = LevelShares(independent(100, 3), None, LevelPlan(threads=2, groups=2, slices=3, cut=40))
    assert solver.description == "3 slices of the states at level 40 x 2 groups of its 3 moduli, each on 2 threads"


def test_an_empty_cover_of_levels():
    ec = ExactCover.from_indices(["a", "b"], 2, [[(0, 0)]], ("",), None)  # item b has no option
    assert LevelShares(ec, None, LevelPlan(slices=2)).count() == 0


def _drained(solver: LevelShares, first: SolveRequest) -> tuple[int, Fraction]:
    """The count and weight done of the whole tree, handing every frontier node back in
    (as the ledger does), the first task asked ``first``."""
    total, done, queue = 0, Fraction(0), [((0,), first)]
    while queue:
        path, request = queue.pop()
        result = solver.solve(path, request)
        total += result.count
        done += result.weight_done
        queue += [(s.path, SolveRequest(node_budget=7)) for s in result.frontier]
    return total, done


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plain_covers(max_primary=8), st.integers(1, 3), st.sampled_from([None, 3, 50]))
def test_a_guarded_count_that_gives_up_is_counted_by_the_search_below_its_share(ec, threads, budget):
    """Split and sum: past its guard (0 s: the first level) the share hands the tree to the
    search, its frontier below the share, and the parts add up to the count."""
    solver = LevelShares(ec, None, LevelPlan(threads=threads, guard_seconds=0.0))
    assert solver.guarded
    total, done = _drained(solver, SolveRequest(node_budget=budget))
    assert (total, done) == (ReferenceSolver(ec).count(), 1)
    assert solver.count() == total  # the root, whole


def test_the_guard_says_why_and_an_ample_guard_counts_by_levels():
    ec = load("dominoes-8x8").exact_cover()
    gave_up = LevelShares(ec, None, LevelPlan(guard_bytes=1)).solve((0,))
    assert gave_up.count == kasteleyn(8, 8) and gave_up.stats.by_levels == 0
    assert gave_up.gave_up.startswith("the count by levels passed its guard of 1 byte")
    timed = LevelShares(ec, None, LevelPlan(guard_seconds=0.0)).solve((0,))
    assert timed.count == kasteleyn(8, 8) and "guard of 0 s with 0 of its 63 levels done;" in timed.gave_up
    ample = LevelShares(ec, None, LevelPlan(guard_bytes=1 << 30, guard_seconds=60.0)).solve((0,))
    assert (ample.count, ample.stats.by_levels, ample.gave_up) == (kasteleyn(8, 8), 1, None)
    solver = LevelShares(ec, None, LevelPlan(guard_bytes=1))
    node = min(solver.solve((0,), SolveRequest(node_budget=5)).frontier, key=lambda s: len(s.path))
    split = solver.split(len(node.path) + 1, node.path)  # depths of the whole tree: the share is one
    assert {len(s.path) for s in split} == {len(node.path) + 1} and sum(s.weight for s in split) == node.weight


def test_a_guard_holds_for_one_share_only_and_travels_to_a_pool_process():
    assert not LevelShares(independent(20, 2), None, LevelPlan(slices=2, guard_bytes=1)).guarded
    solver = LevelShares(independent(20, 2), None, LevelPlan(guard_bytes=1, guard_seconds=5.0), "first")
    copy = pickle.loads(pickle.dumps(solver))
    assert (copy.plan, copy.heuristic) == (solver.plan, "first") and copy.guarded
    assert LevelPlan.from_json(solver.plan.to_json()) == solver.plan
    assert "guard_bytes" not in LevelPlan().to_json()  # (a plan without one is written as before)


def test_the_search_a_chosen_count_gives_up_for_is_the_one_asked_by_orbits(monkeypatch):
    """The method choice's own solver (the one the local pool's processes inherit) gives up
    for the search by orbits, as the run was asked to count: not every symmetric copy
    (O'Beirne's hexagon: 12 times the work)."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions
    from core.symmetry import OrbitCounter

    monkeypatch.setattr(engines, "PROBE_LEAST", 0.01)
    monkeypatch.setattr(engines, "PROBE_MOST", 0.01)
    monkeypatch.setattr(engines, "LEVELS_AT_ONCE", 0.0)
    problem = load("dominoes-16x16")
    for symmetry in (True, False):
        choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=symmetry),
                                       whole_count=True, workers=2)
        solver = choice.solver
        assert isinstance(solver, LevelShares) and solver.guarded and solver.plan.guard_orbits == symmetry
        assert isinstance(solver.search, OrbitCounter) == symmetry
        assert isinstance(pickle.loads(pickle.dumps(solver)).search, OrbitCounter) == symmetry
        rebuilt = engines.solver_for(problem, choice.options)  # as a worker builds it from the run's options
        assert isinstance(rebuilt.search, OrbitCounter) == symmetry
