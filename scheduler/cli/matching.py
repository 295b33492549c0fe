"""``solutions RUN --where EXPR``: the stored solutions that match a query
(:mod:`core.where_syntax`), found through the ledger's index of options per solution
(:mod:`scheduler.where_sql`) and shown as ``solutions`` shows any page of them."""
from __future__ import annotations

import click

from . import listing, render
from .app import App


def show_matches(app: App, ledger, run_id: int, problem, texts: tuple[str, ...], *, count_only: bool, fmt: str,
                 out: str | None, limit: int, offset: int) -> None:
    """Print how many stored solutions match, then the page asked for (text, JSON, SVG)."""
    from core.where_options import resolve
    from core.where_syntax import parse_all

    from ..queries import count_solutions, solution_entry
    from ..where_sql import find_matches, iter_matches

    query = parse_all(texts)
    resolved = resolve(problem, query)
    found = find_matches(ledger, run_id, resolved)
    matched = found.count
    if count_only:
        if fmt == "json":
            app.echo_json({"run_id": run_id, "where": str(query), "matches": matched,
                           "stored": count_solutions(ledger, run_id)})
        else:
            click.echo(matched)
        return
    page = list(iter_matches(ledger, run_id, resolved, limit=limit, offset=offset, found=found))
    if fmt == "json":
        app.echo_json([{**solution_entry(problem, m.index, m.subproblem, m.options), "solution_id": m.solution_id}
                       for m in page])
        return
    rows = [(m.index, m.subproblem, m.options) for m in page]
    if fmt == "text":
        stored = count_solutions(ledger, run_id)
        shown = f", {offset + 1}-{offset + len(page)} below" if page else ""
        click.echo(f"run {run_id}: {matched:,} of {render.plural(stored, 'stored solution')} match {query}{shown}\n")
    listing.echo_rows(problem, run_id, rows, fmt, out, label="match")
