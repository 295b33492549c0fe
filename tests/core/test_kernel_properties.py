"""Laws of the search contract, on random small exact covers with colors and
multiplicities: kernel = reference = brute force; splits and budgets partition the tree."""
from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.errors import PathError
from core.exact_cover import ExactCover
from core.kernel import KernelSolver, frontier_capped
from core.reference import ReferenceSolver
from core.search import SolveRequest

HEURISTICS = ["mrv", "first"]


@st.composite
def exact_covers(draw, colors=True, multiplicities=True):
    n_primary = draw(st.integers(1, 5))
    n_secondary = draw(st.integers(0, 3))
    n_items = n_primary + n_secondary
    n_colors = draw(st.integers(1, 3)) if colors and n_secondary else 0
    options = []
    for _ in range(draw(st.integers(1, 11))):
        items = draw(st.lists(st.integers(0, n_items - 1), min_size=1, max_size=4, unique=True))
        entries = []
        for i in items:
            c = draw(st.integers(0, n_colors)) if i >= n_primary and n_colors else 0
            entries.append((i, c))
        options.append(entries)
    bounds = None
    if multiplicities and draw(st.booleans()):
        bounds = []
        for _ in range(n_primary):
            lo = draw(st.integers(0, 2))
            hi = draw(st.integers(max(lo, 1), 3))
            bounds.append((lo, hi))
    names = [f"p{i}" for i in range(n_primary)] + [f"s{i}" for i in range(n_secondary)]
    color_names = [""] + [f"c{k}" for k in range(1, n_colors + 1)]
    return ExactCover.from_indices(names, n_primary, options, color_names, bounds)


def brute_force(ec: ExactCover) -> set[tuple[int, ...]]:
    found = set()
    for r in range(ec.n_options + 1):
        for subset in itertools.combinations(range(ec.n_options), r):
            if ec.is_solution(subset):
                found.add(subset)
    return found


def solvers(ec, heuristic):
    """The kernel without its counting memo (so node counts compare) and the reference."""
    return KernelSolver(ec, heuristic, memo=False), ReferenceSolver(ec, heuristic)


SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS))
def test_kernel_equals_reference_equals_brute_force(ec, heuristic):
    kernel, reference = solvers(ec, heuristic)
    k = kernel.solve((), SolveRequest(listing=True))
    r = reference.solve((), SolveRequest(listing=True))
    assert k.solutions == r.solutions  # same tree: same solutions in the same order
    assert k.stats.nodes == r.stats.nodes
    assert k.stats.nodes_per_depth == r.stats.nodes_per_depth
    assert k.stats.leaves == r.stats.leaves
    assert k.count <= k.stats.leaves <= k.stats.nodes  # every solution is a leaf (no memo here)
    sols = [tuple(sorted(s)) for s in k.solutions]
    assert len(set(sols)) == len(sols), "a solution was found twice"
    assert set(sols) == brute_force(ec)
    assert k.count == len(sols) == kernel.count()


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS), st.integers(0, 6))
def test_split_partitions_the_tree(ec, heuristic, depth):
    kernel, reference = solvers(ec, heuristic)
    frontier = kernel.split(depth)
    assert frontier == reference.split(depth)
    assert sum(s.weight for s in frontier) == 1
    assert all(len(s.path) <= depth for s in frontier)
    assert sum(kernel.count(s.path) for s in frontier) == kernel.count()
    # the leaves are all below the split: the subproblems find each exactly once
    assert sum(kernel.solve(s.path).stats.leaves for s in frontier) == kernel.solve().stats.leaves
    # splitting a subproblem again partitions it too
    for sub in frontier[:3]:
        deeper = kernel.split(depth + 2, sub.path)
        assert sum(s.weight for s in deeper) == sub.weight
        assert sum(kernel.count(s.path) for s in deeper) == kernel.count(sub.path)


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS), st.integers(1, 4))
def test_budget_continuation_sums_to_the_whole(ec, heuristic, budget):
    for solver in solvers(ec, heuristic):
        total, leaves, done_weight, pending, rounds = 0, 0, Fraction(0), [()], 0
        while pending:
            path = pending.pop()
            result = solver.solve(path, SolveRequest(node_budget=budget))
            total += result.count
            leaves += result.stats.leaves
            done_weight += result.weight_done
            assert result.weight_done + sum(s.weight for s in result.frontier) == result.weight
            pending.extend(s.path for s in result.frontier)
            rounds += 1
            assert rounds < 10_000
        assert total == solver.count()
        assert leaves == solver.solve().stats.leaves
        assert done_weight == 1


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS), st.integers(1, 40), st.integers(0, 120), st.booleans())
def test_a_capped_stop_takes_back_what_it_hands_on(ec, heuristic, budget, cap, listing):
    """Under a small cap a stop hands back a shallower node whole, its count and the
    solutions listed below it taken back: the parts still count and list the whole tree,
    each solution once, and weigh 1; every part is deeper than the one it came from."""
    kernel = KernelSolver(ec, heuristic=heuristic)
    total, found, done_weight, pending, rounds = 0, [], Fraction(0), [()], 0
    with frontier_capped(cap):
        while pending:
            path = pending.pop()
            result = kernel.solve(path, SolveRequest(listing=listing, node_budget=budget))
            assert all(len(s.path) > len(path) for s in result.frontier)
            total += result.count
            found += result.solutions or []
            done_weight += result.weight_done
            assert result.weight_done + sum(s.weight for s in result.frontier) == result.weight
            pending.extend(s.path for s in result.frontier)
            rounds += 1
            assert rounds < 10_000
    assert total == kernel.count()
    assert done_weight == 1
    if listing:
        everything = kernel.solve((), SolveRequest(listing=True)).solutions
        assert sorted(map(sorted, found)) == sorted(map(sorted, everything))


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS), st.integers(1, 3))
def test_batched_enumeration_is_the_full_enumeration(ec, heuristic, batch):
    kernel, reference = solvers(ec, heuristic)
    everything = kernel.solve((), SolveRequest(listing=True)).solutions
    assert list(kernel.solutions(batch=batch)) == everything
    assert list(reference.solutions(batch=batch)) == everything
    assert kernel.first(batch) == everything[:batch]


@SETTINGS
@given(exact_covers(), st.sampled_from(HEURISTICS), st.lists(st.integers(0, 12), max_size=4))
def test_illegal_paths_are_errors(ec, heuristic, path):
    kernel, reference = solvers(ec, heuristic)
    outcomes = []
    for solver in (kernel, reference):
        try:
            outcomes.append(solver.count(path))
        except (PathError, ValueError) as exc:
            outcomes.append(type(exc) is PathError or "outside" in str(exc) or isinstance(exc, PathError))
            outcomes[-1] = "error"
    assert outcomes[0] == outcomes[1]


def test_first_item_and_mrv_count_the_same_queens():
    from core.exact_cover import ExactCover

    n = 8
    prim = [f"r{i}" for i in range(n)] + [f"c{j}" for j in range(n)]
    sec = [f"a{d}" for d in range(2 * n - 1)] + [f"b{d}" for d in range(2 * n - 1)]
    opts = [[f"r{i}", f"c{j}", f"a{i + j}", f"b{i - j + n - 1}"] for i in range(n) for j in range(n)]
    ec = ExactCover.build(prim, sec, opts)
    assert KernelSolver(ec, "mrv").count() == KernelSolver(ec, "first").count() == 92


def test_unknown_heuristic_is_an_error():
    ec = ExactCover.build(["a"], [], [["a"]])
    with pytest.raises(ValueError):
        KernelSolver(ec, "random")


def _grid_tiling(rows, cols, blocked, shapes, counted):
    """Tilings of a small board by the given shapes (all orientations given explicitly).
    ``counted``: shape index -> (lo, hi) to give that shape a primary counter item."""
    from core.pruning import RegionRule

    cells = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in blocked]
    index = {cell: k for k, cell in enumerate(cells)}
    piece_items = {s: len(cells) + j for j, s in enumerate(sorted(counted))}
    names = [f"{r},{c}" for r, c in cells] + [f"piece{s}" for s in sorted(counted)]
    options = []
    for s, orientations in enumerate(shapes):
        placements = set()
        for shape in orientations:
            for dr in range(rows):
                for dc in range(cols):
                    placed = tuple(sorted((r + dr, c + dc) for r, c in shape))
                    if all(p in index for p in placed):
                        placements.add(placed)
        for placed in sorted(placements):
            entries = [(index[p], 0) for p in placed]
            if s in piece_items:
                entries.append((piece_items[s], 0))
            options.append(entries)
    bounds = [(1, 1)] * len(cells) + [counted[s] for s in sorted(counted)]
    ec = ExactCover.from_indices(names, len(names), options, ("",), bounds)
    neighbors = tuple(
        tuple(index[q] for q in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if q in index) for r, c in cells
    )
    pieces = tuple((len(orients[0]), piece_items.get(s, -1)) for s, orients in enumerate(shapes))
    return ec, RegionRule(tuple(range(len(cells))), neighbors, pieces)


DOMINO = [[(0, 0), (0, 1)], [(0, 0), (1, 0)]]
L_TROMINO = [[(0, 0), (1, 0), (1, 1)], [(0, 1), (1, 0), (1, 1)], [(0, 0), (0, 1), (1, 0)], [(0, 0), (0, 1), (1, 1)]]
I_TROMINO = [[(0, 0), (0, 1), (0, 2)], [(0, 0), (1, 0), (2, 0)]]


@SETTINGS
@given(
    st.integers(2, 4),
    st.integers(2, 5),
    st.sets(st.tuples(st.integers(0, 3), st.integers(0, 4)), max_size=3),
    st.sampled_from([(0,), (1,), (0, 1), (1, 2), (0, 2)]),
    st.booleans(),
    st.sampled_from(HEURISTICS),
)
def test_region_pruning_changes_no_count(rows, cols, blocked, which, counted, heuristic):
    shapes = [[DOMINO, L_TROMINO, I_TROMINO][k] for k in which]
    counts = {0: (0, 2)} if counted else {}
    ec, region = _grid_tiling(rows, cols, blocked, shapes, counts)
    if ec.n_options == 0:
        return
    plain = KernelSolver(ec, heuristic, memo=False).count()
    assert KernelSolver(ec, heuristic, region, memo=True).count() == plain
    pruned = KernelSolver(ec, heuristic, region, memo=False)
    reference = ReferenceSolver(ec, heuristic, region)
    assert pruned.count() == plain == ReferenceSolver(ec, heuristic).count()
    k, r = pruned.solve((), SolveRequest(listing=True)), reference.solve((), SolveRequest(listing=True))
    assert k.solutions == r.solutions and k.stats.nodes == r.stats.nodes
    assert all(ec.is_solution(s) for s in k.solutions)
    frontier = pruned.split(2)
    assert sum(s.weight for s in frontier) == 1
    assert sum(pruned.count(s.path) for s in frontier) == plain


def test_domino_tilings_known_counts():
    for (rows, cols), expected in {(2, 2): 2, (4, 4): 36, (6, 6): 6728, (4, 7): 781}.items():
        ec, region = _grid_tiling(rows, cols, set(), [DOMINO], {})
        for heuristic in HEURISTICS:
            assert KernelSolver(ec, heuristic, region).count() == expected
            assert KernelSolver(ec, heuristic).count() == expected


@SETTINGS
@given(exact_covers(colors=False, multiplicities=False), st.sampled_from(HEURISTICS), st.integers(0, 3))
def test_memoised_count_equals_plain_count(ec, heuristic, depth):
    plain = KernelSolver(ec, heuristic, memo=False)
    memo = KernelSolver(ec, heuristic, memo=True)
    tiny = KernelSolver(ec, heuristic, memo=4096)  # constant eviction
    assert memo.count() == tiny.count() == plain.count()
    for sub in plain.split(depth):
        assert memo.count(sub.path) == plain.count(sub.path)
    # a budget stop with the memo on still hands back an exact frontier
    total, pending = 0, [()]
    while pending:
        result = memo.solve(pending.pop(), SolveRequest(node_budget=2))
        total += result.count
        pending.extend(s.path for s in result.frontier)
    assert total == plain.count()


@pytest.mark.parametrize(
    "rows, cols, expected",
    [
        (8, 8, 12_988_816),
        (12, 12, 53_060_477_521_960_000),
        (16, 16, 2_444_888_770_250_892_795_802_079_170_816),  # past 2^64: exact
    ],
)
def test_memoised_domino_tilings(rows, cols, expected):
    ec, region = _grid_tiling(rows, cols, set(), [DOMINO], {})
    assert KernelSolver(ec, "first").count() == expected


@pytest.mark.parametrize("memo_bytes", [40_000, 200_000, 5_000_000])
def test_memo_under_memory_pressure_stays_exact(memo_bytes):
    # small caps: the table stops growing early and evicts all the time
    ec, _ = _grid_tiling(8, 8, set(), [DOMINO], {})
    solver = KernelSolver(ec, "mrv", memo=memo_bytes)
    assert solver.count() == 12_988_816
    assert solver.memo_hits > 0


def test_memo_on_sudoku_like_covers_with_many_words():
    # Latin squares of order 5 as a plain exact cover of 75 items (two words per bitset)
    n = 5
    items = [f"{a}{i}{j}" for a in "rcx" for i in range(n) for j in range(n)]
    options = [[f"r{r}{v}", f"c{c}{v}", f"x{r}{c}"] for r in range(n) for c in range(n) for v in range(n)]
    ec = ExactCover.build(items, [], options)
    assert KernelSolver(ec, memo=True).count() == 161_280  # Latin squares of order 5


@pytest.mark.parametrize("n", [81, 83])
def test_a_budgeted_search_hands_on_what_would_pass_2_to_the_128(n):
    """n items, each taken by any of 3 options of its own (3^n > 2^128 covers): a budgeted
    search stops where its count would pass 2^128 and hands the rest on; the parts add up
    to 3^n exactly, each below 2^128.  Without a budget the solver sums the parts itself."""
    ec = ExactCover.from_indices([f"i{j}" for j in range(n)], n, [[(j, 0)] for j in range(n) for _ in range(3)])
    solver = KernelSolver(ec)
    total, todo, parts = 0, [()], 0
    while todo:
        result = solver.solve(todo.pop(), SolveRequest(seconds=600))
        assert result.count < 2**128
        total += result.count
        todo.extend(sub.path for sub in result.frontier)
        parts += 1
    assert total == 3**n and parts > 1
    whole = solver.solve()
    assert (whole.count, whole.stats.solutions, whole.complete, whole.weight) == (3**n, 3**n, True, 1)
    assert solver.count([0, 3]) == 3 ** (n - 2)


def test_a_count_past_2_to_the_128_under_a_small_frontier_cap():
    """The same parts, each stop cut back to a shallower node (its count taken back)."""
    n = 83
    ec = ExactCover.from_indices([f"i{j}" for j in range(n)], n, [[(j, 0)] for j in range(n) for _ in range(3)])
    solver = KernelSolver(ec)
    total, todo = 0, [()]
    with frontier_capped(40):
        while todo:
            result = solver.solve(todo.pop(), SolveRequest(seconds=600))
            total += result.count
            todo.extend(sub.path for sub in result.frontier)
    assert total == 3**n
