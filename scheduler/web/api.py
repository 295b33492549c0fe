"""The JSON API: the data of the ``--json`` outputs (``runs``, ``show``, ``solutions``,
``census``, ``problems``), each with what a page adds (``eta_seconds``; the series behind the
run's charts).  Documented in docs/web.md."""
from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from ..queries import library_listing, run_series, solution_rows
from ..shapes import run_json
from . import reading
from .params import int_param, run_id_of, status_param

#: the most rows one request returns
MAX_RUNS, MAX_SOLUTIONS = 500, 1000


class JSON(JSONResponse):
    """Plain JSON; values it does not know (a datetime in a run's stats) as text."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, default=str, separators=(",", ":")).encode("utf-8")


def runs(request: Request) -> JSON:
    """``runs --json``: ``?status=``, ``?problem=`` (part of the name), ``?limit=``."""
    site = request.app.state.site
    return JSON(reading.runs(site.ledger, limit=int_param(request, "limit", 50, 1, MAX_RUNS),
                             status=status_param(request), problem=request.query_params.get("problem") or None))


def run(request: Request) -> JSON:
    """``show --json`` of one run."""
    return JSON(run_json(reading.run(request.app.state.site.ledger, run_id_of(request))))


def series(request: Request) -> JSON:
    """Progress, nodes and node rate over time; subproblems by size."""
    return JSON(run_series(request.app.state.site.ledger, run_id_of(request)))


def solutions(request: Request) -> JSON:
    """``solutions --json``: ``?offset=``, ``?limit=``; the stored total in ``X-Total-Count``."""
    site = request.app.state.site
    run_id = run_id_of(request)
    problem = site.problems(run_id)
    rows = solution_rows(site.ledger, run_id, problem, limit=int_param(request, "limit", reading.PAGE_SIZE, 0,
                                                                          MAX_SOLUTIONS),
                         offset=int_param(request, "offset", 0, 0, 2**62))
    return JSON(rows, headers={"X-Total-Count": str(site.stored(run_id))})


def census(request: Request) -> JSON:
    """``census RUN --json``: ``?piece=`` for one piece's heat and placements."""
    from ..census_views import load_view, view_json

    site = request.app.state.site
    view = load_view(site.ledger, run_id_of(request), site.problems)
    return JSON(view_json(view, request.query_params.get("piece") or None))


def problems(request: Request) -> JSON:
    """``problems --json``: the built-in library and the name patterns."""
    return JSON(library_listing())


def routes() -> list[Route]:
    return [
        Route("/api/runs", runs),
        Route("/api/runs/{run_id:int}", run),
        Route("/api/runs/{run_id:int}/series", series),
        Route("/api/runs/{run_id:int}/solutions", solutions),
        Route("/api/runs/{run_id:int}/census", census),
        Route("/api/problems", problems),
    ]
