"""End to end: Ctrl-C (SIGINT to the process group, once or twice), SIGTERM (as
``timeout`` sends it) and SIGKILL end a local ``tilecensus solve`` with no process left
behind; the run is ``interrupted`` (at once, or once its leases expired when the process
could not say so) and ``resume`` finishes it to the exact count."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from services import ROOT, cli_env, run_cli
from processes import process_running as _running

pytestmark = pytest.mark.e2e

#: a count that runs about 20 s on two processes: every tiling visited (no memo, no symmetry)
PROBLEM = ("dominoes-7x10", "--no-memo", "--by-search", "--no-symmetry")
#: the domino tilings of a 7x10 rectangle (as the level count finds them)
TILINGS = 53_175_517
#: short budgets and leases, so that a killed run's leases expire in seconds
SOLVE = ("solve", *PROBLEM, "--workers", "2", "--budget", "1", "--lease", "3", "--no-progress")


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # exited meanwhile
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found



def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def _status(db: str) -> str:
    out = run_cli("runs", "--json", db_url=db, check=True).stdout
    (run,) = json.loads(out)
    return run["status"]


@pytest.mark.parametrize(
    "how, exit_status",
    [("ctrl-c", 130), ("ctrl-c twice", 130), ("sigterm", 143), ("sigkill", -signal.SIGKILL)],
)
def test_a_signal_ends_a_local_solve_and_resume_finishes_it(how, exit_status, tmp_path):
    db = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    proc = subprocess.Popen([sys.executable, "-m", "scheduler", *SOLVE, "--db", db], cwd=ROOT, env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert _wait_for(lambda: len(_children(proc.pid)) == 2, 60), "the pool did not start"
        pool = _children(proc.pid)
        time.sleep(2)
        assert proc.poll() is None, "the count ended before the signal: pick a bigger problem"
        if how.startswith("ctrl-c"):  # a terminal's Ctrl-C reaches the whole process group
            os.killpg(proc.pid, signal.SIGINT)
            if how == "ctrl-c twice":
                time.sleep(0.05)
                try:
                    os.killpg(proc.pid, signal.SIGINT)
                except ProcessLookupError:  # the first one had ended it already
                    pass
        elif how == "sigterm":
            proc.send_signal(signal.SIGTERM)
        else:
            proc.kill()
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == exit_status, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    if how in ("ctrl-c", "sigterm"):
        assert "interrupted: run 1 stopped; go on with `tilecensus resume 1`" in err, err
    assert _wait_for(lambda: not any(_running(pid) for pid in pool), 10), \
        f"pool processes left: {[pid for pid in pool if _running(pid)]}"
    # a process that could not wind down leaves its leases to expire (3 s here)
    assert _wait_for(lambda: _status(db) == "interrupted", 20), _status(db)
    resumed = run_cli("resume", "1", "--workers", "2", "--json", db_url=db, timeout=600, check=True)
    summary = json.loads(resumed.stdout)
    assert (summary["status"], summary["solutions"]) == ("done", TILINGS)


def test_ctrl_c_on_a_tree_thousands_of_levels_deep_ends_the_run_cleanly(tmp_path):
    """The 200x200 domino board: 20,000 levels, its count past 2^128 under every few
    thousand of them, so every task ends in a frontier (4 million ids at most, see
    ``frontier_cap`` in core/_kernel.c) and the command spends its time writing them.  A
    Ctrl-C in the middle still ends it as any other (the search asked for: by default the
    board is refused as out of reach): the results it was writing dropped
    (their transaction's lock let go), the run interrupted, no process left.  Before,
    such a command grew past 13 GB in 45 s, and a Ctrl-C either took 5-10 s or ended on
    "database is locked" a minute later."""
    db = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    proc = subprocess.Popen([sys.executable, "-m", "scheduler", "solve", "dominoes-200x200", "--by-search",
                             "--workers", "2", "--no-progress", "--db", db], cwd=ROOT, env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert _wait_for(lambda: len(_children(proc.pid)) == 2, 120), "the pool did not start"
        pool = _children(proc.pid)
        time.sleep(6)  # results with frontiers come and are written meanwhile
        assert proc.poll() is None
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert "interrupted: run 1 stopped; go on with `tilecensus resume 1`" in err, err
    assert _wait_for(lambda: not any(_running(pid) for pid in pool), 10)
    assert _status(db) == "interrupted"


def test_ctrl_c_on_a_count_by_levels_and_resume(tmp_path):
    """A count by levels in the local pool (the 22x22 domino board: one share on two
    threads, about 14 s): Ctrl-C stops it within a second, no process left, the run
    interrupted; ``resume`` counts the share again to Kasteleyn's number."""
    from known_tilings import kasteleyn

    db = f"sqlite:///{tmp_path / 'ledger.sqlite'}"
    proc = subprocess.Popen([sys.executable, "-m", "scheduler", "solve", "dominoes-22x22", "--workers", "2",
                             "--no-progress", "--db", db], cwd=ROOT, env=cli_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert _wait_for(lambda: len(_children(proc.pid)) == 2, 60), "the pool did not start"
        pool = _children(proc.pid)
        time.sleep(3)  # the share is counting
        assert proc.poll() is None, "the count ended before the signal"
        signalled = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130 and took < 1.5, (took, err)
    assert "Traceback" not in err and "interrupted: run 1 stopped" in err, err
    assert _wait_for(lambda: not any(_running(pid) for pid in pool), 10)
    assert _status(db) == "interrupted"
    resumed = run_cli("resume", "1", "--workers", "2", "--json", db_url=db, timeout=600, check=True)
    summary = json.loads(resumed.stdout)
    assert (summary["status"], summary["solutions"]) == ("done", kasteleyn(22, 22))
