"""Commands that read the ledger: ``runs``, ``show``, ``solutions``, ``export``, and the
built-in library: ``problems``."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import click

from ..states import RunStatus
from . import render
from .app import App, CLIError, cli
from .options import db_option, json_option


@cli.command()
@click.option("--limit", type=click.IntRange(min=1), default=30, show_default=True)
@click.option("--status", type=click.Choice([s.value for s in RunStatus]))
@db_option
@json_option
@click.pass_obj
def runs(app: App, limit: int, status: str | None) -> None:
    """The runs in the ledger, newest first."""
    from ..queries import list_runs

    rows = list_runs(app.ledger(), limit=limit, status=status)
    if app.as_json:
        app.echo_json(rows)
    else:
        render.runs_table(rows)


@cli.command()
@click.argument("run_id", type=int)
@db_option
@json_option
@click.pass_obj
def show(app: App, run_id: int) -> None:
    """One run: totals, status, method, timings, throughput, slowest subproblems, sizes."""
    from ..queries import run_details

    s = run_details(app.ledger(), run_id)
    if app.as_json:
        app.echo_json(s)
    else:
        click.echo(render.show_text(s))


@cli.command()
@click.argument("run_id", type=int)
@click.option("--limit", type=click.IntRange(min=0), default=10, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "svg"]), default="text", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), metavar="DIR", help="with --format svg: write files here")
@db_option
@click.option("--json", "as_json", is_flag=True, help="same as --format json")
@click.pass_obj
def solutions(app: App, run_id: int, limit: int, offset: int, fmt: str, out: str | None, as_json: bool) -> None:
    """A run's stored solutions (from --all / --first)."""
    from ..queries import iter_solutions, problem_of, solution_rows

    ledger = app.ledger()
    problem = problem_of(ledger, run_id)
    fmt = "json" if as_json else fmt
    if fmt == "svg" and not problem.has_pictures:
        raise CLIError(f"{problem.kind} problems have no SVG pictures")
    if fmt == "json":
        app.echo_json(solution_rows(ledger, run_id, problem, limit=limit, offset=offset))
        return
    rows = list(iter_solutions(ledger, run_id, limit=limit, offset=offset))
    if fmt == "text":
        for i, _, sol in rows:
            click.echo(f"solution {i + 1}:")
            click.echo(problem.render_text(sol))
            click.echo()
    else:
        for i, _, sol in rows:
            svg = problem.render_svg(sol) or ""
            if out:
                Path(out).mkdir(parents=True, exist_ok=True)
                (Path(out) / f"run{run_id}-{i + 1:06d}.svg").write_text(svg, encoding="utf-8")
            else:
                click.echo(svg)
        if out:
            click.echo(f"{len(rows)} SVG files in {out}")


@cli.command()
@click.argument("run_id", type=int)
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True)
@click.option("--what", type=click.Choice(["solutions", "subproblems"]), default="solutions", show_default=True)
@click.option("--output", "-o", type=click.File("w"), default="-", help="file (default: stdout)")
@db_option
@click.pass_obj
def export(app: App, run_id: int, fmt: str, what: str, output) -> None:
    """Export a run's solutions (option ids) or subproblems as JSON lines or CSV."""
    from ..ledger import get_run
    from ..queries import iter_solutions, iter_subproblems

    ledger = app.ledger()
    get_run(ledger, run_id)
    if what == "solutions":
        rows = ({"index": i, "subproblem": sub, "options": list(sol)} for i, sub, sol in iter_solutions(ledger, run_id))
        columns = ["index", "subproblem", "options"]
    else:
        rows = iter_subproblems(ledger, run_id)
        columns = ["id", "path", "weight", "parent", "state", "attempts", "solutions", "distinct", "nodes",
                   "seconds", "stopped_by", "donated", "worker"]
    if fmt == "jsonl":
        for row in rows:
            output.write(json.dumps(row) + "\n")
    else:
        w = csv.writer(output)
        w.writerow(columns)
        for row in rows:
            w.writerow([" ".join(map(str, row[c])) if isinstance(row[c], list) else row[c] for c in columns])


@cli.command()
@json_option
@click.pass_obj
def problems(app: App) -> None:
    """The built-in named problems (name, description, known counts) and name patterns."""
    from core.library import library, library_patterns

    if app.as_json:
        from ..queries import library_listing

        app.echo_json(library_listing())
        return
    entries = library()
    patterns = library_patterns()
    width = max((len(e.name) for e in entries), default=10)
    for e in entries:
        known = ", ".join(f"{k} {v:,}" for k, v in (e.known or {}).items())
        click.echo(f"{e.name:<{width}}  {e.description}" + (f"  [{known}]" if known else ""))
    if patterns:
        click.echo("\npatterns:")
        for p in patterns:
            click.echo(f"{p.pattern:<{width}}  {p.description}")
