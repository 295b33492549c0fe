"""Counting by levels: dynamic programming over frontier states (``core/_frontier.c``).

A count does not need the tree: below any node, the number of solutions depends only on
the items covered.  Branching always on the lowest uncovered front item, the nodes whose
lowest uncovered item is ``c`` form level ``c``; :class:`LevelCounter` expands the levels
in increasing order, each distinct covered set once with the number of paths reaching
it, so a 6x10 pentomino box costs 1.3 million distinct states (with its board geometry)
rather than 3.6 million MRV nodes, and a 10x10 board of pentominoes in any number 76
million states where the search would not end.  It takes plain covers (no colors, no
multiplicities) whose states fit a key of at most 1024 bits (:func:`refusal`), counts
of any size (residues joined by :mod:`core.residues`), on several threads, from any
start (the items a path covers), and in shares (:meth:`LevelCounter.count` with ``cut``:
the states at a middle level, sliced).

Where it pays is not known in advance: the states can grow exponentially with the
window's width (the :func:`band`).  So it is measured: a count given ``seconds`` or
``stop_level`` stops there and reports the states of each level it expanded, from which
:mod:`core.level_projection` projects the whole count's time and memory.

Designs measured and dropped (2026-11-26, the project's 2-core x86_64 machine; the 6x10
is the pentomino box, the 8x8 the board less its centre 2x2):

* one width for every state: 128-bit states and counts throughout took 0.61 s on the
  6x10 against 0.49 s with the 64-bit path for states that fit one word;
* hashing instead of sorting one-word keys: bucketed hash tables per level took 0.44 s on
  the 6x10 against 0.35 s for the radix sort, and one big hash table cost a cache miss
  per move, 2.5x slower still;
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

import struct
from array import array
from bisect import bisect_left
from dataclasses import dataclass, field
from typing import Sequence

from . import _frontier
from .census import Census, from_u128_bytes
from .exact_cover import ExactCover
from .pruning import RegionRule
from .residues import WORD, CountBound, join, moduli_for

#: the widest state: front window and tail items, in bits (16 words of 64)
MAX_KEY_BITS = 64 * _frontier.MAX_KEY_WORDS
#: neighbour offsets at most for the walled-in-cell test (a box has 6)
MAX_SHIFTS = _frontier.MAX_SHIFTS
#: residues of one pass at most; a count needing more is taken in several passes
MAX_RESIDUES = _frontier.MAX_RESIDUES
#: ``levels="auto"`` first searches this many nodes: a tree that small is counted by then
#: (MRV may see at once what levels find late, e.g. an item with no option), and a bigger
#: one has cost little (about 3 ms)
AUTO_TRIAL_NODES = 10_000
#: memory a count may hold when the caller names none (the kernel's memo cap of old was
#: 256 MB; a level count of the big boards needs gigabytes)
DEFAULT_MAX_BYTES = 1 << 40
#: a bound below this: one exact pass tried first, the residues only where it overflows
#: past 2^64.  The bound is loose: the counts measured have 0.5-0.6 of its bits
#: (tetrominoes 10x10: 56 of 106; pentominoes 10x10: 59 of 119; trominoes 12x12: 74 of
#: 124), so below 2^100 a count fits a word, and past it an exact pass that overflows
#: late costs more (trominoes 12x12: 1.1 s wasted of 2.4) than a second residue all along
#: (about a quarter more time)
_TRY_EXACT = 1 << 100

STATUS = {0: "done", 1: "stopped", 2: "overflow", 3: "declined", 4: "no thread"}


@dataclass
class LevelCount:
    """A count by levels, finished or stopped: the count (when finished) and what it did.

    ``level_states[c]``: the distinct states of level c expanded (relative to the start's
    level: index 0 is the first level counted); ``level_pairs[c]``: the records sent to
    it, duplicates included; ``levels_done``: the levels expanded; ``peak_bytes``: the
    most memory the states held at once."""

    count: int | None
    states: int
    leaves: int
    transitions: int
    updates: int
    seconds: float
    #: the bits of a state's key (64 per word)
    key_bits: int = 64
    residues: int = 1
    passes: int = 1
    peak_bytes: int = 0
    levels_done: int = 0
    level_states: list[int] = field(default_factory=list)
    level_pairs: list[int] = field(default_factory=list)
    status: str = "done"
    #: the records still waiting when a probe stopped
    left_pairs: int = 0
    #: seconds from the start to the end of each level expanded
    level_clock: list[float] = field(default_factory=list)

    @property
    def complete(self) -> bool:
        return self.status == "done"


@dataclass
class LevelCensus:
    """A census by levels (:meth:`LevelCounter.census`): the census when it finished
    (``status`` "done"), else None and why ("declined": past its memory; "overflow":
    past 2^128); the states kept, the moves made, seconds, the most memory held."""

    census: Census | None
    status: str
    states: int
    transitions: int
    updates: int
    seconds: float
    peak_bytes: int


@dataclass(frozen=True)
class Window:
    """A cover in window terms (see core/_frontier.c, KEYS): its front items (the levels)
    and tail items, the window's width, the words of a key."""

    n_front: int
    n_tail: int
    F: int
    key_words: int


def key_words_for(bits: int) -> int | None:
    """The key words that hold ``bits`` bits: 1, 2, 4, 8 or 16 (None past 1024)."""
    for words in (1, 2, 4, 8, 16):
        if bits <= 64 * words:
            return words
    return None


class LevelCounter:
    """One exact cover, flattened once for ``core/_frontier.c``.

    Primary items come first in an exact cover, so they keep their ids; an option's lead is
    its lowest primary item; options with no primary item are never chosen and are left
    out.  The items up to the last lead are the front (the levels), the rest the tail.
    """

    def __init__(self, ec: ExactCover, region: RegionRule | None = None, walls: bool = True,
                 key_words: int | None = None):
        why = refusal(ec)
        if why is not None:
            raise ValueError(why)
        self.ec = ec
        self._rows = rows = led_options(ec)
        self.n_front = max(places[0] for places in rows) + 1 if rows else 1
        self.n_tail = ec.n_items - self.n_front
        #: the widest reach of an option's front items past its lead (the band, at least 1)
        n_front = self.n_front
        self.reach = max([1] + [places[bisect_left(places, n_front) - 1] - places[0] for places in rows])
        #: the proven bound on the count below a state (core.residues)
        self.bound = CountBound(self._primary_sizes())
        self._walls = self._wall_data(region) if walls else None
        self._plans: dict[int, object] = {}
        self._flat_options: tuple[bytes, bytes] | None = None
        #: keys of at least this many words (tests: every width must count alike)
        self.least_words = key_words or 1

    def _primary_sizes(self):
        by_lead: dict[int, list[int]] = {}
        n_primary = self.ec.n_primary
        for places in self._rows:  # (sorted: the primary items come first)
            by_lead.setdefault(places[0], []).append(bisect_left(places, n_primary))
        return by_lead.values()

    # -- the plan: options in window terms -------------------------------------------
    def window(self, F: int | None = None) -> Window | None:
        """The window of a count (``F``: wider than the options' reach, for a start that
        reaches further); None when its keys would pass :data:`MAX_KEY_BITS`.  The window
        is as wide as its key words allow: one plan then serves every start that fits them
        (the units of a count by orbits start with a piece placed anywhere)."""
        extra = self.n_tail + (1 if self._walls else 0)
        words = key_words_for(max(self.reach, F or 0) + extra)
        if words is None:
            return None
        words = max(words, self.least_words)
        return Window(self.n_front, self.n_tail, 64 * words - extra, words)

    def plan(self, F: int | None = None):
        """The C plan for a window at least ``F`` wide (built once per width)."""
        win = self.window(F)
        if win is None:
            raise ValueError(f"the frontier states would need {max(self.reach, F or 0) + self.n_tail} bits "
                             f"(at most {MAX_KEY_BITS})")
        found = self._plans.get(win.F)
        if found is None:
            found = self._plans[win.F] = self._build(win)
        return found

    def _build(self, win: Window):
        """The C plan: the options as flat item lists, put in window terms in C."""
        starts, items = self._flat()
        walls = None
        if self._walls is not None:
            shifts, masks, cells, smallest = self._walls
            if all(abs(d) < 64 * win.key_words for d in shifts):
                walls = (list(shifts), masks.tobytes(), bytes(cells), smallest)
        return _frontier.Plan(win.n_front, win.n_tail, win.F, win.key_words, self.ec.n_primary, starts, items, walls)

    def _flat(self) -> tuple[bytes, bytes]:
        """The options' items, flat (int32), and where each option starts (built once)."""
        if self._flat_options is None:
            starts, items = array("i", [0]), array("i")
            for places in self._rows:
                items.extend(places)
                starts.append(len(items))
            self._flat_options = (starts.tobytes(), items.tobytes())
        return self._flat_options

    def _wall_data(self, region: RegionRule | None):
        """Walls (see core/_frontier.c, WALLS): from the board when the model gives one
        (and then, when every piece has 3+ cells, two cells walled in together too), else
        inferred from the cover: a small hitting set of each front item's options."""
        if region is not None and region.pieces and min(size for size, _ in region.pieces) >= 2:
            neighbours = {item: [region.cells[j] for j in region.neighbors[k]] for k, item in enumerate(region.cells)}
            smallest = min(size for size, _ in region.pieces)
        else:
            masks = [sum(1 << i for i in places) for places in self._rows]
            neighbours, smallest = _hitting_sets(masks, {places[0] for places in self._rows}), 2
        shifts: list[int] = []
        for item, around in neighbours.items():
            if item >= self.n_front:
                continue
            for other in around:
                if other - item not in shifts:
                    shifts.append(other - item)
        if not neighbours or not shifts or len(shifts) > MAX_SHIFTS:
            return None
        masks16 = array("H", [0] * self.n_front)
        cells = bytearray(self.n_front)
        for item, around in neighbours.items():
            if item >= self.n_front:
                continue
            cells[item] = 1
            for other in around:
                masks16[item] |= 1 << shifts.index(other - item)
        return shifts, masks16, cells, smallest

    @property
    def period(self) -> int:
        """The levels of one row of the board (the longest neighbour offset: a rectangle's
        width, a box's layer), or the window's width where there is no board: the unit in
        which the states' growth is measured (:mod:`core.level_projection`)."""
        if self._walls is not None:
            return max([1] + [d for d in self._walls[0] if d > 0])
        return self.reach

    @property
    def levels(self) -> int:
        """The levels of a whole count (the front items)."""
        return self.n_front

    @property
    def has_walls(self) -> bool:
        """Whether moves that wall a cell in are dropped (see core/_frontier.c, WALLS)."""
        return self._walls is not None

    # -- counting ------------------------------------------------------------------
    def start(self, covered: Sequence[int]) -> tuple[int, int, object]:
        """A start (the items ``covered``) in window terms: its level (the lowest
        uncovered front item), its key (covered front items above it, covered tail items,
        laid out in its plan's window) and that plan (wide enough for the furthest covered
        front item past the level)."""
        covered = set(covered)
        level = next((i for i in range(self.n_front) if i not in covered), self.n_front)
        above = [i - level - 1 for i in covered if level < i < self.n_front]
        plan = self.plan(max([self.reach] + [b + 1 for b in above]))
        F = self.window(max([self.reach] + [b + 1 for b in above])).F  # type: ignore[union-attr]
        key = sum(1 << b for b in above) | sum(1 << (F + i - self.n_front) for i in covered if i >= self.n_front)
        return level, key, plan

    def moduli(self, covered: Sequence[int] = ()) -> list[int]:
        """The moduli whose product passes the proven bound below the start ``covered``."""
        uncovered = self.ec.n_primary - sum(1 for i in set(covered) if i < self.ec.n_primary)
        return moduli_for(self.bound(uncovered))

    def count(self, covered: Sequence[int] = (), max_transitions: int = 1 << 62, max_bytes: int = DEFAULT_MAX_BYTES,
              *, threads: int = 1, seconds: float | None = None, stop_level: int | None = None,
              cut: tuple[int, int, int] | None = None, threads_from: int = _frontier.THREADS_FROM
              ) -> LevelCount | None:
        """Count the covers completing ``covered`` (distinct item ids: the items of a
        path's options), exactly however large; None when a cap (memory, moves) was
        reached first.  ``seconds`` / ``stop_level``: a probe, stopped at the first level
        boundary past them (its ``count`` None unless it finished).  ``cut = (level,
        slices, slice)``: that slice of the states at that level only (a share: the
        slices add up to the count).  ``threads_from``: the records of the first level
        counted on every thread (below it thread 0 counts alone; tests set it low)."""
        bound = self.bound(self.ec.n_primary - sum(1 for i in set(covered) if i < self.ec.n_primary))
        if bound < _TRY_EXACT:  # one exact pass first (a probe too: the count would go so)
            out = self.count_modulo(covered, None, max_transitions, max_bytes, threads=threads, seconds=seconds,
                                    stop_level=stop_level, cut=cut, threads_from=threads_from)
            if out is None or out.status != "overflow":
                return out
        return self.count_modulo(covered, moduli_for(bound), max_transitions, max_bytes, threads=threads,
                                 seconds=seconds, stop_level=stop_level, cut=cut, threads_from=threads_from)

    def census(self, covered: Sequence[int] = (), max_bytes: int = DEFAULT_MAX_BYTES) -> LevelCensus:
        """The census of the covers completing ``covered`` (:mod:`core.census`), by a
        forward and a backward pass over the levels (core/_frontier_census.h), on one
        thread.  Both passes keep every level's states: past ``max_bytes`` the census
        stops (status "declined"), and past 2^128 ("overflow"), never with a wrong
        answer; ``census`` is None then.  The options of ``covered`` are not credited
        (the caller knows which options cover it)."""
        level, key, plan = self.start(covered)
        status, total, packed, states, transitions, updates, took, peak = _frontier.census(
            plan, level, _words(key, plan.key_words), int(min(max_bytes, (1 << 64) - 1)))
        name = STATUS[status]
        found = None
        if name == "done":
            by_row = from_u128_bytes(int.from_bytes(total, "little"), packed)
            found = Census.empty(self.ec.n_options)
            found.total = by_row.total
            for row, n in zip(led_option_ids(self.ec), by_row.per_option):
                found.per_option[row] = n
        return LevelCensus(found, name, states, transitions, updates, took, peak)

    def count_modulo(self, covered: Sequence[int], moduli: Sequence[int] | None, max_transitions: int = 1 << 62,
                     max_bytes: int = DEFAULT_MAX_BYTES, *, threads: int = 1, seconds: float | None = None,
                     stop_level: int | None = None, cut: tuple[int, int, int] | None = None,
                     threads_from: int = _frontier.THREADS_FROM) -> LevelCount | None:
        """The count modulo the product of ``moduli`` (2^64 first, then primes below 2^63;
        None: one exact pass, status "overflow" past 2^64), in passes of at most
        :data:`MAX_RESIDUES` residues: the number below their product with the count's
        residues — the count itself where they pass its bound (:meth:`count` sees to that;
        a share's group of moduli, core/level_shares.py, does not)."""
        level, key, plan = self.start(covered)
        KW = plan.key_words
        L = self.n_front
        cut_level, slices, slice_ = (-1, 1, 0) if cut is None else cut
        # passes of at most MAX_RESIDUES residues
        size = MAX_RESIDUES
        groups = [list(moduli[i:i + size]) for i in range(0, len(moduli), size)] if moduli else [None]
        residues: list[int] = []
        done_moduli: list[int] = []
        summary: LevelCount | None = None
        for group in groups:
            if group is None:  # exact: one residue, modulo 2^64, its overflow a status
                words = struct.pack("<Q", 0)
            else:  # 2^64 (first, where it is one of them) is written 0
                words = struct.pack(f"<{len(group)}Q", *(0 if m == WORD else m for m in group))
            out = _frontier.count(plan, level, _words(key, KW), words, group is None, max(1, int(threads)),
                                  max(1, int(threads_from)), cut_level, slices, slice_, int(min(max_bytes, (1 << 64) - 1)),
                                  int(min(max_transitions, (1 << 64) - 1)), -1.0 if seconds is None else float(seconds),
                                  -1 if stop_level is None else int(stop_level))
            (status, packed, states, leaves, transitions, updates, took, peak, levels_done, per_level, pairs, left,
             clock) = out
            if status == 4 and threads > 1:  # no thread could be started: one thread does it all
                return self.count_modulo(covered, moduli, max_transitions, max_bytes, threads=1, seconds=seconds,
                                         stop_level=stop_level, cut=cut, threads_from=threads_from)
            name = STATUS[status]
            if name == "declined":
                return None
            found = list(struct.unpack(f"<{len(packed) // 8}Q", packed))
            if group is None:
                residues, done_moduli = found, [WORD]
            else:
                residues.extend(found)
                done_moduli.extend(group)
            level_states = list(array("Q", per_level))[level:L]
            level_pairs = list(array("Q", pairs))[level:L]
            step = LevelCount(None, states, leaves, transitions, updates, took, 64 * KW, len(found), 1, peak,
                              max(0, levels_done - level), level_states, level_pairs, name, left,
                              list(array("d", clock))[level:L])
            if summary is None:
                summary = step
            else:
                summary.seconds += step.seconds
                summary.passes += 1
                summary.residues += step.residues
                summary.peak_bytes = max(summary.peak_bytes, step.peak_bytes)
            if name != "done":
                summary.status = name
                return summary
        assert summary is not None
        summary.count = join(residues, done_moduli) if len(done_moduli) > 1 else residues[0]
        return summary


def _words(value: int, words: int) -> bytes:
    """A non-negative int as ``words`` little-endian uint64 (what the C side reads)."""
    return value.to_bytes(8 * words, "little")


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
    """128-bit masks as their low and high 64-bit halves (what the bitboard's C side reads)."""
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


def led_options(ec: ExactCover) -> list[list[int]]:
    """The items of each option that has a primary item (its lead, the lowest), sorted:
    what the level count reads of a cover (kept with the cover)."""
    found = ec.derived.get("led options")
    if found is None:
        rows = [sorted(i for i, _ in option) for option in ec.options if option]
        found = ec.derived["led options"] = [places for places in rows if places[0] < ec.n_primary]
    return found


def led_option_ids(ec: ExactCover) -> list[int]:
    """The option id of each row of :func:`led_options` (kept with the cover)."""
    found = ec.derived.get("led option ids")
    if found is None:
        found = ec.derived["led option ids"] = [k for k, option in enumerate(ec.options)
                                                if option and min(i for i, _ in option) < ec.n_primary]
    return found


def state_bits(ec: ExactCover) -> int:
    """The bits of a state's key for this cover: the options' reach past their lead
    (the items up to the last lead, the front) plus the items after it (the tail)."""
    rows = led_options(ec)
    if not rows:
        return 1
    n_front = max(places[0] for places in rows) + 1
    reach = max([1] + [max(i for i in places if i < n_front) - places[0] for places in rows])
    return reach + ec.n_items - n_front


def refusal(ec: ExactCover, width: bool = True) -> str | None:
    """Why this cover cannot be counted by levels, or None when it can (kept with the
    cover); ``width=False`` leaves out the width of its states, which takes a pass over
    every option (the method choice asks it last)."""
    what = "counting by levels needs a plain exact cover"
    if ec.n_primary == 0:
        return f"{what} with a primary item"
    if ec.bounds is not None and any(b != (1, 1) for b in ec.bounds) or ec.colored:
        return f"{what} (no colors or multiplicities); this one has some"
    if not width:
        return None
    if "level refusal" not in ec.derived:
        ec.derived["level refusal"] = _width_refusal(ec)
    return ec.derived["level refusal"]


def _width_refusal(ec: ExactCover) -> str | None:
    bits = state_bits(ec)
    if bits + 1 > MAX_KEY_BITS:
        return (f"counting by levels keeps a state in at most {MAX_KEY_BITS} bits (its window of items past the lowest "
                f"uncovered one, and the items after the last lead); this cover needs {bits}")
    return None


def accepts(ec: ExactCover) -> bool:
    """Can this cover be counted by levels? (plain, and states of at most
    :data:`MAX_KEY_BITS` bits: see :func:`refusal`)"""
    return refusal(ec) is None


#: levels below a search node (the units of a count by orbits, ``levels="auto"`` of the
#: Python API) are tried on covers whose :func:`band` is at most this and whose pieces are
#: used once each (:func:`has_piece_items`): measured on the library (2026-11-26): band 24
#: (6x10 pentomino box) 5.7x faster than the search, 21 (Soma cube) 3x faster, 30 (8x8
#: board less its centre) 1.4x slower, 48 (3x4x5 pentacube box) out of memory.  A whole
#: count by levels is not ruled so: it is measured (core.level_measure).
AUTO_MAX_BAND = 24


def has_piece_items(ec: ExactCover) -> bool:
    """Whether the cover has pieces used once each: primary items past the last lead whose
    options' leads lie further apart than the :func:`band` (a piece placed anywhere on the
    board, not a board's last cells, which only options ending there cover).  Their states
    remember which pieces are placed, so a count below one placement (a unit of a count by
    orbits) shares little with another's, and orbits pay."""
    found = ec.derived.get("piece items")
    if found is None:
        found = ec.derived["piece items"] = _has_piece_items(ec)
    return found


def _has_piece_items(ec: ExactCover) -> bool:
    rows = led_options(ec)
    if not rows:
        return False
    last_lead = max(places[0] for places in rows)
    span: dict[int, list[int]] = {}
    for places in rows:
        for i in places:
            if last_lead < i < ec.n_primary:
                lo_hi = span.setdefault(i, [places[0], places[0]])
                lo_hi[0] = min(lo_hi[0], places[0])
                lo_hi[1] = max(lo_hi[1], places[0])
    width = band(ec)
    return any(hi - lo > width for lo, hi in span.values())


def worth_trying(ec: ExactCover) -> bool:
    """Should levels be tried below a search node of this cover (see :data:`AUTO_MAX_BAND`)?"""
    return accepts(ec) and band(ec) <= AUTO_MAX_BAND
