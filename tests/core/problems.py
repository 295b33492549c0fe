"""Generators of classic exact cover problems with published solution counts.

Pure functions returning DLX text, used by the tests, by ``examples/*.dlx`` and by
``bench/make_problems.py``.  Self-contained on purpose: the polyomino shapes and their
orientations are written out here, independent of ``core.polyform``, so the counts check
the solvers against an independent model.
"""
from __future__ import annotations

import itertools
from typing import Iterable, Sequence

Cell = tuple[int, ...]

# ---------------------------------------------------------------------------- the problems
#: problem name (see :func:`generate`) -> published number of solutions
KNOWN_COUNTS: dict[str, int] = {
    "queens4": 2,
    "queens6": 4,
    "queens8": 92,
    "queens10": 724,
    "langford3": 2,
    "langford4": 2,
    "langford7": 52,
    "dominoes4x4": 36,
    "dominoes6x6": 6728,
    "dominoes8x8": 12_988_816,
    "sudoku4x4": 288,
    "sudoku6x6": 28_200_960,
    "pentominoes6x10": 9356,
    "pentominoes8x8-hole": 520,
    "pentominoes3x20": 8,
    "soma": 11520,
}


def queens_dlx(n: int) -> str:
    """N queens: rows and columns primary, the two diagonal families secondary."""
    rows = [f"r{i}" for i in range(n)]
    cols = [f"c{j}" for j in range(n)]
    up = [f"a{s}" for s in range(2 * n - 1)]
    down = [f"b{d}" for d in range(2 * n - 1)]
    options = [
        [f"r{i}", f"c{j}", f"a{i + j}", f"b{i - j + n - 1}"] for i in range(n) for j in range(n)
    ]
    return _dlx(rows + cols, up + down, options, [f"{n} queens on an {n}x{n} board"])


def langford_dlx(n: int) -> str:
    """Langford pairs: place 1 1 2 2 .. n n in 2n slots, k's two copies k slots apart
    (sequences and their reversals both count)."""
    values = [f"v{k}" for k in range(1, n + 1)]
    slots = [f"s{i}" for i in range(1, 2 * n + 1)]
    options = [
        [f"v{k}", f"s{i}", f"s{i + k + 1}"]
        for k in range(1, n + 1)
        for i in range(1, 2 * n - k)
    ]
    return _dlx(values + slots, [], options, [f"Langford pairs, n={n}"])


def dominoes_dlx(rows: int, cols: int) -> str:
    """Domino tilings of a rows x cols rectangle."""
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    options = []
    for r, c in cells:
        if c + 1 < cols:
            options.append([_cell((r, c)), _cell((r, c + 1))])
        if r + 1 < rows:
            options.append([_cell((r, c)), _cell((r + 1, c))])
    return _dlx([_cell(p) for p in cells], [], options, [f"domino tilings of {rows}x{cols}"])


def sudoku_dlx(box_rows: int, box_cols: int) -> str:
    """Every complete sudoku grid of side box_rows*box_cols with box_rows x box_cols boxes."""
    n = box_rows * box_cols
    items = (
        [f"p{r}_{c}" for r in range(n) for c in range(n)]
        + [f"r{r}_{d}" for r in range(n) for d in range(1, n + 1)]
        + [f"c{c}_{d}" for c in range(n) for d in range(1, n + 1)]
        + [f"b{b}_{d}" for b in range(n) for d in range(1, n + 1)]
    )
    options = []
    for r in range(n):
        for c in range(n):
            b = (r // box_rows) * (n // box_cols) + c // box_cols
            for d in range(1, n + 1):
                options.append([f"p{r}_{c}", f"r{r}_{d}", f"c{c}_{d}", f"b{b}_{d}"])
    return _dlx(items, [], options, [f"all {n}x{n} sudoku grids with {box_rows}x{box_cols} boxes"])


# ---------------------------------------------------------------------------- polyforms
#: the 12 pentominoes (Golomb's letters), as pictures
PENTOMINOES: dict[str, str] = {
    "F": ".XX/XX./.X.",
    "I": "XXXXX",
    "L": "XXXX/X...",
    "N": "XX../.XXX",
    "P": "XX/XX/X.",
    "T": "XXX/.X./.X.",
    "U": "X.X/XXX",
    "V": "X../X../XXX",
    "W": "X../XX./.XX",
    "X": ".X./XXX/.X.",
    "Y": "..X./XXXX",
    "Z": "XX./.X./.XX",
}

#: the 7 Soma pieces, as unit cubes (x, y, z)
SOMA: dict[str, tuple[Cell, ...]] = {
    "V": ((0, 0, 0), (1, 0, 0), (0, 1, 0)),
    "L": ((0, 0, 0), (1, 0, 0), (2, 0, 0), (0, 1, 0)),
    "T": ((0, 0, 0), (1, 0, 0), (2, 0, 0), (1, 1, 0)),
    "Z": ((0, 0, 0), (1, 0, 0), (1, 1, 0), (2, 1, 0)),
    "A": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 0, 1)),  # screws: mirror images
    "B": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 1, 1)),
    "P": ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)),  # the branch
}


def picture_cells(picture: str) -> tuple[Cell, ...]:
    """The cells (row, col) of an 'X' picture with rows separated by '/'."""
    return tuple(
        (r, c) for r, row in enumerate(picture.split("/")) for c, ch in enumerate(row) if ch == "X"
    )


def normalize(cells: Iterable[Cell]) -> tuple[Cell, ...]:
    """Translate a shape to touch the origin on every axis, sorted: one name per position."""
    cells = list(cells)
    low = [min(p[k] for p in cells) for k in range(len(cells[0]))]
    return tuple(sorted(tuple(p[k] - low[k] for k in range(len(p))) for p in cells))


def _transforms(dim: int, reflections: bool) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Signed axis permutations (perm, signs): rotations, plus reflections if asked."""
    out = []
    for perm in itertools.permutations(range(dim)):
        inversions = sum(1 for i in range(dim) for j in range(i + 1, dim) if perm[i] > perm[j])
        for signs in itertools.product((1, -1), repeat=dim):
            det = (-1) ** inversions
            for s in signs:
                det *= s
            if det == 1 or reflections:
                out.append((perm, signs))
    return out


def orientations(cells: Sequence[Cell], reflections: bool = True) -> list[tuple[Cell, ...]]:
    """The distinct orientations of a shape (in 2D with reflections: up to 8; 3D rotations:
    up to 24), in a fixed order."""
    seen: dict[tuple[Cell, ...], None] = {}
    for perm, signs in _transforms(len(cells[0]), reflections):
        shape = normalize(tuple(signs[k] * p[perm[k]] for k in range(len(p))) for p in cells)
        seen.setdefault(shape)
    return list(seen)


def packing_dlx(
    pieces: dict[str, Sequence[Cell]],
    board: Iterable[Cell],
    reflections: bool = True,
    comments: Sequence[str] = (),
) -> str:
    """Pack each piece once into the board cells: items = cells (in the order given) then
    pieces, so branching on the first item fills the first empty cell; one option per
    placement (``piece cell ...``)."""
    board = list(board)
    board_set = set(board)
    options = []
    for name, cells in pieces.items():
        for shape in orientations(cells, reflections):
            for anchor in board:
                offset = tuple(a - s for a, s in zip(anchor, shape[0]))
                placed = [tuple(p[k] + offset[k] for k in range(len(p))) for p in shape]
                if all(p in board_set for p in placed):
                    options.append([name] + [_cell(p) for p in placed])
    return _dlx([_cell(p) for p in board] + list(pieces), [], options, comments)


def pentomino_dlx(rows: int, cols: int, holes: Iterable[Cell] = ()) -> str:
    """The 12 pentominoes in a rows x cols box minus ``holes`` (rotations and reflections
    all count as different solutions)."""
    holes = set(holes)
    # cells in the order a "first empty cell" search fills them: across the short side
    if rows <= cols:
        board = [(r, c) for c in range(cols) for r in range(rows) if (r, c) not in holes]
    else:
        board = [(r, c) for r in range(rows) for c in range(cols) if (r, c) not in holes]
    pieces = {name: picture_cells(pic) for name, pic in PENTOMINOES.items()}
    what = f"the 12 pentominoes in a {rows}x{cols} box" + (f" minus {len(holes)} cells" if holes else "")
    return packing_dlx(pieces, board, comments=[what])


def soma_dlx() -> str:
    """The 7 Soma pieces in a 3x3x3 cube (pieces turn but are not mirrored)."""
    board = list(itertools.product(range(3), repeat=3))
    return packing_dlx(SOMA, board, reflections=False, comments=["the Soma cube: 7 pieces in 3x3x3"])


# ---------------------------------------------------------------------------- by name
def generate(name: str) -> str:
    """The DLX text of one of :data:`KNOWN_COUNTS`' problems, with a ``| solutions: N``
    comment at the top (the bench checks counts against it)."""
    return f"| solutions: {KNOWN_COUNTS[name]}\n" + _generate(name)


def _generate(name: str) -> str:
    if name.startswith("queens"):
        return queens_dlx(int(name[6:]))
    if name.startswith("langford"):
        return langford_dlx(int(name[8:]))
    if name.startswith("dominoes"):
        r, c = name[8:].split("x")
        return dominoes_dlx(int(r), int(c))
    if name == "sudoku4x4":
        return sudoku_dlx(2, 2)
    if name == "sudoku6x6":
        return sudoku_dlx(2, 3)
    if name == "pentominoes6x10":
        return pentomino_dlx(6, 10)
    if name == "pentominoes3x20":
        return pentomino_dlx(3, 20)
    if name == "pentominoes8x8-hole":
        return pentomino_dlx(8, 8, holes=[(3, 3), (3, 4), (4, 3), (4, 4)])
    if name == "soma":
        return soma_dlx()
    raise KeyError(name)


# ---------------------------------------------------------------------------- helpers
def _cell(p: Cell) -> str:
    return "_".join(str(v) for v in p)


def _dlx(primary: Sequence[str], secondary: Sequence[str], options: Iterable[Sequence[str]],
         comments: Sequence[str] = ()) -> str:
    lines = [f"| {c}" for c in comments]
    lines.append(" ".join(primary) + (" | " + " ".join(secondary) if secondary else ""))
    lines.extend(" ".join(option) for option in options)
    return "\n".join(lines) + "\n"
