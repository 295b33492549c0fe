"""Knuth's estimator: unbiased walks, and a band that holds the truth on small problems."""
from __future__ import annotations

import random

import pytest

from core.estimate import estimate, random_path
from core.exact_cover import ExactCover
from core.kernel import KernelSolver


def queens(n: int) -> ExactCover:
    prim = [f"r{i}" for i in range(n)] + [f"c{j}" for j in range(n)]
    sec = [f"a{d}" for d in range(2 * n - 1)] + [f"b{d}" for d in range(2 * n - 1)]
    opts = [[f"r{i}", f"c{j}", f"a{i + j}", f"b{i - j + n - 1}"] for i in range(n) for j in range(n)]
    return ExactCover.build(prim, sec, opts)


@pytest.mark.parametrize("n", [6, 8, 9])
@pytest.mark.parametrize("seed", [1, 2])
def test_truth_lies_in_the_band(n, seed):
    solver = KernelSolver(queens(n), memo=False)
    truth = solver.solve()
    est = estimate(solver, 1500, seed=seed, rate=1e6)
    assert est.samples == 1500
    assert est.nodes.low <= truth.stats.nodes <= est.nodes.high
    assert est.solutions.low <= truth.count <= est.solutions.high
    assert est.seconds.value == pytest.approx(est.nodes.value / 1e6)
    # the walks that ended in a solution, counted again by walking the same seed
    rng = random.Random(seed)
    assert est.solutions_reached == sum(1 for _ in range(1500) if random_path(solver, rng)[1]) > 0


def test_the_estimator_is_exact_on_a_uniform_tree():
    # n rooks on an n x n board: every level of the tree has the same branching
    n = 5
    ec = ExactCover.build([f"r{i}" for i in range(n)] + [f"c{j}" for j in range(n)], [],
                          [[f"r{i}", f"c{j}"] for i in range(n) for j in range(n)])
    solver = KernelSolver(ec, "first", memo=False)
    nodes, solutions = random_path(solver, random.Random(0))
    assert solutions == 120 == solver.count()
    assert nodes == solver.solve().stats.nodes


def test_at_least_one_sample():
    with pytest.raises(ValueError):
        estimate(KernelSolver(queens(4)), 0)
