"""The classics: polyform puzzles whose counts are published (issue 42), as built-in
named problems beside :data:`core.polyform.problem.LIBRARY`.

Each entry is a data file ``core/data/NAME.toml`` (its pieces from the named sets where
they are a family, drawn where they are one puzzle's own) and the counts its source
publishes; docs/models.md cites the source of each.  ``distinct`` is up to the board's
symmetries as the model counts them (rotations, and reflections where the pieces allow);
where a source counts up to rotation only (the Soma figures, the tetracube boxes), the
entry gives the total, which is the rotation group's order times that count (no solution
is symmetric under a rotation: the tests check both by Burnside's lemma).  The entries on
triangles and hexagons (the hexiamond and tetrahex figures) are distinct counts.
"""
from __future__ import annotations

from .. import data
from ..catalog import LibraryEntry, register_problem
from .problem import KIND

#: name (its data file is ``NAME.toml``), description, the published counts
CLASSICS: tuple[tuple[str, str, dict[str, int]], ...] = (
    ("pentomino-8x8-corners", "the 12 pentominoes in an 8x8 square less its four corners", {"distinct": 2170}),
    ("pentomino-8x8-holes-1", "the 12 pentominoes in an 8x8 square, holes one step in from the corners",
     {"distinct": 188}),
    ("pentomino-8x8-holes-2", "the 12 pentominoes in an 8x8 square, holes at the corners of its centre 4x4",
     {"distinct": 21}),
    ("pentomino-8x8-holes-3", "the 12 pentominoes in an 8x8 square, four holes in a pinwheel", {"distinct": 126}),
    ("pentomino-8x8-holes-4", "the 12 pentominoes in an 8x8 square, four holes on a diagonal", {"distinct": 74}),
    ("pentomino-8x8-tetromino", "the 12 pentominoes and the square tetromino in an 8x8 square",
     {"distinct": 16146}),
    ("pentacubes-2x3x10", "the 12 flat pentacubes in a 2x3x10 box", {"distinct": 12}),
    ("pentacubes-2x5x6", "the 12 flat pentacubes in a 2x5x6 box", {"distinct": 264}),
    ("tetracubes-2x4x4", "the 8 tetracubes in a 2x4x4 box", {"solutions": 8 * 1390}),
    ("tetracubes-2x2x8", "the 8 tetracubes in a 2x2x8 box", {"solutions": 8 * 224}),
    ("soma-bathtub", "the Soma figure Bathtub", {"solutions": 2 * 158}),
    ("soma-castle-1", "the Soma figure Castle 1", {"solutions": 6}),
    ("soma-castle-2", "the Soma figure Castle 2", {"solutions": 2 * 10}),
    ("soma-clip", "the Soma figure Clip", {"solutions": 2 * 20}),
    ("soma-cornerstone", "the Soma figure Cornerstone", {"solutions": 10}),
    ("soma-crystal", "the Soma figure Crystal", {"solutions": 2800}),
    ("soma-curved-wall", "the Soma figure Curved wall", {"solutions": 2 * 66}),
    ("soma-high-wall", "the Soma figure High wall", {"solutions": 2 * 46}),
    ("soma-long-wall", "the Soma figure Long wall", {"solutions": 104}),
    ("soma-pyramid", "the Soma figure Pyramid", {"solutions": 4 * 14}),
    ("soma-screw", "the Soma figure Screw", {"solutions": 14}),
    ("soma-skew-1", "the Soma figure Skew 1", {"solutions": 2 * 244}),
    ("soma-skew-2", "the Soma figure Skew 2", {"solutions": 2 * 14}),
    ("soma-sofa", "the Soma figure Sofa", {"solutions": 2 * 32}),
    ("soma-steamer", "the Soma figure Steamer", {"solutions": 2 * 152}),
    ("soma-steps", "the Soma figure Steps", {"solutions": 2 * 164}),
    ("soma-tunnel", "the Soma figure Tunnel", {"solutions": 2 * 26}),
    ("diabolical-cube", "the Diabolical cube: six flat pieces of 2 to 7 cubes in a 3x3x3 cube", {"distinct": 13}),
    ("slothouber-graatsma", "the Slothouber-Graatsma puzzle: six 1x2x2 blocks and three cubes in a 3x3x3 cube",
     {"distinct": 1}),
    # (no published count found: computed here, and checked in the tests on a cover built
    # without the polyform model, classes by Burnside's lemma with the tests' own geometry)
    ("conway-puzzle", "Conway's puzzle: 18 blocks (13 of 1x2x4) in a 5x5x5 cube",
     {"solutions": 27456, "distinct": 572}),
    ("bedlam-cube", "the Bedlam cube: 13 solid pieces in a 4x4x4 cube", {"solutions": 24 * 19186, "distinct": 19186}),
    ("tetris-cube", "the Tetris Cube: 12 solid pieces in a 4x4x4 cube", {"solutions": 24 * 9839, "distinct": 9839}),
    # ---- on triangles and hexagons (lattice = "triangle" / "hexagon"), distinct counts
    # as Polyform Puzzler publishes them (its boards redrawn here from its coordinates)
    ("hexiamonds-6x6", "the 12 hexiamonds in a 6x6 rhombus", {"distinct": 156}),
    ("hexiamonds-4x9", "the 12 hexiamonds in a 4x9 parallelogram", {"distinct": 74}),
    ("hexiamonds-3x12", "the 12 hexiamonds in a 3x12 parallelogram (no solution)", {"distinct": 0}),
    ("hexiamonds-trapezium-4x11", "the 12 hexiamonds in a trapezium of height 4, base 11", {"distinct": 76}),
    ("hexiamonds-long-hexagon", "the 12 hexiamonds in a long hexagon, 4 high and 10 long", {"distinct": 856}),
    ("hexiamonds-irregular-hexagon", "the 12 hexiamonds in an irregular hexagon, 7 by 8", {"distinct": 5885}),
    ("hexiamonds-stacked-long-hexagons", "the 12 hexiamonds in two stacked long hexagons", {"distinct": 378}),
    ("hexiamonds-stacked-long-butterflies", "the 12 hexiamonds in two stacked long butterflies", {"distinct": 290}),
    ("hexiamonds-stacked-hexagons", "the 12 hexiamonds in three stacked hexagons", {"distinct": 51}),
    ("hexiamonds-crescent", "the 12 hexiamonds in a hexagon of side 4 less a hexagon of side 2 at a corner",
     {"distinct": 87}),
    ("hexiamonds-ring", "the 12 hexiamonds in a hexagon of side 4 less a hexagon of side 2 off its centre",
     {"distinct": 11}),
    ("hexiamonds-coin", "the 12 hexiamonds in a long hexagon less a central hexagon", {"distinct": 304}),
    ("hexiamonds-tenyo", "the 12 hexiamonds in Tenyo's Pla-Puzzle figure", {"distinct": 4968}),
    ("tetrahexes-4x7", "the 7 tetrahexes in a 4x7 parallelogram", {"distinct": 9}),
    ("tetrahexes-3x10-clipped", "the 7 tetrahexes in a 3x10 parallelogram less its two sharp corners",
     {"distinct": 2}),
    ("tetrahexes-coin", "the 7 tetrahexes in a hexagon less its centre", {"distinct": 4}),
    ("trihexes-tetrahexes-hexagon", "the 3 trihexes and the 7 tetrahexes in a hexagon of side 4",
     {"distinct": 12290}),
    ("trihexes-tetrahexes-hexagram", "the 3 trihexes and the 7 tetrahexes in a hexagram", {"distinct": 167}),
    ("one-sided-hexiamonds-obeirne", "O'Beirne's hexagon: the 19 one-sided hexiamonds in 19 hexagons of six "
     "triangles, 12 around 6 around 1", {"distinct": 124519}),
)


def _register() -> None:
    for name, description, known in CLASSICS:
        spec = {"kind": KIND, "format": "toml", "text": data.read_text(f"{name}.toml"), "source_name": name}
        register_problem(LibraryEntry(name, description, spec, dict(known)))


_register()
