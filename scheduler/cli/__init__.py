"""The ``tilecensus`` command line (click).

One module per group of commands, each attaching its commands to the group in
:mod:`.app`: :mod:`.running` (solve, submit, resume, cancel, watch), :mod:`.reading`
(runs, show, solutions, export, delete, problems), :mod:`.estimate_verify` (estimate, verify),
:mod:`.service` (worker, scheduler, db), :mod:`.web` (web).  Shared options live in
:mod:`.options`, what is printed in :mod:`.render`.  Each module imports little at the top and the rest inside
its commands, so ``tilecensus --help`` starts fast.
"""
from . import estimate_verify, reading, running, service, web  # noqa: F401  (each attaches its commands)
from .app import CLIError, cli, main

__all__ = ["CLIError", "cli", "main"]
