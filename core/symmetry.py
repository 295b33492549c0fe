"""A symmetry group acting on an exact cover, and counting with it.

A model that knows its problem's symmetries (polyforms: the board's rotations and
reflections that map the board and the piece set to themselves) gives them as
permutations of the items (:class:`OptionSymmetry`); through them each acts on the
options and maps every solution to a solution.  ``--distinct`` counts once per orbit of
solutions (:mod:`core.distinct`); a whole count need not search symmetric copies at all
(:class:`OrbitCounter`):

**Counting by orbits.**  Take an *anchor*: a primary item covered exactly once in every
solution (a piece placed once, a board cell), and the subgroup H of G that maps it to
itself.  H permutes the options that cover the anchor; every solution contains exactly
one of them, and g in H maps the solutions containing x one-to-one onto those
containing g(x).  So, with one representative x per H-orbit of those options,

    total = sum over representatives x of |orbit(x)| * (solutions containing x),

exact, stabilisers included, with no deduplication.  The search below x is the
engine's own search started from the partial cover {x} (:meth:`Solver.below
<core.search.Solver.below>`); where x's stabiliser in H is larger than the identity, it
is used again below x with an anchor of its own.  The tree gets a virtual root whose
children are the representatives, so paths, weights, splits, budgets and frontiers work
as for any solver: a distributed run splits at the representatives first.
"""
from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Callable, Sequence

from .bitsets import bits
from .census import Census
from .errors import PathError
from .exact_cover import ExactCover
from .search import COUNT, SolveRequest, SolveResult, Solver, Stats, Subpath


class OptionSymmetry:
    """A group G acting on an exact cover: each element a permutation of the items (the
    identity first), acting on an option through its items."""

    def __init__(self, ec: ExactCover, item_permutations: Sequence[Sequence[int]], description: str = "",
                 single_pieces: dict[int, list[int]] | None = None):
        self.ec = ec
        self.items = tuple(tuple(g) for g in item_permutations)
        #: what the group is, in one line ("the 4 symmetries of the 6x10 board and its pieces")
        self.description = description
        #: for --distinct: each piece kind placed exactly once in every solution and mapped
        #: to itself by all of G, with its option ids (the kind's number is the model's own)
        self.single_pieces = single_pieces or {}

    @property
    def order(self) -> int:
        return len(self.items)

    @cached_property
    def _by_items(self) -> dict[frozenset[int], int]:
        index: dict[frozenset[int], int] = {}
        for k, items in enumerate(self.ec.item_sets):
            index.setdefault(items, k)
        return index

    def image(self, g: int, option: int) -> int:
        """The option element ``g`` maps ``option`` to (KeyError when the item
        permutation is not a symmetry of the cover); kept once found (the anchors of a
        run ask for the same images again and again)."""
        images = self._images[g]
        found = images.get(option)
        if found is None:
            items = self.items[g]
            found = images[option] = self._by_items[frozenset([items[i] for i in self.ec.item_sets[option]])]
        return found

    @cached_property
    def _images(self) -> list[dict[int, int]]:
        return [{} for _ in self.items]

    @cached_property
    def anchors(self) -> dict:
        """The anchors found so far (:func:`best_anchor`), by (elements, partial cover)."""
        return {}

    @cached_property
    def countable(self) -> bool:
        """Whether counting by orbits takes the cover (:func:`countable`)."""
        return countable(self.ec)

    @cached_property
    def permutations(self) -> tuple[tuple[int, ...], ...]:
        """Each element of G as a permutation of the option ids."""
        return tuple(tuple(self.image(g, k) for k in range(self.ec.n_options)) for g in range(self.order))


def orbits(perms: Sequence[tuple[int, ...]], elements: Sequence[int]) -> list[tuple[int, list[int]]]:
    """G-orbits of the given option ids: (smallest element, stabiliser indices in perms)."""
    seen: set[int] = set()
    out = []
    for x in sorted(elements):
        if x in seen:
            continue
        orbit = {g[x] for g in perms}
        seen |= orbit
        out.append((x, [i for i, g in enumerate(perms) if g[x] == x]))
    return out


def countable(ec: ExactCover) -> bool:
    """Whether counting by orbits takes this cover: no colors (multiplicities are fine)."""
    return not ec.colored


# ----------------------------------------------------------------------------- anchors
@dataclass(frozen=True)
class Representative:
    """One option per orbit: its id, the orbit's size, its stabiliser (element indices)."""

    option: int
    orbit: int
    stabiliser: tuple[int, ...]


@dataclass(frozen=True)
class Anchor:
    """An item every solution covers exactly once, the elements of the group fixing it,
    and one representative per orbit of the live options covering it."""

    item: int
    subgroup: tuple[int, ...]
    representatives: tuple[Representative, ...]
    #: the live options covering the item
    covering: int


def _options_by_item(ec: ExactCover) -> tuple[int, ...]:
    """For each item, the options that use it as a bitmask (bit k: option k), computed once
    per cover: live options and anchor sizes are then a few big-integer operations a
    partial cover, where walking the options' item sets took a millisecond each time (the
    pentacube box: 34 anchors to plan a Celery run, 33 ms in all; 2026-11-28)."""
    masks = ec.derived.get("options by item")
    if masks is None:
        n_bytes = (ec.n_options + 7) // 8
        out = []
        for options in ec.covering:
            bits = bytearray(n_bytes)
            for k in options:
                bits[k >> 3] |= 1 << (k & 7)
            out.append(int.from_bytes(bits, "little"))
        masks = ec.derived["options by item"] = tuple(out)
    return masks


def _live_mask(ec: ExactCover, given: Sequence[int]) -> int:
    """:func:`live_options` as a bitmask."""
    everything = (1 << ec.n_options) - 1
    if not given:
        return everything
    sets = ec.item_sets
    used: dict[int, int] = {}
    for k in given:
        for i in sets[k]:
            used[i] = used.get(i, 0) + 1
    masks = _options_by_item(ec)
    dead = 0
    for i, n in used.items():
        if n >= (ec.bound(i)[1] if i < ec.n_primary else 1):
            dead |= masks[i]
    for k in given:
        dead |= 1 << k
    return everything & ~dead


def live_options(ec: ExactCover, given: Sequence[int]) -> Sequence[int]:
    """The options that can still be chosen below the partial cover ``given``: none of
    their items saturated (covered once, or ``hi`` times for a multiplicity)."""
    if not given:
        return range(ec.n_options)
    return bits(_live_mask(ec, given))


def best_anchor(group: OptionSymmetry, elements: Sequence[int], given: Sequence[int] = ()) -> Anchor | None:
    """(kept with the group: see :func:`find_anchor`)"""
    key = (tuple(elements), tuple(given))
    if key not in group.anchors:
        group.anchors[key] = find_anchor(group, elements, given)
    return group.anchors[key]


def find_anchor(group: OptionSymmetry, elements: Sequence[int], given: Sequence[int] = ()) -> Anchor | None:
    """The anchor below the partial cover ``given`` (which every element of ``elements``
    maps to itself) with the fewest representatives — each is the root of a search —,
    ties to the larger subgroup, then the lower item; None when no uncovered item is fixed
    by more than the identity.  Items are tried in order of the fewest representatives
    they could have (live options over subgroup order), so few orbits are computed."""
    ec = group.ec
    # at the root every option is live: an item's options are its covering list, and the
    # masks (an integer of n_options bits per item: 0.4 GB and 0.7 s for the 200x200 domino
    # board's one anchor) are not made
    masks = _options_by_item(ec) if given else None
    live = _live_mask(ec, given) if given else -1
    covered = {i for k in given for i in ec.item_sets[k]}
    candidates = []
    for i in range(ec.n_primary):
        if ec.bound(i) != (1, 1) or i in covered:
            continue
        n_covering = (masks[i] & live).bit_count() if masks is not None else len(ec.covering[i])
        if not n_covering:
            continue
        subgroup = tuple(g for g in elements if group.items[g][i] == i)
        if len(subgroup) > 1:
            candidates.append((-(-n_covering // len(subgroup)), -len(subgroup), i, subgroup, n_covering))
    candidates.sort()
    best: tuple | None = None
    for bound, negative_order, i, subgroup, n_covering in candidates:
        if best is not None and (bound, negative_order, i) >= best[0]:
            break
        reps = _representatives(group, subgroup, bits(masks[i] & live) if masks is not None else ec.covering[i])
        key = (len(reps), negative_order, i)
        if best is None or key < best[0]:
            best = (key, Anchor(i, subgroup, reps, n_covering))
    return None if best is None else best[1]


def _representatives(group: OptionSymmetry, subgroup: Sequence[int], options: Sequence[int]) -> tuple[Representative, ...]:
    seen: set[int] = set()
    out = []
    for x in sorted(options):
        if x in seen:
            continue
        images = [group.image(g, x) for g in subgroup]
        seen.update(images)
        out.append(Representative(x, len(set(images)), tuple(g for g, y in zip(subgroup, images) if y == x)))
    return tuple(out)


# ----------------------------------------------------------------------------- the counter
class OrbitCounter(Solver):
    """Counts every solution by searching below one representative per orbit of the
    anchor's options, each count weighted by its orbit's size (see the module text).

    ``below(given)`` is the inner solver's search started from the partial cover
    ``given``.  Below a representative whose stabiliser is larger than the identity, the
    stabiliser is used again with an anchor of its own (``nested`` levels deep at most,
    where that leaves fewer first choices: the pentacube box's representatives of the I
    piece are each fixed by a reflection, and the second level takes its tree from 13.2 to
    5.9 million nodes).  Paths are ``(j, *child
    path)`` for representative ``j``.  It counts only: listing would need the symmetric
    copies, which it never sees.
    """

    def __init__(self, group: OptionSymmetry, below: Callable[[tuple[int, ...]], Solver], *,
                 elements: Sequence[int] | None = None, given: tuple[int, ...] = (), nested: int = 2,
                 anchor: Anchor | None = None):
        if not group.countable:
            raise ValueError("counting by orbits needs a cover without colors")
        self.group = group
        self.elements = tuple(range(group.order)) if elements is None else tuple(elements)
        self.given = tuple(given)
        self.nested = nested
        self._below = below
        found = anchor or best_anchor(group, self.elements, self.given)
        if found is None:
            raise ValueError("no item is fixed by more than the identity: nothing to count by orbits")
        self.anchor = found
        self._children: dict[int, Solver] = {}

    @property
    def description(self) -> str:
        """Which item anchors the count, how many first choices were left, which group."""
        a, group = self.anchor, self.group
        of = f"{len(a.subgroup)} of {group.description}" if group.description else f"{len(a.subgroup)} symmetries"
        return (f"{group.ec.items[a.item]}: {len(a.representatives)} of its {a.covering} options, one per orbit "
                f"of {of}")

    def __reduce__(self):  # picklable for process pools where the inner factory is
        return (_rebuild, (self.group, self._below, self.elements, self.given, self.nested, self.anchor))

    def child(self, j: int) -> Solver:
        """The search below representative ``j``."""
        solver = self._children.get(j)
        if solver is None:
            rep = self.anchor.representatives[j]
            given = self.given + (rep.option,)
            if self.nested > 0 and len(rep.stabiliser) > 1:
                inner = best_anchor(self.group, rep.stabiliser, given)
                if inner is not None and len(inner.representatives) < inner.covering:
                    solver = OrbitCounter(self.group, self._below, elements=rep.stabiliser, given=given,
                                          nested=self.nested - 1, anchor=inner)
            if solver is None:
                solver = self._below(given)
            self._children[j] = solver
        return solver

    def cover_of(self, path: Sequence[int]) -> tuple[int, ...] | None:
        """The partial cover a path of this count stands for: the representatives' options
        down the nested counts, then the inner search's path (option ids); None for the
        root, and for a path that ends in a nested count (its count is weighted by orbits:
        no plain search below the cover counts the same)."""
        if not path:
            return None
        j = path[0]
        option = self.anchor.representatives[j].option
        child = self.child(j)
        if isinstance(child, OrbitCounter):
            inner = child.cover_of(path[1:])
            return None if inner is None else (option,) + inner
        return (option,) + tuple(path[1:])

    def searches(self) -> list[tuple[tuple[int, ...], Solver]]:
        """The inner solvers this count runs (each below a representative, through the
        nested counts), with their paths from this root."""
        out: list[tuple[tuple[int, ...], Solver]] = []
        for j in range(len(self.anchor.representatives)):
            child = self.child(j)
            if isinstance(child, OrbitCounter):
                out.extend(((j,) + path, solver) for path, solver in child.searches())
            else:
                out.append(((j,), child))
        return out

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        if request.listing:
            raise ValueError("counting by orbits lists no solutions: search without symmetry to list them")
        path = tuple(path)
        reps = self.anchor.representatives
        m = len(reps)
        share = Fraction(1, m)
        started = time.monotonic()
        out = SolveResult(path, Fraction(1), 0, Stats(), [], None, None)
        if path:
            j = path[0]
            if not (isinstance(j, int) and 0 <= j < m):
                raise PathError(f"path {list(path)}: the root has choices 0..{m - 1}, not {j!r}")
            todo = [(j, path[1:])]
        else:
            if request.max_depth is not None and request.max_depth <= 0:
                out.frontier = [Subpath((), Fraction(1))]
                return out
            out.stats.nodes += 1
            out.stats.nodes_per_depth = [1]
            todo = [(j, ()) for j in range(m)]
        inner_depth = None if request.max_depth is None else request.max_depth - 1
        for j, rest in todo:
            if out.stopped_by is not None:  # the budget ran out: the rest is frontier
                out.frontier.append(Subpath((j,), share))
                continue
            left_nodes = None if request.node_budget is None else max(1, request.node_budget - out.stats.nodes)
            left_seconds = None if request.seconds is None else max(1e-6, request.seconds - (time.monotonic() - started))
            r = self.child(j).solve(rest, SolveRequest(node_budget=left_nodes, seconds=left_seconds,
                                                       max_depth=inner_depth))
            if path:
                out.weight = share * r.weight
            out.count += r.count * reps[j].orbit
            out.stats.add(_one_level_down(r.stats))
            out.frontier.extend(Subpath((j,) + tuple(s.path), share * s.weight) for s in r.frontier)
            if r.stopped_by is not None:
                out.stopped_by = r.stopped_by
            elif request.budgeted and not path and _spent(request, started, out.stats.nodes):
                out.stopped_by = "budget"  # a child that outran the budget (a level count): the rest is frontier
        out.stats.solutions = out.count
        out.stats.seconds = time.monotonic() - started
        return out


    def census(self, path: Sequence[int] = ()) -> Census:
        """The census below ``path`` (:mod:`core.census`), mapped back through the group:
        the solutions containing g(x) are the images by g of those containing the
        representative x, so the census below x, moved by one element g per image g(x)
        of x's orbit (a coset of its stabiliser), adds up to the census of every solution
        containing an option of the orbit.  A path ``(j, *rest)`` is the part of
        representative j's orbit below ``rest``, as its count is."""
        path = tuple(path)
        reps = self.anchor.representatives
        if path and not (isinstance(path[0], int) and 0 <= path[0] < len(reps)):
            raise PathError(f"path {list(path)}: the root has choices 0..{len(reps) - 1}, not {path[0]!r}")
        out = Census.empty(self.group.ec.n_options)
        for j in [path[0]] if path else range(len(reps)):
            below = self.child(j).census(path[1:])
            for g in self._coset_elements(reps[j].option):
                out.add(self._moved(g, below))
        return out

    def _coset_elements(self, option: int) -> list[int]:
        """One element of the anchor's subgroup per image of ``option`` (its orbit)."""
        seen: dict[int, int] = {}
        for g in self.anchor.subgroup:
            seen.setdefault(self.group.image(g, option), g)
        return list(seen.values())

    def _moved(self, g: int, census: Census) -> Census:
        """The census of the images by element ``g`` of the solutions counted."""
        out = Census.empty(len(census.per_option))
        out.total = census.total
        for k, n in enumerate(census.per_option):
            if n:
                out.per_option[self.group.image(g, k)] += n
        return out

    def after_first(self, first: SolveResult) -> SolveResult:
        """The root's result when only the first representative's search has run
        (``first``: its result, counted from that search's own root): the rest of it and
        every other representative are the frontier — what :meth:`solve` returns when a
        budget stops it there, so the search can be carried on from it."""
        reps = self.anchor.representatives
        share = Fraction(1, len(reps))
        stats = Stats(nodes=1, nodes_per_depth=[1])
        stats.add(_one_level_down(first.stats))
        frontier = ([Subpath((0,) + tuple(s.path), share * s.weight) for s in first.frontier]
                    + [Subpath((j,), share) for j in range(1, len(reps))])
        return SolveResult((), Fraction(1), first.count * reps[0].orbit, stats, frontier,
                           stopped_by="budget" if frontier else None)


def _spent(request: SolveRequest, started: float, nodes: int) -> bool:
    if request.node_budget is not None and nodes >= request.node_budget:
        return True
    return request.seconds is not None and time.monotonic() - started >= request.seconds


def _rebuild(group, below, elements, given, nested, anchor) -> OrbitCounter:
    return OrbitCounter(group, below, elements=elements, given=given, nested=nested, anchor=anchor)


def _one_level_down(part: Stats) -> Stats:
    """A child's statistics with its depths counted from the virtual root."""
    return Stats(part.nodes, part.leaves, part.solutions, part.updates, part.seconds,
                 [0] + list(part.nodes_per_depth), part.by_levels)
