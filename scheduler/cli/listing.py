"""Stored solutions as the commands show them, one way for ``solve --all`` / ``--first``
and ``solutions RUN``: numbered from 1 in ledger order (``solution 3:``), JSON entries
with their 0-based ``index`` (what ``--offset`` counts), SVG files named by run and number.
"""
from __future__ import annotations

import os
from typing import Any, Iterable

import click

from .render import plural

#: a stored solution as :func:`scheduler.queries.iter_solutions` yields it:
#: (0-based index in ledger order, subproblem id, option ids)
Row = tuple[int, int, tuple[int, ...]]


def svg_name(run_id: int, index: int, label: str = "solution") -> str:
    """The file name of a solution's picture: ``run7-solution-000001.svg`` (a ``--where``
    match's: ``run7-match-000001.svg``)."""
    return f"run{run_id}-{label}-{index + 1:06d}.svg"


def echo_text(problem, rows: Iterable[Row], label: str = "solution") -> None:
    """``solution N:`` (``match N:`` for ``--where``) and the solution as text, a blank
    line after each."""
    for index, _, options in rows:
        click.echo(f"{label} {index + 1}:")
        click.echo(problem.render_text(options))
        click.echo()


def json_entries(problem, rows: Iterable[Row]) -> list[dict[str, Any]]:
    """One object per solution: its index, subproblem, option ids and text, and what the
    model adds (a crossword's ``grid``): :func:`scheduler.queries.solution_entry`."""
    from ..queries import solution_entry

    return [solution_entry(problem, index, sub, options) for index, sub, options in rows]


def write_svgs(problem, run_id: int, rows: Iterable[Row], out: str, label: str = "solution") -> int:
    """Write each solution's picture into the directory ``out``; how many were written."""
    os.makedirs(out, exist_ok=True)
    n = 0
    for index, _, options in rows:
        with open(os.path.join(out, svg_name(run_id, index, label)), "w", encoding="utf-8") as f:
            f.write(problem.render_svg(options) or "")
        n += 1
    return n


def echo_rows(problem, run_id: int, rows: list[Row], fmt: str, out: str | None, label: str = "solution") -> None:
    """A page of stored solutions as ``solutions`` prints it: text (:func:`echo_text`),
    SVG files in ``out`` (:func:`write_svgs`), or SVG pictures on stdout."""
    if fmt == "text":
        echo_text(problem, rows, label)
    elif out:
        click.echo(f"{plural(write_svgs(problem, run_id, rows, out, label), 'SVG file')} in {out}")
    else:
        for _, _, options in rows:
            click.echo(problem.render_svg(options) or "")
