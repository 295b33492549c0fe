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

from dataclasses import dataclass, fields, replace
from enum import StrEnum
from typing import Callable, Protocol, Sequence

from . import catalog
from .distinct import DistinctSolver
from .errors import ProblemError
from .exact_cover import ExactCover
from .frontier import AUTO_MAX_BAND, AUTO_TRIAL_NODES, band, refusal
from .kernel import KernelSolver
from .pruning import RegionRule
from .reference import ReferenceSolver
from .search import SolveRequest, SolveResult, Solver
from .symmetry import OptionSymmetry, OrbitCounter, best_anchor, countable


class Method(StrEnum):
    """How a count goes: a tree search, counting by levels (:mod:`core.frontier`), or
    chosen automatically (:func:`choose_method`)."""

    SEARCH = "search"
    LEVELS = "levels"
    AUTO = "auto"


@dataclass(frozen=True)
class SolverOptions:
    """What a caller asks of a solver.  The field metadata names each option as the
    command line spells it, for messages."""

    #: the engine's name; None for the problem's default
    engine: str | None = None
    #: also count the solutions once per symmetry class (``SolveResult.distinct``)
    distinct: bool = False
    #: the kernel's counting memo (off: every solution is visited)
    memo: bool = True
    method: Method = Method.SEARCH
    #: count by orbits of the problem's symmetry group, where it has one (counting only)
    symmetry: bool = False

    def asked(self) -> list[str]:
        """The options given a value other than their default (the engine aside)."""
        default = SolverOptions()
        return [f.name for f in fields(self) if f.name != "engine" and getattr(self, f.name) != getattr(default, f.name)]

    @classmethod
    def of(cls, engine: str | None = None, distinct: bool = False, memo: bool = True,
           levels: bool | str = False, method: Method | str | None = None, symmetry: bool = False) -> "SolverOptions":
        """From the Python API's keywords: ``levels=True`` counts by levels,
        ``levels="auto"`` lets each count choose, ``False`` searches."""
        if method is None:
            method = {True: Method.LEVELS, "auto": Method.AUTO, False: Method.SEARCH}.get(levels)  # type: ignore[arg-type]
            if method is None:
                raise ValueError(f"levels must be True, False or 'auto', not {levels!r}")
        return cls(engine, bool(distinct), bool(memo), Method(method), bool(symmetry))


#: how the command line spells each option (for messages)
FLAGS = {"distinct": "--distinct", "memo": "--no-memo", "method": "--by-levels", "symmetry": "--symmetry"}


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


ENGINES: dict[str, Engine] = {}


def register_engine(engine: Engine) -> None:
    """Make an engine available to the problems that name it in ``engines``."""
    ENGINES[engine.name] = engine


# ----------------------------------------------------------------------------- the two cover engines
def _kernel(ec: ExactCover, hints: SearchHints, options: SolverOptions) -> Solver:
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


register_engine(_cover_engine("kernel", "the C kernel: exact cover on bitsets, MRV, counting memo, counting by levels",
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
            raise ProblemError(f"{problem.name}: {FLAGS.get(option, option)} is not an option of the {name} engine"
                               f"{where}")
    if options.distinct and problem.symmetry() is None:
        raise ProblemError(f"{problem.name}: --distinct needs a model with a symmetry group "
                           f"({_listing(sorted(catalog.SYMMETRIC_KINDS))})")
    if options.method is Method.LEVELS:
        why = refusal(_cover_of(problem))
        if why is not None:
            raise ProblemError(f"{problem.name}: --by-levels: {why}")
    return engine


def solver_for(problem: Searchable, options: SolverOptions = SolverOptions()) -> Solver:
    """A solver of ``problem`` as ``options`` ask (see :func:`engine_for`)."""
    engine = engine_for(problem, options)
    if not options.distinct:
        solver = engine.build(problem, options)
        by_orbits = orbit_counter(problem, solver) if options.symmetry and "symmetry" in engine.honours else None
        return by_orbits or solver
    group = problem.symmetry()
    assert group is not None and engine.cover_solver is not None  # engine_for checked both
    hints = problem.search_hints()
    make = engine.cover_solver
    return DistinctSolver(_cover_of(problem), group.permutations, group.single_pieces,
                          lambda ec: make(ec, hints, options))


def orbit_counter(problem: Searchable, solver: Solver) -> OrbitCounter | None:
    """``solver``'s count by orbits of the problem's symmetry group, or None where there is
    no group larger than the identity, the cover has colors, or no item is fixed by a
    symmetry other than the identity."""
    group = problem.symmetry()
    if group is None or group.order < 2 or not countable(group.ec):
        return None
    anchor = best_anchor(group, range(group.order))
    return None if anchor is None else OrbitCounter(group, solver.below, anchor=anchor)


def _listing(names) -> str:
    names = list(names)
    return ", ".join(names[:-1]) + " or " + names[-1] if len(names) > 1 else "".join(names)


# ----------------------------------------------------------------------------- choosing a method
@dataclass
class MethodChoice:
    """How a count will go, and why (``reason`` is None when the caller chose); the
    solver built for it, and the trial's result when the trial counted everything."""

    options: SolverOptions
    reason: str | None = None
    solver: Solver | None = None
    trial: SolveResult | None = None

    @property
    def method(self) -> Method:
        return self.options.method


def choose_method(problem: Searchable, options: SolverOptions, *, whole_count: bool) -> MethodChoice:
    """Settle ``Method.AUTO``: count by levels where it is expected to pay, else search.

    Only a whole count (one count of the whole tree: no listing, split, node budget or
    verification) of a plain cover with the kernel, no ``--distinct`` and the memo on may
    go by levels: a cover whose band (:func:`core.frontier.band`) is at most
    :data:`~core.frontier.AUTO_MAX_BAND` and whose search (by orbits, when ``symmetry``)
    does not end within :data:`~core.frontier.AUTO_TRIAL_NODES` nodes, which this runs —
    a count that ends there is the answer (``trial``).  A level count goes by orbits too,
    where asked: one level count per representative, each from a covered anchor (the
    6x10 box: 451,212 states against 1,340,355).
    """
    engine_for(problem, options)
    if options.method is not Method.AUTO:
        return MethodChoice(options, solver=solver_for(problem, options))
    searched = replace(options, method=Method.SEARCH)
    engine = engine_for(problem, searched)
    if not whole_count or engine.name != "kernel" or options.distinct or not options.memo:
        return MethodChoice(searched, "search: only a whole count with the kernel, no --distinct or --no-memo, "
                                      "may go by levels", solver_for(problem, searched))
    ec = _cover_of(problem)
    solver = solver_for(problem, searched)
    trial = solver.solve((), SolveRequest(node_budget=AUTO_TRIAL_NODES))
    if trial.complete:
        return MethodChoice(searched, f"search: the tree ended within its {AUTO_TRIAL_NODES:,}-node trial", solver,
                            trial)
    why_not = refusal(ec)
    width = band(ec) if why_not is None else None
    if why_not is None and width > AUTO_MAX_BAND:
        why_not = f"band {width} is past {AUTO_MAX_BAND}"
    if why_not is not None:
        return MethodChoice(searched, f"search: not for counting by levels ({why_not})", solver)
    levels = replace(options, method=Method.LEVELS)
    return MethodChoice(levels, f"counting by levels: band {width} (at most {AUTO_MAX_BAND}) and a search tree past "
                                "its trial; --by-search to search instead", solver_for(problem, levels))
