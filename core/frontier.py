"""Counting by levels: dynamic programming over frontier states (``core/_frontier.c``).

A count does not need the tree: below any node, the number of solutions depends only on
the items covered.  Branching always on the lowest uncovered primary item, the nodes
whose lowest uncovered item is ``c`` form level ``c``; :class:`LevelCounter` expands the
levels in increasing order, each distinct covered set once with the number of paths
reaching it, so a 6x10 pentomino box costs 1.3 million distinct states (with its board
geometry) rather than 3.6 million MRV nodes.  It takes plain covers (no colors, no
multiplicities) of at most 128 items, and bigger ones whose options all fit one 128-bit
window (:func:`window_front`: a 16x16 board of dominoes, a long strip), and the caller
falls back to search when it declines: its memory or work cap reached, which happens
where the frontier is wide (a 3x4x5 pentacube box has over 100 million states at a middle
level), or its count past 2^128.

Where it pays is not known exactly in advance.  On a 6x10 pentomino box it is 5.7x
faster than the search, on an 8x8 board less its centre 1.4x slower (the search's tree
there is smaller than the number of states), and Knuth's random-walk estimate of the
search tree was too unsteady to choose between them: 32 walks put the 6x10 tree anywhere
from 0.2 to 8.6 million nodes (it has 3.6 million).  What does predict it is the
:func:`band`, the reach of the options in item numbers (the frontier's width): the states
grow about exponentially with it.  So ``KernelSolver(levels="auto")`` (the command line's
default) counts by levels a cover of band at most :data:`AUTO_MAX_BAND` whose search did
not end within :data:`AUTO_TRIAL_NODES` nodes; ``levels=True`` (``--by-levels``) always
tries, ``levels=False`` (``--by-search``) never.

Designs measured and dropped (2026-11-26, the project's 2-core x86_64 machine; the
6x10 is the pentomino box, the 8x8 the board less its centre 2x2):

* one width for every state: 128-bit states and counts throughout took 0.61 s on the
  6x10 against 0.49 s with the 64-bit path for states that fit one window;
* hashing instead of sorting: bucketed hash tables per level took 0.44 s on the 6x10
  against 0.35 s for the radix sort, and one big hash table cost a cache miss per move,
  2.5x slower still;
* testing each (lead, piece) group of options for an unused piece instead of iterating
  the bits of the state's free tail: a mispredicted branch per group, twice the tests;
* flooding from each cell around a move to find walled-in regions, instead of the
  neighbour shifts: it cut more states but cost as much as it saved;
* dropping frontier states with a dead cell, in a Python prototype counting tests (the
  8x8 without walls): checking the next four cells saves 50 M move tests and costs 70 M
  option probes; checking every cell cuts the expansions from 2.8 M to 0.3 M at a still
  higher price;
* the 3x4x5 pentacube box by levels in each of the six axis orders: each over 3 GB of
  states; and by levels below the MRV tree's nodes at depths 2-5: 3-4x the search's
  time there;
* the 8x8 split on the X piece's 20 placements, then each part by levels: 1.29 M states
  in all against 0.93 M counted whole (split counts share no states).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from . import _frontier
from .exact_cover import ExactCover
from .pruning import RegionRule

#: items at most (a covered set is one 128-bit word in C)
MAX_ITEMS = 128
#: neighbour offsets at most for the walled-in-cell test (a box has 6)
MAX_SHIFTS = 16
#: ``levels="auto"`` counts by levels covers whose :func:`band` is at most this.  The
#: states grow about exponentially with the band; measured (README, "Counting by levels"):
#: band 24 (6x10 pentomino box) 5.7x faster than the search, 21 (Soma cube) 3x faster,
#: 30 (8x8 board less its centre) 1.4x slower, 48 (3x4x5 pentacube box) out of memory.
AUTO_MAX_BAND = 24
#: ``levels="auto"`` first searches this many nodes: a tree that small is counted by then
#: (MRV may see at once what levels find late, e.g. an item with no option), and a bigger
#: one has cost little (about 3 ms)
AUTO_TRIAL_NODES = 10_000


@dataclass(frozen=True)
class LevelCount:
    """A finished count by levels: the count and what it cost."""

    count: int
    states: int
    leaves: int
    transitions: int
    updates: int
    seconds: float
    #: 64 when the states fitted 64-bit keys and counts (a window of front items plus the
    #: tail items, see core/_frontier.c), else 128
    key_bits: int = 128


class LevelCounter:
    """One exact cover, flattened once for ``core/_frontier.c``.

    Primary items come first in an exact cover, so they keep their ids; an option's lead is
    its lowest primary item and its far item its highest; options with no primary item are
    never chosen by the search and are left out.
    """

    def __init__(self, ec: ExactCover, region: RegionRule | None = None, walls: bool = True):
        why = refusal(ec)
        if why is not None:
            raise ValueError(why)
        self.ec = ec
        #: past MAX_ITEMS items: the front's size (see :func:`window_front`); the options go
        #: to C in window terms, without walls
        self._front = window_front(ec) if ec.n_items > MAX_ITEMS else None
        if self._front is not None:
            self._windowed(self._front)
            return
        rows = []
        for option in ec.options:
            places = sorted(i for i, _ in option)
            if places[0] >= ec.n_primary:
                continue
            rows.append((places[0], places[-1], sum(1 << p for p in places)))
        rows.sort()
        self._leads = [lead for lead, _, _ in rows]
        self._fars = [far for _, far, _ in rows]
        self._lo, self._hi = halves(mask for _, _, mask in rows)
        #: walls (see core/_frontier.c): a move that leaves a cell uncovered with all its
        #: "neighbours" covered is dropped.  From the board when the model gives one (and
        #: then, when every piece has 3+ cells, two cells walled in together too), else
        #: inferred from the cover: a small hitting set of each cell's options.
        #: ``walls=False`` goes without (for tests: the counts must not change).
        self._geometry: tuple = ()
        if not walls:
            neighbours, smallest = {}, 2
        elif region is not None and region.pieces and min(size for size, _ in region.pieces) >= 2:
            neighbours = {item: [region.cells[j] for j in region.neighbors[k]] for k, item in enumerate(region.cells)}
            smallest = min(size for size, _ in region.pieces)
        else:
            neighbours, smallest = _hitting_sets([mask for _, _, mask in rows], set(self._leads)), 2
        sources: dict[int, int] = {}
        for item, around in neighbours.items():
            for other in around:
                sources[other - item] = sources.get(other - item, 0) | 1 << item
        if neighbours and len(sources) <= MAX_SHIFTS:
            cells = sum(1 << item for item in neighbours)
            src_lo, src_hi = halves(sources.values())
            self._geometry = (list(sources), src_lo, src_hi, cells & ((1 << 64) - 1), cells >> 64, smallest)

    def _windowed(self, n_front: int) -> None:
        """The options in window terms: each front item but the lead as bit item - lead - 1,
        each tail item as bit item - n_front."""
        rows = []
        for option in self.ec.options:
            places = sorted(i for i, _ in option)
            if places[0] >= self.ec.n_primary:
                continue
            lead = places[0]
            front = sum(1 << (i - lead - 1) for i in places[1:] if i < n_front)
            tail = sum(1 << (i - n_front) for i in places if i >= n_front)
            rows.append((lead, places[-1], front, tail))
        rows.sort(key=lambda row: row[:2])
        self._leads = [lead for lead, _, _, _ in rows]
        self._fars = [far for _, far, _, _ in rows]
        self._front_lo, self._front_hi = halves(front for _, _, front, _ in rows)
        self._tail_lo, self._tail_hi = halves(tail for _, _, _, tail in rows)
        self._geometry = ()

    @property
    def has_walls(self) -> bool:
        """Whether moves that wall a cell in are dropped (see above)."""
        return bool(self._geometry)

    def count(self, covered: Sequence[int] = (), max_transitions: int = 1 << 62,
              max_bytes: int = 1 << 40, narrow: bool = True) -> LevelCount | None:
        """Count the covers completing ``covered`` (distinct item ids, e.g. the items of a
        path's options), or None when a cap was reached first.  ``narrow=False`` keeps to
        128-bit keys and counts (for tests: both widths must agree)."""
        if self._front is not None:
            out = self._count_windowed(set(covered), max_transitions, max_bytes, narrow)
        else:
            start = sum(1 << i for i in covered)
            out = _frontier.count(
                self.ec.n_items, self.ec.n_primary, self._leads, self._fars, self._lo, self._hi,
                start & ((1 << 64) - 1), start >> 64, int(max_transitions), int(max_bytes), bool(narrow),
                *self._geometry,
            )
        if out is None:
            return None
        high, low, *cost = out
        return LevelCount((high << 64) | low, *cost)

    def _count_windowed(self, covered: set[int], max_transitions: int, max_bytes: int, narrow: bool):
        """``count`` past MAX_ITEMS items: the start in window terms too (its lowest
        uncovered front item, the covered front items above it, the covered tail items)."""
        n_front = self._front
        level = next((i for i in range(n_front) if i not in covered), n_front)
        front = sum(1 << (i - level - 1) for i in covered if level < i < n_front)
        tail = sum(1 << (i - n_front) for i in covered if i >= n_front)
        if front >> 128:
            return None  # the start reaches past any window: the search counts it
        low = (1 << 64) - 1
        return _frontier.count_window(
            self.ec.n_items, self.ec.n_primary, n_front, self._leads, self._fars, self._front_lo, self._front_hi,
            self._tail_lo, self._tail_hi, level, front & low, front >> 64, tail & low, tail >> 64,
            int(max_transitions), int(max_bytes), bool(narrow),
        )


def _hitting_sets(masks: list[int], leads: set[int], most: int = 6) -> dict[int, list[int]]:
    """For each lead item x, a few other lead items such that every option covering x
    covers one of them (greedy, at most ``most``); x is left out when there is none.  On a
    board they are x's neighbours: every polyomino placement over a cell covers a neighbour.
    """
    found: dict[int, list[int]] = {}
    lead_mask = sum(1 << x for x in leads)
    over: dict[int, list[int]] = {x: [] for x in leads}  # the options over each lead item
    for m in masks:
        m &= lead_mask
        rest = m
        while rest:
            low = rest & -rest
            over[low.bit_length() - 1].append(m)
            rest ^= low
    for x in sorted(leads):
        picks, missed = hitting_bits([m & ~(1 << x) for m in over[x]], most)
        if not missed:
            found[x] = [bit.bit_length() - 1 for bit in picks]
    return found


def hitting_bits(masks: list[int], most: int) -> tuple[list[int], list[int]]:
    """A few bits such that every mask holds one (greedy: the bit in the most masks not
    yet hit, the lowest on ties; at most ``most``, and none once a mask is empty), and the
    masks left without one (empty when the bits hit them all)."""
    todo = list(masks)
    picks: list[int] = []
    while todo and len(picks) < most and all(todo):
        tally: dict[int, int] = {}
        for m in todo:
            while m:
                low = m & -m
                tally[low] = tally.get(low, 0) + 1
                m ^= low
        best = max(tally, key=lambda bit: (tally[bit], -bit))
        picks.append(best)
        todo = [m for m in todo if not m & best]
    return picks, todo


def halves(masks) -> tuple[list[int], list[int]]:
    """128-bit masks as their low and high 64-bit halves (what the C side reads)."""
    masks = list(masks)
    return [m & ((1 << 64) - 1) for m in masks], [m >> 64 for m in masks]


def band(ec: ExactCover) -> int:
    """(kept with the cover: see :func:`_band`)"""
    found = ec.derived.get("band")
    if found is None:
        found = ec.derived["band"] = _band(ec)
    return found


def _band(ec: ExactCover) -> int:
    """How far the level count's window must reach: the most items from an option's lead
    to its highest item that is itself some option's lead.  Items that lead no option (the
    pieces of a packing, secondary items) sit in the key's tail instead and do not count.
    On a board numbered row by row it is about the row length times the pieces' reach."""
    n_primary = ec.n_primary
    # an option's least entry (item, color) holds its lead: tuples compare item first
    leads = {lead for lead, _ in map(min, filter(None, ec.options)) if lead < n_primary}
    widest = 0
    for option in ec.options:
        places = [i for i, _ in option if i in leads]
        if places:
            width = max(places) - min(places)
            if width > widest:
                widest = width
    return widest


def worth_trying(ec: ExactCover) -> bool:
    """Should ``levels="auto"`` count this cover by levels once the search has shown it
    is not small?  Accepted, and a band of at most :data:`AUTO_MAX_BAND`."""
    return accepts(ec) and band(ec) <= AUTO_MAX_BAND


def window_front(ec: ExactCover) -> int | None:
    """For a cover of more than :data:`MAX_ITEMS` items: the size of its front (the items
    up to the last lead; the rest, at most 127 items, is the tail) when every option's
    front items lie within 128 - tail items of its lead, so that every state fits one
    128-bit key; else None."""
    rows = [sorted(i for i, _ in option) for option in ec.options]
    leads = [places[0] for places in rows if places[0] < ec.n_primary]
    if not leads:
        return None
    n_front = max(leads) + 1
    t = ec.n_items - n_front
    if t > 127:
        return None
    reach = max((max(i for i in places if i < n_front) - places[0] for places in rows if places[0] < ec.n_primary),
                default=0)
    return n_front if reach <= 128 - t else None


def refusal(ec: ExactCover) -> str | None:
    """Why this cover cannot be counted by levels, or None when it can."""
    what = "counting by levels needs a plain exact cover"
    if ec.n_primary == 0:
        return f"{what} with a primary item"
    if ec.bounds is not None and any(b != (1, 1) for b in ec.bounds) or ec.colored:
        return f"{what} (no colors or multiplicities); this one has some"
    if ec.n_items > MAX_ITEMS and window_front(ec) is None:
        return (f"{what} of at most {MAX_ITEMS} items, or whose options each reach at most 128 items (less those "
                f"after the last lead) past their lowest item; this one has {ec.n_items} items and reaches further")
    return None


def accepts(ec: ExactCover) -> bool:
    """Can this cover be counted by levels? (plain; at most 128 items, or options that fit
    one 128-bit window: see :func:`window_front`)"""
    return refusal(ec) is None
