"""Knuth's DLX format: parsing, writing, round trips, one-line errors, the problem kind."""
from __future__ import annotations

import os
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.dlx_format import ExactCoverProblem, format_dlx, parse_dlx
from core.errors import ProblemError
from core.exact_cover import ExactCover
from core.library import load, spec_from_text
from core.library import from_spec

sys.path.insert(0, os.path.dirname(__file__))
import problems  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

KNUTH_DLX2 = """\
| Knuth's example of DLX2 (TAOCP 7.2.2.1 (49))
p q r | x y
p q x y:A
p r x:A y
p x:B
q x:A
r y:B
"""


# ---------------------------------------------------------------------------- reading
def test_reads_items_options_and_colors():
    ec = parse_dlx(KNUTH_DLX2, source="ex.dlx")
    assert ec.items == ("p", "q", "r", "x", "y")
    assert ec.n_primary == 3
    assert ec.colors == ("", "A", "B")
    assert ec.options[0] == ((0, 0), (1, 0), (3, 0), (4, 1))
    assert ec.options[2] == ((0, 0), (3, 2))
    assert ec.bounds is None
    assert ec.labels == ("p q x y:A", "p r x:A y", "p x:B", "q x:A", "r y:B")
    assert ec.is_solution([1, 3])
    assert not ec.is_solution([2, 3])


def test_comments_blank_lines_and_line_endings():
    text = "\r\n  | comment first\r\n\r\n a  b \t| c\r\n| comment\r\n   \t \r\n  a c  \r\nb\r"
    ec = parse_dlx(text)
    assert ec.items == ("a", "b", "c")
    assert ec.n_primary == 2
    assert ec.options == (((0, 0), (2, 0)), ((1, 0),))
    assert ec.labels == ("a c", "b")


def test_secondary_part_is_optional():
    assert parse_dlx("a b\na b\n").n_primary == 2
    assert parse_dlx("a b |\na b\n").n_primary == 2


def test_multiplicities():
    ec = parse_dlx("2:3|a 2|b c 0:1|d | x\na\nb c\nd x\n")
    assert ec.bounds == ((2, 3), (2, 2), (1, 1), (0, 1))
    assert ec.primary == ("a", "b", "c", "d")
    assert parse_dlx("1:1|a 1|b\na b\n").bounds is None


def test_unicode_names():
    ec = parse_dlx("é ☃ | ключ\né ключ:зелёный\n☃\n")
    assert ec.items == ("é", "☃", "ключ")
    assert ec.colors == ("", "зелёный")


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    "text, line, fragment",
    [
        ("", None, "no items line"),
        ("| only\n  \n| comments\n", None, "no items line"),
        ("a b\na c\n", 2, "unknown item 'c'"),
        ("a b\n\n| c\nb a b\n", 4, "item 'b' appears twice"),
        ("a b | x\nx:red a\nb:blue\n", 3, "primary item 'b' has a color"),
        ("a b a\n", 1, "item 'a' is declared twice"),
        ("a | x a\n", 1, "item 'a' is declared twice"),
        ("a | x y x\n", 1, "item 'x' is declared twice"),
        ("x:2|a\n", 1, "bad multiplicity 'x:2'"),
        ("3:2|a\n", 1, "bad multiplicity 3:2"),
        ("0|a\n", 1, "bad multiplicity 0:0"),
        ("1:2:3|a\n", 1, "bad multiplicity '1:2:3'"),
        ("|1|a\n", None, "no items line"),
        ("b |1|a\n", 1, "bad multiplicity ''"),
        ("a b|c\n", 1, "bad multiplicity 'b'"),
        ("a | 1:2|x\n", 1, "secondary item '1:2|x' has a multiplicity"),
        ("2|\n", 1, "empty item name"),
        ("a | b | c\n", 1, "more than one '|'"),
        ("a:b c\n", 1, "contains ':'"),
        ("a | x:y\n", 1, "contains ':'"),
        ("| c\na b\n\na b|\n", 4, "contains '|'"),
        ("a | x\na x:\n", 2, "empty color name"),
        ("a | x\na x:r:g\n", 2, "color name 'r:g' contains ':'"),
        ("a\n:\n", 2, "empty item name"),
        ("| x\n", None, "no items line"),
        ("a\r\nb\r\n", 2, "unknown item 'b'"),
        ("a\rb\r", 2, "unknown item 'b'"),
    ],
)
def test_validation_errors(text, line, fragment):
    with pytest.raises(ProblemError) as info:
        parse_dlx(text, source="bad.dlx")
    err = info.value
    assert err.source == "bad.dlx"
    assert err.line == line
    assert fragment in str(err)
    where = "bad.dlx:" + (f"{line}:" if line else "")
    assert str(err).startswith(where)
    assert len(str(err).splitlines()) == 1


def test_not_text():
    with pytest.raises(ProblemError, match="must be a string"):
        parse_dlx(b"a\na\n", source="x")  # type: ignore[arg-type]


def test_long_names_are_cut_short_in_messages():
    name = "z" * 10_000
    with pytest.raises(ProblemError) as info:
        parse_dlx(f"a\n{name}\n", source="s")
    assert len(str(info.value)) < 200


# ---------------------------------------------------------------------------- arbitrary text
TOKENS = st.sampled_from(
    ["|", ":", "a", "b", "x", "y", "1|a", "2:3|b", "0:0|c", "a:red", "x:red", "y:", ":z",
     "a|b", "||", "é", "\u2028", "\x85", "\x00", "99999999999999999999|a", "٣|a", "²|a"]
)
SEPARATORS = st.sampled_from([" ", "  ", "\t", "\n", "\r\n", "\r", "\n| c\n", "\x0c", "\u3000"])


@st.composite
def token_soup(draw):
    parts = draw(st.lists(st.tuples(TOKENS, SEPARATORS), max_size=30))
    return "".join(t + s for t, s in parts)


@settings(max_examples=600, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.text(max_size=200), token_soup()))
def test_arbitrary_text_gives_exact_cover_or_one_line_problem_error(text):
    try:
        ec = parse_dlx(text, source="prop.dlx")
    except ProblemError as err:
        message = str(err)
        assert "prop.dlx" in message
        assert len(message.splitlines()) == 1 and "\n" not in message
        return
    assert isinstance(ec, ExactCover)
    assert ec.n_primary >= 1 and ec.labels is not None and len(ec.labels) == ec.n_options
    assert parse_dlx(format_dlx(ec)) == ec


# ---------------------------------------------------------------------------- round trips
NAME_CHARS = st.characters(
    blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc"), blacklist_characters=":|\x1c\x1d\x1e\x1f\x85"
)
NAMES = st.text(NAME_CHARS, min_size=1, max_size=4)


@st.composite
def exact_covers(draw):
    names = draw(st.lists(NAMES, min_size=1, max_size=8, unique=True))
    n_primary = draw(st.integers(1, len(names)))
    primary, secondary = names[:n_primary], names[n_primary:]
    colors = draw(st.lists(NAMES, min_size=1, max_size=3, unique=True))
    options = []
    for _ in range(draw(st.integers(0, 8))):
        chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=len(names), unique=True))
        option = []
        for name in chosen:
            if name in secondary and draw(st.booleans()):
                option.append((name, draw(st.sampled_from(colors))))
            else:
                option.append(name)
        options.append(option)
    bounds = {}
    for name in primary:
        if draw(st.booleans()):
            lo = draw(st.integers(0, 3))
            bounds[name] = (lo, draw(st.integers(max(lo, 1), 4)))
    return ExactCover.build(primary, secondary, options, bounds=bounds)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(exact_covers())
def test_round_trip(ec):
    text = format_dlx(ec)
    again = parse_dlx(text)
    assert again == ec
    assert format_dlx(again) == text
    assert again.labels == tuple(ec.option_text(k) for k in range(ec.n_options))


def test_round_trip_of_text_keeps_meaning():
    ec = parse_dlx(KNUTH_DLX2)
    assert format_dlx(ec) == "\n".join(KNUTH_DLX2.splitlines()[1:]) + "\n"
    assert parse_dlx(format_dlx(ec, comments=["one", "two\nthree"])) == ec
    assert format_dlx(ec, comments=["one"]).startswith("| one\np q r | x y\n")


def test_format_writes_multiplicities():
    ec = ExactCover.build(["a", "b", "c"], ["x"], [["a", "x"], ["b"], ["c"]], bounds={"a": (0, 2), "c": (3, 3)})
    assert format_dlx(ec).splitlines()[0] == "0:2|a b 3:3|c | x"
    assert parse_dlx(format_dlx(ec)) == ec


@pytest.mark.parametrize(
    "ec, fragment",
    [
        (ExactCover.build(["a b"], [], [["a b"]]), "cannot be written"),
        (ExactCover.build(["a"], ["x"], [["a", ("x", "r g")]]), "color 'r g'"),
        (ExactCover.build([], ["x"], [["x"]]), "no primary items"),
        (ExactCover.from_indices(["a", "a"], 2, [[(0, 0)]]), "appears twice"),
    ],
)
def test_format_errors(ec, fragment):
    with pytest.raises(ProblemError, match=fragment):
        format_dlx(ec)


# ---------------------------------------------------------------------------- the problem kind
def test_kind_exact_cover_from_spec():
    spec = {"kind": "exact-cover", "format": "dlx", "text": KNUTH_DLX2, "source_name": "knuth.dlx"}
    problem = from_spec(spec)
    assert isinstance(problem, ExactCoverProblem)
    assert problem.kind == "exact-cover"
    assert problem.exact_cover() == parse_dlx(KNUTH_DLX2)
    assert problem.render_text((3, 1)) == "q x:A\np r x:A y"
    assert problem.is_solution((1, 3)) and not problem.is_solution((0,))
    assert problem.describe() == "exact cover: 3 primary + 2 secondary items, 5 options, 2 colors"
    with pytest.raises(ProblemError, match="outside"):
        problem.render_text((7,))


def test_kind_errors_name_the_source_and_line():
    spec = spec_from_text("a b\na c\n", source_name="mine.dlx")
    with pytest.raises(ProblemError) as info:
        from_spec(spec)
    assert str(info.value) == "mine.dlx:2: unknown item 'c' (not on the items line)"
    with pytest.raises(ProblemError, match="DLX format, not 'toml'"):
        from_spec({"kind": "exact-cover", "format": "toml", "text": "", "source_name": "t.toml"})
    with pytest.raises(ProblemError, match="no DLX text"):
        from_spec({"kind": "exact-cover", "format": "dlx", "source_name": "t.dlx"})


def test_load_a_dlx_file(tmp_path):
    path = tmp_path / "q.dlx"
    path.write_text(problems.queens_dlx(4), encoding="utf-8")
    problem = load(str(path))
    assert isinstance(problem, ExactCoverProblem)
    assert problem.spec["format"] == "dlx"
    assert problem.exact_cover().n_options == 16
    txt = tmp_path / "q.txt"
    txt.write_text("a b\na\nb\n", encoding="utf-8")
    assert load(str(txt)).exact_cover().n_options == 2


# ---------------------------------------------------------------------------- examples
@pytest.mark.parametrize(
    "filename, name",
    [("queens8.dlx", "queens8"), ("langford7.dlx", "langford7"), ("pentomino-6x10.dlx", "pentominoes6x10")],
)
def test_examples_match_their_generators(filename, name):
    with open(os.path.join(ROOT, "examples", filename), encoding="utf-8") as fh:
        text = fh.read()
    assert parse_dlx(text, source=filename) == parse_dlx(problems.generate(name))
