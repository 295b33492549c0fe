"""A Celery worker staying on its run (scheduler/ledger/pulls.py): each pull records its
results and leases the next parcel — heaviest first for a count, in search order for a
listing, up to 1/share of the pending weight, at least one — in one transaction; two
workers never lease one subproblem; the last pull closes the run with the exact count.
On SQLite and PostgreSQL (whose parcel is one statement), which must agree."""
from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select

from tc_helpers import finished_weight, make_run, states, sub_ids
from scheduler import ledger as L
from scheduler.db import open_ledger
from scheduler.ledger.pulls import MOST_PER_PARCEL, Parcel
from scheduler.models import Run, Subproblem
from scheduler.run_options import Mode, RunOptions
from scheduler.work import Outcome, Task, build_solver, solve_task


def _solve(ledger, task: Task) -> Outcome:
    run = L.get_run(ledger, task.run_id)
    opts = RunOptions.from_json(run.options)
    _, solver = build_solver(run.spec, opts)
    return solve_task(solver, task, Mode(run.mode), opts)


def _pending(ledger, run_id: int) -> list[tuple[int, float]]:
    """The run's pending subproblems (id, weight), heaviest first (the last first among
    equals)."""
    with ledger.session() as s:
        rows = s.execute(select(Subproblem.id, Subproblem.weight_f).where(
            Subproblem.run_id == run_id, Subproblem.state == "pending")).all()
    return sorted(((i, w) for i, w in rows), key=lambda r: (-r[1], -r[0]))


@given(weights=st.lists(st.floats(min_value=1e-9, max_value=1.0), min_size=1, max_size=200),
       share=st.integers(1, 16), most=st.none() | st.floats(1e-6, 2.0), least=st.none() | st.floats(1e-9, 0.5))
def test_a_parcel_is_a_prefix_under_its_cap(weights, share, most, least):
    parcel = Parcel(share, most, least)
    candidates = list(enumerate(weights))
    picked = parcel.pick(candidates)
    assert 1 <= len(picked) <= MOST_PER_PARCEL
    assert picked == [i for i, _ in candidates[:len(picked)]]  # a prefix, in the order given
    cap = parcel.cap(sum(weights[:MOST_PER_PARCEL]))
    assert sum(weights[:len(picked) - 1]) < cap or len(picked) == 1  # each taken while under the cap
    if len(picked) < min(len(weights), MOST_PER_PARCEL):
        assert sum(weights[:len(picked)]) >= cap  # and no more


def test_a_parcel_is_a_share_of_the_pending_weight_within_its_bounds():
    assert Parcel(4).cap(1.0) == 0.25
    assert Parcel(4, most_weight=0.1).cap(1.0) == 0.1
    assert Parcel(4, least_weight=0.5).cap(1.0) == 0.5
    assert Parcel.of_seconds(2, rate=10.0, most=1.0, least=0.03) == Parcel(2, 0.1, 0.003)
    assert Parcel.of_seconds(2, rate=None, most=1.0, least=0.03) == Parcel(2)


def test_a_pull_leases_the_heaviest_up_to_its_share_and_records(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "pentomino-6x10", depth=2, executor="celery", memo=False)
    pending = _pending(ledger, run_id)
    expected = Parcel(3).pick(pending)
    first = L.pull(ledger, run_id, "w1", [], Parcel(3), 60)
    assert [t.sub_id for t in first.tasks] == expected  # PostgreSQL's one statement picks as Python does
    assert 1 < len(first.tasks) < len(pending) and not first.closed
    assert states(ledger, run_id) == {"leased": len(expected), "pending": len(pending) - len(expected)}
    outcomes = [_solve(ledger, t) for t in first.tasks]
    second = L.pull(ledger, run_id, "w1", outcomes, Parcel(3), 60)
    assert second.recorded == [[]] * len(outcomes)  # recorded, nothing donated
    assert set(t.sub_id for t in second.tasks).isdisjoint(expected)
    assert states(ledger, run_id)["done"] == len(outcomes)


def test_a_listing_pulls_in_search_order(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "pentomino-6x10", mode="enumerate", depth=2, executor="celery", memo=False)
    ids = sub_ids(ledger, run_id)
    pulled = L.pull(ledger, run_id, "w1", [], Parcel(4, heaviest_first=False), 60)
    assert [t.sub_id for t in pulled.tasks] == ids[:len(pulled.tasks)]


def test_two_workers_pulling_share_the_run_and_the_last_pull_closes_it(any_url):
    """Two workers take turns pulling: no subproblem leased twice, every one done once, and
    the run closed by the pull that found nothing pending and nothing open — not before,
    while the other still held a parcel."""
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=0, executor="celery", node_budget=300)  # donates as it goes
    held: dict[str, list[Outcome]] = {"w1": [], "w2": []}
    leased: list[int] = []
    closed_by = None
    for turn in range(10_000):
        owner = ("w1", "w2")[turn % 2]
        pulled = L.pull(ledger, run_id, owner, held[owner], Parcel(2), 60)
        held[owner] = [_solve(ledger, t) for t in pulled.tasks]
        leased += [t.sub_id for t in pulled.tasks]
        if pulled.closed:
            closed_by = owner
            break
        other = "w2" if owner == "w1" else "w1"
        assert pulled.tasks or held[other]  # nothing pending: the other still searches
    assert closed_by is not None
    assert len(leased) == len(set(leased))
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 6728)
    assert finished_weight(ledger, run_id) == 1


def test_nothing_is_pulled_from_a_cancelled_run(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery")
    with ledger.session() as s:  # the run stopped; its rows as they were (a cancel also cancels them)
        s.execute(Run.__table__.update().where(Run.id == run_id).values(status="cancelled"))
    pulled = L.pull(ledger, run_id, "w1", [], Parcel(2), 60)
    assert pulled.tasks == [] and not pulled.closed
    assert set(states(ledger, run_id)) == {"pending"}


@pytest.mark.parametrize("heaviest_first", [True, False])
def test_parcels_never_exceed_the_most_per_parcel(sqlite_url, heaviest_first):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "pentomino-6x10", depth=3, executor="celery", memo=False)  # thousands of pieces
    pulled = L.pull(ledger, run_id, "w1", [], Parcel(1, heaviest_first=heaviest_first), 60)
    assert len(pulled.tasks) == MOST_PER_PARCEL
    assert sum((t.weight for t in pulled.tasks), Fraction(0)) < 1
