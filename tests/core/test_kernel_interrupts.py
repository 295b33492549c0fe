"""A signal whose Python handler raises ends a long C search with that exception
(core/_interrupt.h): the kernel, the bitboard search and the level count each hear it
while the GIL is released, and the next call counts as before."""
from __future__ import annotations

import os
import signal
import threading

import pytest

from core.bitboard import BitboardSolver
from core.frontier import LevelCounter
from core.kernel import KernelSolver
from core.library import load


class Stop(Exception):
    """What the test's signal handler raises."""


@pytest.fixture
def raising_on_sigusr1():
    def handler(signum, frame):
        raise Stop(signum)

    previous = signal.signal(signal.SIGUSR1, handler)
    yield
    signal.signal(signal.SIGUSR1, previous)


def _signalled_during(call) -> None:
    """Run ``call`` (a search that would take hours) with SIGUSR1 sent to this process
    0.3 s in; it must end with the handler's exception."""
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGUSR1))
    timer.start()
    try:
        with pytest.raises(Stop):
            call()
    finally:
        timer.cancel()


def test_the_kernel_search_ends_with_the_handlers_exception(raising_on_sigusr1):
    ec = load("dominoes-10x10").exact_cover()  # 258 billion tilings: no memo, no end in sight
    solver = KernelSolver(ec, memo=False)
    _signalled_during(solver.count)
    assert KernelSolver(load("dominoes-6x6").exact_cover(), memo=False).count() == 6728


def test_a_budgeted_kernel_search_ends_the_same_way(raising_on_sigusr1):
    from core.search import SolveRequest

    solver = KernelSolver(load("dominoes-10x10").exact_cover(), memo=False)
    _signalled_during(lambda: solver.solve((), SolveRequest(seconds=3600)))


def test_the_bitboard_search_ends_with_the_handlers_exception(raising_on_sigusr1):
    ec = load("dominoes-10x10").exact_cover()
    _signalled_during(BitboardSolver(ec).count)
    assert BitboardSolver(load("dominoes-6x6").exact_cover()).count() == 6728


def test_the_level_count_ends_with_the_handlers_exception(raising_on_sigusr1):
    counter = LevelCounter(load("dominoes-20x20").exact_cover())
    _signalled_during(lambda: counter.count([]))
    assert LevelCounter(load("dominoes-6x6").exact_cover()).count([]).count == 6728


def test_ctrl_c_is_a_keyboard_interrupt_in_the_search():
    solver = KernelSolver(load("dominoes-10x10").exact_cover(), memo=False)
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            solver.count()
    finally:
        timer.cancel()
