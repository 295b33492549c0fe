"""``tilecensus --help`` without importing click.

Importing click alone takes about as long as the whole ``--help`` may (0.05 s of 0.1 s
on the project's 2-core machine, 2026-12-03: click 8.5 loads ``inspect``, ``typing``,
``uuid`` and ``datetime``).  So the group's help, as click renders it on a terminal at
least :data:`WIDE` columns wide (or no terminal), is kept in :data:`HELP_FILE`, and
:func:`scheduler.cli.main` prints it for a bare ``tilecensus --help``; every other
command line, and a narrower terminal, goes through click.

The file is click's own rendering, written by ``python -m scheduler.cli.help_text``; a
test fails when it no longer matches (a command added, a docstring changed), saying so.
"""
from __future__ import annotations

import os
import sys

HELP_FILE = os.path.join(os.path.dirname(__file__), "help.txt")
#: click wraps help at the terminal's width, at most 80 columns, less 2 (78 from 80 up)
WIDE = 80


def terminal_columns() -> int:
    """The terminal's width as click measures it (:func:`shutil.get_terminal_size`:
    ``$COLUMNS``, else standard output's terminal, else 80), without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):  # no terminal: click's fallback
            columns = 0
    return columns or WIDE


def stored() -> str | None:
    """The group's help as click prints it here, or None where the terminal is narrower
    than :data:`WIDE` (click wraps it otherwise)."""
    if terminal_columns() < WIDE:
        return None
    with open(HELP_FILE, encoding="utf-8") as f:
        return f.read()


def rendered() -> str:
    """The group's help, rendered by click at :data:`WIDE` columns (every command's
    module loaded for its one-line help)."""
    import click

    from .app import cli

    # (a width given is the text's width; measured, click takes the terminal's less 2)
    with click.Context(cli, info_name="tilecensus", terminal_width=WIDE - 2) as ctx:
        return ctx.get_help() + "\n"


if __name__ == "__main__":
    with open(HELP_FILE, "w", encoding="utf-8") as out:
        out.write(rendered())
    print(f"wrote {HELP_FILE}")
