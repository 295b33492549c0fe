"""The polyform model: shapes, sets, parsing, compiling, counting (total and distinct),
enumeration checked by an independent checker, pack mode against brute force, errors."""
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
import polyform_check as pc  # noqa: E402

from core.errors import ProblemError  # noqa: E402
from core.polyform import Shape, named_set, problem_from_text, solutions  # noqa: E402
from core.polyform.problem import PolyformProblem  # noqa: E402
from core.library import from_spec, named_spec  # noqa: E402
from core.search import SolveRequest

pytest.importorskip("core.kernel")

#: the 12 pentominoes, written out here again (not taken from core.polyform.sets)
PENTOMINOES = {
    "F": ".##/##./.#.", "I": "#####", "L": "####/#...", "N": "##../.###", "P": "##/##/#.",
    "T": "###/.#./.#.", "U": "#.#/###", "V": "#../#../###", "W": "#../##./.##",
    "X": ".#./###/.#.", "Y": "####/.#..", "Z": "##./.#./.##",
}


def pent(name):
    return pc.cells_of_text(PENTOMINOES[name].replace("/", "\n"))


def load(name: str) -> PolyformProblem:
    spec = named_spec(name)
    assert spec is not None, name
    return from_spec(spec)


def free_of(problem) -> set:
    """Free cells of a problem's board, read from the spec text independently."""
    b = problem.board
    return {(z, y, x) for z in range(b.layers) for y in range(b.rows) for x in range(b.cols)} - {
        c for c in _blocked(problem)
    }


def _blocked(problem):
    b = problem.board
    return {(z, y, x) for z in range(b.layers) for y in range(b.rows) for x in range(b.cols)
            if (z, y, x) not in b.free}


def piece_table(problem) -> dict:
    return {p.name: (set(p.shape.form), p.mirror, (p.lo, p.hi)) for p in problem.pieces}


def check_all(problem, sols):
    ec = problem.exact_cover()
    free = free_of(problem)
    table = piece_table(problem)
    for s in sols:
        pc.check(ec, s, free, table, problem.goal, problem.board.space)
        assert problem.is_solution(s)


# ====================================================================== shapes and sets
def test_named_sets_sizes():
    sizes = {
        "dominoes": 1, "trominoes": 2, "tetrominoes": 5, "pentominoes": 12, "hexominoes": 35,
        "one-sided-tetrominoes": 7, "one-sided-pentominoes": 18, "one-sided-hexominoes": 60,
        "soma": 7, "tetracubes": 8, "pentacubes": 29, "planar-pentacubes": 12,
    }
    for name, n in sizes.items():
        assert len(named_set(name)) == n, name
    assert named_set("no-such-set") is None


def test_pentomino_set_matches_letters():
    got = {p.name: p.shape for p in named_set("pentominoes")}
    for name in PENTOMINOES:
        assert pc.norm(got[name].form) in pc.variants(pent(name)), name


@pytest.mark.parametrize("name,n", [("F", 8), ("I", 2), ("L", 8), ("N", 8), ("P", 8), ("T", 4),
                                    ("U", 4), ("V", 4), ("W", 4), ("X", 1), ("Y", 8), ("Z", 4)])
def test_pentomino_orientations(name, n):
    s = Shape.from_cells(pent(name))
    assert len(s.orientations()) == n
    assert len(s.orientations(mirror=False)) in (n, n // 2)
    assert s.orientations(rotate=False) == (s.form,)


def test_cube_orientations():
    soma = {p.name: p.shape for p in named_set("soma")}
    assert len(soma["A"].orientations(mirror=False, space=3)) == 12  # a screw has a 2-fold axis
    assert len(soma["A"].orientations(mirror=True, space=3)) == 24
    assert len(soma["L"].orientations(mirror=False, space=3)) == 24
    assert len(soma["V"].orientations(mirror=False, space=3)) == 12
    # A and B are each other's mirror image
    assert set(soma["A"].orientations(mirror=True, space=3)) == set(soma["B"].orientations(mirror=True, space=3))
    assert not set(soma["A"].orientations(mirror=False, space=3)) & set(soma["B"].orientations(mirror=False, space=3))


def test_hexomino_and_pentacube_sets_are_distinct():
    hexes = named_set("hexominoes")
    canon = {h.shape.canonical() for h in hexes}
    assert len(canon) == 35 and all(h.shape.size == 6 and h.shape.connected() for h in hexes)
    cubes = named_set("pentacubes")
    canon3 = {min(c.shape.orientations(mirror=False, space=3)) for c in cubes}
    assert len(canon3) == 29


small_shapes = st.sets(
    st.tuples(st.just(0), st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=7
).filter(lambda s: Shape.from_cells(s).connected())


@settings(max_examples=60, deadline=None)
@given(small_shapes, st.integers(0, 7), st.booleans())
def test_orientation_count_invariant_under_turning_the_input(cells, t, mirror):
    s = Shape.from_cells(cells)
    from core.polyform.shapes import TRANSFORMS_2D, transform_form

    turned = Shape(transform_form(TRANSFORMS_2D[t], s.form), 2)
    if mirror:
        assert set(turned.orientations()) == set(s.orientations())
    else:
        assert len(turned.orientations(mirror=False)) == len(s.orientations(mirror=False))
    assert set(s.orientations()) == pc.variants(cells)
    assert len(Shape(s.form, 2).orientations(space=3)) == len(pc.variants(cells, space=3))


# ====================================================================== counts
KNOWN = [
    ("pentomino-seed-5x5", 8, 1),
    ("bitmask-seed-5x5", 8, 1),
    ("tilepuzzle-seed-hexominoes", 4, 1),
    ("tilepuzzle-seed-octominoes", 4, 1),
    ("pentomino-3x20", 8, 2),
    ("pentomino-4x15", 1472, 368),
    ("pentomino-5x12", 4040, 1010),
    ("pentomino-6x10", 9356, 2339),
    ("pentomino-8x8-centre", 520, 65),
    ("soma", 11520, 240),
]


@pytest.mark.parametrize("name,total,distinct", KNOWN, ids=[k[0] for k in KNOWN])
def test_distinct_counts(name, total, distinct):
    p = load(name)
    r = p.solver(distinct=True).solve()
    assert (r.count, r.distinct) == (total, distinct)
    assert r.complete


@pytest.mark.parametrize("name,total", [(k[0], k[1]) for k in KNOWN if k[1] < 5000]
                         + [("pentomino-6x10", 9356), ("dominoes-6x6", 6728), ("dominoes-4x7", 781)])
def test_total_counts(name, total):
    assert load(name).solver().count() == total


def test_library_known_counts_agree():
    from core.library import library

    entries = {e.name: e for e in library()}
    for name, total, distinct in KNOWN:
        assert entries[name].known["solutions"] == total
        if distinct is not None:
            assert entries[name].known.get("distinct", distinct) == distinct


@pytest.mark.slow
def test_pentacubes_3x4x5():
    r = load("pentacubes-3x4x5").solver(distinct=True).solve()
    assert (r.count, r.distinct) == (31520, 3940)


@pytest.mark.slow
def test_dominoes_8x8():
    assert load("dominoes-8x8").solver().count() == 12988816


@pytest.mark.parametrize("name", ["pentomino-seed-5x5", "tilepuzzle-seed-octominoes", "dominoes-3x4"])
def test_reference_agrees_with_kernel(name):
    p = load(name)
    assert p.solver(engine="reference").count() == p.solver().count()
    rk = p.solver(distinct=True).solve()
    rr = p.solver(distinct=True, engine="reference").solve()
    assert (rk.count, rk.distinct) == (rr.count, rr.distinct)


# ====================================================================== enumeration
def _canon(solution_set, free):
    """Smallest image of a solution {(name, cells)} under the board's own symmetries,
    computed here with this file's geometry (names are kept: the sets are closed)."""
    from itertools import permutations, product

    lo = [min(c[a] for c in free) for a in range(3)]
    best = None
    for perm in permutations(range(3)):
        for signs in product((1, -1), repeat=3):
            def f(c):
                return tuple(signs[i] * c[perm[i]] for i in range(3))
            img = [f(c) for c in free]
            off = [lo[a] - min(c[a] for c in img) for a in range(3)]

            def g(c):
                d = f(c)
                return (d[0] + off[0], d[1] + off[1], d[2] + off[2])
            if {g(c) for c in free} != free:
                continue
            key = tuple(sorted(tuple(sorted(g(c) for c in cells)) for _, cells in solution_set))
            best = key if best is None or key < best else best
    return best


def test_enumerate_8x8_centre_every_and_distinct():
    p = load("pentomino-8x8-centre")
    every = list(p.solver().solutions())
    assert len(every) == 520 and len(set(map(frozenset, every))) == 520
    check_all(p, every)
    reps = p.solver(distinct=True).first(1000)
    assert len(reps) == 65
    check_all(p, reps)
    ec = p.exact_cover()
    free = free_of(p)
    canon_reps = {_canon([pc.decode(ec, o) for o in s], free) for s in reps}
    assert len(canon_reps) == 65
    canon_all = {_canon([pc.decode(ec, o) for o in s], free) for s in every}
    assert canon_all == canon_reps


def test_lazy_api_and_pictures():
    p = load("pentomino-seed-5x5")
    sols = list(solutions(p))
    assert len(sols) == 8
    text = str(sols[0])
    assert len(text.splitlines()) == 5 and set(text.replace("\n", "")) == set("LNUWY")
    svg = sols[0].svg()
    assert svg.startswith("<svg") and svg.count("<rect") == 25
    p3 = load("soma")
    s3 = p3.solver().first(1)[0]
    t3 = p3.render_text(s3).splitlines()
    assert len(t3) == 3 and all(len(row) == 3 * 3 + 2 * 2 for row in t3)
    assert p3.render_svg(s3).count("<rect") == 27


def test_dominoes_render_neighbours_differ():
    p = load("dominoes-4x4")
    s = p.solver().first(1)[0]
    text = p.render_text(s).splitlines()
    cells = {}
    for o in s:
        _, cs = p.placements[o]
        for z, y, x in cs:
            cells[(y, x)] = o
    for (y, x), o in cells.items():
        for dy, dx in ((0, 1), (1, 0)):
            q = (y + dy, x + dx)
            if q in cells and cells[q] != o:
                assert text[y][x] != text[q[0]][q[1]]


# ====================================================================== distinct solver contract
def test_distinct_split_and_budget_add_up():
    p = load("pentomino-8x8-centre")
    s = p.solver(distinct=True)
    frontier = s.split(3)
    assert sum(f.weight for f in frontier) == 1
    total = distinct = 0
    for f in frontier:
        r = s.solve(f.path)
        assert r.complete and r.weight == f.weight
        total += r.count
        distinct += r.distinct
    assert (total, distinct) == (520, 65)
    # without the memo (whose hits depend on what one call has seen) the leaves add up too
    plain = p.solver(distinct=True, memo=False)
    assert sum(plain.solve(f.path).stats.leaves for f in plain.split(3)) == plain.solve().stats.leaves > 0
    # budgets: keep solving the frontier until nothing is left
    todo = [f.path for f in s.solve((), SolveRequest(node_budget=500)).frontier]
    r0 = s.solve((), SolveRequest(node_budget=500))
    total, distinct = r0.count, r0.distinct
    todo = [f.path for f in r0.frontier]
    done = r0.weight_done
    while todo:
        r = s.solve(todo.pop(), SolveRequest(node_budget=2000))
        total += r.count
        distinct += r.distinct
        done += r.weight_done
        todo.extend(f.path for f in r.frontier)
    assert (total, distinct) == (520, 65) and done == 1


def test_distinct_fallback_without_a_single_piece():
    # no piece with count 1: enumerate and keep the smallest of each orbit (exact)
    p = load("dominoes-4x4")
    r = p.solver(distinct=True).solve()
    every = list(p.solver().solutions())
    free = free_of(p)
    ec = p.exact_cover()
    classes = {_canon([pc.decode(ec, o) for o in s], free) for s in every}
    assert (r.count, r.distinct) == (36, len(classes))


SMALL_SET = {"V": "##/#.", "I": "###", "D": "##", "O": "##/##", "T": "###/.#.", "S": ".##/##.", "L": "###/#.."}


def _toml(rows, cols, blocked, pieces, goal="fill"):
    board = "\n".join("".join("#" if (y, x) in blocked else "-" for x in range(cols)) for y in range(rows))
    out = f'kind = "polyform"\ngoal = "{goal}"\nboard = """\n{board}\n"""\n'
    for name, (count, mirror) in pieces.items():
        shape = SMALL_SET[name].replace("/", "\n")
        out += f'\n[[pieces]]\nname = "{name}"\nshape = """\n{shape}\n"""\ncount = {count}\nmirror = {str(mirror).lower()}\n'
    return out


@st.composite
def small_problems(draw, goal="fill"):
    rows = draw(st.integers(2, 4))
    cols = draw(st.integers(2, 5))
    cells = [(y, x) for y in range(rows) for x in range(cols)]
    blocked = set(draw(st.lists(st.sampled_from(cells), max_size=3)))
    free = len(cells) - len(blocked)
    names = draw(st.lists(st.sampled_from(sorted(SMALL_SET)), min_size=1, max_size=4, unique=True))
    pieces = {}
    area = 0
    for n in names:
        size = SMALL_SET[n].count("#")
        count = draw(st.integers(1, 2))
        if area + size * count > free:
            continue
        pieces[n] = (count, draw(st.booleans()))
        area += size * count
    assume(pieces or goal == "fill")
    if goal == "fill":
        # top up with dominoes / fill the gap so areas match, else skip
        gap = free - area
        if gap % 2 or gap < 0:
            blocked_extra = [c for c in cells if c not in blocked][: gap % 2]
            blocked |= set(blocked_extra)
            gap -= len(blocked_extra)
        if gap:
            c, m = pieces.get("D", (0, True))
            pieces["D"] = (c + gap // 2, m)
    return rows, cols, blocked, pieces


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems(goal="pack"))
def test_pack_mode_matches_brute_force(prob):
    rows, cols, blocked, pieces = prob
    text = _toml(rows, cols, blocked, pieces, goal="pack")
    p = problem_from_text(text, format="toml")
    sols = list(p.solver().solutions())
    check_all(p, sols)
    free = {(0, y, x) for y in range(rows) for x in range(cols) if (y, x) not in blocked}
    table = {n: (pc.cells_of_text(SMALL_SET[n].replace("/", "\n")), m, (c, c)) for n, (c, m) in pieces.items()}
    brute = pc.brute_force_solutions(free, table, "pack")
    ec = p.exact_cover()
    got = {frozenset(pc.decode(ec, o) for o in s) for s in sols}
    assert got == brute
    r = p.solver(distinct=True).solve()
    assert r.count == len(brute)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems(goal="fill"))
def test_fill_mode_and_distinct_laws(prob):
    rows, cols, blocked, pieces = prob
    text = _toml(rows, cols, blocked, pieces, goal="fill")
    try:
        p = problem_from_text(text, format="toml")
    except ProblemError:
        return  # e.g. no combination of areas
    sols = list(p.solver().solutions())
    check_all(p, sols)
    free = {(0, y, x) for y in range(rows) for x in range(cols) if (y, x) not in blocked}
    table = {n: (pc.cells_of_text(SMALL_SET[n].replace("/", "\n")), m, (c, c)) for n, (c, m) in pieces.items()}
    brute = pc.brute_force_solutions(free, table, "fill")
    assert len(sols) == len(brute)
    r = p.solver(distinct=True).solve()
    g = len(p.group)
    assert r.count == len(brute)
    assert r.distinct * g >= r.count >= r.distinct
    # distinct = number of orbits of the brute-force solutions under G, counted by hand
    orbits = set()
    for s in sols:
        placed = [(p.placements[o][0], p.placements[o][1]) for o in s]
        images = []
        for sym in p.group:
            images.append(tuple(sorted((sym.kinds[k], tuple(sorted(sym.cell(c) for c in cells))) for k, cells in placed)))
        orbits.add(min(images))
    assert r.distinct == len(orbits)


def test_identical_copies_do_not_multiply():
    text = _toml(2, 4, set(), {"O": (2, True)})
    assert problem_from_text(text, format="toml").solver().count() == 1
    # the same shape listed twice is one kind with two copies
    twice = 'kind = "polyform"\nsize = [2, 4]\n' + '[[pieces]]\nname = "A"\nshape = "##\\n##"\n' + \
        '[[pieces]]\nname = "B"\nshape = "##\\n##"\n'
    p = problem_from_text(twice, format="toml")
    assert len(p.pieces) == 1 and p.solver().count() == 1


def test_counts_any_and_ranges():
    text = 'kind = "polyform"\nsize = [2, 3]\n[[pieces]]\nset = "dominoes"\ncount = "any"\n'
    assert problem_from_text(text).solver().count() == 3
    text = ('kind = "polyform"\nsize = [2, 3]\n[[pieces]]\nset = "dominoes"\ncount = [0, 3]\n'
            '[[pieces]]\nname = "V"\nshape = "##\\n#-"\ncount = [0, 2]\n')
    p = problem_from_text(text)
    sols = list(p.solver().solutions())
    check_all(p, sols)
    # 3 domino tilings + 2 V-tromino tilings... counted by brute force over counts
    total = 0
    for d, v in ((3, 0), (0, 2)):
        table = {}
        if d:
            table["D"] = ({(0, 0, 0), (0, 0, 1)}, True, (d, d))
        if v:
            table["V"] = ({(0, 0, 0), (0, 0, 1), (0, 1, 0)}, True, (v, v))
        total += len(pc.brute_force_solutions({(0, y, x) for y in range(2) for x in range(3)}, table, "fill"))
    assert len(sols) == total


def test_3d_board_and_flat_piece():
    text = 'kind = "polyform"\nsize = [2, 2, 2]\n[[pieces]]\nname = "O"\nshape = "##\\n##"\ncount = 2\n'
    p = problem_from_text(text)
    assert p.solver().count() == 3
    board = 'kind = "polyform"\nboard = """\n--\n--\n\n--\n#-\n"""\n[[pieces]]\nset = "soma"\nonly = ["V", "L"]\n'
    p = problem_from_text(board)
    assert p.board.space == 3 and len(p.board.free) == 7
    sols = list(p.solver().solutions())
    check_all(p, sols)


def test_one_sided_group():
    # a lone one-sided L: no reflections in G
    text = 'kind = "polyform"\nsize = [4, 4]\n[[pieces]]\nset = "tetrominoes"\nonly = ["L4"]\nmirror = false\ncount = 4\n'
    assert len(problem_from_text(text).group) == 4
    # both mirror images: closed under reflections
    text = 'kind = "polyform"\nsize = [4, 4]\n[[pieces]]\nset = "one-sided-tetrominoes"\nonly = ["L4", "L4\'"]\ncount = 2\n'
    assert len(problem_from_text(text).group) == 8


# ====================================================================== text format and errors
def test_tile_puzzle_text_format():
    text = "# a comment\n# another\n\n----\n-##-\n----\n\n###\n#-#\n\n###\n#-#\n\n##\n"
    with pytest.raises(ProblemError):
        problem_from_text(text, format="text")  # 5 + 5 + 2 = 12 != 10
    text = "# a U, a V and an I\n----\n-#--\n----\n\n###\n#-#\n\n#-\n##\n\n#\n#\n#\n"
    p = problem_from_text(text, format="text")
    assert len(p.board.free) == 11
    check_all(p, list(p.solver().solutions()))


def _err(text, fmt="toml"):
    with pytest.raises(ProblemError) as e:
        problem_from_text(text, source_name="x.toml", format=fmt)
    return e.value


def test_errors_name_piece_and_line():
    e = _err('kind = "polyform"\nsize = [2, 5]\n\n[[pieces]]\nname = "Q"\nshape = """\n#-\n-#\n"""\n')
    assert "'Q'" in str(e) and "not connected" in str(e) and e.line in (4, 7) and e.source == "x.toml"
    e = _err('kind = "polyform"\nsize = [2, 2]\n[[pieces]]\nset = "pentominoes"\n')
    assert "60" in str(e) and "4" in str(e)
    e = _err('kind = "polyform"\nsize = [2, 2]\ngoal = = "fill"\n')
    assert "TOML" in str(e) and e.line == 3
    e = _err('kind = "polyform"\nsize = [2, 2\n')
    assert "TOML" in str(e) and e.line == 2
    e = _err('kind = "polyform"\nboard = """\n--\n-x\n"""\n[[pieces]]\nset = "dominoes"\n')
    assert e.line == 4 and "'x'" in str(e)
    e = _err('kind = "polyform"\nsize = [2, 2]\ncolour = 1\n[[pieces]]\nset = "dominoes"\n')
    assert e.line == 3 and "colour" in str(e)
    e = _err('kind = "polyform"\nsize = [2, 2]\n[[pieces]]\nset = "dominoes"\ncount = "lots"\n')
    assert e.line == 3 and "count" in str(e)
    e = _err('kind = "polyform"\nsize = [2, 2]\n[[pieces]]\nset = "nonominoes"\n')
    assert "unknown set" in str(e)
    e = _err('kind = "polyform"\ngoal = "pack"\nsize = [1, 2]\n[[pieces]]\nname = "I"\nshape = "###"\ncount = [1, 2]\n')
    assert "cells" in str(e)  # pack: even the fewest pieces do not fit
    e = _err('kind = "polyform"\nsize = [3, 3]\n[[pieces]]\nset = "dominoes"\ncount = 2\n')
    assert "9" in str(e)  # fill: less area than cells
    e = _err("----\n----\n\n##\n\n#-\n-#\n", fmt="text")
    assert "not connected" in str(e) and e.line == 6
    e = _err("--\n--\n\n#a\n", fmt="text")
    assert e.line == 4


def test_more_than_30_pieces_and_64_cells():
    text = 'kind = "polyform"\nsize = [10, 10]\n[[pieces]]\nset = "dominoes"\ncount = 50\n'
    p = problem_from_text(text)
    s = p.solver().first(1)[0]
    assert len(s) == 50
    check_all(p, [s])
    assert len(set(p.render_text(s).replace("\n", ""))) >= 2


def test_spec_round_trip():
    p = load("pentomino-8x8-centre")
    q = from_spec(p.spec)
    assert q.exact_cover() == p.exact_cover()
    assert named_spec("dominoes-3x7")["text"] and named_spec("dominoes-3by7") is None
    with pytest.raises(ProblemError, match="dominoes-0x7: R and C at least 1"):  # a limit, stated
        named_spec("dominoes-0x7")


def _brute_packings(free: set, table: dict) -> set[frozenset]:
    """Every set of non-overlapping placements whose count per piece lies in its range
    (``hi`` None: unlimited), by include/exclude over all placements — no compiler used."""
    placements = []
    for name, (shape, mirror, _) in sorted(table.items()):
        seen = set()
        for v in pc.variants(shape, mirror=mirror):
            for b in free:
                d = (b[0] - v[0][0], b[1] - v[0][1], b[2] - v[0][2])
                cells = frozenset((c[0] + d[0], c[1] + d[1], c[2] + d[2]) for c in v)
                if cells <= free and cells not in seen:
                    seen.add(cells)
                    placements.append((name, cells))
    found: set[frozenset] = set()
    counts = {name: 0 for name in table}

    def rec(k, used, chosen):
        if k == len(placements):
            if all(table[n][2][0] <= counts[n] for n in table):
                found.add(frozenset(chosen))
            return
        rec(k + 1, used, chosen)
        name, cells = placements[k]
        hi = table[name][2][1]
        if not cells & used and (hi is None or counts[name] < hi):
            counts[name] += 1
            rec(k + 1, used | cells, chosen + [(name, cells)])
            counts[name] -= 1

    rec(0, frozenset(), [])
    return found


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 3),
    st.integers(2, 4),
    st.lists(st.sampled_from(["V", "I", "D"]), min_size=1, max_size=2, unique=True),
    st.data(),
)
def test_pack_mode_with_ranges_and_any_matches_brute_force(rows, cols, names, data):
    pieces, table = {}, {}
    for n in names:
        kind = data.draw(st.sampled_from(["range", "any", "fixed"]))
        lo = data.draw(st.integers(0, 1))
        hi = max(lo, 1) + data.draw(st.integers(0, 1))
        count = {"range": f"[{lo}, {hi}]", "any": '"any"', "fixed": str(max(lo, 1))}[kind]
        bounds = {"range": (lo, hi), "any": (0, None), "fixed": (max(lo, 1), max(lo, 1))}[kind]
        pieces[n] = (count, True)
        table[n] = (pc.cells_of_text(SMALL_SET[n].replace("/", "\n")), True, bounds)
    text = _toml(rows, cols, set(), pieces, goal="pack")
    free = {(0, y, x) for y in range(rows) for x in range(cols)}
    try:
        p = problem_from_text(text, format="toml")
        sols = list(p.solver().solutions())
    except ProblemError:
        # only when even the fewest pieces cannot fit
        assert not _brute_packings(free, table)
        return
    ec = p.exact_cover()
    got = [frozenset(pc.decode(ec, o) for o in s) for s in sols]
    assert len(set(got)) == len(got), "a packing was found twice"
    assert set(got) == _brute_packings(free, table)
    assert p.solver(engine="reference").count() == len(got)
