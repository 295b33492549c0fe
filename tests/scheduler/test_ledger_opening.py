"""The ledger opened beside the planning (scheduler/cli/opening.py): the ledger that
opens is the one returned; a ledger that fails stops the planning — a C search included —
within a second and its error is the one raised; a planning error with a good ledger is
the planning's."""
from __future__ import annotations

import threading
import time

import pytest

from core.library import load
from core.solver_options import Method, SolverOptions
from core.engines import solver_for
from scheduler.cli.opening import LedgerOpening
from scheduler.errors import LedgerError


def failing_after(seconds: float):
    def open_ledger():
        time.sleep(seconds)
        raise LedgerError("cannot reach the database test://nowhere")
    return open_ledger


def test_the_opened_ledger_is_returned():
    with LedgerOpening(lambda: "the ledger") as opening:
        assert opening.ledger() == "the ledger"


def test_a_failing_ledger_stops_a_c_search_within_a_second():
    # the 6x10 by search: a couple of seconds of C with the GIL released
    solver = solver_for(load("pentomino-6x10"), SolverOptions(method=Method.SEARCH, symmetry=False))
    started = time.monotonic()
    with pytest.raises(LedgerError, match="cannot reach"):
        with LedgerOpening(failing_after(0.2)) as opening:
            solver.solve(())
            opening.ledger()
    assert time.monotonic() - started < 1.5


def test_a_failing_ledger_stops_python_work_too():
    started = time.monotonic()
    with pytest.raises(LedgerError):
        with LedgerOpening(failing_after(0.1)):
            while time.monotonic() - started < 10:
                pass
    assert time.monotonic() - started < 1.5


def test_a_planning_error_with_a_good_ledger_is_the_planning_error():
    with pytest.raises(ValueError, match="bad plan"):
        with LedgerOpening(lambda: "the ledger"):
            raise ValueError("bad plan")


def test_the_ledger_error_wins_when_both_fail():
    with pytest.raises(LedgerError):
        with LedgerOpening(failing_after(0.05)):
            raise ValueError("bad plan")


def test_a_failure_after_the_planning_is_raised_by_ledger():
    with pytest.raises(LedgerError):
        with LedgerOpening(failing_after(0.2)) as opening:
            opening.ledger()


def test_outside_the_main_thread_the_ledger_opens_first():
    out = {}

    def body():
        with LedgerOpening(lambda: threading.current_thread().name) as opening:
            out["opened_in"] = opening.ledger()
    t = threading.Thread(target=body, name="caller")
    t.start()
    t.join()
    assert out["opened_in"] == "caller"
