"""End to end, verified runs (``--verify``) on real Celery workers, Redis and PostgreSQL:
a healthy run verifies every subproblem on another process and finishes done; a faulty
worker is caught, and the run names the subproblem and both workers; with a single
worker process the scheduler does the verifying."""
from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from sqlalchemy import select

from services import run_cli
from scheduler.db import open_ledger
from scheduler.ledger import get_run
from scheduler.models import Subproblem, Verification
from test_distributed import check_run, submit, wait_done

pytestmark = pytest.mark.e2e
HERE = Path(__file__).resolve().parent


def verifications(url: str, run_id: int) -> list[tuple[int, str, str | None, bool | None, str]]:
    with open_ledger(url).session() as s:
        return [tuple(r) for r in s.execute(
            select(Verification.subproblem_id, Verification.worker, Verification.verifier, Verification.ok,
                   Verification.state).where(Verification.run_id == run_id))]


def all_subproblems(url: str, run_id: int) -> set[int]:
    with open_ledger(url).session() as s:
        return set(s.scalars(select(Subproblem.id).where(Subproblem.run_id == run_id)))


def test_verify_one_on_a_healthy_cluster(pg_url, broker_url, queue, processes):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    processes.worker(pg_url, broker_url, queue, concurrency=2)
    processes.scheduler(pg_url, broker_url)
    out = run_cli("submit", "pentomino-6x10", "--distinct", "--split-depth", "2", "--verify", "1", "--queue", queue,
                  "--json",
                  db_url=pg_url, broker=broker_url, check=True).stdout
    sent = json.loads(out)
    assert sent["estimate"]["nodes"]["estimate"] > 0  # submit estimates by default
    run_id = sent["run_id"]
    wait_done(pg_url, run_id, processes)
    show = check_run(pg_url, run_id, "pentomino-6x10", distinct=True)
    rows = verifications(pg_url, run_id)
    assert {r[0] for r in rows} == all_subproblems(pg_url, run_id)
    assert all(worker != verifier and ok and state == "done" for _, worker, verifier, ok, state in rows)
    v = show["verification"]
    assert v["verified"] == v["agree"] == show["subproblems"] == sent["subproblems"]
    assert get_run(open_ledger(pg_url), run_id).estimated_nodes == round(sent["estimate"]["nodes"]["estimate"])


def test_a_faulty_worker_is_caught(pg_url, broker_url, queue, processes, tmp_path, monkeypatch):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    log = tmp_path / "faulty.log"
    with monkeypatch.context() as m:  # only this worker loads the fault
        m.setenv("TILECENSUS_PLUGINS", "faulty_worker")
        m.setenv("TILECENSUS_FAULTY_LOG", str(log))
        m.setenv("PYTHONPATH", str(HERE))
        processes.worker(pg_url, broker_url, queue, concurrency=1)
    processes.worker(pg_url, broker_url, queue, concurrency=1)
    processes.scheduler(pg_url, broker_url)
    run_id = submit(pg_url, broker_url, queue, "pentomino-6x10", "--distinct", "--split-depth", "2", "--verify", "1",
                    "--no-estimate")
    wait_done(pg_url, run_id, processes)
    faulty = set(log.read_text().split())
    assert faulty, "the faulty worker recorded nothing"
    show = json.loads(run_cli("show", str(run_id), "--json", db_url=pg_url, check=True).stdout)
    assert show["status"] == "failed" and show["verification"]["mismatches"] >= 1
    bad = show["verification"]["mismatched"][0]
    assert bad["worker"] in faulty and bad["verifier"] not in faulty and bad["worker"] != bad["verifier"]
    error = show["error"]
    assert error.startswith("verification failed: subproblem #")
    assert f"#{bad['subproblem']} path {bad['path']}" in error
    assert f"(worker {bad['worker']})" in error and f"(verifier {bad['verifier']})" in error
    assert "MISMATCH" in run_cli("show", str(run_id), db_url=pg_url, check=True).stdout
    runs = json.loads(run_cli("runs", "--json", db_url=pg_url, check=True).stdout)
    assert runs[0]["status"] == "failed" and runs[0]["mismatches"] >= 1


def test_one_worker_process_leaves_the_verifying_to_the_scheduler(pg_url, broker_url, queue, processes):
    run_cli("db", "upgrade", db_url=pg_url, check=True)
    processes.worker(pg_url, broker_url, queue, concurrency=1)
    sched = processes.scheduler(pg_url, broker_url)
    run_id = submit(pg_url, broker_url, queue, "dominoes-6x6", "--split-depth", "3", "--no-symmetry", "--verify", "1")
    wait_done(pg_url, run_id, processes)
    check_run(pg_url, run_id, "dominoes-6x6")
    rows = verifications(pg_url, run_id)
    assert len(rows) == 8
    assert {r[2] for r in rows} == {f"{socket.gethostname()}:{sched.pid}"}
    assert all(r[1] != r[2] and r[3] for r in rows)


def test_submit_prints_the_estimate(sqlite_url, broker_url, queue):
    # a tree the estimate's short timed search cannot finish, however quiet the machine
    r = run_cli("submit", "pentacubes-3x4x5", "--verify", "0.5", "--queue", queue, db_url=sqlite_url,
                broker=broker_url, check=True)
    estimate, submitted = r.stdout.splitlines()
    assert estimate.startswith("estimate: ") and " nodes (95% " in estimate and "random paths" in estimate
    assert " on one core here; " in estimate
    assert submitted.endswith(f" on queue {queue} (no worker has announced itself on it: planned for 8; "
                              "verifying a random 50% of the complete ones)")
    quiet = run_cli("submit", "dominoes-4x5", "--no-estimate", "--queue", queue, db_url=sqlite_url, broker=broker_url,
                    check=True)
    # a problem this small is counted while planning: nothing goes to the queue
    assert quiet.stdout.startswith("run 2 dominoes-4x5: 95 solutions") and "nothing left to queue" in quiet.stdout
    r = run_cli("submit", "dominoes-4x5", "--verify", "2", "--queue", queue, db_url=sqlite_url, broker=broker_url)
    assert r.returncode == 2 and r.stderr == "tilecensus: --verify takes a fraction in (0, 1], not 2\n"
    for run_id in ("1", "2"):
        run_cli("cancel", run_id, db_url=sqlite_url, check=True)
