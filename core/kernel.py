"""The compiled kernel behind the :class:`~core.search.Solver` contract.

:class:`KernelSolver` flattens an :class:`~core.exact_cover.ExactCover` once into the
integer arrays ``core/_kernel.c`` reads (see the data layout comment there), then every
:meth:`solve` is one call into C with the GIL released.
"""
from __future__ import annotations

import time
from contextlib import contextmanager
from typing import Iterator, Sequence

from . import _kernel
from .build_progress import report
from .census import Census, from_u128_bytes
from .errors import CensusError
from .exact_cover import ExactCover
from .frontier import AUTO_TRIAL_NODES, LevelCount, refusal, worth_trying
from .level_measure import counter_for, default_memory
from .pruning import RegionRule
from .search import COUNT, SolveRequest, SolveResult, Solver, Stats, result_of, weight_of

#: the stage :func:`core.build_progress.report` names while a cover is flattened for C
COMPILING = "loading the kernel"
HEURISTICS = {"mrv": _kernel.MRV, "first": _kernel.FIRST}
#: how MRV keeps its live options on covers the lanes do not take (colors,
#: multiplicities, the region rule, over 256 items): chosen by size (``auto``), a copy per
#: level, or one set with a trail of what each level killed (docs/kernel.md)
MRV_LAYOUTS = {"auto": 0, "copies": 1, "trail": 2}
#: memory for the counting memo of one solve() call
DEFAULT_MEMO_BYTES = 256 << 20
#: a cover whose kernel tables (:func:`kernel_bytes`) would pass this is refused before
#: it is built: the 200x200 domino board needs about 0.4 GB (it needed 3.7 GB, and its
#: workers 2-4 GB each within two minutes of counting, while every search level kept a
#: copy of the live options and their counts, until 2026-11-28)
MAX_KERNEL_BYTES = 4 << 30
#: a node budget no count reaches; under a budget the kernel hands on the rest of a count
#: that would pass 2^128 instead of failing (see :meth:`KernelSolver._count_by_search`)
UNREACHED_NODES = 1 << 62


def kernel_bytes(n_items: int, n_options: int, depth: int) -> int:
    """What the kernel's tables take for a cover of this size searched ``depth`` levels
    deep: a bitset of the items per option; one search state (counts per item, flags per
    option, and a trail and branch lists that hold each option at most once along a
    path, with room to double); and a fixed record per level (see the data layout in
    ``core/_kernel.c``)."""
    words = (n_items + 63) // 64
    return 8 * words * n_options + 18 * n_options + 12 * n_items + 256 * depth


def compile_problem(ec: ExactCover, heuristic: str = "mrv", region: RegionRule | None = None,
                    mrv_layout: str = "auto") -> "_kernel.Problem":
    """Flatten an exact cover (and an optional region rule) for the kernel.  The result is
    immutable and kept with the cover (``ExactCover.derived``), so the solvers of one
    problem — a search and a level count compared while choosing — compile it once.
    ``mrv_layout`` (:data:`MRV_LAYOUTS`) is for the tests, which walk both layouts."""
    if heuristic not in HEURISTICS:
        raise ValueError(f"unknown heuristic {heuristic!r} (use one of {', '.join(HEURISTICS)})")
    key = ("kernel", heuristic, region) + (() if mrv_layout == "auto" else (mrv_layout,))
    compiled = ec.derived.get(key)
    if compiled is None:
        compiled = ec.derived[key] = _compile(ec, heuristic, region, MRV_LAYOUTS[mrv_layout])
    return compiled


def _compile(ec: ExactCover, heuristic: str, region: RegionRule | None, mrv_layout: int) -> "_kernel.Problem":
    report(COMPILING, 0, len(ec.options))
    opt_start = [0]
    opt_item: list[int] = []
    opt_color: list[int] = []
    for option in ec.options:
        for i, c in option:
            opt_item.append(i)
            opt_color.append(c)
        opt_start.append(len(opt_item))
    lo = [ec.bound(i)[0] for i in range(ec.n_items)]
    hi = [ec.bound(i)[1] for i in range(ec.n_items)]
    flat_region = None
    if region is not None:
        nb_start = [0]
        nb: list[int] = []
        for neighbours in region.neighbors:
            nb.extend(neighbours)
            nb_start.append(len(nb))
        flat_region = (
            list(region.cells),
            nb_start,
            nb,
            [size for size, _ in region.pieces],
            [item for _, item in region.pieces],
        )
    compiled = _kernel.Problem(
        ec.n_items, ec.n_primary, opt_start, opt_item, opt_color, lo, hi, HEURISTICS[heuristic], flat_region,
        mrv_layout,
    )
    report(COMPILING, len(ec.options), len(ec.options))
    return compiled


@contextmanager
def frontier_capped(ids: int) -> Iterator[None]:
    """Inside, a stop of the C search hands back at most about ``ids`` option ids (the
    kernel's ``frontier_cap``, 2^22 by default; see core/_kernel.c): for tests of the
    deep-tree stop on small trees.  The cap before is put back on the way out."""
    before = _kernel.frontier_cap(ids)
    try:
        yield
    finally:
        _kernel.frontier_cap(before)


class KernelSolver(Solver):
    """Exact cover search in C: bitsets, MRV or first-item branching, colors,
    multiplicities, region pruning, budgets and frontiers."""

    def __init__(
        self,
        ec: ExactCover,
        heuristic: str = "mrv",
        region: RegionRule | None = None,
        memo: bool | int = True,
        levels: bool | str = False,
        board: RegionRule | None = None,
        given: Sequence[int] = (),
    ):
        self.ec = ec
        self.heuristic = heuristic
        self.region = region
        #: memoised counting: True for the default memory cap, an int for a cap in bytes,
        #: False for none.  Used only when counting a problem without colors or
        #: multiplicities (where the covered items are the whole state).
        self.memo = memo
        #: count level by level (core/frontier.py) a plain cover whose states fit the level
        #: count's keys, counted whole (no budget, split or limit; the search takes over
        #: when the level count's memory, the memo cap, runs out): True always, "auto"
        #: where it is expected to pay (see :meth:`levels_pay`), False never
        if levels not in (True, False, "auto"):
            raise ValueError(f"levels must be True, False or 'auto', not {levels!r}")
        self.levels = levels
        #: board geometry for the level count (cells walled in by a move are dead); the
        #: search prunes by ``region`` instead, which a plain cover's MRV does not need
        self.board = board
        why = refusal(ec) if levels is True else None
        if why is not None:
            raise ValueError(why)
        #: options covered before the root (see :meth:`below`)
        self.given = tuple(int(k) for k in given)
        self._problem = compile_problem(ec, heuristic, region)
        self.memo_hits = 0
        #: how the last solve() counted: "search" or "levels" (core/frontier.py)
        self.counted_by = "search"
        self._auto = levels == "auto" and worth_trying(ec)
        #: shared with every solver :meth:`below` this one: the level counter (built on
        #: first use) and the level counts done, by the items they started from
        self._shared: dict = {"counter": None, "counts": {}}

    def __reduce__(self):  # picklable for process pools: rebuilt from the exact cover
        return (KernelSolver, (self.ec, self.heuristic, self.region, self.memo, self.levels, self.board, self.given))

    def below(self, given: Sequence[int]) -> "KernelSolver":
        """This search started from the partial cover ``self.given + given``; the compiled
        problem (and a level counter) are shared, not rebuilt."""
        other = object.__new__(KernelSolver)  # (copy.copy would recompile through __reduce__)
        other.__dict__.update(self.__dict__)
        other.given = self.given + tuple(int(k) for k in given)
        other.memo_hits, other.counted_by = 0, "search"
        return other

    def solve(self, path: Sequence[int] = (), request: SolveRequest = COUNT) -> SolveResult:
        path = tuple(int(k) for k in path)
        memo_bytes = self._memo_bytes()
        self.counted_by = "search"
        # a time budget does not cut a level count (it has no frontier to hand back), so
        # "auto" keeps to the search under one; levels=True is the caller's choice
        if request.whole_count and (self.levels is True or (self._auto and request.seconds is None)):
            if self.levels == "auto":
                trial = self._search(path, SolveRequest(node_budget=AUTO_TRIAL_NODES), memo_bytes)
                if trial.complete:
                    return trial
            by_levels = self._count_by_levels(path, memo_bytes or DEFAULT_MEMO_BYTES)
            if by_levels is not None:
                return by_levels
        if request.whole_count and request.seconds is None:
            return self._count_by_search(path, memo_bytes)
        return self._search(path, request, memo_bytes)

    def census(self, path: Sequence[int] = ()) -> Census:
        """The census below ``path`` (:mod:`core.census`): by levels where this solver
        counts by levels (``levels=True``, or ``"auto"`` on a cover worth trying); where
        the two passes do not fit their memory, by search, as a count by levels falls back
        to the search (past 2^128 a :class:`~core.errors.CensusError`: that search would
        not end).  The search
        takes it without the memo (a memo hit would leave the options below it
        uncredited) and with no stop: its 128-bit count, one leaf a solution, cannot pass
        2^128 in a search that ends."""
        path = tuple(int(k) for k in path)
        if self.levels is True or self._auto:
            # both passes keep every level: twice the count's memory and more (the one-sided
            # 5x18's units: 0.5 GB, where their counts fit the memo's 256 MB), so the census
            # takes the memory a whole count by levels may (a cap in bytes given as ``memo``
            # stands)
            cap = self.memo if type(self.memo) is int else default_memory()
            by_levels = self._census_by_levels(path, cap)
            if by_levels is not None:
                return by_levels
        self.counted_by = "search"
        out = _kernel.solve(self._problem, list(path), False, -1, -1, -1.0, -1, 0, self.given, True)
        found = from_u128_bytes(out.count, out.census)
        found.credit(self.given + path)
        return found

    def _census_by_levels(self, path: tuple[int, ...], max_bytes: int) -> Census | None:
        """The census below ``path`` by levels (core/frontier.py), or None when it does
        not fit ``max_bytes``; a :class:`~core.errors.CensusError` past 2^128.  The path is replayed first (an illegal
        one raises PathError, as a search would)."""
        _kernel.solve(self._problem, list(path), False, -1, -1, -1.0, len(path), 0, self.given)
        shared = self._shared
        if shared["counter"] is None:
            shared["counter"] = counter_for(self.ec, self.board or self.region)
        cover = self.given + path
        covered = sorted({i for k in cover if k < len(self.ec.options) for i, _ in self.ec.options[k]})
        done = shared["counter"].census(covered, max_bytes=max_bytes)
        if done.status == "overflow":  # (a search would not end either: one leaf a solution)
            raise CensusError("the census passes 2^128 solutions below one subproblem: split the count (a census "
                              "by levels counts in 128 bits)")
        if done.census is None:
            return None
        self.counted_by = "levels"
        done.census.credit(cover)
        return done.census

    def levels_pay(self, path: Sequence[int] = ()) -> bool:
        """Would ``levels="auto"`` count below ``path`` by levels (whatever this solver's
        own ``levels``; the command line asks before it plans a run)?  Its cover is worth
        trying (:func:`core.frontier.worth_trying`) and the search below ``path`` does not
        end within :data:`~core.frontier.AUTO_TRIAL_NODES` nodes (which this runs)."""
        if not (self._auto or worth_trying(self.ec)):
            return False
        return not self._search(tuple(path), SolveRequest(node_budget=AUTO_TRIAL_NODES), self._memo_bytes()).complete

    def _memo_bytes(self) -> int:
        return DEFAULT_MEMO_BYTES if self.memo is True else int(self.memo or 0)

    def _search(self, path: tuple[int, ...], request: SolveRequest, memo_bytes: int = 0) -> SolveResult:
        """One call into the C search (see :meth:`solve`)."""
        self.counted_by = "search"
        out = _kernel.solve(
            self._problem,
            list(path),
            *request.c_arguments(),
            memo_bytes,
            self.given,
        )
        self.memo_hits = out.memo_hits
        return result_of(out, path, self.given)

    def _count_by_search(self, path: tuple[int, ...], memo_bytes: int) -> SolveResult:
        """A whole count by search, exact however large: the kernel counts in 128 bits,
        so it runs under a budget it never reaches, where a count about to pass 2^128
        hands the rest of its tree on as a frontier; those parts are counted in turn and
        summed here in Python integers (each part below 2^128)."""
        unreached = SolveRequest(node_budget=UNREACHED_NODES)
        result = self._search(path, unreached, memo_bytes)
        todo = [sub.path for sub in result.frontier]
        while todo:
            part = self._search(todo.pop(), unreached, memo_bytes)
            result.count += part.count
            result.stats.add(part.stats)
            todo.extend(sub.path for sub in part.frontier)
        result.frontier, result.stopped_by = [], None
        return result

    def level_count(self, path: Sequence[int] = (), *, max_bytes: int = DEFAULT_MEMO_BYTES,
                    max_transitions: int = 1 << 62) -> LevelCount | None:
        """The count below ``path`` by levels (core/frontier.py), of any size, or None when a
        cap (memory, transitions) is reached first.  Counts done are kept
        (here and in the solvers :meth:`below` this one), so a count measured while
        choosing a method is not done twice."""
        shared = self._shared
        if shared["counter"] is None:
            shared["counter"] = counter_for(self.ec, self.board or self.region)
        covered = frozenset(i for k in self.given + tuple(path) for i, _ in self.ec.options[k])
        done = shared["counts"].get(covered)
        if done is None:
            done = shared["counter"].count(sorted(covered), max_bytes=max_bytes, max_transitions=max_transitions)
            if done is not None:
                shared["counts"][covered] = done
        return done

    def _count_by_levels(self, path: tuple[int, ...], memo_bytes: int) -> SolveResult | None:
        """Count below ``path`` level by level (core/frontier.py), or None when its memory
        cap runs out first (the search counts it then, subtree by subtree: see
        _count_by_search; under a budget it hands the rest on)."""
        started = time.perf_counter()
        # replay the path (an illegal one raises PathError, as a search would) for its weight
        factors = _kernel.solve(self._problem, list(path), False, -1, -1, -1.0, len(path), 0, self.given).path_factors
        done = self.level_count(path, max_bytes=memo_bytes)
        if done is None:
            return None
        self.counted_by = "levels"
        return SolveResult(
            path=path,
            weight=weight_of(factors),
            count=done.count,
            stats=Stats(nodes=done.states, leaves=done.leaves, solutions=done.count, updates=done.updates,
                        seconds=time.perf_counter() - started, nodes_per_depth=[0] * len(path), by_levels=1),
            frontier=[],
            solutions=None,
        )

