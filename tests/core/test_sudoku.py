"""Sudoku grids, Latin squares and sudoku hypercubes: counts, seeds, errors, engines."""
from __future__ import annotations

import itertools
import os
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.errors import ProblemError
from core.library import load, spec_from_text
from core.library import from_spec
from core.sudoku import Geometry, default_symbols
from core.search import SolveRequest

DATA = os.path.join(os.path.dirname(__file__), "data")


def data(name: str) -> str:
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return fh.read()


def read_cells(text: str, symbols: str) -> list[int]:
    """Symbols of a grid text in reading order (-1 for _), blank lines ignored."""
    return [-1 if t == "_" else symbols.index(t) for t in text.split()]


def independent_check(cells: list[int], side: int, dims: int, box: tuple[int, ...] | None) -> bool:
    """A checker written apart from core.sudoku: every line along every axis and every
    box holds each symbol once."""
    if len(cells) != side**dims or sorted(set(cells)) != list(range(side)):
        return False

    def at(co):
        i = 0
        for c in co:
            i = i * side + c
        return cells[i]

    for axis in range(dims):
        for rest in itertools.product(range(side), repeat=dims - 1):
            line = {at(rest[:axis] + (v,) + rest[axis:]) for v in range(side)}
            if len(line) != side:
                return False
    if box:
        for origin in itertools.product(*[range(0, side, b) for b in box]):
            vals = {at(tuple(o + d for o, d in zip(origin, off))) for off in itertools.product(*[range(b) for b in box])}
            if len(vals) != side:
                return False
    return True


def grid_of(problem, path) -> list[int]:
    return problem.grid(path)


# -- the seeds --------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["kernel", "reduction"])
@pytest.mark.parametrize("name, k", [("9x9", 3), ("16x16", 4)])
def test_seed_sudoku_unique_solution(name, k, engine):
    p = load(f"sudoku-{name}-seed")
    expected = data(f"sudoku-{name}-seed.solution.txt")
    solver = p.solver(engine=engine)
    r = solver.solve((), SolveRequest(listing=True))
    assert r.count == 1
    sol = r.solutions[0]
    assert p.render_text(sol).split() == expected.split()
    assert p.render_text(sol) == "\n".join(line.rstrip() for line in expected.strip().splitlines())
    cells = read_cells(expected, default_symbols(k * k))
    assert independent_check(cells, k * k, 2, (k, k)) and p.is_solution(sol)
    givens = read_cells(data(f"sudoku-{name}-seed.txt"), default_symbols(k * k))
    assert all(g < 0 or g == c for g, c in zip(givens, cells))


def test_seed_files_as_plain_text_with_kind():
    p = load(os.path.join(DATA, "sudoku-9x9-seed.txt"), kind="sudoku")
    assert p.solver().count() == 1
    assert "<svg" in p.render_svg(p.solver().first(1)[0])


def test_cube_seed_answer_is_found_among_solutions():
    p = load("sudoku-cube-k2n3-seed")
    assert p.geom == Geometry(8, 3, (2, 2, 2)) and len(p.givens) == 91
    answer = read_cells(data("sudoku-cube-k2n3-seed.solution.txt"), "12345678")
    assert independent_check(answer, 8, 3, (2, 2, 2))
    assert all(answer[c] == s for c, s in p.givens.items())
    # fill the first four layers from the seed's answer: the search must find it below them
    puzzle = read_cells(data("sudoku-cube-k2n3-seed.txt"), "12345678")
    part = [answer[i] if i < 4 * 64 else puzzle[i] for i in range(512)]
    text = "\n\n".join(
        "\n".join(" ".join("_" if s < 0 else str(s + 1) for s in part[z * 64 + y * 8 : z * 64 + y * 8 + 8])
                  for y in range(8))
        for z in range(8)
    )
    q = from_spec({"kind": "sudoku", "format": "text", "text": text, "source_name": "part"})
    sols = [q.grid(s) for s in q.solver().solutions()]
    assert answer in sols
    assert all(independent_check(s, 8, 3, (2, 2, 2)) for s in sols)
    assert q.render_text(q.solver().first(1)[0]).count("\n\n") == 7


@pytest.mark.slow
def test_cube_seed_count():
    p = load("sudoku-cube-k2n3-seed")
    started = time.perf_counter()
    r = p.solver().solve()
    assert r.count == 904_192
    print(f"sudoku-cube-k2n3-seed: {r.count} in {time.perf_counter() - started:.1f} s, {r.stats.nodes} nodes")


# -- counts ---------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["kernel", "reduction", "reference"])
def test_all_4x4_grids(engine):
    p = load("sudoku-4x4")
    sols = list(p.solver(engine=engine).solutions())
    assert len(sols) == 288
    grids = {tuple(p.grid(s)) for s in sols}
    assert len(grids) == 288 and all(independent_check(list(g), 4, 2, (2, 2)) for g in grids)


def test_latin_squares():
    assert load("latin-5").solver().count() == 161_280
    assert load("latin-4").solver().count() == 576
    assert load("latin-4").solver(engine="reduction").count() == 576
    p = load("latin-3")
    assert {tuple(p.grid(s)) for s in p.solver().solutions()} == {
        tuple(g) for g in itertools.product(range(3), repeat=9) if independent_check(list(g), 3, 2, None)
    }


def test_hypercube_from_k_and_n():
    p = from_spec(spec_from_text('kind = "sudoku"\nk = 2\nn = 2\n', source_name="h.toml"))
    assert p.solver().count() == 288
    p = from_spec(spec_from_text('kind = "sudoku"\nk = 1\nn = 3\n', source_name="h.toml"))
    assert p.solver().count() == 1


@pytest.mark.slow
def test_all_6x6_grids_with_2x3_boxes():
    p = load("sudoku-6x6")
    assert p.geom.box == (2, 3)
    started = time.perf_counter()
    assert p.solver().count() == 28_200_960
    print(f"sudoku-6x6: counted in {time.perf_counter() - started:.1f} s")


def test_6x6_with_first_row_given_times_relabelings():
    text = 'kind = "sudoku"\nbox = [2, 3]\ngrid = """\n1 2 3 4 5 6\n' + "_ _ _ _ _ _\n" * 5 + '"""\n'
    p = from_spec(spec_from_text(text, source_name="six.toml"))
    assert p.solver().count() * 720 == 28_200_960


def test_25x25_symbols():
    k, N = 5, 25
    syms = default_symbols(N)
    assert syms == "ABCDEFGHIJKLMNOPQRSTUVWXY"
    full = [(k * (r % k) + r // k + c) % N for r in range(N) for c in range(N)]
    assert independent_check(full, N, 2, (k, k))
    holes = {i for i in range(0, N * N, 3)}
    text = "\n".join(" ".join("_" if r * N + c in holes else syms[full[r * N + c]] for c in range(N))
                     for r in range(N))
    p = from_spec({"kind": "sudoku", "format": "text", "text": text, "source_name": "big"})
    sols = p.solver().first(2)
    assert len(sols) == 1 and p.grid(sols[0]) == full


def test_rectangular_boxes_and_compact_rows():
    text = 'kind = "sudoku"\nbox = [3, 2]\ngrid = """\n' + "______\n" * 6 + '"""\n'
    p = from_spec(spec_from_text(text, source_name="six.toml"))
    assert p.geom.box == (3, 2)
    sol = p.solver().first(1)[0]
    assert independent_check(p.grid(sol), 6, 2, (3, 2))


# -- engines agree ----------------------------------------------------------------------
@st.composite
def givens_4x4(draw):
    """Random givens on a 4x4 grid, no two equal in one group."""
    geom = Geometry(4, 2, (2, 2))
    cells = [-1] * 16
    for c in draw(st.lists(st.integers(0, 15), max_size=8, unique=True)):
        s = draw(st.integers(0, 3))
        if all(cells[p] != s for p in geom.peers[c]):
            cells[c] = s
    return cells


@settings(max_examples=60, deadline=None)
@given(givens_4x4())
def test_kernel_and_reduction_agree_on_4x4(cells):
    text = "\n".join(" ".join("_" if s < 0 else str(s + 1) for s in cells[r * 4 : r * 4 + 4]) for r in range(4))
    p = from_spec({"kind": "sudoku", "format": "text", "text": text, "source_name": "h"})
    by_kernel = {tuple(p.grid(s)) for s in p.solver().solutions()}
    by_reduction = {tuple(p.grid(s)) for s in p.solver(engine="reduction").solutions()}
    assert by_kernel == by_reduction
    assert all(independent_check(list(g), 4, 2, (2, 2)) for g in by_kernel)
    assert all(all(g[i] == s for i, s in enumerate(cells) if s >= 0) for g in by_kernel)
    frontier = p.solver(engine="reduction").split(3)
    assert sum(p.solver(engine="reduction").count(s.path) for s in frontier) == len(by_kernel)


# -- errors -------------------------------------------------------------------------------
def load_text(tmp_path, name: str, text: str, kind: str | None = None):
    path = tmp_path / name
    path.write_text(text)
    return load(str(path), kind=kind)


NINE = data("sudoku-9x9-seed.txt").splitlines()


@pytest.mark.parametrize(
    "lines, line, message",
    [
        (NINE[:3] + ["_ _ _ 9 6 _ 5 _"] + NINE[4:], 4, "8 entries, expected 9"),
        (NINE[:8], 8, "8 rows, expected 9"),
        (NINE[:5] + ["5 _ 7 _ _ 8 _ _ X"] + NINE[6:], 6, "'X' is not one of 1-9"),
        (NINE[:5] + ["5 _ 7 _ _ 8 _ _ 0"] + NINE[6:], 6, "'0' is not one of 1-9"),
        (NINE[:1] + ["_ 2 4 _ _ _ _ 2 7"] + NINE[2:], 2, "2 is given twice in row 2"),
        (NINE[:8] + ["1 5 _ 6 _ _ _ 3 _"], 9, "1 is given twice in column 1"),
        (NINE[:2] + ["_ 1 _ 9 6 _ 5 _ _"] + NINE[3:], 3, "1 is given twice in box 1"),
    ],
)
def test_grid_errors_name_file_and_line(tmp_path, lines, line, message):
    with pytest.raises(ProblemError, match=message) as err:
        load_text(tmp_path, "bad.txt", "\n".join(lines) + "\n", kind="sudoku")
    assert err.value.line == line and err.value.source.endswith("bad.txt")
    assert str(err.value).startswith(f"{err.value.source}:{line}: ")


def test_cube_error_in_a_sub_cube(tmp_path):
    lines = data("sudoku-cube-k2n3-seed.txt").splitlines()
    # layer 2 (file line 10), row 1: "5 6 _ 8 ..." - put a 5 at layer 1 row 2 column 2 (same sub-cube)
    lines[1] = "_ 5 5 _ _ _ _ _"
    with pytest.raises(ProblemError, match="given twice") as err:
        load_text(tmp_path, "cube.txt", "\n".join(lines) + "\n", kind="sudoku")
    assert err.value.line == 2
    blank = [["_"] * 8 for _ in range(64)]
    blank[0][0] = "5"  # layer 1, row 1, column 1: file line 1
    blank[9][1] = "5"  # layer 2, row 2, column 2: file line 11, the same 2x2x2 sub-cube
    text = "\n\n".join("\n".join(" ".join(r) for r in blank[z * 8 : z * 8 + 8]) for z in range(8))
    with pytest.raises(ProblemError, match="sub-cube") as err:
        load_text(tmp_path, "cube.txt", text + "\n", kind="sudoku")
    assert err.value.line == 11


def test_cube_layer_errors(tmp_path):
    lines = data("sudoku-cube-k2n3-seed.txt").splitlines()
    with pytest.raises(ProblemError, match="layer 2 has 7 rows"):
        load_text(tmp_path, "c.txt", "\n".join(lines[:9] + lines[10:]) + "\n", kind="sudoku")
    with pytest.raises(ProblemError, match="layers"):
        load_text(tmp_path, "c.txt", "\n".join(lines[:9 * 3 - 1]) + "\n", kind="sudoku")


@pytest.mark.parametrize(
    "text, line, message",
    [
        ('kind = "sudoku"\nbox = [2, 3]\ngrid = """\n1 2 3 4\n____\n____\n____\n"""\n', 2, "does not hold 4"),
        ('kind = "sudoku"\nsize = 4\ngrid = """\n1 2 3\n"""\n', 4, "expected 4"),
        ('kind = "sudoku"\ngrid = """\n1 2 3 4\n3 4 1 2\n2 1 4 3\n4 3 2 2\n"""\n', 6, "2 is given twice in column 4"),
        ('kind = "sudoku"\nsize = 5\n', None, "no boxes"),
        ('kind = "sudoku"\n', None, "give a grid"),
        ('kind = "sudoku"\nsize = 4\ncolour = 1\n', 3, "unknown key"),
        ('kind = "latin"\nsize = 4\nbox = [2, 2]\n', 3, "unknown key"),
        ('kind = "sudoku"\nk = 2\nn = 3\nsize = 9\n', 4, "disagrees"),
        ('kind = "sudoku"\nsize = 0\n', 2, "integer >= 1"),
    ],
)
def test_toml_errors(tmp_path, text, line, message):
    with pytest.raises(ProblemError, match=message) as err:
        load_text(tmp_path, "p.toml", text)
    assert err.value.line == line and err.value.source.endswith("p.toml")


def test_toml_grid_and_symbols():
    text = 'kind = "latin"\nsymbols = "abc"\ngrid = """\na _ _\n_ _ _\n_ _ _\n"""\n'
    p = from_spec(spec_from_text(text, source_name="l.toml"))
    sols = list(p.solver().solutions())
    assert len(sols) == 4
    assert p.render_text(sols[0]).splitlines()[0].startswith("a")
