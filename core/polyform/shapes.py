"""Shapes: sets of unit cells, their normal form, orientations and connectivity.

Vocabulary: a **cell** is a ``(z, y, x)`` triple of ints (a 2D shape has ``z == 0``);
a **form** is a normalised, sorted tuple of cells (smallest coordinate 0 on every axis);
a **transform** is a signed permutation of the three axes (8 act on the plane, 48 on
space; the 24 with determinant +1 are the rotations).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations, product
from typing import Iterable

from ..errors import ProblemError
from .lattice import connected, drawing, lattice

Cell = tuple[int, int, int]
Form = tuple[Cell, ...]
#: (axis permutation, signs): ``t(c)[i] = signs[i] * c[perm[i]]``
Transform = tuple[tuple[int, int, int], tuple[int, int, int]]

NEIGHBOUR_STEPS: tuple[Cell, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


def _det(t: Transform) -> int:
    perm, signs = t
    inversions = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j])
    return (-1) ** inversions * signs[0] * signs[1] * signs[2]


#: the 48 symmetries of the cube, identity first; rotations before reflections
TRANSFORMS_3D: tuple[Transform, ...] = tuple(
    sorted(
        ((p, s) for p in permutations(range(3)) for s in product((1, -1), repeat=3)),
        key=lambda t: (_det(t) < 0, t != ((0, 1, 2), (1, 1, 1))),
    )
)
#: the 8 symmetries of the square acting on (y, x), z fixed; rotations first
TRANSFORMS_2D: tuple[Transform, ...] = tuple(
    t for t in TRANSFORMS_3D if t[0][0] == 0 and t[1][0] == 1
)


def is_rotation(t: Transform) -> bool:
    return _det(t) > 0


def apply(t: Transform, cell: Cell) -> Cell:
    perm, signs = t
    return (signs[0] * cell[perm[0]], signs[1] * cell[perm[1]], signs[2] * cell[perm[2]])


def normalise(cells: Iterable[Cell]) -> Form:
    """The form of a cell set: translated to the origin, sorted."""
    cells = list(cells)
    if not cells:
        return ()
    mz = min(c[0] for c in cells)
    my = min(c[1] for c in cells)
    mx = min(c[2] for c in cells)
    return tuple(sorted({(z - mz, y - my, x - mx) for z, y, x in cells}))


def transform_form(t: Transform, form: Iterable[Cell]) -> Form:
    return normalise(apply(t, c) for c in form)


def is_connected(cells: Iterable[Cell]) -> bool:
    """Orthogonal (edge / face) connectivity."""
    return connected(cells, lambda c: [(c[0] + dz, c[1] + dy, c[2] + dx) for dz, dy, dx in NEIGHBOUR_STEPS])


def split_layers(text: str) -> list[list[tuple[int, str]]]:
    """The non-blank lines of a matrix as layers (blank lines separate them): each line
    with its 0-based line number in ``text``, stripped."""
    layers: list[list[tuple[int, str]]] = [[]]
    for n, raw in enumerate(text.splitlines()):
        line = raw.strip()
        if not line:
            if layers[-1]:
                layers.append([])
            continue
        layers[-1].append((n, line))
    if not layers[-1]:
        layers.pop()
    return layers


def parse_matrix(text: str, *, on: str = "#", off: str = "-.", what: str = "shape") -> tuple[Form, int]:
    """Cells of a text matrix (layers separated by blank lines) and its dimension (2/3).
    Raises ProblemError with a line offset (0-based, relative to ``text``)."""
    layers = split_layers(text)
    cells = []
    for z, layer in enumerate(layers):
        for y, (n, line) in enumerate(layer):
            for x, ch in enumerate(line):
                if ch in on:
                    cells.append((z, y, x))
                elif ch not in off:
                    raise ProblemError(f"{what}: unexpected character {ch!r} (use {on!r} and {off[0]!r})", line=n)
    return normalise(cells), (3 if len(layers) > 1 else 2)


@dataclass(frozen=True)
class Shape:
    """A polyform: its form (as drawn), its dimension (2 = polyomino, 3 = polycube) and
    its lattice (``"square"``, or ``"triangle"`` / ``"hexagon"``: :mod:`.lattice`)."""

    form: Form
    dim: int = 2
    lattice: str = "square"

    @classmethod
    def from_text(cls, text: str) -> "Shape":
        form, dim = parse_matrix(text)
        return cls(form, dim)

    @classmethod
    def from_cells(cls, cells: Iterable[Cell], dim: int | None = None) -> "Shape":
        form = normalise(cells)
        if dim is None:
            dim = 3 if any(c[0] for c in form) else 2
        return cls(form, dim)

    @property
    def size(self) -> int:
        return len(self.form)

    def connected(self) -> bool:
        grid = _plane_lattice(self.lattice)
        return is_connected(self.form) if grid is None else grid.is_connected(self.form)

    def orientations(self, *, mirror: bool = True, rotate: bool = True, space: int = 2) -> tuple[Form, ...]:
        """Distinct forms of the piece: in the plane (``space=2``, 8 transforms) or in
        space (``space=3``, 48); reflections only with ``mirror``; as drawn only when
        ``rotate`` is false.  The drawn form comes first."""
        if not rotate:
            return (self.form,)
        grid = _plane_lattice(self.lattice)
        if grid is not None:
            return grid.orientations(self.form, mirror=mirror)
        if space == 2 and self.dim == 3:
            raise ValueError("a 3D shape has no orientations in the plane")
        group = TRANSFORMS_2D if space == 2 else TRANSFORMS_3D
        seen: dict[Form, None] = {}
        for t in group:
            if mirror or is_rotation(t):
                seen.setdefault(transform_form(t, self.form), None)
        return tuple(seen)

    def canonical(self, *, mirror: bool = True, space: int = 2) -> Form:
        """The smallest orientation: equal for congruent shapes."""
        return min(self.orientations(mirror=mirror, space=space))

    def text(self) -> str:
        """The shape as a ``#``/``.`` matrix (layers separated by blank lines)."""
        if not self.form:
            return ""
        if self.lattice != "square":
            return drawing(self.lattice, {c: "#" for c in self.form})
        nz = 1 + max(c[0] for c in self.form)
        ny = 1 + max(c[1] for c in self.form)
        nx = 1 + max(c[2] for c in self.form)
        cells = set(self.form)
        layers = [
            "\n".join("".join("#" if (z, y, x) in cells else "." for x in range(nx)) for y in range(ny))
            for z in range(nz)
        ]
        return "\n\n".join(layers)


def _plane_lattice(name: str):
    """The lattice object of a plane lattice's name; None for the square grid."""
    return None if name == "square" else lattice(name)


def free_polyforms(n: int, *, space: int = 2, mirror: bool = True) -> list[Form]:
    """Every polyform of ``n`` cells up to the allowed transforms (canonical forms, sorted).
    ``space=2``: polyominoes; ``space=3``: polycubes."""
    group = [
        t for t in (TRANSFORMS_2D if space == 2 else TRANSFORMS_3D) if mirror or is_rotation(t)
    ]

    def canon(cells: Iterable[Cell]) -> Form:
        cells = list(cells)
        return min(transform_form(t, cells) for t in group)

    level = {((0, 0, 0),)}
    steps = NEIGHBOUR_STEPS if space == 3 else NEIGHBOUR_STEPS[2:]
    for _ in range(n - 1):
        nxt = set()
        for form in level:
            cells = set(form)
            for z, y, x in form:
                for dz, dy, dx in steps:
                    c = (z + dz, y + dy, x + dx)
                    if c not in cells:
                        nxt.add(canon(cells | {c}))
        level = nxt
    return sorted(level, key=lambda f: (max(c[0] for c in f), f))
