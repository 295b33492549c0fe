"""Polyform problems: pieces on a board, read from TOML or tile-puzzle text, compiled to
an exact cover with up-front pruning, a region rule and symmetry.

Compilation, in the order of :meth:`PolyformProblem.exact_cover`'s items:

* fill goal: board cells (primary, in :attr:`Board.order`), then one item per piece kind
  with a count (primary, multiplicity ``(lo, hi)``); pieces with ``count = "any"`` have no
  item, their options are just cells;
* pack goal: the piece items (primary), then the cells (secondary: may stay empty).

One option per placement (kind, orientation, position), except those that wall off a
region of free cells that no combination of the other pieces can fill (fill goal) or
that leave less usable room than the pieces still need (pack goal).

Designs measured and dropped (2026-11-26, the project's 2-core x86_64 machine):

* the region rule on plain fills (every piece exactly once, or cells only): MRV already
  branches on the cell of a walled-off region that no live option covers, so the rule
  prunes almost nothing there (the 6x10 pentomino box: 2.00 M nodes with it, 2.03 M
  without) and the kernel's bitset path is twice as fast without its flood fill (1.5 s
  against 2.7 s).  It stays for fills with piece counts (ranges, ``"any"``);
* branching on the first empty cell (the seeds' order, ``heuristic="first"``) instead of
  MRV: on the DLX files of bench/, without the memo, the 6x10 takes 2.1 s (25.8 M nodes)
  against 1.2 s (3.6 M), the Soma cube 0.047 s against 0.040 s.  Before the kernel's
  plain-cover path the gap was wider (the 6x10's 9,356 solutions 27.4 s against 8.3 s,
  its distinct count 19.7 s against 2.0 s, the 8x8 less its centre 6.3 s against
  0.76 s).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Iterator

from .. import data
from ..errors import ProblemError
from ..toml_input import key_line, load_toml, value_first_line
from ..exact_cover import ExactCover
from ..catalog import LibraryEntry, register_kind, register_pattern, register_problem
from ..engines import SearchHints
from ..kernel import MAX_KERNEL_BYTES, kernel_bytes
from ..problem import Problem
from ..pruning import RegionRule
from ..search import Path
from ..symmetry import OptionSymmetry
from . import render
from .board import Board
from .lattice import LATTICE_NAMES, SQUARE, lattice
from .lattice_boards import PIECE_OFF, PIECE_ON, SHAPES, parse_drawing, toml_board
from .lattice_placing import lattice_placements
from .placing import place
from .render import SYMBOL_POOL
from .sets import named_set
from .shapes import Cell, Form, Shape, parse_matrix

KIND = "polyform"


@dataclass
class PieceKind:
    """One kind of piece: a shape, how it may turn, and how many copies."""

    name: str
    shape: Shape
    mirror: bool = True
    rotate: bool = True
    lo: int = 1
    #: at most this many copies; None = unlimited ("any")
    hi: int | None = 1
    line: int | None = None
    forms: tuple[Form, ...] = ()
    symbol: str = "?"

    @property
    def size(self) -> int:
        return self.shape.size

    @property
    def count(self) -> tuple[int, int | None]:
        return (self.lo, self.hi)

    def count_text(self) -> str:
        if self.hi is None:
            return "any" if self.lo == 0 else f"{self.lo}+"
        return str(self.lo) if self.lo == self.hi else f"{self.lo}..{self.hi}"


@dataclass(frozen=True)
class Placement:
    """A piece on the board: its kind's name and the cells it covers."""

    piece: str
    cells: frozenset[Cell]
    symbol: str = "?"


@dataclass
class Solution:
    """One solution as placements, printable as a board."""

    problem: "PolyformProblem"
    path: Path
    placements: list[Placement] = field(default_factory=list)

    def __str__(self) -> str:
        return self.problem.render_text(self.path)

    def svg(self) -> str:
        return self.problem.render_svg(self.path)


# ====================================================================== parsing
_TOP_KEYS = {"kind", "goal", "board", "size", "pieces", "name", "title", "description", "known", "lattice",
             *SHAPES}
_PIECE_KEYS = {"set", "only", "name", "shape", "count", "mirror", "rotate"}


def _table_lines(text: str) -> list[int]:
    """1-based lines of each ``[[pieces]]`` header."""
    pat = re.compile(r"^\s*\[\[\s*pieces\s*\]\]")
    return [i + 1 for i, line in enumerate(text.splitlines()) if pat.match(line)]


def _parse_count(value: Any, where: str) -> tuple[int, int | None]:
    if isinstance(value, bool):
        raise ProblemError(f"{where}: count must be an integer, [min, max] or \"any\"")
    if isinstance(value, int):
        if value < 0:
            raise ProblemError(f"{where}: count must not be negative")
        return value, value
    if isinstance(value, str) and value.strip().lower() == "any":
        return 0, None
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        lo, hi = value
        if not 0 <= lo <= hi:
            raise ProblemError(f"{where}: count range [{lo}, {hi}] needs 0 <= min <= max")
        return lo, hi
    raise ProblemError(f"{where}: count must be an integer, [min, max] or \"any\", not {value!r}")


def _flag(entry: dict, key: str, default: bool, where: str) -> bool:
    v = entry.get(key, default)
    if not isinstance(v, bool):
        raise ProblemError(f"{where}: {key} must be true or false, not {v!r}")
    return v


def parse_toml(text: str, source: str | None = None) -> tuple[str, Board, list[PieceKind], dict]:
    """(goal, board, pieces, extra) from a TOML problem file."""
    data = load_toml(text, source)
    for key in data:
        if key not in _TOP_KEYS:
            raise ProblemError(
                f"unknown key {key!r} (known: {', '.join(sorted(_TOP_KEYS))})", source=source, line=key_line(text, key)
            )
    if data.get("kind", KIND) != KIND:
        raise ProblemError(f"kind = {data.get('kind')!r}, expected {KIND!r}", source=source, line=key_line(text, "kind"))
    goal = data.get("goal", "fill")
    if goal not in ("fill", "pack"):
        raise ProblemError(f"goal must be \"fill\" or \"pack\", not {goal!r}", source=source, line=key_line(text, "goal"))
    grid = data.get("lattice", SQUARE)
    if grid not in LATTICE_NAMES:
        raise ProblemError(f"lattice must be one of {', '.join(map(repr, LATTICE_NAMES))}, not {grid!r}", source=source,
                           line=key_line(text, "lattice"))
    board: Board
    shaped = [k for k in SHAPES if k in data]
    if grid != SQUARE:
        board = toml_board(grid, data, text, source)
    elif shaped:
        raise ProblemError(f"{shaped[0]} is a board of triangles or hexagons: give lattice = \"triangle\" or "
                           "\"hexagon\" (a square board takes size or board)", source=source, line=key_line(text, shaped[0]))
    elif "board" in data and "size" in data:
        raise ProblemError("give either board or size, not both", source=source, line=key_line(text, "size"))
    elif "board" in data:
        b = data["board"]
        line = key_line(text, "board")
        if not isinstance(b, str):
            raise ProblemError("board must be a string (a matrix of '-' and '#')", source=source, line=line)
        first = value_first_line(text, "board")
        try:
            board = Board.from_text(b, first_line=first)
        except ProblemError as exc:
            raise exc.located(source, line) from None
    elif "size" in data:
        s = data["size"]
        line = key_line(text, "size")
        if not (isinstance(s, list) and len(s) in (2, 3) and all(isinstance(v, int) and not isinstance(v, bool) for v in s)):
            raise ProblemError("size must be [rows, cols] or [layers, rows, cols]", source=source, line=line)
        try:
            board = Board.of_size(s)
        except ProblemError as exc:
            raise exc.located(source, line) from None
    else:
        raise ProblemError("the problem needs a board = \"\"\"...\"\"\" or a size = [rows, cols]", source=source)
    entries = data.get("pieces")
    if not isinstance(entries, list) or not entries or not all(isinstance(e, dict) for e in entries):
        raise ProblemError("the problem needs at least one [[pieces]] table", source=source, line=key_line(text, "pieces"))
    headers = _table_lines(text)
    pieces: list[PieceKind] = []
    for k, entry in enumerate(entries):
        line = headers[k] if k < len(headers) else key_line(text, "pieces")
        nxt = headers[k + 1] - 1 if k + 1 < len(headers) else None
        where = f"piece {k + 1}"
        try:
            pieces.extend(_parse_piece(entry, where, text, line, nxt, grid))
        except ProblemError as exc:
            raise exc.located(source, line) from None
    extra = {key: data[key] for key in ("name", "title", "description", "known") if key in data}
    return goal, board, pieces, extra


def _parse_piece(entry: dict, where: str, text: str, line: int | None, stop: int | None,
                 grid: str = SQUARE) -> list[PieceKind]:
    for key in entry:
        if key not in _PIECE_KEYS:
            raise ProblemError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(_PIECE_KEYS))})")
    lo, hi = _parse_count(entry.get("count", 1), where)
    if "set" in entry:
        if "shape" in entry or "name" in entry:
            raise ProblemError(f"{where}: give either set or name + shape, not both")
        name = entry["set"]
        members = named_set(name) if isinstance(name, str) else None
        if members is None:
            from .sets import set_names

            raise ProblemError(f"{where}: unknown set {name!r} (known: {', '.join(set_names())})")
        if members[0].shape.lattice != grid:
            raise ProblemError(f"{where}: set {name!r} is of the {members[0].shape.lattice} lattice, the board of the "
                               f"{grid} lattice")
        only = entry.get("only")
        if only is not None:
            if not isinstance(only, list) or not all(isinstance(o, str) for o in only):
                raise ProblemError(f"{where}: only must be a list of piece names")
            names = {m.name for m in members}
            for o in only:
                if o not in names:
                    raise ProblemError(f"{where}: set {name!r} has no piece {o!r}")
            members = [m for m in members if m.name in only]
        mirror_given = "mirror" in entry
        mirror = _flag(entry, "mirror", True, where)
        rotate = _flag(entry, "rotate", True, where)
        return [
            PieceKind(m.name, m.shape, mirror if mirror_given else m.mirror, rotate, lo, hi, line)
            for m in members
        ]
    name = entry.get("name")
    shape_text = entry.get("shape")
    if not isinstance(name, str) or not name.strip():
        raise ProblemError(f"{where}: needs set = \"...\" or a name = \"...\" and a shape")
    name = name.strip()
    if not isinstance(shape_text, str):
        raise ProblemError(f"piece {name!r}: needs a shape = \"\"\"...\"\"\" matrix ('#' = a cell of the piece)")
    first = value_first_line(text, "shape", (line or 1) - 1, stop) if line else None
    try:
        if grid != SQUARE:
            form, dim = parse_drawing(grid, shape_text, on=PIECE_ON, off=PIECE_OFF, what=f"piece {name!r}"), 2
        else:
            form, dim = parse_matrix(shape_text, what=f"piece {name!r}")
    except ProblemError as exc:
        raise ProblemError(exc.message, line=None if first is None or exc.line is None else first + exc.line) from None
    return [
        PieceKind(
            name, Shape(form, dim, grid), _flag(entry, "mirror", True, where), _flag(entry, "rotate", True, where), lo, hi, first or line
        )
    ]


def parse_text(text: str, source: str | None = None) -> tuple[str, Board, list[PieceKind], dict]:
    """The tile-puzzle seed's text: ``#`` comment lines on top, a board, a blank line,
    then tiles separated by blank lines.  Every tile once, turned and mirrored freely."""
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not s or (s.startswith("#") and set(s) - set("#-.")):
            i += 1
            continue
        break
    blocks: list[tuple[int, list[str]]] = []
    cur: list[str] = []
    start = i
    for j in range(i, len(lines)):
        s = lines[j].strip()
        if not s:
            if cur:
                blocks.append((start, cur))
                cur = []
            continue
        if not cur:
            start = j
        cur.append(s)
    if cur:
        blocks.append((start, cur))
    if not blocks:
        raise ProblemError("no board found (a matrix of '-' free and '#' blocked cells)", source=source)
    b_line, b_rows = blocks[0]
    try:
        board = Board.from_text("\n".join(b_rows), first_line=b_line + 1)
    except ProblemError as exc:
        raise exc.located(source) from None
    if len(blocks) < 2:
        raise ProblemError("no tiles after the board (separate them with a blank line)", source=source, line=b_line + 1)
    pieces = []
    for k, (t_line, rows) in enumerate(blocks[1:]):
        name = _default_name(k)
        try:
            form, dim = parse_matrix("\n".join(rows), what=f"tile {k + 1}")
        except ProblemError as exc:
            raise ProblemError(exc.message, source=source, line=t_line + 1 + (exc.line or 0)) from None
        pieces.append(PieceKind(name, Shape(form, dim), True, True, 1, 1, t_line + 1))
    return "fill", board, pieces, {}


def _default_name(k: int) -> str:
    return SYMBOL_POOL[k] if k < 52 else f"T{k + 1}"


def _add_copies(reach: int, size: int, copies: int, mask: int) -> int:
    """The areas of ``reach`` plus 0 to ``copies`` pieces of ``size``: the copies added in
    chunks of 1, 2, 4, ... and the rest, whose sums make every number up to ``copies``
    (a logarithmic number of shifts, where one per copy took minutes on a big board)."""
    chunk = 1
    while copies > 0:
        take = min(chunk, copies)
        reach = (reach | (reach << (take * size))) & mask
        copies -= take
        chunk *= 2
    return reach


# ====================================================================== the problem
class PolyformProblem(Problem):
    """Pieces on a board: fill every free cell, or pack every piece."""

    kind = KIND

    def __init__(self, spec: dict[str, Any], name: str | None = None):
        super().__init__(spec, name)
        source = spec.get("source_name") or spec.get("name")
        self.source = source
        text = spec.get("text")
        if not isinstance(text, str):
            raise ProblemError("a polyform spec needs its text", source=source)
        fmt = spec.get("format", "toml")
        if fmt == "toml":
            goal, board, pieces, extra = parse_toml(text, source)
        elif fmt == "text":
            goal, board, pieces, extra = parse_text(text, source)
        else:
            raise ProblemError(f"unknown polyform format {fmt!r} (toml, text)", source=source)
        self.goal = goal
        self.board = board
        self.extra = extra
        self.pieces = self._prepare(pieces)
        self._check_size()
        self._check_area()

    # -------------------------------------------------------------- pieces
    def _prepare(self, pieces: list[PieceKind]) -> list[PieceKind]:
        space = self.board.space
        merged: dict[frozenset, PieceKind] = {}
        names: dict[str, PieceKind] = {}
        for p in pieces:
            where = dict(source=self.source, line=p.line)
            if p.size == 0:
                raise ProblemError(f"piece {p.name!r} has no cells", **where)
            if not p.shape.connected():
                raise ProblemError(f"piece {p.name!r} is not connected (its cells must touch side to side)", **where)
            if p.shape.dim == 3 and space == 2:
                raise ProblemError(f"piece {p.name!r} is a solid (layers) but the board is flat", **where)
            if re.fullmatch(r"(l\d+)?r\d+c\d+", p.name):
                raise ProblemError(f"piece name {p.name!r} looks like a cell name; choose another", **where)
            if p.hi == 0:
                continue
            p.forms = p.shape.orientations(mirror=p.mirror, rotate=p.rotate, space=space)
            key = frozenset(p.forms)
            if key in merged:  # the same piece again: more copies of it
                q = merged[key]
                q.lo += p.lo
                q.hi = None if q.hi is None or p.hi is None else q.hi + p.hi
                continue
            if p.name in names:
                raise ProblemError(f"two different pieces are named {p.name!r}", **where)
            names[p.name] = p
            merged[key] = p
        kinds = list(merged.values())
        if not kinds:
            raise ProblemError("the problem has no pieces", source=self.source)
        used: set[str] = set()
        for p in kinds:  # a kind's own letter where it is free, F' -> f
            want = p.name[0].lower() if p.name.endswith("'") else p.name[0]
            numbered = len(p.name) > 2 and p.name[1:].isdigit()
            p.symbol = ""
            if want in SYMBOL_POOL and want not in used and not numbered:
                p.symbol = want
                used.add(want)
        for p in kinds:
            if not p.symbol:
                p.symbol = next((s for s in SYMBOL_POOL if s not in used), "?")
                used.add(p.symbol)
        return kinds

    def _check_area(self) -> None:
        cells = len(self.board.free)
        lo_area = sum(p.lo * p.size for p in self.pieces)
        unlimited = any(p.hi is None for p in self.pieces)
        hi_area = math.inf if unlimited else sum(p.hi * p.size for p in self.pieces)
        if lo_area > cells:
            raise ProblemError(
                f"the pieces cover {lo_area} cells but the board has only {cells} free cells", source=self.source
            )
        if self.goal == "fill":
            if hi_area < cells:
                raise ProblemError(
                    f"the pieces cover at most {hi_area} cells but the board has {cells} free cells to fill",
                    source=self.source,
                )
            if not (self._sums(None) >> cells) & 1:
                raise ProblemError(f"no combination of the pieces covers exactly {cells} cells", source=self.source)

    def _sums(self, minus: int | None) -> int:
        """Bitset of the areas some allowed multiset of pieces (less one copy of kind
        ``minus``) can cover, up to the board's size."""
        n = len(self.board.free)
        mask = (1 << (n + 1)) - 1
        reach = 1
        for k, p in enumerate(self.pieces):
            hi = p.hi
            if k == minus and hi is not None:
                hi -= 1
            copies = n // p.size if hi is None else min(hi, n // p.size)
            reach = _add_copies(reach, p.size, copies, mask)
        return reach

    def _check_size(self) -> None:
        """Refuse a board whose cover would not fit in memory, from the placements it
        could have (every form at every free cell), before any is built."""
        n_free = len(self.board.free)
        options = sum(len(p.forms) for p in self.pieces) * n_free
        depth = n_free // min(p.size for p in self.pieces)
        need = kernel_bytes(n_free + len(self.pieces), options, depth)
        if need > MAX_KERNEL_BYTES:
            raise ProblemError(
                f"too big to count: {n_free:,} free cells and up to {options:,} placements would need about "
                f"{need / 1e9:.1f} GB in the kernel, more than its {MAX_KERNEL_BYTES / 1e9:.1f} GB limit",
                source=self.source,
            )

    @cached_property
    def _compiled(self):
        """(exact cover, placements as (kind, cell indices), region rule, item of each
        kind): the placements in C (:func:`.placing.place`) on square and cubic boards,
        by the lattice's shifts on triangles and hexagons."""
        board = self.board
        order = board.order
        n_cells = len(order)
        fill = self.goal == "fill"
        area = sum(q.lo * q.size for q in self.pieces)
        remaining = [area - (p.size if p.lo > 0 else 0) for p in self.pieces]
        forms = [p.forms for p in self.pieces]
        index = board.index
        if lattice(board.lattice) is not None:  # triangles or hexagons: core/polyform/lattice_placing.py
            placements = [(k, tuple(sorted(index[c] for c in cells)))
                          for k, cells in lattice_placements(board, forms, fill, self._sums, remaining)]
        else:
            placements = place(board, forms, fill, self._sums, remaining)
        # items
        # filling, a piece in unlimited supply needs no item (the cells say it all);
        # packing, every piece has one, so its count (lo..hi) is kept and branched on
        piece_items = [k for k, p in enumerate(self.pieces) if p.hi is not None or not fill]
        cell_names = [board.cell_name(c) for c in order]
        piece_names = [self.pieces[k].name for k in piece_items]
        if fill:
            items = cell_names + piece_names
            n_primary = len(items)
            cell_base, piece_base = 0, n_cells
        else:
            items = piece_names + cell_names
            n_primary = len(piece_names)
            cell_base, piece_base = len(piece_names), 0
        item_of_kind = {k: piece_base + j for j, k in enumerate(piece_items)}
        options = []
        labels = []
        names = [p.name + " " for p in self.pieces]
        # (item, color 0) pairs and names looked up, not built, per placement: a third of
        # the compile of the 8x8 board's 1,432 placements was these loops in Python
        cell_pair = [(cell_base + i, 0) for i in range(n_cells)].__getitem__
        kind_pair = {k: (i, 0) for k, i in item_of_kind.items()}
        name_of = cell_names.__getitem__
        for k, cells in placements:
            pairs = list(map(cell_pair, cells))
            if k in kind_pair:
                pairs.append(kind_pair[k])
            options.append(tuple(pairs))
            labels.append(names[k] + " ".join(map(name_of, cells)))
        bounds = None
        if any(self.pieces[k].count != (1, 1) or self.pieces[k].hi is None for k in piece_items):
            bounds = [(1, 1)] * n_primary
            for k, i in item_of_kind.items():
                p = self.pieces[k]
                bounds[i] = (p.lo, p.hi if p.hi is not None else max(p.lo, 1, n_cells // p.size))
        ec = ExactCover.from_indices(items, n_primary, options, ("",), bounds, labels, source=self.source)
        region = None
        if fill:
            neighbours = tuple(tuple(index[n] for n in board.neighbours(c)) for c in order)
            rule_pieces = tuple(
                (p.size, item_of_kind.get(k, -1)) for k, p in enumerate(self.pieces)
            )
            region = RegionRule(tuple(range(n_cells)), neighbours, rule_pieces)
        return ec, placements, region, item_of_kind

    def exact_cover(self) -> ExactCover:
        return self._compiled[0]

    @cached_property
    def placements(self) -> list[tuple[int, frozenset[Cell]]]:
        """(kind index, cells) of each option of :meth:`exact_cover`, built from the
        compact placements the first time they are asked for (a count never asks)."""
        order = self.board.order
        return [(k, frozenset([order[i] for i in cells])) for k, cells in self._compiled[1]]

    @property
    def piece_items(self) -> dict[int, int]:
        """The item of each piece kind that has one (placed a bounded number of times)."""
        return self._compiled[3]

    def region_rule(self) -> RegionRule | None:
        return self._compiled[2]

    # -------------------------------------------------------------- solving
    #: measured against "first" on pentomino-6x10 (see the module docstring)
    default_heuristic = "mrv"

    def search_hints(self) -> SearchHints:
        """MRV; the region rule where pieces have counts (on a plain cover MRV already
        finds the dead cells of a walled-off region, and the kernel's bitset path is
        twice as fast without the flood fill: 6x10 1.5 s against 2.7 s, the same 2.0 M
        nodes); the board for the level count's dead-cell test."""
        plain = self.exact_cover().bounds is None
        return SearchHints(self.default_heuristic, None if plain else self.region_rule(), self.region_rule())

    def symmetry(self) -> OptionSymmetry:
        """The rotations and reflections of the board that map the piece set to itself,
        acting on the items: cells to cells, piece kinds to piece kinds."""
        return self._symmetry

    @cached_property
    def _symmetry(self) -> OptionSymmetry:
        ec, _, _, item_of_kind = self._compiled
        index = self.board.index
        cell_base = 0 if self.goal == "fill" else len(item_of_kind)
        cell_items = [cell_base + index[c] for c in self.board.order]
        items = []
        for g in self.group:
            image = list(range(ec.n_items))
            for c, i in zip(g.cells(self.board.order), cell_items):
                image[i] = cell_base + index[c]
            for k, i in item_of_kind.items():
                image[i] = item_of_kind[g.kinds[k]]
            items.append(tuple(image))
        dims = "x".join(map(str, self.board.dims))
        order = len(self.group)
        return OptionSymmetry(ec, items, f"the {order} symmetr{'y' if order == 1 else 'ies'} of the {dims} board "
                              "and its pieces", self._fixed_single_pieces())

    @cached_property
    def group(self):
        """The symmetries of the problem (board and piece set), identity first."""
        from .symmetry import symmetry_group

        return symmetry_group(self.board, [frozenset(p.forms) for p in self.pieces], [p.count for p in self.pieces],
                              [p.rotate for p in self.pieces])

    def _fixed_single_pieces(self) -> dict[int, list[int]]:
        """Option ids of each kind placed exactly once and mapped to itself by G."""
        fixed = {
            k for k, p in enumerate(self.pieces)
            if p.count == (1, 1) and all(g.kinds[k] == k for g in self.group)
        }
        out: dict[int, list[int]] = {k: [] for k in fixed}
        for i, (k, _) in enumerate(self._compiled[1]):
            if k in fixed:
                out[k].append(i)
        return out

    # -------------------------------------------------------------- solutions
    def placements_of(self, solution: Path) -> list[Placement]:
        out = []
        for o in solution:
            k, cells = self.placements[o]
            p = self.pieces[k]
            out.append(Placement(p.name, cells, p.symbol))
        return out

    def is_solution(self, solution: Path) -> bool:
        """Geometric check, independent of the exact cover: free cells, no overlap, allowed
        orientations, counts within bounds, every cell covered when filling."""
        try:
            placed = [self.placements[o] for o in solution]
        except (IndexError, TypeError):
            return False
        covered: set[Cell] = set()
        counts = [0] * len(self.pieces)
        from .shapes import normalise

        grid = lattice(self.board.lattice)
        for k, cells in placed:
            if not cells <= self.board.free or cells & covered:
                return False
            if (normalise(cells) if grid is None else grid.normalise(cells)) not in self.pieces[k].forms:
                return False
            covered |= cells
            counts[k] += 1
        for k, p in enumerate(self.pieces):
            if counts[k] < p.lo or (p.hi is not None and counts[k] > p.hi):
                return False
        return self.goal == "pack" or covered == self.board.free

    def render_text(self, solution: Path) -> str:
        return render.render_text(self, solution)

    def render_svg(self, solution: Path) -> str:
        return render.render_svg(self, solution)

    def describe(self) -> str:
        n = sum(1 for _ in self.pieces)
        dims = "x".join(map(str, self.board.dims))
        return (
            f"polyform {self.goal}: {n} piece kinds on a {dims} board with {len(self.board.free)} free cells, "
            f"{self.exact_cover().n_options} placements, |G| = {len(self.group)}"
        )


# ====================================================================== Python API
def problem_from_text(text: str, *, source_name: str = "<text>", format: str | None = None) -> PolyformProblem:
    """A polyform problem from TOML or tile-puzzle text (format guessed if not given)."""
    if format is None:
        format = "toml" if re.search(r"(?m)^\s*\[\[\s*pieces\s*\]\]|^\s*(board|size)\s*=", text) else "text"
    return PolyformProblem({"kind": KIND, "format": format, "text": text, "source_name": source_name})


def solutions(problem: PolyformProblem, *, engine: str = "kernel", limit: int | None = None) -> Iterator[Solution]:
    """Every solution, lazily, as :class:`Solution` (placements; ``str()`` prints the board)."""
    solver = problem.solver(engine=engine)
    for n, path in enumerate(solver.solutions()):
        if limit is not None and n >= limit:
            return
        yield Solution(problem, path, problem.placements_of(path))


# ====================================================================== registration
def load_problem(spec: dict[str, Any]) -> PolyformProblem:
    return PolyformProblem(spec)


register_kind(KIND, load_problem, symmetric=True)

#: name, file in core/library, description, known counts
LIBRARY = [
    ("pentomino-6x10", "pentomino-6x10.toml", "the 12 pentominoes in a 6x10 rectangle", 9356, 2339),
    ("pentomino-5x12", "pentomino-5x12.toml", "the 12 pentominoes in a 5x12 rectangle", 4040, 1010),
    ("pentomino-4x15", "pentomino-4x15.toml", "the 12 pentominoes in a 4x15 rectangle", 1472, 368),
    ("pentomino-3x20", "pentomino-3x20.toml", "the 12 pentominoes in a 3x20 rectangle", 8, 2),
    ("pentomino-8x8-centre", "pentomino-8x8-centre.toml", "the 12 pentominoes in an 8x8 square less its centre 2x2", 520, 65),
    ("pentomino-seed-5x5", "pentomino-seed-5x5.toml", "the pentomino seed: L N U W Y in a 5x5 square", 8, None),
    ("bitmask-seed-5x5", "bitmask-seed-5x5.toml", "the bitmask seed: F N T V Y in a 5x5 square", 8, None),
    ("tilepuzzle-seed-hexominoes", "tilepuzzle-seed-hexominoes.txt", "the tile-puzzle seed: 13 hexominoes in a 13x13 frame", 4, 1),
    ("tilepuzzle-seed-octominoes", "tilepuzzle-seed-octominoes.txt", "the tile-puzzle seed: 9 octominoes in a 13x13 frame", 4, 1),
    ("pentomino-one-sided-3x30", "pentomino-one-sided-3x30.toml",
     "the 18 one-sided pentominoes in a 3x30 rectangle", 184, 46),
    ("pentomino-one-sided-5x18", "pentomino-one-sided-5x18.toml",
     "the 18 one-sided pentominoes in a 5x18 rectangle", 2_746_512, 686_628),
    ("pentomino-one-sided-6x15", "pentomino-one-sided-6x15.toml",
     "the 18 one-sided pentominoes in a 6x15 rectangle", 10_268_732, 2_567_183),
    ("soma", "soma.toml", "the 7 Soma pieces in a 3x3x3 cube", 11520, 240),
    ("pentacubes-3x4x5", "pentacubes-3x4x5.toml", "the 12 flat pentacubes in a 3x4x5 box", 31520, 3940),
    ("dominoes-8x8", None, "domino tilings of the 8x8 square", 12988816, None),
]


def _library_spec(file: str, name: str) -> dict[str, Any]:
    text = data.read_text(file)
    fmt = "toml" if file.endswith(".toml") else "text"
    return {"kind": KIND, "format": fmt, "text": text, "source_name": name}


def tiling_text(pieces: str, rows: int, cols: int) -> str:
    """A rectangle tiled by a named set of pieces in any number (every shape, turned and
    mirrored)."""
    return (f'kind = "polyform"\ngoal = "fill"\nsize = [{rows}, {cols}]\n\n[[pieces]]\nset = "{pieces}"\n'
            f'count = "any"\n')


def dominoes_text(rows: int, cols: int) -> str:
    return tiling_text("dominoes", rows, cols)


#: the most cells a tiling family (``dominoes-RxC``, ...) names: the 200x200 board of
#: dominoes, whose kernel tables take about 0.4 GB (see :data:`core.kernel.MAX_KERNEL_BYTES`;
#: a bigger set of pieces on a board that large is refused by that limit, with its figures)
MAX_DOMINO_CELLS = 40_000

#: the tiling families: name, the set, what the shapes are (OEIS tables of their counts in
#: docs/performance.md)
TILING_FAMILIES = {
    "dominoes": ("dominoes", "dominoes"),
    "trominoes": ("trominoes", "trominoes of both shapes (I and V)"),
    "tetrominoes": ("tetrominoes", "tetrominoes of all five shapes"),
    "pentominoes": ("pentominoes", "pentominoes of all twelve shapes"),
}


def _tiling_spec(name: str) -> dict[str, Any] | None:
    """The spec of ``dominoes-RxC``, ``trominoes-RxC``, ``tetrominoes-RxC`` or
    ``pentominoes-RxC``; a name of a family past its limits is an error that states them."""
    m = re.fullmatch(r"(dominoes|trominoes|tetrominoes|pentominoes)-(\d+)x(\d+)", name)
    if not m:
        return None
    family, r, c = m.group(1), int(m.group(2)), int(m.group(3))
    if min(r, c) < 1:
        raise ProblemError("R and C at least 1", source=name)
    if r * c > MAX_DOMINO_CELLS:
        raise ProblemError(f"R*C at most {MAX_DOMINO_CELLS:,} (here {r * c:,})", source=name)
    return {"kind": KIND, "format": "toml", "text": tiling_text(TILING_FAMILIES[family][0], r, c),
            "source_name": name}


_dominoes_spec = _tiling_spec


def _register() -> None:
    for name, file, description, total, distinct in LIBRARY:
        known = {"solutions": total}
        if distinct is not None:
            known["distinct"] = distinct
        if file is None:
            spec = _dominoes_spec(name)
        else:
            try:
                spec = _library_spec(file, name)
            except OSError:
                continue
        register_problem(LibraryEntry(name, description, spec, known))
    for family, (_, shapes) in TILING_FAMILIES.items():
        register_pattern(f"{family}-RxC", f"tilings of an R x C rectangle by {shapes} in any number "
                                          f"(R*C at most {MAX_DOMINO_CELLS:,})", _tiling_spec)


_register()
