"""The seed's library of diagramless puzzles (``crossword-1`` ..) and the ``crossword-all``
family (every legal grid of a size), registered with :mod:`core.problem`."""
from __future__ import annotations

import csv
import os
import re
from typing import Any

from ..problem import LibraryEntry, register_pattern, register_problem
from . import symmetry as sym

CSV_PATH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "library", "crossword-seed-library.csv")


def seed_rows() -> list[dict[str, str]]:
    """The rows of the seed's library CSV (shipped in ``core/library``)."""
    with open(CSV_PATH, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def toml_text(rows: int, cols: int, clues: str | None, symmetry: str, start: int | None) -> str:
    """A crossword TOML file for these fields (the default rules)."""
    lines = ['kind = "crossword"', f"rows = {rows}", f"cols = {cols}"]
    if clues is not None:
        lines.append(f'clues = "{clues}"')
    lines.append(f'symmetry = "{symmetry}"')
    if start is not None:
        lines.append(f"start = {start}")
    return "\n".join(lines) + "\n"


def register() -> None:
    for row in seed_rows():
        name = f"crossword-{row['number']}"
        kind = sym.canonical(row["symmetry"])
        R, C, start = int(row["rows"]), int(row["cols"]), int(row["start"])
        spec = {"kind": "crossword", "format": "toml", "source_name": name,
                "text": toml_text(R, C, row["clues"], kind, start)}
        known = {"solutions": int(row["expected_grids"])} if row["expected_grids"].strip() else None
        desc = f"diagramless crossword {R}x{C}, {kind} symmetry, {len(row['clues'])} clues (seed library)"
        register_problem(LibraryEntry(name, desc, spec, known))
    register_pattern(
        "crossword-all-RxC[-SYMMETRY]",
        "every legal crossword grid of a size, e.g. crossword-all-9x9-rotational",
        all_grids_spec,
    )


def all_grids_spec(name: str) -> dict[str, Any] | None:
    """The spec of ``crossword-all-RxC[-symmetry]``, or None for another name."""
    m = re.fullmatch(r"crossword-all-(\d+)x(\d+)(?:-([a-z-]+))?", name)
    if not m:
        return None
    try:
        kind = sym.canonical(m.group(3) or "none")
    except ValueError:
        return None
    return {"kind": "crossword", "format": "toml", "source_name": name,
            "text": toml_text(int(m.group(1)), int(m.group(2)), None, kind, None)}
