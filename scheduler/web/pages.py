"""The HTML pages (runs, one run, its solutions, the problem library), the charts of a
run as SVG images, one solution's picture, and a page of solutions as JSON or CSV."""
from __future__ import annotations

import csv
import io
import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from ..queries import iter_solutions, library_listing, run_series
from ..run_options import RunOptions
from ..states import RunStatus
from . import charts, reading
from .params import int_param, run_id_of, status_param
from .pictures import data_uri, heatmaps, library_board, solution_svg

#: a picture served alone may draw, but never run a script
PICTURE_CSP = "default-src 'none'; style-src 'unsafe-inline'"


def _page(request: Request, template: str, **context: Any) -> Response:
    return request.app.state.site.templates.TemplateResponse(request, template, context)


def _svg(svg: str) -> Response:
    return Response(svg, media_type="image/svg+xml", headers={"Content-Security-Policy": PICTURE_CSP,
                                                              "Cache-Control": "no-store"})


def runs_page(request: Request) -> Response:
    """The runs, newest first, filtered by status and problem; the script keeps it live."""
    site = request.app.state.site
    status, problem = status_param(request), request.query_params.get("problem") or ""
    rows = reading.runs(site.ledger, limit=int_param(request, "limit", 50, 1, 500), status=status,
                        problem=problem or None)
    return _page(request, "runs.html", rows=rows, status=status or "", problem=problem,
                 statuses=[s.value for s in RunStatus])


def run_page(request: Request) -> Response:
    """Everything ``show`` prints, and the run's charts."""
    site = request.app.state.site
    s = reading.run(site.ledger, run_id_of(request))
    options = RunOptions.from_json(s["options"])
    summary = s.get("summary")
    summary_picture = None
    if summary and summary.get("picture"):
        summary_picture = data_uri(charts.summary_grid(summary["picture"],
                                                       title=f"what {summary['grids']} grids agree on"))
    return _page(request, "run.html", s=s, solver=options.solver, method_reason=options.method_reason,
                 options_text=json.dumps({k: v for k, v in s["options"].items() if v is not None}),
                 summary_picture=summary_picture, census=_census(site, s, options))


def _census(site, s: dict[str, Any], options: RunOptions) -> dict[str, Any] | None:
    """What the run's page shows of a finished ``--census`` run: the totals of its forced
    and impossible options and, for a polyform problem, a heatmap per piece."""
    if not options.census or s["status"] != RunStatus.DONE:
        return None
    from ..census_views import load_view

    view = load_view(site.ledger, s["run_id"], site.problems)
    return {"total": view.total, "options": len(view.census.per_option), "forced": len(view.forced()),
            "impossible": len(view.impossible()), "heatmaps": heatmaps(view) if view.is_polyform else []}


def _time_chart(series: dict[str, Any], key: str, title: str, y_label: str, y_max: float | None = None) -> str:
    points = [(p["seconds"], p[key]) for p in series["timeline"] if p[key] is not None]
    return charts.line_chart(points, title=title, x_label="seconds since the run began", y_label=y_label,
                             y_max=y_max)


def chart(request: Request) -> Response:
    """One of a run's charts: progress, rate, sizes, slowest, estimate."""
    site = request.app.state.site
    run_id, name = run_id_of(request), request.path_params["name"]
    if name == "progress":
        return _svg(_time_chart(run_series(site.ledger, run_id), "progress", "share of the tree finished",
                                "progress", 1.0))
    if name == "rate":
        return _svg(_time_chart(run_series(site.ledger, run_id), "nodes_per_second", "nodes per second",
                                "nodes/s"))
    if name == "sizes":
        sizes = run_series(site.ledger, run_id)["sizes"]
        bars = [(f"{charts.number_text(b['low'])}..{charts.number_text(b['high'])} nodes", b["subproblems"])
                for b in sizes]
        return _svg(charts.bar_chart(bars, title="finished subproblems by size", unit="subproblems"))
    s = reading.run(site.ledger, run_id)
    if name == "slowest":
        bars = [(f"#{r['id']}", r["seconds"]) for r in s["slowest"]]
        return _svg(charts.bar_chart(bars, title="slowest subproblems", unit="s"))
    if name == "estimate":
        e = s.get("estimate")
        if not e:
            return _svg(charts.empty_chart("estimate", "no estimate was made before this run"))
        n = e["nodes"]
        return _svg(charts.estimate_chart(low=n["low"], estimate=n["estimate"], high=n["high"],
                                          found=float(s["nodes"]), unit="nodes"))
    raise HTTPException(404, f"no chart {name!r} (progress, rate, sizes, slowest, estimate)")


def solutions_page(request: Request) -> Response:
    """A page of the run's stored solutions, drawn, with their text."""
    site = request.app.state.site
    run_id = run_id_of(request)
    page = reading.solutions_page(site.ledger, site.problems, site.stored, run_id,
                                  int_param(request, "page", 1, 1, 2**40))
    if page.number > page.pages:
        raise HTTPException(404, f"run {run_id} has {page.pages} page(s) of stored solutions, not {page.number}")
    problem = site.problems(run_id)
    cards = []
    for row in page.rows:
        svg = solution_svg(problem, tuple(row["options"]))
        cards.append({**row, "picture": None if svg is None else data_uri(svg)})
    return _page(request, "solutions.html", run_id=run_id, problem=problem.name, page=page, cards=cards)


def solution_picture(request: Request) -> Response:
    """One stored solution's picture (``index`` from 0, as ``solutions --json`` numbers them)."""
    site = request.app.state.site
    run_id, index = run_id_of(request), int(request.path_params["index"])
    problem = site.problems(run_id)
    if not problem.has_pictures:
        raise HTTPException(404, f"{problem.kind} problems have no pictures")
    found = list(iter_solutions(site.ledger, run_id, limit=1, offset=index))
    if not found:
        raise HTTPException(404, f"run {run_id} has no stored solution {index}")
    return _svg(solution_svg(problem, found[0][2]) or "")


def download(request: Request) -> Response:
    """One page of solutions (``?page=``) as a JSON or CSV file."""
    site = request.app.state.site
    run_id, fmt = run_id_of(request), request.path_params["fmt"]
    if fmt not in ("json", "csv"):
        raise HTTPException(404, f"solutions come as .json or .csv, not .{fmt}")
    page = reading.solutions_page(site.ledger, site.problems, site.stored, run_id,
                                  int_param(request, "page", 1, 1, 2**40))
    name = f"run{run_id}-solutions-page{page.number}.{fmt}"
    headers = {"Content-Disposition": f'attachment; filename="{name}"'}
    if fmt == "json":
        return Response(json.dumps(page.rows), media_type="application/json", headers=headers)
    out = io.StringIO()
    w = csv.writer(out)
    w.writerow(["index", "subproblem", "options", "text"])
    for r in page.rows:
        w.writerow([r["index"], r["subproblem"], " ".join(map(str, r["options"])), r["text"]])
    return Response(out.getvalue(), media_type="text/csv", headers=headers)


def problems_page(request: Request) -> Response:
    """The built-in library: each problem's board (an image loaded when scrolled to) and
    known counts."""
    listing = library_listing()
    for p in listing["problems"]:
        p["has_picture"] = library_board(p["name"]) is not None
    return _page(request, "problems.html", problems=listing["problems"], patterns=listing["patterns"])


def board_picture(request: Request) -> Response:
    """A built-in problem's board."""
    name = request.path_params["name"]
    svg = library_board(name)
    if svg is None:
        raise HTTPException(404, f"no picture of a built-in problem {name!r}")
    return _svg(svg)


def routes() -> list[Route]:
    return [
        Route("/", runs_page),
        Route("/runs", runs_page),
        Route("/runs/{run_id:int}", run_page),
        Route("/runs/{run_id:int}/charts/{name}.svg", chart),
        Route("/runs/{run_id:int}/solutions", solutions_page),
        Route("/runs/{run_id:int}/solutions/{index:int}.svg", solution_picture),
        Route("/runs/{run_id:int}/solutions.{fmt:str}", download),
        Route("/problems", problems_page),
        Route("/problems/{name}.svg", board_picture),
    ]
