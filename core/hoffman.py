"""Hoffman's 27 blocks: 27 blocks a x b x c packed in a cube of side a + b + c, as an
exact cover on the grid every packing keeps (issue 42).

Where a < b < c and a + b + c < 4a, Hoffman proved that every packing is an approximate
3x3x3 grid of blocks: each axis-parallel line of three grid places holds one block of
each width along that axis (D. G. Hoffman, "Packing problems and inequalities", in *The
Mathematical Gardner*, 1981).  So a block at place ``(i, j, k)`` starts, along each axis,
where the blocks before it on its line end: at 0 (first), at the first one's width
(second), or at the side less its own width (third).  The generic packing model
(``goal = "pack"``, 135 cells left empty anywhere) does not see that structure, and its
search found no first packing in minutes; here it is the cover itself:

* primary items: the 27 places ``p{i}{j}{k}``; and for each of the 27 lines of three (an
  axis and the two other grid coordinates) and each width, that width once along it:
  ``{axis}{u}{v}w{width}``;
* secondary items: for each line, the width of its first block, as a color
  (``{axis}{u}{v}first:{width}``), so that the second block starts where the first ends;
  and the cells of the cube cut at every sum of distinct widths (0, a, b, c, a+b, ...,
  a+b+c along each axis; every block covers whole cells of it), so that no two blocks
  overlap;
* one option per place, orientation (the block's width along x, y, z) and, along each
  axis where the place is second on its line, the first block's width: 384 options.

Its solutions are exactly the packings (1,008 for 4 x 5 x 6: Hoffman's 21 up to the
cube's 48 symmetries, none of them symmetric).  ``hoffman-AxBxC`` names the puzzle for
other sizes within the theorem's hypothesis.
"""
from __future__ import annotations

import itertools
import re
from typing import Any

from .catalog import LibraryEntry, register_pattern, register_problem

AXES = "xyz"
#: the largest width a ``hoffman-AxBxC`` name may give
MOST_WIDTH = 50
_NAME = re.compile(r"hoffman-(\d{1,3})x(\d{1,3})x(\d{1,3})")


def within_theorem(a: int, b: int, c: int) -> bool:
    """Whether Hoffman's grid theorem covers blocks a x b x c (a < b < c, a + b + c < 4a)."""
    return 0 < a < b < c and a + b + c < 4 * a


def cuts(widths: tuple[int, int, int]) -> list[int]:
    """The coordinates where a block may start or end along an axis: the sums of distinct
    widths (0 and the side among them), ascending."""
    return sorted({sum(s) for r in range(4) for s in itertools.combinations(widths, r)})


def hoffman_dlx(a: int, b: int, c: int) -> str:
    """The exact cover of the puzzle with blocks a x b x c, in DLX text (see the module)."""
    if not within_theorem(a, b, c):
        raise ValueError(f"Hoffman's grid theorem needs a < b < c and a + b + c < 4a, not {a} x {b} x {c}")
    widths = (a, b, c)
    side = a + b + c
    xs = cuts(widths)
    at = {x: n for n, x in enumerate(xs)}
    cells = list(itertools.product(range(len(xs) - 1), repeat=3))

    def line(axis: int, place: tuple[int, int, int]) -> str:
        u, v = (place[d] for d in range(3) if d != axis)
        return f"{AXES[axis]}{u}{v}"

    places = list(itertools.product(range(3), repeat=3))
    primary = [f"p{i}{j}{k}" for i, j, k in places]
    lines = sorted({line(axis, p) for axis in range(3) for p in places})
    primary += [f"{name}w{w}" for name in lines for w in widths]
    secondary = [f"{name}first" for name in lines] + ["c{}.{}.{}".format(*cell) for cell in cells]
    options = []
    for place in places:
        for orientation in itertools.permutations(widths):
            # along each axis: (start, color of the line's first width) choices
            choices = []
            for axis in range(3):
                w, n = orientation[axis], place[axis]
                if n == 0:
                    choices.append([(0, f"{line(axis, place)}first:{w}")])
                elif n == 1:
                    choices.append([(first, f"{line(axis, place)}first:{first}") for first in widths if first != w])
                else:
                    choices.append([(side - w, None)])
            for picked in itertools.product(*choices):
                starts = [start for start, _ in picked]
                spans = [range(at[starts[d]], at[starts[d] + orientation[d]]) for d in range(3)]
                items = [f"p{place[0]}{place[1]}{place[2]}"]
                items += [f"{line(axis, place)}w{orientation[axis]}" for axis in range(3)]
                items += [color for _, color in picked if color is not None]
                items += ["c{}.{}.{}".format(*cell) for cell in itertools.product(*spans)]
                options.append(" ".join(items))
    head = (f"| Hoffman's 27 blocks {a} x {b} x {c} in a cube of side {side}, on the grid every packing keeps\n"
            f"| (core/hoffman.py): places, one width of each along every line; first widths, cells\n")
    return head + " ".join(primary) + " | " + " ".join(secondary) + "\n" + "\n".join(options) + "\n"


def hoffman_spec(a: int, b: int, c: int) -> dict[str, Any]:
    name = f"hoffman-{a}x{b}x{c}"
    return {"kind": "exact-cover", "format": "dlx", "name": name, "text": hoffman_dlx(a, b, c)}


def _pattern(name: str) -> dict[str, Any] | None:
    m = _NAME.fullmatch(name)
    if m is None:
        return None
    a, b, c = (int(g) for g in m.groups())
    if c > MOST_WIDTH or not within_theorem(a, b, c):
        return None
    return hoffman_spec(a, b, c)


register_problem(LibraryEntry(
    "hoffman-4x5x6", "Hoffman's 27 blocks: 27 blocks 4x5x6 in a 15x15x15 cube (21 packings up to symmetry)",
    hoffman_spec(4, 5, 6), {"solutions": 21 * 48}))
register_pattern("hoffman-AxBxC", f"Hoffman's 27 blocks A x B x C in a cube of side A+B+C (A < B < C <= {MOST_WIDTH}, "
                 "A+B+C < 4A)", _pattern)
