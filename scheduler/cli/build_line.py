"""The progress line shown on stderr while a big problem is built (core reports how far
it is through :mod:`core.build_progress`).

Nothing is shown for a build that ends within :data:`DELAY` seconds, so small problems
print exactly what they printed before.  On a terminal the line is rewritten in place
and cleared when the build ends; elsewhere (a log file) a plain line is written at most
every :data:`LOG_INTERVAL` seconds.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, TextIO

#: seconds of building before the line appears
DELAY = 1.0
#: seconds between two lines when stderr is not a terminal
LOG_INTERVAL = 5.0
#: seconds between two redraws on a terminal
REDRAW = 0.1


class BuildLine:
    """A watcher for :func:`core.build_progress.watching` that writes the line: one per
    stage of the build that has lasted :data:`DELAY` seconds, gone when the stage ends."""

    def __init__(self, enabled: Callable[[], bool] = lambda: True, stream: TextIO | None = None):
        self.enabled = enabled
        self.stream = stream
        self.stage: str | None = None
        self.started = self.last = 0.0
        self.shown = 0  # the width of the line on a terminal (0: none there)
        self.logged = False  # a plain line was written for this stage

    def __call__(self, stage: str, done: int, total: int) -> None:
        now = time.monotonic()
        if stage != self.stage or done == 0:
            self.close()
            self.stage, self.started, self.last = stage, now, 0.0
        if done >= total:
            if self.logged:
                self._write(f"building the problem: {stage} done in {now - self.started:.1f} s", end=True)
            self.close()
            self.stage = None
            return
        if done == 0 or now - self.started < DELAY or not self.enabled():
            return
        if now - self.last < (REDRAW if self._tty() else LOG_INTERVAL):
            return
        self.last = now
        self._write(f"building the problem: {stage} {done:,} of {total:,} ({100 * done / total:.0f}%), "
                    f"{now - self.started:.0f} s")

    def close(self) -> None:
        """Clear the line from the terminal (what follows is the command's own output)."""
        if self.shown:
            stream = self._stream()
            stream.write("\r" + " " * self.shown + "\r")
            stream.flush()
        self.shown = 0
        self.logged = False

    def _write(self, text: str, end: bool = False) -> None:
        stream = self._stream()
        if self._tty():
            if end:
                return
            stream.write("\r" + text.ljust(self.shown))
            self.shown = len(text)
        else:
            stream.write(text + "\n")
            self.logged = True
        stream.flush()

    def _stream(self) -> TextIO:
        return self.stream or sys.stderr

    def _tty(self) -> bool:
        return self._stream().isatty()
