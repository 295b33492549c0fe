"""The progress bar: finished weight of the tree, solutions so far, nodes/s, ETA."""
from __future__ import annotations

import sys
import time

from rich.console import Console
from rich.progress import BarColumn, Progress as Bar, TextColumn

from .ledger import Progress


def eta_text(p: Progress) -> str:
    if p.weight_done >= 1.0 or p.status != "running":
        return "00:00:00"
    if p.weight_done <= 0 or p.elapsed <= 0:
        return "--:--:--"
    left = p.elapsed * (1.0 - p.weight_done) / p.weight_done
    return time.strftime("%H:%M:%S", time.gmtime(min(left, 99 * 3600)))


def rate_text(p: Progress) -> str:
    rate = p.nodes / p.elapsed if p.elapsed > 0 else 0.0
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if rate >= scale:
            return f"{rate / scale:.1f}{unit}"
    return f"{rate:.0f}"


class ProgressView:
    """A rich progress bar on stderr, redrawn on each :meth:`update` (no thread)."""

    def __init__(self, run_id: int, enabled: bool | None = None, console: Console | None = None):
        self.console = console or Console(stderr=True)
        self.enabled = self.console.is_terminal if enabled is None else enabled
        self.run_id = run_id
        self._bar: Bar | None = None
        self._task = None

    def __enter__(self) -> "ProgressView":
        if self.enabled:
            self._bar = Bar(
                TextColumn(f"run {self.run_id}"),
                BarColumn(),
                TextColumn("{task.percentage:>6.2f}%"),
                TextColumn("{task.fields[solutions]} solutions"),
                TextColumn("{task.fields[rate]} nodes/s"),
                TextColumn("{task.fields[subs]}"),
                TextColumn("ETA {task.fields[eta]}"),
                console=self.console,
                auto_refresh=False,
                transient=False,
            )
            self._bar.start()
            self._task = self._bar.add_task("run", total=1.0, solutions=0, rate="0", eta="--:--:--", subs="")
        return self

    def update(self, p: Progress) -> None:
        if self._bar is None:
            return
        done = p.states.get("done", 0)
        self._bar.update(
            self._task,
            completed=min(p.weight_done, 1.0),
            solutions=f"{p.solutions:,}",
            rate=rate_text(p),
            eta=eta_text(p),
            subs=f"{done}/{p.subproblems} subproblems",
        )
        self._bar.refresh()

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()


def stderr_is_terminal() -> bool:
    return sys.stderr.isatty()
