"""Commands that read the ledger: ``runs``, ``show``, ``solutions``, ``export``, and the
built-in library: ``problems``."""
from __future__ import annotations

import contextlib
import csv
import json

import click

from ..states import RunStatus
from . import listing, matching, render
from .app import App, CLIError, cli
from .options import db_option, json_option


@cli.command()
@click.option("--limit", type=click.IntRange(min=1), default=30, show_default=True, metavar="N",
              help="list at most N runs")
@click.option("--status", type=click.Choice([s.value for s in RunStatus]),
              help="only the runs with this status (with --prune: prune only these)")
@click.option("--prune", is_flag=True,
              help="delete the finished runs (done, failed, cancelled) with all their rows; lists them and "
                   "deletes nothing without --yes")
@click.option("--yes", is_flag=True, help="with --prune: delete them (and list what was deleted)")
@db_option
@json_option
@click.pass_obj
def runs(app: App, limit: int, status: str | None, prune: bool, yes: bool) -> None:
    """The runs in the ledger, newest first (the ledger's URL on the first line)."""
    if yes and not prune:
        raise click.UsageError("--yes goes with --prune")
    if prune:
        _prune(app, status, yes)
        return
    direct = app.direct_reads()  # without SQLAlchemy where it can (scheduler.read_direct)
    if direct is not None:
        with contextlib.closing(direct):
            rows, url = direct.list_runs(limit=limit, status=status), direct.shown_url
    else:
        from ..queries import list_runs

        rows, url = list_runs(app.ledger(existing=True), limit=limit, status=status), app.ledger_url()
    if app.as_json:
        app.echo_json(rows)
    else:
        click.echo(f"ledger {url}: {render.plural(len(rows), 'run')}"
                   + (" (newest first)" if len(rows) > 1 else ""))
        if rows:
            render.runs_table(rows)


def _prune(app: App, status: str | None, yes: bool) -> None:
    """``runs --prune``: list the finished runs (or those of ``--status``), delete them with ``--yes``."""
    from ..ledger.removal import FINISHED, delete_runs, prunable_runs

    if status == RunStatus.RUNNING:
        raise click.UsageError("--prune never deletes running runs (cancel them first)")
    ledger = app.ledger(existing=True)
    found = prunable_runs(ledger, [status] if status else FINISHED)
    deleted = delete_runs(ledger, [r.run_id for r in found]) if yes else []
    if app.as_json:
        app.echo_json({"ledger": app.ledger_url(), "deleted": yes,
                       "runs": [{"run_id": r.run_id, "problem": r.problem, "status": r.status} for r in found]})
        return
    which = "deleted" if yes else "would delete"
    click.echo(f"ledger {app.ledger_url()}: {which} {render.plural(len(found), 'run')}"
               + (":" if found else ""))
    for r in found:
        click.echo(f"  run {r.run_id} {r.problem} — {r.status}")
    if found and not deleted:
        click.echo("nothing deleted yet: add --yes to delete them")


@cli.command()
@click.argument("run_ids", type=int, nargs=-1, required=True, metavar="RUN...")
@db_option
@json_option
@click.pass_obj
def delete(app: App, run_ids: tuple[int, ...]) -> None:
    """Delete runs with their subproblems, solutions, statistics and verifications, in one
    transaction (a running run is refused: cancel it first)."""
    from ..ledger.removal import delete_runs

    deleted = delete_runs(app.ledger(existing=True), run_ids)
    if app.as_json:
        app.echo_json({"ledger": app.ledger_url(), "deleted": [r.run_id for r in deleted]})
        return
    for r in deleted:
        click.echo(f"deleted run {r.run_id} {r.problem} ({r.status}) from {app.ledger_url()}")


@cli.command()
@click.argument("run_id", type=int)
@db_option
@json_option
@click.pass_obj
def show(app: App, run_id: int) -> None:
    """One run: totals, status, method, timings, throughput, slowest subproblems, sizes."""
    s = None
    direct = app.direct_reads()  # without SQLAlchemy where it can (scheduler.read_direct)
    if direct is not None:
        with contextlib.closing(direct):
            s, url = direct.run_details(run_id), direct.shown_url
    if s is None:  # (a crossword's finished run: its problem reads its solutions)
        from ..queries import run_details

        s, url = run_details(app.ledger(existing=True), run_id), app.ledger_url()
    if app.as_json:
        app.echo_json({**render.run_json(s), "ledger": url})
    else:
        click.echo(render.show_text(s, url))


def _stored_solutions_or_say(ledger, run_id: int) -> None:
    """A run that stored no solutions (a count) is an error that says how to store them."""
    from ..ledger import get_run
    from ..run_options import Mode

    run = get_run(ledger, run_id)
    if not Mode(run.mode).listing:
        raise CLIError(f"run {run_id} was a {run.mode}: it stored no solutions (to store them, solve it again "
                       f"with --all, or --first N: tilecensus solve {run.name} --all)")


@cli.command()
@click.argument("run_id", type=int)
@click.option("--limit", type=click.IntRange(min=0), default=10, show_default=True, metavar="N",
              help="print at most N solutions")
@click.option("--offset", type=click.IntRange(min=0), default=0, metavar="N", help="skip the first N solutions")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "svg"]), default="text", show_default=True,
              help="text pictures, JSON objects, or SVG pictures")
@click.option("--out", type=click.Path(file_okay=False), metavar="DIR", help="with --format svg: write files here")
@click.option("--where", "where", multiple=True, metavar="EXPR",
              help="only the solutions that match, e.g. 'X@2,3', 'I touches 0,0', '1,1 in {X,I}', joined by "
                   "and / or / not; repeated: all must hold (docs/cli.md)")
@click.option("--count", "count_only", is_flag=True, help="with --where: print only how many match")
@db_option
@click.option("--json", "as_json", is_flag=True, help="same as --format json")
@click.pass_obj
def solutions(app: App, run_id: int, limit: int, offset: int, fmt: str, out: str | None, where: tuple[str, ...],
              count_only: bool, as_json: bool) -> None:
    """A run's stored solutions (from --all / --first), or those that match --where."""
    from ..queries import iter_solutions, problem_of, solution_rows

    if count_only and not where:
        raise click.UsageError("--count goes with --where (show counts a run's stored solutions)")
    ledger = app.ledger(existing=True)
    _stored_solutions_or_say(ledger, run_id)
    problem = problem_of(ledger, run_id)
    fmt = "json" if as_json else fmt
    if fmt == "svg" and not problem.has_pictures:
        raise CLIError(f"{problem.kind} problems have no SVG pictures")
    if where:
        matching.show_matches(app, ledger, run_id, problem, where, count_only=count_only, fmt=fmt, out=out,
                              limit=limit, offset=offset)
        return
    if fmt == "json":
        app.echo_json(solution_rows(ledger, run_id, problem, limit=limit, offset=offset))
        return
    listing.echo_rows(problem, run_id, list(iter_solutions(ledger, run_id, limit=limit, offset=offset)), fmt, out)


@cli.command()
@click.argument("run_id", type=int)
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True,
              help="JSON lines, or CSV with a header row")
@click.option("--what", type=click.Choice(["solutions", "subproblems"]), default="solutions", show_default=True,
              help="the stored solutions, or the subproblems with their results")
@click.option("--output", "-o", type=click.File("w"), default="-", help="file (default: stdout)")
@db_option
@click.pass_obj
def export(app: App, run_id: int, fmt: str, what: str, output) -> None:
    """Export a run's solutions (option ids) or subproblems as JSON lines or CSV."""
    from ..ledger import get_run
    from ..queries import iter_solutions, iter_subproblems

    ledger = app.ledger(existing=True)
    get_run(ledger, run_id)
    if what == "solutions":
        _stored_solutions_or_say(ledger, run_id)
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

    entries = library()
    patterns = library_patterns()
    if app.as_json:
        from ..queries import library_listing

        app.echo_json(library_listing())
        return
    width = max((len(e.name) for e in entries), default=10)
    kind = None
    for e in entries:
        if e.spec.get("kind") != kind:
            kind = e.spec.get("kind")
            click.echo(f"{'' if kind == entries[0].spec.get('kind') else chr(10)}{kind}:")
        known = render.known_counts(e.known)
        click.echo(f"  {e.name:<{width}}  {e.description}" + (f"  [{known}]" if known else ""))
    if patterns:
        click.echo("\npatterns:")
        for p in patterns:
            click.echo(f"  {p.pattern:<{width}}  {p.description}")
