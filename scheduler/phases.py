"""Where a command's time went, as ``show`` prints it: ``start`` (the process's start to
the command's work: the interpreter, the imports, reading the command line), ``plan``
(reading the problem, choosing how to count it, its symmetry, splitting it), ``count``
(the planning trial, and the pool's run with the results it records) and ``write``
(opening the ledger, writing the run).  ``solve`` keeps them in the run's plan statistics
under ``times`` (seconds)."""
from __future__ import annotations

import os
import time
from contextlib import contextmanager
from typing import Iterator

#: the phases, in order
PHASES = ("start", "plan", "count", "write")


def process_age() -> float | None:
    """Seconds since this process started, to the kernel's clock tick (1/100 s): from
    ``/proc/self/stat`` on Linux; None where there is none."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2:].split()  # the name, in parentheses, may hold spaces
    started = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22, starttime: ticks since boot
    return max(0.0, time.clock_gettime(time.CLOCK_BOOTTIME) - started)


class Phases:
    """The clock of one command: made when its work begins (``start`` is then the
    process's age), each phase timed by :meth:`timing`."""

    def __init__(self) -> None:
        self.start = process_age()
        self.seconds = {phase: 0.0 for phase in PHASES[1:]}
        self._since: dict[str, float] = {}

    @contextmanager
    def timing(self, phase: str) -> Iterator[None]:
        """Inside: the time goes to ``phase``."""
        self._since[phase] = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[phase] += time.perf_counter() - self._since.pop(phase)

    def move(self, seconds: float, source: str, target: str) -> None:
        """``seconds`` timed as ``source`` were ``target``'s (the trial's count, inside
        the planning)."""
        seconds = min(seconds, self.seconds[source])
        self.seconds[source] -= seconds
        self.seconds[target] += seconds

    def to_json(self) -> dict[str, float | None]:
        """The phases so far (those being timed, up to now), in seconds."""
        now = time.perf_counter()
        out: dict[str, float | None] = {"start": None if self.start is None else round(self.start, 3)}
        for phase, seconds in self.seconds.items():
            out[phase] = round(seconds + (now - self._since[phase] if phase in self._since else 0.0), 4)
        return out


def phases_line(times: dict[str, float | None]) -> str:
    """The phases in one line: ``start 0.09 s, plan 0.05 s, count 0.03 s, write 0.01 s``."""
    return ", ".join(f"{phase} {'?' if times.get(phase) is None else format(times[phase], '.3f')} s"
                     for phase in PHASES)
