"""The polyform model: polyominoes and polycubes filling or packing a board.

``core.polyform.solutions(problem)`` yields solutions lazily; ``problem_from_text``
builds a problem from TOML or tile-puzzle text.  See docs/models.md (the model) and
docs/formats.md (the files).
"""
from .board import Board
from .problem import Placement, PolyformProblem, PieceKind, Solution, problem_from_text, solutions
from . import classics  # noqa: F401  (registers the classics with the library)
from .sets import named_set, set_names
from .shapes import Shape

__all__ = [
    "Board", "Placement", "PieceKind", "PolyformProblem", "Shape", "Solution",
    "named_set", "problem_from_text", "set_names", "solutions",
]
