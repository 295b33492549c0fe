"""The whole count by levels timed from a random sample of its root's shares
(core/share_estimate.py): the sampled shares are counted exactly, the totals are the
number of shares times their means, a sample of every share is exact, and the same seed
draws the same shares."""
from __future__ import annotations

import pytest

from core.engines import Method, SolverOptions, solver_for
from core.library import load
from core.search import SolveRequest
from core.share_estimate import SHARES_AT_LEAST, estimate_by_shares


def _by_levels(name: str):
    problem = load(name)
    return solver_for(problem, SolverOptions(method=Method.LEVELS, symmetry=True))


@pytest.mark.parametrize("name", ["crossword-all-7x7-rotational", "pentomino-6x10"])
def test_every_share_sampled_is_the_exact_count(name):
    total = _by_levels(name).solve().count  # the whole count, unsplit
    solver = _by_levels(name)
    m = len(solver.solve((), SolveRequest(max_depth=1)).frontier)
    est = estimate_by_shares(solver, m, max_seconds=3600)
    assert est.shares == m and len(est.sampled) == m
    assert est.count.value == est.count.low == est.count.high == total
    assert est.seconds.low == est.seconds.high == pytest.approx(sum(s for _, s, _ in est.sampled))


def test_a_sample_scales_the_shares_it_counted():
    solver = _by_levels("crossword-all-9x9-rotational")
    shares = solver.solve((), SolveRequest(max_depth=1)).frontier
    est = estimate_by_shares(solver, 5, seed=7, max_seconds=3600)
    assert len(est.sampled) == 5 and len({j for j, _, _ in est.sampled}) == 5
    for j, _, count in est.sampled:
        assert count == solver.solve(shares[j].path).count
    mean = sum(c for _, _, c in est.sampled) / 5
    assert est.count.value == pytest.approx(len(shares) * mean)
    assert est.count.low <= est.count.value <= est.count.high
    again = estimate_by_shares(solver, 5, seed=7, max_seconds=3600)
    assert [j for j, _, _ in again.sampled] == [j for j, _, _ in est.sampled]


def test_sampling_stops_at_its_time_after_two_shares():
    est = estimate_by_shares(_by_levels("crossword-all-9x9-rotational"), 50, max_seconds=0.0)
    assert len(est.sampled) == SHARES_AT_LEAST


def test_a_root_that_ends_at_once_is_its_own_share():
    from core.exact_cover import ExactCover
    from core.kernel import KernelSolver

    for ec, total in [(ExactCover.from_indices(["a"], 0, []), 1),  # nothing to cover: one solution, the root
                      (ExactCover.from_indices(["a", "b"], 2, [[(0, 0)]]), 0)]:  # "b" in no option: none
        est = estimate_by_shares(KernelSolver(ec), 4)
        assert est.shares >= 1 and est.count.value == est.count.low == est.count.high == total
