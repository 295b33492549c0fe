"""The model of a problem file told from its content (core.sniff), and the inputs users
have: a sudoku on one line, standard input, a file that is no problem at all."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from core.errors import ProblemError
from core.library import load, spec_from_text
from core.sniff import Sniffed, sniff

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ONE_LINE_SUDOKU = "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......"
CROSSWORD_JSON = json.dumps({"size": {"rows": 3, "cols": 3}, "grid": list("ABCDEFGHI")})


@pytest.mark.parametrize("text, expected", [
    ((EXAMPLES / "sudoku-9x9-seed.txt").read_text(), Sniffed("sudoku", "text")),
    ((EXAMPLES / "sudoku-cube-k2n3-seed.txt").read_text(), Sniffed("sudoku", "text")),
    (ONE_LINE_SUDOKU, Sniffed("sudoku", "text")),
    ((EXAMPLES / "queens8.dlx").read_text(), Sniffed("exact-cover", "dlx")),
    ((EXAMPLES / "langford7.dlx").read_text(), Sniffed("exact-cover", "dlx")),
    ((ROOT / "core" / "data" / "tilepuzzle-seed-hexominoes.txt").read_text(), Sniffed("polyform", "text")),
    ("# two tiles\n----\n----\n\n###\n#--\n\n-#\n###\n", Sniffed("polyform", "text")),
    ((EXAMPLES / "roads-seed.txt").read_text(), Sniffed("roads", "text")),
    ('symmetry = "rotational"\n#...\n....\n....\n...#\n', Sniffed("crossword", "text")),
    (CROSSWORD_JSON, Sniffed("crossword", "json")),
    ((EXAMPLES / "sudoku-6x6.toml").read_text(), Sniffed(None, "toml")),
])
def test_the_kind_is_told_from_the_content(text, expected):
    assert sniff(text) == expected


@pytest.mark.parametrize("text, says", [
    ("<!DOCTYPE html>\n<html><body><p>404</p></body></html>\n", "an HTML page"),
    ("  <html lang=en>\n<head></head>\n", "an HTML page"),
    ('{"a": 1}', "JSON, but not a crossword"),
    ('{"size": ', "starts like JSON but is not"),
    ("hello world, this is a letter\nnot a puzzle\n", "none of TOML with a kind line"),
    ("", "it is empty"),
])
def test_what_is_no_problem_file_says_so_in_one_line(text, says):
    with pytest.raises(ProblemError) as err:
        spec_from_text(text, source_name="page.txt")
    line = str(err.value)
    assert line.startswith("page.txt") and "not a problem file: " in line and says in line and "\n" not in line


def test_kind_overrides_the_content():
    grid = (EXAMPLES / "sudoku-9x9-seed.txt").read_text()
    assert spec_from_text(grid, source_name="g.txt", kind="latin")["kind"] == "latin"
    with pytest.raises(ProblemError, match="not a problem file"):
        spec_from_text("<html></html>", source_name="g.txt")
    # a .dlx file is DLX whatever its content: its mistakes are DLX mistakes, with the line
    with pytest.raises(ProblemError, match=r"bad\.dlx:\d+: "):
        load_text("a b\na c\n", source_name="bad.dlx")


def test_a_sudoku_on_one_line_is_the_same_puzzle_as_its_rows():
    rows = "\n".join(ONE_LINE_SUDOKU[r * 9:(r + 1) * 9] for r in range(9))
    one_line = load_text(ONE_LINE_SUDOKU)
    as_rows = load_text(rows)
    assert one_line.solver().count() == as_rows.solver().count() == 1
    assert one_line.render_text(next(iter(one_line.solver().solutions()))) == \
        as_rows.render_text(next(iter(as_rows.solver().solutions())))


def load_text(text: str, source_name: str = "<text>"):
    from core.library import from_spec

    return from_spec(spec_from_text(text, source_name=source_name))


def test_minus_reads_standard_input(monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(ONE_LINE_SUDOKU + "\n"))
    problem = load("-")
    assert problem.kind == "sudoku" and problem.spec["source_name"] == "<stdin>"
    assert problem.solver().count() == 1
