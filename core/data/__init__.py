"""The data files shipped with tilecensus: the built-in problems of ``tilecensus problems``
(polyform boards, sudoku grids, the seeds' worked examples, the crossword library).

One way to reach them, from every model: :func:`read_text` by file name.
"""
from __future__ import annotations

import os

#: the folder of the data files (this package's own folder; os.path, not pathlib, which a
#: small run's command would import for this alone: 2-3 ms of its start)
FOLDER = os.path.dirname(os.path.realpath(__file__))


def path(name: str) -> str:
    """The path of the data file ``name`` (a plain file name, no folders)."""
    if os.path.basename(name) != name or name in ("", ".", ".."):
        raise ValueError(f"not a data file name: {name!r}")
    return os.path.join(FOLDER, name)


def read_text(name: str) -> str:
    """The text of the data file ``name``."""
    with open(path(name), encoding="utf-8") as f:
        return f.read()
