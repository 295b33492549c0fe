"""The planner's trial: where the method choice keeps the search after its own trial, the
planner goes on from that trial (no node searched twice, no second trial keeping the
workers waiting), and the count stays exact."""
from __future__ import annotations

import core.engines as engines
from core.solver_options import Method, SolverOptions
from scheduler.planning import LEVELS_PIECES_PER_WORKER, PIECES_PER_WORKER, RunRequest, prepare
from scheduler.run_options import Mode, RunOptions


def test_the_planner_goes_on_from_the_method_choice_trial(monkeypatch):
    monkeypatch.setattr(engines, "SMALL_SECONDS", 0.0)  # no carrying the small tree on to its end
    monkeypatch.setattr(engines, "SMALL_POOL_SECONDS", 0.0)
    monkeypatch.setattr(engines, "RACE_SECONDS", 1e9)  # no race: the search is kept after its trial
    captured = {}
    choose = engines.choose_method

    def spy(*args, **kwargs):
        captured["choice"] = choice = choose(*args, **kwargs)
        return choice

    import scheduler.planning as planning
    monkeypatch.setattr(planning, "choose_method", spy)
    asked = RunOptions(solver=SolverOptions(method=Method.AUTO, symmetry=True))
    prepared = prepare(RunRequest("pentomino-8x8-centre", None, Mode.COUNT, asked, estimate=False), workers=2)
    choice = captured["choice"]
    assert choice.options.method is Method.SEARCH and choice.trial is None and choice.partial is not None
    first = prepared.plan.first
    assert first is choice.partial and not first.complete  # the choice's trial, not a second one
    assert len(first.frontier) >= PIECES_PER_WORKER * 2
    rest = sum(prepared.solver.solve(s.path).count for s in first.frontier)
    assert first.count + rest == 520


def test_a_count_by_levels_keeps_its_units_whole_where_they_are_enough(monkeypatch):
    """By levels, the pieces are orbit units as far as they go (a level count shares no
    states with another subproblem's, so a unit divided costs work): with units enough for
    two pieces a worker none is divided; the count stays exact."""
    import scheduler.planning as planning

    monkeypatch.setattr(planning, "TRIAL_SECONDS", 0.0)  # the trial counts the first unit only
    monkeypatch.setattr(planning, "TRIAL_SECONDS_AT_LEAST", 0.0)
    asked = RunOptions(solver=SolverOptions(method=Method.LEVELS, symmetry=True))
    prepared = prepare(RunRequest("pentomino-6x10", None, Mode.COUNT, asked, estimate=False), workers=2)
    first = prepared.plan.first
    assert prepared.options.solver.method is Method.LEVELS and not first.complete
    assert [len(s.path) for s in first.frontier] == [1] * len(first.frontier)  # units, none divided
    assert len(first.frontier) >= LEVELS_PIECES_PER_WORKER * 2
    rest = sum(prepared.solver.solve(s.path).count for s in first.frontier)
    assert first.count + rest == 9356


def test_the_planner_goes_on_from_the_unit_the_choice_counted_by_levels(monkeypatch):
    """Levels chosen by racing them on the first orbit unit: that unit's count is the run's
    first subproblem, the other units its frontier, whole — no planning trial counting a
    second unit (a level count does not stop for a budget) — and the count stays exact."""
    import scheduler.planning as planning
    from core.kernel import KernelSolver

    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", 0.0)
    monkeypatch.setattr(engines, "LEVELS_CLEAR", 0.0)  # levels chosen without a race
    monkeypatch.setattr(planning, "TRIAL_SECONDS", 0.0)  # a unit slower than the trial (here: any)
    monkeypatch.setattr(planning, "TRIAL_SECONDS_AT_LEAST", 0.0)
    counted = []
    level_count = KernelSolver.level_count

    def spy(self, *args, **kwargs):
        done = level_count(self, *args, **kwargs)
        counted.append(done)
        return done

    monkeypatch.setattr(KernelSolver, "level_count", spy)
    asked = RunOptions(solver=SolverOptions(method=Method.AUTO, symmetry=True))
    prepared = planning.prepare(RunRequest("pentomino-6x10", None, Mode.COUNT, asked, estimate=False), workers=2)
    first = prepared.plan.first
    assert prepared.options.solver.method is Method.LEVELS
    assert len({id(done) for done in counted}) == 1  # one unit counted while planning, looked up after
    units = len(prepared.solver.anchor.representatives)
    assert [s.path for s in first.frontier] == [(j,) for j in range(1, units)]
    assert first.stats.seconds > 0  # the unit's level count: it sizes the tasks
    rest = sum(prepared.solver.solve(s.path).count for s in first.frontier)
    assert first.count + rest == 9356


def test_units_quicker_than_the_trial_are_left_to_it(monkeypatch):
    """Where a unit by levels takes less than the planning trial, the trial goes on and
    counts the next units here (the first looked up): the one-sided 3x30's three units all
    in planning, nothing handed on (handing them on as divided units took twice as long)."""
    import scheduler.planning as planning

    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", 0.0)
    monkeypatch.setattr(engines, "LEVELS_CLEAR", 0.0)
    monkeypatch.setattr(planning, "TRIAL_SECONDS", 3600.0)  # any unit is quicker than the trial
    asked = RunOptions(solver=SolverOptions(method=Method.AUTO, symmetry=True))
    prepared = planning.prepare(RunRequest("pentomino-one-sided-3x30", None, Mode.COUNT, asked, estimate=False),
                                workers=2)
    first = prepared.plan.first
    assert prepared.options.solver.method is Method.LEVELS
    assert first.complete and first.count == 184


def test_a_counts_subproblems_go_heaviest_first_and_a_listings_in_search_order(monkeypatch):
    """A count's planned pieces, and the frontier a count's budget stop donates, are
    handed out heaviest first (the big subtrees first, the small ones left for the end);
    a listing's donated frontier stays in the search's order (the solutions of --first N
    come in search order).  Both partition the rest of the tree: the count stays exact."""
    from core.search import SolveRequest
    from scheduler.work import outcome_of

    asked = RunOptions(solver=SolverOptions(method=Method.SEARCH, symmetry=True))
    prepared = prepare(RunRequest("pentacubes-3x4x5", None, Mode.COUNT, asked, estimate=False), workers=2)
    first = prepared.plan.first
    weights = [s.weight for s in first.frontier]
    assert len(set(weights)) > 1 and weights == sorted(weights, reverse=True)
    solver = prepared.solver
    stopped = solver.solve(first.frontier[0].path, SolveRequest(node_budget=5000))
    assert len({s.weight for s in stopped.frontier}) > 1
    counted = outcome_of(stopped, 1, 1, Mode.COUNT).frontier
    listed = outcome_of(stopped, 1, 1, Mode.ENUMERATE).frontier
    assert [s.weight for s in counted] == sorted((s.weight for s in stopped.frontier), reverse=True)
    assert listed == list(stopped.frontier) and sorted(counted, key=lambda s: s.path) == sorted(listed, key=lambda s: s.path)
    rest = sum(solver.solve(s.path).count for s in counted)
    assert stopped.count + rest == solver.solve(first.frontier[0].path).count
