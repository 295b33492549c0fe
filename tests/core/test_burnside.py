"""Distinct counts by Burnside's lemma (core/burnside.py): on random boards with holes
symmetric and not, symmetric pieces, one-sided sets and copies, the classes by folding
equal the classes of the listed solutions and the canonical checks' count; each folded
cover's count equals the solutions its symmetry fixes, found by brute force; the parts add
up as any split does; the library's published distinct counts."""
from __future__ import annotations

import os
import sys
from fractions import Fraction
from itertools import permutations, product

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from core.burnside import BurnsideSolver, Unfoldable, classes_of, conjugacy_classes, fold
from core.distinct import DistinctSolver
from core.errors import ProblemError
from core.engines import burnside_order, fixed_points, fold_methods, solver_for
from core.frontier import refusal
from core.library import load
from core.polyform import problem_from_text
from core.search import SolveRequest
from core.solver_options import FoldMethod, LevelPlan, Method, SolverOptions

sys.path.insert(0, os.path.dirname(__file__))
from test_symmetry import BOXES, DRAWN, box_problem, draw_pieces, problem_of, symmetric_problems  # noqa: E402


def listed_classes(problem) -> tuple[int, list[int]]:
    """Brute force: every solution listed; the classes of their sets under the group, and
    the solutions each element fixes."""
    group = problem.symmetry()
    perms = group.permutations
    solutions = [frozenset(s) for s in problem.solver().solutions()]
    canonical = {min(tuple(sorted(g[o] for o in s)) for g in perms) for s in solutions}
    fixed = [sum(1 for s in solutions if frozenset(g[o] for o in s) == s) for g in perms]
    return len(canonical), fixed


def burnside(problem, engine: str | None = None, folds: FoldMethod | None = None) -> BurnsideSolver:
    """The count by Burnside's lemma, its folds searched, or counted as ``folds`` says
    where counting by levels takes them."""
    order = burnside_order(problem, SolverOptions(distinct=True))
    assert order == len(set(problem.symmetry().items))  # the group as it acts on the items
    methods = ()
    if folds is not None:
        covers = [f.cover for f in fixed_points(problem) if f.cover is not None]
        methods = tuple(folds if refusal(c) is None else FoldMethod() for c in covers)
    solver = solver_for(problem, SolverOptions(engine=engine, distinct=True, burnside=order, fold_methods=methods))
    assert isinstance(solver, BurnsideSolver)
    return solver


#: the folds counted by levels: below the root alone, and in shares of two groups of moduli
BY_LEVELS = [FoldMethod(Method.LEVELS), FoldMethod(Method.LEVELS, LevelPlan(threads=2, groups=2))]


#: small solid pieces for the boxes (layers split by "|", rows by "/")
CUBES = {"D": "##", "I": "###", "V": "##/#.", "L": "###/#..", "T": "###/.#.", "S": ".##/##.", "O": "##/##",
         "A": "##/#.|#./..", "B": "##/#.|.#/.."}


def _box_images(dims: tuple[int, int, int], cell: tuple[int, int, int]) -> set:
    """A cell's images under the box's symmetries: the axes' flips, and the swaps of axes
    of equal length."""
    out = set()
    for order in permutations(range(3)):
        if any(dims[order[k]] != dims[k] for k in range(3)):
            continue
        moved = tuple(cell[order[k]] for k in range(3))
        for flips in product((False, True), repeat=3):
            out.add(tuple(dims[k] - 1 - moved[k] if flips[k] else moved[k] for k in range(3)))
    return out


@st.composite
def symmetric_boxes(draw):
    """A box (up to 2x3x3, a cube's symmetries sometimes: 2x2x2) with holes made symmetric
    or not, and solid pieces that fill it: each once or twice, mirrored or not, dominoes in
    any number or a fixed number making up the area."""
    dims = draw(st.sampled_from([(2, 2, 2), (2, 2, 3), (2, 3, 3), (1, 3, 4), (2, 2, 4)]))
    cells = list(product(*(range(d) for d in dims)))
    holes = set(draw(st.lists(st.sampled_from(cells), max_size=2)))
    if draw(st.booleans()):
        holes = set().union(*(_box_images(dims, c) for c in holes)) if holes else set()
    free = len(cells) - len(holes)
    assume(free >= 2)
    pieces = draw_pieces(draw, CUBES, free)
    if pieces is None:
        return None
    layers = "\n\n".join("\n".join("".join("#" if (z, y, x) in holes else "-" for x in range(dims[2]))
                                     for y in range(dims[1])) for z in range(dims[0]))
    text = f'kind = "polyform"\nboard = """\n{layers}\n"""\n'
    for name, (count, mirror) in pieces.items():
        shape = "\n\n".join(layer.replace("/", "\n") for layer in CUBES[name].split("|"))
        text += (f'\n[[pieces]]\nname = "{name}"\nshape = """\n{shape}\n"""\ncount = {count}\n'
                 f'mirror = {str(mirror).lower()}\n')
    return text


@DRAWN
@given(symmetric_problems())
def test_classes_by_folding_are_the_classes_of_the_listed_solutions(drawn):
    check_classes_by_folding(problem_of(drawn))


@DRAWN
@given(symmetric_boxes())
def test_boxes_with_holes_count_their_classes_by_folding(text):
    assume(text is not None)
    try:
        p = problem_from_text(text, format="toml")
    except ProblemError:  # no combination of the pieces fills the box
        return
    check_classes_by_folding(p)


def check_classes_by_folding(p) -> None:
    """Burnside's count of ``p``'s classes, its folds searched and by levels, whole and
    split, against the listed solutions' classes and the canonical checks."""
    if p is None:
        return
    classes, fixed = listed_classes(p)
    folds = fixed_points(p)
    if isinstance(folds, str):  # an orbit of placements uses a piece of two copies twice
        assert "several copies" in folds
        assert burnside_order(p, SolverOptions(distinct=True)) == 0
        return
    # each class's folded cover counts the solutions its elements fix
    for f in folds:
        counted = 0 if f.cover is None else solver_for_cover(f.cover)
        assert all(fixed[g] == counted for g in f.elements)
    for engine in (None, "reference"):
        solver = burnside(p, engine)
        result = solver.solve()
        assert result.count == fixed[0] and solver.classes(result.distinct) == classes
    canonical = solver_for(p, SolverOptions(distinct=True)).solve()
    assert canonical.distinct == classes
    for folds in BY_LEVELS:  # the folds counted by levels, whole and split
        by_levels = burnside(p, folds=folds)
        result = by_levels.solve()
        assert result.count == fixed[0] and by_levels.classes(result.distinct) == classes
        parts = [by_levels.solve(s.path) for s in by_levels.split(2)]
        assert by_levels.classes(sum(r.distinct for r in parts)) == classes
    # split and sum: the parts' counts and sums add up to the whole
    for depth in (1, 2, 3):
        frontier = solver.split(depth)
        assert sum((s.weight for s in frontier), Fraction(0)) == 1
        parts = [solver.solve(s.path) for s in frontier]
        assert sum(r.count for r in parts) == fixed[0]
        assert solver.classes(sum(r.distinct for r in parts)) == classes


def solver_for_cover(cover) -> int:
    from core.kernel import KernelSolver
    from core.reference import ReferenceSolver

    count = KernelSolver(cover).count()
    assert ReferenceSolver(cover).count() == count
    return count


@pytest.mark.parametrize("what, size, pieces", BOXES, ids=[b[0] for b in BOXES])
def test_boxes_count_their_classes_by_folding(what, size, pieces):
    p = box_problem(size, pieces)
    classes, fixed = listed_classes(p)
    if isinstance(fixed_points(p), str):  # two I trominoes a half turn swaps: the canonical checks
        assert "several copies" in fixed_points(p) and burnside_order(p, SolverOptions(distinct=True)) == 0
        assert solver_for(p, SolverOptions(distinct=True)).solve().distinct == classes
        return
    solver = burnside(p)
    result = solver.solve()
    assert (result.count, solver.classes(result.distinct)) == (fixed[0], classes)


@pytest.mark.parametrize("name, total, distinct", [
    ("pentomino-8x8-centre", 520, 65),      # Scott (1958): 65
    ("pentomino-6x10", 9_356, 2_339),       # Haselgrove (1960): 2,339
    ("pentomino-5x12", 4_040, 1_010),
    ("pentomino-3x20", 8, 2),
    ("soma", 11_520, 240),                  # Conway and Guy: 240
    ("pentomino-one-sided-3x30", 184, 46),
    ("pentacubes-3x4x5", 31_520, 3_940),
])
def test_published_distinct_counts_by_folding(name, total, distinct):
    solver = burnside(load(name))
    result = solver.solve()
    assert (result.count, solver.classes(result.distinct)) == (total, distinct)


def test_domino_tilings_up_to_symmetry_by_folding_and_by_listing():
    """The 6x6 board's 6,728 tilings in classes of its 8 symmetries, both ways; the 8x8
    board's 12,988,816 tilings are 1,629,189 classes (each rotation and reflection's
    fixed tilings counted on the folded board)."""
    p = load("dominoes-6x6")
    classes, fixed = listed_classes(p)
    solver = burnside(p)
    result = solver.solve()
    assert (result.count, solver.classes(result.distinct)) == (6_728, classes)
    big = burnside(load("dominoes-8x8"))
    result = big.solve()
    assert (result.count, big.classes(result.distinct)) == (12_988_816, 1_629_189)


def test_folds_a_search_would_not_finish_are_counted_by_levels():
    """The domino boards' half turn folds them to half a board, whose tilings grow as the
    board's do: chosen by measuring, those folds go by levels (searched, the 16x16's took
    32 s; 20x20's would take hours).  Both ways agree on the 8x8 (1,629,189 classes,
    published) and the 10x10 (searched in a second or two)."""
    for name, total, classes in [("dominoes-8x8", 12_988_816, 1_629_189), ("dominoes-10x10", 258_584_046_368, None)]:
        p = load(name)
        chosen = fold_methods(p, SolverOptions(distinct=True, method=Method.AUTO))
        assert len(chosen) == sum(1 for f in fixed_points(p) if f.cover is not None)
        searched = burnside(p).solve()
        for folds in [*BY_LEVELS, None]:
            solver = solver_for(p, SolverOptions(distinct=True, burnside=8, method=Method.LEVELS,
                                                 fold_methods=chosen if folds is None else
                                                 tuple(folds for _ in chosen)))
            result = solver.solve()
            assert (result.count, result.distinct) == (searched.count, searched.distinct)
        assert searched.count == total and (classes is None or searched.distinct == 8 * classes)
    big = load("dominoes-16x16")
    chosen = fold_methods(big, SolverOptions(distinct=True, method=Method.AUTO))
    half_turn = next(k for k, f in enumerate(f for f in fixed_points(big) if f.cover is not None) if f.size == 1)
    assert chosen[half_turn].method is Method.LEVELS
    asked_search = fold_methods(big, SolverOptions(distinct=True, method=Method.SEARCH))
    assert all(m == FoldMethod() for m in asked_search)  # what is asked is done


def test_a_piece_of_two_copies_the_symmetry_swaps_cannot_be_folded():
    """Two dominoes on a 1x4 strip: the half turn swaps the two ends' placements, one
    orbit using the domino twice; the canonical checks count the classes instead."""
    text = 'kind = "polyform"\nboard = """\n----\n"""\n[[pieces]]\nname = "D"\nshape = "##"\ncount = 2\n'
    p = problem_from_text(text, format="toml")
    why = fixed_points(p)
    assert isinstance(why, str) and "several copies" in why
    assert burnside_order(p, SolverOptions(distinct=True)) == 0
    solver = solver_for(p, SolverOptions(distinct=True))
    assert isinstance(solver, DistinctSolver) and not isinstance(solver, BurnsideSolver)
    assert solver.solve().distinct == listed_classes(p)[0]


def test_colors_cannot_be_folded():
    from core.exact_cover import ExactCover

    ec = ExactCover.build(["a", "b"], ["x"], [["a", "x:1"], ["b", "x:1"]])
    with pytest.raises(Unfoldable, match="colors"):
        fold(ec, (1, 0, 2), (1, 0))


def test_conjugacy_classes_of_the_square():
    """The square's 8 symmetries on its 4 corners fall in 5 classes: the identity, the
    half turn, the quarter turns, the two axis reflections, the two diagonal ones."""
    r = (1, 2, 3, 0)  # corners 0..3 in turn
    elements = [(0, 1, 2, 3)]
    for _ in range(3):
        elements.append(tuple(r[x] for x in elements[-1]))
    s = (1, 0, 3, 2)
    elements += [tuple(s[x] for x in g) for g in elements[:4]]
    classes = conjugacy_classes(elements)
    assert sorted(len(c) for c in classes) == [1, 1, 2, 2, 2]
    assert classes[0] == [0]


def test_a_sum_that_is_no_multiple_of_the_order_is_an_error():
    assert classes_of(2_339 * 4, 4) == 2_339
    with pytest.raises(ValueError, match="not a multiple"):
        classes_of(9_357, 4)


def test_listing_is_refused_and_budgets_leave_frontiers_that_add_up():
    solver = burnside(load("pentomino-6x10"))
    with pytest.raises(ValueError, match="listing"):
        solver.solve((), SolveRequest(listing=True))
    total = scaled = 0
    todo = [()]
    while todo:
        r = solver.solve(todo.pop(), SolveRequest(node_budget=20_000))
        assert r.weight_done + sum((s.weight for s in r.frontier), Fraction(0)) == r.weight
        total += r.count
        scaled += r.distinct
        todo.extend(s.path for s in r.frontier)
    assert (total, solver.classes(scaled)) == (9_356, 2_339)
