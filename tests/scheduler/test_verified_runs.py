"""Verified runs (``--verify P``) on the local pool and through the Celery task functions
(called directly, no broker): the sample, the different worker, the verdicts, a
deliberately corrupted worker, and the run that is not done before its verifications."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from tc_helpers import make_run
from scheduler.ledger import verifications as C
from scheduler import ledger as L
from scheduler import celery_messages, local_pool
from scheduler.db import open_ledger
from scheduler.models import Subproblem, Verification
from scheduler.celery_messages import execute_one
from scheduler.verification import execute_verification
from scheduler.run_options import Mode, RunOptions
from scheduler.work import build_solver, solve_task, worker_name




def verifications(ledger, run_id: int) -> list[tuple[int, str, str | None, bool | None, str]]:
    """(subproblem, recording worker, verifier, ok, state) of each verification."""
    with ledger.session() as s:
        return [tuple(r) for r in s.execute(
            select(Verification.subproblem_id, Verification.worker, Verification.verifier, Verification.ok,
                   Verification.state).where(Verification.run_id == run_id).order_by(Verification.id))]


def complete_subproblems(ledger, run_id: int) -> set[int]:
    with ledger.session() as s:
        return set(s.scalars(select(Subproblem.id).where(
            Subproblem.run_id == run_id, Subproblem.state == "done", Subproblem.stopped_by.is_(None))))


def corrupt(monkeypatch, path: tuple[int, ...]) -> None:
    """A faulty worker: whichever pool process or Celery message solves ``path`` records one
    solution too many (the pool forks from this process, so it inherits the patch;
    verifiers do not use it)."""
    real = celery_messages.solve_task

    def faulty(solver, task, mode, options):
        outcome = real(solver, task, mode, options)
        if tuple(task.path) == path:
            outcome.count += 1
        return outcome

    monkeypatch.setattr(celery_messages, "solve_task", faulty)
    monkeypatch.setattr(local_pool, "solve_task", faulty)


# ----------------------------------------------------------------------------- sampling
def test_the_sample_is_a_hashed_coin_per_path():
    every, half = C.Sampling(1.0), C.Sampling(0.5, seed=7)
    paths = [(i, j) for i in range(40) for j in range(25)]
    assert all(every.picks(p) for p in paths)
    picked = [p for p in paths if half.picks(p)]
    assert picked == [p for p in paths if C.Sampling(0.5, seed=7).picks(p)]  # deterministic
    assert 400 < len(picked) < 600
    assert picked != [p for p in paths if C.Sampling(0.5, seed=8).picks(p)]  # the seed matters
    assert C.sampling_of(None, None) is None and C.sampling_of(0.25, 3) == C.Sampling(0.25, 3)


# ----------------------------------------------------------------------------- local pool
@pytest.mark.parametrize("workers", [1, 2])
def test_verify_one_checks_every_subproblem_on_another_process(tc, sqlite_url, workers):
    data = json.loads(tc("solve", "dominoes-6x6", "--verify", "1", "--split-depth", "3", "--no-symmetry", "--json",
                         "--workers", str(workers)).stdout)
    assert (data["status"], data["solutions"], data["mismatches"]) == ("done", 6728, 0)
    assert data["verified"] == data["subproblems"] == 8
    ledger = open_ledger(sqlite_url)
    rows = verifications(ledger, data["run_id"])
    assert {r[0] for r in rows} == complete_subproblems(ledger, data["run_id"])
    assert all(worker != verifier and ok and state == "done" for _, worker, verifier, ok, state in rows)
    if workers == 1:  # the pool's one process recorded everything: this process verified
        assert {r[2] for r in rows} == {worker_name()}
    shown = json.loads(tc("show", str(data["run_id"]), "--json").stdout)["verification"]
    assert (shown["verified"], shown["agree"], shown["mismatches"], shown["open"]) == (8, 8, 0, 0)
    assert "8 verified" in tc("show", str(data["run_id"])).stdout


def test_enumeration_verifies_the_complete_subproblems_and_their_solutions(tc, sqlite_url):
    data = json.loads(tc("solve", "dominoes-6x6", "--all", "--limit", "0", "--verify", "1", "--split-depth", "2",
                         "--node-budget", "300", "--json", "--workers", "2").stdout)
    assert (data["status"], data["solutions"]) == ("done", 6728)
    ledger = open_ledger(sqlite_url)
    complete = complete_subproblems(ledger, data["run_id"])
    assert 0 < len(complete) < data["subproblems"]  # budget-stopped pieces are not verified
    assert {r[0] for r in verifications(ledger, data["run_id"])} == complete
    assert data["verified"] == len(complete)


def test_a_partial_sample_is_the_same_every_time(tc, sqlite_url):
    runs = [json.loads(tc("solve", "pentomino-6x10", "--distinct", "--verify", "0.25", "--verify-seed", "5",
                          "--split-depth", "3", "--json", "--workers", "2").stdout) for _ in range(2)]
    ledger = open_ledger(sqlite_url)

    def paths(run_id):
        with ledger.session() as s:
            return sorted(s.scalars(select(Subproblem.path).join(Verification, Verification.subproblem_id == Subproblem.id)
                                    .where(Verification.run_id == run_id)))

    assert paths(runs[0]["run_id"]) == paths(runs[1]["run_id"])
    assert 0.1 * runs[0]["subproblems"] < runs[0]["verified"] < 0.45 * runs[0]["subproblems"]
    assert runs[0]["status"] == "done"


@pytest.mark.parametrize("workers", [1, 2])
def test_a_corrupted_result_fails_the_run_naming_both_workers(tc, sqlite_url, monkeypatch, workers):
    ledger = open_ledger(sqlite_url)
    probe = make_run(ledger, "dominoes-6x6", depth=3)
    with ledger.session() as s:
        target = json.loads(s.scalars(select(Subproblem.path).where(Subproblem.run_id == probe)
                                      .order_by(Subproblem.id).offset(3)).first())
    corrupt(monkeypatch, tuple(target))
    r = tc("solve", "dominoes-6x6", "--verify", "1", "--split-depth", "3", "--json", "--workers", str(workers), code=1)
    data = json.loads(r.stdout)
    assert data["status"] == "failed" and data["mismatches"] == 1
    with ledger.session() as s:
        sub = s.execute(select(Subproblem.id, Subproblem.worker).where(
            Subproblem.run_id == data["run_id"], Subproblem.path == json.dumps(target, separators=(",", ":")))).one()
        verifier = s.scalar(select(Verification.verifier).where(Verification.subproblem_id == sub.id))
    assert sub.worker != verifier
    error = data["error"]
    assert error.startswith("verification failed: ") and f"subproblem #{sub.id} path {target}" in error
    assert f"(worker {sub.worker})" in error and f"(verifier {verifier})" in error
    assert "MISMATCH" in tc("show", str(data["run_id"])).stdout
    assert "failed" in tc("runs").stdout and "1 MISMATCH" in tc("runs").stdout
    row = json.loads(tc("runs", "--json").stdout)[0]
    assert (row["status"], row["mismatches"]) == ("failed", 1)


def test_a_resumed_verified_run_finishes_its_verifications(tc, sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-6x6", depth=3, verify=1.0)
    run = L.get_run(ledger, run_id)
    tasks = L.lease_batch(ledger, run_id, "t", 3, 60)
    options = RunOptions.from_json(run.options)
    _, solver = build_solver(run.spec, options)
    L.record_results(ledger, [solve_task(solver, t, Mode.COUNT, options) for t in tasks],
                     sampling=C.Sampling(1.0))
    L.cancel_run(ledger, run_id)
    assert {r[4] for r in verifications(ledger, run_id)} == {"cancelled"}
    assert not L.close_run(ledger, run_id)
    data = json.loads(tc("resume", str(run_id), "--json", "--workers", "2").stdout)
    assert (data["status"], data["solutions"], data["verified"]) == ("done", 6728, 8)


def test_the_run_is_not_done_before_its_verifications(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery", verify=1.0)
    with ledger.session() as s:
        ids = list(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id)))
    assert [execute_one(ledger, i, None) for i in ids] == ["recorded"] * len(ids)
    assert L.get_run(ledger, run_id).status == "running" and L.has_open(ledger, run_id)
    assert len(verifications(ledger, run_id)) == len(ids)
    assert not L.close_run(ledger, run_id)


# ----------------------------------------------------------------------------- Celery task functions
class Sent:
    """Stands in for the Celery executor: records what would be sent."""

    def __init__(self):
        self.verifications: list[int] = []
        self.ended: list[int] = []  # the runs it told the waiters had ended

    def announce_end(self, run_id):
        self.ended.append(run_id)

    def dispatch(self, run_id, sub_ids, queue, ledger=None):
        pass

    def dispatch_verifications(self, run_id, sub_ids, queue, ledger=None):
        self.verifications.extend(sub_ids)


def _recorded_elsewhere(ledger, run_id: int, worker: str, bump: int = 0) -> list[int]:
    """Solve and record every subproblem here, as if ``worker`` had (``bump`` added to the
    first non-empty count, as a faulty worker would)."""
    run = L.get_run(ledger, run_id)
    options = RunOptions.from_json(run.options)
    _, solver = build_solver(run.spec, options)
    outcomes = [solve_task(solver, t, Mode(run.mode), options) for t in L.lease_batch(ledger, run_id, "t", 100, 60)]
    for o in outcomes:
        o.worker = worker
    next(o for o in outcomes if o.count).count += bump
    L.record_results(ledger, outcomes, queued=True, sampling=C.Sampling(1.0))
    return [o.sub_id for o in outcomes]


def test_celery_verification_agrees_then_closes_the_run(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery", verify=1.0)
    ids = _recorded_elsewhere(ledger, run_id, "elsewhere:1")
    sent = Sent()
    assert [execute_verification(ledger, i, sent) for i in ids] == ["verified"] * len(ids)
    assert sent.ended == [run_id]  # the last verification closed the run, and said so
    assert execute_verification(ledger, ids[0], Sent()) == "skipped"  # a duplicate delivery
    run = L.get_run(ledger, run_id)
    assert (run.status, run.solutions) == ("done", 95)
    assert {r[2] for r in verifications(ledger, run_id)} == {worker_name()}


def test_celery_verification_catches_a_faulty_worker(any_url):
    ledger = open_ledger(any_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=2, executor="celery", verify=1.0)
    ids = _recorded_elsewhere(ledger, run_id, "faulty:13", bump=2)
    sent = Sent()
    results = [execute_verification(ledger, i, sent) for i in ids]
    assert results.count("mismatch") == 1 and sent.ended == [run_id]  # the mismatch failed the run, and said so
    run = L.get_run(ledger, run_id)
    assert run.status == "failed" and "(worker faulty:13)" in run.error and f"(verifier {worker_name()})" in run.error
    bad = ids[results.index("mismatch")]
    assert f"subproblem #{bad} path" in run.error


def test_a_worker_refuses_its_own_result_then_leaves_it_to_the_scheduler(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, "dominoes-4x5", depth=1, executor="celery", verify=1.0)
    ids = _recorded_elsewhere(ledger, run_id, worker_name())  # recorded by this very process
    sent = Sent()
    for n in range(C.MAX_REFUSALS):
        assert execute_verification(ledger, ids[0], sent) == "refused"
    assert sent.verifications == [ids[0]] * (C.MAX_REFUSALS - 1)  # sent back, until the last refusal
    with ledger.engine.begin() as conn:
        assert C.orphan_verifications(conn, run_id) == [ids[0]]
        assert ids[0] not in C.stale_verifications(conn, run_id, 0.0)
    from scheduler.verification import verify_here

    assert verify_here(ledger, ids[0], "scheduler") == "skipped"  # never the recording process
    with ledger.session() as s:  # as if the scheduler were another process
        s.execute(Verification.__table__.update().where(Verification.subproblem_id == ids[0]).values(worker="w:1"))
    assert verify_here(ledger, ids[0], "scheduler") == "verified"
