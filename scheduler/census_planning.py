"""How a ``--census`` run is searched: a method that can take a census, said so.

A census (core/census.py) is taken by the kernel's search or by levels below each
subproblem, by orbits of the symmetry group where the count goes so; the bitboard search
and a count by levels in shares (by slices of the states, by primes) take none, and
``--distinct`` counts classes, not solutions.  So a census run never goes through the
method race of a plain count (:func:`core.engines.choose_method`), which may pick those:
an automatic choice becomes the kernel's ``levels="auto"`` — by levels below a subproblem
where its cover is worth trying (:func:`core.frontier.worth_trying`), else by search —
and a method asked for that takes no census is refused, naming the one that does.
"""
from __future__ import annotations

from dataclasses import replace

from core.errors import ProblemError
from core.solver_options import Method, SolverOptions

#: the engines whose solvers take a census (core.kernel.KernelSolver, core.reference)
CENSUS_ENGINES = ("kernel", "reference")

#: what ``show`` and the run's options say of an automatic choice
AUTO_REASON = ("census: by levels below each subproblem where the cover is worth it, else by search "
               "(the bitboard search and the level shares take no census)")


def census_solver_options(target: str, asked: SolverOptions, engine: str) -> tuple[SolverOptions, str | None]:
    """The solver options of a census run of ``target`` searched by ``engine``, and why
    (None: the method was asked for); a :class:`ProblemError` where none can take one."""
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
        return replace(asked, method=Method.AUTO), AUTO_REASON
    return asked, None
