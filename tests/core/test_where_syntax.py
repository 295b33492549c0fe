"""The ``--where`` language: every text is a query or one clean error, queries print
back to themselves, and atoms stand for the placements they name."""
from __future__ import annotations

import pytest
from hypothesis import given, strategies as st

from core.library import load
from core.where_options import Uses, resolve
from core.where_syntax import (KEYWORDS, And, CellIn, ItemCovered, Not, OptionLike, Or, PieceAt, PieceTouches,
                               WhereError, parse_all, parse_where)

WORDS = st.sampled_from(["X", "I", "F'", "and", "or", "not", "in", "touches", "option", "item", "@", "{", "}",
                         "(", ")", ",", "3", "12", "r1c2", "l0r1c2", '"', '"a b"', " ", "\t", "é", "*"])


@given(st.one_of(st.text(max_size=60), st.lists(WORDS, max_size=25).map("".join),
                 st.lists(WORDS, max_size=25).map(" ".join)))
def test_every_text_is_a_query_or_one_clean_line(text):
    try:
        query = parse_where(text)
    except WhereError as exc:
        assert "\n" not in str(exc) and str(exc).startswith("--where ")
    else:
        assert parse_where(str(query)) == query


NAMES = st.one_of(st.sampled_from(["X", "I", "F'", "Y'", "1", "r1c1", "and", "a b"]),
                  st.text(st.characters(blacklist_characters='"', blacklist_categories=("Cs",)), min_size=1,
                          max_size=4).filter(lambda s: s.strip() == s and s.strip()))
CELLS = st.lists(st.integers(0, 30), min_size=2, max_size=3).map(tuple)
TEXTS = st.text(st.characters(blacklist_characters='"', blacklist_categories=("Cs",)), max_size=8)
ATOMS = st.one_of(st.builds(PieceAt, NAMES, CELLS), st.builds(PieceTouches, NAMES, CELLS),
                  st.builds(CellIn, CELLS, st.lists(NAMES, min_size=1, max_size=3).map(tuple)),
                  st.builds(OptionLike, TEXTS), st.builds(ItemCovered, TEXTS))


def _trees(children):
    pairs = st.lists(children, min_size=2, max_size=3)
    return st.one_of(st.builds(Not, children),
                     pairs.filter(lambda ps: not any(isinstance(p, And) for p in ps)).map(lambda ps: And(tuple(ps))),
                     pairs.filter(lambda ps: not any(isinstance(p, Or) for p in ps)).map(lambda ps: Or(tuple(ps))))


@given(st.recursive(ATOMS, _trees, max_leaves=8))
def test_a_query_prints_as_text_that_parses_back_to_it(query):
    assert parse_where(str(query)) == query


def test_the_forms_of_a_cell_and_the_precedence():
    assert parse_where("X@1,2") == parse_where("X @ r1c2") == PieceAt("X", (1, 2))
    assert parse_where("X@l1r2c3") == PieceAt("X", (1, 2, 3))
    assert parse_where("a@0,0 or b@0,0 and not c@0,0") == Or((PieceAt("a", (0, 0)), And(
        (PieceAt("b", (0, 0)), Not(PieceAt("c", (0, 0)))))))
    assert parse_where('3,4 IN {X, "and"}') == CellIn((3, 4), ("X", "and"))
    assert parse_all(["X@0,0", "I@1,1"]) == And((PieceAt("X", (0, 0)), PieceAt("I", (1, 1))))
    assert {w.lower() for w in KEYWORDS} == KEYWORDS


@pytest.mark.parametrize("text, column", [("", 1), ("X@", 3), ("X@1", 4), ("X 1,1", 3), ("1,1 in {X", 10),
                                          ("(X@1,1", 7), ("X@1,1 Y@2,2", 7), ('option "ab', 8), ("not", 4)])
def test_a_parse_error_names_its_column(text, column):
    with pytest.raises(WhereError, match=rf"\(column {column}\)$"):
        parse_where(text)


def test_atoms_stand_for_the_placements_they_name():
    """The atoms' laws on the 6x10 board: ``P touches c`` is ``P@n`` over c's neighbours,
    ``c in {P,Q}`` is ``P@c`` or ``Q@c``, and every placement of X covers five cells."""
    p = load("pentomino-6x10")
    at = lambda piece, cell: resolve(p, parse_where(f"{piece}@{cell}")).options  # noqa: E731
    assert at("X", "0,0") == frozenset()  # a corner: no X covers it
    assert resolve(p, parse_where("2,2 in {X,I}")).options == at("X", "2,2") | at("I", "2,2")
    assert resolve(p, parse_where("X touches 2,2")).options == at("X", "1,2") | at("X", "3,2") | at("X", "2,1") | at(
        "X", "2,3")
    assert resolve(p, parse_where("I touches 0,0")).options == at("I", "0,1") | at("I", "1,0")
    every_x = resolve(p, parse_where('option "X *"')).options
    cells = [f"{y},{x}" for y in range(6) for x in range(10)]
    assert sum(len(at("X", c)) for c in cells) == 5 * len(every_x) > 0


@pytest.mark.parametrize("name, text, message", [
    ("pentomino-6x10", "Q@1,1", "no piece 'Q' in this problem"),
    ("pentomino-6x10", "X@6,0", "r6c0 is not a free cell of the 6x10 board"),
    ("pentomino-6x10", "X@0,0,0", "a cell of this 6x10 board is row,col"),
    ("soma", "V@1,1", "a cell of this 3x3x3 box is layer,row,col"),
    ("sudoku-4x4", "X@1,1", "pieces and cells are for polyform problems"),
    ("sudoku-4x4", "item r9c9", "no item 'r9c9'"),
])
def test_what_the_problem_has_not_is_one_clean_line(name, text, message):
    with pytest.raises(WhereError, match=message):
        resolve(load(name), parse_where(text))


def test_option_text_and_items_serve_every_exact_cover():
    s = load("sudoku-4x4")
    assert len(resolve(s, parse_where('option "r1c1=*"')).options) == 4
    assert resolve(s, parse_where("item r1c1")).options == resolve(s, parse_where('option "r1c1=?"')).options
