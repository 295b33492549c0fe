"""Large inputs (issue 21, point 5): limits stated in the built-in names, a cap on
covers that would not fit in memory, the regions a placement leaves (checked against a
plain flood fill), and the arithmetic that used to take minutes on big boards."""
from __future__ import annotations

import random
from collections import Counter, deque
from fractions import Fraction

import pytest

from core.errors import ProblemError
from core.kernel import MAX_KERNEL_BYTES, kernel_bytes
from core.library import load, load_spec
from core.polyform.board import MAX_BOARD_CELLS, Board
from core.polyform.problem import MAX_DOMINO_CELLS, _add_copies
from core.polyform import regions as regions_module
from core.polyform.regions import Regions
from core.polyform.shapes import NEIGHBOUR_STEPS
from core.search import weight_of, weights_of


@pytest.mark.parametrize("name, message", [
    ("dominoes-201x200", "dominoes-201x200: R*C at most 40,000 (here 40,200)"),
    ("dominoes-0x5", "dominoes-0x5: R and C at least 1"),
    ("latin-37", "latin-37: N at most 36"),
    ("latin-0", "latin-0: N at least 1"),
    ("queens-0", "queens-0: N at least 1"),
    ("queens-65", "queens-65: N at most 64"),
    ("queens-100", "queens-100: N at most 64"),
])
def test_a_name_past_its_family_limits_says_which(name, message):
    with pytest.raises(ProblemError) as err:
        load_spec(name)
    assert str(err.value) == message


def test_names_at_the_limits_load():
    assert load_spec("dominoes-200x200")["kind"] == "polyform"
    assert load_spec("dominoes-1x40000")["kind"] == "polyform"
    assert load_spec("latin-36")["kind"] == "latin"
    assert load_spec("queens-64")["args"] == {"n": 64}
    assert load_spec("queens-1")["args"] == {"n": 1}


def test_an_unknown_name_is_still_no_such_file():
    with pytest.raises(ProblemError, match="no-such-thing: no such file or built-in problem"):
        load_spec("no-such-thing")


def test_the_largest_domino_name_fits_the_kernel_limit():
    side = int(MAX_DOMINO_CELLS ** 0.5)
    assert kernel_bytes(MAX_DOMINO_CELLS, 2 * MAX_DOMINO_CELLS, MAX_DOMINO_CELLS // 2) <= MAX_KERNEL_BYTES
    assert side * side == MAX_DOMINO_CELLS


def test_a_board_too_big_for_memory_is_refused_before_its_cells_are_listed():
    assert kernel_bytes(MAX_BOARD_CELLS, MAX_BOARD_CELLS, 0) <= MAX_KERNEL_BYTES
    assert kernel_bytes(MAX_BOARD_CELLS + 10_000, MAX_BOARD_CELLS + 10_000, 0) > MAX_KERNEL_BYTES
    with pytest.raises(ProblemError, match=r"size: 4,000,000 cells; a board has at most 180,000"):
        Board.of_size([2000, 2000])


def test_a_cover_too_big_for_memory_is_refused_with_its_size(tmp_path):
    path = tmp_path / "big.toml"
    path.write_text('kind = "polyform"\ngoal = "fill"\nsize = [400, 400]\n\n[[pieces]]\nset = "dominoes"\n'
                    'count = "any"\n')
    with pytest.raises(ProblemError) as err:
        load(str(path))
    text = str(err.value)
    assert text.startswith(f"{path}: too big to count: 160,000 free cells and up to 320,000 placements")
    assert "GB in the kernel" in text and "\n" not in text


def flood_sizes(free: set, placed: set) -> list[int]:
    """The sizes of the regions of ``free - placed`` that touch ``placed``, the slow way."""
    rest = free - placed
    seen: set = set()
    sizes = []
    for c in placed:
        z, y, x = c
        for dz, dy, dx in NEIGHBOUR_STEPS:
            n = (z + dz, y + dy, x + dx)
            if n in rest and n not in seen:
                seen.add(n)
                queue, size = deque([n]), 0
                while queue:
                    a = queue.popleft()
                    size += 1
                    for ez, ey, ex in NEIGHBOUR_STEPS:
                        b = (a[0] + ez, a[1] + ey, a[2] + ex)
                        if b in rest and b not in seen:
                            seen.add(b)
                            queue.append(b)
                sizes.append(size)
    return sorted(sizes)


FORMS = [((0, 0, 0), (0, 0, 1)), ((0, 0, 0), (0, 1, 0), (0, 1, 1)), ((0, 0, 0), (0, 0, 1), (0, 0, 2), (0, 1, 1)),
         ((0, 0, 0),), ((0, 0, 0), (0, 1, 0), (0, 2, 0), (0, 2, 1), (0, 2, 2))]


@pytest.fixture(params=["local", "bitwise"])
def fill_mode(request, monkeypatch):
    """Each way of finding the regions: the local test (with the lockstep fill where a
    placement splits its region), and the bit-parallel fill of small boards."""
    monkeypatch.setattr(regions_module, "BITWISE_CELLS", 0 if request.param == "local" else 10**9)
    return request.param


@pytest.mark.parametrize("seed", range(6))
def test_regions_left_by_a_placement_match_a_flood_fill(seed, fill_mode):
    rng = random.Random(seed)
    rows, cols = rng.randint(3, 12), rng.randint(3, 12)
    free = frozenset((0, y, x) for y in range(rows) for x in range(cols) if rng.random() > 0.3)
    board = Board(1, rows, cols, free)
    regions = Regions(board)
    assert regions.bitwise == (fill_mode == "bitwise")
    checked = 0
    for form in FORMS:
        for y in range(-1, rows + 1):
            for x in range(-1, cols + 1):
                cells = {(z, y + dy, x + dx) for z, dy, dx in form}
                if cells <= free:
                    assert sorted(regions.touching(form, (0, y, x))) == flood_sizes(set(free), cells)
                    checked += 1
    assert checked > 0


def test_regions_in_space_match_a_flood_fill(fill_mode):
    rng = random.Random(7)
    free = frozenset((z, y, x) for z in range(3) for y in range(4) for x in range(4) if rng.random() > 0.35)
    regions = Regions(Board(3, 4, 4, free, 3))
    form = ((0, 0, 0), (1, 0, 0), (1, 1, 0))
    for z in range(3):
        for y in range(4):
            for x in range(4):
                cells = {(z + a, y + b, x + c) for a, b, c in form}
                if cells <= free:
                    assert sorted(regions.touching(form, (z, y, x))) == flood_sizes(set(free), cells)


@pytest.mark.parametrize("size, copies", [(1, 0), (2, 1), (2, 7), (3, 8), (5, 100)])
def test_copies_added_in_chunks_make_every_count(size, copies):
    mask = (1 << 200) - 1
    expected = 0
    for k in range(copies + 1):
        expected |= (0b101 << (k * size))
    assert _add_copies(0b101, size, copies, mask) == expected & mask


def test_frontier_weights_along_one_stack_and_otherwise():
    stack = [(3,), (3, 2), (3, 2, 5), (3,)]
    assert weights_of(stack) == [weight_of(f) for f in stack] == [Fraction(1, 3), Fraction(1, 6), Fraction(1, 30),
                                                                   Fraction(1, 3)]
    apart = [(2, 3), (4,), ()]
    assert weights_of(apart) == [Fraction(1, 6), Fraction(1, 4), Fraction(1)]
    assert weights_of([]) == []


@pytest.mark.parametrize("seed", range(4))
def test_a_growth_cut_short_tells_only_sizes_that_are_there(seed, monkeypatch):
    """Past GROW_AT_MOST cells grown, the lockstep growth tells the regions that finished
    and no others: each size told is one of the flood fill's (a placement is then pruned
    only for a region that is really there)."""
    monkeypatch.setattr(regions_module, "BITWISE_CELLS", 0)
    monkeypatch.setattr(regions_module, "GROW_AT_MOST", 3)
    rng = random.Random(seed)
    rows, cols = rng.randint(3, 10), rng.randint(8, 20)
    free = frozenset((0, y, x) for y in range(rows) for x in range(cols) if rng.random() > 0.2)
    regions = Regions(Board(1, rows, cols, free))
    cut_short = 0
    for form in FORMS:
        for y in range(rows):
            for x in range(cols):
                cells = {(0, y + dy, x + dx) for _, dy, dx in form}
                if cells <= free:
                    told, truth = sorted(regions.touching(form, (0, y, x))), flood_sizes(set(free), cells)
                    assert not Counter(told) - Counter(truth)
                    cut_short += told != truth
    assert cut_short > 0  # (the cap was reached)


def test_a_strip_s_placements_are_found_without_growing_both_sides(monkeypatch):
    """A vertical domino splits a 2xN strip in two; growing both sides to the end of the
    smaller, placement after placement, took time in the square of N (the 2x1000 strip:
    13 s).  Cut short, the growth costs at most about GROW_AT_MOST cells a placement, and
    the strip's placements are all there (every split leaves two even sides)."""
    monkeypatch.setattr(regions_module, "BITWISE_CELLS", 0)
    monkeypatch.setattr(regions_module, "GROW_AT_MOST", 16)
    expanded = []
    original = Regions._free_neighbours

    def counted(self, c):
        expanded.append(c)
        return original(self, c)

    monkeypatch.setattr(Regions, "_free_neighbours", counted)
    ec = load("dominoes-2x600").exact_cover()
    assert len(ec.options) == 600 + 2 * 599
    assert len(expanded) < 2 * 1200 + 40 * 600  # labelling the board once, then 40 cells a placement at most


@pytest.mark.parametrize("cap", [0, 256])
def test_pruning_cut_short_counts_the_same(cap, monkeypatch):
    """Placements a growth cut short keeps are ones no solution may use: the counts stay."""
    from core.kernel import KernelSolver

    monkeypatch.setattr(regions_module, "BITWISE_CELLS", 0)
    monkeypatch.setattr(regions_module, "GROW_AT_MOST", cap)
    assert KernelSolver(load("dominoes-2x12").exact_cover()).count() == 233  # Fibonacci
    assert KernelSolver(load("pentomino-8x8-centre").exact_cover()).count() == 520


def _ids(frontier) -> int:
    """Ids a frontier takes in the kernel's hand-over: each path, its factors, its length."""
    return sum(1 + 2 * len(sub.path) for sub in frontier)


@pytest.mark.parametrize("cap", [150, 400, 1000])
def test_a_stop_hands_back_a_frontier_within_the_cap(cap):
    """On a deep tree a stop's frontier is about depth^2 ids (611 MB a task on the
    200x200 domino board, the parent killed for memory): the kernel stops at the deepest
    level whose hand-over fits its cap, that node handed back whole and its count taken
    back.  What it hands back is within the cap and, with the count made, is the whole
    (the split law).  The 2x24 strip: 24 levels, Fibonacci."""
    from core.kernel import KernelSolver, frontier_capped
    from core.search import SolveRequest

    solver = KernelSolver(load("dominoes-2x24").exact_cover(), memo=False)
    with frontier_capped(cap):
        out = solver.solve((), SolveRequest(seconds=0.0))
    assert out.stopped_by == "budget" and out.frontier
    assert _ids(out.frontier) <= cap
    rest = sum(solver.solve(sub.path).count for sub in out.frontier)
    assert out.count + rest == 75025  # F(25)


def test_a_cap_nothing_fits_hands_back_the_first_level():
    """However small the cap, a stop makes progress: it hands back the root's children
    (one level down), with nothing counted."""
    from core.kernel import KernelSolver, frontier_capped
    from core.search import SolveRequest

    solver = KernelSolver(load("dominoes-2x24").exact_cover(), memo=False)
    with frontier_capped(0):
        out = solver.solve((), SolveRequest(seconds=0.0))
    assert (out.stopped_by, out.count) == ("budget", 0)
    assert {len(sub.path) for sub in out.frontier} == {1}
    assert sum(solver.solve(sub.path).count for sub in out.frontier) == 75025


def test_a_200x200_board_s_stop_hands_back_at_most_the_cap():
    """The board the cap is for, with the default cap: its count passes 2^128 deep down
    (the memo), and the stop hands back 4 million ids at most, not 392 million."""
    from core import _kernel
    from core.kernel import KernelSolver
    from core.search import SolveRequest

    out = KernelSolver(load("dominoes-200x200").exact_cover()).solve((), SolveRequest(seconds=60.0))
    assert out.stopped_by == "budget" and 0 < _ids(out.frontier) <= _kernel.frontier_cap()
