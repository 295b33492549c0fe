"""Sudoku grids, Latin squares and sudoku hypercubes.

Vocabulary:

* the **side** ``N`` is the number of symbols, and the length of every line;
* a grid has ``dims`` dimensions of side ``N`` (2 for sudoku and Latin squares, ``n`` for
  a hypercube); a **cell** is numbered in reading order: layer, row, column;
* a **group** is a set of ``N`` cells that holds every symbol once: every line along
  every axis, and every **box** (a 2D sudoku's ``rows x cols`` box, a hypercube's
  sub-cube of side ``k``); Latin squares have no boxes;
* the **symbols** are single characters, ``_`` (or ``.``) marks an empty cell.

Each problem is a :class:`~core.reduction.TileReduction` (tiles = cells, values =
symbols, rule: a cell's symbol leaves its peers) and compiles to an exact cover with the
same option ids: option ``k`` = choice ``k`` = one symbol in one free cell.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

from . import data
from .errors import ProblemError
from .toml_input import key_line, load_toml, value_first_line
from .exact_cover import ExactCover
from .catalog import LibraryEntry, register_kind, register_pattern, register_problem
from .problem import Problem
from .reduction import TileReduction, choices_exact_cover
from .search import Path

BLANKS = frozenset("_.")


def default_symbols(side: int) -> str:
    """The symbol set of an ``N``-symbol grid: 1-9 up to 9; 0-9A-F up to 16 (the seed's
    16x16); A-Z up to 26 (25x25 uses A-Y); 0-9A-Z up to 36."""
    if side <= 9:
        return "123456789"[:side]
    if side <= 16:
        return "0123456789ABCDEF"[:side]
    if side <= 26:
        return "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:side]
    if side <= 36:
        return "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:side]
    raise ProblemError(f"a grid of side {side} needs its own symbols = \"...\" (one character each)")


def symbols_text(symbols: str) -> str:
    """A symbol set as a short description (``1-9``, ``0-9A-F``)."""
    runs, i = [], 0
    while i < len(symbols):
        j = i
        while j + 1 < len(symbols) and ord(symbols[j + 1]) == ord(symbols[j]) + 1:
            j += 1
        runs.append(symbols[i] if j == i else f"{symbols[i]}-{symbols[j]}" if j > i + 1 else symbols[i : j + 1])
        i = j + 1
    return "".join(runs)


# ---------------------------------------------------------------------- geometry
@dataclass(frozen=True)
class Geometry:
    """The cells and groups of a grid: ``dims`` axes of ``side``; ``box`` the box's extent
    along each axis (reading order), or ``None`` for a Latin grid."""

    side: int
    dims: int = 2
    box: tuple[int, ...] | None = None

    @property
    def n_cells(self) -> int:
        return self.side**self.dims

    def coords(self, cell: int) -> tuple[int, ...]:
        out = []
        for _ in range(self.dims):
            cell, c = divmod(cell, self.side)
            out.append(c)
        return tuple(reversed(out))

    def cell(self, coords: Sequence[int]) -> int:
        i = 0
        for c in coords:
            i = i * self.side + c
        return i

    def _axis_name(self, axis: int) -> str:
        names = {2: ("row", "column"), 3: ("layer", "row", "column")}.get(self.dims)
        return names[axis] if names else f"axis {axis + 1}"

    @cached_property
    def groups(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """``(name, cells)`` of every group: lines along each axis, then boxes."""
        out = []
        N, d = self.side, self.dims
        for axis in range(d):  # lines along `axis`: every other coordinate fixed
            rest = [a for a in range(d) if a != axis]
            for k in range(N ** (d - 1)):
                fixed = []
                for _ in rest:
                    k, c = divmod(k, N)
                    fixed.append(c)
                fixed.reverse()
                cells = []
                for v in range(N):
                    co = [0] * d
                    for a, c in zip(rest, fixed):
                        co[a] = c
                    co[axis] = v
                    cells.append(self.cell(co))
                out.append((self._line_name(axis, rest, fixed), tuple(cells)))
        if self.box is not None:
            per_axis = [N // b for b in self.box]
            n_boxes = math.prod(per_axis)
            for b in range(n_boxes):
                origin, k = [], b
                for a in reversed(range(d)):
                    k, c = divmod(k, per_axis[a])
                    origin.append(c * self.box[a])
                origin.reverse()
                cells = []
                for off in range(N):
                    co, k = [], off
                    for a in reversed(range(d)):
                        k, c = divmod(k, self.box[a])
                        co.append(origin[a] + c)
                    co.reverse()
                    cells.append(self.cell(co))
                name = f"box {b + 1}" if d == 2 else "sub-cube at " + ",".join(str(c + 1) for c in origin)
                out.append((name, tuple(sorted(cells))))
        return tuple(out)

    def _line_name(self, axis: int, rest: list[int], fixed: list[int]) -> str:
        if self.dims == 2:
            return f"row {fixed[0] + 1}" if axis == 1 else f"column {fixed[0] + 1}"
        where = ", ".join(f"{self._axis_name(a)} {c + 1}" for a, c in zip(rest, fixed))
        return f"the line along the {self._axis_name(axis)}s at {where}"

    @cached_property
    def groups_of(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the indices of its groups."""
        out: list[list[int]] = [[] for _ in range(self.n_cells)]
        for g, (_, cells) in enumerate(self.groups):
            for c in cells:
                out[c].append(g)
        return tuple(tuple(x) for x in out)

    @cached_property
    def peers(self) -> tuple[tuple[int, ...], ...]:
        """For each cell, the other cells sharing a group with it (sorted)."""
        out = []
        for c in range(self.n_cells):
            ps = set()
            for g in self.groups_of[c]:
                ps.update(self.groups[g][1])
            ps.discard(c)
            out.append(tuple(sorted(ps)))
        return tuple(out)

    def cell_name(self, cell: int) -> str:
        co = self.coords(cell)
        if self.dims == 2:
            return f"r{co[0] + 1}c{co[1] + 1}"
        return "p" + ".".join(str(c + 1) for c in co)


def default_box(side: int) -> tuple[int, int] | None:
    """``k x k`` for a square side, else the squarest ``rows x cols`` (rows < cols)."""
    r = math.isqrt(side)
    if r * r == side:
        return (r, r)
    for rows in range(r, 1, -1):
        if side % rows == 0:
            return (rows, side // rows)
    return None


def integer_root(x: int, n: int) -> int | None:
    """``k`` with ``k**n == x``, or None."""
    k = round(x ** (1 / n))
    for c in (k - 1, k, k + 1):
        if c >= 1 and c**n == x:
            return c
    return None


# ---------------------------------------------------------------------- reading grids
@dataclass
class ParsedGrid:
    """A grid read from text: side, dimensions, and per cell a symbol index (-1 empty)
    with the line and column it came from."""

    side: int
    dims: int
    cells: list[int]
    where: list[tuple[int, int]]


def parse_grid(
    text: str,
    *,
    source: str | None,
    first_line: int = 1,
    symbols: str | None = None,
    side: int | None = None,
) -> ParsedGrid:
    """Read a grid: one row a line (symbols separated by spaces, or written together),
    or the whole grid on one line (N*N symbols, row after row: the usual way to pass a
    sudoku around), ``_``/``.`` empty; a cube's layers (any grid of more than 2 dimensions: its
    ``N**(dims-2)`` square slices, in reading order) separated by blank lines.  ``|``
    and lines of only ``-+|`` are ignored (box rulers)."""
    blocks: list[list[tuple[int, list[str]]]] = [[]]
    for i, raw in enumerate(text.splitlines()):
        line = raw.split("#", 1)[0].strip() if "#" in raw and (symbols is None or "#" not in symbols) else raw.strip()
        lineno = first_line + i
        if not line:
            if blocks[-1]:
                blocks.append([])
            continue
        if set(line) <= set("-+|= "):
            continue
        tokens = [t for t in line.split() if t != "|"]
        if len(tokens) == 1 and len(tokens[0]) > 1:
            tokens = list(tokens[0])
        blocks[-1].append((lineno, tokens))
    if not blocks[-1]:
        blocks.pop()
    if not blocks:
        raise ProblemError("the grid is empty", source=source, line=first_line)
    if len(blocks) == 1 and len(blocks[0]) == 1:  # one line of N*N symbols: the rows in a row
        lineno, tokens = blocks[0][0]
        n = math.isqrt(len(tokens))
        if n > 1 and n * n == len(tokens):
            blocks[0] = [(lineno, tokens[r * n:(r + 1) * n]) for r in range(n)]
    width = len(blocks[0][0][1])
    if side is not None and width != side:
        raise ProblemError(f"the grid's rows have {width} entries, expected {side}", source=source,
                           line=blocks[0][0][0])
    N = width
    for block in blocks:
        for lineno, tokens in block:
            if len(tokens) != N:
                raise ProblemError(f"this row has {len(tokens)} entries, expected {N}", source=source, line=lineno)
            for t in tokens:
                if len(t) != 1:
                    raise ProblemError(f"{t!r} is not a single symbol", source=source, line=lineno)
    for b, block in enumerate(blocks):
        if len(block) != N:
            what = "the grid" if len(blocks) == 1 else f"layer {b + 1}"
            raise ProblemError(f"{what} has {len(block)} rows, expected {N} (a row has {N} entries)",
                               source=source, line=block[-1][0])
    if len(blocks) == 1:
        dims = 2
    else:
        dims, n = 2, 1
        while n < len(blocks):
            n *= N
            dims += 1
        if n != len(blocks):
            raise ProblemError(
                f"{len(blocks)} layers of {N}x{N}: a grid of more than 2 dimensions has {N}, {N}**2, ... layers",
                source=source, line=blocks[-1][-1][0])
    syms = symbols or default_symbols(N)
    if len(syms) != N:
        raise ProblemError(f"{len(syms)} symbols for a grid of side {N}", source=source)
    index = {c: i for i, c in enumerate(syms)}
    if not any(c.islower() for c in syms):
        index.update({c.lower(): i for i, c in enumerate(syms) if c.isalpha()})
    cells, where = [], []
    for block in blocks:
        for lineno, tokens in block:
            for col, t in enumerate(tokens):
                where.append((lineno, col + 1))
                if t in BLANKS:
                    cells.append(-1)
                elif t in index:
                    cells.append(index[t])
                else:
                    raise ProblemError(f"symbol {t!r} is not one of {symbols_text(syms)} (or _ for empty)",
                                       source=source, line=lineno)
    return ParsedGrid(N, dims, cells, where)


# ---------------------------------------------------------------------- the model
class GridReduction(TileReduction):
    """A grid as a tile reduction: tiles = cells, values = symbols, a symbol leaves peers."""

    def __init__(self, geom: Geometry, symbols: str, givens: dict[int, int]):
        self.geom = geom
        super().__init__(range(geom.n_cells), symbols, None, {c: symbols[s] for c, s in givens.items()})

    def index_rules(self, t: int, s: int) -> list[tuple[int, int]]:
        m = ((1 << self.n_values) - 1) & ~(1 << s)
        return [(p, m) for p in self.geom.peers[t]]


class SudokuProblem(Problem):
    """A sudoku grid (any box shape), a Latin square, or a sudoku hypercube."""

    kind = "sudoku"
    #: the exact-cover kernel (default), the reference, or the tile-reduction search
    engines = ("kernel", "reference", "reduction")
    TOML_KEYS = {"kind", "name", "grid", "k", "n", "box", "size", "symbols"}

    def __init__(self, spec: dict[str, Any]):
        super().__init__(spec)
        self.source = spec.get("source_name")
        self.latin = spec.get("kind") == "latin"
        self.kind = "latin" if self.latin else "sudoku"
        fmt = spec.get("format", "text")
        if fmt == "toml":
            self._from_toml(spec["text"])
        elif fmt == "text":
            self._setup(parse_grid(spec["text"], source=self.source), None, None, None)
        else:
            raise ProblemError(f"a {self.kind} problem is a TOML or a text file, not {fmt!r}", source=self.source)

    # -- reading -------------------------------------------------------------------
    def _from_toml(self, text: str) -> None:
        src = self.source
        data = load_toml(text, src)
        for key in data:
            if key not in self.TOML_KEYS or (self.latin and key in ("k", "n", "box")):
                raise ProblemError(f"unknown key {key!r} for kind {self.kind}", source=src,
                                   line=key_line(text, key))

        def get_int(key: str, lo: int) -> int | None:
            v = data.get(key)
            if v is None:
                return None
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ProblemError(f"{key} must be an integer >= {lo}", source=src, line=key_line(text, key))
            return v

        k, n, size = get_int("k", 1), get_int("n", 2), get_int("size", 1)
        symbols = data.get("symbols")
        if symbols is not None and (not isinstance(symbols, str) or len(set(symbols)) != len(symbols)
                                    or any(c.isspace() or c in BLANKS for c in symbols)):
            raise ProblemError("symbols must be a string of distinct characters (not space, _ or .)",
                               source=src, line=key_line(text, "symbols"))
        box = data.get("box")
        if box is not None and (not isinstance(box, list) or len(box) != 2
                                or not all(isinstance(b, int) and b >= 1 for b in box)):
            raise ProblemError("box must be [rows, columns]", source=src, line=key_line(text, "box"))
        if k is not None:
            ksize = k ** (n or 2)
            if size is not None and size != ksize:
                raise ProblemError(f"size = {size} disagrees with k = {k}, n = {n or 2} (side {ksize})",
                                   source=src, line=key_line(text, "size"))
            size = ksize
        elif n is not None and n != 2:
            raise ProblemError("a hypercube needs k (its sub-cube side) beside n", source=src, line=key_line(text, "n"))
        if size is None and symbols is not None:
            size = len(symbols)
        grid = data.get("grid")
        if grid is not None:
            if not isinstance(grid, str):
                raise ProblemError('grid must be a string (grid = """ ... """)', source=src, line=key_line(text, "grid"))
            parsed = parse_grid(grid, source=src, first_line=value_first_line(text, "grid") or 1, symbols=symbols,
                                side=size)
            if n is not None and parsed.dims != n:
                raise ProblemError(f"the grid has {parsed.dims} dimensions but n = {n}", source=src,
                                   line=key_line(text, "n"))
        else:
            if size is None:
                raise ProblemError("give a grid, or a size (or k and n) for an empty grid", source=src)
            dims = n or 2
            if size ** dims > 1_000_000:
                raise ProblemError(f"a grid of {size}**{dims} cells is too large", source=src)
            parsed = ParsedGrid(size, dims, [-1] * size**dims, [(0, 0)] * size**dims)
            if symbols is None:
                default_symbols(size)  # fails clearly above 36
        self._setup(parsed, k, tuple(box) if box else None, symbols, text)

    def _setup(self, parsed: ParsedGrid, k: int | None, box: tuple[int, int] | None, symbols: str | None,
               toml_text: str | None = None) -> None:
        src, N, dims = self.source, parsed.side, parsed.dims
        boxline = key_line(toml_text, "box") if toml_text else None
        if self.latin:
            if dims != 2:
                raise ProblemError("a Latin square has 2 dimensions", source=src)
            geom_box = None
        elif dims == 2 and k is None:
            if box is not None:
                if box[0] * box[1] != N:
                    raise ProblemError(f"box {box[0]}x{box[1]} does not hold {N} cells", source=src, line=boxline)
                geom_box = box
            else:
                geom_box = default_box(N)
                if geom_box is None and N > 1:
                    raise ProblemError(f"a {N}x{N} grid has no boxes: give box = [rows, columns] or use kind = \"latin\"",
                                       source=src)
                geom_box = geom_box or (1, 1)
        else:
            if box is not None:
                raise ProblemError("box is for 2D grids; a hypercube's sub-cubes have side k", source=src, line=boxline)
            kk = integer_root(N, dims)
            if kk is None or (k is not None and kk != k):
                raise ProblemError(f"a hypercube with {dims} dimensions has side k**{dims}; {N} is not", source=src)
            geom_box = (kk,) * dims
        self.geom = Geometry(N, dims, geom_box)
        self.symbols = symbols or default_symbols(N)
        self.givens = {c: s for c, s in enumerate(parsed.cells) if s >= 0}
        self.where = parsed.where
        self._check_givens()

    def _check_givens(self) -> None:
        for name, cells in self.geom.groups:
            seen: dict[int, int] = {}
            for c in cells:
                s = self.givens.get(c)
                if s is None:
                    continue
                if s in seen:
                    a, b = sorted((seen[s], c), key=lambda x: self.where[x])
                    (la, ca), (lb, cb) = self.where[a], self.where[b]
                    raise ProblemError(
                        f"symbol {self.symbols[s]} is given twice in {name} (line {la} column {ca} and "
                        f"line {lb} column {cb})", source=self.source, line=lb)
                seen[s] = c

    # -- searching -------------------------------------------------------------------
    @cached_property
    def reduction(self) -> GridReduction:
        return GridReduction(self.geom, self.symbols, self.givens)

    def exact_cover(self) -> ExactCover:
        return self._ec

    @cached_property
    def _ec(self) -> ExactCover:
        g, red = self.geom, self.reduction
        names = [gname for gname, _ in g.groups]
        syms = self.symbols
        return choices_exact_cover(
            red,
            lambda t, s: [(f"{names[gi]}:{syms[s]}", None) for gi in g.groups_of[t]],
            tile_name=g.cell_name,
            label=lambda t, s: f"{g.cell_name(t)}={syms[s]}",
        )

    # -- solutions -------------------------------------------------------------------
    def grid(self, solution: Path) -> list[int]:
        """Symbol index per cell (-1 where the path leaves a cell empty)."""
        out = [-1] * self.geom.n_cells
        for t, s in self.reduction.assignment_indices(solution).items():
            out[t] = s
        return out

    def is_solution(self, solution: Path) -> bool:
        return is_complete_grid(self.geom, self.grid(solution), self.givens)

    def render_text(self, solution: Path) -> str:
        return grid_text(self.geom, self.symbols, self.grid(solution))

    def render_svg(self, solution: Path) -> str | None:
        if self.geom.dims != 2:
            return None
        return grid_svg(self.geom, self.symbols, self.grid(solution), self.givens)

    def describe(self) -> str:
        g = self.geom
        shape = "x".join([str(g.side)] * g.dims)
        what = ("Latin square" if self.latin else "sudoku" if g.dims == 2 else "sudoku hypercube")
        box = "" if g.box is None or g.dims != 2 else f", {g.box[0]}x{g.box[1]} boxes"
        return f"{what} {shape}{box}, {len(self.givens)} givens, symbols {symbols_text(self.symbols)}"


# ---------------------------------------------------------------------- checking & pictures
def is_complete_grid(geom: Geometry, cells: Sequence[int], givens: dict[int, int] | None = None) -> bool:
    """Independent check: every cell filled, givens kept, every group holds every symbol once."""
    if len(cells) != geom.n_cells or any(not 0 <= s < geom.side for s in cells):
        return False
    if givens and any(cells[c] != s for c, s in givens.items()):
        return False
    return all(len({cells[c] for c in group}) == geom.side for _, group in geom.groups)


def grid_text(geom: Geometry, symbols: str, cells: Sequence[int]) -> str:
    """Rows of symbols separated by spaces; layers separated by blank lines."""
    N = geom.side
    rows = [" ".join("_" if s < 0 else symbols[s] for s in cells[i : i + N]) for i in range(0, len(cells), N)]
    out = []
    for b in range(0, len(rows), N):
        out.append("\n".join(rows[b : b + N]))
    return "\n\n".join(out)


def grid_svg(geom: Geometry, symbols: str, cells: Sequence[int], givens: dict[int, int], cell: int = 32) -> str:
    """A 2D grid as SVG: thick box borders, givens in bold."""
    N = geom.side
    size = N * cell
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size + 4}" height="{size + 4}" '
        f'viewBox="-2 -2 {size + 4} {size + 4}" font-family="sans-serif">',
        f'<rect x="0" y="0" width="{size}" height="{size}" fill="white"/>',
    ]
    br, bc = geom.box if geom.box is not None else (N, N)
    for i in range(N + 1):
        w = 2.5 if geom.box is not None and i % br == 0 or i in (0, N) else 0.6
        parts.append(f'<line x1="0" y1="{i * cell}" x2="{size}" y2="{i * cell}" stroke="black" stroke-width="{w}"/>')
        w = 2.5 if geom.box is not None and i % bc == 0 or i in (0, N) else 0.6
        parts.append(f'<line x1="{i * cell}" y1="0" x2="{i * cell}" y2="{size}" stroke="black" stroke-width="{w}"/>')
    for c, s in enumerate(cells):
        if s < 0:
            continue
        r, col = divmod(c, N)
        weight = "bold" if c in givens else "normal"
        fill = "black" if c in givens else "#1f5fbf"
        parts.append(
            f'<text x="{col * cell + cell / 2}" y="{r * cell + cell * 0.7}" font-size="{cell * 0.6:.0f}" '
            f'text-anchor="middle" font-weight="{weight}" fill="{fill}">{symbols[s]}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def load_sudoku(spec: dict[str, Any]) -> SudokuProblem:
    return SudokuProblem(spec)


register_kind("sudoku", load_sudoku)
register_kind("latin", load_sudoku)


# ---------------------------------------------------------------------- named problems
def _file_spec(kind: str, filename: str) -> dict[str, Any]:
    fmt = "toml" if filename.endswith(".toml") else "text"
    return {"kind": kind, "format": fmt, "text": data.read_text(filename), "source_name": filename}


register_problem(LibraryEntry("sudoku-9x9-seed", "the seed's 9x9 sudoku (unique solution)",
                              _file_spec("sudoku", "sudoku-9x9-seed.txt"), known={"solutions": 1}))
register_problem(LibraryEntry("sudoku-16x16-seed", "the seed's 16x16 sudoku, symbols 0-9A-F (unique solution)",
                              _file_spec("sudoku", "sudoku-16x16-seed.txt"), known={"solutions": 1}))
register_problem(LibraryEntry("sudoku-cube-k2n3-seed", "the seed's 8x8x8 sudoku cube (k=2, n=3), 91 givens",
                              _file_spec("sudoku", "sudoku-cube-k2n3-seed.txt"), known={"solutions": 904_192}))
register_problem(LibraryEntry("sudoku-4x4", "every completed 4x4 sudoku grid",
                              _file_spec("sudoku", "sudoku-4x4.toml"), known={"solutions": 288}))
register_problem(LibraryEntry("sudoku-6x6", "every completed 6x6 sudoku grid with 2x3 boxes",
                              _file_spec("sudoku", "sudoku-6x6.toml"), known={"solutions": 28_200_960}))
register_problem(LibraryEntry("latin-5", "every Latin square of order 5",
                              _file_spec("latin", "latin-5.toml"), known={"solutions": 161_280}))

_LATIN = re.compile(r"^latin-(\d+)$")
#: the largest order ``latin-N`` names
MAX_LATIN = 36


def _latin_pattern(name: str) -> dict[str, Any] | None:
    """The spec of ``latin-N``; a name of the family past its limits is an error that
    states them."""
    m = _LATIN.match(name)
    if not m:
        return None
    n = int(m.group(1))
    if not 1 <= n <= MAX_LATIN:
        raise ProblemError(f"N at {'least 1' if n < 1 else f'most {MAX_LATIN}'}", source=name)
    return {"kind": "latin", "format": "toml", "text": f'kind = "latin"\nsize = {n}\n', "source_name": name}


register_pattern("latin-N", f"every Latin square of order N (1 <= N <= {MAX_LATIN})", _latin_pattern)
