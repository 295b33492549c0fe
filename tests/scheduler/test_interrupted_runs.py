"""The ``interrupted`` status: set by a local run stopped by a signal, shown for a local
run whose process died (its leases all expired), revived by ``resume``; and ``watch``
stopped by Ctrl-C leaves the run going."""
from __future__ import annotations

import datetime as dt
import signal
import subprocess
import sys
import time
from pathlib import Path

from sqlalchemy import update

from scheduler.db import open_ledger
from scheduler.ledger import cancel_run, get_run, interrupt_run, progress, revive_run
from scheduler.models import Subproblem, utcnow
from scheduler.queries import list_runs, run_summary
from scheduler.states import RunStatus
from tc_helpers import make_run

ROOT = Path(__file__).resolve().parents[2]


def _lease_some(ledger, run_id: int, expires: dt.datetime, n: int = 2) -> None:
    """Lease the run's first ``n`` subproblems to a local owner until ``expires``."""
    with ledger.session() as session:
        ids = [s.id for s in session.query(Subproblem).filter_by(run_id=run_id).order_by(Subproblem.id).limit(n)]
        session.execute(update(Subproblem).where(Subproblem.id.in_(ids)).values(
            state="leased", lease_owner="local:host:1", lease_expires=expires))


def test_interrupt_marks_a_running_run_and_resume_revives_it(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger)
    assert interrupt_run(ledger, run_id)
    run = get_run(ledger, run_id)
    assert run.status == RunStatus.INTERRUPTED and run.finished_at is not None
    assert not interrupt_run(ledger, run_id)  # only a running run
    assert revive_run(ledger, run_id).status == RunStatus.RUNNING
    assert get_run(ledger, run_id).finished_at is None
    interrupt_run(ledger, run_id)
    cancel_run(ledger, run_id)
    assert get_run(ledger, run_id).status == RunStatus.CANCELLED


def test_a_local_run_whose_leases_all_expired_shows_interrupted(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger)
    assert progress(ledger, run_id).status == RunStatus.RUNNING  # no lease yet: starting
    _lease_some(ledger, run_id, utcnow() + dt.timedelta(seconds=60))
    assert progress(ledger, run_id).status == RunStatus.RUNNING  # its process holds them
    _lease_some(ledger, run_id, utcnow() - dt.timedelta(seconds=1))
    p = progress(ledger, run_id)
    assert p.status == RunStatus.INTERRUPTED
    assert get_run(ledger, run_id).status == RunStatus.RUNNING  # shown, not written
    assert run_summary(ledger, run_id)["status"] == RunStatus.INTERRUPTED
    assert [r["run_id"] for r in list_runs(ledger, status="interrupted")] == [run_id]
    assert list_runs(ledger, status="running") == []
    elapsed = p.elapsed
    time.sleep(0.05)
    assert progress(ledger, run_id).elapsed == elapsed  # its seconds stopped


def test_a_local_run_killed_before_its_first_lease_shows_interrupted_after_a_lease_period(sqlite_url):
    from scheduler.models import Run
    from scheduler.run_options import RunOptions

    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger)
    period = RunOptions.from_json(get_run(ledger, run_id).options).lease_seconds()
    assert progress(ledger, run_id).status == RunStatus.RUNNING  # just written: starting
    started = utcnow() - dt.timedelta(seconds=period + 5)
    with ledger.session() as session:  # written a lease period ago, never leased
        session.execute(update(Run).where(Run.id == run_id).values(created_at=started))
    p = progress(ledger, run_id)
    assert p.status == RunStatus.INTERRUPTED
    assert abs(p.elapsed) < 1e-6  # it did nothing: its seconds stopped at its start
    assert get_run(ledger, run_id).status == RunStatus.RUNNING  # shown, not written
    _lease_some(ledger, run_id, utcnow() + dt.timedelta(seconds=60))
    assert progress(ledger, run_id).status == RunStatus.RUNNING  # a live process holds leases


def test_a_celery_run_with_expired_leases_is_still_running(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, executor="celery")
    _lease_some(ledger, run_id, utcnow() - dt.timedelta(seconds=1))
    assert progress(ledger, run_id).status == RunStatus.RUNNING  # the scheduler re-queues them


def test_ctrl_c_stops_watch_and_not_the_run(sqlite_url):
    ledger = open_ledger(sqlite_url)
    run_id = make_run(ledger, executor="celery")
    proc = subprocess.Popen([sys.executable, "-m", "scheduler", "watch", str(run_id), "--no-progress",
                             "--db", sqlite_url], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _until_it_reads(proc.pid, sqlite_url.removeprefix("sqlite:///"))  # following (it prints nothing until the end)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert (proc.returncode, out) == (130, ""), err
    assert err.strip() == f"stopped following: run {run_id} goes on in the cluster; `tilecensus watch {run_id}` follows it"
    assert get_run(ledger, run_id).status == RunStatus.RUNNING


def _until_it_reads(pid: int, path: str, timeout: float = 60.0) -> None:
    """Wait until process ``pid`` has the ledger file open and sleeps between its rounds
    (asleep at three looks 0.1 s apart): it is past its start-up, which a loaded machine
    stretches to seconds, and following."""
    import os

    until = time.monotonic() + timeout
    asleep = 0
    while time.monotonic() < until:
        try:
            reads = any(os.path.realpath(f"/proc/{pid}/fd/{fd}") == os.path.realpath(path)
                        for fd in os.listdir(f"/proc/{pid}/fd"))
            state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:  # a descriptor closed while looked at
            reads, state = False, "?"
        asleep = asleep + 1 if reads and state == "S" else 0
        if asleep >= 3:
            return
        time.sleep(0.1)
    raise AssertionError(f"process {pid} never settled to following {path}")
