"""Planning a run: load the problem, settle how it is searched, split its search tree
into subproblems (the frontier at a shallow depth), estimate its size, and write it.

Everything that can fail on bad input happens in :func:`prepare`, before the run is
written (:meth:`PreparedRun.create`), so a bad request leaves nothing in the ledger.

By default the planner is the run's first worker: it searches the whole tree itself for
:data:`TRIAL_SECONDS` (the one planned subproblem, the root, under that budget).  A run
that ends by then needs no workers at all (Soma, the 8x8 board less its centre); a bigger
one is handed on as the trial's unexplored frontier, divided into :data:`PER_WORKER`
pieces per worker, with a task budget sized from the trial's progress (the frontier
donation of each budget takes care of the heavy tail).  ``split_depth`` or ``subproblems``
ask for a fixed split instead (the shallowest depth with that many subproblems).
"""
from __future__ import annotations

import datetime as dt
import gc
import os
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable

from core.engines import (Method, burnside_order, burnside_solver, choose_method, engine_for, fold_methods,
                          solver_for)
from core.errors import ProblemError
from core.frontier import worth_trying
from core.level_projection import Projection
from core.library import load
from core.problem import Problem
from core.search import SolveRequest, SolveResult, Solver, Subpath, heaviest_first
from core.solver_options import SolverOptions
from core.symmetry import OrbitCounter

from .batches import seconds_per_weight
from .clock import utcnow
from .run_options import DEFAULT_BUDGET, LEVELS_LEASE, ExecutorKind, Mode, RunOptions
from .work import outcome_of, request_for

if TYPE_CHECKING:
    from core.estimate import Estimate
    from .db import Ledger
    from .ledger import CreatedRun
    from .work import Outcome

#: a share of a count by levels is leased for this many times its projection's high end
LEVELS_LEASE_OVER_PROJECTION = 3.0
PER_WORKER = 32
MINIMUM = 64
MAX_DEPTH = 12
#: how long the planner searches the tree itself before any worker starts, shared by the
#: workers it keeps waiting: a count of up to this much ends in planning, with no worker
TRIAL_SECONDS = 0.2
#: the planner's trial, with more than one worker, is at least this long
TRIAL_SECONDS_AT_LEAST = 0.05
#: the frontier left by the trial, divided into this many pieces per worker
PIECES_PER_WORKER = 8
#: ... and for a count by levels, this many: a level count does not share its states with
#: another subproblem's, so dividing a unit costs work (the one-sided 5x18 through Celery,
#: planned for 8 workers: 254 pieces, the workers' CPU 11.5 s against 8.2 s for the whole;
#: 2026-11-28), and it has no frontier to give an idle worker, so only the units' sizes
#: balance the run
LEVELS_PIECES_PER_WORKER = 2
#: a task budget chosen from the trial (local runs): the estimated time over this many
#: tasks per worker, within these bounds
TASKS_PER_WORKER = 16
MIN_TASK_SECONDS = 1.0


@dataclass
class Plan:
    frontier: list[Subpath]
    depth: int | None
    seconds: float
    #: how the count goes by orbits of the symmetry group (the anchor, the group), if it does
    symmetry: str | None = None
    #: the result of the one planned subproblem (the root), found while planning
    first: SolveResult | None = None
    #: --distinct by Burnside's lemma: the group's order and its classes past the
    #: identity's, each its size and the root's child that counts its fixed solutions
    #: (None: it fixes none), so that ``show`` can put the sum together from the parts
    burnside: dict | None = None

    def to_json(self) -> dict:
        out = {"subproblems": len(self.frontier), "depth": self.depth, "seconds": round(self.seconds, 6)}
        if self.symmetry:
            out["symmetry"] = self.symmetry
        if self.burnside:
            out["burnside"] = self.burnside
        if self.first is not None:
            out["trial"] = {"seconds": round(self.first.stats.seconds, 6), "complete": self.first.complete,
                            "handed_on": len(self.first.frontier)}
        return out


def plan(
    solver: Solver,
    *,
    workers: int = 1,
    split_depth: int | None = None,
    subproblems: int | None = None,
    first: bool = False,
) -> Plan:
    """The subproblems of a run.  ``first`` (stop at the first N solutions) plans the
    root alone, so solutions come in search order."""
    started = time.perf_counter()
    if first:
        frontier, depth = [Subpath((), Fraction(1))], 0
    elif split_depth is not None:
        if split_depth < 0:
            raise ValueError("--split-depth must be 0 or more")
        frontier = solver.split(split_depth) if split_depth else [Subpath((), Fraction(1))]
        depth = split_depth
    else:
        target = subproblems if subproblems is not None else max(MINIMUM, PER_WORKER * workers)
        if target < 1:
            raise ValueError("--subproblems must be 1 or more")
        frontier = solver.split_into(target, max_depth=MAX_DEPTH) if target > 1 else [Subpath((), Fraction(1))]
        depth = max((len(s.path) for s in frontier), default=0)
    return Plan(frontier=list(frontier), depth=depth, seconds=time.perf_counter() - started)


#: a quick estimate before a run: time the search for this long, then sample random
#: paths for at most this long (or this many)
RATE_SECONDS = 0.3
ESTIMATE_SECONDS = 1.0
ESTIMATE_SAMPLES = 500


def quick_estimate(solver: Solver, *, rate_seconds: float = RATE_SECONDS, seconds: float = ESTIMATE_SECONDS,
                   samples: int = ESTIMATE_SAMPLES, seed: int = 0) -> Estimate:
    """The run's size in about ``rate_seconds + seconds``: time the search from the root;
    if that search finishes, its nodes, solutions and time are exact (``samples == 0``),
    else Knuth's estimator over random paths, at the measured node rate."""
    trial = solver.solve((), SolveRequest(seconds=rate_seconds))
    return estimate_after(solver, trial, seconds=seconds, samples=samples, seed=seed)


#: the random paths after a planning trial take at most this share of the time the trial
#: foresees for the whole run (and at most ESTIMATE_SECONDS, at least ESTIMATE_SECONDS_AT_LEAST)
ESTIMATE_SHARE = 0.05
ESTIMATE_SECONDS_AT_LEAST = 0.05


def estimate_seconds(trial: SolveResult) -> float:
    """How long to sample random paths after a planning trial: :data:`ESTIMATE_SHARE` of
    the run the trial foresees (its time over the share of the tree it finished) — the
    estimate is worth a second on an overnight run, not on a three-second count, where
    the planner's process samples while the workers would be searching (the pentacube
    box's estimate took a second beside a 2.5 s count)."""
    done = float(trial.weight_done)
    foreseen = trial.stats.seconds / done if done > 0 else float("inf")
    return min(ESTIMATE_SECONDS, max(ESTIMATE_SECONDS_AT_LEAST, ESTIMATE_SHARE * foreseen))


def estimate_after(solver: Solver, trial: SolveResult, *, seconds: float = ESTIMATE_SECONDS,
                   samples: int = ESTIMATE_SAMPLES, seed: int = 0) -> Estimate:
    """The run's size after a timed search from the root (``trial``): exact when that
    search finished (``samples == 0``), else Knuth's estimator over random paths for at
    most ``seconds``, at the trial's node rate (no second timing search)."""
    from core.estimate import Band, Estimate, estimate  # a run asked to be sized only (about 4 ms)

    rate = trial.stats.nodes / max(trial.stats.seconds, 1e-9)
    if trial.stopped_by is None and not trial.frontier:
        n, c, t = float(trial.stats.nodes), float(trial.count), float(trial.stats.seconds)
        return Estimate(0, Band(n, n, n), Band(c, c, c), Band(t, t, t), rate)
    return estimate(solver, samples, seed=seed, max_seconds=seconds, rate=rate, searched=trial.stats.nodes)


def estimate_json(est: Estimate) -> dict:
    """An estimate as stored in the run's plan statistics (``exact``: searched in full)."""
    return {**est.to_json(), "exact": est.samples == 0}


# ----------------------------------------------------------------------------- a run, prepared
@dataclass(frozen=True)
class RunRequest:
    """A run as asked for: the problem (a built-in name or a file, and its kind when the
    file does not say), the mode, the options, and whether to estimate it first."""

    target: str
    kind: str | None
    mode: Mode
    options: RunOptions
    estimate: bool = True


@dataclass
class PreparedRun:
    """A run ready to be written: its problem, solver and plan; its options with the
    engine and the method settled."""

    problem: Problem
    mode: Mode
    options: RunOptions
    solver: Solver
    plan: Plan
    estimate: Estimate | None = None
    #: when planning began: the run's start, so that its seconds count the planning
    started: dt.datetime | None = None
    #: the estimate is the caller's to make once the run is written (:meth:`estimate_later`)
    estimate_deferred: bool = False
    #: why there is no estimate where one was asked for (:class:`core.estimate.CannotEstimate`)
    estimate_refusal: str | None = None
    #: a count by levels: what its probe projected (the progress bar's ETA until a share ends)
    projection: Projection | None = None

    def create(self, ledger: Ledger, executor: ExecutorKind, *, queued: bool = False,
               times: Callable[[], dict[str, Any]] | None = None) -> CreatedRun:
        """Write the run, its subproblems and what planning found, in one transaction
        (``queued``: its pending subproblems stamped as sent, see
        :func:`scheduler.ledger.create_run`; ``times``: where the command's time went, kept
        with a run that planning counted in full)."""
        from .ledger import create_run

        first = self.plan.first
        return create_run(ledger, **self.run_fields(executor), queued=queued, times=times,
                          first=None if first is None else lambda run_id, sub_id: outcome_of(first, run_id, sub_id,
                                                                                            self.mode))

    def run_fields(self, executor: ExecutorKind) -> dict[str, Any]:
        """The run as :func:`scheduler.rows.run_row` (and :func:`scheduler.ledger.create_run`)
        take it: the problem, mode, options, plan and what planning found."""
        plan_stats = self.plan.to_json()
        if self.projection is not None:
            plan_stats["levels"] = self.projection.to_json()
        estimated = None
        if self.estimate is not None:
            plan_stats["estimate"] = estimate_json(self.estimate)
            estimated = round(self.estimate.nodes.value)
        return dict(problem=self.problem, mode=self.mode, options=self.options, executor=executor,
                    frontier=self.plan.frontier, plan_stats=plan_stats, verify_fraction=self.options.verify,
                    estimated_nodes=estimated, started=self.started, modulus=getattr(self.solver, "modulus", None))

    def counted(self) -> Outcome | None:
        """The run's result when planning found all of it (:meth:`create` writes the run
        closed): the one planned subproblem searched to its end, or a ``--first`` run's
        solutions; never a run that verifies a sample.  Else None."""
        first = self.plan.first
        if first is None or self.options.verify:
            return None
        outcome = outcome_of(first, 0, 0, self.mode)
        return None if outcome.frontier else outcome

    def estimate_later(self, ledger: Any, run_id: int) -> Estimate | None:
        """Make the estimate :func:`prepare` deferred and record it on the written run
        (None, and nothing recorded, where the tree cannot be estimated).  ``ledger``: the
        ledger, or one that records an estimate itself (``record_estimate``, as
        :class:`~scheduler.direct_writes.DirectWrites`: without SQLAlchemy)."""
        self.estimate = self.make_estimate()
        if self.estimate is not None:
            estimate, nodes = estimate_json(self.estimate), round(self.estimate.nodes.value)
            if hasattr(ledger, "record_estimate"):
                ledger.record_estimate(run_id, estimate, nodes)
            else:
                from .ledger import record_estimate

                record_estimate(ledger, run_id, estimate, nodes)
        return self.estimate

    def make_estimate(self) -> Estimate | None:
        """The run's size: after the planning trial when there was one (the trial is the
        timing search; exact when it finished), else :func:`quick_estimate`.  None, with
        :attr:`estimate_refusal` saying why, where random paths cannot size the tree."""
        from core.estimate import CannotEstimate

        trial = self.plan.first
        try:
            if trial is not None and self.plan.depth == 0 and self.mode is not Mode.FIRST:
                return estimate_after(self.solver, trial, seconds=estimate_seconds(trial))
            return quick_estimate(self.solver)
        except CannotEstimate as exc:
            self.estimate_refusal = str(exc)
            return None

    @property
    def seconds_per_weight(self) -> float | None:
        """The planned subproblems' measured time per unit of weight, which sizes their
        messages (:mod:`scheduler.batches`): from the planning trial (the time it took over
        the weight it finished), else from the estimate; None when neither tells."""
        trial = self.plan.first
        if trial is not None and not trial.complete:
            return seconds_per_weight(trial.stats.seconds, trial.weight_done) or self._estimated_rate()
        return self._estimated_rate()

    def _estimated_rate(self) -> float | None:
        return None if self.estimate is None else self.estimate.seconds.value  # the whole tree weighs 1

    @property
    def by_levels(self) -> bool:
        return self.options.solver.method is Method.LEVELS

    @property
    def done_in_planning(self) -> bool:
        """Whether planning counted everything (no worker needed; nothing to verify):
        :meth:`create` writes the run closed."""
        first = self.plan.first
        return first is not None and first.complete and not self.options.verify


def whole_count(mode: Mode, options: RunOptions) -> bool:
    """Whether the run is one count of the whole tree, which a single method may take on
    at once: no listing, no split asked for, no node budget, no verification."""
    return (mode is Mode.COUNT and options.split_depth is None and options.subproblems is None
            and options.node_budget is None and not options.verify)


def prepare(request: RunRequest, *, workers: int, trial: bool = True, defer_estimate: bool = False,
            cluster: bool = False, hosts: int = 1) -> PreparedRun:
    """Load the problem, settle the engine and the method (:func:`core.engines.choose_method`),
    build the solver, plan (and estimate, when asked): everything that can fail on bad
    input, before anything is written.  ``trial``: the planner searches first (see the
    module text) unless a split is asked for.  ``defer_estimate``: an estimate that the
    trial leaves to sampling is left to the caller (:meth:`PreparedRun.make_estimate`),
    who can make it once the workers have their subproblems.  ``cluster``: the run goes
    to Celery workers on ``hosts`` machines (a count by levels is shared out for them)."""
    options = request.options
    if options.solver.method is Method.LEVELS and request.mode is not Mode.COUNT:
        raise ProblemError(f"{request.target}: --by-levels only counts (no --all or --first): the kernel engine's level "
                           "count and a crossword's transfer method list nothing")
    if options.census and request.mode is not Mode.COUNT:
        raise ProblemError(f"{request.target}: --census goes with a count (no --all or --first): it counts, for "
                           "every placement, the solutions that use it")
    problem = load(request.target, request.kind)
    problem.exact_cover()  # reading the problem ends here (a model's own compiling included);
    # the compiled problem lives as long as the command: the garbage collector need not
    # scan its hundred thousand tuples again each time it runs (8x8 less its centre: the
    # run's 0.12 s were 0.05 s of work and 0.07 s of collections)
    gc.freeze()
    started = utcnow()     # the run starts: choosing how, planning, solving, recording
    # counting by orbits is for counts; --distinct counts its own way
    asked = replace(options.solver, symmetry=options.solver.symmetry and request.mode is Mode.COUNT
                    and not options.solver.distinct)
    if options.census:
        return _prepare_census(request, problem, asked, workers, started)
    # classes counted by Burnside's lemma where the symmetry folds: the total as a plain count
    # (its method chosen as for one), the solutions each symmetry fixes beside it
    burnside = burnside_order(problem, asked) if request.mode is Mode.COUNT else 0
    if burnside:
        asked = replace(asked, distinct=False, symmetry=options.solver.symmetry)
    # a second worker would wait for the choice: the race of levels and search goes side by side
    choice = choose_method(problem, asked, whole_count=whole_count(request.mode, options),
                           side_by_side=workers >= 2 and (os.cpu_count() or 1) >= 2, workers=workers,
                           cluster=cluster, hosts=hosts, memory=options.memory)
    settled = replace(choice.options, engine=engine_for(problem, choice.options).name)
    solver = choice.solver or solver_for(problem, settled)
    by_orbits = isinstance(solver, OrbitCounter)
    settled = replace(settled, symmetry=by_orbits)  # what the run does, where the model has no group too
    if burnside:
        settled = replace(settled, distinct=True, burnside=burnside,
                          fold_methods=fold_methods(problem, asked, cluster=cluster, hosts=hosts,
                                                    memory=options.memory))
        solver = burnside_solver(problem, solver, settled)
        choice = replace(choice, solver=solver, trial=solver.lifted(choice.trial), partial=solver.lifted(choice.partial))
    options = replace(options, solver=settled, method_reason=choice.reason if options.solver.method is Method.AUTO
                      else None)
    if choice.projection is not None and options.lease is None:
        # a share of a count by levels is never cut short: its lease outlasts its projection
        options = replace(options, lease=max(LEVELS_LEASE, LEVELS_LEASE_OVER_PROJECTION * choice.projection.seconds_high))
    split_depth = options.split_depth
    prepared = PreparedRun(problem, request.mode, options, solver, Plan([], 0, 0.0), started=started,
                           projection=choice.projection)
    if trial and split_depth is None and options.subproblems is None:
        if choice.trial is not None:  # choosing the method counted everything already
            prepared.plan = Plan([Subpath((), Fraction(1))], 0, choice.trial.stats.seconds, first=choice.trial)
        elif choice.partial is not None and choice.solver is solver and (
                settled.method is not Method.LEVELS or choice.partial.stats.seconds >= trial_seconds(workers)):
            # the search's trial, or the first unit by levels, gone on from; units quicker than
            # the trial are left to it, which counts the next ones here (the one-sided 3x30's
            # three units: all in planning, 0.03 s, where handing them on took 0.065 s)
            prepared.plan = plan_from(solver, choice.partial, workers, settled.method is Method.LEVELS)
        else:
            prepared.plan = plan_by_trial(solver, request.mode, options, workers)
        if options.budget is None:
            prepared.options = replace(options, budget=task_budget(prepared.plan.first, workers))
    else:
        prepared.plan = plan(solver, workers=workers, split_depth=split_depth, subproblems=options.subproblems,
                             first=request.mode is Mode.FIRST)
    if by_orbits:
        prepared.plan.symmetry = solver.children[0].solver.description if burnside else solver.description
    if burnside:
        prepared.plan.burnside = solver.parts
        if prepared.plan.first is not None:  # the root's parts, counted here
            prepared.plan.burnside["root"] = {str(c): n for c, n in solver.root_sums.items()}
    # no estimate for --first (it stops early) nor a level count (it walks no tree)
    if request.estimate and request.mode is not Mode.FIRST and settled.method is not Method.LEVELS:
        first = prepared.plan.first
        if defer_estimate and first is not None and not first.complete:
            prepared.estimate_deferred = True
        else:
            prepared.estimate = prepared.make_estimate()
    return prepared


def _prepare_census(request: RunRequest, problem: Problem, asked: SolverOptions, workers: int,
                    started: dt.datetime) -> PreparedRun:
    """A ``--census`` run: a method that takes a census (:mod:`scheduler.census_planning`),
    the tree split at once as :func:`plan` splits it — no planning trial, which would
    count without a census — each subproblem's census taken by a worker
    (:func:`scheduler.work.census_task`)."""
    from .census_planning import census_solver_options

    engine = engine_for(problem, asked).name
    levels_worth = engine == "kernel" and worth_trying(problem.exact_cover())
    settled, reason = census_solver_options(request.target, asked, engine, levels_worth)
    solver = solver_for(problem, replace(settled, engine=engine))
    by_orbits = isinstance(solver, OrbitCounter)
    options = replace(request.options, solver=replace(settled, engine=engine, symmetry=by_orbits),
                      method_reason=reason)
    subproblems = options.subproblems
    if subproblems is None and options.split_depth is None and settled.method is Method.LEVELS:
        # by levels below each subproblem, which share no states: a few large ones, as a
        # plain count's units (the 6x10: 7 units 0.47 s, where 82 subproblems took 1.18 s)
        subproblems = LEVELS_PIECES_PER_WORKER * max(1, workers)
    found = plan(solver, workers=workers, split_depth=options.split_depth, subproblems=subproblems)
    if by_orbits:
        found.symmetry = solver.description
    prepared = PreparedRun(problem, request.mode, options, solver, found, started=started)
    if request.estimate:
        prepared.estimate = prepared.make_estimate()
    return prepared


def trial_seconds(workers: int) -> float:
    """The planning trial's time: :data:`TRIAL_SECONDS` over the workers (each second of
    it keeps them all waiting), at least :data:`TRIAL_SECONDS_AT_LEAST`."""
    return max(TRIAL_SECONDS_AT_LEAST, TRIAL_SECONDS / max(1, workers))


def plan_by_trial(solver: Solver, mode: Mode, options: RunOptions, workers: int) -> Plan:
    """The root as the one subproblem, searched here for :data:`TRIAL_SECONDS` over the
    number of workers (each second of it keeps them all waiting; at least
    :data:`TRIAL_SECONDS_AT_LEAST`), to its end for ``first``; what is left, divided into
    :data:`PIECES_PER_WORKER` pieces per worker (a count by levels:
    :data:`LEVELS_PIECES_PER_WORKER`)."""
    started = time.perf_counter()
    seconds = None if mode is Mode.FIRST else min(trial_seconds(workers), options.task_seconds)
    result = solver.solve((), request_for(mode, options, seconds))
    if result.frontier and mode is not Mode.FIRST:
        result.frontier = _pieces(solver, result.frontier, workers, options.solver.method is Method.LEVELS, mode)
    return Plan([Subpath((), Fraction(1))], 0, time.perf_counter() - started, first=result)


def plan_from(solver: Solver, trial: SolveResult, workers: int, by_levels: bool = False) -> Plan:
    """The root as the one subproblem, its result the method choice's search trial (no
    node searched again, no second trial keeping the workers waiting); what is left,
    divided into :data:`PIECES_PER_WORKER` pieces per worker (``by_levels``:
    :data:`LEVELS_PIECES_PER_WORKER`)."""
    trial.frontier = _pieces(solver, trial.frontier, workers, by_levels, Mode.COUNT)  # (a whole count's trial)
    return Plan([Subpath((), Fraction(1))], 0, trial.stats.seconds, first=trial)


def _pieces(solver: Solver, frontier: list[Subpath], workers: int, by_levels: bool, mode: Mode) -> list[Subpath]:
    """A trial's frontier divided into :data:`PIECES_PER_WORKER` pieces per worker
    (``by_levels``: :data:`LEVELS_PIECES_PER_WORKER`), a count's heaviest first."""
    pieces = LEVELS_PIECES_PER_WORKER if by_levels else PIECES_PER_WORKER
    divided = solver.divide(frontier, pieces * workers)
    return heaviest_first(divided) if mode is Mode.COUNT else divided


def task_budget(trial: SolveResult | None, workers: int) -> float:
    """A task budget from the trial's progress: the whole run's time, extrapolated from the
    weight the trial finished, shared as :data:`TASKS_PER_WORKER` tasks per worker, between
    :data:`MIN_TASK_SECONDS` and the default budget."""
    if trial is None or trial.complete:
        return DEFAULT_BUDGET
    done = float(trial.weight_done)
    if done <= 0:
        return DEFAULT_BUDGET
    total = trial.stats.seconds / done
    return max(MIN_TASK_SECONDS, min(DEFAULT_BUDGET, total / (TASKS_PER_WORKER * workers)))
