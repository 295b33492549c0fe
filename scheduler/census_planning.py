"""How a ``--census`` run is searched: a method that can take a census, said so.

A census (core/census.py) is taken by the kernel's search or by levels below each
subproblem, by orbits of the symmetry group where the count goes so; the bitboard search
and a count by levels in shares (by slices of the states, by primes) take none, and
``--distinct`` counts classes, not solutions.  So a census run never goes through the
method race of a plain count (:func:`core.engines.choose_method`), which may pick those:
an automatic choice counts by levels below each subproblem where the cover is worth it
(:func:`core.frontier.worth_trying`), else searches — and a method asked for that takes
no census is refused, naming the one that does.

Levels below each subproblem, not the kernel's ``levels="auto"``, which searches each
subproblem's first nodes before it tries levels: the one-sided 5x18's census took 67.6 s
that way against 22.2 s by levels (its plain count 13.4 s; 2026-12-07, load 4).
"""
from __future__ import annotations

from dataclasses import replace

from core.errors import ProblemError
from core.solver_options import Method, SolverOptions

#: the engines whose solvers take a census (core.kernel.KernelSolver, core.reference)
CENSUS_ENGINES = ("kernel", "reference")

#: what ``show`` and the run's options say of an automatic choice
LEVELS_REASON = ("census: by levels below each subproblem, the cover's band being narrow enough (the bitboard "
                 "search and the level shares take no census)")
SEARCH_REASON = ("census: by search, the cover's band too wide for levels below its subproblems (the bitboard "
                 "search and the level shares take no census)")


def census_solver_options(target: str, asked: SolverOptions, engine: str,
                          levels_worth: bool) -> tuple[SolverOptions, str | None]:
    """The solver options of a census run of ``target`` searched by ``engine``, and why
    (None: the method was asked for); a :class:`ProblemError` where none can take one.
    ``levels_worth``: whether levels are worth counting below a subproblem of its cover."""
    if asked.distinct:
        raise ProblemError(f"{target}: --census counts every solution, not classes: not with --distinct")
    if engine not in CENSUS_ENGINES:
        raise ProblemError(f"{target}: --census: the {engine} engine takes no census (the kernel's search and "
                           "count by levels do)")
    if asked.method is Method.BITBOARD:
        raise ProblemError(f"{target}: --census: the bitboard search takes no census; use --by-search or "
                           "--by-levels, or neither")
    if asked.level_plan is not None:
        raise ProblemError(f"{target}: --census: a count by levels in shares takes no census; leave out "
                           "--level-shares")
    if asked.method is Method.AUTO:
        if levels_worth:
            return replace(asked, method=Method.LEVELS), LEVELS_REASON
        return replace(asked, method=Method.SEARCH), SEARCH_REASON
    return asked, None
