"""Which model a problem file is written for, told from its content.

A user has a file, or text on standard input, not a kind: :func:`sniff` reads the text
and names the model and format it is in, so ``tilecensus solve puzzle.txt`` needs no
``--kind`` (which stays as an override).  What is recognised, in this order:

========================  ======================================  =================
what                      how it is told                          kind, format
========================  ======================================  =================
an HTML page              ``<!doctype html`` / ``<html`` on top   refused
TOML                      its first line (comments aside) is      the ``kind`` line
                          ``kind = ...``
a crossword as JSON       an object with ``size`` and ``grid`` or  crossword, json
                          ``gridnums``
an .ipuz crossword        JSON (or ``ipuz(...)``) whose ``kind``   crossword, ipuz
                          names ``http://ipuz.org/crossword``
an .xd crossword          ``Key: value`` headers, two blank       crossword, xd
                          lines, equally long grid rows with a
                          ``#``; or ``## Grid`` headings
the tile-puzzle text      blocks of rows of ``#`` ``-`` ``.``      polyform, text
                          (a board, then tiles), with a ``-``
a crossword as text       optional ``key = value`` lines, then    crossword, text
                          rows of ``#`` ``.`` and letters, a
                          ``#`` among them
a sudoku grid             read by :func:`core.sudoku.parse_grid`  sudoku, text
                          (rows, or one line of N*N symbols)
a roads grid              equally long rows of the road tiles     roads, text
                          ``U D L R E`` and ``_``
a DLX file                an items line, then option lines that   exact-cover, dlx
                          mostly name those items
========================  ======================================  =================

An Across Lite ``.puz`` file is binary: :func:`core.library.spec_from_bytes` tells it by
its magic string before any text is decoded.  Anything else is "not a problem file" — rather than the DLX or grid parse error a
wrong guess would give.  A file whose content is recognised but wrong (a DLX option
naming an unknown item) gets its model's own error, with the line.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .errors import ProblemError

#: what :func:`sniff` tells a user it looked for, when the text is none of them
RECOGNISED = ("TOML with a kind line, the tile-puzzle text, a crossword (JSON, .ipuz, .xd, .puz or text), "
              "a sudoku grid, a roads grid, a DLX file")

_KEY_LINE = re.compile(r"^\s*[A-Za-z_][A-Za-z0-9_]*\s*=")
_CROSSWORD_ROW = re.compile(r"^[#.A-Za-z]+$")
_XD_HEADER = re.compile(r"^[A-Za-z][A-Za-z0-9 _-]*:")
_XD_HEADING = re.compile(r"^\s*##\s+grid\s*$", re.IGNORECASE)
_IPUZ_KIND = "http://ipuz.org/"


@dataclass(frozen=True)
class Sniffed:
    """The model a text is written for (None for TOML: its ``kind`` line says) and its format."""

    kind: str | None
    format: str


def sniff(text: str, source: str | None = None) -> Sniffed:
    """The kind and format of a problem's text, or :class:`ProblemError` ("not a problem
    file: ...") when it is none of the formats above."""
    lines = [line.strip() for line in text.splitlines()]
    content = [line for line in lines if line]
    if not content:
        raise ProblemError("not a problem file: it is empty", source=source)
    head = text.lstrip()[:2000].lower()
    if head.startswith(("<!doctype html", "<html")) or "<html" in head or "<body" in head:
        raise ProblemError("not a problem file: an HTML page (a web page saved instead of the file itself?)",
                           source=source)
    if is_toml_with_kind(text):
        return Sniffed(None, "toml")
    if content[0].startswith(("{", "[", "ipuz(")):
        return _json_kind(text, source)
    if _is_xd(lines):
        return Sniffed("crossword", "xd")
    for test, found in ((_is_tile_puzzle, Sniffed("polyform", "text")),
                        (_is_crossword_text, Sniffed("crossword", "text")),
                        (_is_sudoku_grid, Sniffed("sudoku", "text")),
                        (_is_roads_grid, Sniffed("roads", "text")),
                        (_is_dlx, Sniffed("exact-cover", "dlx"))):
        if test(lines):
            return found
    raise ProblemError(f"not a problem file: none of {RECOGNISED} (--kind K reads it as the model K)",
                       source=source)


def is_toml_with_kind(text: str) -> bool:
    """Whether the first line, comments and blank lines aside, is ``kind = ...``."""
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        return s.startswith("kind") and "=" in s
    return False


def _json_kind(text: str, source: str | None) -> Sniffed:
    body = text.strip()
    wrapped = body.startswith("ipuz(") and body.endswith(")")
    try:
        data = json.loads(body[5:-1] if wrapped else body)
    except json.JSONDecodeError as exc:
        raise ProblemError(f"not a problem file: it starts like JSON but is not ({exc.msg})", source=source,
                           line=exc.lineno) from None
    kinds = data.get("kind") if isinstance(data, dict) else None
    if wrapped or (isinstance(kinds, list) and any(isinstance(k, str) and k.startswith(_IPUZ_KIND) for k in kinds)):
        return Sniffed("crossword", "ipuz")  # (an ipuz file of another kind: the reader says so)
    if isinstance(data, dict) and "size" in data and ("grid" in data or "gridnums" in data):
        return Sniffed("crossword", "json")
    raise ProblemError("not a problem file: JSON, but not a crossword (an object with size and grid or "
                       "gridnums)", source=source)


def _is_xd(lines: list[str]) -> bool:
    """An .xd crossword: a ``## Grid`` heading; or ``Key: value`` header lines, two or
    more blank lines, then equally long rows without spaces, a ``#`` among them."""
    if any(_XD_HEADING.match(line) for line in lines):
        return True
    sections: list[list[str]] = [[]]
    blank = 0
    for line in lines:
        if not line:
            blank += 1
            continue
        if blank >= 2 and sections[-1]:
            sections.append([])
        blank = 0
        sections[-1].append(line)
    if len(sections) < 2:
        return False
    headers, grid = sections[0], sections[1]
    return (all(_XD_HEADER.match(h) for h in headers) and len({len(r) for r in grid}) == 1
            and not any(" " in r for r in grid) and any("#" in r for r in grid))


def _blocks(lines: list[str]) -> list[list[str]]:
    """Runs of non-blank lines."""
    blocks: list[list[str]] = [[]]
    for line in lines:
        if line:
            blocks[-1].append(line)
        elif blocks[-1]:
            blocks.append([])
    return [b for b in blocks if b]


def _is_tile_puzzle(lines: list[str]) -> bool:
    """A board and at least one tile: rows of ``#-.`` (comment lines on top aside)."""
    rows = [line for line in lines if not (line.startswith("#") and set(line) - set("#-."))]
    blocks = _blocks(rows)
    cells = "".join(rows)
    return len(blocks) >= 2 and set(cells) <= set("#-.") and "-" in cells


def _is_crossword_text(lines: list[str]) -> bool:
    """``key = value`` lines, then equally long rows of ``#``, ``.`` and letters."""
    content = [line for line in lines if line]
    keys = 0
    while keys < len(content) and _KEY_LINE.match(content[keys]):
        keys += 1
    rows = content[keys:]
    return (bool(rows) and all(_CROSSWORD_ROW.match(r) for r in rows) and len({len(r) for r in rows}) == 1
            and any("#" in r for r in rows))


def _is_sudoku_grid(lines: list[str]) -> bool:
    """A grid the sudoku reader takes, of side 4 or more."""
    from .sudoku import parse_grid

    try:
        grid = parse_grid("\n".join(lines), source=None)
    except ProblemError:
        return False
    return grid.side >= 4


def _is_roads_grid(lines: list[str]) -> bool:
    """Equally long rows of road tile letters and ``_`` (spaces between them or not)."""
    rows = [line.replace(" ", "") for line in lines if line]
    return (bool(rows) and all(set(r) <= set("UDLRE_") for r in rows) and len({len(r) for r in rows}) == 1)


def _is_dlx(lines: list[str]) -> bool:
    """An items line, then option lines most of whose names are on it."""
    content = [line for line in lines if line and not line.startswith("|")]
    if len(content) < 2:
        return False
    items = {token.rsplit("|", 1)[-1] for token in content[0].split() if token != "|"}
    names = [token.split(":", 1)[0] for line in content[1:] for token in line.split()]
    return bool(names) and 2 * sum(name in items for name in names) > len(names)
