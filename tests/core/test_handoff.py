"""A request for work (core/handoff.py) stops a running search under a time budget as if
its deadline had passed: it hands back its frontier, and the part counted plus the
frontier's subtrees are the whole count (the split law); cleared, searches run to their
budgets again.  Asked from another thread while the search runs, as a pool process's
signal handler does between two stretches of the search."""
from __future__ import annotations

import threading

import pytest

from core import handoff
from core.bitboard import BitboardSolver
from core.kernel import KernelSolver
from core.library import load
from core.search import SolveRequest


@pytest.fixture(autouse=True)
def cleared():
    handoff.clear()
    yield
    handoff.clear()


def _solvers():
    problem = load("pentomino-6x10")
    ec = problem.exact_cover()
    return [KernelSolver(ec, memo=False), BitboardSolver(ec, region=problem.region_rule())]


@pytest.mark.parametrize("which", [0, 1], ids=["kernel", "bitboard"])
def test_a_request_during_the_search_hands_back_a_frontier_that_completes_the_count(which):
    solver = _solvers()[which]
    timer = threading.Timer(0.05, handoff.request)
    timer.start()
    try:
        result = solver.solve((), SolveRequest(seconds=600))
    finally:
        timer.cancel()
    assert result.stopped_by == "budget" and result.frontier
    assert result.weight_done + sum(s.weight for s in result.frontier) == 1
    handoff.clear()
    rest = sum(solver.solve(s.path, SolveRequest()).count for s in result.frontier)
    assert result.count + rest == 9356  # 2,339 tilings, each in its 4 orientations


@pytest.mark.parametrize("which", [0, 1], ids=["kernel", "bitboard"])
def test_the_request_stays_until_cleared_and_needs_a_time_budget(which):
    """A search with no time budget — a verification's count — runs on whatever is asked."""
    solver = _solvers()[which]
    handoff.request()
    assert solver.solve((), SolveRequest(seconds=60)).stopped_by == "budget"
    assert solver.solve((), SolveRequest(seconds=60)).stopped_by == "budget"
    unbudgeted = solver.solve((), SolveRequest())
    assert unbudgeted.complete and unbudgeted.count == 9356
    handoff.clear()
    assert solver.solve((), SolveRequest(seconds=60)).count == 9356


_SIGNALLED = r"""
import os, signal, sys, threading, time
sys.path.insert(0, sys.argv[1])
from core import handoff
from core.library import load
from core.kernel import KernelSolver
from core.bitboard import BitboardSolver
from core.search import SolveRequest

problem = load("pentomino-6x10")
ec = problem.exact_cover()
solver = [KernelSolver(ec, memo=False), BitboardSolver(ec, region=problem.region_rule())][int(sys.argv[2])]
handoff.handle_signal(signal.SIGUSR1)
assert not handoff.requested()
threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGUSR1)).start()
started = time.monotonic()
result = solver.solve((), SolveRequest(seconds=600))
took = time.monotonic() - started
assert result.stopped_by == "budget" and result.frontier, result.stopped_by
assert handoff.requested()
handoff.clear()
assert not handoff.requested()
rest = sum(solver.solve(s.path, SolveRequest()).count for s in result.frontier)
assert result.count + rest == 9356
print(f"{took:.3f}")
"""


@pytest.mark.parametrize("which", [0, 1], ids=["kernel", "bitboard"])
def test_a_signal_handled_in_c_stops_the_search_and_is_seen_as_a_request(which):
    """handle_signal: the signal sets both engines' stop flags from C (no Python handler
    runs while the search holds no GIL), so the search hands back its frontier soon after
    it came — the split law holds — and requested() tells; clear() undoes it.  In a
    process of its own: the handler stays for the process's life."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", _SIGNALLED, str(root), str(which)], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert float(out.stdout) < 5.0  # stopped by the signal, not by the 600 s budget
