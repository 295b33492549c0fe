"""The virtual root of a --distinct search weighs each child by its share of the tree, so a
run's progress (its finished weight) is the share of the tree searched."""
from __future__ import annotations

from fractions import Fraction

from core.library import load


def test_each_child_weighs_its_share_of_the_tree():
    solver = load("soma").solver(distinct=True)
    assert len(solver.children) == 2 and sum(solver.shares) == 1
    nodes = [solver.solve((c,)).stats.nodes for c in range(2)]  # 3,856 and 1,005: not half and half
    for share, n in zip(solver.shares, nodes):
        assert abs(float(share) - n / sum(nodes)) < 0.1, (solver.shares, nodes)
    assert [s.weight for s in solver.split(1)] == solver.shares


def test_the_shares_are_the_same_on_every_construction():
    a, b = (load("soma").solver(distinct=True) for _ in range(2))
    assert a.shares == b.shares and all(isinstance(s, Fraction) for s in a.shares)


def test_a_split_still_partitions_the_tree():
    solver = load("soma").solver(distinct=True)
    whole = solver.solve(())
    pieces = solver.split(3)
    assert sum(p.weight for p in pieces) == 1
    assert sum(solver.solve(p.path).count for p in pieces) == whole.count == 11_520
    assert sum(solver.solve(p.path).distinct for p in pieces) == whole.distinct == 240
