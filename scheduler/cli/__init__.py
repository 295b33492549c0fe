"""The ``tilecensus`` command line (click).

One module per group of commands, each attaching its commands to the group in :mod:`.app`:
:mod:`.running` (solve, submit, resume, cancel, watch), :mod:`.reading`
(runs, show, solutions, export, delete, problems), :mod:`.estimate_verify` (estimate, verify),
:mod:`.service` (worker, scheduler, db), :mod:`.web` (web).  The group imports a module
when one of its commands is asked for (:data:`.app.COMMANDS`), and each module imports
little at the top and the rest inside its commands, so a command loads only what it uses.
Shared options live in :mod:`.options`, what is printed in :mod:`.render`.  This package
itself imports nothing: ``tilecensus --help`` is printed without click (:mod:`.help_text`).
"""
from __future__ import annotations

import sys

__all__ = ["CLIError", "cli", "main"]


def main() -> None:
    """The console script ``tilecensus``."""
    if sys.argv[1:] == ["--help"]:
        from .help_text import stored

        text = stored()
        if text is not None:
            sys.stdout.write(text)
            return
    from .app import main as run

    run()


def __getattr__(name: str) -> object:
    """``cli`` and ``CLIError`` (:mod:`.app`), imported when first asked for."""
    if name in ("cli", "CLIError"):
        from . import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
