"""``tilecensus census RUN``: what a ``--census`` run found (:mod:`scheduler.census_views`),
as text (:mod:`.census_text`), JSON or CSV."""
from __future__ import annotations

import csv
import sys

import click

from .app import App, cli
from .options import db_option


@cli.command()
@click.argument("run_id", type=int, metavar="RUN")
@click.option("--piece", metavar="P", help="only this piece's heatmap and placements")
@click.option("--json", "as_json", is_flag=True, help="print JSON")
@click.option("--csv", "as_csv", is_flag=True,
              help="print CSV: a row per piece and cell (polyforms), else per option")
@db_option
@click.pass_obj
def census(app: App, run_id: int, piece: str | None, as_json: bool, as_csv: bool) -> None:
    """A --census run's census: per piece a heatmap over the board, per cell the pieces that
    stand there, the forced and impossible placements."""
    from ..census_views import csv_rows, load_view, view_json
    from .census_text import census_lines

    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")
    view = load_view(app.ledger(existing=True), run_id)
    if as_json:
        app.echo_json(view_json(view, piece))
    elif as_csv:
        columns, rows = csv_rows(view, piece)
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(columns)
        out.writerows(rows)
    else:
        click.echo("\n".join(census_lines(view, piece)))
