"""Named piece sets: the usual polyominoes and polycubes, polyiamonds and polyhexes.

Each set is a list of :class:`SetPiece` (name, shape, whether it may be mirrored).
Planar sets may be mirrored (flip the piece over); the polycube sets are one-sided
(``mirror=False``): a solid piece cannot be reflected, so chiral pairs are listed twice.

The polyiamonds and polyhexes are generated, not drawn: every free n-iamond or n-hex
(:meth:`.lattice.Lattice.free_forms`), named by size and rank among the canonical forms
(``I6.1`` .. ``I6.12`` the hexiamonds, ``H5.1`` .. ``H5.22`` the pentahexes; a one-sided
set adds each chiral piece's mirror image, ``I6.3'``).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .lattice import lattice
from .shapes import Shape, free_polyforms, parse_matrix, transform_form, TRANSFORMS_2D, TRANSFORMS_3D


@dataclass(frozen=True)
class SetPiece:
    name: str
    shape: Shape
    mirror: bool = True


def _p(name: str, text: str, mirror: bool = True) -> SetPiece:
    form, dim = parse_matrix(text.replace("/", "\n").replace("|", "\n\n"))
    return SetPiece(name, Shape(form, dim), mirror)


PENTOMINOES = (
    ("F", ".##/##./.#."),
    ("I", "#####"),
    ("L", "####/#..."),
    ("N", "##../.###"),
    ("P", "##/##/#."),
    ("T", "###/.#./.#."),
    ("U", "#.#/###"),
    ("V", "#../#../###"),
    ("W", "#../##./.##"),
    ("X", ".#./###/.#."),
    ("Y", "####/.#.."),
    ("Z", "##./.#./.##"),
)
TETROMINOES = (("I4", "####"), ("O4", "##/##"), ("T4", "###/.#."), ("S4", ".##/##."), ("L4", "###/#.."))
TROMINOES = (("I3", "###"), ("V3", "##/#."))
SOMA = (
    ("V", "##/#."),
    ("L", "###/#.."),
    ("T", "###/.#."),
    ("Z", "##./.##"),
    ("A", "##/#.|.#/.."),   # V plus a cube on one arm
    ("B", "##/#.|../#."),   # its mirror image
    ("P", "##/#.|#./.."),   # V plus a cube on the corner (tripod)
)
TETRACUBES = (
    ("I", "####"),
    ("O", "##/##"),
    ("T", "###/.#."),
    ("L", "###/#.."),
    ("S", "##./.##"),
    ("A", "##/#.|.#/.."),
    ("B", "##/#.|../#."),
    ("P", "##/#.|#./.."),
)


def _mirror_name(name: str) -> str:
    return name + "'"


def _one_sided(pieces: list[SetPiece]) -> list[SetPiece]:
    """Each chiral piece and its mirror image as two pieces that may not be mirrored."""
    out = []
    for p in pieces:
        out.append(SetPiece(p.name, p.shape, False))
        rot = set(p.shape.orientations(mirror=False))
        grid = lattice(p.shape.lattice)
        if grid is None:
            mirrored = transform_form(TRANSFORMS_2D[4], p.shape.form)
        else:
            mirrored = grid.transform_form(grid.transforms[6], p.shape.form)
        if mirrored not in rot:
            out.append(SetPiece(_mirror_name(p.name), Shape(mirrored, 2, p.shape.lattice), False))
    return out


#: the generated sets of the plane lattices: name -> (lattice, cells, prefix)
LATTICE_SETS = {
    "diamonds": ("triangle", 2, "I"),
    "triamonds": ("triangle", 3, "I"),
    "tetriamonds": ("triangle", 4, "I"),
    "pentiamonds": ("triangle", 5, "I"),
    "hexiamonds": ("triangle", 6, "I"),
    "heptiamonds": ("triangle", 7, "I"),
    "dihexes": ("hexagon", 2, "H"),
    "trihexes": ("hexagon", 3, "H"),
    "tetrahexes": ("hexagon", 4, "H"),
    "pentahexes": ("hexagon", 5, "H"),
}


@lru_cache(maxsize=None)
def _lattice_set(name: str) -> tuple[SetPiece, ...]:
    grid_name, n, prefix = LATTICE_SETS[name]
    forms = lattice(grid_name).free_forms(n)
    return tuple(SetPiece(f"{prefix}{n}.{k + 1}", Shape(f, 2, grid_name)) for k, f in enumerate(forms))


@lru_cache(maxsize=None)
def _hexominoes() -> tuple[SetPiece, ...]:
    forms = free_polyforms(6, space=2)
    return tuple(SetPiece(f"H{k + 1:02d}", Shape(f, 2)) for k, f in enumerate(forms))


@lru_cache(maxsize=None)
def _pentacubes() -> tuple[SetPiece, ...]:
    """The 29 pentacubes up to rotation: the 12 flat ones under their pentomino letters,
    then the 17 solid ones as N01..N17."""
    forms = free_polyforms(5, space=3, mirror=False)
    flat = {}
    for name, text in PENTOMINOES:
        s = _p(name, text).shape
        flat[min(transform_form(t, s.form) for t in TRANSFORMS_3D if _is_rot(t))] = name
    named = []
    solid = 0
    for f in forms:
        if f in flat:
            named.append((0, flat[f], f))
        else:
            solid += 1
            named.append((1, f"N{solid:02d}", f))
    named.sort(key=lambda t: (t[0], t[1]))
    return tuple(SetPiece(name, Shape(f, 3), False) for _, name, f in named)


def _is_rot(t) -> bool:
    from .shapes import is_rotation

    return is_rotation(t)


def _flat3d(pieces) -> list[SetPiece]:
    return [SetPiece(p.name, Shape(p.shape.form, 3), False) for p in pieces]


def _set(pairs, mirror=True) -> list[SetPiece]:
    return [_p(n, t, mirror) for n, t in pairs]


SET_DESCRIPTIONS: dict[str, str] = {
    "monomino": "the single square",
    "dominoes": "the domino",
    "trominoes": "the 2 free trominoes: I3 V3",
    "tetrominoes": "the 5 free tetrominoes: I4 O4 T4 S4 L4",
    "pentominoes": "the 12 free pentominoes: F I L N P T U V W X Y Z",
    "hexominoes": "the 35 free hexominoes: H01..H35",
    "one-sided-tetrominoes": "the 7 one-sided tetrominoes (S4/S4', L4/L4' as separate pieces)",
    "one-sided-pentominoes": "the 18 one-sided pentominoes (F and F', ... as separate pieces)",
    "one-sided-hexominoes": "the 60 one-sided hexominoes",
    "soma": "the 7 Soma pieces: V L T Z A B P (one-sided solids)",
    "tetracubes": "the 8 tetracubes: I O T L S A B P (one-sided solids)",
    "pentacubes": "the 29 pentacubes up to rotation (12 flat + 17 solid, one-sided)",
    "planar-pentacubes": "the 12 flat pentacubes (pentominoes as solids): F I L N P T U V W X Y Z",
    "diamonds": "the diamond (two triangles; triangle lattice)",
    "triamonds": "the triamond (triangle lattice)",
    "tetriamonds": "the 3 free tetriamonds: I4.1..I4.3 (triangle lattice)",
    "pentiamonds": "the 4 free pentiamonds: I5.1..I5.4 (triangle lattice)",
    "hexiamonds": "the 12 free hexiamonds: I6.1..I6.12 (triangle lattice)",
    "heptiamonds": "the 24 free heptiamonds: I7.1..I7.24 (triangle lattice)",
    "one-sided-tetriamonds": "the 4 one-sided tetriamonds (triangle lattice)",
    "one-sided-pentiamonds": "the 6 one-sided pentiamonds (triangle lattice)",
    "one-sided-hexiamonds": "the 19 one-sided hexiamonds (triangle lattice)",
    "one-sided-heptiamonds": "the 43 one-sided heptiamonds (triangle lattice)",
    "dihexes": "the dihex (two hexagons; hexagon lattice)",
    "trihexes": "the 3 free trihexes: H3.1..H3.3 (hexagon lattice)",
    "tetrahexes": "the 7 free tetrahexes: H4.1..H4.7 (hexagon lattice)",
    "pentahexes": "the 22 free pentahexes: H5.1..H5.22 (hexagon lattice)",
    "one-sided-tetrahexes": "the 10 one-sided tetrahexes (hexagon lattice)",
    "one-sided-pentahexes": "the 33 one-sided pentahexes (hexagon lattice)",
}


def named_set(name: str) -> list[SetPiece] | None:
    """The pieces of a named set, or None if there is no such set."""
    key = name.strip().lower().replace("_", "-").replace(" ", "-")
    if key in ("monomino", "monominoes"):
        return [_p("M", "#")]
    if key in ("domino", "dominoes"):
        return [_p("D", "##")]
    if key == "trominoes":
        return _set(TROMINOES)
    if key == "tetrominoes":
        return _set(TETROMINOES)
    if key == "pentominoes":
        return _set(PENTOMINOES)
    if key == "hexominoes":
        return list(_hexominoes())
    if key == "one-sided-tetrominoes":
        return _one_sided(_set(TETROMINOES))
    if key == "one-sided-pentominoes":
        return _one_sided(_set(PENTOMINOES))
    if key == "one-sided-hexominoes":
        return _one_sided(list(_hexominoes()))
    if key == "soma":
        return _set(SOMA, False)
    if key == "tetracubes":
        return _set(TETRACUBES, False)
    if key == "pentacubes":
        return list(_pentacubes())
    if key in ("planar-pentacubes", "flat-pentacubes"):
        return _flat3d(_set(PENTOMINOES))
    if key in LATTICE_SETS:
        return list(_lattice_set(key))
    if key.startswith("one-sided-") and key[len("one-sided-"):] in LATTICE_SETS:
        return _one_sided(list(_lattice_set(key[len("one-sided-"):])))
    return None


def set_names() -> list[str]:
    return list(SET_DESCRIPTIONS)
