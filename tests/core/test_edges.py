"""Roads and general edge matching: the seed's 12 road grids, pictures, formats, engines."""
from __future__ import annotations

import itertools
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.edges import ROAD_TILES, EdgesProblem
from core.errors import ProblemError
from core.library import load, spec_from_text
from core.library import from_spec

DATA = os.path.join(os.path.dirname(__file__), "data")

#: arms of each road tile, written apart from core.edges (u, d, l, r)
ARMS = {"U": "lru", "D": "lrd", "L": "udl", "R": "udr", "E": ""}


def data(name: str) -> str:
    with open(os.path.join(DATA, name), encoding="utf-8") as fh:
        return fh.read()


def roads_ok(rows: list[list[str]], givens: list[list[str]]) -> bool:
    """Independent check of a road grid: givens kept, neighbours agree on shared sides."""
    for r, row in enumerate(rows):
        for c, t in enumerate(row):
            if givens[r][c] != "_" and givens[r][c] != t:
                return False
            if c + 1 < len(row) and ("r" in ARMS[t]) != ("l" in ARMS[row[c + 1]]):
                return False
            if r + 1 < len(rows) and ("d" in ARMS[t]) != ("u" in ARMS[rows[r + 1][c]]):
                return False
    return True


def names(problem, path) -> list[list[str]]:
    return [line.split() for line in problem.render_names(path).splitlines()]


# -- the seed -----------------------------------------------------------------------------
@pytest.mark.parametrize("engine", ["kernel", "reference", "reduction"])
def test_roads_seed_has_exactly_the_12_solutions(engine):
    p = load("roads-seed")
    expected = sorted(block.strip() for block in data("roads-seed.solutions.txt").split("\n\n") if block.strip())
    sols = list(p.solver(engine=engine).solutions())
    got = sorted(p.render_names(s) for s in sols)
    assert got == expected and len(got) == 12
    givens = [line.split() for line in data("roads-seed.txt").splitlines()]
    assert all(roads_ok(names(p, s), givens) and p.is_solution(s) for s in sols)


def test_roads_drawn_as_the_seed_draws_them():
    p = load("roads-seed")
    drawings = data("roads-seed.drawings.txt").strip().split("\n\n")
    by_names = {}
    for s in p.solver().solutions():
        by_names[p.render_names(s)] = p.render_text(s)
    order = [block.strip() for block in data("roads-seed.solutions.txt").split("\n\n") if block.strip()]
    assert [by_names[n] for n in order] == drawings
    assert all(len(line) == 30 for d in drawings for line in d.splitlines())
    svg = p.render_svg(p.solver().first(1)[0])
    assert svg.startswith("<svg") and svg.count("<rect") > 20


def test_roads_plain_text_and_toml(tmp_path):
    path = tmp_path / "r.txt"
    path.write_text(data("roads-seed.txt"))
    assert load(str(path), kind="roads").solver().count() == 12
    toml = 'kind = "roads"\ngrid = """\n' + data("roads-seed.txt") + '"""\n'
    assert from_spec(spec_from_text(toml, source_name="r.toml")).solver().count() == 12
    p = from_spec(spec_from_text('kind = "roads"\nsize = [2, 2]\n', source_name="r.toml"))
    brute = [g for g in itertools.product("UDLRE", repeat=4)
             if roads_ok([list(g[:2]), list(g[2:])], [["_"] * 2] * 2)]
    assert p.solver().count() == len(brute)


# -- engines agree on small random road grids ----------------------------------------------
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 4), st.data())
def test_engines_agree_on_random_road_grids(rows, cols, draw):
    grid = [[draw.draw(st.sampled_from("UDLRE____")) for _ in range(cols)] for _ in range(rows)]
    text = "\n".join(" ".join(r) for r in grid)
    try:
        p = from_spec({"kind": "roads", "format": "text", "text": text, "source_name": "g"})
    except ProblemError as exc:
        assert "do not match" in str(exc)
        return
    kernel = sorted(p.render_names(s) for s in p.solver().solutions())
    reduction = sorted(p.render_names(s) for s in p.solver(engine="reduction").solutions())
    assert kernel == reduction
    unknown = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "_"]
    if len(unknown) > 6:
        return
    brute = 0
    for fill in itertools.product("UDLRE", repeat=len(unknown)):
        g = [row[:] for row in grid]
        for (r, c), t in zip(unknown, fill):
            g[r][c] = t
        brute += roads_ok(g, grid)
    assert len(kernel) == brute


# -- general edge matching --------------------------------------------------------------------
WANG = '''
kind = "edges"
rotate = {rotate}
border = "{border}"
grid = """
{grid}
"""
[tiles]
A = "r g g r"
B = "g g r r"
C = "r r g g"
'''


def brute_force(p: EdgesProblem) -> int:
    return sum(
        1 for placement in itertools.product(range(len(p.tiles)), repeat=p.rows * p.cols)
        if _placement_ok(p, placement)
    )


def _placement_ok(p: EdgesProblem, placement) -> bool:
    """Written apart from the model: labels equal (or paired) across every inner side."""
    for cell, fixed in enumerate(p.cells):
        if fixed is not None and placement[cell] not in fixed:
            return False
    for r in range(p.rows):
        for c in range(p.cols):
            t = p.tiles[placement[r * p.cols + c]].sides
            if p.border is not None:
                if (r == 0 and t[0] != p.border) or (r == p.rows - 1 and t[2] != p.border):
                    return False
                if (c == 0 and t[3] != p.border) or (c == p.cols - 1 and t[1] != p.border):
                    return False
            if c + 1 < p.cols and p.partner.get(p.tiles[placement[r * p.cols + c + 1]].sides[3],
                                                p.tiles[placement[r * p.cols + c + 1]].sides[3]) != t[1]:
                return False
            if r + 1 < p.rows and p.partner.get(p.tiles[placement[(r + 1) * p.cols + c]].sides[0],
                                                p.tiles[placement[(r + 1) * p.cols + c]].sides[0]) != t[2]:
                return False
    for base, k in p.counts.items():
        if sum(p.tiles[v].base == base for v in placement) > k:
            return False
    return True


@pytest.mark.parametrize("rotate", ["false", "true"])
@pytest.mark.parametrize("border", ["free", "g"])
@pytest.mark.parametrize("grid", ["_ _\n_ _", "A _\n_ _", "_ _ _", "_\n_\n_"])
def test_wang_tiles_against_brute_force(rotate, border, grid):
    text = WANG.format(rotate=rotate, border=border, grid=grid)
    if grid.startswith("A") and border == "g" and rotate == "false":
        with pytest.raises(ProblemError, match="border label g"):
            from_spec(spec_from_text(text, source_name="w.toml"))
        return
    p = from_spec(spec_from_text(text, source_name="w.toml"))
    n = brute_force(p)
    for engine in ("kernel", "reference", "reduction"):
        sols = list(p.solver(engine=engine).solutions())
        assert len(sols) == n, engine
        assert all(p.is_solution(s) for s in sols)
        assert len({p.render_names(s) for s in sols}) == n
    if rotate == "true":
        assert [t.name for t in p.tiles][:4] == ["A@0", "A@1", "A@2", "A@3"]


def test_counts_and_matching_pairs():
    text = '''
kind = "edges"
size = [2, 2]
[tiles]
P = "in out in out"
Q = "out in out in"
[counts]
P = 2
[match]
in = "out"
'''
    p = from_spec(spec_from_text(text, source_name="j.toml"))
    n = brute_force(p)
    assert n == 2  # a checkerboard of P and Q, two ways
    assert p.solver().count() == n == p.solver(engine="reference").count()
    with pytest.raises(ProblemError, match="counts"):
        p.solver(engine="reduction")
    p = from_spec(spec_from_text(text.replace("P = 2", "P = 1"), source_name="j.toml"))
    assert p.solver().count() == brute_force(p) == 0


def test_given_with_rotation(tmp_path):
    text = WANG.format(rotate="true", border="free", grid="A@1 _\n_ A")
    p = from_spec(spec_from_text(text, source_name="w.toml"))
    assert p.solver().count() == brute_force(p) > 0
    for s in p.solver().solutions():
        row = p.render_names(s).split()
        assert row[0] == "A@1" and row[3].startswith("A@")
    assert "<svg" in p.render_svg(p.solver().first(1)[0])


# -- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, line, message",
    [
        ("_ R _ _ _\nD U _ _ L\n_ D X _ _\n", 3, "unknown tile 'X'"),
        ("_ R _ _ _\nD U _ _\n", 2, "4 cells, the first has 5"),
        ("R R\n", 1, "do not match"),
        ("U\nU\n", 2, "do not match"),
    ],
)
def test_roads_errors(tmp_path, text, line, message):
    path = tmp_path / "bad.txt"
    path.write_text(text)
    with pytest.raises(ProblemError, match=message) as err:
        load(str(path), kind="roads")
    assert err.value.line == line and str(err.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize(
    "text, line, message",
    [
        (WANG.format(rotate="maybe", border="free", grid="_"), 3, "not valid TOML"),
        (WANG.format(rotate="true", border="free", grid="_ Z"), 6, "unknown tile 'Z'"),
        (WANG.format(rotate="false", border="g", grid="A _"), 6, "border label g"),
        (WANG.format(rotate="false", border="free", grid="_") + 'D = "a b c"\n', 12, "four labels"),
        (WANG.format(rotate="false", border="free", grid="_") + '[counts]\nZ = 1\n', 13, "not a tile"),
        ('kind = "edges"\ngrid = "_"\n', None, "tile set"),
        ('kind = "edges"\n[tiles]\nA = "a a a a"\n', None, "give a grid"),
        ('kind = "edges"\nflip = true\n', 2, "unknown key"),
    ],
)
def test_edges_errors(tmp_path, text, line, message):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ProblemError, match=message) as err:
        load(str(path))
    assert err.value.line == line


def test_road_tiles_are_the_seeds():
    for name, labels in ROAD_TILES:
        up, right, down, left = labels.split()
        assert {"u": up, "r": right, "d": down, "l": left} == {a: ("1" if a in ARMS[name] else "0") for a in "urdl"}
