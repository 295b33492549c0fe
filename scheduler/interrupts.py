"""Ctrl-C and SIGTERM for the commands that work here, and for their pool processes.

The command (the pool's parent) decides: the first SIGINT or SIGTERM raises
:class:`Interrupted` in its main thread — a C search running there hears it within a
second (``core/_interrupt.h``) — and the command winds the run down (records what
finished, marks the run ``interrupted``, exits 130 or 143).  A second one while it winds
down calls the hurries registered (kill the pool) and exits at once, silently.

Pool processes ignore SIGINT (a Ctrl-C reaches the whole foreground process group; only
the parent decides) and take SIGTERM as the parent's request to stop: the search running
in them ends with :class:`SearchStopped` within a second, and they start no other.
SIGUSR1 is the parent's request for work (:data:`HANDOFF_SIGNAL`): the running search
hands back its frontier now (:mod:`core.handoff`) for a process that has none.
"""
from __future__ import annotations

import os
import signal
import sys
from contextlib import contextmanager
from typing import Callable, Iterator

from core import handoff

#: the signals that interrupt a command
STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: the signal by which the local pool's parent asks a busy pool process for work
HANDOFF_SIGNAL = signal.SIGUSR1


class Interrupted(KeyboardInterrupt):
    """The first SIGINT or SIGTERM a command received."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_status(self) -> int:
        """The shell's status of a process ended by this signal: 130 (SIGINT), 143 (SIGTERM)."""
        return 128 + self.signum


@contextmanager
def interruptible() -> Iterator[None]:
    """Inside: the first SIGINT/SIGTERM (unless ignored already) raises
    :class:`Interrupted`; any later one calls the hurries registered (:func:`hurried_by`)
    and ends the process at once with 128 + its number (no traceback, no cleanup: what
    they do not stop is left to the leases).  The
    handlers before are restored on the way out, unless a signal came: the process is then
    on its way out, and later ones are ignored (Python's own exit would otherwise restore
    the default handlers, and a second Ctrl-C there would end it by the signal)."""
    heard: list[int] = []

    def handler(signum: int, frame) -> None:
        if heard:
            for hurry in list(_HURRIES):
                hurry()
            os._exit(128 + signum)
        heard.append(signum)
        raise Interrupted(signum)

    # a signal ignored from the start stays ignored (``nohup``, a shell's background job)
    previous = {s: signal.signal(s, handler) for s in STOPPING_SIGNALS if signal.getsignal(s) != signal.SIG_IGN}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, signal.SIG_IGN if heard else h)


class SearchStopped(Exception):
    """A pool process was asked to stop (SIGTERM) while it searched, or before."""


class PoolProcessSignals:
    """A pool process's signals: SIGINT ignored; SIGTERM stops the search (in
    :meth:`searching`) or the next one.  One per process, made by the pool initializer."""

    def __init__(self) -> None:
        self.stop_requested = False
        self._searching = False
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, self._on_term)
        # a request for work stops the running search at its next clock reading, from C
        handoff.handle_signal(HANDOFF_SIGNAL)

    @staticmethod
    def work_asked() -> bool:
        """Whether the parent asked for work since the running task started."""
        return handoff.requested()

    def _on_term(self, signum: int, frame) -> None:
        self.stop_requested = True
        if self._searching:  # elsewhere (idle, between tasks) raising would break the pool's loop
            raise SearchStopped("the pool's parent asked this process to stop")

    @contextmanager
    def searching(self) -> Iterator[None]:
        """Around one task: raises :class:`SearchStopped` at once when a stop was asked
        for, and when one is asked for inside."""
        if self.stop_requested:
            raise SearchStopped("the pool's parent asked this process to stop")
        handoff.clear()  # a request that came between two tasks was for the one before
        self._searching = True
        try:
            yield
        finally:
            self._searching = False


def release_frames(exc: BaseException) -> None:
    """Let go of what the frames a signal's exception crossed hold, before the ledger is
    written again.  SQLAlchemy invalidates, and does not close, a connection whose
    statement a KeyboardInterrupt cut; its cursor stays referenced from those frames with
    its transaction open, and on SQLite the next write waits for that lock until its
    busy timeout (60 s) and fails ("database is locked", seen 2026-12-02 on Ctrl-C while a
    result of the 200x200 domino board was written).  Frames still running are left as
    they are."""
    import traceback  # (only after a signal: traceback and textwrap are 1-2 ms of every command's start)

    traceback.clear_frames(exc.__traceback__)


def leave_now(status: int) -> None:
    """End an interrupted command whose run is recorded: stdout and stderr flushed, then
    out at once with ``status``, without the interpreter's shutdown.  That shutdown waits
    for the local pool's reading thread, which may be in the middle of reading a result
    its process sent just before it was stopped (a deep tree's frontier: seconds on the
    200x200 domino board, the signal long answered), and then frees every object the run
    made; nothing of either is needed once the ledger holds what finished."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe or stream: nothing more to say there
            pass
    os._exit(status)


_HURRIES: list[Callable[[], None]] = []


@contextmanager
def hurried_by(hurry: Callable[[], None]) -> Iterator[None]:
    """Inside: a second signal under :func:`interruptible` also calls ``hurry`` (e.g.
    kill the pool processes this block started) before the process ends."""
    _HURRIES.append(hurry)
    try:
        yield
    finally:
        _HURRIES.remove(hurry)
