"""Counting by orbits of a symmetry group (core/symmetry.py): the weighted count equals
the plain count on random boards and boxes with symmetry — holes placed symmetrically
and not, pieces with symmetric placements, one-sided sets, piece counts and unlimited
copies — and keeps the Solver contract (split and sum, budgets and their frontiers)."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.errors import ProblemError
from core.library import load
from core.polyform import problem_from_text
from core.search import SolveRequest
from core.symmetry import OrbitCounter, best_anchor

SHAPES = {"V": "##/#.", "I": "###", "D": "##", "O": "##/##", "T": "###/.#.", "S": ".##/##.", "L": "###/#..",
          "P": "##/##/#."}


def _board(rows: int, cols: int, holes: set) -> str:
    return "\n".join("".join("#" if (y, x) in holes else "-" for x in range(cols)) for y in range(rows))


def _images(rows: int, cols: int, cell: tuple[int, int], square: bool) -> set:
    """A cell's images under the rectangle's symmetries (the square's, when square)."""
    y, x = cell
    out = {(y, x), (rows - 1 - y, x), (y, cols - 1 - x), (rows - 1 - y, cols - 1 - x)}
    if square:
        out |= {(b, a) for a, b in list(out)}
    return out


@st.composite
def symmetric_problems(draw):
    """A board (rows x cols, a square sometimes), holes made symmetric or not, and pieces
    that fill it exactly: each once, twice, or dominoes in any number to make up the area."""
    square = draw(st.booleans())
    rows = draw(st.integers(2, 5))
    cols = rows if square else draw(st.integers(2, 6))
    cells = [(y, x) for y in range(rows) for x in range(cols)]
    holes = set(draw(st.lists(st.sampled_from(cells), max_size=2)))
    if draw(st.booleans()):  # symmetric holes: the pieces keep the whole group
        holes = set().union(*(_images(rows, cols, c, square) for c in holes)) if holes else set()
    free = rows * cols - len(holes)
    assume(free >= 2)
    pieces = draw_pieces(draw, SHAPES, free)
    return None if pieces is None else (rows, cols, holes, pieces)


def draw_pieces(draw, shapes: dict[str, str], free: int) -> dict | None:
    """Up to three of ``shapes``, each once or twice, mirrored or not, and dominoes ("D")
    in any number or a fixed number making up ``free`` cells: name -> (count, mirror);
    None where an odd gap is left."""
    names = draw(st.lists(st.sampled_from(sorted(shapes)), min_size=1, max_size=3, unique=True))
    pieces, area = {}, 0
    for name in names:
        size = shapes[name].count("#")
        count = draw(st.integers(1, 2))
        if area + size * count <= free:
            pieces[name] = (str(count), draw(st.booleans()))
            area += size * count
    gap = free - area
    if gap % 2:
        return None
    if gap:
        pieces["D"] = ("\"any\"" if draw(st.booleans()) or "D" in pieces else str(gap // 2), True)
    return pieces


def _text(rows, cols, holes, pieces) -> str:
    out = f'kind = "polyform"\nboard = """\n{_board(rows, cols, holes)}\n"""\n'
    for name, (count, mirror) in pieces.items():
        shape = SHAPES[name].replace("/", "\n")
        out += f'\n[[pieces]]\nname = "{name}"\nshape = """\n{shape}\n"""\ncount = {count}\nmirror = {str(mirror).lower()}\n'
    return out


def problem_of(drawn):
    """The drawn problem, or None where no combination of the pieces fills the board."""
    assume(drawn is not None)
    try:
        return problem_from_text(_text(*drawn), format="toml")
    except ProblemError:
        return None


DRAWN = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                        HealthCheck.filter_too_much])


@DRAWN
@given(symmetric_problems())
def test_the_count_by_orbits_is_the_count(drawn):
    p = problem_of(drawn)
    if p is None:
        return
    plain = p.solver().count()
    by_orbits = p.solver(symmetry=True)
    assert by_orbits.count() == plain
    assert p.solver(symmetry=True, engine="reference").count() == plain
    if isinstance(by_orbits, OrbitCounter):
        # the laws of the contract: split and sum, a budget resumed from its frontier
        for depth in (1, 2, 3):
            frontier = by_orbits.split(depth)
            assert sum((s.weight for s in frontier), Fraction(0)) == 1
            assert sum(by_orbits.count(s.path) for s in frontier) == plain
        total, todo = 0, [()]
        while todo:
            r = by_orbits.solve(todo.pop(), SolveRequest(node_budget=3))
            total += r.count
            assert r.weight_done + sum((s.weight for s in r.frontier), Fraction(0)) == r.weight
            todo.extend(s.path for s in r.frontier)
        assert total == plain


BOXES = [
    ("2x2x3 of I and V trominoes", "2x2x3", [("I3", "###", "2"), ("V", "##/#.", "2")]),
    ("2x3x3 of tetracubes", "2x3x3", [("L4", "###/#..", "any"), ("T4", "###/.#.", "any"), ("D", "##", "any")]),
]


def box_problem(size: str, pieces):
    """A box of ``size`` ("2x2x3") to fill with ``pieces`` (name, shape by layers, count)."""
    dims = [int(d) for d in size.split("x")]
    text = f'kind = "polyform"\nsize = {dims}\n'
    for name, shape, count in pieces:
        shape = shape.replace("/", "\n")
        count = f'"{count}"' if count == "any" else count
        text += f'\n[[pieces]]\nname = "{name}"\nshape = """\n{shape}\n"""\ncount = {count}\n'
    return problem_from_text(text, format="toml")


@pytest.mark.parametrize("what,size,pieces", BOXES, ids=[b[0] for b in BOXES])
def test_boxes_count_the_same_by_orbits(what, size, pieces):
    p = box_problem(size, pieces)
    assert p.solver(symmetry=True).count() == p.solver().count() > 0


@pytest.mark.parametrize("name", ["pentomino-6x10", "pentomino-5x12", "pentomino-4x15", "pentomino-3x20",
                                  "pentomino-8x8-centre", "soma", "pentomino-seed-5x5", "bitmask-seed-5x5",
                                  "tilepuzzle-seed-hexominoes", "tilepuzzle-seed-octominoes", "dominoes-8x8"])
def test_library_counts_by_orbits(name):
    from core.library import library

    known = {e.name: e.known for e in library()}[name]
    solver = load(name).solver(symmetry=True)
    assert isinstance(solver, OrbitCounter)
    assert solver.count() == known["solutions"]


@pytest.mark.slow
def test_pentacube_box_by_orbits():
    assert load("pentacubes-3x4x5").solver(symmetry=True).count() == 31_520


def test_the_anchor_and_what_show_says():
    p = load("pentomino-6x10")
    solver = p.solver(symmetry=True)
    assert solver.anchor.item == p.exact_cover().items.index("X")  # the X pentomino: fewest orbits
    assert sum(r.orbit for r in solver.anchor.representatives) == solver.anchor.covering
    assert solver.description.startswith("X: 7 of its 28 options, one per orbit of 4 of the 4 symmetries")


def test_no_group_no_orbits_and_listing_is_refused():
    # a board without symmetry (two holes in one corner): nothing to use
    text = 'kind = "polyform"\nboard = """\n##--\n----\n"""\n[[pieces]]\nname = "D"\nshape = "##"\ncount = "any"\n'
    p = problem_from_text(text, format="toml")
    assert not isinstance(p.solver(symmetry=True), OrbitCounter)
    assert best_anchor(p.symmetry(), range(p.symmetry().order)) is None
    with pytest.raises(ValueError, match="lists no solutions"):
        load("soma").solver(symmetry=True).solve((), SolveRequest(listing=True))


def test_sudoku_has_no_group_and_symmetry_is_simply_not_used():
    assert load("sudoku-4x4").solver(symmetry=True).count() == 288


def test_one_sided_pentominoes_3x30():
    """46 distinct (published), 184 in all: no solution is its own mirror image."""
    p = load("pentomino-one-sided-3x30")
    assert p.solver(symmetry=True).count() == 184
    r = p.solver(distinct=True).solve()
    assert (r.count, r.distinct) == (184, 46)


@pytest.mark.slow
def test_one_sided_pentominoes_5x18():
    """686,628 distinct (published): 2,746,512 in all, by levels below each orbit."""
    from core.engines import Method, SolverOptions, solver_for

    p = load("pentomino-one-sided-5x18")
    assert solver_for(p, SolverOptions(method=Method.LEVELS, symmetry=True)).count() == 4 * 686_628


@pytest.mark.parametrize("method", ["search", "bitboard", "levels"])
def test_every_method_by_orbits_counts_the_same(method):
    from core.engines import Method, SolverOptions, solver_for

    p = load("pentomino-5x12")
    solver = solver_for(p, SolverOptions(method=Method(method), symmetry=True))
    assert isinstance(solver, OrbitCounter) and solver.count() == 4040


def _anchor_by_walking(group, elements, given):
    """The anchor as core.symmetry found it before bitmasks: every option's items walked
    (the reference the bitmask version must agree with)."""
    from core.symmetry import Anchor, _representatives

    ec = group.ec
    sets = ec.item_sets
    used: dict[int, int] = {}
    for k in given:
        for i in sets[k]:
            used[i] = used.get(i, 0) + 1
    full = frozenset(i for i, n in used.items() if n >= (ec.bound(i)[1] if i < ec.n_primary else 1))
    live = [k for k, items in enumerate(sets) if k not in set(given) and full.isdisjoint(items)]
    covering: list[list[int]] = [[] for _ in range(ec.n_primary)]
    for k in live:
        for i in sets[k]:
            if i < ec.n_primary:
                covering[i].append(k)
    covered = {i for k in given for i in sets[k]}
    best = None
    for i in range(ec.n_primary):
        if ec.bound(i) != (1, 1) or i in covered or not covering[i]:
            continue
        subgroup = tuple(g for g in elements if group.items[g][i] == i)
        if len(subgroup) > 1:
            reps = _representatives(group, subgroup, covering[i])
            key = (len(reps), -len(subgroup), i)
            if best is None or key < best[0]:
                best = (key, Anchor(i, subgroup, reps, len(covering[i])))
    return None if best is None else best[1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["pentacubes-3x4x5", "pentomino-6x10", "pentomino-8x8-centre", "soma"]), st.data())
def test_the_anchor_by_bitmasks_is_the_anchor_by_walking_the_options(name, data):
    """find_anchor (live options and anchor sizes as bitmasks of options) picks the same
    anchor, subgroup, representatives and size as walking every option's items, below
    random partial covers reached by the search and under random subgroups' stabilisers."""
    from core.symmetry import find_anchor, live_options

    problem = load(name)
    group, ec = problem.symmetry(), problem.exact_cover()
    given: list[int] = []
    for _ in range(data.draw(st.integers(0, 3))):
        live = list(live_options(ec, given))
        if not live:
            break
        given.append(data.draw(st.sampled_from(live)))
    elements = [g for g in range(group.order) if all(group.image(g, k) == k for k in given)]
    assert find_anchor(group, elements, given) == _anchor_by_walking(group, elements, given)
    sets = ec.item_sets
    walked = [k for k, items in enumerate(sets) if k not in given and all(
        sum(i in sets[j] for j in given) < (ec.bound(i)[1] if i < ec.n_primary else 1) for i in items)]
    assert list(live_options(ec, given)) == walked


def test_the_root_anchor_makes_no_option_masks():
    """At the root every option is live: the anchor reads each item's covering list and
    makes no n_options-bit mask per item (0.4 GB for the 200x200 domino board); it is the
    anchor walking the options finds."""
    from core.symmetry import find_anchor

    problem = load("pentacubes-3x4x5")
    group, ec = problem.symmetry(), problem.exact_cover()
    elements = list(range(group.order))
    assert find_anchor(group, elements) == _anchor_by_walking(group, elements, [])
    assert "options by item" not in ec.derived
