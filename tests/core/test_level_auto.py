"""``levels="auto"``: counting by levels where the band says it pays, the search elsewhere,
and the same count either way."""
from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import core.kernel
from core.exact_cover import ExactCover
from core.frontier import AUTO_MAX_BAND, band, worth_trying
from core.kernel import KernelSolver
from core.library import load
from core.reference import ReferenceSolver
from core.search import SolveRequest


@pytest.mark.parametrize(
    "name, expected_band",
    [("pentomino-6x10", 24), ("soma", 21), ("pentomino-8x8-centre", 30), ("pentacubes-3x4x5", 48)],
)
def test_band_is_the_frontier_width_of_the_library_boxes(name, expected_band):
    # rows of 6 (or 3x3 layers) times a pentomino's reach of four rows; the pieces sit in
    # the tail and do not count
    assert band(load(name).exact_cover()) == expected_band


@pytest.mark.parametrize(
    "name, expected, counted_by",
    [
        ("pentomino-6x10", 9_356, "levels"),  # band 24: 5.7x faster by levels
        ("soma", 11_520, "levels"),
        ("pentomino-8x8-centre", 520, "search"),  # band 30: the search's tree is smaller
        ("dominoes-4x4", 36, "search"),  # the trial search counts it
        ("dominoes-12x12", 53_060_477_521_960_000, "levels"),  # 144 items in one window
    ],
)
def test_auto_chooses_where_it_pays(name, expected, counted_by):
    solver = load(name).solver(levels="auto")
    assert solver.count() == expected
    assert solver.counted_by == counted_by
    assert solver.levels_pay() == (counted_by == "levels")


def test_auto_keeps_to_the_search_under_a_budget_or_a_limit():
    solver = load("pentomino-6x10").solver(levels="auto")
    timed = solver.solve((), SolveRequest(seconds=3600))
    assert timed.complete and timed.count == 9_356 and solver.counted_by == "search"
    cut = solver.solve((), SolveRequest(node_budget=1000))
    assert not cut.complete and cut.frontier and solver.counted_by == "search"
    assert len(solver.first(3)) == 3 and solver.counted_by == "search"


def test_levels_must_be_true_false_or_auto():
    with pytest.raises(ValueError, match="levels must be"):
        KernelSolver(load("dominoes-2x4").exact_cover(), levels="yes")


@st.composite
def plain_covers(draw):
    n_primary = draw(st.integers(1, 8))
    n_secondary = draw(st.integers(0, 2))
    n = n_primary + n_secondary
    options = draw(st.lists(st.sets(st.integers(0, n - 1), min_size=1, max_size=4), min_size=1, max_size=18))
    return ExactCover.from_indices([f"i{k}" for k in range(n)], n_primary,
                                   [[(i, 0) for i in sorted(option)] for option in options])


@settings(max_examples=150, deadline=None)
@given(plain_covers(), st.integers(0, 3))
def test_auto_counts_what_the_reference_counts(ec, trial_nodes):
    saved = core.kernel.AUTO_TRIAL_NODES
    core.kernel.AUTO_TRIAL_NODES = trial_nodes  # a tiny trial: small covers reach the level count
    try:
        solver = KernelSolver(ec, levels="auto")
        assert solver.count() == ReferenceSolver(ec).count()
    finally:
        core.kernel.AUTO_TRIAL_NODES = saved
    if solver.counted_by == "levels":
        assert worth_trying(ec) and band(ec) <= AUTO_MAX_BAND


def test_a_whole_count_the_search_ends_at_once_is_the_answer(monkeypatch):
    """A count whose unit the search ends at once measures no levels, and the whole search
    (within AUTO_TRIAL_NODES nodes) is the run's result: the planner does not search again."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", 10.0)  # "at once" on a loaded machine too

    problem = load("soma")
    choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=True), whole_count=True)
    assert "levels not measured" in choice.reason or "ended within its" in choice.reason
    assert choice.trial is not None and choice.trial.complete and choice.trial.count == 11_520
    assert choice.trial.stats.nodes <= engines.AUTO_TRIAL_NODES
    assert choice.options.method is Method.SEARCH
    assert choice.solver.count() == 11_520


@pytest.mark.parametrize("pool_seconds, counted_here", [(0.3, True), (0.0, False)])
def test_a_small_tree_is_counted_here_on_a_loaded_machine(monkeypatch, pool_seconds, counted_here):
    """Where the trial's seconds pass SMALL_SECONDS (here: any, as on a loaded machine), a
    tree whose trial foresees its end within the trials left is still carried on to it by
    nodes (SMALL_POOL_SECONDS), not sent to a pool; with no such allowance it is not."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    monkeypatch.setattr(engines, "SMALL_SECONDS", 0.0)
    monkeypatch.setattr(engines, "SMALL_POOL_SECONDS", pool_seconds)
    monkeypatch.setattr(engines, "RACE_SECONDS", 1e9)  # no race after the trial: the search is kept
    problem = load("pentomino-8x8-centre")
    choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=True), whole_count=True)
    assert choice.options.method is Method.SEARCH
    if counted_here:
        assert choice.trial is not None and choice.trial.count == 520  # the published count
        assert "no pool" in choice.reason
    else:
        assert choice.trial is None and choice.partial is not None and not choice.partial.complete


@pytest.mark.parametrize("quick, reason", [(10.0, "levels not measured"), (0.0, "levels ")])
def test_a_unit_the_search_counts_at_once_is_not_measured_by_levels(monkeypatch, quick, reason):
    """The automatic choice measures levels only where the search takes longer than
    QUICK_UNIT_SECONDS on one unit; either way the count is the same."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    monkeypatch.setattr(engines, "AUTO_TRIAL_NODES", 100)  # past the trial that would count it all
    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", quick)
    problem = load("soma")
    choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=True), whole_count=True)
    assert reason in choice.reason
    if quick:  # (with no quick pass, which of the two wins depends on the machine)
        assert choice.options.method is Method.SEARCH
    assert choice.solver.count() == 11_520


@pytest.mark.parametrize("clear, chosen", [(0.0, "levels"), (float("inf"), None)])
def test_levels_skip_the_race_only_where_the_quick_trial_puts_the_search_clearly_behind(monkeypatch, clear, chosen):
    """With LEVELS_CLEAR at 0 every quick trial says the search is behind: levels are chosen
    without a race; at infinity the race always runs (from the quick trial's frontier).
    The count is the same whichever wins."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", 0.0)  # the quick trial never ends the unit
    monkeypatch.setattr(engines, "LEVELS_CLEAR", clear)
    problem = load("pentomino-one-sided-3x30")
    choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=True), whole_count=True)
    if chosen:
        assert choice.options.method is Method.LEVELS and "trial finished" in choice.reason
    else:
        assert "trial finished" not in choice.reason
    assert choice.solver.count() == 184


def test_a_race_carried_on_from_the_quick_trial_is_the_whole_count(monkeypatch):
    """Without orbits the unit is the whole count: a race the search wins, carried on from
    the quick trial's frontier, is the run's result, exact."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", 0.0)
    monkeypatch.setattr(engines, "LEVELS_CLEAR", float("inf"))
    monkeypatch.setattr(engines, "LEVELS_MARGIN", 1e-9)  # the search gets all the time it needs
    problem = load("pentomino-5x12")
    choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=False), whole_count=True)
    assert choice.options.method is Method.SEARCH
    assert choice.trial is not None and choice.trial.complete and choice.trial.count == 4 * 1_010


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["pentomino-one-sided-3x30", "soma", "pentomino-8x8-centre"]),
       st.integers(1, 3000), st.integers(1, 4))
def test_a_trial_carried_on_in_steps_counts_what_the_whole_search_counts(name, first_nodes, steps):
    """The split law behind carrying a trial on: a trial stopped anywhere, carried on in
    budgeted steps and then to the end, counts what one search counts."""
    import core.engines as engines
    from core.engines import solver_for
    from core.solver_options import Method, SolverOptions

    solver = solver_for(load(name), SolverOptions(method=Method.SEARCH, symmetry=False))
    result = solver.solve((), SolveRequest(node_budget=first_nodes))
    for _ in range(steps):
        result = engines._carried_on(solver, result, node_budget=first_nodes)
    result = engines._carried_on(solver, result)
    known = {"pentomino-one-sided-3x30": 184, "soma": 11_520, "pentomino-8x8-centre": 520}
    assert result.complete and result.count == known[name]


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["pentomino-5x12", "pentomino-one-sided-3x30", "soma", "pentomino-8x8-centre", "pentomino-6x10"]),
       st.integers(1, 3000))
def test_an_orbit_count_carried_on_from_its_first_unit_counts_the_whole(name, first_nodes):
    """OrbitCounter.after_first: the root's result once only the first representative's
    search ran (stopped anywhere), carried on to the end, is the orbit count."""
    import core.engines as engines
    from core.engines import solver_for
    from core.solver_options import Method, SolverOptions

    solver = solver_for(load(name), SolverOptions(method=Method.SEARCH, symmetry=True))
    first = solver.child(0).solve((), SolveRequest(node_budget=first_nodes))
    start = solver.after_first(first)
    assert start.weight_done == first.weight_done / len(solver.anchor.representatives)
    whole = engines._carried_on(solver, start)
    known = {"pentomino-5x12": 4_040, "pentomino-one-sided-3x30": 184, "soma": 11_520,
             "pentomino-8x8-centre": 520, "pentomino-6x10": 9_356}  # every solution, copies included
    assert whole.complete and whole.count == known[name]


@settings(max_examples=16, deadline=None)
@given(st.sampled_from(["pentomino-5x12", "pentomino-6x10", "soma", "pentomino-8x8-centre"]), st.booleans(),
       st.integers(50, 3000), st.sampled_from([(200, 2_000), (2_000, 20_000)]), st.booleans())
def test_the_race_states_carry_the_trial_on_and_count_as_the_plain_search(name, symmetry, trial_nodes, sizes, beside):
    """The race's states come from the search's trial carried on (core.engines
    ._StateSearch): the trial it returns, carried on to the end, is the whole count (the
    race's nodes are the count's own, and so are those of a search beside it taking the
    lightest pieces, ``beside``), and each state is a partial cover whose completions the
    bitboard counts as the plain search does (the two racers do the same work)."""
    import core.engines as engines
    from core.engines import solver_for
    from core.solver_options import Method, SolverOptions

    problem = load(name)
    ec = problem.exact_cover()
    solver = solver_for(problem, SolverOptions(method=Method.SEARCH, symmetry=symmetry))
    trial = solver.solve((), SolveRequest(node_budget=trial_nodes))
    smallest, largest = sizes
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(engines, "STATE_NODES_MIN", smallest)
        mp.setattr(engines, "STATE_NODES_MAX", largest)
        race = engines._StateSearch(solver, trial, ec.n_options)
        helper = engines._PiecesBeside(solver, race) if beside else None
        try:
            states, seconds = race.find()
        finally:
            if helper is not None:
                helper.finish()
        carried = race.carried()
    assert carried.stats.nodes >= trial.stats.nodes and carried.weight_done >= trial.weight_done
    assert sum((s.weight for s in carried.frontier), carried.weight_done) == trial.weight
    whole = engines._carried_on(solver, carried)
    known = {"pentomino-5x12": 4_040, "soma": 11_520, "pentomino-8x8-centre": 520, "pentomino-6x10": 9_356}
    assert whole.complete and whole.count == known[name]
    assert len(states) <= engines.STATES and (seconds > 0) == bool(states)
    plain = KernelSolver(ec)
    bitboard = engines._kernel(ec, problem.search_hints(), SolverOptions(method=Method.BITBOARD))
    for state in states:  # the two racers count the same completions
        assert bitboard.below(state).count() == plain.below(state).count()


def test_a_search_beside_the_race_counts_the_lightest_pieces_and_stops_when_asked():
    """_PiecesBeside: it takes the trial's lightest piece first (the race goes down the
    heaviest), stops within a moment of finish() with what it had not finished kept in
    the frontier, and the trial carried on to the end is still the whole count."""
    import core.engines as engines
    from core.engines import solver_for
    from core.solver_options import Method, SolverOptions

    problem = load("pentomino-6x10")
    solver = solver_for(problem, SolverOptions(method=Method.SEARCH, symmetry=True))
    trial = solver.solve((), SolveRequest(node_budget=2_000))
    race = engines._StateSearch(solver, trial, problem.exact_cover().n_options)
    lightest = min(trial.frontier, key=lambda s: s.weight).path
    helper = engines._PiecesBeside(solver, race)
    time.sleep(0.02)
    started = time.perf_counter()
    helper.finish()
    assert time.perf_counter() - started < 0.5
    carried = race.carried()
    assert carried.stats.nodes > trial.stats.nodes  # the search beside counted into the trial
    assert lightest not in {s.path for s in carried.frontier}
    assert sum((s.weight for s in carried.frontier), carried.weight_done) == 1
    assert engines._carried_on(solver, carried).count == 9_356


@pytest.mark.parametrize("name, symmetry", [("pentacubes-3x4x5", True), ("pentomino-6x10", False), ("soma", True)])
@pytest.mark.parametrize("n", [4, 16, 64])
def test_divide_keeps_the_weight_and_breaks_up_heavy_pieces(name, symmetry, n):
    """Solver.divide: the same part of the tree (the weights add up; every piece is counted
    to the same total), at least n pieces, and — unless it stopped at 4n pieces — none
    heavier than 2/n that could still be split."""
    from fractions import Fraction

    from core.engines import solver_for
    from core.solver_options import Method, SolverOptions

    solver = solver_for(load(name), SolverOptions(method=Method.SEARCH, symmetry=symmetry))
    trial = solver.solve((), SolveRequest(node_budget=3_000))
    pieces = solver.divide(trial.frontier, n)
    assert sum(s.weight for s in pieces) == sum(s.weight for s in trial.frontier)
    assert len(pieces) >= n
    if len(pieces) < 4 * n:
        for s in pieces:
            if s.weight > Fraction(2, n):
                assert [c.path for c in solver.split(len(s.path) + 1, s.path)] == [s.path]
    if name == "soma":
        assert trial.count + sum(solver.solve(s.path).count for s in pieces) == 11_520


def test_the_bitboard_race_stops_at_its_limit(tmp_path):
    """The race's states come from the search, whose memo makes a subtree of 3^78 covers a
    few nodes; the bitboard, with no memo, would count it leaf by leaf: past its limit it
    has lost (infinity), it does not run on."""
    import core.engines as engines
    from core.engines import _kernel

    dlx = tmp_path / "big.dlx"
    dlx.write_text(" ".join(f"i{j}" for j in range(81)) + "\n" + "".join(f"i{j}\n" * 3 for j in range(81)))
    problem = load(str(dlx))
    ec = problem.exact_cover()
    from core.solver_options import Method, SolverOptions

    bitboard = _kernel(ec, problem.search_hints(), SolverOptions(method=Method.BITBOARD))
    search = _kernel(ec, problem.search_hints(), SolverOptions(method=Method.SEARCH))
    state = (0, 3, 6)  # one option for each of the first three items
    assert engines._race_time(search, [state]) < float("inf")
    assert engines._race_time(bitboard, [state], limit=0.05) == float("inf")


def _race_threads() -> list:
    import threading

    return [t for t in threading.enumerate() if t.name == "tilecensus-race"]


def _handoff_flag_is_down() -> bool:
    """A search under a time budget runs to its end: no stop request is left standing."""
    result = KernelSolver(load("pentomino-3x20").exact_cover()).solve((), SolveRequest(seconds=60))
    return result.complete and result.count == 8


@pytest.mark.parametrize("margin, chosen", [(1e-9, "search"), (1e9, "levels")])
def test_the_race_beside_the_levels_decides_as_the_race_after_them(monkeypatch, margin, chosen):
    """side_by_side: the search's side of the race runs in a thread beside the level count,
    under the same rule — a search allowed all the time it needs wins and its count is the
    answer, one allowed none loses — and the count is exact either way; no search is left
    running after the choice."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", 0.0)
    monkeypatch.setattr(engines, "LEVELS_CLEAR", float("inf"))  # always a race
    monkeypatch.setattr(engines, "LEVELS_MARGIN", margin)
    problem = load("pentomino-5x12")  # no orbits: the unit is the whole count
    choice = engines.choose_method(problem, SolverOptions(method=Method.AUTO, symmetry=False), whole_count=True,
                                   side_by_side=True)
    assert choice.options.method is Method(chosen)
    assert choice.trial is not None and choice.trial.complete and choice.trial.count == 4 * 1_010
    assert not _race_threads() and _handoff_flag_is_down()


def test_an_interrupted_level_count_stops_the_race_beside_it(monkeypatch):
    """Ctrl-C during the level count (the KeyboardInterrupt its interrupt check raises)
    stops the search beside it too: the exception goes on up, no thread is left."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    monkeypatch.setattr(engines, "QUICK_UNIT_SECONDS", 0.0)
    monkeypatch.setattr(engines, "LEVELS_CLEAR", float("inf"))
    started = []

    def interrupted(self, *args, **kwargs):
        started.append(len(_race_threads()))
        raise KeyboardInterrupt

    monkeypatch.setattr(KernelSolver, "level_count", interrupted)
    with pytest.raises(KeyboardInterrupt):
        engines.choose_method(load("pentomino-one-sided-5x18"), SolverOptions(method=Method.AUTO, symmetry=True),
                              whole_count=True, side_by_side=True)
    assert started == [1]  # the search was running beside the level count
    assert not _race_threads() and _handoff_flag_is_down()


def test_a_deep_tree_s_trial_hands_back_a_frontier_of_bounded_size():
    """A trial's frontier holds about its nodes times its depth option ids: the 2x1200
    domino strip's solutions are 1,200 dominoes deep, so its trial is cut to 2,048 nodes
    (the 200x200 board's 10,000-node trial handed back 19,808 paths of up to 10,000 ids,
    20 s in all); a shallow box keeps AUTO_TRIAL_NODES."""
    import core.engines as engines
    from core.solver_options import Method, SolverOptions

    assert engines.trial_nodes(load("pentacubes-3x4x5").exact_cover()) == engines.AUTO_TRIAL_NODES
    problem = load("dominoes-2x1200")
    assert engines.trial_nodes(problem.exact_cover()) == 2_048
    search = engines.solver_for(problem, SolverOptions(method=Method.SEARCH, symmetry=True))
    unit, searcher = engines._first_unit(search)
    trial = engines._whole_trial(search, unit, engines._quick_trial(searcher), engines.trial_nodes(problem.exact_cover()))
    assert not trial.complete
    assert trial.stats.nodes <= 2_048 + 8  # (a budget stop may pass it by a node a nested count)
    assert sum(len(s.path) for s in trial.frontier) <= engines.TRIAL_FRONTIER_IDS
