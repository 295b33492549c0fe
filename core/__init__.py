"""tilecensus core: problems, exact cover, the compiled search kernel, splitting.

A pure library: no databases, queues or processes.  Start with
:func:`core.library.load` (a problem by name or file) and :meth:`Problem.solver`.
"""
from .errors import PathError, ProblemError
from .exact_cover import ExactCover
from .search import SolveResult, Solver, Stats, Subpath

__all__ = ["ExactCover", "PathError", "ProblemError", "SolveResult", "Solver", "Stats", "Subpath"]
