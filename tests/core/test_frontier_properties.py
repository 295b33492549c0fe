"""Counting by levels (core/_frontier.c) against the reference search: the count of every
random plain cover, below every node, and its caps.  Run again under AddressSanitizer by
test_kernel_asan.py."""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.exact_cover import ExactCover
from core.frontier import LevelCounter, accepts
from core.kernel import KernelSolver
from core.reference import ReferenceSolver

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def plain_covers(draw, max_primary=6):
    """Plain covers (no colors, no multiplicities), secondary items included."""
    n_primary = draw(st.integers(1, max_primary))
    n_secondary = draw(st.integers(0, 3))
    n_items = n_primary + n_secondary
    options = [
        [(i, 0) for i in draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=4, unique=True))]
        for _ in range(draw(st.integers(1, 14)))
    ]
    names = [f"p{i}" for i in range(n_primary)] + [f"s{i}" for i in range(n_secondary)]
    return ExactCover.from_indices(names, n_primary, options, ("",), None)


@SETTINGS
@given(plain_covers())
def test_level_count_equals_the_search(ec):
    expected = ReferenceSolver(ec).count()
    assert LevelCounter(ec).count().count == expected
    solver = KernelSolver(ec, levels=True)
    assert solver.count() == expected
    assert solver.counted_by == "levels"


@SETTINGS
@given(plain_covers(), st.integers(1, 3), st.data())
def test_level_count_below_any_node_equals_the_search(ec, depth, data):
    reference = ReferenceSolver(ec)
    levels = KernelSolver(ec, levels=True)
    frontier = reference.split(depth)
    node = data.draw(st.sampled_from(frontier))
    result = levels.solve(node.path)
    assert result.count == reference.count(node.path)
    assert result.weight == node.weight and result.complete
    # split and sum: the level counts of a frontier add up to the whole
    assert sum(levels.count(s.path) for s in frontier) == reference.count()


@SETTINGS
@given(plain_covers(max_primary=8), st.integers(0, 3000))
def test_a_count_that_runs_out_of_memory_or_work_declines(ec, cap):
    counter = LevelCounter(ec)
    whole = counter.count()
    capped = counter.count(max_bytes=cap)
    assert capped is None or (capped.count, capped.states) == (whole.count, whole.states)
    worked = counter.count(max_transitions=max(0, whole.transitions - 1))
    if whole.transitions:
        assert worked is None
    else:
        assert worked.count == whole.count


def test_the_search_takes_over_when_the_level_count_runs_out_of_memory():
    n = 12  # a 2 x n board of dominoes: Fibonacci many tilings
    cells = [f"{r},{c}" for c in range(n) for r in range(2)]
    at = {name: k for k, name in enumerate(cells)}
    options = [[(at[f"0,{c}"], 0), (at[f"1,{c}"], 0)] for c in range(n)]
    options += [[(at[f"{r},{c}"], 0), (at[f"{r},{c + 1}"], 0)] for r in range(2) for c in range(n - 1)]
    ec = ExactCover.from_indices(cells, len(cells), options, ("",), None)
    solver = KernelSolver(ec, levels=True, memo=64)
    assert solver.count() == 233
    assert solver.counted_by == "search"
    assert KernelSolver(ec, levels=True).count() == 233


def test_covers_the_level_count_cannot_take_are_refused():
    colored = ExactCover.from_indices(["a", "x"], 1, [[(0, 0), (1, 1)]], ("", "red"), None)
    counted = ExactCover.from_indices(["a"], 1, [[(0, 0)]], ("",), [(0, 2)])
    wide = ExactCover.from_indices([f"i{k}" for k in range(129)], 129, [[(k, 0)] for k in range(129)], ("",), None)
    for ec in (colored, counted, wide):
        assert not accepts(ec)
        with pytest.raises(ValueError, match="plain exact cover"):
            KernelSolver(ec, levels=True)
