"""Pictures of problems and solutions for the page: the models' own SVG drawings
(``Problem.render_svg``, the same as ``solutions --format svg``), cached problems, and
``data:`` URIs.

A model's SVG goes into the page only as an ``<img>`` (a ``data:`` URI, or a route with a
``Content-Security-Policy`` that forbids scripts), never inline in the HTML: an image
runs no script, whatever a problem file put into its labels.
"""
from __future__ import annotations

import base64
import functools
import threading
from collections import OrderedDict
from typing import Any

from core.errors import PathError
from core.problem import Problem

from ..db import Ledger
from ..queries import problem_of
from .charts import summary_grid


class ProblemCache:
    """The problems of the runs looked at lately, rebuilt once each (a run's spec never
    changes); at most ``size`` of them."""

    def __init__(self, ledger: Ledger, size: int = 32):
        self.ledger = ledger
        self.size = size
        self._problems: OrderedDict[int, Problem] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, run_id: int) -> Problem:
        with self._lock:
            if run_id in self._problems:
                self._problems.move_to_end(run_id)
                return self._problems[run_id]
        problem = problem_of(self.ledger, run_id)
        with self._lock:
            self._problems[run_id] = problem
            while len(self._problems) > self.size:
                self._problems.popitem(last=False)
        return problem


def data_uri(svg: str) -> str:
    """An SVG as a ``data:`` URI for an ``<img>``."""
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def solution_svg(problem: Problem, options: tuple[int, ...]) -> str | None:
    """The model's picture of one solution, or None for a model without pictures."""
    return problem.render_svg(options) if problem.has_pictures else None


def board_svg(problem: Problem) -> str | None:
    """The board before anything is placed: the model's picture of the empty path (a
    polyform board, a sudoku's givens, an edge-matching frame).  A crossword's grid is
    what is searched for, so its board is its size, every square undecided; None for a
    model without pictures."""
    if not problem.has_pictures:
        return None
    try:
        return problem.render_svg(())
    except PathError:  # the empty path is no picture in this model (crosswords)
        puzzle: Any = getattr(problem, "puzzle", None)
        if puzzle is None:
            raise
        return summary_grid(["?" * puzzle.cols] * puzzle.rows, title=f"{puzzle.rows}x{puzzle.cols} grid",
                            legend="every square to be decided")


@functools.lru_cache(maxsize=None)
def library_board(name: str) -> str | None:
    """The board of the built-in problem ``name`` (drawn once: the library does not change
    while the page runs), or None for an unknown name or a model without pictures."""
    from core.library import from_spec, library

    entry = next((e for e in library() if e.name == name), None)
    return None if entry is None else board_svg(from_spec(dict(entry.spec, name=entry.name)))


def heatmaps(view) -> list[dict[str, Any]]:
    """A census's heatmap of each piece (:class:`scheduler.census_views.CensusView` of a
    polyform run) as ``data:`` URIs: its name, the most solutions at one of its cells,
    the picture."""
    from core.polyform.heatmap import heatmap_svg

    board, total = view.problem.board, view.total
    out = []
    for heat in view.heats():
        top = max(heat.heat.values(), default=0)
        title = f"{heat.name}: darkest {top:,} of {total:,}"
        out.append({"name": heat.name, "top": top, "picture": data_uri(heatmap_svg(board, heat.heat, total, title))})
    return out
