"""Counting symmetry classes by Burnside's lemma: the classes are the average number of
solutions each symmetry fixes,

    classes = (1/|G|) * sum over g in G of fix(g),

where fix(identity) is the total (counted by orbits, :mod:`core.symmetry`, as fast as a
plain count) and fix(g) is the number of solutions g maps to themselves.  Those are the
exact covers of the cover *folded* by g (:func:`fold`): a solution fixed by g is a union
of whole orbits of options under the cyclic group <g>, so

* the folded cover's items are the orbits of the items under <g> (primary stay primary);
* its options are the orbits of options whose members are pairwise disjoint (their union
  then covers each of its items once, and is a union of item orbits);

and the fixed solutions are, one to one, the exact covers of the item orbits by those
option orbits.  A piece placed once must stand on a placement g fixes, a piece and its
mirror image (one-sided sets) pair up, and most puzzles' folded covers have no cover at
all or a handful: each is a small exact cover, counted by the engine's own search.
fix(g) is the same for g's whole conjugacy class, so one element a class is counted.

The search tree (the :class:`~core.distinct.DistinctSolver` contract, which this reuses):
a virtual root whose child 0 is the whole count (each solution weighs 1 in ``count`` and
1 in the sum) and whose child c > 0 is the folded cover of class c (each fixed solution
weighs 0 in ``count`` and the class's size in the sum).  So every subtree's ``distinct``
is an integer part of ``|G| * classes``; a run divides the sum by :attr:`BurnsideSolver.order`
once every part is in (:func:`classes_of`), and a sum that is not a multiple of it is an
error, never a rounded answer.  A cover that cannot be folded (colors; an option orbit
that covers a piece of several copies more than once; options that are not permuted) is
counted with canonical checks instead (:class:`~core.distinct.DistinctSolver`), and
listing the classes (``--all --distinct``) always is.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

from .distinct import Child, DistinctSolver, tree_shares
from .exact_cover import ExactCover
from .search import COUNT, SolveRequest, SolveResult, Solver, Stats

Permutation = tuple[int, ...]

#: the weight of the folded covers' trees together, shared among them by their estimated
#: sizes (weights steer progress, not counts; estimating the whole count's tree as well
#: cost 0.15 s, half a small problem's run)
FOLDS_SHARE = Fraction(1, 16)
#: a folded cover counted while planning where it ends within this (seconds), else
#: handed on with the rest of the tree
FOLD_SECONDS = 0.05


class Unfoldable(Exception):
    """The cover cannot be folded by a symmetry (the message says why)."""


def fold(ec: ExactCover, items: Permutation, options: Permutation) -> ExactCover | None:
    """The cover whose exact covers are the solutions of ``ec`` fixed by the symmetry
    that permutes its items as ``items`` and its options as ``options`` (see the module
    text); None when it has none for certain (a primary item orbit no option orbit
    covers).  Raises :class:`Unfoldable` where the folding does not hold."""
    if ec.colored:
        raise Unfoldable("the cover has colors")
    n = ec.n_items
    if sorted(options) != list(range(ec.n_options)):
        raise Unfoldable("the symmetry does not permute the options (two options cover the same items)")
    orbit_of = [-1] * n
    firsts: list[int] = []  # each item orbit's smallest item
    for i in range(n):
        if orbit_of[i] < 0:
            j = i
            while orbit_of[j] < 0:
                orbit_of[j] = len(firsts)
                j = items[j]
            firsts.append(i)
    for i in range(n):
        first = firsts[orbit_of[i]]
        if (i < ec.n_primary) != (first < ec.n_primary) or ec.bound(i) != ec.bound(first):
            raise Unfoldable(f"the symmetry maps item {ec.items[first]!r} to one of another kind")
    # primary orbits first (their firsts are primary items), in the order of their firsts
    order = sorted(range(len(firsts)), key=lambda k: firsts[k])
    renumber = {k: new for new, k in enumerate(order)}
    n_primary = sum(1 for f in firsts if f < ec.n_primary)
    seen = bytearray(ec.n_options)
    folded: list[list[tuple[int, int]]] = []
    covered = bytearray(n_primary)
    for o in range(ec.n_options):
        if seen[o]:
            continue
        union: set[int] = set()
        clash = several = False
        j = o
        while not seen[j]:
            seen[j] = 1
            for i, _ in ec.options[j]:
                if i in union:
                    if ec.bound(i)[1] > 1:
                        several = True
                    else:
                        clash = True
                union.add(i)
            j = options[j]
        if clash:  # two of the orbit's placements overlap: no fixed solution holds it
            continue
        if several:
            raise Unfoldable("an orbit of placements uses a piece of several copies more than once")
        entries = sorted({renumber[orbit_of[i]] for i in union})
        for k in entries:
            if k < n_primary:
                covered[k] = 1
        folded.append([(k, 0) for k in entries])
    if not all(covered):
        return None
    names = [ec.items[firsts[k]] for k in order]
    bounds = [ec.bound(firsts[k]) for k in order[:n_primary]] if ec.bounds else None
    return ExactCover.from_indices(names, n_primary, folded, bounds=bounds)


def compose(a: Permutation, b: Permutation) -> Permutation:
    """a after b."""
    return tuple(a[x] for x in b)


def inverse(a: Permutation) -> Permutation:
    out = [0] * len(a)
    for i, x in enumerate(a):
        out[x] = i
    return tuple(out)


def conjugacy_classes(elements: Sequence[Permutation]) -> list[list[int]]:
    """The group's conjugacy classes, as lists of element indices (the identity's first;
    each class in increasing index, its first the one counted)."""
    index = {g: k for k, g in enumerate(elements)}
    inverses = [inverse(g) for g in elements]
    done: set[int] = set()
    classes = []
    for k, g in enumerate(elements):
        if k in done:
            continue
        members = sorted({index[compose(compose(h, g), inverses[m])] for m, h in enumerate(elements)})
        done.update(members)
        classes.append(members)
    return classes


@dataclass(frozen=True)
class FixedPoints:
    """One conjugacy class of the group: its elements, and the cover its first folds to
    (None: no solution is fixed)."""

    elements: tuple[int, ...]
    cover: ExactCover | None

    @property
    def size(self) -> int:
        return len(self.elements)


def fixed_point_covers(ec: ExactCover, item_perms: Sequence[Permutation],
                       image: Callable[[int, int], int]) -> list[FixedPoints]:
    """The classes other than the identity's, each with its folded cover, of the group as it
    acts on the items (elements that act alike counted once: Burnside's average is the same
    over the group and over its action); ``image(g, option)``: the option element g maps it
    to.  Raises :class:`Unfoldable` where one cannot be folded.

    Before folding, a class is tried on one item its element fixes that every solution
    covers once (the fewest options cover): a fixed solution covers it with a fixed option,
    and where none is, nothing is fixed — the option permutation is never built (most
    classes of the library's puzzles end there: the 8x8 board less its centre's folding
    0.05 -> 0.01 s)."""
    first_of: dict[Permutation, int] = {}
    for k, g in enumerate(item_perms):
        first_of.setdefault(g, k)
    firsts = list(first_of.values())
    elements = [item_perms[k] for k in firsts]  # the group as it acts: an element that moves no item
    classes = conjugacy_classes(elements)       # (a 1 x n board's flip across) is the identity
    out = []
    for c in classes[1:]:
        g, items = firsts[c[0]], elements[c[0]]
        if _fixes_nothing(ec, items, lambda o: image(g, o)):
            cover = None
        else:
            cover = fold(ec, items, tuple(image(g, o) for o in range(ec.n_options)))
        out.append(FixedPoints(tuple(firsts[k] for k in c), cover))
    return out


def _fixes_nothing(ec: ExactCover, items: Permutation, image: Callable[[int], int]) -> bool:
    """Whether an item the element fixes, covered once by every solution, has no option
    the element fixes (then no solution is fixed).  Colors: never decided here (the fold
    refuses them)."""
    if ec.colored:
        return False
    once = [i for i in range(ec.n_primary) if items[i] == i and ec.bound(i) == (1, 1) and ec.covering[i]]
    if not once:
        return False
    item = min(once, key=lambda i: len(ec.covering[i]))
    return all(image(o) != o for o in ec.covering[item])


def order_of(fixed: Sequence[FixedPoints]) -> int:
    """The order of the group as it acts on the items (what Burnside's sum is over)."""
    return 1 + sum(f.size for f in fixed)


class BurnsideSolver(DistinctSolver):
    """``count``: every solution; ``distinct``: ``|G|`` times the classes, in parts that
    add up (see the module text); :meth:`classes` divides.  Counts only."""

    def __init__(self, whole: Solver, order: int, fixed: Sequence[FixedPoints],
                 make_solver: Callable[[int, ExactCover], Solver], searched: bool = True):
        """``make_solver(k, cover)``: the solver of the ``k``-th folded cover counted;
        ``searched``: every one searches a tree (then the folds' share of the weight is
        shared by their trees' estimated sizes, else evenly: random paths size no count
        by levels, and on a board's half they took seconds — the 16x16 domino board's
        three folds 2.2 s)."""
        self.ec = None
        self.perms = []
        self.order = order
        self.batch = 0
        self.piece = None
        #: the classes counted, as child 1.. of the root (those that fix nothing left out)
        self.fixed = list(fixed)
        self.counted = [f for f in self.fixed if f.cover is not None]
        self.children = [Child(whole, (), "count", (1, 1))]
        self.children += [Child(make_solver(k, f.cover), (), "count", (0, f.size)) for k, f in enumerate(self.counted)]
        self.root_sums: dict[int, int] = {}
        self.shares = [Fraction(1)]
        if self.counted:  # the folds' trees are small: a share of the weight among them by their sizes
            folds = ([FOLDS_SHARE * share for share in tree_shares([child.solver for child in self.children[1:]])]
                     if searched else [FOLDS_SHARE / len(self.counted)] * len(self.counted))
            self.shares = [1 - sum(folds, Fraction(0))] + folds

    @property
    def description(self) -> str:
        classes = len(self.fixed) + 1
        folds = len(self.counted)
        return (f"distinct by Burnside's lemma: {self.order} symmetries in {classes} conjugacy classes; the total "
                f"and the solutions fixed by {folds} class{'' if folds == 1 else 'es'} counted "
                f"({classes - 1 - folds} fix none)")

    @property
    def parts(self) -> dict:
        """The sum's parts as the root's children count them (for a ledger's ``show``):
        the order, and each class past the identity's with its size and its child (None:
        it fixes no solution)."""
        child = {id(f): c for c, f in enumerate(self.counted, start=1)}
        return {"order": self.order, "classes": [{"size": f.size, "child": child.get(id(f))} for f in self.fixed]}

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        if request.listing:
            raise ValueError("Burnside's lemma counts the classes without listing them: list them with canonical "
                             "checks (DistinctSolver)")
        self._sums: dict[int, int] = {}
        result = super().solve(path, request)
        if not path:
            #: what the last solve at the root counted, by child (a run's planning trial
            #: records it for ``show``: its subproblem's count is the root's)
            self.root_sums = self._sums
        return result

    def lifted(self, whole: SolveResult | None, fold_seconds: float | None = None) -> SolveResult | None:
        """A result of the whole count's root (child 0's, found by the method choice's
        trials) as this tree's root result: the whole count's frontier under child 0, each
        folded cover counted here where it ends within ``fold_seconds``, else in the
        frontier with the rest of its tree.  Where the whole count ended here, each fold
        may take as long as it took: a fold is smaller than the board, and one handed on
        would start the workers' pool for it alone (the 16x16 domino board: its total
        counted in 0.17 s, its half turn's fold in 0.1 s, the pool's start 1 s)."""
        if whole is None:
            return None
        if fold_seconds is None:
            fold_seconds = FOLD_SECONDS
        if whole.complete:
            fold_seconds = max(fold_seconds, whole.stats.seconds)
        stats = Stats(nodes=1, nodes_per_depth=[1])
        stats.add(whole.stats)
        out = SolveResult((), Fraction(1), whole.count, stats,
                          [self._lift(0, self.shares[0], s) for s in whole.frontier], None, whole.stopped_by,
                          whole.count)
        self._sums = {0: whole.count}
        for c in range(1, len(self.children)):
            r = self.children[c].solver.solve((), SolveRequest(seconds=fold_seconds))
            out.stats.add(r.stats)
            out.distinct += self.children[c].weights[1] * r.count
            self._sums[c] = self.children[c].weights[1] * r.count
            out.frontier.extend(self._lift(c, self.shares[c], s) for s in r.frontier)
            if r.frontier:
                out.stopped_by = out.stopped_by or "budget"
        out.stats.solutions = out.count
        self.root_sums = self._sums
        return out

    def _run_child(self, c, rest, share, out, request, start) -> None:
        before = out.distinct
        super()._run_child(c, rest, share, out, request, start)
        self._sums[c] = self._sums.get(c, 0) + out.distinct - before

    def classes(self, scaled: int) -> int:
        """The number of classes from the sum of the parts' ``distinct``."""
        return classes_of(scaled, self.order)


def classes_of(scaled: int, order: int) -> int:
    """Burnside's sum over the group's order; a sum that is not a multiple of it means a
    part is missing or wrong: ValueError, never a rounded count."""
    classes, left = divmod(int(scaled), order)
    if left:
        raise ValueError(f"Burnside's sum {scaled} is not a multiple of the group's order {order}")
    return classes
