"""The plane lattices beside the square grid: triangles (polyiamonds) and hexagons
(polyhexes).  Each is an object that says what a cell's neighbours are, which moves are
translations of the lattice, how a set of cells is put in normal form, the lattice's
twelve symmetries about a point (six rotations, six reflections) and each cell's polygon
for pictures.  The square grid and the cubic one keep their own code in
:mod:`core.polyform.shapes` (signed permutations of the axes); code that serves every
lattice asks ``board.lattice`` (a name) and :func:`lattice` (this module's object, None for
the square grid).

Cells stay ``(z, y, x)`` triples with ``z == 0``, ``y`` the row and ``x`` the column of a
text drawing, so boards and pieces are drawn as text, one character per cell:

* **triangle**: each character is a triangle; row ``y`` holds triangles side by side,
  pointing up and down in turn, and the triangle at ``(y, x)`` points up where ``y + x``
  is even (the first character of the first row points up);
* **hexagon**: each hexagon sits at every other column, rows shifted by one column in
  turn ("doubled" columns): ``y + x`` is even for every cell, and the six neighbours are
  ``(y, x +- 2)`` and ``(y +- 1, x +- 1)``.

In both, a move ``(dy, dx)`` is a translation of the lattice exactly where ``dy + dx`` is
even (a triangle keeps its direction), and a normal form is moved to row 0 with its first
column 0 or 1.

The symmetries act on coordinates where they are integer matrices: a hexagon's axial
coordinates ``(q, r) = ((x - y) / 2, y)``, and a triangle's centre measured from a
corner of the lattice, ``(x, 3y + 1 + up)`` (in units of half a side across and a third
of a triangle's height down), on which a sixth of a turn is the matrix
``[[1, -1], [3, 1]] / 2``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from math import cos, pi, sin, sqrt
from typing import Callable, Iterable

from ..errors import ProblemError

Cell = tuple[int, int, int]
Form = tuple[Cell, ...]

#: a symmetry of a plane lattice: a 2x2 integer matrix (a, b, c, d) acting as
#: (u, v) -> ((a u + b v) / den, (c u + d v) / den) on the lattice's own coordinates
Matrix = tuple[int, int, int, int]


def connected(cells: Iterable[Cell], neighbours: Callable[[Cell], Iterable[Cell]]) -> bool:
    """Whether the cells are one piece through ``neighbours`` (cell -> its neighbours)."""
    cells = set(cells)
    if not cells:
        return False
    start = next(iter(cells))
    seen, stack = {start}, [start]
    while stack:
        for n in neighbours(stack.pop()):
            if n in cells and n not in seen:
                seen.add(n)
                stack.append(n)
    return len(seen) == len(cells)


def _times(m: Matrix, n: Matrix, den: int) -> Matrix:
    a, b, c, d = m
    e, f, g, h = n
    out = (a * e + b * g, a * f + b * h, c * e + d * g, c * f + d * h)
    if any(v % den for v in out):
        raise ArithmeticError("a product of lattice symmetries left the lattice")
    return tuple(v // den for v in out)  # type: ignore[return-value]


@dataclass(frozen=True)
class Lattice:
    """A plane lattice of cells drawn as text (see the module docstring)."""

    name: str
    #: a sixth of a turn and a reflection, as matrices over ``den``
    turn: Matrix
    mirror: Matrix
    den: int

    # ------------------------------------------------------------ coordinates
    def to_plane(self, cell: Cell) -> tuple[int, int]:
        raise NotImplementedError

    def from_plane(self, u: int, v: int) -> Cell:
        raise NotImplementedError

    def steps(self, cell: Cell) -> tuple[Cell, ...]:
        """The moves from ``cell`` to its edge neighbours."""
        raise NotImplementedError

    def polygon(self, cell: Cell) -> list[tuple[float, float]]:
        """The corners of the cell in the plane (a side of length 1, y downward), each
        followed by the edge to the next corner."""
        raise NotImplementedError

    def edge_steps(self, cell: Cell) -> tuple[Cell, ...]:
        """The move to the neighbour across each edge of :meth:`polygon`, in its order."""
        raise NotImplementedError

    # ------------------------------------------------------------ shared
    def neighbours(self, cell: Cell) -> list[Cell]:
        z, y, x = cell
        return [(z + dz, y + dy, x + dx) for dz, dy, dx in self.steps(cell)]

    @staticmethod
    def is_translation(move: Cell) -> bool:
        """Whether ``move`` maps the lattice onto itself, each cell onto a like one."""
        return move[0] == 0 and (move[1] + move[2]) % 2 == 0

    @staticmethod
    def normalise(cells: Iterable[Cell]) -> Form:
        """The form of a cell set: translated to row 0, its first column 0 or 1, sorted."""
        cells = list(cells)
        if not cells:
            return ()
        my = min(c[1] for c in cells)
        mx = min(c[2] for c in cells)
        if (mx - my) % 2:
            mx -= 1
        return tuple(sorted({(0, y - my, x - mx) for _, y, x in cells}))

    @cached_property
    def transforms(self) -> tuple[Matrix, ...]:
        """The twelve symmetries about a point: the six rotations (identity first), then
        the six reflections."""
        identity = (self.den, 0, 0, self.den)
        rotations = [identity]
        for _ in range(5):
            rotations.append(_times(rotations[-1], self.turn, self.den))
        if _times(rotations[-1], self.turn, self.den) != identity:
            raise ArithmeticError(f"the {self.name} lattice's turn is not a sixth of a turn")
        return tuple(rotations) + tuple(_times(r, self.mirror, self.den) for r in rotations)

    def is_rotation(self, t: Matrix) -> bool:
        a, b, c, d = t
        return a * d - b * c > 0

    def apply(self, t: Matrix, cell: Cell) -> Cell:
        u, v = self.to_plane(cell)
        a, b, c, d = t
        return self.from_plane((a * u + b * v) // self.den, (c * u + d * v) // self.den)

    def transform_form(self, t: Matrix, form: Iterable[Cell]) -> Form:
        return self.normalise(self.apply(t, c) for c in form)

    def orientations(self, form: Form, *, mirror: bool = True) -> tuple[Form, ...]:
        """The distinct forms of a piece, the form as given first."""
        seen: dict[Form, None] = {self.normalise(form): None}
        for t in self.transforms:
            if mirror or self.is_rotation(t):
                seen.setdefault(self.transform_form(t, form), None)
        return tuple(seen)

    def canonical(self, form: Form, *, mirror: bool = True) -> Form:
        return min(self.orientations(form, mirror=mirror))

    def is_connected(self, cells: Iterable[Cell]) -> bool:
        return connected(cells, self.neighbours)

    def free_forms(self, n: int, *, mirror: bool = True) -> list[Form]:
        """Every n-cell polyform of the lattice up to its symmetries (reflections only
        with ``mirror``), as canonical forms, sorted: grown a cell at a time from the
        single cell, each growth reduced to its canonical form."""
        level = {self.canonical(((0, 0, 0),), mirror=mirror)}
        for _ in range(n - 1):
            nxt = set()
            for form in level:
                cells = set(form)
                for c in form:
                    for m in self.neighbours(c):
                        if m not in cells:
                            nxt.add(self.canonical(tuple(cells | {m}), mirror=mirror))
            level = nxt
        return sorted(level)

    def check_cell(self, cell: Cell) -> None:
        """Raise if ``cell`` is not a cell of this lattice's drawings."""


class _Triangles(Lattice):
    def to_plane(self, cell: Cell) -> tuple[int, int]:
        _, y, x = cell
        return x, 3 * y + (2 if (y + x) % 2 == 0 else 1)

    def from_plane(self, u: int, v: int) -> Cell:
        y, third = divmod(v, 3)
        if third == 0 or (third == 2) != ((y + u) % 2 == 0):
            raise ArithmeticError(f"({u}, {v}) is not the centre of a triangle")
        return (0, y, u)

    @staticmethod
    def up(cell: Cell) -> bool:
        return (cell[1] + cell[2]) % 2 == 0

    def steps(self, cell: Cell) -> tuple[Cell, ...]:
        return ((0, 0, -1), (0, 0, 1), (0, 1, 0)) if self.up(cell) else ((0, 0, -1), (0, 0, 1), (0, -1, 0))

    def polygon(self, cell: Cell) -> list[tuple[float, float]]:
        _, y, x = cell
        h = sqrt(3) / 2
        if self.up(cell):  # apex, bottom right, bottom left
            return [((x + 1) / 2, y * h), ((x + 2) / 2, (y + 1) * h), (x / 2, (y + 1) * h)]
        return [(x / 2, y * h), ((x + 2) / 2, y * h), ((x + 1) / 2, (y + 1) * h)]

    def edge_steps(self, cell: Cell) -> tuple[Cell, ...]:
        return ((0, 0, 1), (0, 1, 0), (0, 0, -1)) if self.up(cell) else ((0, -1, 0), (0, 0, 1), (0, 0, -1))


class _Hexagons(Lattice):
    def to_plane(self, cell: Cell) -> tuple[int, int]:
        _, y, x = cell
        return (x - y) // 2, y

    def from_plane(self, u: int, v: int) -> Cell:
        return (0, v, 2 * u + v)

    _STEPS = ((0, 0, 2), (0, 1, 1), (0, 1, -1), (0, 0, -2), (0, -1, -1), (0, -1, 1))

    def steps(self, cell: Cell) -> tuple[Cell, ...]:
        return self._STEPS

    def polygon(self, cell: Cell) -> list[tuple[float, float]]:
        _, y, x = cell
        cx, cy = x * sqrt(3) / 2, y * 1.5
        # pointy top; corner k at -30 + 60k degrees (y downward), so the edge after it
        # faces direction 60k: right, down right, down left, left, up left, up right
        return [(cx + cos((-30 + 60 * k) * pi / 180), cy + sin((-30 + 60 * k) * pi / 180)) for k in range(6)]

    def edge_steps(self, cell: Cell) -> tuple[Cell, ...]:
        return self._STEPS

    def check_cell(self, cell: Cell) -> None:
        if (cell[1] + cell[2]) % 2:
            raise ProblemError("hexagons sit at every other column, rows shifted by one in turn; "
                               f"row {cell[1] + 1} has one at column {cell[2] + 1}, off that grid")


TRIANGLE = _Triangles("triangle", turn=(1, -1, 3, 1), mirror=(-2, 0, 0, 2), den=2)
HEXAGON = _Hexagons("hexagon", turn=(1, 1, -1, 0), mirror=(0, 1, 1, 0), den=1)
#: the lattices by name; the square grid (and the cubic one) is ``"square"``, not here
LATTICES: dict[str, Lattice] = {"triangle": TRIANGLE, "hexagon": HEXAGON}
SQUARE = "square"
LATTICE_NAMES = (SQUARE, *LATTICES)


def lattice(name: str) -> Lattice | None:
    """The lattice object of ``name``; None for the square (or cubic) grid."""
    return LATTICES.get(name)


def drawing(name: str, chars: dict[Cell, str], blank: str = ".") -> str:
    """Cells as text in the lattice's drawing (see the module docstring): each cell's
    character at its row and column, ``blank`` at the other columns of a triangle row
    (a triangle that is no cell), a space between hexagons; rows from the first cell's."""
    if not chars:
        return ""
    top = min(y for _, y, _ in chars)
    rows = 1 + max(y for _, y, _ in chars) - top
    cols = 1 + max(x for _, _, x in chars)
    gap = blank if name == "triangle" else " "
    lines = [[gap] * cols for _ in range(rows)]
    for (_, y, x), ch in chars.items():
        lines[y - top][x] = ch
    return "\n".join("".join(line).rstrip() for line in lines)
