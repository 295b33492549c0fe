"""The data files shipped with tilecensus: the built-in problems of ``tilecensus problems``
(polyform boards, sudoku grids, the seeds' worked examples, the crossword library).

One way to reach them, from every model: :func:`read_text` by file name.
"""
from __future__ import annotations

from pathlib import Path

#: the folder of the data files (this package's own folder)
FOLDER = Path(__file__).resolve().parent


def path(name: str) -> Path:
    """The path of the data file ``name`` (a plain file name, no folders)."""
    if Path(name).name != name:
        raise ValueError(f"not a data file name: {name!r}")
    return FOLDER / name


def read_text(name: str) -> str:
    """The text of the data file ``name``."""
    return path(name).read_text(encoding="utf-8")
