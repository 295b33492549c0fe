"""What the page and its JSON API read from the ledger, through :mod:`scheduler.queries`
(the same functions as ``runs``/``show``/``solutions --json``, so the API answers what
the command line prints), plus the ETA and the paging of a run's solutions.

Nothing here writes: the site's ledger is opened read-only (:func:`scheduler.db.open_reader`).
"""
from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from typing import Any

from ..db import Ledger
from ..ledger import get_run, progress
from ..progress import eta_seconds
from ..queries import count_solutions, list_runs, run_details, solution_rows
from ..states import RunStatus
from .pictures import ProblemCache

#: solutions on one page of the gallery
PAGE_SIZE = 24


def eta_of(ledger: Ledger, run_id: int, status: str) -> float | None:
    """Seconds left of a running run (as the progress bar says), 0 for one that is over,
    None while nothing tells."""
    if status != RunStatus.RUNNING:
        return 0.0
    left = eta_seconds(progress(ledger, run_id))
    return None if left is None else round(left, 1)


def runs(ledger: Ledger, *, limit: int, status: str | None, problem: str | None) -> list[dict[str, Any]]:
    """``runs --json`` (filtered by status and by a part of the problem's name), each
    with its ``eta_seconds``."""
    rows = list_runs(ledger, limit=limit, status=status, problem=problem)
    for r in rows:
        r["eta_seconds"] = eta_of(ledger, r["run_id"], r["status"])
    return rows


def run(ledger: Ledger, run_id: int) -> dict[str, Any]:
    """``show --json``, with ``eta_seconds``."""
    s = run_details(ledger, run_id)
    s["eta_seconds"] = eta_of(ledger, run_id, s["status"])
    return s


class StoredCounts:
    """How many solutions each run stores: counted through the index each time while the
    run may still store more, remembered once it is done (a done run never changes)."""

    def __init__(self, ledger: Ledger):
        self.ledger = ledger
        self._done: dict[int, int] = {}
        self._lock = threading.Lock()

    def __call__(self, run_id: int) -> int:
        with self._lock:
            if run_id in self._done:
                return self._done[run_id]
        status = get_run(self.ledger, run_id).status
        n = count_solutions(self.ledger, run_id)
        if status == RunStatus.DONE:
            with self._lock:
                self._done[run_id] = n
        return n


@dataclass(frozen=True)
class Page:
    """One page of a run's stored solutions: which page, of how many, and its rows
    (``solutions --json`` rows)."""

    number: int
    size: int
    total: int
    rows: list[dict[str, Any]]

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.size))

    @property
    def offset(self) -> int:
        return (self.number - 1) * self.size


def solutions_page(ledger: Ledger, problems: ProblemCache, stored: StoredCounts, run_id: int, number: int,
                   size: int = PAGE_SIZE) -> Page:
    """Page ``number`` (from 1) of the run's stored solutions: an index range scan, never
    the whole table."""
    problem = problems(run_id)
    total = stored(run_id)
    rows = solution_rows(ledger, run_id, problem, limit=size, offset=(number - 1) * size)
    return Page(number, size, total, rows)
