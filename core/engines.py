"""The engine registry: which solvers a problem offers, which options each honours, and
the automatic choice of how a whole count goes.  The one place that dispatches.

An **engine** builds a :class:`~core.search.Solver` for a problem.  Two search exact
covers and are registered here: ``kernel`` (the C kernel, :mod:`core.kernel`) and
``reference`` (the pure-Python reference, :mod:`core.reference`).  Models that bring
their own search register theirs when imported (``reduction``, ``crossword``).  A
problem declares the engines that can search it in :attr:`Problem.engines
<core.problem.Problem.engines>`, its default first.

:class:`SolverOptions` are what a caller may ask beyond the engine: ``distinct``
(count symmetry classes too, for models with a symmetry group), ``symmetry`` (count by
orbits of the symmetry group where the model has one: :class:`core.symmetry.OrbitCounter`),
``memo`` (the kernel's counting memo) and ``method`` (search, count by levels, or choose).  An option an
engine or a problem cannot honour is a :class:`~core.errors.ProblemError` naming the
option and the problem — never a ``TypeError`` from deep inside.
"""
from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Protocol, Sequence

from . import catalog, handoff
from .burnside import BurnsideSolver, FixedPoints, Unfoldable, fixed_point_covers, order_of
from .distinct import DistinctSolver
from .errors import ProblemError
from .exact_cover import ExactCover
from .frontier import AUTO_MAX_BAND, AUTO_TRIAL_NODES, band, has_piece_items, refusal
from .level_measure import MEMORY_MARGIN, LevelMeasure, default_memory, human_bytes, human_seconds, measure, plan_for
from .level_projection import Projection
from .level_shares import LevelShares
from .bitboard import BitboardSolver
from .bitboard import refusal as bitboard_refusal
from .kernel import KernelSolver
from .pruning import RegionRule
from .reference import ReferenceSolver
from .search import SolveRequest, SolveResult, Solver, Stats, Subpath
from .solver_options import FLAGS, FoldMethod, LevelPlan, Method, SolverOptions, flag  # noqa: F401  (re-exported)
from .symmetry import OptionSymmetry, OrbitCounter, best_anchor


class Searchable(Protocol):
    """What the engines need of a problem (:class:`core.problem.Problem` is one)."""

    name: str
    kind: str

    @property
    def engines(self) -> Sequence[str]: ...

    def exact_cover(self) -> ExactCover | None: ...

    def search_hints(self) -> "SearchHints": ...

    def symmetry(self) -> OptionSymmetry | None: ...

    def engine_refusal(self, engine: str) -> str | None: ...


@dataclass(frozen=True)
class SearchHints:
    """What a model tells the exact-cover engines about its cover: the branching
    heuristic, a region rule the search prunes by (:mod:`core.pruning`), and the board's
    geometry for counting by levels (cells walled in by a move are dead)."""

    heuristic: str = "mrv"
    region: RegionRule | None = None
    board: RegionRule | None = None


@dataclass(frozen=True)
class Engine:
    """A way to search problems: its name, one line on what it is, the options it
    honours (names of :class:`SolverOptions` fields), and how it builds a solver."""

    name: str
    summary: str
    honours: frozenset[str]
    build: Callable[[Searchable, SolverOptions], Solver]
    #: for the engines that search exact covers: a solver of any cover (a restricted
    #: one, for --distinct) with the problem's hints
    cover_solver: Callable[[ExactCover, SearchHints, SolverOptions], Solver] | None = None
    #: a model's own count by levels (the crossword transfer): ``--by-levels`` picks it
    #: among the problem's engines, and :func:`choose_method` may
    counts_by_levels: bool = False
    #: why this engine cannot count a problem it is listed for (None: it can)
    refusal: Callable[[Searchable], str | None] | None = None
    #: a count by levels that is quick where the search's trial is slow (the crossword
    #: transfer pruned by its reachability table): the method choice tries it before
    #: carrying a slow search on (:func:`_own_levels_or_search`, step 3)
    levels_first: Callable[[Searchable], bool] | None = None
    #: the reverse: a count by levels that is slow where the model's own search is quick
    #: (the crossword transfer of a clue string on a folded kind): the method choice
    #: carries the search on for :data:`OWN_SEARCH_FIRST_SECONDS` before trying it
    search_first: Callable[[Searchable], bool] | None = None


ENGINES: dict[str, Engine] = {}


def register_engine(engine: Engine) -> None:
    """Make an engine available to the problems that name it in ``engines``."""
    ENGINES[engine.name] = engine


# ----------------------------------------------------------------------------- the two cover engines
def _kernel(ec: ExactCover, hints: SearchHints, options: SolverOptions) -> Solver:
    if options.method is Method.BITBOARD:
        return BitboardSolver(ec, region=hints.board or hints.region)
    if options.method is Method.LEVELS and options.level_plan is not None:
        return LevelShares(ec, hints.board or hints.region, options.level_plan, hints.heuristic)
    levels = {Method.SEARCH: False, Method.LEVELS: True, Method.AUTO: "auto"}[options.method]
    board = hints.board if options.method is not Method.SEARCH else None
    return KernelSolver(ec, hints.heuristic, hints.region, memo=options.memo, levels=levels, board=board)


def _reference(ec: ExactCover, hints: SearchHints, options: SolverOptions) -> Solver:
    return ReferenceSolver(ec, hints.heuristic, hints.region)


def _cover_engine(name: str, summary: str, honours: set[str], make) -> Engine:
    def build(problem: Searchable, options: SolverOptions) -> Solver:
        ec = _cover_of(problem)
        return make(ec, problem.search_hints(), options)

    return Engine(name, summary, frozenset(honours), build, make)


register_engine(_cover_engine("kernel", "the C kernels: exact cover on bitsets (MRV, counting memo), the cheap-node "
                                        "search on a bitboard, counting by levels",
                              {"distinct", "memo", "method", "symmetry"}, _kernel))
register_engine(_cover_engine("reference", "the pure-Python reference of the kernel's contract (slow; for checking)",
                              {"distinct", "symmetry"}, _reference))


def _cover_of(problem: Searchable) -> ExactCover:
    ec = problem.exact_cover()
    if ec is None:  # a model that lists a cover engine must compile to a cover
        raise ProblemError(f"{problem.name}: the {problem.kind} model has no exact cover")
    return ec


# ----------------------------------------------------------------------------- dispatch
def engine_for(problem: Searchable, options: SolverOptions) -> Engine:
    """The engine that will search ``problem`` with ``options``, once every option is
    known to be honoured; else a :class:`ProblemError` naming the option."""
    offered = tuple(problem.engines)
    name = options.engine or offered[0]
    if options.engine is None and options.method is Method.LEVELS:  # a model's own count by levels, if it has one
        name = next((n for n in offered if n in ENGINES and ENGINES[n].counts_by_levels), name)
    if name not in offered:
        why = problem.engine_refusal(name) or f"the {name} engine cannot search a {problem.kind} problem"
        raise ProblemError(f"{problem.name}: {why} (it offers {_listing(offered)})")
    engine = ENGINES.get(name)
    if engine is None:
        raise ProblemError(f"{problem.name}: no engine {name!r} is registered (known: {_listing(sorted(ENGINES))})")
    for option in options.asked():
        if (option == "method" and options.method is Method.AUTO) or option == "symmetry":
            continue  # "choose" and "by orbits where it applies" are always allowed: without a choice, it searches
        if option not in engine.honours:
            able = [n for n in offered if option in ENGINES[n].honours] if option in FLAGS else []
            where = (f"; use the {_listing(able)} engine" if able else
                     f"; a {problem.kind} problem is searched by the {_listing(offered)} engine")
            raise ProblemError(f"{problem.name}: {flag(option, options)} is not an option of the {name} engine"
                               f"{where}")
    if options.distinct and problem.symmetry() is None:
        raise ProblemError(f"{problem.name}: --distinct needs a model with a symmetry group "
                           f"({_listing(sorted(catalog.SYMMETRIC_KINDS))})")
    if engine.refusal is not None:
        why = engine.refusal(problem)
        if why is not None:
            raise ProblemError(f"{problem.name}: {why}")
    if options.method is Method.LEVELS and not engine.counts_by_levels:
        why = refusal(_cover_of(problem))
        if why is not None:
            raise ProblemError(f"{problem.name}: --by-levels: {why}")
    if options.method is Method.BITBOARD:
        why = bitboard_refusal(_cover_of(problem))
        if why is not None:
            raise ProblemError(f"{problem.name}: --by-bitboard: {why}")
    return engine


def solver_for(problem: Searchable, options: SolverOptions = SolverOptions()) -> Solver:
    """A solver of ``problem`` as ``options`` ask (see :func:`engine_for`)."""
    engine = engine_for(problem, options)
    if not options.distinct:
        solver = _with_its_search(problem, engine.build(problem, options), options)
        by_orbits = None
        if options.symmetry and "symmetry" in engine.honours and options.level_plan is None:
            # a level count shares states within one unit: levels count below the first
            # representatives only, the searches below nested ones too
            by_orbits = orbit_counter(problem, solver, nested=0 if options.method is Method.LEVELS else 2)
        return by_orbits or solver
    group = problem.symmetry()
    assert group is not None and engine.cover_solver is not None  # engine_for checked both
    hints = problem.search_hints()
    make = engine.cover_solver
    if options.burnside:
        return burnside_solver(problem, solver_for(problem, replace(options, distinct=False, burnside=0)), options)
    return DistinctSolver(_cover_of(problem), group.permutations, group.single_pieces,
                          lambda ec: make(ec, hints, options))


def _with_its_search(problem: Searchable, solver: Solver, options: SolverOptions) -> Solver:
    """A guarded count by levels given the search it gives up for, as the run was asked to
    search (by orbits where it was): else a plain search of every symmetric copy, 12 times
    the work on O'Beirne's hexagon."""
    if isinstance(solver, LevelShares) and solver.guarded and solver.search is None:
        assert options.level_plan is not None
        solver.search = solver_for(problem, replace(options, method=Method.SEARCH, level_plan=None,
                                                    symmetry=options.level_plan.guard_orbits))
    return solver


def burnside_solver(problem: Searchable, whole: Solver, options: SolverOptions) -> BurnsideSolver:
    """The count of ``problem``'s classes by Burnside's lemma, around ``whole``, the
    solver of its total (as :func:`choose_method` settled it: by orbits, by levels...);
    the folded covers searched by the same engine.  ``options.burnside`` is the group
    order the run's parts sum over: a problem that folds otherwise is refused."""
    fixed = fixed_points(problem)
    order = 0 if isinstance(fixed, str) else order_of(fixed)
    if order != options.burnside:
        raise ProblemError(f"{problem.name}: the run counts its classes by Burnside's lemma over "
                           f"{options.burnside} symmetries, and the problem has {order}"
                           + (f" ({fixed})" if isinstance(fixed, str) else ""))
    make = engine_for(problem, options).cover_solver
    folded = replace(options, distinct=False, burnside=0, symmetry=False, method=Method.SEARCH, level_plan=None,
                     fold_methods=())
    counted = sum(1 for f in fixed if f.cover is not None)
    if options.fold_methods and len(options.fold_methods) != counted:
        raise ProblemError(f"{problem.name}: the run counts {len(options.fold_methods)} folded covers, and the problem "
                           f"has {counted}")
    methods = options.fold_methods or (FoldMethod(),) * counted

    def fold_solver(k: int, ec: ExactCover) -> Solver:
        return make(ec, SearchHints(), replace(folded, method=methods[k].method, level_plan=methods[k].level_plan))

    return BurnsideSolver(whole, order, fixed, fold_solver,
                          searched=all(m.method is not Method.LEVELS for m in methods))


class FoldedCover:
    """A folded cover as a problem the method choice measures (:func:`fold_methods`):
    no symmetry, no board (a fold's items are orbits of cells), the kernel engine."""

    kind = "folded"
    engines = ("kernel",)

    def __init__(self, problem: Searchable, cover: ExactCover, k: int):
        self.name = f"{problem.name} (fold {k + 1})"
        self.cover = cover

    def exact_cover(self) -> ExactCover:
        return self.cover

    def search_hints(self) -> SearchHints:
        return SearchHints()

    def symmetry(self) -> None:
        return None

    def engine_refusal(self, engine: str) -> None:
        return None


def fold_methods(problem: Searchable, options: SolverOptions, *, cluster: bool = False, hosts: int = 1,
                 memory: int | None = None) -> tuple[FoldMethod, ...]:
    """How each folded cover of ``problem``'s count by Burnside's lemma is counted: where
    ``options`` ask to choose (``Method.AUTO``) and the kernel counts, chosen for each
    fold by :func:`choose_method`, as for a whole count (a fold is a board's half or
    quarter: as hopeless searched as the board is); else searched.  A fold by levels
    counts on one thread: it runs beside the total's count, whose threads the workers'
    cores already hold (a level count on threads waits at a barrier every level, and one
    thread descheduled stalls them all: two threaded counts side by side on 2 cores took
    the 20x20 domino board's total 51 s instead of 2.8 s)."""
    fixed = fixed_points(problem)
    if isinstance(fixed, str):
        return ()
    covers = [f.cover for f in fixed if f.cover is not None]
    if options.method is not Method.AUTO or engine_for(problem, options).name != "kernel":
        return (FoldMethod(),) * len(covers)
    asked = SolverOptions(engine="kernel", memo=options.memo, method=Method.AUTO)
    out = []
    for k, cover in enumerate(covers):
        chosen = choose_method(FoldedCover(problem, cover, k), asked, whole_count=True, workers=1,
                               cluster=cluster, hosts=hosts, memory=memory).options
        out.append(FoldMethod(chosen.method, chosen.level_plan))
    return tuple(out)


def fixed_points(problem: Searchable) -> list[FixedPoints] | str:
    """The problem's conjugacy classes past the identity, each with the cover its
    fixed solutions are (:mod:`core.burnside`), or why its cover cannot be folded; found
    once a cover (kept in its ``derived``)."""
    ec = _cover_of(problem)
    if "burnside" not in ec.derived:
        group = problem.symmetry()
        try:
            ec.derived["burnside"] = fixed_point_covers(ec, group.items, group.image)
        except Unfoldable as e:
            ec.derived["burnside"] = str(e)
        except KeyError:  # an element maps an option to none of the cover's
            ec.derived["burnside"] = "the symmetry group does not map the options to options"
    return ec.derived["burnside"]


def burnside_order(problem: Searchable, options: SolverOptions) -> int:
    """The group order to count ``--distinct`` by Burnside's lemma with, where it applies
    (a count, a cover the kernel or the reference searches, a symmetry that folds), else 0."""
    if not options.distinct or problem.symmetry() is None:
        return 0
    engine = engine_for(problem, options)
    if engine.cover_solver is None or options.method in (Method.BITBOARD, Method.LEVELS):
        return 0
    fixed = fixed_points(problem)
    return 0 if isinstance(fixed, str) else order_of(fixed)


def orbit_counter(problem: Searchable, solver: Solver, nested: int = 2) -> OrbitCounter | None:
    """``solver``'s count by orbits of the problem's symmetry group, or None where there is
    no group larger than the identity, the cover has colors, or no item is fixed by a
    symmetry other than the identity."""
    group = problem.symmetry()
    if group is None or group.order < 2 or not group.countable:
        return None
    anchor = best_anchor(group, range(group.order))
    return None if anchor is None else OrbitCounter(group, solver.below, anchor=anchor, nested=nested)


def _listing(names) -> str:
    names = list(names)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


# ----------------------------------------------------------------------------- choosing a method
@dataclass
class MethodChoice:
    """How a count will go, and why (``reason`` is None when the caller chose); the
    solver built for it, and the trial's result when the trial counted everything
    (``trial``) or what it has done so far (``partial``: the search's trial, or the first
    unit counted by levels; the planner goes on from its frontier instead of counting
    those again)."""

    options: SolverOptions
    reason: str | None = None
    solver: Solver | None = None
    trial: SolveResult | None = None
    partial: SolveResult | None = None
    #: a whole count by levels: what its probe projected (core.level_projection)
    projection: Projection | None = None

    @property
    def method(self) -> Method:
        return self.options.method


#: a count whose search trial suggests less than this (seconds) goes by search: racing
#: the other methods would cost more than they could save
SMALL_SECONDS = 0.05
#: a tree the trial puts under SMALL_SECONDS is counted on to the end within this many
#: trials' nodes in all (the 8x8 less its centre: 29,000 nodes), not searched again by the
#: planner
SMALL_TRIALS = 5
#: ... or, on a loaded machine (where the trial's seconds grow and SMALL_SECONDS is passed),
#: where those trials' nodes would take under this many seconds at the trial's own pace and
#: its share of the tree in nodes says they reach its end: a small tree counted here rather
#: than in a pool (the 8x8 less its centre: forking the pool costs more than its count)
SMALL_POOL_SECONDS = 0.3
#: the two searches race where the trial suggests at least this many seconds
RACE_SECONDS = 1.0
#: the race of the two searches (see :func:`choose_method`): this many states, each with
#: a subtree of STATE_NODES_MIN to STATE_NODES_MAX search nodes, found among at most
#: STATE_TRIES pieces of the search trial's frontier (:class:`_StateSearch`)
STATES = 4
STATE_NODES_MIN = 2_000
STATE_NODES_MAX = 20_000
STATE_TRIES = 64
STATE_SEARCH_NODES = 200_000
#: the bitboard's race stops at this many times the search's time (it has lost by then)
RACE_LIMIT = 2.0
#: the bitboard is chosen only where it counts the race's states this many times faster
#: than the search (below, the search: carried on from its trial, it starts ahead)
BITBOARD_MARGIN = 1.25
#: a level count tried on one unit of the count gives up past this much work (about two
#: minutes); its memory cap is the kernel's memo cap
LEVELS_MAX_TRANSITIONS = 1_500_000_000
#: the longest the search's trial may take: 10,000 nodes of the 200x200 domino board took
#: 72 s (each node scans its 79,600 placements), where small covers take milliseconds
TRIAL_SECONDS_AT_MOST = 1.0
#: a budget stop hands back its frontier: the untried siblings of each node on its path,
#: each as a whole path, so a trial of N nodes down a tree D levels deep hands back about
#: N x D option ids (and the planner as many Python integers).  Trials are cut to keep that
#: under this many ids: the 200x200 domino board's solutions are 20,000 levels deep, and its
#: 10,000-node trial handed back 19,808 paths of up to 10,000 ids each, 5 s in the kernel
#: and 15 s more in Python, where 2,048 nodes take 0.3 s (2026-12-02)
TRIAL_FRONTIER_IDS = 1 << 21
#: the search must beat levels on the same unit by this much to be chosen over them
LEVELS_MARGIN = 1.5
#: levels are chosen without a race where the search's quick trial (its share of the unit
#: done in QUICK_UNIT_SECONDS) puts the search at this many times the levels' time or more.
#: Such shares undershoot (one-sided 3x30: 16 ms foreseen, 25 ms taken; 5x12: 8 against
#: 25 ms), so the race is skipped only where the search is clearly behind
LEVELS_CLEAR = 2.0
#: a unit the search counts within this many seconds is searched without measuring levels:
#: levels could save less than this per unit, and measuring them costs more (Soma: the
#: search counts a unit in 0.9 ms, levels take 3 ms to be measured)
QUICK_UNIT_SECONDS = 0.002
#: a quick trial whose first quarter puts the unit's search past this many seconds stops
#: there: it will not end within the rest of the quick trial
QUICK_HOPELESS = 0.05


def choose_method(problem: Searchable, options: SolverOptions, *, whole_count: bool,
                  side_by_side: bool = False, workers: int = 1, cluster: bool = False, hosts: int = 1,
                  memory: int | None = None) -> MethodChoice:
    """Settle ``Method.AUTO`` by measuring: the search, the cheap-node search (bitboard)
    and counting by levels, each by orbits of the symmetry group where asked.

    Only a whole count (no listing, split, node budget or verification) of a plain cover
    with the kernel, no ``--distinct`` and the memo on has a choice; otherwise it searches.

    No node is searched twice on the way: each trial goes on from the frontier of the one
    before it (:func:`_carried_on`, by the split law), and a count that ends in a trial is
    the answer (``trial``), not searched again by the planner.

    1. The quick trial: the search of the first *unit* — the search below the first orbit
       representative, or the whole count without orbits — for
       :data:`QUICK_UNIT_SECONDS` (stopped after a quarter of it where its share done
       puts the unit past :data:`QUICK_HOPELESS`).  A unit it ends measures no levels
       (Soma: 0.6 ms, where building and measuring levels cost 3 ms).
    2. Where the cover's pieces are used once each and its band is at most
       :data:`~core.frontier.AUTO_MAX_BAND` (the library's boxes: orbits pay there),
       levels count the same unit.  Where the quick
       trial's share puts the search at :data:`LEVELS_CLEAR` times that or more, levels
       are chosen; otherwise the search goes on for :data:`LEVELS_MARGIN` times less than
       the levels took, and whichever finishes first wins.  Without orbits the unit is
       the whole count, so the winner's count is the answer.  ``side_by_side`` (a run
       with a second core's worker idle until the choice is made): the search's side of
       the race runs in a thread beside the level count (both in C, the GIL released),
       the same rule applied to its time, so the choice takes the longer of the two
       instead of their sum.
    3. Otherwise the search's trial of the whole count, carried on from the quick trial to
       :func:`trial_nodes` nodes (at most
       :data:`TRIAL_SECONDS_AT_MOST`: a node of a huge cover costs milliseconds): a count
       that ends there is the answer; one that the trial's share of the tree puts under
       :data:`SMALL_SECONDS` is carried on to the end, within :data:`SMALL_TRIALS` trials'
       nodes in all, and that count is the answer.
    4. Otherwise, a cover the level count takes is measured whole (:func:`_whole_levels`):
       a probe of its first levels on the run's threads, projected to the whole count's
       time and memory (:mod:`core.level_projection`).  A probe that ends is the answer;
       levels are chosen where their projection is below the search's own (the trial's
       time over the share of the tree it finished), so a search is never kept that its
       trial puts 100x past them, and the count goes as shares
       (:class:`~core.level_shares.LevelShares`) fitted to ``memory``.  A count that fits
       no memory and whose search the trial puts past :data:`HOPELESS_SECONDS` is refused
       in one line naming the states and bytes it would need.
    5. The two searches race where the tree is bigger and the cover allows the bitboard:
       each counts the same few states (partial covers with a subtree of a few thousand
       nodes, found by carrying the search's trial on: :class:`_StateSearch`, so the
       search's side of the race is part of the count); the bitboard is chosen where it is
       :data:`BITBOARD_MARGIN` times faster, else the search (a near tie stays with the search,
       whose trial goes on as the run's first subproblem).

    Racing on small states alone was tried and dropped: levels merge more states the
    bigger the subtree, so on small ones they looked no better than the bitboard
    (one-sided 5x18: 47 against 45 ms) where on the whole count they are five times
    faster (62 s against 5 minutes).  Estimating whole trees by Knuth's random walks was
    dropped too: 48 walks put the one-sided 6x15 box at 32 s for the bitboard (it takes
    about 23 minutes).
    """
    engine = engine_for(problem, options)
    if (options.method is Method.LEVELS and whole_count and engine.name == "kernel" and not options.distinct
            and not has_piece_items(_cover_of(problem))):
        # asked for levels, on a cover whose orbits do not pay: the whole count, in shares
        chosen = _whole_levels(problem, options, _cover_of(problem), None, workers=workers, cluster=cluster,
                               hosts=hosts, memory=default_memory() if memory is None else memory)
        if isinstance(chosen, MethodChoice):
            return replace(chosen, reason=None)
        raise ProblemError(f"{problem.name}: --by-levels: {chosen}")
    if options.method is not Method.AUTO:
        return MethodChoice(options, solver=solver_for(problem, options))
    searched = replace(options, method=Method.SEARCH)
    engine = engine_for(problem, searched)
    own_levels = _own_levels_engine(problem)
    if own_levels is not None and options.engine is None and whole_count and not options.distinct:
        return _own_levels_or_search(problem, options, own_levels)
    if not whole_count or engine.name != "kernel" or options.distinct or not options.memo:
        return MethodChoice(searched, "search: only a whole count with the kernel, no --distinct or --no-memo, "
                                      "has a choice of method", solver_for(problem, searched))
    ec = _cover_of(problem)
    solver = solver_for(problem, searched)
    why_not = refusal(ec, width=False)  # (the width of its states: once levels are measured)
    unit_path, searcher = _first_unit(solver)
    quick = _quick_trial(searcher)
    nodes = trial_nodes(ec)
    trial = None
    if quick.complete:  # levels could save less than they cost to measure
        unit_note = "the whole count" if not unit_path else "its first unit"
        why_not = f"{unit_note} took the search {quick.stats.seconds:.2g} s, levels not measured"
        trial = _whole_trial(solver, unit_path, quick, nodes)
        if trial.complete:
            return MethodChoice(searched, f"search: {why_not} (under {QUICK_UNIT_SECONDS} s)", solver, trial)
    units = why_not is None and band(ec) <= AUTO_MAX_BAND and has_piece_items(ec)
    if units or (why_not is None and not has_piece_items(ec)):
        why_not = refusal(ec)
        units = units and why_not is None
    first_probe: LevelMeasure | None = None
    if units:
        by_levels = _levels_or_search(problem, options, solver, unit_path, searcher, quick, side_by_side)
        if by_levels is not None:
            return by_levels
        why_not = "the level count of its first unit gave up"
    elif why_not is None and trial is None and not has_piece_items(ec):
        # a tiling: a short probe first, as a count it finishes needs no trial of the search
        # (the 8x8 domino board: 0.3 ms by levels, where the search's trial took 3 ms); a
        # packing's search is often quicker still (the 8x8 board less its centre: 30 ms),
        # its trial comes first
        threads = max(1, workers // max(1, hosts)) if cluster else max(1, workers)
        hints = problem.search_hints()
        first_probe = measure(ec, hints.board or hints.region, PROBE_LEAST, threads=threads,
                              memory=default_memory() if memory is None else memory)
        if first_probe.complete:
            return _counted_in_probe(options, ec, hints.board or hints.region, first_probe, "")
        early = first_probe.projection
        if early is not None and early.seconds_high <= LEVELS_AT_ONCE and not cluster:
            # a count its probe puts under half a second is counted, no trial of the search
            # first (the 4 x 1000 strip of tetrominoes: 0.06 s, where the trial of its
            # 1,000-level-deep tree took 0.5 s)
            plan = replace(options.level_plan or LevelPlan(), threads=threads)
            solver = LevelShares(ec, hints.board or hints.region, plan)
            return MethodChoice(replace(options, method=Method.LEVELS, symmetry=False, level_plan=plan),
                                f"levels: a probe of {early.basis}, projecting {human_seconds(early.seconds)} "
                                f"at most {human_seconds(early.seconds_high)}: counted at once", solver,
                                solver.solve(), projection=early)
    if trial is None:
        trial = _whole_trial(solver, unit_path, quick, nodes)
    if trial.complete:  # measuring another method would cost more than it could save
        return MethodChoice(searched, f"search: the tree ended within its {nodes:,}-node trial "
                                      f"({trial.stats.seconds:.2g} s)", solver, trial)
    small = _small(trial, nodes)
    if small:
        whole = _carried_on(solver, trial, (SMALL_TRIALS - 1) * nodes)
        if whole.complete:
            return MethodChoice(searched, f"search: its trial finished {float(trial.weight_done):.0%} of the tree, "
                                          f"the rest within {SMALL_TRIALS - 1} trials' nodes more ({small})", solver,
                                whole)
    if why_not is None:
        why_not = refusal(ec)
    if why_not is None:
        by_levels = _whole_levels(problem, options, ec, trial, workers=workers, cluster=cluster, hosts=hosts,
                                  memory=default_memory() if memory is None else memory, first_probe=first_probe)
        if isinstance(by_levels, MethodChoice):
            return by_levels
        why_not = by_levels
    notes = [f"not levels: {why_not}" if why_not else "levels gave up"]
    size = trial.stats.seconds / max(float(trial.weight_done), 1e-12)
    searched_note = f"search: its trial finished {float(trial.weight_done):.0%} of the tree; " + notes[0]
    if size < RACE_SECONDS:
        return MethodChoice(searched, searched_note, solver, partial=trial)
    race = _StateSearch(solver, trial, ec.n_options)
    # a second worker would wait for the race: the lightest pieces of the trial are searched
    # beside it, from before the bitboard's refusal (classifying the items is Python, 10 ms
    # on the pentacube box, that the search beside need not wait for)
    beside = _PiecesBeside(solver, race) if side_by_side else None
    states: list[tuple[int, ...]] = []
    try:
        no_bitboard = bitboard_refusal(ec)
        if no_bitboard is None:
            states, search_seconds = race.find()
            times = {Method.SEARCH: search_seconds}
            # the bitboard need not be timed past the point where it has lost by a margin
            limit = RACE_LIMIT * search_seconds + 0.01
            if states:
                bitboard = _kernel(ec, problem.search_hints(), replace(options, method=Method.BITBOARD))
                times[Method.BITBOARD] = _race_time(bitboard, states, limit)
    finally:
        if beside is not None:
            beside.finish()
    trial = race.carried()
    if no_bitboard is not None:
        return MethodChoice(searched, searched_note, solver, partial=trial)
    if not states:
        return MethodChoice(searched, "search: no state to race the bitboard on; " + notes[0], solver, partial=trial)
    # a near tie stays with the search: its trial goes on as the run's first subproblem, where
    # the bitboard is built and tried anew (the pentacube box flipped between the two run by run)
    method = Method.BITBOARD if times[Method.BITBOARD] * BITBOARD_MARGIN < times[Method.SEARCH] else Method.SEARCH
    timing = ", ".join(f"{m} {1000 * t:.1f} ms" if t != float("inf") else f"{m} past {1000 * limit:.1f} ms"
                       for m, t in sorted(times.items(), key=lambda mt: mt[1]))
    chosen = replace(options, method=method)
    if method is Method.SEARCH:
        return MethodChoice(chosen, f"{method}: on {len(states)} states of the tree {timing}; {notes[0]}", solver,
                            partial=trial)
    return MethodChoice(chosen, f"{method}: on {len(states)} states of the tree {timing}; {notes[0]}",
                        solver_for(problem, chosen))


#: the search's trial before a model's own count by levels is chosen (seconds): a count
#: the crossword search finishes in this time is its answer
OWN_TRIAL_SECONDS = 0.05
#: a search whose trial's share of the tree puts the whole count under this (seconds) is
#: let finish: the count by levels could not save more
OWN_SEARCH_SECONDS = 0.5
#: the count by levels' own trial: one that ends within it is the answer
OWN_LEVELS_TRIAL_SECONDS = 1.0
#: a search kept after its trial is carried on from the trial's frontier within this many
#: seconds (twice :data:`OWN_SEARCH_SECONDS`: crossword trees outrun their trial's
#: forecast), else searched by the planner
OWN_CARRY_ON_SECONDS = 1.0
#: ... but a search its trial puts under :data:`OWN_SEARCH_SECONDS` is first carried on for
#: this long only, then the count by levels has a look of as long, then the search goes on
#: for the rest of :data:`OWN_CARRY_ON_SECONDS`: a clue string's tree can keep its work in
#: the last percent of its weight (NYT 23x23 left-right, 2026-11-28: 98% done in 0.05 s,
#: 0.95 s in all, where the transfer counts it in 0.065 s; the choice took 1.3 s)
OWN_SEARCH_SLICE = 0.25
#: ... and where the engine says the count by levels is slow (``Engine.search_first``: the
#: crossword transfer of a clue string on a folded kind, 49-92 s for the NYT rotational
#: Sundays) the search goes on this long before it: those Sundays' searches take 0.03-0.31 s
#: (the 1984 one, 0.30-0.31 s, fell past the 0.25 s slice into the transfer's 1 s trial:
#: 1.35 s in all, 2026-11-28)
OWN_SEARCH_FIRST_SECONDS = 0.75
#: past its trial, the count by levels is chosen where the search's trial puts the whole
#: search past this (seconds); else the search is kept: a clue string prunes the search
#: where it swells the transfer's states (a 21x21 rotational Sunday: the transfer in C
#: took 49-92 s, the search well under a second).  The search's figure is its trial's
#: time over the share of the tree it finished, which undershoots on crossword trees
#: (library entry 57: 7.3 s predicted, 35 minutes taken), hence a low bar
OWN_SEARCH_SLOW = 5.0


def _own_levels_engine(problem: Searchable) -> Engine | None:
    """The model's own count-by-levels engine among those the problem offers, or None."""
    return next((ENGINES[n] for n in problem.engines if n in ENGINES and ENGINES[n].counts_by_levels), None)


def _own_levels_or_search(problem: Searchable, options: SolverOptions, levels: Engine) -> MethodChoice:
    """A model with its own search and its own count by levels (a crossword: the search
    square by square, the transfer method row by row or layer by layer):

    1. the search runs :data:`OWN_TRIAL_SECONDS`: a count that ends there is the answer;
    2. a search whose trial's share of its tree puts the whole under
       :data:`OWN_SEARCH_SECONDS` is carried on for :data:`OWN_CARRY_ON_SECONDS` — first
       :data:`OWN_SEARCH_SLICE`, then the count by levels has a look as long, then the
       rest: one that ends is the answer, one that does not goes on to 3 from there (the
       forecast undershot); a search the count by levels cannot take on is let finish
       (its engine's refusal is the reason given);
    3. otherwise (a search not carried on in 2 first goes on for :data:`OWN_SEARCH_SLICE`,
       or :data:`OWN_SEARCH_FIRST_SECONDS` where the engine says its count by levels is
       slow here (``search_first``): one that ends is the answer) the count by levels runs
       :data:`OWN_LEVELS_TRIAL_SECONDS`: a count that ends there is the answer — where the
       engine says its count is quick (``levels_first``: the crossword transfer pruned by
       its reachability table) that trial comes before the search's slice;
    4. past both, the search is carried on from its trial's frontier for
       :data:`OWN_CARRY_ON_SECONDS`: one that ends is the answer (a rebuild from a clue
       string: its trial's forecast overshoots 10-10,000 times, NYT Sundays of 0.1-0.5 s
       forecast at 6-900 s, while the transfer takes them a minute);
    5. past all three, the count by levels where the search's trial puts the search past
       :data:`OWN_SEARCH_SLOW` (every grid of a size: the search visits each), else the
       search.

    A search chosen with its trial carried on to the end hands that count to the planner
    (:attr:`MethodChoice.trial`), which then searches nothing again.

    Measured on 2026-11-27 (bench/bench_crossword.py): the transfer is faster on every
    count the search does not finish at once — library entry 57 (13x13, no symmetry) in
    seconds against 35 minutes — so short trials decide."""
    searched = replace(options, method=Method.SEARCH)
    search = solver_for(problem, searched)
    trial = search.solve((), SolveRequest(seconds=OWN_TRIAL_SECONDS))
    if trial.complete:
        return MethodChoice(searched, f"search: it counted everything within its {OWN_TRIAL_SECONDS} s trial", search,
                            trial)
    done = float(trial.weight_done)
    left = trial.stats.seconds / done if done > 0 else float("inf")
    why_not = levels.refusal(problem) if levels.refusal is not None else None
    chosen = replace(options, method=Method.LEVELS)
    carried = left < OWN_SEARCH_SECONDS
    if carried:
        note = f"search: its {OWN_TRIAL_SECONDS} s trial finished {done:.0%} of its tree (about {left:.2g} s in all)"
        whole = _carried_on(search, trial, seconds=OWN_SEARCH_SLICE)
        if whole.complete:
            return MethodChoice(searched, note, search, whole)
        if why_not is None:  # the forecast undershot: a look at the count by levels
            by_levels = solver_for(problem, chosen)
            look = by_levels.solve((), SolveRequest(seconds=OWN_SEARCH_SLICE))
            if look.complete:
                return MethodChoice(chosen, f"levels: the {levels.name} method ({levels.summary}) counted everything "
                                            f"in {look.stats.seconds:.2g} s; the search's {OWN_TRIAL_SECONDS} s trial "
                                            f"had finished {done:.2%} of its tree, and {OWN_SEARCH_SLICE} s more did not "
                                            f"end it", by_levels, look)
        whole = _carried_on(search, whole, seconds=OWN_CARRY_ON_SECONDS - OWN_SEARCH_SLICE)
        if whole.complete:
            return MethodChoice(searched, note, search, whole)
        # the forecast undershot: a clue string's tree keeps its work in the last few
        # percent of its weight (NYT 23x23 left-right: 98% done in 0.05 s, 11.5 s in all
        # before the reachability table)
        trial = whole
        done = float(trial.weight_done)
        left = trial.stats.seconds / done if done > 0 else float("inf")
    if why_not is not None:
        return MethodChoice(searched, f"search: its trial finished {done:.2%} of its tree; not the {levels.name} "
                                      f"method: {why_not}", search, _finished(search, trial))
    by_levels = solver_for(problem, chosen)
    note = (f"levels: the {levels.name} method ({levels.summary}); the search's {OWN_TRIAL_SECONDS} s trial "
            f"finished {done:.2%} of its tree")
    # levels first where the engine says they are quick (the NYT asymmetric 15x15: the
    # slice cost 0.26 s of a 0.9 s choice, 2026-11-28)
    levels_trial = None
    if not carried and levels.levels_first is not None and levels.levels_first(problem):
        levels_trial = by_levels.solve((), SolveRequest(seconds=OWN_LEVELS_TRIAL_SECONDS))
    if not carried and (levels_trial is None or not levels_trial.complete):
        # a slice more first: a clue string's forecast overshoots (NYT Sundays: 0.1-0.5 s at 6-900 s)
        first = levels.search_first is not None and levels.search_first(problem)
        slice_seconds = OWN_SEARCH_FIRST_SECONDS if first else OWN_SEARCH_SLICE
        more = _carried_on(search, trial, seconds=slice_seconds)
        if more.complete:
            return MethodChoice(searched, f"search: its {OWN_TRIAL_SECONDS} s trial, carried on, ended within "
                                          f"{slice_seconds} s more ({more.stats.seconds:.2g} s in all)", search, more)
        trial = more
        done = float(trial.weight_done)
        left = trial.stats.seconds / done if done > 0 else float("inf")
    if levels_trial is None:
        levels_trial = by_levels.solve((), SolveRequest(seconds=OWN_LEVELS_TRIAL_SECONDS))
    if levels_trial.complete:
        return MethodChoice(chosen, f"{note}, the {levels.name} method counted everything in "
                                    f"{levels_trial.stats.seconds:.2g} s", by_levels, levels_trial)
    finished = _finished(search, trial)
    if finished is not None:  # its forecast was wrong: a clue string prunes what the trial had not reached
        return MethodChoice(searched, f"search: its {OWN_TRIAL_SECONDS} s trial carried on to the end "
                                      f"({finished.stats.seconds:.2g} s in all); the {levels.name} method did not "
                                      f"end within {OWN_LEVELS_TRIAL_SECONDS} s", search, finished)
    if left < OWN_SEARCH_SLOW:
        return MethodChoice(searched, f"search: its {OWN_TRIAL_SECONDS} s trial puts it at about {left:.3g} s; the "
                                      f"{levels.name} method did not end within {OWN_LEVELS_TRIAL_SECONDS} s", search)
    return MethodChoice(chosen, f"{note} (about {left:.3g} s in all)", by_levels)


def _finished(search: Solver, trial: SolveResult) -> SolveResult | None:
    """A search the method choice keeps, carried on from its timed trial's frontier to the
    end within :data:`OWN_CARRY_ON_SECONDS` (so the planner does not search it again:
    :attr:`MethodChoice.trial`); None past that, when the planner searches it with a
    progress bar and splits."""
    whole = _carried_on(search, trial, seconds=OWN_CARRY_ON_SECONDS)
    return whole if whole.complete else None


def _carried_on(solver: Solver, trial: SolveResult, node_budget: int | None = None,
                seconds: float | None = None, stop: threading.Event | None = None) -> SolveResult:
    """The trial carried on from its frontier, whose subtrees partition what is left (the
    split law): their counts added to the trial's, within ``node_budget`` nodes or
    ``seconds`` more in all, or until ``stop`` is set.  Complete when everything was
    counted; otherwise the frontier is what is still unexplored (the unstarted subtrees
    and the frontier of the one the budget stopped), so it can be carried on again."""
    stats = Stats()
    stats.add(trial.stats)
    count = trial.count
    started = time.perf_counter()
    left = list(trial.frontier)
    while left and not (stop is not None and stop.is_set()):
        nodes_left = None if node_budget is None else node_budget - (stats.nodes - trial.stats.nodes)
        seconds_left = None if seconds is None else seconds - (time.perf_counter() - started)
        if (nodes_left is not None and nodes_left <= 0) or (seconds_left is not None and seconds_left <= 0):
            break
        sub = left.pop(0)
        part = solver.solve(sub.path, SolveRequest(node_budget=nodes_left, seconds=seconds_left))
        count += part.count
        stats.add(part.stats)
        left[:0] = part.frontier
    return SolveResult(trial.path, trial.weight, count, stats, left, stopped_by="budget" if left else None)


#: the probe of a whole count by levels runs this share of the time the search's trial
#: puts the search at, within PROBE_LEAST and PROBE_MOST seconds (at least one level)
PROBE_SHARE = 0.05
PROBE_LEAST = 0.02
PROBE_MOST = 0.25
#: a level count projected under this (seconds) is counted while choosing, with no worker
#: started: its answer comes at once
LEVELS_AT_ONCE = 0.5
#: a count neither levels nor the search can take is refused where the search's trial puts
#: the search past this (seconds): a day
HOPELESS_SECONDS = 86400.0
#: a count by levels chosen on a projection gives up for the search past the projection's
#: peak of memory times its band and :data:`MEMORY_MARGIN`, but never below this (bytes),
#: or past :data:`GUARD_OVER_HIGH` times its band's top in time, never below
#: :data:`GUARD_LEAST_SECONDS`: its probe did not see the count's size (O'Beirne's
#: hexagon, 2026-12-07: 13 of 108 levels probed, 60 MB projected, 14 GB passed)
GUARD_LEAST_BYTES = 1 << 30
GUARD_OVER_HIGH = 2.0
GUARD_LEAST_SECONDS = 30.0


def _whole_levels(problem: Searchable, options: SolverOptions, ec: ExactCover, trial: SolveResult | None, *,
                  workers: int, cluster: bool, hosts: int, memory: int,
                  first_probe: LevelMeasure | None = None) -> MethodChoice | str:
    """The whole count by levels where its probe's projection beats the search's trial
    (step 4 of :func:`choose_method`; ``trial`` None: levels asked for, no comparison);
    else why not, in words.  On a local pool the count runs on the pool's ``workers`` as
    threads; on a cluster, one share per host where its residues can be shared out, each
    on the host's worker processes as threads (``workers // hosts``)."""
    if trial is not None:
        done = float(trial.weight_done)
        search_seconds = trial.stats.seconds / done if done > 0 else math.inf
        in_all = (f"about {human_seconds(search_seconds)} in all" if math.isfinite(search_seconds)
                  else "no end in sight")
        search_words = f"the search's trial finished {done:.2%} of the tree in {trial.stats.seconds:.2g} s ({in_all})"
    else:
        search_seconds, search_words = math.inf, "the search was not asked for (--by-levels)"
    threads = max(1, workers // max(1, hosts)) if cluster else max(1, workers)
    seconds = min(PROBE_MOST, max(PROBE_LEAST, PROBE_SHARE * search_seconds))
    hints = problem.search_hints()
    region = hints.board or hints.region
    if first_probe is None and seconds > PROBE_LEAST:  # a short probe first, a longer one if it is not decisive
        first_probe = measure(ec, region, PROBE_LEAST, threads=threads, memory=memory)
    early = first_probe.projection if first_probe is not None else None
    if first_probe is not None and (early is None or early.seconds_high < search_seconds / LEVELS_CLEAR or
                                    early.seconds_low > LEVELS_CLEAR * search_seconds or seconds <= PROBE_LEAST):
        measured = first_probe  # the short probe decides: no longer one (the pentacube box: 0.3 s saved)
    else:
        measured = measure(ec, region, seconds, threads=threads, memory=memory)
    if measured.projection is None:
        if search_seconds > HOPELESS_SECONDS:
            raise ProblemError(f"{problem.name}: out of reach: counting by levels: {measured.refusal} (--memory), "
                               f"and {search_words}")
        return f"{measured.refusal}; {search_words}"
    proj = measured.projection
    levels_options = replace(options, method=Method.LEVELS, symmetry=False)
    if measured.complete:
        return _counted_in_probe(options, ec, region, measured, f"; {search_words}")
    levels_words = (f"a probe of {proj.basis}, projecting {human_seconds(proj.seconds)} "
                    f"({human_seconds(proj.seconds_low)} to {human_seconds(proj.seconds_high)}) and "
                    f"{human_bytes(proj.peak_bytes)} at the peak, {proj.states:,.3g} states")
    if proj.seconds > search_seconds:
        return f"{levels_words}: more than the search ({search_words})"
    asked = options.level_plan  # (--level-shares: the groups and slices named)
    plan = plan_for(measured, threads=threads, memory=memory, hosts=hosts, cluster=cluster) if asked is None else \
        replace(asked, threads=max(1, threads // (1 if cluster else min(asked.groups * asked.slices, threads))),
                memory=memory)
    if plan is None:
        if search_seconds > HOPELESS_SECONDS:
            raise ProblemError(f"{problem.name}: out of reach: counting by levels needs about "
                               f"{proj.level_states:,.3g} states a level and {human_bytes(proj.peak_bytes)} at its "
                               f"peak, {human_bytes(MEMORY_MARGIN * proj.peak_bytes)} with a margin (--memory allows "
                               f"{human_bytes(memory)}), and {search_words}")
        return f"{levels_words}: past the {human_bytes(memory)} of memory allowed; {search_words}"
    if trial is not None and plan.groups * plan.slices == 1:
        plan = replace(plan, guard_bytes=int(max(GUARD_LEAST_BYTES, MEMORY_MARGIN * proj.band * proj.peak_bytes)),
                       guard_seconds=max(GUARD_LEAST_SECONDS, GUARD_OVER_HIGH * proj.seconds_high),
                       guard_orbits=options.symmetry)
    chosen = replace(levels_options, level_plan=plan)
    solver = _with_its_search(problem, LevelShares(ec, region, plan, hints.heuristic), chosen)
    guard = (f", given up for the search past {human_bytes(plan.guard_bytes)} or {human_seconds(plan.guard_seconds)}"
             if plan.guarded else "")
    note = f"levels: {levels_words}, {solver.description}{guard}; {search_words}"
    if proj.seconds_high <= LEVELS_AT_ONCE and not cluster:
        return MethodChoice(chosen, note, solver, solver.solve(), projection=proj)
    return MethodChoice(chosen, note, solver, projection=proj)


def _counted_in_probe(options: SolverOptions, ec: ExactCover, region: RegionRule | None, measured: LevelMeasure,
                      note: str) -> MethodChoice:
    """Levels, where a probe counted everything: the answer, as the planner takes a trial
    that finished."""
    probe, proj = measured.probe, measured.projection
    assert probe is not None and probe.count is not None and proj is not None
    plan = replace(options.level_plan or LevelPlan(), threads=measured.threads)
    result = SolveResult((), Fraction(1), probe.count,
                         Stats(nodes=probe.states, leaves=probe.leaves, solutions=probe.count, updates=probe.updates,
                               seconds=probe.seconds, nodes_per_depth=[], by_levels=1), [])
    return MethodChoice(replace(options, method=Method.LEVELS, symmetry=False, level_plan=plan),
                        f"levels: counted whole in its {probe.seconds:.2g} s probe ({probe.states:,} states){note}",
                        LevelShares(ec, region, plan), result, projection=proj)


def _levels_or_search(problem: Searchable, options: SolverOptions, search: Solver, unit_path: tuple[int, ...],
                      searcher: Solver, quick: SolveResult, side_by_side: bool = False) -> MethodChoice | None:
    """Levels against the search on one unit, the search's quick trial there carried on
    (see :func:`choose_method`; ``side_by_side``: in a thread beside the level count);
    None when the level count gives up."""
    whole = not unit_path
    searched = replace(options, method=Method.SEARCH)
    levels_options = replace(options, method=Method.LEVELS)
    levels = solver_for(problem, levels_options)
    level_path, unit = _first_unit(levels)
    if not isinstance(unit, KernelSolver) or level_path != unit_path:
        return None
    unit_note = "the whole count" if whole else f"one of {len(levels.searches())} units"
    beside = _SearchBeside(searcher, quick) if side_by_side else None
    try:
        started = time.perf_counter()
        done = unit.level_count(max_transitions=LEVELS_MAX_TRANSITIONS)
        levels_seconds = time.perf_counter() - started
    except BaseException:  # interrupted: so is the race
        if beside is not None:
            beside.finish()
        raise
    done_share = float(quick.weight_done)
    foreseen = quick.stats.seconds / done_share if done_share > 0 else float("inf")
    if done is None or foreseen >= LEVELS_CLEAR * levels_seconds:  # gave up, or no race: the quick trial says
        if beside is not None:
            beside.finish()
        if done is None:
            return None
        note = (f"{unit_note}: levels {levels_seconds:.2g} s, the search's {quick.stats.seconds:.2g} s trial "
                f"finished {done_share:.0%} of it (about {foreseen:.2g} s)")
        return _by_levels(levels_options, f"levels: {note}", levels, unit, levels_seconds, whole)
    # the race goes on from the quick trial's frontier (its count is not searched again) for
    # LEVELS_MARGIN times less than the levels took; beside them, it has had that already
    allowance = levels_seconds / LEVELS_MARGIN - quick.stats.seconds
    if beside is None:
        race = _carried_on(searcher, quick, seconds=allowance)
    else:
        race = beside.finish(allowance - beside.seconds)
    if race.complete and (beside is None or race.stats.seconds - quick.stats.seconds <= allowance):
        note = f"{unit_note}: search {race.stats.seconds:.2g} s, levels {levels_seconds:.2g} s"
        return MethodChoice(searched, f"search: {note}", search, race if whole else None)
    note = f"{unit_note}: levels {levels_seconds:.2g} s, search past {levels_seconds / LEVELS_MARGIN:.2g} s"
    return _by_levels(levels_options, f"levels: {note}", levels, unit, levels_seconds, whole)


def _by_levels(options: SolverOptions, reason: str, levels: Solver, unit: KernelSolver, unit_seconds: float,
               whole: bool) -> MethodChoice:
    """Levels chosen, the first unit counted: the whole count's answer when the unit is the
    whole count, else the count gone on from that unit (``partial``: its count, looked up
    where the level count kept it, and the other units as the frontier), so the planner
    hands those on at once instead of a planning trial counting a second unit (a level
    count does not stop for a budget: on the one-sided 5x18, 0.6 s more of serial start)."""
    if whole:
        return MethodChoice(options, reason, levels, levels.solve())
    first = unit.solve()
    first.stats.seconds = unit_seconds  # what the unit cost (the look-up is instant): it sizes the run's tasks
    assert isinstance(levels, OrbitCounter)
    return MethodChoice(options, reason, levels, partial=levels.after_first(first))


#: the search beside a level count stops with it; this only bounds a thread nobody stops
RACE_BESIDE_SECONDS = 24 * 3600.0


class _SearchBeside:
    """The search's side of the race with levels, carried on from the quick trial in a
    thread of its own while the calling thread counts the unit by levels (both in C with
    the GIL released: two cores, where the run has a second worker waiting for the choice).
    :meth:`finish` stops it where it is — the handoff flag (:mod:`core.handoff`) ends the
    running solve at its next clock reading — and returns how far it got.

    Measured on the one-sided 5x18 (2026-11-28, `bench/bench_distributed.py --cold`): the
    race after the level count took 0.4-0.6 s of a 1.66 s serial start; beside it, the
    start took 1.32 s and two local workers went from 1.56x to 1.71x of one."""

    def __init__(self, searcher: Solver, quick: SolveResult):
        self._stop = threading.Event()
        self._result: SolveResult | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(searcher, quick), name="tilecensus-race",
                                        daemon=True)
        self._started = time.perf_counter()
        self._thread.start()

    @property
    def seconds(self) -> float:
        """How long the search has been going on."""
        return time.perf_counter() - self._started

    def _run(self, searcher: Solver, quick: SolveResult) -> None:
        try:
            self._result = _carried_on(searcher, quick, seconds=RACE_BESIDE_SECONDS, stop=self._stop)
        except BaseException as exc:  # raised again in the choosing thread by finish()
            self._error = exc

    def finish(self, grace: float = 0.0) -> SolveResult:
        """Let the search go on for ``grace`` seconds more at most, then stop it where it
        is; its result."""
        if grace > 0:
            self._thread.join(grace)
        _stopped(self._thread, self._stop)
        if self._error is not None:
            raise self._error
        assert self._result is not None
        return self._result


def _stopped(thread: threading.Thread, stop: threading.Event) -> None:
    """A search thread stopped where it is: its loop's event set and the handoff flag
    raised (:mod:`core.handoff`: the running solve ends at its next clock reading), the
    thread joined, the flag cleared (the calling thread searches nothing meanwhile)."""
    stop.set()
    handoff.request()
    try:
        thread.join()
    finally:
        handoff.clear()


def _small(trial: SolveResult, nodes: int) -> str | None:
    """Why the tree of a search's unfinished trial is carried on to its end here (within
    :data:`SMALL_TRIALS` - 1 trials of ``nodes`` more), or None: the trial's share puts the
    whole under :data:`SMALL_SECONDS`; or, by nodes rather than seconds (a loaded machine
    slows the trial, not the tree), the nodes its share foresees fit in those trials and
    they would take under :data:`SMALL_POOL_SECONDS` at the trial's pace."""
    done = max(float(trial.weight_done), 1e-12)
    if trial.stats.seconds / done < SMALL_SECONDS:
        return f"under {SMALL_SECONDS} s by its share"
    rest = (SMALL_TRIALS - 1) * nodes
    foreseen = trial.stats.nodes * (1 / done - 1)
    pace = trial.stats.seconds / max(1, trial.stats.nodes)
    if foreseen <= rest and rest * pace < SMALL_POOL_SECONDS:
        return f"about {foreseen:,.0f} nodes to go, under {SMALL_POOL_SECONDS} s at its pace: no pool"
    return None


def trial_nodes(ec: ExactCover) -> int:
    """The nodes of the search's trial: :data:`~core.frontier.AUTO_TRIAL_NODES`, fewer for
    a tree so deep that their frontier would pass :data:`TRIAL_FRONTIER_IDS` option ids
    (its depth: the items over the mean option's size; a trial cannot go deeper than its
    nodes, so 2,048 nodes are always allowed)."""
    entries = sum(map(len, ec.options))
    depth = ec.n_primary * len(ec.options) // max(1, entries)
    if depth * AUTO_TRIAL_NODES <= TRIAL_FRONTIER_IDS:
        return AUTO_TRIAL_NODES
    return max(math.isqrt(2 * TRIAL_FRONTIER_IDS), TRIAL_FRONTIER_IDS // max(1, depth))


def _whole_trial(solver: Solver, unit_path: tuple[int, ...], quick: SolveResult, nodes: int) -> SolveResult:
    """The search's trial of the whole count: ``nodes`` in all (:func:`trial_nodes`; at
    most :data:`TRIAL_SECONDS_AT_MOST`), carried on from the quick trial of its first unit
    (no node searched twice)."""
    start = solver.after_first(quick) if unit_path else quick
    return _carried_on(solver, start, node_budget=max(1, nodes - quick.stats.nodes),
                       seconds=max(1e-6, TRIAL_SECONDS_AT_MOST - quick.stats.seconds))


def _quick_trial(searcher: Solver) -> SolveResult:
    """The search of one unit for :data:`QUICK_UNIT_SECONDS`, in two steps: after the
    first quarter, a search whose share done puts it past :data:`QUICK_HOPELESS` seconds
    stops there (a count the levels take in a millisecond, such as the 8x8 dominoes,
    need not wait for the rest of it)."""
    first = searcher.solve((), SolveRequest(seconds=QUICK_UNIT_SECONDS / 4))
    if first.complete:
        return first
    done = float(first.weight_done)
    if done <= 0 or first.stats.seconds / done > QUICK_HOPELESS:
        return first
    return _carried_on(searcher, first, seconds=QUICK_UNIT_SECONDS - first.stats.seconds)


def _first_unit(solver: Solver) -> tuple[tuple[int, ...], Solver]:
    """The search below an orbit count's first representative, and its path: the unit the
    levels are measured on (a count by levels nests no orbit counts, so its first unit is
    there, where the search may nest a count by the representative's stabiliser); the
    solver itself, at path (), when it counts no orbits."""
    if isinstance(solver, OrbitCounter):
        return (0,), solver.child(0)
    return (), solver


class _StateSearch:
    """The search's side of the race with the bitboard: states to race on, found by
    carrying the search's trial on, down its frontier as the random walks that found
    states before went down the tree (:meth:`find`).  :meth:`carried` is the trial carried
    on, its frontier what is left.  Pieces of the trial's frontier may be taken, lightest
    first, by a search in another thread meanwhile (:class:`_PiecesBeside`): a run whose
    second worker waits for the choice."""

    def __init__(self, solver: Solver, trial: SolveResult, n_options: int):
        self.solver, self.trial, self.n_options = solver, trial, n_options
        self.cover_of = solver.cover_of if isinstance(solver, OrbitCounter) else tuple
        self.stats = Stats()
        self.stats.add(trial.stats)
        self.count = trial.count
        # what is left of each piece, tried or not: the piece itself (untried), None (counted)
        # or the slots of the frontier its budget stop left, in order
        self.slots: list[Subpath | list[int] | None] = []
        self.groups: list[list[int]] = []  # the untried slots of each group, largest last
        self.lock = threading.Lock()  # slots and groups, where a search beside takes pieces
        self.roots = self._placed(trial.frontier)
        self._root_group = self.groups[0]

    def _placed(self, group: Sequence[Subpath], grouped: bool = True) -> list[int]:
        ids = list(range(len(self.slots), len(self.slots) + len(group)))
        self.slots.extend(group)
        if grouped:
            self.groups.append(sorted(ids, key=lambda k: self.slots[k].weight))  # type: ignore[union-attr]
        return ids

    def find(self) -> tuple[list[tuple[int, ...]], float]:
        """The largest untried piece of the latest group is searched within
        :data:`STATE_NODES_MAX` nodes; one counted to its end in :data:`STATE_NODES_MIN`
        nodes or more is a state, timed; one the node budget stops makes its own frontier
        the latest group (the search goes down into it), so the states are the biggest
        subtrees that fit, where the memo's gain shows (the smallest pieces of a trial
        made the bitboard, which has no memo, look faster even on a cover of 3^81
        solutions it would count one by one).  Every node searched on the way is the
        count's own, so the search's side of the race is not searched again; only the
        bitboard's side costs.  Stops at :data:`STATES` states, after :data:`STATE_TRIES`
        pieces or past :data:`STATE_SEARCH_NODES` nodes.  Returns the states as partial
        covers (option ids; a piece below a nested orbit count, whose count is weighted,
        is no state) and the search's seconds on them."""
        groups, slots = self.groups, self.slots
        states: list[tuple[int, ...]] = []
        seconds, tries, nodes = 0.0, 0, 0  # (its own nodes: not the search beside's)
        while len(states) < STATES and tries < STATE_TRIES and nodes < STATE_SEARCH_NODES:
            with self.lock:
                while groups and not groups[-1]:
                    groups.pop()
                if not groups:
                    break
                k = groups[-1].pop()
            piece = slots[k]
            assert isinstance(piece, Subpath)
            cover = self.cover_of(piece.path)
            if cover is None:
                continue
            tries += 1
            started = time.perf_counter()
            part = self.solver.solve(piece.path, SolveRequest(node_budget=STATE_NODES_MAX))
            took = time.perf_counter() - started
            nodes += part.stats.nodes
            with self.lock:  # (the search beside adds to the same count)
                self.count += part.count
                self.stats.add(part.stats)
                slots[k] = self._placed(part.frontier) if part.frontier else None
            if part.complete and part.stats.nodes >= STATE_NODES_MIN:
                states.append(tuple(j for j in cover if j < self.n_options))
                seconds += took
        return states, seconds

    def lightest(self) -> tuple[int, Subpath] | None:
        """An untried piece of the trial's frontier for the search beside: the lightest
        (the race goes down the heaviest); None when none is left."""
        with self.lock:
            if not self._root_group:
                return None
            k = self._root_group.pop(0)
            piece = self.slots[k]
        assert isinstance(piece, Subpath)
        return k, piece

    def searched_beside(self, k: int, part: SolveResult) -> None:
        """What the search beside did of piece ``k``."""
        with self.lock:
            self.count += part.count
            self.stats.add(part.stats)
            self.slots[k] = self._placed(part.frontier, grouped=False) if part.frontier else None

    def carried(self) -> SolveResult:
        """The trial carried on: its count and statistics with what was searched since,
        its frontier what is left, in order."""
        def left(k: int) -> list[Subpath]:
            slot = self.slots[k]
            if slot is None:
                return []
            return [slot] if isinstance(slot, Subpath) else [s for j in slot for s in left(j)]

        frontier = [s for k in self.roots for s in left(k)]
        return SolveResult(self.trial.path, self.trial.weight, self.count, self.stats, frontier,
                           stopped_by="budget" if frontier else None)


class _PiecesBeside:
    """A search in a thread of its own that takes the lightest pieces of the trial's
    frontier while the calling thread races the bitboard (:class:`_StateSearch`): the run's
    second worker would otherwise wait for the choice.  Both threads search with the same
    solver — the kernel keeps each call's search state, memo included, apart, and
    releases the GIL — and count into the race's trial; :meth:`finish` stops it where it
    is (the handoff flag, :mod:`core.handoff`, ends the running solve at its next clock
    reading), its piece's frontier left to the count.

    Measured on the pentacube box (2026-11-28): the choice searches 142,000 nodes instead
    of 57,000 in the same time, 1.7% of the tree instead of 0.5%."""

    def __init__(self, solver: Solver, race: _StateSearch):
        self._race = race
        self._stop = threading.Event()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, args=(solver,), name="tilecensus-beside", daemon=True)
        self._thread.start()

    def _run(self, solver: Solver) -> None:
        try:
            while not self._stop.is_set():
                taken = self._race.lightest()
                if taken is None:
                    return
                k, piece = taken
                self._race.searched_beside(k, solver.solve(piece.path, SolveRequest(seconds=RACE_BESIDE_SECONDS)))
        except BaseException as exc:  # raised again in the choosing thread by finish()
            self._error = exc

    def finish(self) -> None:
        """Stop the search where it is."""
        _stopped(self._thread, self._stop)
        if self._error is not None:
            raise self._error


def _race_time(racer: Solver, states: list[tuple[int, ...]], limit: float | None = None) -> float:
    """Seconds the racer takes to count below each state, in all; infinity past ``limit``
    seconds (the states were found by the search, whose memo can make a subtree small that
    the bitboard, with none, would count leaf by leaf for ever)."""
    started = time.perf_counter()
    for state in states:
        left = None if limit is None else limit - (time.perf_counter() - started)
        if left is not None and left <= 0:
            return float("inf")
        if not racer.below(state).solve((), SolveRequest(seconds=left)).complete:
            return float("inf")
    return time.perf_counter() - started
