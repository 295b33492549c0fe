"""Asking this process's running search to hand back its frontier now.

Work stealing for the local pool: when one pool process runs out of work while another is
deep in a subproblem, the parent asks the busy one (SIGUSR1: see
:class:`scheduler.interrupts.PoolProcessSignals`), whose handler calls :func:`request`.
The search stops at its next clock reading as if its time budget had run out: it records
what it counted and hands back the untried siblings along its stack — the donated
frontier of the subproblem contract — which the idle process takes at once, instead of
waiting for the budget to run out (a second or more of one process idle at the end of a
run).

A pool process hears the request as a signal handled in C (:func:`handle_signal`).
The request acts on the searches that solve subproblems (the kernel and the bitboard),
only under a time budget (without one there is no frontier to hand back), and stays until
:func:`clear` — called before each subproblem, so that a request that reached a process
between two of them does not cut the next one short.  Orbit counts stop with their inner
search (their budget stop hands on the representatives not started).
"""
from __future__ import annotations

from . import _bitboard, _kernel


def request() -> None:
    """Make the running (and any later) search under a time budget stop at its next clock
    reading and hand back its frontier, until :func:`clear`.  Safe in a signal handler."""
    _kernel.request_stop()
    _bitboard.request_stop()


def clear() -> None:
    """Let searches run to their budgets again."""
    _kernel.clear_stop()
    _bitboard.clear_stop()


def requested() -> bool:
    """Whether a request came since :func:`clear`."""
    return _kernel.stop_is_requested()


def handle_signal(signum: int) -> None:
    """From now on, the signal ``signum`` is a request (:func:`request`), made by a
    handler in C: the running search stops at its next clock reading (at most 1,024
    nodes), where a Python handler would run only at its next interrupt check, 16,384
    nodes (on the pentacube box 6.5 ms, which each steal of work waited for about half
    of).  No Python handler runs for it: :func:`requested` tells."""
    _kernel.handle_stop_signal(signum, [_bitboard.stop_flag()])
