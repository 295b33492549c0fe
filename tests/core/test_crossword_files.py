"""Crossword files as they are published (tests/core/data/crossword/files, SOURCES.md):
an NYT archive JSON, Across Lite .puz, .ipuz and .xd -- each read, its grid's numbering
checked against the file's own numbers, round-tripped through the library that writes the
format, recognised without --kind; and arbitrary bytes or text give a problem or one clean
error, never a traceback."""
from __future__ import annotations

import json
from pathlib import Path

import ipuz
import puz
import pytest
import xdformat
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.crossword import ipuz_file, puz_file, xd_file
from core.crossword.grid import Grid
from core.errors import ProblemError
from core.library import from_spec, load, spec_from_bytes

FILES = Path(__file__).parent / "data" / "crossword" / "files"
NYT_JSON = FILES / "nyt-1976-01-01.json"
PUZ = FILES / "nyt-1976-01-01.puz"
IPUZ = FILES / "example_v2.ipuz"
XD = FILES / "nyt1955-01-01.xd"

#: file -> (format, clues in its grid, symmetry)
KNOWN = {
    NYT_JSON: ("json", 60, "rotational"),
    PUZ: ("puz", 60, "rotational"),
    IPUZ: ("ipuz", 71, "rotational"),
    XD: ("xd", 65, "rotational"),
}


def numbers(grid: Grid) -> list[int]:
    """The number of each square, row-major (0: none)."""
    out = [0] * (grid.rows * grid.cols)
    for n in grid.numbering():
        out[n.row * grid.cols + n.col] = n.number
    return out


@pytest.mark.parametrize("path", list(KNOWN), ids=lambda p: p.name)
def test_each_file_is_read_with_its_clue_string_and_symmetry(path):
    fmt, clues, symmetry = KNOWN[path]
    problem = load(str(path))
    pz = problem.puzzle
    assert problem.spec["format"] == fmt and (pz.rows, pz.cols) == (15, 15)
    assert pz.given is not None and pz.clues == pz.given.clue_string() and len(pz.clues) == clues
    assert pz.symmetry == symmetry and pz.start is None  # the clue string alone: no hint
    assert problem.is_solution(pz.given)


@pytest.mark.parametrize("path", list(KNOWN), ids=lambda p: p.name)
def test_the_kind_is_told_without_suffix_or_kind(path):
    spec = spec_from_bytes(path.read_bytes(), source_name="download")
    assert (spec["kind"], spec["format"]) == ("crossword", KNOWN[path][0])
    assert from_spec(spec).puzzle == load(str(path)).puzzle


def test_the_files_own_numbers_agree_with_the_grid():
    # .puz: puzpy numbers the grid itself
    p = puz.read(str(PUZ))
    grid = puz_file.grid_of(p)
    numbering = p.clue_numbering()
    assert sorted({c["num"] for c in numbering.across} | {c["num"] for c in numbering.down}) == \
        [n.number for n in grid.numbering()]
    # .ipuz: the numbers printed in the puzzle's squares
    data = ipuz.read(IPUZ.read_text())
    printed = [c["cell"] if isinstance(c, dict) else c for row in data["puzzle"] for c in row]
    assert [x if isinstance(x, int) else 0 for x in printed] == numbers(ipuz_file.grid_of(data))
    # NYT JSON: gridnums (the reader refuses a grid whose gridnums differ)
    nyt = json.loads(NYT_JSON.read_text())
    assert nyt["gridnums"] == numbers(load(str(NYT_JSON)).puzzle.given)
    # .xd: the answers xdformat reads off the grid start where the grid's numbers are
    xd = xd_file.load(XD.read_text())
    starts = {(num, r, c) for _, num, _, r, c in xd.iteranswers_full()}
    assert starts == {(n.number, n.row, n.col) for n in xd_file.grid_of(xd).numbering()}


def test_puz_round_trip():
    data = PUZ.read_bytes()
    grid = puz_file.read_grid(data)
    again = puz_file.load(data).tobytes()
    assert again == data and puz_file.read_grid(again) == grid
    # a new file written from the grid alone reads back as the same grid
    p = puz.Puzzle()
    p.width, p.height = grid.cols, grid.rows
    p.solution = "".join("." if b else "A" for b in grid.black)
    p.fill = "".join("." if b else "-" for b in grid.black)
    p.clues = ["clue"] * len(grid.words())
    assert puz_file.read_grid(p.tobytes()) == grid


def test_ipuz_round_trip():
    text = IPUZ.read_text()
    grid = ipuz_file.read_grid(text)
    for jsonp in (False, True):
        assert ipuz_file.read_grid(ipuz.write(ipuz_file.load(text), jsonp=jsonp)) == grid


def test_xd_round_trip():
    text = XD.read_text()
    grid = xd_file.read_grid(text)
    assert xd_file.read_grid(xd_file.load(text).to_unicode()) == grid
    xd = xdformat.xdfile()
    xd.set_header("Title", "from a grid")
    xd.grid = grid.to_text().replace(".", "A").splitlines()
    assert xd_file.read_grid(xd.to_unicode()) == grid


def test_nyt_json_round_trip():
    text = NYT_JSON.read_text()
    assert load(str(NYT_JSON)).puzzle == from_spec(
        spec_from_bytes(json.dumps(json.loads(text)).encode(), source_name="again.json")).puzzle


@pytest.mark.parametrize("data, says", [
    (b"\x00\x00ACROSS&DOWN\x00" + bytes(40), "bad .puz file"),
    (PUZ.read_bytes()[:-40], "bad .puz file: global checksum does not match"),
    (b"not a puzzle at all", "not a .puz file"),
])
def test_bad_puz_files_say_so_in_one_line(tmp_path, data, says):
    path = tmp_path / "bad.puz"
    path.write_bytes(data)
    with pytest.raises(ProblemError) as err:
        load(str(path))
    assert str(err.value).startswith(f"{path}: ") and says in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("name, text, says", [
    ("a.ipuz", '{"version": "http://ipuz.org/v2", "kind": ["http://ipuz.org/sudoku#1"], "puzzle": [[0]]}',
     "not a crossword"),
    ("a.ipuz", '{"version": "http://ipuz.org/v2"}', "Mandatory field kind is missing"),
    ("a.ipuz", IPUZ.read_text().replace('"width": 15', '"width": 14'), "puzzle must be 15 rows of 14 squares"),
    ("a.ipuz", "ipuz({", "No valid JSON"),
    ("a.xd", "Title: x\n\n\nABC\nDEF\nGHI\n\n\nno number here\n", "bad .xd file: no clue number"),
    ("a.xd", "Title: x\n\n\nAB#\nABC#\n", "grid row 2 has 4 squares, the first row 3"),
    ("a.xd", "Title: x\n", "no grid"),
])
def test_bad_text_files_say_so_in_one_line(tmp_path, name, text, says):
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ProblemError) as err:
        load(str(path))
    assert str(err.value).startswith(f"{path}: ") and says in str(err.value) and "\n" not in str(err.value)


def test_a_file_grid_that_breaks_a_rule_is_refused(tmp_path):
    path = tmp_path / "two.xd"
    path.write_text("Title: a two-letter word\n\n\nAB#\nCDE\nFGH\n")
    with pytest.raises(ProblemError, match="two.xd: the given grid breaks a rule"):
        load(str(path))


# -- anything at all: a problem or one clean error ------------------------------------------------
def _problem_or_clean_error(call) -> None:
    try:
        call()
    except ProblemError as exc:
        assert "\n" not in str(exc)


SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.binary(max_size=400), st.sampled_from(["f.puz", "f.ipuz", "f.xd", "f.json", "f"]))
def test_any_bytes_give_a_problem_or_a_clean_error(data, name):
    _problem_or_clean_error(lambda: from_spec(spec_from_bytes(data, source_name=name)))


@SETTINGS
@given(st.binary(max_size=300), st.integers(min_value=0, max_value=1513), st.integers(min_value=0, max_value=255))
def test_damaged_puz_files_give_a_clean_error(tail, at, byte):
    good = bytearray(PUZ.read_bytes())
    good[at] = byte
    for data in (bytes(good), b"\x00\x00ACROSS&DOWN\x00" + tail, bytes(good[:at]) + tail):
        _problem_or_clean_error(lambda: from_spec(spec_from_bytes(data, source_name="f.puz")))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 20) | st.sampled_from(["#", "0", ".", "A", "http://ipuz.org/crossword#1"]),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(
        st.sampled_from(["cell", "style", "width", "height", "kind", "block", "empty"]), inner, max_size=3),
    max_leaves=20,
)


@SETTINGS
@given(st.fixed_dictionaries({}, optional={
    "version": st.sampled_from(["http://ipuz.org/v1", "http://ipuz.org/v2", "x"]) | JSON_VALUES,
    "kind": st.just(["http://ipuz.org/crossword#1"]) | JSON_VALUES,
    "dimensions": st.fixed_dictionaries({"width": st.integers(-1, 5), "height": st.integers(-1, 5)}) | JSON_VALUES,
    "puzzle": st.lists(st.lists(JSON_VALUES, max_size=5), max_size=5) | JSON_VALUES,
    "block": JSON_VALUES, "empty": JSON_VALUES, "solution": JSON_VALUES, "clues": JSON_VALUES,
}), st.booleans())
def test_any_ipuz_data_gives_a_problem_or_a_clean_error(data, jsonp):
    text = ipuz.write(data, jsonp=jsonp)
    _problem_or_clean_error(lambda: from_spec(spec_from_bytes(text.encode(), source_name="f.ipuz")))


@SETTINGS
@given(st.text(alphabet="#_.AB1:~ \n", max_size=200), st.sampled_from(["", "Title: t\n\n\n", "## Grid\n"]))
def test_any_xd_text_gives_a_problem_or_a_clean_error(text, head):
    _problem_or_clean_error(lambda: from_spec(spec_from_bytes((head + text).encode(), source_name="f.xd")))


@pytest.mark.parametrize("path", [IPUZ, XD, NYT_JSON], ids=lambda p: p.name)
def test_sniff_tells_the_text_formats(path):
    from core.sniff import Sniffed, sniff

    assert sniff(path.read_text()) == Sniffed("crossword", KNOWN[path][0])


@pytest.mark.parametrize("path", list(KNOWN), ids=lambda p: p.name)
def test_kind_crossword_on_a_file_without_suffix_reads_its_format(path):
    spec = spec_from_bytes(path.read_bytes(), source_name="download", kind="crossword")
    assert spec["format"] == KNOWN[path][0] and from_spec(spec).puzzle == load(str(path)).puzzle
