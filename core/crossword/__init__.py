"""Crossword grids: rebuild every grid that gives a clue string, or count every legal grid.

Start with :func:`core.library.load` (``crossword-23``, a ``.toml`` file) or build a
:class:`Puzzle` and search it with :class:`CrosswordSolver`.  The modules: ``grid``
(squares, numbers, clue strings), ``rules``, ``symmetry``, ``puzzle`` (validated input),
``search`` (the solver), ``transfer`` (a second, independent counter: row by row; its C
twin ``_transfer.c``), ``peel`` (the same for the square symmetries: layer by layer; its
C twin ``_peel.c``), ``transfer_solver`` (the transfer as a splittable counting engine),
``parse`` (TOML, grid text, JSON), ``puz_file``, ``ipuz_file`` and ``xd_file`` (the grids
of published files), ``render``, ``library``.
"""
from ..catalog import register_kind
from .grid import Grid, Number
from .library import register as _register_library
from .problem import CrosswordProblem, summarise
from .puzzle import Puzzle
from .rules import Rules, violation
from .search import CrosswordSolver

register_kind("crossword", CrosswordProblem)
_register_library()

__all__ = ["CrosswordProblem", "CrosswordSolver", "Grid", "Number", "Puzzle", "Rules", "summarise", "violation"]
