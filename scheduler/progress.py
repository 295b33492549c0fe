"""The progress bar: finished weight of the tree, solutions so far, nodes/s, ETA.

With a tree size estimated before the run (Knuth's estimator, stored on the run), the
ETA is the estimated nodes of the share of the tree not yet searched — and of the
verifications still to do on a ``--verify`` run — at the node rate so far.  Without an
estimate, or once the finished part of the tree shows the estimate is far off, it
extrapolates the finished weight of the tree instead.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .summary import Progress
from .states import RunStatus

if TYPE_CHECKING:
    from rich.console import Console
    from rich.live import Live
    from rich.text import Text


#: once this share of the tree is finished, an estimate that is off by more than
#: :data:`ESTIMATE_TRUST` times (nodes per unit of finished weight) is set aside
EVIDENCE_WEIGHT = 0.05
ESTIMATE_TRUST = 4.0


def estimate_holds(p: Progress) -> bool:
    """Whether the estimate still describes this run: it does until the finished part of
    the tree shows a node density more than :data:`ESTIMATE_TRUST` times off (memoised
    counting searches far fewer nodes than the tree has)."""
    if p.weight_done < EVIDENCE_WEIGHT or p.nodes <= 0:
        return True
    density = p.nodes / p.weight_done
    return p.estimated_nodes / ESTIMATE_TRUST <= density <= p.estimated_nodes * ESTIMATE_TRUST


def left_by_nodes(p: Progress) -> float | None:
    """Seconds left: the estimated nodes of the unfinished share of the tree (times
    1 + P on a ``--verify P`` run) plus the nodes of the open verifications, at the node
    rate so far.  None without an estimate that holds, or before any node is searched."""
    if not p.estimated_nodes or p.elapsed <= 0 or not estimate_holds(p):
        return None
    done = p.nodes + p.verifications.get("nodes", 0)
    if done <= 0:
        return None
    unfinished = 1.0 - min(max(p.weight_done, 0.0), 1.0)
    left = unfinished * p.estimated_nodes * (1.0 + (p.verify_fraction or 0.0)) + p.verifications.get("open_nodes", 0)
    return left * p.elapsed / done


def left_by_weight(p: Progress) -> float | None:
    """Seconds left from the finished weight of the tree, or None before any finishes."""
    if p.weight_done <= 0 or p.elapsed <= 0:
        return None
    return p.elapsed * (1.0 - p.weight_done) / p.weight_done


def eta_seconds(p: Progress) -> float | None:
    """Seconds left (0 when the run is over), None when nothing tells yet.  A count by
    levels, whose shares finish all at once, is timed by its probe's projection until one
    does."""
    if p.status != RunStatus.RUNNING or (p.weight_done >= 1.0 and not _verifications_open(p)):
        return 0.0
    by_nodes = left_by_nodes(p)
    if by_nodes is not None:
        return by_nodes
    if p.projected_seconds is not None and p.weight_done <= 0:
        return max(0.0, p.projected_seconds - p.elapsed)
    return left_by_weight(p)


def _verifications_open(p: Progress) -> bool:
    return p.verifications.get("pending", 0) + p.verifications.get("leased", 0) > 0


def eta_text(p: Progress) -> str:
    left = eta_seconds(p)
    if left is None:
        return "--:--:--"
    return time.strftime("%H:%M:%S", time.gmtime(min(left, 99 * 3600)))


def subproblems_text(p: Progress) -> str:
    """``done/total subproblems``, and ``, verified n/m`` on a ``--verify`` run."""
    text = f"{p.states.get('done', 0)}/{p.subproblems} subproblems"
    if p.verify_fraction:
        c = p.verifications
        made = c.get("pending", 0) + c.get("leased", 0) + c.get("done", 0)
        text += f", verified {c.get('done', 0)}/{made}"
        if c.get("mismatches"):
            text += f" ({c['mismatches']} MISMATCH)"
    return text


def rate_text(p: Progress) -> str:
    rate = p.nodes / p.elapsed if p.elapsed > 0 else 0.0
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if rate >= scale:
            return f"{rate / scale:.1f}{unit}"
    return f"{rate:.0f}"


#: the fields of the line, most important first: at a narrow width the last go first
#: ("bar" is the bar itself, at least :data:`MIN_BAR` columns, growing into what is left)
FIELD_ORDER = ("percent", "eta", "solutions", "bar", "run", "subproblems", "rate")
#: the order the kept fields are shown in
DISPLAY_ORDER = ("run", "bar", "percent", "solutions", "rate", "subproblems", "eta")
MIN_BAR, MAX_BAR = 10, 40
#: stands for the bar in the line :func:`bar_line` returns
BAR = "\0"


def bar_fields(p: Progress) -> dict[str, str]:
    """The text of each field of the line for this progress (the bar aside)."""
    return {
        "run": f"run {p.run_id}",
        "percent": f"{100 * min(max(p.weight_done, 0.0), 1.0):.1f}%",
        "solutions": f"{p.solutions:,} solution{'' if p.solutions == 1 else 's'}",
        "rate": f"{rate_text(p)} nodes/s",
        "subproblems": subproblems_text(p),
        "eta": f"ETA {eta_text(p)}",
    }


def bar_line(p: Progress, width: int) -> tuple[str, int]:
    """The progress line for a terminal ``width`` columns wide, and how wide its bar is
    (0: dropped).  Whole fields only, never one cut short: the least important
    (:data:`FIELD_ORDER`) are dropped until the rest fit; the bar (at :data:`BAR` in the
    line) takes the room left, up to :data:`MAX_BAR`."""
    texts = {**bar_fields(p), "bar": "-" * MIN_BAR}
    kept = list(FIELD_ORDER)

    def length(names: list[str]) -> int:
        return sum(len(texts[n]) for n in names) + 2 * (len(names) - 1)

    while kept and length(kept) > width:
        kept.pop()
    bar = min(MIN_BAR + width - length(kept), MAX_BAR) if "bar" in kept else 0
    parts = [BAR if n == "bar" else texts[n] for n in DISPLAY_ORDER if n in kept]
    return "  ".join(parts), bar


class ProgressView:
    """The bar on stderr, one line redrawn on each :meth:`update` (no thread), fitted to
    the terminal's width by :func:`bar_line`.  Rich is loaded only for a bar that may be
    shown (a run without one starts faster)."""

    def __init__(self, run_id: int, enabled: bool | None = None, console: Console | None = None):
        if console is None and enabled is not False:
            from rich.console import Console

            console = Console(stderr=True)
        self.console = console
        self.enabled = console.is_terminal if enabled is None else enabled
        self.run_id = run_id
        self._live: Live | None = None

    def __enter__(self) -> "ProgressView":
        if self.enabled:
            from rich.live import Live

            self._live = Live(console=self.console, auto_refresh=False, transient=False)
            self._live.start()
            self.update(Progress(run_id=self.run_id, status="running", weight_done=0.0, solutions=0, nodes=0))
        return self

    def render(self, p: Progress) -> Text:
        """The line for this progress at the console's width."""
        from rich.text import Text

        line, bar = bar_line(p, self.console.width - 1)
        text = Text()
        before, _, after = line.partition(BAR)
        text.append(before)
        if bar:
            done = round(bar * min(max(p.weight_done, 0.0), 1.0))
            text.append("━" * done, style="bar.complete")
            text.append("━" * (bar - done), style="bar.back")
            text.append(after)
        return text

    def update(self, p: Progress) -> None:
        if self._live is None:
            return
        self._live.update(self.render(p), refresh=True)

    def __exit__(self, *exc) -> None:
        if self._live is not None:
            self._live.stop()
