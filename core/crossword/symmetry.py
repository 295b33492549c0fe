"""The nine symmetries of a crossword grid and the orbits they make of its squares.

A symmetry kind is a group of maps of the grid onto itself; an **orbit** is the set of
squares one square maps to.  Every square of an orbit has the same colour, so a search
decides one square per orbit and the rest follow.
"""
from __future__ import annotations

from typing import Callable

from ..errors import ProblemError

Cell = int  # row * cols + col
Map = Callable[[int, int, int, int], tuple[int, int]]  # (r, c, rows, cols) -> (r, c)

_ID: Map = lambda r, c, R, C: (r, c)
_LR: Map = lambda r, c, R, C: (r, C - 1 - c)
_UD: Map = lambda r, c, R, C: (R - 1 - r, c)
_ROT: Map = lambda r, c, R, C: (R - 1 - r, C - 1 - c)
_DIAG: Map = lambda r, c, R, C: (c, r)
_ANTI: Map = lambda r, c, R, C: (C - 1 - c, R - 1 - r)
_QUARTER: Map = lambda r, c, R, C: (c, R - 1 - r)
_QUARTER3: Map = lambda r, c, R, C: (C - 1 - c, r)

#: canonical name -> (maps of the group, needs a square grid, seed CSV name)
KINDS: dict[str, tuple[tuple[Map, ...], bool, str]] = {
    "none": ((_ID,), False, "Asymmetry"),
    "left-right": ((_ID, _LR), False, "Left Right"),
    "up-down": ((_ID, _UD), False, "Up Down"),
    "rotational": ((_ID, _ROT), False, "Rotational"),
    "diagonal": ((_ID, _DIAG), True, "Diagonal TLBR"),
    "anti-diagonal": ((_ID, _ANTI), True, "Diagonal TRBL"),
    "quarter-turn": ((_ID, _QUARTER, _ROT, _QUARTER3), True, "Dual Rotational"),
    "three-way": ((_ID, _LR, _UD, _ROT), False, "Three Way"),
    "full": ((_ID, _LR, _UD, _ROT, _DIAG, _ANTI, _QUARTER, _QUARTER3), True, "Super"),
}

NAMES: tuple[str, ...] = tuple(KINDS)

_ALIASES = {
    "asymmetry": "none", "asymmetric": "none", "leftright": "left-right", "updown": "up-down",
    "rotation": "rotational", "180": "rotational", "diagonal-tlbr": "diagonal",
    "diagonal-trbl": "anti-diagonal", "antidiagonal": "anti-diagonal",
    "dual-rotational": "quarter-turn", "90": "quarter-turn", "quarterturn": "quarter-turn",
    "threeway": "three-way", "super": "full",
}


def canonical(name: str, source: str | None = None) -> str:
    """The canonical name of a symmetry given by any accepted spelling."""
    if not isinstance(name, str):
        raise ProblemError(f"symmetry must be a name, not {name!r}", source=source)
    key = "-".join(name.strip().lower().replace("_", " ").replace("-", " ").split())
    key = _ALIASES.get(key, key)
    if key not in KINDS:
        raise ProblemError(
            f"unknown symmetry {name!r} (known: {', '.join(NAMES)})", source=source
        )
    return key


def check_shape(kind: str, rows: int, cols: int, source: str | None = None) -> None:
    """Raise unless ``kind`` is possible on a rows x cols grid."""
    if KINDS[kind][1] and rows != cols:
        raise ProblemError(f"symmetry {kind!r} needs a square grid, not {rows}x{cols}", source=source)


def orbits(kind: str, rows: int, cols: int) -> tuple[tuple[Cell, ...], ...]:
    """For each square, the sorted squares of its orbit under ``kind``."""
    maps = KINDS[kind][0]
    out = []
    for r in range(rows):
        for c in range(cols):
            imgs = {rr * cols + cc for rr, cc in (m(r, c, rows, cols) for m in maps)}
            out.append(tuple(sorted(imgs)))
    return tuple(out)


def has_symmetry(black: tuple[bool, ...], rows: int, cols: int, kind: str) -> bool:
    """Whether a grid (``black`` per square, row-major) is unchanged by every map of ``kind``."""
    if KINDS[kind][1] and rows != cols:
        return False
    return all(black[q] == black[orb[0]] for orb in orbits(kind, rows, cols) for q in orb)


def strongest(black: tuple[bool, ...], rows: int, cols: int) -> str:
    """The symmetry with the most maps that a grid has (ties: in :data:`NAMES` order)."""
    best = "none"
    for kind in NAMES:
        if len(KINDS[kind][0]) > len(KINDS[best][0]) and has_symmetry(black, rows, cols, kind):
            best = kind
    return best


def from_orbits(kind: str, rows: int, cols: int, colours) -> tuple[bool, ...]:
    """The grid (``black`` per square, row-major) whose orbits under ``kind``, in sorted
    order, take ``colours`` (True: black), one per orbit: every grid with the symmetry,
    each exactly once as the colours run over their 2^orbits values."""
    black = [False] * (rows * cols)
    for colour, orbit in zip(colours, sorted(set(orbits(kind, rows, cols)))):
        for q in orbit:
            black[q] = bool(colour)
    return tuple(black)
