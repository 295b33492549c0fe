"""The C transfer count (core/crossword/_transfer.c) against its pure-Python reference
(core/crossword/transfer.py), and the transfer Solver's contract (core/crossword/
transfer_solver.py): splits and budgets partition the count exactly, listing is refused.

Self-contained (only ``core`` is imported), so the AddressSanitizer test runs it too.
"""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.crossword import Grid, Puzzle, Rules
from core.crossword import _transfer
from core.crossword import symmetry as sym
from core.crossword.transfer import SUPPORTED, TransferCounter, count
from core.crossword.transfer_solver import TransferSolver, c_count
from core.errors import PathError, ProblemError
from core.search import SolveRequest

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
rules_st = st.builds(Rules, st.integers(1, 4), st.booleans(), st.booleans(), st.booleans())


def random_puzzle(data, R: int, C: int, kind: str, rules: Rules) -> tuple[Puzzle, list[bool | None]]:
    """A puzzle with the clue string of a random symmetric grid (legal or not, sometimes
    none), maybe its start or numbered squares, and some squares fixed at random."""
    n = len(set(sym.orbits(kind, R, C)))
    black = sym.from_orbits(kind, R, C, data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    g = Grid(R, C, black)
    what = data.draw(st.sampled_from(["none", "clues", "start", "numbered"]))
    first = g.first_square()
    start = first if what == "start" and first and all(black[:first - 1]) else None
    numbered = None
    if what == "numbered":
        nums = {n.row * C + n.col for n in g.numbering()}
        numbered = tuple(q in nums for q in range(R * C))
    clues = None if what == "none" else g.clue_string()
    pz = Puzzle.build(R, C, rules=rules, symmetry=kind, clues=clues, start=start, numbered=numbered)
    fixed: list[bool | None] = [None] * (R * C)
    for q in data.draw(st.lists(st.integers(0, R * C - 1), max_size=3)):
        fixed[q] = data.draw(st.booleans())
    return pz, fixed


@SETTINGS
@given(st.integers(1, 7), st.integers(1, 7), st.sampled_from(sorted(SUPPORTED)), rules_st, st.data())
def test_c_count_equals_the_python_reference(R, C, kind, rules, data):
    if min(R, C) < rules.min_word or R * C > 36:
        return
    pz, fixed = random_puzzle(data, R, C, kind, rules)
    assert c_count(pz, fixed) == count(pz, fixed)


@pytest.mark.parametrize("R,C,kind", [(9, 9, "rotational"), (9, 9, "left-right"), (7, 7, "none"), (9, 9, "three-way"),
                                      (8, 9, "up-down")])
def test_c_count_equals_the_python_reference_on_whole_sizes(R, C, kind):
    pz = Puzzle.build(R, C, symmetry=kind)
    assert c_count(pz) == count(pz)


def test_counts_past_64_bits_are_exact_and_past_128_bits_never_wrap():
    """Three columns and every rule off: 8 rows a row, 8^R grids less the all-black one."""
    loose = Rules(1, False, False, False)
    pz = Puzzle.build(42, 3, rules=loose)  # 2^126
    assert c_count(pz) == count(pz) == 8 ** 42 - 1
    big = Puzzle.build(50, 3, rules=loose)  # 2^150: the C count refuses, the reference counts
    with pytest.raises(OverflowError):
        _transfer.count(*TransferCounter(big).c_arguments(), -1.0, -1)
    assert c_count(big) == 8 ** 50 - 1
    assert TransferSolver(big).count() == 8 ** 50 - 1


def test_sixty_four_columns():
    """Rows all black or all white (the patterns handed in), every rule off: 2^3 grids less
    the all-black one; connected: the white rows must touch; the top bit is a column like any."""
    full = (1 << 64) - 1
    args = [3, 64, 2, 0, 0, 0, 0, None, [[0, full]] * 3, [-1] * 3, [0] * 3, -1.0, -1]
    assert _transfer.count(*args)[0] == 7
    args[4] = 1
    assert _transfer.count(*args)[0] == 6  # all but white, black, white and the all-black
    args[8] = [[1 << 63]] * 3
    assert _transfer.count(*args)[0] == 1


# -- the solver's contract ---------------------------------------------------------------------------
SOLVER_CASES = [(7, 7, "none"), (9, 9, "rotational"), (8, 8, "up-down"), (9, 9, "three-way"), (9, 9, "left-right")]


@pytest.mark.parametrize("R,C,kind", SOLVER_CASES)
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_a_split_partitions_the_count(R, C, kind, depth):
    solver = TransferSolver(Puzzle.build(R, C, symmetry=kind))
    whole = solver.count()
    frontier = solver.split(depth)
    assert sum(s.weight for s in frontier) == 1
    assert all(len(s.path) <= depth for s in frontier)
    assert sum(solver.count(s.path) for s in frontier) == whole


@pytest.mark.parametrize("R,C,kind", SOLVER_CASES)
@pytest.mark.parametrize("budget", [1, 500, 5_000])
def test_a_node_budget_hands_back_an_exact_frontier(R, C, kind, budget):
    solver = TransferSolver(Puzzle.build(R, C, symmetry=kind))
    whole = solver.count()
    result = solver.solve((), SolveRequest(node_budget=budget))
    assert result.weight_done + sum((s.weight for s in result.frontier), Fraction(0)) == 1
    assert result.count + sum(solver.count(s.path) for s in result.frontier) == whole
    assert result.complete == (result.stopped_by is None)


def test_a_time_budget_hands_back_its_children():
    solver = TransferSolver(Puzzle.build(9, 9, symmetry="rotational"))
    result = solver.solve((), SolveRequest(seconds=0.0))
    assert result.count + sum(solver.count(s.path) for s in result.frontier) == 31_187


def test_a_count_the_table_prunes_is_whole_under_a_time_budget():
    """A clue string with no fold: the reachability table is most of the work and each
    share would make it again, so a time budget does not cut the root (as the kernel's
    level count); an explicit split still divides it, exactly."""
    from core.library import load

    solver = TransferSolver(load("crossword-53").puzzle)  # 9x9, no symmetry: 1,187 grids
    result = solver.solve((), SolveRequest(seconds=0.0))
    assert result.complete and result.count == 1187 and not result.frontier
    pieces = solver.split(1)
    assert len(pieces) > 1 and sum(solver.count(s.path) for s in pieces) == 1187


def test_paths_name_shares_and_bad_paths_raise():
    solver = TransferSolver(Puzzle.build(7, 7))
    shares = solver.tree.slices
    assert solver.solve((0,)).weight == Fraction(1, len(shares))
    assert solver.solve((0, 0)).weight == Fraction(1, len(shares) * len(shares[0]))
    with pytest.raises(PathError):
        solver.solve((len(shares),))
    with pytest.raises(PathError):
        solver.solve((0,) * 10)  # deeper than every row fixed


def test_listing_is_refused_with_a_pointer_to_the_search():
    solver = TransferSolver(Puzzle.build(5, 5))
    for request in (SolveRequest(listing=True), SolveRequest(limit=3)):
        with pytest.raises(ProblemError, match="search"):
            solver.solve((), request)


def test_clue_strings_with_square_symmetry_are_refused():
    with pytest.raises(ProblemError, match="search"):
        TransferSolver(Puzzle.build(5, 5, symmetry="diagonal", clues="ZZZ"))


# -- the reachability table (core/crossword/_reachable.h, reference core/crossword/reachable.py)
UNFOLDED = ["none", "left-right"]


@SETTINGS
@given(st.integers(1, 7), st.integers(1, 7), st.sampled_from(UNFOLDED), rules_st, st.data())
def test_pruning_by_the_table_never_changes_a_count(R, C, kind, rules, data):
    """Pruned = unpruned, in C and in Python: the table only drops states that reach no grid."""
    if min(R, C) < rules.min_word or R * C > 36:
        return
    pz, fixed = random_puzzle(data, R, C, kind, rules)
    whole = TransferCounter(pz, fixed, prune=False)
    expected = whole.count()
    assert TransferCounter(pz, fixed).count() == expected
    args = whole.c_arguments()
    assert _transfer.count(*args, -1.0, -1, True)[0] == expected
    assert _transfer.count(*args, -1.0, -1, False)[0] == expected


def _table_queries(counter: TransferCounter) -> list[tuple[int, bytes, int]]:
    """Every (row, run lengths, clue position) of the unpruned count's states, and the
    positions next to each (so dead entries are asked about too)."""
    out = set()
    layer = {((0,) * counter.L, 0, bytes(counter.C) if counter.connected else None, False): {0: 1}}
    for r in range(counter.R):
        layer = counter.step(layer, r)
        for g, ks in layer.items():
            lens = bytes(counter.lengths(g[0]))
            for k in ks:
                for j in (k - 1, k, k + 1):
                    if 0 <= j <= len(counter.clues):
                        out.add((r, lens, j))
    return sorted(out)


@SETTINGS
@given(st.integers(2, 7), st.integers(2, 7), st.sampled_from(UNFOLDED), rules_st, st.data())
def test_table_in_c_equals_the_python_reference(R, C, kind, rules, data):
    """Every answer of the C table (with its finer filters) is the reference's."""
    if min(R, C) < rules.min_word or R * C > 36:
        return
    from core.crossword.reachable import Reachable, profile_of

    pz, fixed = random_puzzle(data, R, C, kind, rules)
    if pz.clues is None:
        return
    counter = TransferCounter(pz, fixed, prune=False)
    ref = Reachable.of(counter)
    queries = _table_queries(counter)
    R_, C_, L, checked, _conn, _nbl, _fold, clues, pats, exact, need = counter.c_arguments()
    spec = (L, checked, pats, exact, need)
    got = _transfer.reachable(R_, C_, clues, spec, queries)
    for (r, lens, j), answer in zip(queries, got):
        levels = tuple(sum(1 << c for c in range(C) if lens[c] > i) for i in range(L))
        assert ref.can_finish(r, levels, j) == answer, (r, lens, j)
    # the next rows picked by the trie and by a scan (big rows' ways) answer the same
    assert _transfer.reachable(R_, C_, clues, spec, queries, 1) == got
    assert _transfer.reachable(R_, C_, clues, spec, queries, 2) == got
    # and without the quick dead-end test of checked puzzles (it only answers sooner)
    for mode in (0, 1, 2):
        assert _transfer.reachable(R_, C_, clues, spec, queries, mode, False) == got
    # profile_of rebuilds the same levels from the rows' masks
    rows = [sum(1 << c for c in range(C) if (q + c) % 3) for q in range(R)]
    for r in range(R):
        lv = profile_of(rows, r, L)
        assert lv[0] == rows[r] and all(lv[i] == lv[i - 1] & (rows[r - i] if r - i >= 0 else 0) for i in range(1, L))


def test_the_table_prunes_unfolded_kinds_with_a_clue_string_only():
    """prunes_by_table (the method choice's levels_first): a clue string and no fold."""
    from core.crossword.transfer_solver import prunes_by_table

    g = Grid(5, 5, tuple(ch == "#" for ch in "....." "....." "..#.." "....." "....."))
    clues = g.clue_string()
    assert prunes_by_table(Puzzle.build(5, 5, clues=clues))
    assert prunes_by_table(Puzzle.build(5, 5, symmetry="left-right", clues=clues))
    assert not prunes_by_table(Puzzle.build(5, 5, symmetry="rotational", clues=clues))
    assert not prunes_by_table(Puzzle.build(5, 5))


def test_table_prunes_the_states_of_a_clue_string():
    """A 7x7 grid's clue string: far fewer states with the table, the same count."""
    g = Grid(7, 7, tuple(ch == "#" for ch in "...#..." "...#..." "......." "##...##" "......." "...#..." "...#..."))
    pz = Puzzle.build(7, 7, clues=g.clue_string())
    args = TransferCounter(pz).c_arguments()
    pruned = _transfer.count(*args, -1.0, -1, True)
    whole = _transfer.count(*args, -1.0, -1, False)
    assert pruned[0] == whole[0] >= 1
    assert pruned[1] < whole[1]
