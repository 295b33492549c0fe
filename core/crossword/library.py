"""The seed's library of diagramless puzzles (``crossword-1`` ..) and the ``crossword-all``
family (every legal grid of a size), registered with :mod:`core.problem`."""
from __future__ import annotations

import csv
import re
from typing import Any

from .. import data
from ..catalog import LibraryEntry, register_pattern, register_problem
from . import symmetry as sym

CSV_PATH = data.path("crossword-seed-library.csv")

#: counts the seed's library did not have, found here by two independent methods that
#: agree: the search (``search.py``) and the row-by-row transfer count (``transfer.py``).
#: Entry 57 (8.7 million grids) takes the Python search 35 minutes: it was checked subtree
#: by subtree (the transfer method counts each subtree of a split search with its squares
#: fixed; all 59 agree).
FOUND_COUNTS: dict[int, int] = {21: 25_289, 31: 2, 33: 4, 34: 2, 54: 24_651, 57: 8_669_217}

#: every legal grid under the default rules, (rows, cols, symmetry) -> count; the search
#: and the transfer count agree on each
ALL_GRID_COUNTS: dict[tuple[int, int, str], int] = {
    (5, 5, "none"): 104,
    (7, 7, "none"): 58_684,
    (7, 7, "rotational"): 312,
    (9, 9, "rotational"): 31_187,
    (9, 9, "left-right"): 48_271,
    (9, 9, "three-way"): 269,
    (11, 11, "rotational"): 17_438_702,  # the search: 35 minutes
}


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
        n = int(row["number"])
        if row["expected_grids"].strip():
            known = {"solutions": int(row["expected_grids"])}
        else:
            known = {"solutions": FOUND_COUNTS[n]} if n in FOUND_COUNTS else None
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
