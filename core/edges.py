"""Edge matching: road tiles (seed 002) and general Wang / Carcassonne-like tile sets.

Vocabulary:

* a **tile** (of the set) has a **label** on each of its four sides, listed clockwise
  from the top: ``up right down left``; with ``rotate`` its quarter turns are tiles too
  (named ``A@0 .. A@3``, turns that look the same kept once);
* a **cell** of the grid holds one tile; a **given** cell's tile is known (``_`` marks an
  unknown cell);
* two neighbouring cells **match** on their shared side when the labels are equal (or
  form a declared pair, for jigsaw-like ``in``/``out`` sides); a **border** side is free,
  or must carry one given label.

The grid is a :class:`~core.reduction.TileReduction` (tiles = cells, values = oriented
tiles, rule: a neighbour must match the shared side) and compiles to an exact cover with
the same option ids: one primary item per unknown cell, one secondary item per side
shared by two unknown cells, colored by the label that side carries.  Tile counts (at
most ``n`` copies of a tile) become primary items with multiplicity ``0..n`` — only the
exact-cover engines handle those.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Sequence

from . import data
from .errors import ProblemError
from .toml_input import key_line, load_toml, table_key_line, value_first_line
from .exact_cover import ExactCover
from .catalog import LibraryEntry, register_kind, register_problem
from .problem import Problem
from .reduction import TileReduction, choices_exact_cover
from .search import Path

UP, RIGHT, DOWN, LEFT = range(4)
DIRS = ((-1, 0), (0, 1), (1, 0), (0, -1))  # (drow, dcol) of the neighbour on each side
OPPOSITE = (DOWN, LEFT, UP, RIGHT)
NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")


@dataclass(frozen=True)
class OrientedTile:
    """A tile of the set in one orientation: ``sides`` = labels up, right, down, left."""

    name: str
    base: str
    turns: int
    sides: tuple[str, str, str, str]


def rotated(sides: Sequence[str], turns: int) -> tuple[str, str, str, str]:
    """The labels after ``turns`` quarter turns clockwise (the left side comes to the top)."""
    return tuple(sides[(i - turns) % 4] for i in range(4))  # type: ignore[return-value]


class EdgeReduction(TileReduction):
    """The grid as a tile reduction, with the compatibility masks precomputed."""

    def __init__(self, model: "EdgesProblem", fixed: dict[int, int], domains: dict[int, int]):
        self.model = model
        m = model
        super().__init__(range(m.rows * m.cols), [t.name for t in m.tiles])
        self.fixed = dict(fixed)
        self.restrict = dict(domains)
        n = len(m.tiles)
        self._compat = [
            [sum(1 << w for w in range(n) if m.matches(m.tiles[v].sides[d], m.tiles[w].sides[OPPOSITE[d]]))
             for d in range(4)]
            for v in range(n)
        ]

    def index_rules(self, t: int, s: int) -> list[tuple[int, int]]:
        m = self.model
        r, c = divmod(t, m.cols)
        out = []
        for d, (dr, dc) in enumerate(DIRS):
            rr, cc = r + dr, c + dc
            if 0 <= rr < m.rows and 0 <= cc < m.cols:
                out.append((rr * m.cols + cc, self._compat[s][d]))
        return out


class EdgesProblem(Problem):
    """An edge-matching grid: a tile set, known and unknown cells, matching sides."""

    kind = "edges"
    TOML_KEYS = {"kind", "name", "grid", "size", "rotate", "border", "tiles", "counts", "match"}

    def __init__(self, spec: dict[str, Any]):
        super().__init__(spec)
        self.source = spec.get("source_name")
        fmt = spec.get("format", "text")
        if fmt == "toml":
            self._from_toml(spec["text"])
        elif fmt == "text":
            self._text_format(spec["text"])
        else:
            raise ProblemError(f"a {self.kind} problem is a TOML file, not {fmt!r}", source=self.source)
        self._build()

    # -- reading ---------------------------------------------------------------------
    def _text_format(self, text: str) -> None:
        raise ProblemError('an edges problem is a TOML file (kind = "edges", [tiles], grid)', source=self.source)

    def _from_toml(self, text: str) -> None:
        src = self.source
        data = load_toml(text, src)
        for key in data:
            if key not in self.TOML_KEYS:
                raise ProblemError(f"unknown key {key!r} for kind {self.kind}", source=src, line=key_line(text, key))
        self.rotate = data.get("rotate", False)
        if not isinstance(self.rotate, bool):
            raise ProblemError("rotate must be true or false", source=src, line=key_line(text, "rotate"))
        border = data.get("border", "free")
        if not isinstance(border, str) or not border:
            raise ProblemError('border must be "free" or a label', source=src, line=key_line(text, "border"))
        self.border = None if border == "free" else border
        tiles = data.get("tiles")
        if not isinstance(tiles, dict) or not tiles:
            raise ProblemError('give the tile set: a [tiles] table of name = "up right down left"', source=src)
        base: list[tuple[str, tuple[str, str, str, str]]] = []
        for name, labels in tiles.items():
            line = table_key_line(text, "tiles", name)
            if not NAME.match(name):
                raise ProblemError(f"tile name {name!r}: use letters, digits, - and _ (not starting with _)",
                                   source=src, line=line)
            if not isinstance(labels, str) or len(labels.split()) != 4:
                raise ProblemError(f'tile {name}: give four labels, "up right down left"', source=src, line=line)
            base.append((name, tuple(labels.split())))  # type: ignore[arg-type]
        self.base_tiles = base
        match = data.get("match", {})
        if not isinstance(match, dict):
            raise ProblemError("match must be a table of label = \"label\" pairs", source=src)
        self.partner: dict[str, str] = {}
        for a, b in match.items():
            line = table_key_line(text, "match", a)
            if not isinstance(b, str):
                raise ProblemError(f"match: {a} must pair with a label", source=src, line=line)
            for x, y in ((a, b), (b, a)):
                if self.partner.get(x, y) != y:
                    raise ProblemError(f"match: label {x} is paired twice", source=src, line=line)
                self.partner[x] = y
        counts = data.get("counts", {})
        if not isinstance(counts, dict):
            raise ProblemError("counts must be a table of tile = number", source=src)
        names = {n for n, _ in base}
        self.counts: dict[str, int] = {}
        for n, k in counts.items():
            line = table_key_line(text, "counts", n)
            if n not in names:
                raise ProblemError(f"counts: {n!r} is not a tile", source=src, line=line)
            if not isinstance(k, int) or isinstance(k, bool) or k < 0:
                raise ProblemError(f"counts: {n} must be a number >= 0", source=src, line=line)
            self.counts[n] = k
        self._expand_tiles()
        grid, size = data.get("grid"), data.get("size")
        if grid is not None:
            if not isinstance(grid, str):
                raise ProblemError('grid must be a string (grid = """ ... """)', source=src, line=key_line(text, "grid"))
            self._read_grid(grid, value_first_line(text, "grid") or 1)
            if size is not None:
                raise ProblemError("give a grid or a size, not both", source=src, line=key_line(text, "size"))
        elif isinstance(size, list) and len(size) == 2 and all(isinstance(x, int) and x >= 1 for x in size):
            self.rows, self.cols = size
            self.cells = [None] * (self.rows * self.cols)
            self.where = [(0, 0)] * len(self.cells)
        else:
            raise ProblemError("give a grid, or size = [rows, columns] for an empty grid", source=src)

    def _expand_tiles(self) -> None:
        tiles: list[OrientedTile] = []
        for name, sides in self.base_tiles:
            if not self.rotate:
                tiles.append(OrientedTile(name, name, 0, sides))
                continue
            seen = set()
            for q in range(4):
                sd = rotated(sides, q)
                if sd not in seen:
                    seen.add(sd)
                    tiles.append(OrientedTile(f"{name}@{q}", name, q, sd))
        self.tiles = tiles

    def _read_grid(self, text: str, first_line: int) -> None:
        src = self.source
        by_name = {t.name: i for i, t in enumerate(self.tiles)}
        by_base: dict[str, list[int]] = {}
        for i, t in enumerate(self.tiles):
            by_base.setdefault(t.base, []).append(i)
        single = all(len(t.base) == 1 for t in self.tiles) and not self.rotate
        rows, where = [], []
        for i, raw in enumerate(text.splitlines()):
            line, lineno = raw.strip(), first_line + i
            if not line or line.startswith("#"):
                continue
            tokens = line.split()
            if single and len(tokens) == 1 and len(tokens[0]) > 1:
                tokens = list(tokens[0])
            row = []
            for col, tok in enumerate(tokens):
                where.append((lineno, col + 1))
                if tok == "_":
                    row.append(None)
                elif tok in by_name:
                    row.append((by_name[tok],))
                elif self.rotate and tok in by_base:
                    row.append(tuple(by_base[tok]))
                elif self.rotate and "@" in tok and tok.split("@")[0] in by_base:
                    b, _, q = tok.partition("@")
                    if not q.isdigit():
                        raise ProblemError(f"{tok!r}: write a turned tile as NAME@TURNS", source=src, line=lineno)
                    sd = rotated(dict(self.base_tiles)[b], int(q))
                    row.append(tuple(i for i in by_base[b] if self.tiles[i].sides == sd))
                else:
                    known = ", ".join(n for n, _ in self.base_tiles)
                    raise ProblemError(f"unknown tile {tok!r} (tiles: {known}; _ for unknown)", source=src,
                                       line=lineno)
            if rows and len(row) != len(rows[0]):
                raise ProblemError(f"this row has {len(row)} cells, the first has {len(rows[0])}", source=src,
                                   line=lineno)
            rows.append(row)
        if not rows:
            raise ProblemError("the grid is empty", source=src, line=first_line)
        self.rows, self.cols = len(rows), len(rows[0])
        self.cells = [c for row in rows for c in row]
        self.where = where

    # -- the model -------------------------------------------------------------------
    def matches(self, a: str, b: str) -> bool:
        """Whether side labels ``a`` and ``b`` may meet."""
        return self.partner.get(b, b) == a

    def cell_name(self, cell: int) -> str:
        r, c = divmod(cell, self.cols)
        return f"r{r + 1}c{c + 1}"

    def _on_border(self, cell: int, d: int) -> bool:
        r, c = divmod(cell, self.cols)
        dr, dc = DIRS[d]
        return not (0 <= r + dr < self.rows and 0 <= c + dc < self.cols)

    def _border_ok(self, cell: int, v: int) -> bool:
        if self.border is None:
            return True
        return all(self.tiles[v].sides[d] == self.border for d in range(4) if self._on_border(cell, d))

    def _build(self) -> None:
        src, n = self.source, len(self.tiles)
        fixed: dict[int, int] = {}
        domains: dict[int, int] = {}
        used: dict[str, int] = {}
        for cell, given in enumerate(self.cells):
            allowed = [v for v in (given if given is not None else range(n)) if self._border_ok(cell, v)]
            if given is not None and not allowed:
                line, col = self.where[cell]
                raise ProblemError(f"the tile in column {col} does not carry the border label {self.border}",
                                   source=src, line=line)
            if given is not None and len(given) == 1:
                fixed[cell] = given[0]
                base = self.tiles[given[0]].base
                used[base] = used.get(base, 0) + 1
            else:
                domains[cell] = sum(1 << v for v in allowed)
        for a, va in fixed.items():
            for d in (RIGHT, DOWN):
                if self._on_border(a, d):
                    continue
                b = a + (1 if d == RIGHT else self.cols)
                vb = fixed.get(b)
                if vb is not None and not self.matches(self.tiles[va].sides[d], self.tiles[vb].sides[OPPOSITE[d]]):
                    (la, ca), (lb, cb) = self.where[a], self.where[b]
                    raise ProblemError(
                        f"the given tiles at line {la} column {ca} and line {lb} column {cb} do not match",
                        source=src, line=lb)
        self.remaining: dict[str, int] = {}
        for base, k in self.counts.items():
            left = k - used.get(base, 0)
            if left < 0:
                raise ProblemError(f"tile {base} is given {used[base]} times but counts allow {k}", source=src)
            if left == 0:  # none left: no unknown cell may take it
                gone = sum(1 << v for v, t in enumerate(self.tiles) if t.base == base)
                for cell in domains:
                    domains[cell] &= ~gone
            else:
                self.remaining[base] = left
        self.reduction = EdgeReduction(self, fixed, domains)

    # -- searching -------------------------------------------------------------------
    def exact_cover(self) -> ExactCover:
        return self._ec

    @cached_property
    def _ec(self) -> ExactCover:
        red, cols = self.reduction, self.cols
        fixed = red.fixed

        def items(t: int, s: int):
            sides = self.tiles[s].sides
            r, c = divmod(t, cols)
            out = []
            for d in range(4):
                if self._on_border(t, d):
                    continue
                dr, dc = DIRS[d]
                if (r + dr) * cols + (c + dc) in fixed:
                    continue  # matched at the root already
                if d in (RIGHT, DOWN):
                    name, color = f"{'h' if d == RIGHT else 'v'}{r + 1},{c + 1}", sides[d]
                else:  # the neighbour's side item, seen from this cell: the label it must meet
                    name = f"h{r + 1},{c}" if d == LEFT else f"v{r},{c + 1}"
                    color = self.partner.get(sides[d], sides[d])
                out.append((name, color))
            base = self.tiles[s].base
            if base in self.remaining:
                out.append((f"tile {base}", None))
            return out

        bounds = {f"tile {b}": (0, k) for b, k in self.remaining.items()}
        return choices_exact_cover(red, items, bounds=bounds, tile_name=self.cell_name,
                                   label=lambda t, s: f"{self.cell_name(t)}={self.tiles[s].name}")

    @property
    def engines(self) -> tuple[str, ...]:  # type: ignore[override]
        """The exact-cover kernel (default), the reference, and the tile-reduction search
        where no tile has a count (counts need an exact cover)."""
        return ("kernel", "reference") if self.remaining else ("kernel", "reference", "reduction")

    def engine_refusal(self, engine: str) -> str | None:
        if engine == "reduction" and self.remaining:
            return "tile counts need an exact-cover engine, not reduction"
        return None

    # -- solutions -------------------------------------------------------------------
    def placement(self, solution: Path) -> list[int]:
        """The oriented tile index of each cell (-1 where the path leaves it unknown)."""
        out = [-1] * (self.rows * self.cols)
        for t, s in self.reduction.assignment_indices(solution).items():
            out[t] = s
        return out

    def is_solution(self, solution: Path) -> bool:
        return is_valid_placement(self, self.placement(solution))

    def render_names(self, solution: Path) -> str:
        """The grid of tile names (the form of the seed's solutions file)."""
        p = self.placement(solution)
        names = ["_" if v < 0 else self.tiles[v].name for v in p]
        w = max(len(x) for x in names)
        return "\n".join(
            " ".join(x.ljust(w) for x in names[r * self.cols : (r + 1) * self.cols]).rstrip()
            for r in range(self.rows)
        )

    def render_text(self, solution: Path) -> str:
        return self.render_names(solution)

    def render_svg(self, solution: Path) -> str | None:
        return edges_svg(self, self.placement(solution))

    def describe(self) -> str:
        given = len(self.reduction.fixed)
        rot = ", rotations" if self.rotate else ""
        return (f"{self.kind}: {self.rows}x{self.cols} grid, {given} known cells, "
                f"{len(self.base_tiles)} tiles{rot}")


def is_valid_placement(model: EdgesProblem, placement: Sequence[int]) -> bool:
    """Independent check: every cell holds a tile, givens kept, neighbours match, the
    border carries its label, counts respected."""
    if len(placement) != model.rows * model.cols or any(not 0 <= v < len(model.tiles) for v in placement):
        return False
    for cell, given in enumerate(model.cells):
        if given is not None and placement[cell] not in given:
            return False
        if not model._border_ok(cell, placement[cell]):
            return False
    for r in range(model.rows):
        for c in range(model.cols):
            a = model.tiles[placement[r * model.cols + c]].sides
            if c + 1 < model.cols and not model.matches(a[RIGHT], model.tiles[placement[r * model.cols + c + 1]].sides[LEFT]):
                return False
            if r + 1 < model.rows and not model.matches(a[DOWN], model.tiles[placement[(r + 1) * model.cols + c]].sides[UP]):
                return False
    for base, k in model.counts.items():
        if sum(1 for v in placement if model.tiles[v].base == base) > k:
            return False
    return True


_PALETTE = ("#e6194b", "#3cb44b", "#ffe119", "#4363d8", "#f58231", "#911eb4", "#46f0f0", "#f032e6",
            "#bcf60c", "#fabebe", "#008080", "#e6beff", "#9a6324", "#fffac8", "#800000", "#aaffc3")


def edges_svg(model: EdgesProblem, placement: Sequence[int], cell: int = 48) -> str:
    """Each tile as four triangles colored by their labels, its name in the middle."""
    labels = sorted({lab for t in model.tiles for lab in t.sides})
    color = {lab: _PALETTE[i % len(_PALETTE)] for i, lab in enumerate(labels)}
    w, h = model.cols * cell, model.rows * cell
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
           'font-family="sans-serif">']
    for i, v in enumerate(placement):
        r, c = divmod(i, model.cols)
        x0, y0, x1, y1 = c * cell, r * cell, (c + 1) * cell, (r + 1) * cell
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        if v < 0:
            out.append(f'<rect x="{x0}" y="{y0}" width="{cell}" height="{cell}" fill="#ddd" stroke="black"/>')
            continue
        t = model.tiles[v]
        corners = [((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))]
        for d, ((ax, ay), (bx, by)) in enumerate(corners):
            out.append(f'<polygon points="{ax},{ay} {bx},{by} {cx},{cy}" fill="{color[t.sides[d]]}" '
                       'stroke="black" stroke-width="0.5"/>')
        out.append(f'<text x="{cx}" y="{cy + 4}" font-size="11" text-anchor="middle">{t.name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------- roads
#: the seed's road tiles: labels up right down left (1 = road, 0 = grass)
ROAD_TILES = (("U", "1 1 0 1"), ("D", "0 1 1 1"), ("L", "1 0 1 1"), ("R", "1 1 1 0"), ("E", "0 0 0 0"))
#: the seed's drawing of each road tile: 3 rows of 6 characters
ROAD_ART = {
    "U": ("..||..", "======", "......"),
    "D": ("......", "======", "..||.."),
    "L": ("..||..", "==||..", "..||.."),
    "R": ("..||..", "..||==", "..||.."),
    "E": ("......", "......", "......"),
}


class RoadsProblem(EdgesProblem):
    """The seed's road tiles U D L R E on a grid of known tiles and ``_``; free border."""

    kind = "roads"

    def _roads_setup(self) -> None:
        self.rotate, self.border, self.partner, self.counts = False, None, {}, {}
        self.base_tiles = [(n, tuple(s.split())) for n, s in ROAD_TILES]
        self._expand_tiles()

    def _text_format(self, text: str) -> None:
        self._roads_setup()
        self._read_grid(text, 1)

    def _from_toml(self, text: str) -> None:
        src = self.source
        data = load_toml(text, src)
        for key in data:
            if key not in ("kind", "name", "grid", "size"):
                raise ProblemError(f"unknown key {key!r} for kind roads (grid or size)", source=src,
                                   line=key_line(text, key))
        self._roads_setup()
        grid, size = data.get("grid"), data.get("size")
        if isinstance(grid, str):
            self._read_grid(grid, value_first_line(text, "grid") or 1)
        elif grid is None and isinstance(size, list) and len(size) == 2 and all(
                isinstance(x, int) and x >= 1 for x in size):
            self.rows, self.cols = size
            self.cells = [None] * (self.rows * self.cols)
            self.where = [(0, 0)] * len(self.cells)
        else:
            raise ProblemError('give grid = """...""" (or size = [rows, columns])', source=src)

    def render_text(self, solution: Path) -> str:
        """The seed's drawing: 3 rows of 6 characters per tile."""
        return roads_art(self, self.placement(solution))

    def render_svg(self, solution: Path) -> str | None:
        return roads_svg(self, self.placement(solution))


def roads_art(model: EdgesProblem, placement: Sequence[int]) -> str:
    lines = []
    for r in range(model.rows):
        row = [model.tiles[v].name if v >= 0 else None for v in placement[r * model.cols : (r + 1) * model.cols]]
        for k in range(3):
            lines.append("".join(ROAD_ART[n][k] if n else "??????" for n in row))
    return "\n".join(lines)


def roads_svg(model: EdgesProblem, placement: Sequence[int], cell: int = 48) -> str:
    """Grass squares with grey roads from the middle to each arm."""
    w, h = model.cols * cell, model.rows * cell
    q = cell / 2
    rw = cell / 4
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">']
    for i, v in enumerate(placement):
        r, c = divmod(i, model.cols)
        x0, y0 = c * cell, r * cell
        out.append(f'<rect x="{x0}" y="{y0}" width="{cell}" height="{cell}" fill="{"#7cbf5a" if v >= 0 else "#ccc"}" '
                   'stroke="#4a7a35" stroke-width="0.5"/>')
        if v < 0:
            continue
        sides = model.tiles[v].sides
        arms = [d for d in range(4) if sides[d] == "1"]
        for d in arms:
            if d == UP:
                x, y, ww, hh = x0 + q - rw / 2, y0, rw, q + rw / 2
            elif d == DOWN:
                x, y, ww, hh = x0 + q - rw / 2, y0 + q - rw / 2, rw, q + rw / 2
            elif d == LEFT:
                x, y, ww, hh = x0, y0 + q - rw / 2, q + rw / 2, rw
            else:
                x, y, ww, hh = x0 + q - rw / 2, y0 + q - rw / 2, q + rw / 2, rw
            out.append(f'<rect x="{x}" y="{y}" width="{ww}" height="{hh}" fill="#777"/>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


register_kind("edges", EdgesProblem)
register_kind("roads", RoadsProblem)
register_problem(LibraryEntry("roads-seed", "the seed's road grid: 4x5, 12 completions",
                              {"kind": "roads", "format": "text", "text": data.read_text("roads-seed.txt"),
                               "source_name": "roads-seed.txt"}, known={"solutions": 12}))
