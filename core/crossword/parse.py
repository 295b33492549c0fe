"""Reading crossword problems: TOML puzzle files, plain grid text, the common JSON layout.

Every reader returns a :class:`Puzzle`; bad input raises :class:`ProblemError` naming the
source.  The formats:

* TOML: ``kind = "crossword"``, ``rows``, ``cols``, ``clues = "ZDD..."`` (or ``across`` and
  ``down`` lists; omit both to count every legal grid), ``symmetry``, ``start``,
  ``min_word``, ``checked``, ``connected``, ``no_black_lines``; or ``grid = \"\"\"...\"\"\"``
  (rows of ``#`` and ``.``) whose clue string is rebuilt.
* plain text: optional ``key = value`` lines (the TOML keys), then the grid rows.
* JSON: ``size.rows``, ``size.cols``, a flat ``grid`` (``"."`` for black) and/or a flat
  ``gridnums`` list (0 for an unnumbered square), optionally ``clues.across`` /
  ``clues.down`` lists of ``"12. text"`` (the layout of the public NYT archives).
* the files crosswords are published in: Across Lite ``.puz`` (binary; its spec's text is
  base64), ``.ipuz`` and ``.xd`` (``puz_file``, ``ipuz_file``, ``xd_file``).  Like a grid
  given in TOML, the file's grid is the puzzle's ``given`` grid, its clue string and its
  strongest symmetry are derived, and it must keep the default rules.
"""
from __future__ import annotations

import json
import re
import tomllib
from typing import Any

from ..errors import ProblemError
from ..toml_input import load_toml
from . import symmetry as sym
from . import ipuz_file, puz_file, xd_file
from .grid import Grid
from .puzzle import Puzzle
from .rules import Rules, violation

TOML_KEYS = {
    "kind", "name", "description", "rows", "cols", "clues", "across", "down", "symmetry", "start",
    "min_word", "checked", "connected", "no_black_lines", "grid", "expected",
}
RULE_KEYS = ("min_word", "checked", "connected", "no_black_lines")


def puzzle_from_spec(spec: dict[str, Any]) -> Puzzle:
    """The puzzle of a spec ``{"kind": "crossword", "format", "text", "source_name"}``."""
    text = spec.get("text")
    source = spec.get("source_name")
    if not isinstance(text, str):
        raise ProblemError("a crossword spec needs its text", source=source)
    fmt = spec.get("format", "toml")
    if fmt in FILE_READERS:
        return from_file_grid(FILE_READERS[fmt](text, source), source)
    if fmt == "json" or (fmt != "toml" and text.lstrip().startswith("{")):
        return from_json(text, source)
    if fmt == "toml":
        return from_toml(text, source)
    return from_grid_text(text, source)


def _puz_grid(text: str, source: str | None) -> Grid:
    return puz_file.read_grid(puz_file.spec_bytes(text, source), source)


#: format -> the grid of a published crossword file's spec text
FILE_READERS = {"puz": _puz_grid, "ipuz": ipuz_file.read_grid, "xd": xd_file.read_grid}


def from_file_grid(grid: Grid, source: str | None = None) -> Puzzle:
    """The puzzle of rebuilding the grid of a published file: the default rules, the
    grid's strongest symmetry, its clue string and number 1's square."""
    return from_grid(grid, Rules(), {}, source)


def from_toml(text: str, source: str | None = None) -> Puzzle:
    return from_mapping(load_toml(text, source), source)


def from_mapping(data: dict[str, Any], source: str | None = None) -> Puzzle:
    """A puzzle from the TOML keys (already parsed)."""
    unknown = sorted(set(data) - TOML_KEYS)
    if unknown:
        raise ProblemError(f"unknown key {unknown[0]!r} in a crossword file (known: {', '.join(sorted(TOML_KEYS))})",
                           source=source)
    rules = Rules.build({k: data[k] for k in RULE_KEYS if k in data}, source)
    grid_text = data.get("grid")
    if grid_text is not None:
        if not isinstance(grid_text, str):
            raise ProblemError("grid must be a string of rows of '#' and '.'", source=source)
        return from_grid(Grid.from_text(grid_text, source), rules, data, source)
    if "rows" not in data or "cols" not in data:
        raise ProblemError("a crossword needs rows and cols (or a grid)", source=source)
    return Puzzle.build(
        data["rows"], data["cols"], rules=rules, symmetry=data.get("symmetry", "none"),
        clues=data.get("clues"), across=data.get("across"), down=data.get("down"),
        start=data.get("start"), source=source,
    )


def from_grid(grid: Grid, rules: Rules, data: dict[str, Any], source: str | None = None) -> Puzzle:
    """The puzzle of rebuilding a given grid: its clue string and size (number 1's square
    only where ``start`` is given, and then it must be the grid's).  The symmetry defaults to the strongest one the grid has; the grid must keep the rules
    and the symmetry, else it could not be rebuilt."""
    for key in ("rows", "cols"):
        want = grid.rows if key == "rows" else grid.cols
        if key in data and data[key] != want:
            raise ProblemError(f"{key} = {data[key]!r} but the grid has {want}", source=source)
    bad = violation(grid, rules)
    if bad:
        raise ProblemError(f"the given grid breaks a rule: {bad}", source=source)
    kind = data.get("symmetry", "auto")
    if isinstance(kind, str) and kind.strip().lower() == "auto":
        kind = sym.strongest(grid.black, grid.rows, grid.cols)
    kind = sym.canonical(kind, source)
    if not sym.has_symmetry(grid.black, grid.rows, grid.cols, kind):
        raise ProblemError(f"the given grid does not have {kind} symmetry", source=source)
    clues = grid.clue_string()
    if "clues" in data and data["clues"] is not None:
        from .puzzle import check_clues

        if check_clues(data["clues"], source) != clues:
            raise ProblemError(f"clues = {data['clues']!r} but the grid numbers as {clues!r}", source=source)
    # no start unless the file names one: the clue string alone fixes the grids (a given
    # start would hide the grids whose number 1 sits elsewhere, and the search no longer
    # needs it for speed: the published grids are rebuilt within a second without it)
    start = data.get("start")
    if start is not None and start != grid.first_square():
        raise ProblemError(f"start = {start!r} but the grid's number 1 is at square {grid.first_square()}",
                           source=source)
    return Puzzle.build(grid.rows, grid.cols, rules=rules, symmetry=kind, clues=clues, start=start,
                        given=grid, source=source)


def from_grid_text(text: str, source: str | None = None) -> Puzzle:
    """Optional ``key = value`` lines (TOML keys), then rows of ``#`` and ``.``."""
    header: list[str] = []
    lines = text.splitlines()
    first = 0
    for i, line in enumerate(lines):
        s = line.strip()
        if not s or s.startswith("//") or s.startswith(";"):
            first = i + 1
            continue
        if "=" in s:
            header.append(s)
            first = i + 1
            continue
        break
    data: dict[str, Any] = {}
    if header:
        try:
            data = tomllib.loads("\n".join(header))
        except tomllib.TOMLDecodeError as exc:
            raise ProblemError(f"bad key = value line: {exc}", source=source) from None
    data.pop("kind", None)
    unknown = sorted(set(data) - TOML_KEYS)
    if unknown:
        raise ProblemError(f"unknown key {unknown[0]!r} in a crossword grid file", source=source)
    rules = Rules.build({k: data[k] for k in RULE_KEYS if k in data}, source)
    grid = Grid.from_text("\n".join(lines[first:]), source, first_line=first + 1)
    return from_grid(grid, rules, data, source)


def from_json(text: str, source: str | None = None) -> Puzzle:
    """The common JSON crossword layout (``size``, ``grid``, ``gridnums``, ``clues``)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProblemError(f"not valid JSON: {exc.msg}", source=source, line=exc.lineno) from None
    if not isinstance(data, dict) or not isinstance(data.get("size"), dict):
        raise ProblemError("a JSON crossword needs size.rows and size.cols", source=source)
    rows, cols = data["size"].get("rows"), data["size"].get("cols")
    if not isinstance(rows, int) or not isinstance(cols, int) or rows < 1 or cols < 1:
        raise ProblemError(f"size.rows and size.cols must be positive whole numbers, not {rows!r}, {cols!r}",
                           source=source)
    n = rows * cols
    opts = {k: data[k] for k in ("symmetry", *RULE_KEYS) if k in data}
    rules = Rules.build({k: opts[k] for k in RULE_KEYS if k in opts}, source)
    cells = data.get("grid")
    if cells is not None:
        if not isinstance(cells, list) or len(cells) != n:
            raise ProblemError(f"grid must be a flat list of {n} squares", source=source)
        grid = Grid(rows, cols, tuple(c == "." or c is None for c in cells))
        gridnums = data.get("gridnums")
        if isinstance(gridnums, list) and len(gridnums) == n:
            mine = [0] * n
            for num in grid.numbering():
                mine[num.row * cols + num.col] = num.number
            if [int(x or 0) for x in gridnums] != mine:
                raise ProblemError("gridnums do not match the numbers of the grid", source=source)
        return from_grid(grid, rules, opts, source)
    gridnums = data.get("gridnums")
    if not isinstance(gridnums, list) or len(gridnums) != n:
        raise ProblemError(f"a JSON crossword needs a flat grid or gridnums list of {n} squares", source=source)
    try:
        nums = [int(x or 0) for x in gridnums]
    except (TypeError, ValueError):
        raise ProblemError("gridnums must hold whole numbers", source=source) from None
    present = sorted(x for x in nums if x)
    if present != list(range(1, len(present) + 1)):
        raise ProblemError("gridnums must number squares 1, 2, 3, ... in reading order", source=source)
    if [x for x in nums if x] != present:
        raise ProblemError("gridnums are not in reading order", source=source)
    numbered = tuple(x > 0 for x in nums)
    start = nums.index(1) + 1 if present else None
    across = down = None
    clues = data.get("clues")
    if isinstance(clues, dict) and "across" in clues and "down" in clues:
        across = [_clue_number(c, source) for c in clues["across"]]
        down = [_clue_number(c, source) for c in clues["down"]]
    kind = opts.get("symmetry", "none")
    puzzle = Puzzle.build(rows, cols, rules=rules, symmetry=kind, across=across, down=down,
                          start=start, numbered=numbered, source=source)
    if puzzle.clues is not None and len(puzzle.clues) != len(present):
        raise ProblemError(f"the clue lists have {len(puzzle.clues)} numbers, gridnums {len(present)}",
                           source=source)
    return puzzle


def _clue_number(clue: object, source: str | None) -> int:
    m = re.match(r"\s*(\d+)", str(clue))
    if not m:
        raise ProblemError(f"a clue without a leading number: {clue!r}", source=source)
    return int(m.group(1))
