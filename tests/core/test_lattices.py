"""The triangle and hexagon lattices: generated sets against the published sequences,
board shapes and their groups, counts and distinct counts against an independent brute
force (tests/core/lattice_reference.py) and MacMahon's formula, every method alike, the
TOML and its errors."""
from __future__ import annotations

import os
import sys
from fractions import Fraction

import pytest

sys.path.insert(0, os.path.dirname(__file__))
import lattice_reference as ref  # noqa: E402

from core.errors import ProblemError  # noqa: E402
from core.polyform import named_set, problem_from_text, solutions  # noqa: E402
from core.polyform.lattice import HEXAGON, TRIANGLE  # noqa: E402
from core.polyform.lattice_boards import drawn_board, shaped_board  # noqa: E402
from core.search import COUNT  # noqa: E402
from core.solver_options import Method, SolverOptions  # noqa: E402

pytest.importorskip("core.kernel")

# OEIS, n = 1, 2, ...: free (A000577, A000228), one-sided (A006534, A006535) and fixed
# (A001420, A001207) polyiamonds and polyhexes
POLYIAMONDS = {"free": [1, 1, 1, 3, 4, 12, 24, 66], "one-sided": [1, 1, 1, 4, 6, 19, 43, 120],
               "fixed": [2, 3, 6, 14, 36, 94, 250, 675]}
POLYHEXES = {"free": [1, 1, 3, 7, 22, 82], "one-sided": [1, 1, 3, 10, 33, 147], "fixed": [1, 3, 11, 44, 186, 814]}


@pytest.mark.parametrize("grid, known", [(TRIANGLE, POLYIAMONDS), (HEXAGON, POLYHEXES)], ids=["iamonds", "hexes"])
def test_generated_polyforms_number_as_published(grid, known):
    for n, (free, one_sided, fixed) in enumerate(zip(known["free"], known["one-sided"], known["fixed"]), 1):
        forms = grid.free_forms(n)
        assert len(forms) == free, n
        assert len(grid.free_forms(n, mirror=False)) == one_sided, n
        assert sum(len(grid.orientations(f)) for f in forms) == fixed, n


@pytest.mark.parametrize("lattice, sizes", [("triangle", (2, 3, 4, 5, 6)), ("hexagon", (2, 3, 4, 5))])
def test_the_named_sets_are_the_reference_polyforms(lattice, sizes):
    names = {("triangle", 2): "diamonds", ("triangle", 3): "triamonds", ("triangle", 4): "tetriamonds",
             ("triangle", 5): "pentiamonds", ("triangle", 6): "hexiamonds", ("hexagon", 2): "dihexes",
             ("hexagon", 3): "trihexes", ("hexagon", 4): "tetrahexes", ("hexagon", 5): "pentahexes"}
    for n in sizes:
        pieces = named_set(names[lattice, n])
        expected = {min(ref.orientations(lattice, cells)) for cells in ref.free_pieces(lattice, n)}
        got = [min(ref.orientations(lattice, p.shape.form)) for p in pieces]
        assert sorted(got) == sorted(expected) and len(set(got)) == len(got), n
        one_sided = named_set("one-sided-" + names[lattice, n])
        assert len(one_sided) == (POLYIAMONDS if lattice == "triangle" else POLYHEXES)["one-sided"][n - 1]
        assert len({min(ref.orientations(lattice, p.shape.form, mirror=False)) for p in one_sided}) == len(one_sided)


# ---------------------------------------------------------------- boards and their groups
BOARDS = [
    # lattice, shape, sides, cells, group order
    ("triangle", "parallelogram", [3, 3], 18, 4),
    ("triangle", "parallelogram", [2, 5], 20, 2),
    ("triangle", "triangle", [4], 16, 6),
    ("triangle", "hexagon", [1], 6, 12),
    ("triangle", "hexagon", [3], 54, 12),
    ("hexagon", "parallelogram", [4, 4], 16, 4),
    ("hexagon", "parallelogram", [3, 5], 15, 2),
    ("hexagon", "triangle", [5], 15, 6),
    ("hexagon", "hexagon", [1], 1, 12),
    ("hexagon", "hexagon", [3], 19, 12),
]


def toml(lattice: str, board: str, pieces: str, count: str | None = None, goal: str = "fill") -> str:
    extra = f"count = {count}\n" if count else ""
    return (f'kind = "polyform"\ngoal = "{goal}"\nlattice = "{lattice}"\n{board}\n\n[[pieces]]\nset = "{pieces}"\n'
            f'{extra}')


def board_key(shape: str, sides: list[int]) -> str:
    return f"{shape} = {sides if len(sides) == 2 else sides[0]}"


@pytest.mark.parametrize("lattice, shape, sides, cells, order", BOARDS)
def test_board_shapes_have_their_cells_and_their_group(lattice, shape, sides, cells, order):
    board = shaped_board(lattice, shape, sides)
    assert len(board.free) == cells
    pieces = "dihexes" if lattice == "hexagon" else "diamonds"
    problem = problem_from_text(toml(lattice, board_key(shape, sides), pieces, '"any"', goal="pack"))
    group = problem.group
    assert len(group) == order == len(ref.board_images(lattice, set(board.free)))
    assert group[0].is_identity
    for g in group:
        assert set(g.cells(sorted(board.free))) == board.free
    # a drawing of the board reads back as the same board
    assert drawn_board(lattice, board.text()).free == board.free


# ---------------------------------------------------------------- counts
def count(problem, **options) -> tuple[int, int | None]:
    solver = problem.solver(**options)
    result = solver.solve((), COUNT)
    return result.count, result.distinct


def macmahon(a: int, b: int, c: int) -> int:
    """Lozenge tilings of the a, b, c hexagon (MacMahon's box formula)."""
    out = Fraction(1)
    for i in range(1, a + 1):
        for j in range(1, b + 1):
            for k in range(1, c + 1):
                out *= Fraction(i + j + k - 1, i + j + k - 2)
    return int(out)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_diamonds_in_a_hexagon_count_as_macmahon_says(n):
    problem = problem_from_text(toml("triangle", f"hexagon = {n}", "diamonds", '"any"'))
    assert count(problem)[0] == macmahon(n, n, n)
    assert count(problem, method=Method.LEVELS)[0] == macmahon(n, n, n)


SMALL = [
    # lattice, board, pieces, count
    ("triangle", "triangle = 4", "tetriamonds", '"any"'),
    ("triangle", "parallelogram = [2, 5]", "pentiamonds", None),
    ("triangle", "hexagon = 2", "tetriamonds", '"any"'),
    ("triangle", "parallelogram = [3, 4]", "hexiamonds", '[0, 1]'),
    ("triangle", "triangle = 6", "hexiamonds", '[0, 1]'),
    ("hexagon", "hexagon = 2", "trihexes", '"any"'),  # 7 cells: no tiling
    ("hexagon", "parallelogram = [3, 4]", "tetrahexes", '"any"'),
    ("hexagon", "triangle = 5", "trihexes", '"any"'),
    ("hexagon", "parallelogram = [4, 5]", "pentahexes", '[0, 1]'),
]


def reference_counts(problem, lattice: str) -> tuple[int, int]:
    pieces = [(list(p.shape.form), p.lo, p.hi) for p in problem.pieces]
    mirror = {p.mirror for p in problem.pieces}
    assert len(mirror) == 1
    found = ref.tilings(lattice, set(problem.board.free), pieces, mirror.pop())
    return len(found), ref.orbits(lattice, set(problem.board.free), found)


@pytest.mark.parametrize("lattice, board, pieces, copies", SMALL)
def test_counts_agree_with_the_brute_force(lattice, board, pieces, copies):
    text = toml(lattice, board, pieces, copies)
    try:
        problem = problem_from_text(text)
    except ProblemError as exc:  # no combination of the pieces covers the board
        assert "no combination" in str(exc)
        assert reference_counts_text(text, lattice) == (0, 0)
        return
    total, distinct = reference_counts(problem, lattice)
    assert count(problem, distinct=True) == (total, distinct)
    assert count(problem, method=Method.SEARCH, symmetry=True)[0] == total
    found = list(solutions(problem))
    assert len(found) == total and all(problem.is_solution(s.path) for s in found)


def reference_counts_text(text: str, lattice: str) -> tuple[int, int]:
    import tomllib

    data = tomllib.loads(text)
    shape = next(k for k in ("parallelogram", "triangle", "hexagon") if k in data)
    sides = data[shape] if isinstance(data[shape], list) else [data[shape]]
    board = set(shaped_board(lattice, shape, sides).free)
    pieces = [(list(p.shape.form), 0, None) for p in named_set(data["pieces"][0]["set"])]
    found = ref.tilings(lattice, board, pieces)
    return len(found), ref.orbits(lattice, board, found)


PLAIN = [("triangle", "triangle = 4", "tetriamonds", '"any"'), ("triangle", "parallelogram = [3, 5]", "one-sided-pentiamonds", None),
         ("hexagon", "parallelogram = [3, 4]", "tetrahexes", '"any"')]


@pytest.mark.parametrize("method", [Method.SEARCH, Method.LEVELS, Method.BITBOARD, Method.AUTO])
@pytest.mark.parametrize("lattice, board, pieces, copies", PLAIN)
def test_every_method_counts_a_lattice_board_alike(method, lattice, board, pieces, copies):
    problem = problem_from_text(toml(lattice, board, pieces, copies))
    expected = reference_counts(problem, lattice)[0]
    assert expected > 0
    if method is Method.AUTO:
        from core.engines import choose_method

        choice = choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=True), whole_count=True)
        got = choice.trial.count if choice.trial is not None else choice.solver.solve((), COUNT).count
        assert got == expected, choice.reason
    else:
        assert count(problem, method=method)[0] == expected


@pytest.mark.slow
def test_the_hexiamonds_in_the_6x6_rhombus_against_the_brute_force():
    problem = problem_from_text(toml("triangle", "parallelogram = [6, 6]", "hexiamonds"))
    total, distinct = reference_counts(problem, "triangle")
    assert (total, distinct) == (624, 156)
    assert count(problem, distinct=True) == (total, distinct)


# ---------------------------------------------------------------- drawings and errors
def test_a_drawn_board_with_a_hole():
    text = 'kind = "polyform"\nlattice = "hexagon"\nboard = """\n  - - -\n - - - -\n- - # - -\n - - - -\n  - - -\n"""\n' \
           '[[pieces]]\nset = "trihexes"\ncount = "any"\n'
    problem = problem_from_text(text)
    assert len(problem.board.free) == 18
    total, distinct = reference_counts(problem, "hexagon")
    assert count(problem, distinct=True) == (total, distinct) and total > 0
    svg = next(iter(solutions(problem))).svg()
    assert svg.count("<polygon") == 18 and "<title>H3." in svg


def test_a_drawn_piece_on_triangles():
    text = ('kind = "polyform"\nlattice = "triangle"\ntriangle = 2\n\n[[pieces]]\nname = "bar"\n'
            'shape = """\n##\n"""\ncount = "any"\n')
    problem = problem_from_text(text)  # the diamond, drawn: a triangle of side 2 takes two of them...
    assert count(problem)[0] == 0  # ...not at all: its three corner triangles point the same way
    text = text.replace("triangle = 2", "hexagon = 2")
    assert count(problem_from_text(text))[0] == macmahon(2, 2, 2)


@pytest.mark.parametrize("text, message", [
    ('lattice = "pentagon"\nsize = [2, 2]', "lattice must be one of"),
    ('lattice = "triangle"\nsize = [2, 2]', "size is for square boards"),
    ('lattice = "triangle"\ntriangle = 2\nhexagon = 2', "exactly one of"),
    ('triangle = 3', "give lattice"),
    ('lattice = "hexagon"\ntriangle = 0', "at least 1"),
    ('lattice = "hexagon"\nparallelogram = 3', "parallelogram must be [rows, cols]"),
    ('lattice = "hexagon"\nboard = """\n- -\n - x\n"""', "unexpected character 'x'"),
    ('lattice = "hexagon"\nboard = """\n- -\n--\n"""', "off the grid"),
])
def test_errors_name_the_line(text, message):
    full = f'kind = "polyform"\n{text}\n\n[[pieces]]\nset = "trihexes"\ncount = "any"\n'
    with pytest.raises(ProblemError) as info:
        problem_from_text(full, source_name="f.toml")
    assert message in str(info.value) and str(info.value).startswith("f.toml:")


def test_a_set_of_another_lattice_is_refused():
    with pytest.raises(ProblemError, match="set 'pentominoes' is of the square lattice"):
        problem_from_text(toml("triangle", "triangle = 5", "pentominoes", '"any"'))
    with pytest.raises(ProblemError, match="set 'hexiamonds' is of the triangle lattice"):
        problem_from_text('kind = "polyform"\nsize = [6, 6]\n[[pieces]]\nset = "hexiamonds"\n')


@pytest.mark.parametrize("lattice, shape, pieces, size, fixed", [
    ("triangle", "parallelogram = [6, 6]", "hexiamonds", 6, POLYIAMONDS["fixed"]),
    ("hexagon", "parallelogram = [4, 7]", "tetrahexes", 4, POLYHEXES["fixed"]),
])
def test_placing_pieces_on_a_lattice_board_reports_its_progress(lattice, shape, pieces, size, fixed):
    """As on square boards: (form, cell) pairs tried out of every fixed form (OEIS) at
    every cell, from 0 to the whole, for the command line's progress line."""
    from core.build_progress import watching
    from core.polyform.placing import PLACING

    p = problem_from_text(toml(lattice, shape, pieces, "1"))
    heard = []
    with watching(lambda stage, done, total: heard.append((stage, done, total))):
        p.exact_cover()
    total = fixed[size - 1] * len(p.board.free)
    assert heard[0] == (PLACING, 0, total) and heard[-1] == (PLACING, total, total)
    assert [d for _, d, _ in heard] == sorted(d for _, d, _ in heard)
