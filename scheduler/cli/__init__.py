"""The ``tilecensus`` command line (click).

One module per group of commands, each attaching its commands to the group in :mod:`.app`:
:mod:`.running` (solve, submit, resume, cancel, watch), :mod:`.census` (census), :mod:`.reading`
(runs, show, solutions, export, delete, problems), :mod:`.estimate_verify` (estimate, verify),
:mod:`.service` (worker, scheduler, db), :mod:`.web` (web).  The group imports a module
when one of its commands is asked for (:data:`.app.COMMANDS`), and each module imports
little at the top and the rest inside its commands, so a command loads only what it uses.
Shared options live in :mod:`.options`, what is printed in :mod:`.render`.  This package
itself imports nothing: ``tilecensus --help`` is printed without click (:mod:`.help_text`).
"""
from __future__ import annotations

import gc
import sys

__all__ = ["CLIError", "cli", "main"]

#: the collector's first threshold for the command's life (Python's default is 700):
#: importing the modules a command uses allocates some hundred thousand objects, and at
#: 700 a young collection ran every few of them — a tenth of ``solve pentomino-6x10``'s
#: 0.4 s (measured 2026-12-03: 0.40 -> 0.36 s CPU).  Cycles are still collected, a
#: collection per this many net allocations, so a long-lived worker or web server holds
#: at most this many young objects more.
GC_YOUNG_THRESHOLD = 50_000


def main() -> None:
    """The console script ``tilecensus``."""
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
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
