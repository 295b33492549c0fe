"""A command's process yielding the CPU to the workers it started or fed.

Linux keeps a nice value per thread, so a process steps back thread by thread; the values
before are returned, to be set back where the process may (a privileged one: an ordinary
one can only go nicer).  Best effort: a thread whose priority cannot be read or set keeps
the one it had.
"""
from __future__ import annotations

import os

#: how far a command steps back (a nice value)
STEP_BACK = 10


def step_back(by: int = STEP_BACK) -> dict[int, int]:
    """Every thread of this process ``by`` nicer (19 at most); their nice values before."""
    try:
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:  # not Linux: the process as a whole
        threads = [0]
    before = {}
    for tid in threads:
        try:
            nice = os.getpriority(os.PRIO_PROCESS, tid)
            os.setpriority(os.PRIO_PROCESS, tid, min(19, nice + by))
            before[tid] = nice
        except OSError:  # gone meanwhile, or not permitted
            pass
    return before


def restore(before: dict[int, int]) -> None:
    """The nice values of :func:`step_back` back, where permitted and the thread is still
    there."""
    for tid, nice in before.items():
        try:
            os.setpriority(os.PRIO_PROCESS, tid, nice)
        except OSError:  # not permitted, or the thread ended
            pass
