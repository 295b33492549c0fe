"""Counting by levels (core/_frontier.c) against its pure-Python reference
(core/level_reference.py) and the reference search: the count of every random plain
cover, below every node, in every key width, on several threads, in residues, in slices,
and its caps.  Run again under AddressSanitizer by test_kernel_asan.py."""
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.exact_cover import ExactCover
from core.frontier import LevelCounter, accepts
from core.kernel import KernelSolver
from core.library import load
from core.level_reference import LevelReference
from core.reference import ReferenceSolver
from core.residues import WORD, contribution, primes, product

sys.path.insert(0, os.path.dirname(__file__))
from test_kernel_properties import DOMINO, I_TROMINO, L_TROMINO, _grid_tiling  # noqa: E402

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WIDTHS = (1, 2, 4, 8, 16)


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


def independent(n, k):
    """n items, each covered by any of k options of its own: k^n covers."""
    return ExactCover.from_indices([f"i{j}" for j in range(n)], n, [[(j, 0)] for j in range(n) for _ in range(k)],
                                   ("",), None)


@SETTINGS
@given(plain_covers())
def test_level_count_equals_the_reference_in_every_key_width(ec):
    expected = ReferenceSolver(ec).count()
    total, per_level = LevelReference(ec).count()
    assert total == expected
    for words in WIDTHS:
        bare = LevelCounter(ec, walls=False, key_words=words).count()
        assert bare.count == expected and bare.key_bits >= 64 * words
        assert bare.level_states == per_level  # the same states, level by level
        walled = LevelCounter(ec, key_words=words).count()  # walls inferred from the options
        assert walled.count == expected and walled.states <= bare.states
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
    assert LevelCounter(ec, key_words=2).count(covered).count == result.count
    assert LevelReference(ec).count(covered)[0] == result.count
    assert result.weight == node.weight and result.complete
    # split and sum: the level counts of a frontier add up to the whole
    assert sum(levels.count(s.path) for s in frontier) == reference.count()


#: the records of the first level counted on every thread: 1 starts the threads at once,
#: 3 and 8 at some level of a small count (the default, 32,768, not in counts this small)
THREADS_FROM = st.sampled_from((1, 3, 8, 1 << 15))


@SETTINGS
@given(plain_covers(max_primary=8), st.integers(1, 4), st.sampled_from(WIDTHS), THREADS_FROM)
def test_threads_count_the_same_states(ec, threads, words, threads_from):
    whole = LevelCounter(ec, walls=False).count()
    shared = LevelCounter(ec, walls=False, key_words=words).count(threads=threads, threads_from=threads_from)
    assert (shared.count, shared.states, shared.level_states) == (whole.count, whole.states, whole.level_states)


@SETTINGS
@given(plain_covers(max_primary=8), st.integers(0, 9), st.integers(2, 5), st.integers(1, 3), st.sampled_from((1, 2)),
       THREADS_FROM)
def test_slices_at_a_cut_partition_the_count(ec, cut, slices, threads, words, threads_from):
    """The slices of the states at a cut level add up to the count (each path from the
    start crosses the cut once, or ends before it in slice 0)."""
    counter = LevelCounter(ec, key_words=words)
    whole = counter.count().count
    parts = [counter.count(cut=(cut, slices, j), threads=threads, threads_from=threads_from).count
             for j in range(slices)]
    assert sum(parts) == whole


@pytest.mark.parametrize("threads", [2, 3, 8])
def test_threads_started_mid_count_on_a_busy_machine(threads):
    """More threads than cores, started at a level of a few thousand records: each thread
    started once, the count the same (a thread that saw the count still running alone
    once started the others again: a double free in a worker's share, 2026-12-03)."""
    from known_tilings import kasteleyn  # tests/, or beside this file under AddressSanitizer

    problem = load("dominoes-10x12")
    hints = problem.search_hints()
    counter = LevelCounter(problem.exact_cover(), hints.board or hints.region)
    for threads_from in (64, 500, 2000):
        done = counter.count(threads=threads, threads_from=threads_from)
        assert done.count == kasteleyn(10, 12)


@SETTINGS
@given(st.integers(1, 90), st.integers(2, 4), st.integers(1, 4), st.sampled_from((1, 2)))
def test_residues_join_to_counts_past_any_word(n, k, threads, words):
    """k^n covers of n independent items, counted modulo 2^64 and primes, joined: the
    formula, also where 2^64 or 2^128 is passed."""
    counter = LevelCounter(independent(n, k), key_words=words)
    assert counter.count(threads=threads).count == k ** n
    moduli = counter.moduli()
    assert product(moduli) > k ** n  # the bound held
    done = counter.count_modulo((), moduli, threads=threads)
    assert done.count == k ** n and done.residues == len(moduli)
    exact = counter.count_modulo((), None)
    assert exact.status == ("done" if k ** n < WORD else "overflow")


@SETTINGS
@given(st.integers(1, 90), st.integers(2, 4), st.integers(2, 4))
def test_groups_of_moduli_add_up_modulo_their_product(n, k, groups):
    counter = LevelCounter(independent(n, k))
    moduli = counter.moduli() + primes(3)[-2:]  # at least 3 moduli to group
    moduli = list(dict.fromkeys(moduli))
    whole = product(moduli)
    cuts = [len(moduli) * g // groups for g in range(groups + 1)]
    total = 0
    for g in range(groups):
        part = moduli[cuts[g]:cuts[g + 1]]
        if not part:
            continue
        residue = counter.count_modulo((), part).count
        assert residue == k ** n % product(part)
        total += contribution(residue, product(part), whole)
    assert total % whole == k ** n


def test_a_count_needing_more_residues_than_one_pass_holds_goes_in_passes(monkeypatch):
    import core.frontier as frontier

    monkeypatch.setattr(frontier, "MAX_RESIDUES", 3)  # three moduli a pass
    counter = LevelCounter(independent(200, 3))  # 3^200: 317 bits, six moduli
    done = counter.count()
    assert done.count == 3 ** 200 and done.passes == 2


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
@given(plain_covers(max_primary=8), st.integers(0, 8))
def test_a_probe_stopped_at_a_level_has_the_whole_count_s_first_levels(ec, stop):
    counter = LevelCounter(ec, walls=False)
    whole = counter.count()
    probe = counter.count(stop_level=stop)
    if probe.complete:
        assert probe.count == whole.count
    else:
        assert probe.status == "stopped" and probe.count is None
        assert probe.level_states[:probe.levels_done] == whole.level_states[:probe.levels_done]
        assert len(probe.level_clock) == len(whole.level_states)


@SETTINGS
@given(st.integers(1, 5), st.integers(0, 300), st.integers(0, 3), st.data())
def test_windows_tails_and_wide_spans(width, far, n_tail, data):
    """Covers whose options reach far from their lead (one word, two, four or eight) or
    into tail items."""
    n = data.draw(st.integers(2, 12)) + far + n_tail
    options = []
    for _ in range(data.draw(st.integers(1, 12))):
        lead = data.draw(st.integers(0, n - 1))
        items = {lead} | set(data.draw(st.lists(st.integers(lead, min(n - 1, lead + width + far)), max_size=3)))
        options.append([(i, 0) for i in sorted(items)])
    ec = ExactCover.from_indices([f"i{k}" for k in range(n)], n, options, ("",), None)
    expected = KernelSolver(ec).count()
    assert LevelCounter(ec).count().count == expected
    assert LevelReference(ec).count()[0] == expected


def test_an_option_spanning_more_than_64_items_needs_wider_keys():
    n = 300
    options = [[(0, 0), (299, 0)]] + [[(j, 0)] for j in range(1, 299)] + [[(0, 0)], [(299, 0)]]
    ec = ExactCover.from_indices([f"i{k}" for k in range(n)], n, options, ("",), None)
    done = LevelCounter(ec).count()
    assert (done.count, done.key_bits) == (2, 512)
    assert ReferenceSolver(ec).count() == 2


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
    on boards with holes, with pieces in unlimited supply or used once each, below nodes,
    in exact words and in residues.
    (The truth is the C search, itself checked against the reference above: a 4x5 board
    of dominoes and trominoes has too many tilings for the pure-Python reference.)"""
    shapes = [[DOMINO, L_TROMINO, I_TROMINO][k] for k in which]
    ec, board = _grid_tiling(rows, cols, blocked, shapes, {k: (1, 1) for k in range(len(shapes))} if once else {})
    if ec.n_options == 0 or not accepts(ec):
        return
    search = KernelSolver(ec, memo=False)
    expected = search.count()
    for words in (1, 2, 4):
        geometry = LevelCounter(ec, board, key_words=words)
        assert geometry.count().count == expected
        # the residues' arithmetic (2^64 and two primes, joined; a prime alone) on the same board
        assert geometry.count_modulo((), [WORD, *primes(2)], threads=words).count == expected
        assert geometry.count_modulo((), primes(1)).count == expected % primes(1)[0]
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
    # 1,100 items, one option reaching from the first to the last: past 1,024-bit keys
    wide = ExactCover.from_indices([f"i{k}" for k in range(1100)], 1100,
                                   [[(0, 0), (1099, 0)]] + [[(k, 0)] for k in range(1100)], ("",), None)
    for ec in (colored, counted, wide):
        assert not accepts(ec)
        with pytest.raises(ValueError, match="plain exact cover|1024 bits"):
            KernelSolver(ec, levels=True)


@st.composite
def banded_covers(draw):
    """Covers of 129 to 220 items whose options stay within a band: consecutive runs of a
    planted solution (so that some covers exist), random options within the band, and a
    few tail items (primary or secondary)."""
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
@given(banded_covers(), st.integers(1, 3))
def test_long_banded_covers(ec, threads):
    expected = KernelSolver(ec).count()
    counter = LevelCounter(ec)
    assert counter.count(threads=threads).count == expected
    assert LevelReference(ec).count()[0] == expected
    solver = KernelSolver(ec, levels=True)
    assert solver.count() == expected and solver.counted_by == "levels"


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(banded_covers(), st.integers(1, 3), st.data())
def test_long_banded_covers_below_any_node(ec, depth, data):
    search = KernelSolver(ec)
    frontier = search.split(depth)
    node = data.draw(st.sampled_from(frontier))
    covered = [i for k in node.path for i, _ in ec.options[k]]
    # a start covering items far past its level widens the window for that count
    assert LevelCounter(ec).count(covered).count == search.solve(node.path).count


def test_a_strip_past_2_to_the_64_and_a_start_reaching_far():
    n = 150  # a 1 x 150 strip of monominoes and dominoes: Fibonacci many tilings
    options = [[(i, 0)] for i in range(n)] + [[(i, 0), (i + 1, 0)] for i in range(n - 1)]
    ec = ExactCover.from_indices([f"i{k}" for k in range(n)], n, options, ("",), None)
    counter = LevelCounter(ec)
    fib = [1, 1]
    while len(fib) <= n:
        fib.append(fib[-1] + fib[-2])
    assert counter.count().count == fib[n]  # F(150) > 2^64: residues joined
    assert counter.count([0, 1]).count == fib[n - 2]
    assert counter.count([149]).count == fib[n - 1]  # item 149 covered, item 0 not: a window of 149
    solver = KernelSolver(ec, levels=True)
    assert solver.solve([n]).count == fib[n - 2] and solver.counted_by == "levels"  # the domino 0-1 first
