"""The crossword model as a :class:`core.problem.Problem`."""
from __future__ import annotations

from typing import Any, Iterable, Sequence

from ..engines import Engine, SolverOptions, register_engine
from ..errors import PathError
from ..problem import Problem
from ..search import Path
from . import symmetry as sym
from .grid import Grid
from .parse import puzzle_from_spec
from .render import grid_svg, grid_text, summarise_grids
from .rules import violation
from .compiled import CompiledCrosswordSolver
from .search import CrosswordSolver
from .transfer_solver import TransferSolver
from .transfer_solver import prunes_by_table, transfer_is_slow, refusal as transfer_refusal

class CrosswordProblem(Problem):
    """Rebuild crossword grids from their clue numbers, or count every legal grid."""

    kind = "crossword"
    #: the search in C, then the same search in Python (its reference); the transfer
    #: method (counts only: core/crossword/transfer_solver.py; --by-levels or chosen
    #: automatically for whole counts)
    engines = ("crossword", "crossword-python", "transfer")

    def __init__(self, spec: dict[str, Any], name: str | None = None):
        super().__init__(spec, name)
        self.puzzle = puzzle_from_spec(spec)
        self._solver: CrosswordSolver | None = None

    def grid(self, solution: Path | Grid) -> Grid:
        """The grid of a solution path (or the grid itself)."""
        if isinstance(solution, Grid):
            return solution
        if self._solver is None:
            self._solver = CrosswordSolver(self.puzzle)
        return self._solver.grid(tuple(solution))

    def is_solution(self, solution: Path | Grid) -> bool:
        """Independent check: the rules, the symmetry, the clue string, the start."""
        try:
            g = self.grid(solution)
        except PathError:
            return False
        pz = self.puzzle
        if violation(g, pz.rules) is not None or not sym.has_symmetry(g.black, g.rows, g.cols, pz.symmetry):
            return False
        if pz.clues is not None and g.clue_string() != pz.clues:
            return False
        if pz.start is not None and (g.first_square() != pz.start or any(not g.black[q] for q in range(pz.start - 1))):
            return False
        if pz.numbered is not None:
            nums = {n.row * g.cols + n.col for n in g.numbering()}
            if any((q in nums) != f for q, f in enumerate(pz.numbered)):
                return False
        return True

    def render_text(self, solution: Sequence[int] | Grid) -> str:
        return grid_text(self.grid(solution))

    def render_svg(self, solution: Sequence[int] | Grid) -> str:
        return grid_svg(self.grid(solution))

    def solution_json(self, solution: Sequence[int] | Grid) -> dict:
        """``{"grid": [rows of "#" (black) and "." (white)]}``."""
        return {"grid": self.grid(solution).to_text().splitlines()}

    def describe(self) -> str:
        return self.puzzle.describe()

    def summarise(self, solutions: Iterable[Sequence[int] | Grid]) -> dict:
        """See :func:`core.crossword.summarise`."""
        return summarise(self, solutions)

    def given_path(self) -> Path | None:
        """The path of the given grid (a grid file's own grid) in the search tree, or None
        when there is no given grid or it is no solution.  The search follows the labels
        the grid gives square by square (:meth:`CrosswordSolver.path_of`), and the leaf it
        reaches is checked twice: by the search's own test and by :meth:`is_solution`."""
        given = self.puzzle.given
        if given is None:
            return None
        if self._solver is None:
            self._solver = CrosswordSolver(self.puzzle)
        path = self._solver.path_of(given)
        if path is None or not self.is_solution(path) or self.grid(path) != given:
            return None
        return path

    def given_found(self, stored: Iterable[Sequence[int]] | None = None) -> bool | None:
        """Whether the given grid is among the grids of a finished run (None: no grid was
        given).  For a run over the whole tree (``stored`` None: a count, or a listing of
        every grid) the search visits every leaf and counts every solution leaf, so the
        given grid is among them exactly when its path is a solution path (:meth:`given_path`;
        any other exact counter counts the same grids: those :meth:`is_solution` accepts).
        For a partial listing (``stored``: the solutions a ``--first N`` run stored) it is
        whether one of them is that grid."""
        given = self.puzzle.given
        if given is None:
            return None
        if self.given_path() is None:
            return False
        if stored is None:
            return True
        return any(self.grid(s) == given for s in stored)


def summarise(problem: CrosswordProblem, solutions: Iterable[Sequence[int] | Grid]) -> dict:
    """Summary of a set of solutions (paths or grids): ``grids`` (how many), ``rows``,
    ``cols``, ``black_in_every`` and ``white_in_every`` (1-based [row, col] lists),
    ``undecided`` (squares that differ), ``picture`` (``#`` black in every grid, ``.`` white
    in every grid, ``?`` differs; None for no grid), and ``given_found`` (whether the grid
    the clues were taken from is among them) when a grid was given."""
    pz = problem.puzzle
    given = pz.given
    found = False

    def grids():
        nonlocal found
        for s in solutions:
            g = problem.grid(s)
            if given is not None and g.black == given.black:
                found = True
            yield g

    out = summarise_grids(grids(), pz.rows, pz.cols)
    if given is not None:
        out["given_found"] = found
    return out


def _crossword_solver(problem: Problem, options: SolverOptions) -> CrosswordSolver:
    return CompiledCrosswordSolver(problem.puzzle)  # type: ignore[attr-defined]


def _crossword_python_solver(problem: Problem, options: SolverOptions) -> CrosswordSolver:
    return CrosswordSolver(problem.puzzle)  # type: ignore[attr-defined]


register_engine(Engine("crossword", "the crossword search: square by square, numbers and rules checked as it goes "
                       "(C)", frozenset(), _crossword_solver))
register_engine(Engine("crossword-python", "the crossword search in Python, the reference of the C one",
                       frozenset(), _crossword_python_solver))


def _transfer_solver(problem: Problem, options: SolverOptions) -> TransferSolver:
    return TransferSolver(problem.puzzle)  # type: ignore[attr-defined]


register_engine(Engine("transfer", "the crossword transfer method, counts only: row by row in C (square "
                       "symmetries: layer by layer, in C too), equal states merged",
                       frozenset({"method"}), _transfer_solver, counts_by_levels=True,
                       refusal=lambda problem: transfer_refusal(problem.puzzle),  # type: ignore[attr-defined]
                       levels_first=lambda problem: prunes_by_table(problem.puzzle),  # type: ignore[attr-defined]
                       search_first=lambda problem: transfer_is_slow(problem.puzzle)))  # type: ignore[attr-defined]
