"""The local pool's parcels (scheduler/local_pool.py): small subproblems go to a pool process
several at a time, packed at the run's measured rate; a process asked for work hands back
the ones of its parcel it has not started; every count stays exact."""
from __future__ import annotations

import json
import threading
from fractions import Fraction

import pytest

import scheduler.local_pool as local_pool
from core.library import load
from core.engines import solver_for
from core.solver_options import SolverOptions
from scheduler.run_options import Mode, RunOptions
from scheduler.work import Task


class _Asked:
    """Pool signals whose parent asks for work once ``after`` subproblems have started."""

    def __init__(self, after: int):
        self.after, self.started = after, 0

    def work_asked(self) -> bool:
        return self.started >= self.after

    def searching(self):
        import contextlib

        self.started += 1
        return contextlib.nullcontext()


@pytest.fixture
def pool_of_the_6x10(monkeypatch):
    solver = solver_for(load("pentomino-6x10"), SolverOptions())
    monkeypatch.setattr(local_pool, "_POOL", {"solver": solver, "options": RunOptions(), "spec": None})
    pieces = solver.split_into(12)
    return [Task(run_id=1, sub_id=k, path=p.path, weight=p.weight) for k, p in enumerate(pieces)]


def test_a_parcel_solves_its_subproblems_in_order(pool_of_the_6x10):
    local_pool._POOL["signals"] = _Asked(after=10**9)
    outcomes, unstarted = local_pool._pool_solve(pool_of_the_6x10, Mode.COUNT)
    assert unstarted == [] and [o.sub_id for o in outcomes] == [t.sub_id for t in pool_of_the_6x10]
    assert sum(o.count for o in outcomes) == 9356 and sum(o.weight_done for o in outcomes) == 1


def test_a_parcel_asked_for_work_hands_back_what_it_has_not_started(pool_of_the_6x10):
    local_pool._POOL["signals"] = _Asked(after=3)
    outcomes, unstarted = local_pool._pool_solve(pool_of_the_6x10, Mode.COUNT)
    assert [o.sub_id for o in outcomes] == [0, 1, 2]
    assert unstarted == pool_of_the_6x10[3:]


def test_small_subproblems_travel_in_parcels_and_the_count_is_exact(tc, monkeypatch):
    """--subproblems 200 on two processes: far fewer hand-overs than subproblems (the
    planning trial measures the rate that packs them), and the exact count."""
    handed: list[int] = []
    submit = local_pool._LocalRun._submit

    def counting(self, fut, item, now):
        handed.append(len(item) if isinstance(item, list) else 1)
        return submit(self, fut, item, now)

    monkeypatch.setattr(local_pool._LocalRun, "_submit", counting)
    out = json.loads(tc("solve", "pentomino-6x10", "--subproblems", "200", "--workers", "2", "--no-symmetry",
                        "--by-search", "--json", "--no-progress").output.strip().splitlines()[-1])
    assert out["solutions"] == 9356
    assert sum(handed) >= out["subproblems"] - 1 and len(handed) < sum(handed) / 3
    assert max(handed) <= local_pool.PARCEL_MOST


def test_a_parcel_is_packed_from_the_backlog_at_the_measured_rate():
    """_parcels: greedy in order up to PARCEL_SECONDS at the rate, at most PARCEL_MOST a
    parcel; without a rate, one subproblem a parcel; a sampled run's, one each too."""
    run = object.__new__(local_pool._LocalRun)
    run.sampling, run.parcel_most = None, local_pool.PARCEL_MOST
    run.backlog = [Task(1, k, (k,), Fraction(1, 1000)) for k in range(40)]
    run.rate = 1.0  # 1 ms each
    parcels = run._parcels(2)
    assert [len(p) for p in parcels] == [local_pool.PARCEL_MOST, local_pool.PARCEL_MOST] and len(run.backlog) == 8
    run.rate = None
    assert [len(p) for p in run._parcels(3)] == [1, 1, 1] and len(run.backlog) == 5


def test_the_parent_steps_back_while_its_pool_runs_and_comes_back(tc, monkeypatch):
    """`solve` with a pool: once the pool runs, every thread of the parent is
    STEP_BACK nicer (its bookkeeping yields to the searches); after the run the
    nice values are back where this process may set them back (as root)."""
    import os

    seen: list[tuple[dict, int]] = []
    step_back = local_pool.priority.step_back

    def spying(*args):
        before = step_back(*args)
        seen.append((before, os.getpriority(os.PRIO_PROCESS, 0)))
        return before

    monkeypatch.setattr(local_pool.priority, "step_back", spying)
    start = os.getpriority(os.PRIO_PROCESS, 0)
    out = json.loads(tc("solve", "pentomino-5x12", "--by-search", "--no-symmetry", "--workers", "2", "--json",
                        "--no-progress").output.strip().splitlines()[-1])
    assert out["solutions"] == 4040
    (before, during), = seen
    assert before[threading.get_native_id()] == start and during == min(19, start + local_pool.priority.STEP_BACK)
    if os.geteuid() == 0:
        assert os.getpriority(os.PRIO_PROCESS, 0) == start


def test_while_the_backlog_feeds_the_pool_results_are_recorded_together(tc, monkeypatch):
    """The parent hands parcels from what it leased without a ledger exchange each time:
    --subproblems 200 on two processes takes far fewer exchanges than parcels (an
    exchange only where the backlog runs short or a result donated a frontier), every
    result is recorded (the run closes with the exact count), and none is left behind."""
    exchanges, parcels = [], []
    exchange, submit = local_pool.exchange, local_pool._LocalRun._submit

    def counting_exchange(ledger, outcomes, *args, **kwargs):
        exchanges.append(len(outcomes))
        return exchange(ledger, outcomes, *args, **kwargs)

    def counting_submit(self, fut, item, now):
        parcels.append(item)
        return submit(self, fut, item, now)

    monkeypatch.setattr(local_pool, "exchange", counting_exchange)
    monkeypatch.setattr(local_pool._LocalRun, "_submit", counting_submit)
    monkeypatch.setattr(local_pool, "RECORD_AFTER", 3600.0)  # (a loaded machine would record by the clock more often)
    out = json.loads(tc("solve", "pentomino-6x10", "--subproblems", "200", "--workers", "2", "--no-symmetry",
                        "--by-search", "--json", "--no-progress").output.strip().splitlines()[-1])
    assert out["solutions"] == 9356 and out["status"] == "done"
    assert len(exchanges) < len(parcels) / 2
    # every subproblem of the run (a fixed split: no trial recorded with it) is handed on,
    # some twice (a parcel's unstarted ones come back when work is asked for), and recorded once
    handed = {t.sub_id for p in parcels for t in p}
    assert sum(exchanges) == len(handed) == out["subproblems"]


def _outcome(frontier=(), solutions=None):
    from scheduler.work import Outcome

    return Outcome(1, 1, 0, None, 1, 0.0, {}, Fraction(1), list(frontier), solutions)


def test_recording_is_due_for_a_frontier_solutions_many_results_or_an_old_one():
    """_recording_due: nothing collected, or a few fresh plain results, wait; a result
    with a frontier (its subproblems become leasable once recorded) or solutions, or
    RECORD_MOST results, or one older than RECORD_AFTER, are recorded at once."""
    from core.search import Subpath

    run = object.__new__(local_pool._LocalRun)
    run.outcomes, run._collected_since = [], 100.0
    assert not run._recording_due(100.0)
    run.outcomes = [_outcome()] * 3
    assert not run._recording_due(100.0 + local_pool.RECORD_AFTER / 2)
    assert run._recording_due(100.0 + local_pool.RECORD_AFTER)
    run.outcomes = [_outcome()] * (local_pool.RECORD_MOST - 1)
    assert not run._recording_due(100.0)
    run.outcomes.append(_outcome())
    assert run._recording_due(100.0)
    run.outcomes = [_outcome(), _outcome(frontier=[Subpath((1,), Fraction(1, 2))])]
    assert run._recording_due(100.0)
    run.outcomes = [_outcome(solutions=[(1, 2)])]
    assert run._recording_due(100.0)
