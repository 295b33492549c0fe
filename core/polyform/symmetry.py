"""Board symmetry: the group G that maps the free cells and the piece set to themselves;
its action on the exact cover's items is :meth:`PolyformProblem.symmetry
<core.polyform.problem.PolyformProblem.symmetry>`.

A **symmetry** is a transform ``t`` of the axes plus a translation that maps the free
cells onto themselves, together with the permutation of piece kinds it induces: kind
``k``'s set of orientations, transformed by ``t``, must be the orientation set of a kind
``k'`` with the same count.  So a one-sided set holding both mirror images of each chiral
piece is closed under reflections (they swap the pair); a lone ``mirror = false`` piece
keeps only the rotations.

On a board of triangles or hexagons the transforms are the lattice's twelve matrices
(:mod:`.lattice`) and the offset a translation of it.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .board import Board
from .lattice import Lattice, lattice
from .shapes import TRANSFORMS_2D, TRANSFORMS_3D, Cell, Transform, is_rotation, transform_form


@dataclass(frozen=True)
class Symmetry:
    transform: Transform
    offset: Cell
    #: kind index -> image kind index
    kinds: tuple[int, ...]
    #: the plane lattice the transform is a matrix of; None on the square grid
    grid: Lattice | None = None

    def cell(self, c: Cell) -> Cell:
        """The image of one cell."""
        return self.cells((c,))[0]

    def cells(self, cells: Sequence[Cell]) -> list[Cell]:
        """The images of ``cells``, in order: the transform, then the offset (one loop for
        a whole board: the 200x200 board's 40,000 cells, eight times over, while choosing
        a method)."""
        if self.grid is not None:
            o0, o1, o2 = self.offset
            return [(z + o0, y + o1, x + o2) for z, y, x in (self.grid.apply(self.transform, c) for c in cells)]
        (p0, p1, p2), (s0, s1, s2) = self.transform
        o0, o1, o2 = self.offset
        return [(s0 * c[p0] + o0, s1 * c[p1] + o1, s2 * c[p2] + o2) for c in cells]

    @property
    def is_identity(self) -> bool:
        if self.grid is not None:
            return self.transform == self.grid.transforms[0] and self.offset == (0, 0, 0)
        return self.transform == ((0, 1, 2), (1, 1, 1)) and self.offset == (0, 0, 0)


def board_maps(board: Board) -> list[tuple[Transform, Cell]]:
    """Every (transform, offset) mapping the board's free cells onto themselves."""
    grid = lattice(board.lattice)
    if grid is not None:
        return _lattice_maps(grid, board.free)
    free = board.free
    group = TRANSFORMS_2D if board.space == 2 else TRANSFORMS_3D
    lo = tuple(min(c[a] for c in free) for a in range(3))
    hi = tuple(max(c[a] for c in free) for a in range(3))
    out = []
    for t in group:
        (p0, p1, p2), (s0, s1, s2) = t
        # the image's low corner comes from the low or high side of the permuted axis
        off = tuple(lo[a] - (lo[p] if s > 0 else -hi[p]) for a, (p, s) in enumerate(zip(t[0], t[1])))
        o0, o1, o2 = off
        if all((s0 * c[p0] + o0, s1 * c[p1] + o1, s2 * c[p2] + o2) in free for c in free):
            out.append((t, off))
    return out


def _lattice_maps(grid: Lattice, free: frozenset[Cell]) -> list[tuple[Transform, Cell]]:
    """:func:`board_maps` on a plane lattice: each of its twelve transforms, moved so the
    image's first cell (in sorted order) lands on the board's, where that move is a
    translation of the lattice."""
    out = []
    low = min(free)
    for t in grid.transforms:
        image = [grid.apply(t, c) for c in free]
        first = min(image)
        off = (low[0] - first[0], low[1] - first[1], low[2] - first[2])
        if grid.is_translation(off) and all((z + off[0], y + off[1], x + off[2]) in free for z, y, x in image):
            out.append((t, off))
    return out


def symmetry_group(board: Board, orientation_sets: Sequence[frozenset], counts: Sequence[tuple],
                   rotation_closed: Sequence[bool] | None = None) -> list[Symmetry]:
    """G: board maps that also map the piece set (orientation sets with their counts)
    onto itself.  The identity comes first.

    A kind whose orientations are closed under the space's rotations (``rotation_closed``:
    the piece may turn) is an orbit R.f of the rotation group R, which is normal in the
    whole group, so its image under t is R.t(f): the kind holding t(f) for one f, found
    in a table, instead of every orientation transformed (Soma: 336 forms instead of
    4,416)."""
    closed = list(rotation_closed) if rotation_closed is not None else [False] * len(orientation_sets)
    by_key = {(o, c): k for k, (o, c) in enumerate(zip(orientation_sets, counts))}
    by_form: dict[tuple, int] = {}
    for k, forms in enumerate(orientation_sets):
        if closed[k]:
            for f in forms:
                by_form[f] = k
    first = [min(forms) if forms else () for forms in orientation_sets]
    #: (rotation or not, kind) -> image kind, for the rotation-closed kinds: t(R.f) =
    #: R.t(f) depends only on t's coset of R, so two lookups per kind serve all 48 maps
    by_coset: dict[tuple[bool, int], int | None] = {}
    out = []
    grid = lattice(board.lattice)
    turn = is_rotation if grid is None else grid.is_rotation
    moved = transform_form if grid is None else grid.transform_form
    for t, off in board_maps(board):
        perm = []
        rotation = turn(t)
        for k, forms in enumerate(orientation_sets):
            key = (rotation, k)
            if closed[k] and key in by_coset:
                j = by_coset[key]
            else:
                j = by_form.get(moved(t, first[k])) if closed[k] else None
                if j is None or counts[j] != counts[k] or len(orientation_sets[j]) != len(forms):
                    j = by_key.get((frozenset(moved(t, f) for f in forms), counts[k]))
                if closed[k]:
                    by_coset[key] = j
            if j is None:
                break
            perm.append(j)
        else:
            out.append(Symmetry(t, off, tuple(perm), grid))
    return out
