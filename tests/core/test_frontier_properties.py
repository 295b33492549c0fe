"""Counting by levels (core/_frontier.c) against the reference search: the count of every
random plain cover, below every node, and its caps.  Run again under AddressSanitizer by
test_kernel_asan.py."""
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.exact_cover import ExactCover
from core.frontier import LevelCounter, accepts
from core.kernel import KernelSolver
from core.reference import ReferenceSolver

sys.path.insert(0, os.path.dirname(__file__))
from test_kernel_properties import DOMINO, I_TROMINO, L_TROMINO, _grid_tiling  # noqa: E402

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
    counter = LevelCounter(ec)
    narrow, wide = counter.count(), counter.count(narrow=False)
    assert narrow.count == wide.count == expected
    assert (narrow.key_bits, wide.key_bits) == (64, 128)  # small covers always fit 64 bits
    bare = LevelCounter(ec, walls=False).count()  # walls inferred from the options change nothing
    assert bare.count == expected and bare.states >= narrow.states
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
    covered = [i for k in node.path for i, _ in ec.options[k]]
    assert LevelCounter(ec).count(covered, narrow=False).count == result.count
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


@SETTINGS
@given(st.integers(1, 5), st.integers(0, 110), st.integers(0, 3), st.data())
def test_windows_tails_and_wide_spans(width, far, n_tail, data):
    """Covers whose options reach far from their lead (beyond a 64-bit window: only the
    128-bit keys hold them) or into tail items, on up to 128 items."""
    n = data.draw(st.integers(2, 12)) + far + n_tail
    n = min(n, 128)
    options = []
    for _ in range(data.draw(st.integers(1, 12))):
        lead = data.draw(st.integers(0, n - 1))
        items = {lead} | set(data.draw(st.lists(st.integers(lead, min(n - 1, lead + width + far)), max_size=3)))
        options.append([(i, 0) for i in sorted(items)])
    ec = ExactCover.from_indices([f"i{k}" for k in range(n)], n, options, ("",), None)
    counter = LevelCounter(ec)
    expected = ReferenceSolver(ec).count()
    assert counter.count().count == counter.count(narrow=False).count == expected


def test_an_option_spanning_more_than_64_items_needs_128_bit_keys():
    n = 100
    options = [[(0, 0), (99, 0)]] + [[(j, 0)] for j in range(1, 99)] + [[(0, 0)], [(99, 0)]]
    ec = ExactCover.from_indices([f"i{k}" for k in range(n)], n, options, ("",), None)
    done = LevelCounter(ec).count()
    assert (done.count, done.key_bits) == (2, 128)
    assert ReferenceSolver(ec).count() == 2


def test_counts_past_64_bits_move_to_128_bit_keys_and_past_128_bits_are_an_error():
    def independent(n, k):  # n items, each covered by any of k options of its own
        return ExactCover.from_indices([f"i{j}" for j in range(n)], n,
                                       [[(j, 0)] for j in range(n) for _ in range(k)], ("",), None)

    small = LevelCounter(independent(40, 3)).count()
    assert (small.count, small.key_bits) == (3 ** 40, 64)
    big = LevelCounter(independent(80, 3)).count()  # 3^80 > 2^64: the narrow count overflows
    assert (big.count, big.key_bits) == (3 ** 80, 128)
    with pytest.raises(OverflowError):
        LevelCounter(independent(81, 3)).count()  # 3^81 > 2^128


@SETTINGS
@given(
    st.integers(1, 4),
    st.integers(1, 5),
    st.sets(st.tuples(st.integers(0, 3), st.integers(0, 4)), max_size=4),
    st.sampled_from([(0,), (1,), (2,), (0, 1), (1, 2), (0, 2), (0, 1, 2)]),
    st.booleans(),
    st.data(),
)
def test_walled_in_cells_prune_no_solution(rows, cols, blocked, which, once, data):
    """The board geometry drops moves that wall cells in; the count stays the search's,
    on boards with holes, with pieces in unlimited supply or used once each, below nodes.
    (The truth is the C search, itself checked against the reference above: a 4x5 board
    of dominoes and trominoes has too many tilings for the pure-Python reference.)"""
    shapes = [[DOMINO, L_TROMINO, I_TROMINO][k] for k in which]
    ec, board = _grid_tiling(rows, cols, blocked, shapes, {k: (1, 1) for k in range(len(shapes))} if once else {})
    if ec.n_options == 0 or not accepts(ec):
        return
    search = KernelSolver(ec, memo=False)
    geometry = LevelCounter(ec, board)
    assert geometry.count().count == geometry.count(narrow=False).count == search.count()
    solver = KernelSolver(ec, levels=True, board=board)
    node = data.draw(st.sampled_from(search.split(2)))
    assert solver.count(node.path) == search.count(node.path)


def test_walls_are_inferred_from_a_dlx_packing():
    """A pentomino cover read from DLX has no board, but every placement over a cell covers
    one of its neighbours: the inferred walls are the grid's, and they cut the states."""
    from core.dlx_format import format_dlx, parse_dlx
    from core.library import load

    ec = parse_dlx(format_dlx(load("pentomino-6x10").exact_cover()), source="6x10.dlx")
    walled, bare = LevelCounter(ec), LevelCounter(ec, walls=False)
    assert walled.has_walls and not bare.has_walls
    a, b = walled.count(), bare.count()
    assert a.count == b.count == 9356
    assert a.states < 0.6 * b.states


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
    # 200 items, one option reaching from the first to the last: no 128-bit window holds it
    wide = ExactCover.from_indices([f"i{k}" for k in range(200)], 200,
                                   [[(0, 0), (199, 0)]] + [[(k, 0)] for k in range(200)], ("",), None)
    for ec in (colored, counted, wide):
        assert not accepts(ec)
        with pytest.raises(ValueError, match="plain exact cover"):
            KernelSolver(ec, levels=True)


@st.composite
def banded_covers(draw):
    """Covers of 129 to 220 items whose options stay within a band (so one window holds
    every state): consecutive runs of a planted solution (so that some covers exist),
    random options within the band, and a few tail items (primary or secondary)."""
    n_front = draw(st.integers(129, 200))
    width = draw(st.integers(1, 6))
    n_tail = draw(st.integers(0, 5))
    n_tail_primary = draw(st.integers(0, n_tail))
    tail = list(range(n_front, n_front + n_tail))
    options, at = [], 0
    while at < n_front:  # the planted solution: runs of 1..width items
        run = draw(st.integers(1, width))
        options.append(list(range(at, min(n_front, at + run))))
        at += run
    options[-1] = options[-1] + tail[:n_tail_primary]  # the primary tail items, planted too
    for _ in range(draw(st.integers(0, 60))):
        lead = draw(st.integers(0, n_front - 1))
        items = {lead} | set(draw(st.lists(st.integers(lead, min(n_front - 1, lead + width)), max_size=3)))
        if tail and draw(st.booleans()):
            items.add(draw(st.sampled_from(tail)))
        options.append(sorted(items))
    # primary items first: the primary tail items go before the secondary ones
    n_primary = n_front + n_tail_primary
    names = [f"c{i}" for i in range(n_front)] + [f"t{j}" for j in range(n_tail)]
    return ExactCover.from_indices(names, n_primary, [[(i, 0) for i in o] for o in options], ("",), None)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banded_covers())
def test_covers_past_128_items_are_counted_in_one_window(ec):
    assert ec.n_items > 128 and accepts(ec)
    expected = KernelSolver(ec).count()
    counter = LevelCounter(ec)
    narrow, wide = counter.count(), counter.count(narrow=False)
    assert narrow.count == wide.count == expected
    assert wide.key_bits == 128 and not counter.has_walls
    solver = KernelSolver(ec, levels=True)
    assert solver.count() == expected and solver.counted_by == "levels"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banded_covers(), st.integers(1, 3), st.data())
def test_covers_past_128_items_below_any_node(ec, depth, data):
    search = KernelSolver(ec)
    frontier = search.split(depth)
    node = data.draw(st.sampled_from(frontier))
    covered = [i for k in node.path for i, _ in ec.options[k]]
    done = LevelCounter(ec).count(covered)
    # a path may cover items too far above its lowest uncovered one for any window: declined
    if done is not None:
        assert done.count == search.solve(node.path).count


def test_a_strip_past_128_items_past_2_to_the_64_and_a_start_reaching_too_far():
    n = 150  # a 1 x 150 strip of monominoes and dominoes: Fibonacci many tilings
    options = [[(i, 0)] for i in range(n)] + [[(i, 0), (i + 1, 0)] for i in range(n - 1)]
    ec = ExactCover.from_indices([f"i{k}" for k in range(n)], n, options, ("",), None)
    counter = LevelCounter(ec)
    fib = [1, 1]
    while len(fib) <= n:
        fib.append(fib[-1] + fib[-2])
    whole = counter.count()
    assert (whole.count, whole.key_bits) == (fib[n], 128)  # F(150) > 2^64: 128-bit counts
    assert counter.count([0, 1]).count == fib[n - 2]
    assert counter.count([149]) is None  # item 149 covered, item 0 not: no window holds it
    solver = KernelSolver(ec, levels=True)
    assert solver.solve([n]).count == fib[n - 2] and solver.counted_by == "levels"  # the domino 0-1 first
