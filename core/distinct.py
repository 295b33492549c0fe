"""Counting solutions once per symmetry class, by breaking the symmetry inside the search.

Let G act on the options (placements) of an exact cover and map solutions to solutions.
Pick a piece p placed exactly once in every solution and fixed by G (its orientation set
is mapped to itself).  Split p's placements into G-orbits; take one representative x per
orbit, with stabiliser H_x and orbit size |G|/|H_x|.  Every solution is the image of one
with p at a representative, so

* total    = sum over solutions s with p at a representative x of |G|/|H_x|;
* distinct = sum over the same s of |Stab(s)|/|H_x|  (Stab(s) is a subgroup of H_x)
           = sum over representatives x of the number of H_x-orbits of solutions with p at x.

For x with trivial H_x each solution weighs (|G|, 1): those are *counted* by the inner
solver, never listed.  For the few x on an axis or centre of symmetry the solutions are
enumerated and each is counted in ``distinct`` only if it is the smallest of its H_x-orbit
(as a sorted tuple of option ids), so every leaf has an integer weight and any subtree's
counts are integers — paths can be split and distributed like any other search.

The search tree gets a virtual root whose children are these restricted covers:
choice 0 — p restricted to trivial-stabiliser representatives (counted), choice 1 — p
restricted to the others (enumerated).  A path is the child's number followed by the
inner solver's path.  The two children's subtrees differ in size (soma: 3,856 and 1,005
nodes), so the virtual root does not give each half the weight, as a branching factor
of 2 would — a run's progress would read 50% once the small child is searched: each child
weighs its share of the tree, from a fixed-seed random-path estimate of its subtree
(:data:`SHARE_SAMPLES` walks; deterministic, so every worker derives the same weights).  Solutions are returned as option ids of the *full* cover (so a
problem renders and verifies them as usual), one per symmetry class.

Without such a piece (no count-1 piece fixed by G), the fallback is exact but slow: a
single child, the full cover enumerated, each solution counted once in ``count`` and in
``distinct`` only if it is the smallest of its G-orbit.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Sequence

from .errors import PathError
from .exact_cover import ExactCover
from .symmetry import orbits
from .search import COUNT, Path, SolveRequest, SolveResult, Solver, Stats, Subpath


#: random walks per child that weigh the virtual root's children (fixed seed: the same
#: weights on every machine)
SHARE_SAMPLES = 32


def tree_shares(solvers: Sequence[Solver]) -> list[Fraction]:
    """Each solver's share of their trees together, from a fixed-seed estimate of each
    tree's size (exact fractions that add up to 1)."""
    if len(solvers) == 1:
        return [Fraction(1)]
    from .estimate import estimate

    sizes = [max(1, round(estimate(s, SHARE_SAMPLES, seed=0, rate=1.0).nodes.value)) for s in solvers]
    return [Fraction(size, sum(sizes)) for size in sizes]


@dataclass
class Child:
    """One child of the virtual root: its solver, and how its solutions weigh."""

    solver: Solver
    #: inner option id -> full option id
    to_full: tuple[int, ...]
    #: "count": each solution weighs (total, distinct) = weights; "enum": see _weigh
    mode: str
    weights: tuple[int, int] = (1, 1)
    #: enum mode: full option id of a representative -> (total weight, its stabiliser)
    reps: dict[int, tuple[int, list[tuple[int, ...]]]] | None = None
    #: enum mode without a piece: the group and the total weight of every solution
    group: list[tuple[int, ...]] | None = None


def restrict(ec: ExactCover, keep: Sequence[int]) -> ExactCover:
    """The cover with only the options ``keep`` (ids renumbered in that order)."""
    labels = [ec.labels[k] for k in keep] if ec.labels is not None else None
    return ExactCover.from_indices(
        ec.items, ec.n_primary, [ec.options[k] for k in keep], ec.colors, ec.bounds, labels
    )


class DistinctSolver(Solver):
    """Counts every solution (``count``) and every symmetry class (``distinct``) with the
    search restricted by symmetry; keeps the :class:`Solver` contract."""

    def __init__(
        self,
        ec: ExactCover,
        perms: Sequence[tuple[int, ...]],
        piece_options: dict[int, list[int]],
        make_solver: Callable[[ExactCover], Solver],
        *,
        batch: int = 10_000,
    ):
        self.ec = ec
        self.perms = list(perms)
        self.order = len(self.perms)
        self.batch = batch
        self.children: list[Child] = []
        self.piece: int | None = None
        everything = tuple(range(ec.n_options))
        self.shares = [Fraction(1)]
        if self.order == 1:
            self.children.append(Child(make_solver(ec), everything, "count", (1, 1)))
            return
        best = None
        for kind, opts in sorted(piece_options.items()):
            if not opts:
                continue
            orb = orbits(self.perms, opts)
            nontrivial = sum(1 for _, stab in orb if len(stab) > 1)
            key = (nontrivial, len(orb), kind)
            if best is None or key < best[0]:
                best = (key, kind, opts, orb)
        if best is None:
            self.children.append(Child(make_solver(ec), everything, "enum", group=self.perms))
            return
        _, kind, opts, orb = best
        self.piece = kind
        p_opts = set(opts)
        others = [k for k in everything if k not in p_opts]
        trivial = [x for x, stab in orb if len(stab) == 1]
        special = [(x, stab) for x, stab in orb if len(stab) > 1]
        keep0 = sorted(others + trivial)
        self.children.append(Child(make_solver(restrict(ec, keep0)), tuple(keep0), "count", (self.order, 1)))
        if special:
            keep1 = sorted(others + [x for x, _ in special])
            reps = {x: (self.order // len(stab), [self.perms[i] for i in stab]) for x, stab in special}
            self.children.append(Child(make_solver(restrict(ec, keep1)), tuple(keep1), "enum", reps=reps))
        self.shares = tree_shares([child.solver for child in self.children])

    # ------------------------------------------------------------------ weighing
    def _weigh(self, child: Child, full: Sequence[int]) -> tuple[int, int]:
        """(total, distinct) weight of one solution of an enumerated child."""
        if child.mode == "count":
            return child.weights
        if child.reps is not None:
            x = next(o for o in full if o in child.reps)
            total, group = child.reps[x]
        else:
            total, group = 1, child.group or []
        key = sorted(full)
        for g in group:
            if sorted(g[o] for o in full) < key:
                return total, 0
        return total, 1

    # ------------------------------------------------------------------ the contract
    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        path = tuple(path)
        n = len(self.children)
        start = time.monotonic()
        out = SolveResult(path, Fraction(1), 0, Stats(), [], [] if request.listing else None, None, 0)
        if path:
            c = path[0]
            if not (isinstance(c, int) and 0 <= c < n):
                raise PathError(f"path {list(path)}: the root has choices 0..{n - 1}, not {c!r}")
            todo = [(c, path[1:])]
        else:
            if request.max_depth is not None and request.max_depth <= 0:
                out.frontier = [Subpath((), Fraction(1))]
                return out
            out.stats.nodes += 1
            if n == 0 and request.max_depth is None:
                out.stats.leaves += 1  # no piece placement at all: the root is a dead end
            todo = [(c, ()) for c in range(n)]
        for c, rest in todo:
            if out.stopped_by is not None:
                out.frontier.append(Subpath((c,), self.shares[c]))
                continue
            self._run_child(c, rest, self.shares[c], out, request, start)
        out.stats.seconds = time.monotonic() - start
        out.stats.solutions = out.count
        return out

    def _run_child(self, c: int, rest: Path, share: Fraction, out: SolveResult, request: SolveRequest,
                   start: float) -> None:
        child = self.children[c]
        inner = child.solver
        inner_depth = None if request.max_depth is None else request.max_depth - 1
        node_budget, seconds, limit = request.node_budget, request.seconds, request.limit

        def left() -> SolveRequest:
            """The budget left, for the inner solver's next call."""
            return SolveRequest(
                node_budget=None if node_budget is None else max(1, node_budget - out.stats.nodes),
                seconds=None if seconds is None else max(1e-6, seconds - (time.monotonic() - start)),
                max_depth=inner_depth,
            )

        def exhausted() -> bool:
            if node_budget is not None and out.stats.nodes >= node_budget:
                return True
            return seconds is not None and time.monotonic() - start >= seconds

        if child.mode == "count" and not request.listing:
            r = inner.solve(rest, left())
            self._absorb(out, share, r)
            out.frontier.extend(self._lift(c, share, s) for s in r.frontier)
            out.count += r.count * child.weights[0]
            out.distinct += r.count * child.weights[1]
            out.gave_up = out.gave_up or r.gave_up  # (a guarded count by levels: why it gave up)
            if r.stopped_by:
                out.stopped_by = r.stopped_by
            return
        pending = [Subpath(tuple(rest), None)]
        first = True
        while pending:
            sub = pending.pop()
            if not first and exhausted():
                out.frontier.extend(self._lift(c, share, s) for s in [sub] + pending[::-1])
                out.stopped_by = "budget"
                return
            lim = self.batch
            if request.listing and limit is not None:
                lim = min(max(1, limit - len(out.solutions)), self.batch)
            r = inner.solve(sub.path, replace(left(), listing=True, limit=lim))
            if first:
                self._absorb(out, share, r)
                first = False
            else:
                out.stats.add(r.stats)
            for sol in r.solutions or []:
                full = tuple(child.to_full[k] for k in sol)
                t, d = self._weigh(child, full)
                out.count += t
                out.distinct += d
                if request.listing and d:
                    out.solutions.append(full)
            if r.stopped_by == "budget":
                out.frontier.extend(self._lift(c, share, s) for s in r.frontier)
                out.frontier.extend(self._lift(c, share, s) for s in pending[::-1])
                out.stopped_by = "budget"
                return
            if r.stopped_by == "limit":
                if request.listing and limit is not None and len(out.solutions) >= limit:
                    out.frontier.extend(self._lift(c, share, s) for s in r.frontier)
                    out.frontier.extend(self._lift(c, share, s) for s in pending[::-1])
                    out.stopped_by = "limit"
                    return
                pending.extend(reversed(r.frontier))
            else:
                out.frontier.extend(self._lift(c, share, s) for s in r.frontier)

    def _lift(self, c: int, share: Fraction, s: Subpath) -> Subpath:
        return Subpath((c,) + tuple(s.path), share * s.weight)

    def _absorb(self, out: SolveResult, share: Fraction, r: SolveResult) -> None:
        out.stats.add(r.stats)
        if out.path:
            out.weight = share * r.weight
