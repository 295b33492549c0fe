"""The search contract every solver keeps: count, enumerate, first N, split, budgets.

A **path** is the tuple of option ids chosen from the root, in order; it names one node
of the search tree.  The search is deterministic, so a path can be replayed anywhere.
A node's **weight** is the product of ``1/branching factor`` along its path: an exact
:class:`fractions.Fraction`.  A **frontier** is a list of :class:`Subpath` whose
subtrees partition what is left to search; its weights add up to the weight searched.

Every solver (the C kernel, the pure-Python reference, the models that bring their own
search) implements :class:`Solver`'s one primitive, :meth:`Solver.solve`; everything else
is derived from it here, once.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterator, Sequence

from .census import Census
from .errors import CensusError

Path = tuple[int, ...]


@dataclass(frozen=True)
class Subpath:
    """A node of the search tree to be searched: its path and its share of the tree."""

    path: Path
    weight: Fraction

    def to_json(self) -> dict:
        return {"path": list(self.path), "weight": f"{self.weight.numerator}/{self.weight.denominator}"}

    @classmethod
    def from_json(cls, data: dict) -> "Subpath":
        return cls(tuple(data["path"]), Fraction(data["weight"]))


@dataclass
class Stats:
    """What a search did: nodes entered, leaves (nodes found to have no children: the
    solutions and the dead ends reached; not a memo hit, nor a node left unexpanded by a
    budget or a split), solutions found, compatibility tests made (``updates``, a
    machine-independent cost like Knuth's mems), nodes per depth, seconds, and how many
    of the parts summed were counted by levels (``by_levels``: their "nodes" are distinct
    frontier states, with no depth)."""

    nodes: int = 0
    leaves: int = 0
    solutions: int = 0
    updates: int = 0
    seconds: float = 0.0
    nodes_per_depth: list[int] = field(default_factory=list)
    by_levels: int = 0

    def add(self, other: "Stats") -> None:
        self.nodes += other.nodes
        self.leaves += other.leaves
        self.solutions += other.solutions
        self.updates += other.updates
        self.seconds += other.seconds
        self.by_levels += other.by_levels
        if len(other.nodes_per_depth) > len(self.nodes_per_depth):
            self.nodes_per_depth.extend([0] * (len(other.nodes_per_depth) - len(self.nodes_per_depth)))
        for d, n in enumerate(other.nodes_per_depth):
            self.nodes_per_depth[d] += n

    def to_json(self) -> dict:
        return {
            "nodes": self.nodes,
            "leaves": self.leaves,
            "solutions": self.solutions,
            "updates": self.updates,
            "seconds": round(self.seconds, 6),
            "nodes_per_depth": list(self.nodes_per_depth),
            "by_levels": self.by_levels,
        }


@dataclass(frozen=True)
class SolveRequest:
    """What one :meth:`Solver.solve` call is asked to do: count or also list the
    solutions, and where to stop.  ``SolveRequest()`` counts the whole subtree.

    * ``listing``: also return the solutions found (each a path of option ids);
    * ``limit``: stop after this many solutions (``stopped_by="limit"``) and return the
      rest of the subtree as the frontier, so listing can go on from there;
    * ``node_budget`` / ``seconds``: stop once that much work is done and return the
      unexplored frontier (``stopped_by="budget"``); at least one node is expanded.  On
      a tree so deep that the frontier would be huge, the C search hands back a shallower
      node whole instead, its count taken back (``frontier_cap`` in core/_kernel.c);
    * ``max_depth``: do not expand nodes at this depth (counted from the root of the whole
      tree): they are returned as the frontier — this is :meth:`Solver.split`.
    """

    listing: bool = False
    limit: int | None = None
    node_budget: int | None = None
    seconds: float | None = None
    max_depth: int | None = None

    def c_arguments(self) -> tuple[bool, int, int, float, int]:
        """``(listing, limit, node_budget, seconds, max_depth)`` as the C searches take
        them: -1 for "none", negative values clamped to 0."""
        return (self.listing,
                -1 if self.limit is None else max(0, int(self.limit)),
                -1 if self.node_budget is None else max(0, int(self.node_budget)),
                -1.0 if self.seconds is None else max(0.0, float(self.seconds)),
                -1 if self.max_depth is None else max(0, int(self.max_depth)))

    @property
    def budgeted(self) -> bool:
        """Whether a node or time budget may stop the search."""
        return self.node_budget is not None or self.seconds is not None

    @property
    def whole_count(self) -> bool:
        """A count of the whole subtree: nothing listed, nothing stops it but its end
        (a time budget aside, which the solver may honour or outrun)."""
        return not self.listing and self.limit is None and self.node_budget is None and self.max_depth is None


#: count the whole subtree
COUNT = SolveRequest()


@dataclass
class SolveResult:
    """The outcome of :meth:`Solver.solve` on one path.

    ``count`` solutions were found in the part searched; ``solutions`` holds them when
    enumerating (each a path: option ids in the order chosen).  ``frontier`` is empty when
    the subtree was searched to the end (``complete``); otherwise it lists the unexplored
    nodes, and their weights plus the weight searched equal the path's weight.
    """

    path: Path
    weight: Fraction
    count: int
    stats: Stats
    frontier: list[Subpath]
    solutions: list[Path] | None = None
    stopped_by: str | None = None  # None, "budget" or "limit"
    #: solutions counted once per symmetry class, for solvers that break symmetry
    distinct: int | None = None
    #: where a count chosen by levels gave up and the search counted instead: why, in words
    #: (:class:`core.level_shares.LevelShares`)
    gave_up: str | None = None

    @property
    def complete(self) -> bool:
        return not self.frontier

    @property
    def weight_done(self) -> Fraction:
        return self.weight - sum((s.weight for s in self.frontier), Fraction(0))


class Solver:
    """The search contract.  Subclasses implement :meth:`solve`; the rest is derived.

    ``solve(path, request)`` replays ``path`` (an illegal path raises
    :class:`core.errors.PathError`) and searches the subtree below it as the
    :class:`SolveRequest` asks.
    """

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:  # pragma: no cover
        raise NotImplementedError

    def below(self, given: Sequence[int]) -> "Solver":
        """The same search started from the partial cover ``given`` (option ids covered
        before the root; they must not conflict): its paths are relative to that root,
        its solutions include ``given``.  The engines that search exact covers have it;
        :class:`core.symmetry.OrbitCounter` counts with it."""
        raise NotImplementedError(f"{type(self).__name__} cannot start below a partial cover")

    def census(self, path: Sequence[int] = ()) -> Census:
        """The count below ``path`` and, for every option, the solutions below it that use
        it (:mod:`core.census`), exact, without listing them; the options of ``path`` and
        of the partial cover started from count for every solution.  The census of a
        split's subproblems add up to the whole census.  Solvers that cannot take one say
        so (:class:`core.errors.CensusError`)."""
        raise CensusError(f"the {type(self).__name__} takes no census; count by search or by levels to take one")

    # -- derived operations ------------------------------------------------
    def count(self, path: Sequence[int] = ()) -> int:
        """The number of solutions below ``path``."""
        return self.solve(path).count

    def first(self, n: int, path: Sequence[int] = ()) -> list[Path]:
        """The first ``n`` solutions in search order."""
        return list(self.solve(path, SolveRequest(listing=True, limit=n)).solutions or [])

    def solutions(self, path: Sequence[int] = (), *, batch: int = 10_000) -> Iterator[Path]:
        """Every solution below ``path``, lazily: the search runs in batches, so memory
        stays flat however many there are."""
        pending = [Subpath(tuple(path), Fraction(0))]
        while pending:
            sub = pending.pop()
            result = self.solve(sub.path, SolveRequest(listing=True, limit=batch))
            yield from result.solutions or []
            # stopped by the limit: the rest of this subtree is the frontier, in search order
            pending.extend(reversed(result.frontier))

    def split(self, depth: int, path: Sequence[int] = ()) -> list[Subpath]:
        """The frontier at ``depth``: every node ``depth`` choices deep, plus every leaf
        (solution or dead end) shallower than that.  Weights add up to the path's weight."""
        result = self.solve(path, SolveRequest(max_depth=depth))
        return result.frontier

    def divide(self, frontier: Sequence[Subpath], n: int, max_depth: int = 64) -> list[Subpath]:
        """The same part of the tree in at least ``n`` pieces (where it has them), none
        heavier than 2/n of the tree where it can be divided (a trial's frontier may hold
        many light pieces beside a few whole orbit units of a quarter of the tree each),
        and at most 4n pieces: the heaviest node (by weight) replaced by its children, in
        turn; each node's children stand where it stood."""
        pieces = list(frontier)
        leaves: set[Path] = set()  # nodes with nothing below to divide
        heavy = Fraction(2, max(1, n))
        while len(pieces) < 4 * n:
            open_ = [k for k, s in enumerate(pieces) if s.path not in leaves and len(s.path) < max_depth]
            if not open_:
                break
            k = max(open_, key=lambda k: pieces[k].weight)
            node = pieces[k]
            if len(pieces) >= n and node.weight <= heavy:
                break
            children = self.split(len(node.path) + 1, node.path)
            if len(children) == 1 and children[0].path == node.path:
                leaves.add(node.path)
                continue
            pieces[k:k + 1] = children
        return pieces

    def split_into(self, n: int, path: Sequence[int] = (), max_depth: int = 12) -> list[Subpath]:
        """The shallowest frontier with at least ``n`` nodes (or the one at ``max_depth``)."""
        depth = len(path)
        frontier = [Subpath(tuple(path), Fraction(1))]
        while len(frontier) < n and depth < max_depth:
            depth += 1
            deeper = self.split(depth, path)
            if len(deeper) == len(frontier) and all(
                len(s.path) < depth for s in deeper
            ):  # nothing left to expand
                frontier = deeper
                break
            frontier = deeper
        return frontier




def heaviest_first(frontier: Sequence[Subpath]) -> list[Subpath]:
    """The frontier's pieces by weight, heaviest first (the search's order among equal
    weights): a count's subproblems handed out in this order put the big subtrees at the
    start and leave small ones for the end, where the workers' loads even out (longest
    processing time first).  A search's frontier comes deepest first — the lightest
    pieces — and a trial's holds whole orbit units last: handed out in that order, the
    pentacube box's two workers ended its count on two units of a quarter of a second each,
    and stole work 1-3 times a run where heaviest first took 0-2 (2026-12-01).  Only for
    counts: a listing's subproblems stay in search order."""
    return sorted(frontier, key=lambda s: s.weight, reverse=True)


#: how the C searches report a stop: 0 to the end, 1 a budget, 2 the limit
STOPPED = {0: None, 1: "budget", 2: "limit"}


def weight_of(factors: Sequence[int]) -> Fraction:
    """The weight of a node whose ancestors had these branching factors."""
    return Fraction(1, math.prod(factors)) if factors else Fraction(1)


def weights_of(factor_lists: Sequence[Sequence[int]]) -> list[Fraction]:
    """:func:`weight_of` of many nodes.  A stopped search's frontier hangs off its one
    stack, so each node's factors are a prefix of the deepest one's: their products are
    taken once along it (linear in the depth, where one product per node is quadratic:
    1.5 s for the 4,946 nodes of a 100x100 domino board's trial)."""
    if not factor_lists:
        return []
    lists = [tuple(f) for f in factor_lists]
    deepest = max(lists, key=len)
    if not all(deepest[:len(f)] == f for f in lists):
        return [weight_of(f) for f in lists]
    products = [1]
    for factor in deepest:
        products.append(products[-1] * factor)
    return [Fraction(1, products[len(f)]) for f in lists]


def result_of(out: Any, path: Path, given: Path = ()) -> SolveResult:
    """A C search's ``Result`` (core._kernel, core._bitboard: the same fields) as a
    :class:`SolveResult`; ``given``, the partial cover it started from, goes before each
    solution so that solutions are whole covers."""
    per_depth = list(out.nodes_per_depth)
    if len(per_depth) < len(path):
        per_depth.extend([0] * (len(path) - len(per_depth)))
    solutions = out.solutions
    if given and solutions is not None:
        solutions = [given + s for s in solutions]
    return SolveResult(
        path=path,
        weight=weight_of(out.path_factors),
        count=out.count,
        stats=Stats(nodes=out.nodes, leaves=out.leaves, solutions=out.count, updates=out.updates,
                    seconds=out.seconds, nodes_per_depth=per_depth),
        frontier=[Subpath(p, w) for (p, _), w in zip(out.frontier, weights_of([f for _, f in out.frontier]))],
        solutions=solutions,
        stopped_by=STOPPED[out.status],
    )
