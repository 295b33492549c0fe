"""The cheap search engine: plain polyform covers on a 128-bit bitboard (``core/_bitboard.c``).

:class:`BitboardSolver` keeps the :class:`~core.search.Solver` contract of the kernel
(paths, weights, budgets, frontiers, limits, splits) for covers of one shape: every item
primary and 1:1, no colors, and the items split into at most 128 *cells* and at most 64
*pieces* with every option holding at least one cell and at most one piece.  The split
is found from the cover itself (:func:`classify`), not from item names.  The tree and
the data layout are described at the top of ``core/_bitboard.c``.

The design kept, and why (measured on the 2-core machine, usually shared with other
jobs, so read the times as upper bounds; nodes are exact):

* the placements that still fit, as a bitset per level (a child's is its parent's less
  the placements in conflict with the one chosen); every test below is a few word ANDs;
* MRV over cells and pieces (fewest fitting placements, counted a word at a time and
  stopped at the fewest so far) for the first ``min(8, 2 * pieces // 3)`` levels, where
  the choice shrinks the tree most; 8 gives the smallest 3x4x5 pentacube tree (40.2 M
  nodes, fewer than the MRV kernel's 45 M; 4: 87.7 M, 6: 64.8 M, 7: 48.5 M, 10: 45.8 M,
  each MRV node costing more) and within 3% of the fewest instructions on the 2D boxes
  (8x8 less its centre: 508 / 409 / 419 M instructions at 6 / 7 / 8);
* below, the first empty cell in the cover's order (the polyform model numbers boards
  along their shortest axis first; with this design the order matters little: the
  pentacube box takes 40.3-40.8 M nodes in all six axis orders, the 6x10 2.50 M in
  columns of 6 against 2.64 M in rows of 10), with every candidate placement checked:
  an empty neighbour of it with at most two empty neighbours left must not be walled in
  and must still have a placement that fits.  That finds most of what MRV finds as an
  item without options (pentacube box with MRV for 6 levels: checking every neighbour
  61.7 M nodes in 30.0 s, those with at most two empty neighbours 64.8 M in 21.3 s, at
  most one 95.6 M in 27.0 s).

Measured side by side (2026-11-27, ``bench/bench_kernel.py --solvers
kernel,cheap,bitboard,xcover``, best of 3, pentacubes once; the machine was shared and
about 1.6x slower than on quiet days: the kernel took 1.6 s on the 6x10, 31 s on the
pentacube box): 6x10 0.75 s against the kernel's 1.62 s (2.2x), 8x8 less its centre
0.085 s against 0.125 s (1.5x), Soma 0.032 s against 0.044 s (1.4x), the 3x4x5 pentacube
box 19.8 s (40.3 M nodes, 490 ns a node) against 31.1 s (44.8 M nodes) (1.6x; xcover
182 s, the textbook bitboard over 200 s); dominoes-8x8 2.6 s against the kernel's memo
0.001 s (no piece to choose, 70 M nodes: count those with the kernel).  The 18 one-sided
pentominoes in a 6x15 box (two-word board), estimated from 40 and 20 random subtrees at
depth 3: 2.1 h +- 0.5 against the kernel's 4.4 h +- 1.4 (about 19 G nodes each).
The aims (3x the kernel on the pentacube box and the 8x8 less its centre, 50-100 ns a
node) are not met: the tree is there (at or below the MRV kernel's), the cost per node
is not (see COST in core/_bitboard.c).

Tried and dropped, in the engine (instructions from callgrind, same tree):

* candidate checks by scanning per-cell placement lists (with a remembered witness)
  before the bitsets: 8x8 less its centre 0.195 s, 2,500 instructions a node;
* MRV counts kept incrementally (the parent's, less the placements that died): 785 M
  instructions against 631 M for counting anew with the early stop (8x8 less its centre);
  counting the cells with at most two empty neighbours first: 8-10% more;
* the walled-in test for every neighbour before any scan: 16% more instructions;
* copying the live bitset two words at a time (SSE2 vectors): more instructions than
  the plain loop the compiler emits;
* no check once one or two pieces are left (their subtrees are small): within 0.6% of
  the instructions either way on the pentacube box.

and in a recursive C prototype (nodes exact, no MRV levels unless said):

* first empty cell alone (the textbook yardstick): 6x10 22.2 M nodes at 48 ns, 8x8 less
  its centre 7.0 M, Soma 861 K; 3x4x5 pentacubes 5.0 G nodes;
* ... plus the walled-in cell test only: 6x10 12.7 M nodes at 93 ns, 8x8 3.6 M; on the
  pentacube box not done in 15 minutes;
* ... plus region sizes by flood fill (every empty region next to the new piece at least
  the smallest piece and a multiple of the sizes' gcd): 6x10 8.9 M nodes but 240 ns a
  node, 8x8 1.9 M: the fill costs more than it saves;
* ... plus "every piece left still fits somewhere": 6x10 3.5 M nodes (from 4.1 M), 8x8
  636 K (from 773 K), at 550-600 ns a node; pentacubes 151.6 M nodes, 140 s;
* "fewest fits among the next K empty cells" (K = 2..4): 6x10 9.1-10.9 M nodes, 8x8
  2.1-2.8 M: the constrained cells are rarely the next few;
* the empty cell with the fewest empty neighbours (a geometric MRV): 6x10 13.0 M nodes,
  8x8 2.6 M, Soma 340 K: no better than the first empty cell;
* MRV over cells only, all the way: 6x10 5.8 M, 8x8 792 K, and on the pentacube box past
  60 M nodes before depth 12 was done: the pieces (I, X) matter in 3D;
* MRV for the first 2 or 3 levels then the first empty cell with the walled-in and region
  tests, on the pentacube box: over 400 s, not finished.
"""
from __future__ import annotations

from typing import Sequence

from . import _bitboard
from .exact_cover import ExactCover
from .pruning import RegionRule
from .frontier import halves, hitting_bits
from .search import COUNT, SolveRequest, SolveResult, Solver, result_of

MAX_CELLS = 128
MAX_PIECES = 64
#: memory at most for the placements' conflict bitsets (options^2 / 8 bytes): 46,000 options
MAX_TABLE_BYTES = 256 << 20
#: MRV (fewest fits among cells and pieces) above this depth, first empty cell below; by
#: default min(MAX_MRV_DEPTH, 2 * pieces // 3) (None): see the module docstring for why
MAX_MRV_DEPTH = 8
#: the cheap part's check of each candidate (see core/_bitboard.c)
DEFAULT_CHECKS = _bitboard.CHECK_ISOLATED | _bitboard.CHECK_DEAD
#: neighbours at most per cell when they are inferred from the cover
_MOST_NEIGHBOURS = 8


def request_stop() -> None:
    """Make running (and later) bitboard searches under a time budget in this process stop
    as if their budget ran out, handing back their frontier, until :func:`clear_stop`
    (see :mod:`core.handoff`)."""
    _bitboard.request_stop()


def clear_stop() -> None:
    """Let bitboard searches run again after :func:`request_stop`."""
    _bitboard.clear_stop()


# ---------------------------------------------------------------------------- classifying
def _cooccurrence(ec: ExactCover) -> tuple[list[int], list[int]]:
    """Options as item bitmasks, and for each item the items it shares an option with."""
    masks = [sum(1 << i for i, _ in option) for option in ec.options]
    with_ = [0] * ec.n_items
    for m in masks:
        rest = m
        while rest:
            low = rest & -rest
            with_[low.bit_length() - 1] |= m
            rest ^= low
    return masks, [w & ~(1 << i) for i, w in enumerate(with_)]


def _valid_split(ec: ExactCover, masks: list[int], with_: list[int], pieces: int) -> bool:
    """Whether ``pieces`` (an item bitmask) splits the cover as the engine needs."""
    n_pieces = pieces.bit_count()
    if n_pieces > MAX_PIECES or ec.n_items - n_pieces > MAX_CELLS:
        return False
    for m in masks:
        p = m & pieces
        if p & (p - 1) or not m & ~pieces:  # two pieces, or no cell
            return False
    if pieces:
        # cells touch cells: a split that leaves every cell alone between "pieces" is a
        # board coloured like a checkerboard (dominoes), not pieces on a board
        cells = ((1 << ec.n_items) - 1) & ~pieces
        rest = cells
        while rest:
            low = rest & -rest
            if not with_[low.bit_length() - 1] & cells:
                return False
            rest ^= low
    return True


def classify(ec: ExactCover) -> tuple[list[int], list[int]] | None:
    """Split the items into (cells, pieces), each in item order, or None (found once per
    cover and kept in its :attr:`~core.exact_cover.ExactCover.derived`: choosing a method
    asks twice before the solver asks again).

    Pieces never share an option, so every candidate is an independent set of the items'
    co-occurrence graph, grown greedily in a few orders (by item index both ways, by
    number of options); each is kept only if every option then has a cell and at most one
    piece and cells touch cells.  Of those (and "no pieces") the split whose pieces are in
    the most options wins: on a polyform cover the pieces are in every option (but those
    of pieces in unlimited supply), which no set of cells is unless the board is a
    checkerboard of dominoes, and that one fails "cells touch cells"."""
    if "bitboard.classify" not in ec.derived:
        ec.derived["bitboard.classify"] = _classify(ec)
    found = ec.derived["bitboard.classify"]
    return None if found is None else (list(found[0]), list(found[1]))


def _classify(ec: ExactCover) -> tuple[list[int], list[int]] | None:
    masks, with_ = _cooccurrence(ec)
    n = ec.n_items
    degree = [0] * n
    for option in ec.options:
        for i, _ in option:
            degree[i] += 1
    orders = [
        list(range(n - 1, -1, -1)),
        list(range(n)),
        sorted(range(n), key=lambda i: (-degree[i], i)),
    ]
    best, best_hits = None, -1
    for order in [[]] + orders:
        pieces = 0
        for i in order:
            if not with_[i] & pieces and degree[i]:
                pieces |= 1 << i
        if not _valid_split(ec, masks, with_, pieces):
            continue
        hits = sum(1 for m in masks if m & pieces)
        if hits > best_hits:
            best, best_hits = pieces, hits
    if best is None:
        return None
    return [i for i in range(n) if not best >> i & 1], [i for i in range(n) if best >> i & 1]


def refusal(ec: ExactCover) -> str | None:
    """Why this cover cannot be searched on a bitboard, or None when it can."""
    what = "the bitboard engine needs a plain polyform cover"
    if len(ec.colors) > 1 or any(c for option in ec.options for _, c in option):
        return f"{what} without colors; this one has colors"
    if ec.bounds is not None:
        return f"{what} without multiplicities (every item covered once); this one has some"
    if ec.n_primary != ec.n_items:
        return f"{what} without secondary items; this one has {ec.n_items - ec.n_primary}"
    if ec.n_options * ((ec.n_options + 63) // 64) * 8 > MAX_TABLE_BYTES:
        return (f"{what} of at most {MAX_TABLE_BYTES >> 20} MB of placement conflicts; this one has "
                f"{ec.n_options} options")
    if classify(ec) is None:
        return (f"{what}: at most {MAX_CELLS} cells and {MAX_PIECES} pieces, every option with a cell and at "
                f"most one piece; this one ({ec.n_items} items) cannot be split that way")
    return None


def accepts(ec: ExactCover) -> bool:
    """Can this cover be searched on a bitboard?"""
    return refusal(ec) is None


# ---------------------------------------------------------------------------- geometry
def _neighbours(cell_masks: list[int], n_cells: int, region_nb: list[list[int]] | None) -> tuple[list[int], list[bool]]:
    """For each cell (bit position): a set of cells that every placement over it also
    covers one of (its board neighbours), and whether that holds (no one-cell placement
    over it).  From the region rule's neighbours when given, else inferred from the
    placements greedily (a small hitting set: :func:`core.frontier.hitting_bits`)."""
    over: list[list[int]] = [[] for _ in range(n_cells)]
    for m in cell_masks:
        rest = m
        while rest:
            low = rest & -rest
            over[low.bit_length() - 1].append(m)
            rest ^= low
    nb, ok = [0] * n_cells, [False] * n_cells
    for c in range(n_cells):
        bit = 1 << c
        if region_nb is not None:
            nb[c] = sum(1 << d for d in region_nb[c]) & ~bit
            ok[c] = all(m & nb[c] for m in over[c])
            continue
        picks, missed = hitting_bits([m & ~bit for m in over[c]], _MOST_NEIGHBOURS)
        nb[c] = sum(picks)
        ok[c] = not missed and nb[c] != 0
    return nb, ok


def _rebuild(ec, region, given, mrv_depth, checks):
    return BitboardSolver(ec, region=region, given=given, mrv_depth=mrv_depth, checks=checks)


class BitboardSolver(Solver):
    """Search a plain polyform cover on a bitboard: MRV near the root, the first empty
    cell below (see ``core/_bitboard.c``).

    ``given``: option ids covered before the root; the search starts from that partial
    cover, paths are relative to it, and solutions include them.  ``region``: the board's
    neighbours (optional: inferred from the cover without it).  ``mrv_depth`` and
    ``checks`` tune the tree (defaults measured, see the module docstring)."""

    def __init__(
        self,
        ec: ExactCover,
        *,
        region: RegionRule | None = None,
        given: Sequence[int] = (),
        mrv_depth: int | None = None,
        checks: int = DEFAULT_CHECKS,
    ):
        why = refusal(ec)
        if why is not None:
            raise ValueError(why)
        self.ec = ec
        self.region = region
        self.given = tuple(int(k) for k in given)
        cells, pieces = classify(ec)  # type: ignore[misc]
        self.mrv_depth = min(MAX_MRV_DEPTH, 2 * len(pieces) // 3) if mrv_depth is None else int(mrv_depth)
        self.checks = int(checks)
        if self.mrv_depth < 0 or not 0 <= self.checks <= 3:
            raise ValueError("mrv_depth must be >= 0 and checks within 0..3")
        bit = {item: k for k, item in enumerate(cells)}
        piece_of = {item: k for k, item in enumerate(pieces)}
        self._cells, self._pieces = cells, pieces
        masks, piece = [], []
        for option in ec.options:
            masks.append(sum(1 << bit[i] for i, _ in option if i in bit))
            piece.append(next((piece_of[i] for i, _ in option if i in piece_of), -1))
        region_nb = None
        if region is not None and sorted(region.cells) == sorted(cells):
            at = {item: k for k, item in enumerate(region.cells)}
            region_nb = [[bit[region.cells[j]] for j in region.neighbors[at[item]]] for item in cells]
        nb, iso_ok = _neighbours(masks, len(cells), region_nb)
        self._masks, self._piece = masks, piece
        self._root = self._root_of(self.given)
        lo, hi = halves(masks)
        nb_lo, nb_hi = halves(nb)
        self._problem = _bitboard.Problem(
            len(cells), len(pieces), lo, hi, piece, list(range(ec.n_options)), nb_lo, nb_hi,
            [int(x) for x in iso_ok], self.mrv_depth, self.checks,
        )

    def _root_of(self, given: Sequence[int]) -> tuple[int, int, int]:
        """The root's board (two words) and pieces left, below the partial cover
        ``given``, whose options must not overlap."""
        masks, piece = self._masks, self._piece
        board, left = 0, (1 << len(self._pieces)) - 1
        for k in given:
            if not 0 <= k < self.ec.n_options:
                raise ValueError(f"given option {k} is outside 0..{self.ec.n_options - 1}")
            if masks[k] & board or (piece[k] >= 0 and not left >> piece[k] & 1):
                raise ValueError(f"given option {k} conflicts with the given options before it")
            board |= masks[k]
            if piece[k] >= 0:
                left &= ~(1 << piece[k])
        return board & ((1 << 64) - 1), board >> 64, left

    def __reduce__(self):  # picklable for process pools: rebuilt from the exact cover
        return (_rebuild, (self.ec, self.region, self.given, self.mrv_depth, self.checks))

    def below(self, given: Sequence[int]) -> "BitboardSolver":
        """This search started from the partial cover ``self.given + given``; the compiled
        problem is shared, not rebuilt."""
        other = object.__new__(BitboardSolver)
        other.__dict__.update(self.__dict__)
        other.given = self.given + tuple(int(k) for k in given)
        other._root = self._root_of(other.given)
        return other

    @property
    def split_items(self) -> tuple[list[int], list[int]]:
        """The items taken as (cells, pieces): see :func:`classify`."""
        return self._cells, self._pieces

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        path = tuple(int(k) for k in path)
        out = _bitboard.solve(
            self._problem,
            *self._root,
            list(path),
            *request.c_arguments(),
        )
        return result_of(out, path, self.given)
