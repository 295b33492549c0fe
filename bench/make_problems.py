"""Write the benchmark problems into bench/problems/ as DLX files (run by hand).

Each file starts with ``| solutions: N``, the published count the bench checks against.
The generators live in ``tests/core/problems.py`` (shared with the known-count tests);
the pentacube box is the library's polyform model written out as DLX.
"""
from __future__ import annotations

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "core"))
import problems  # noqa: E402

#: file name -> generator name in tests/core/problems.py
BENCH = {
    "pentomino-6x10": "pentominoes6x10",
    "pentomino-8x8-hole": "pentominoes8x8-hole",
    "soma": "soma",
    "dominoes-8x8": "dominoes8x8",
    "sudoku-6x6": "sudoku6x6",
}

#: file name -> (library problem, its published count)
LIBRARY = {
    "pentacubes-3x4x5": ("pentacubes-3x4x5", 31520),
}


def main() -> None:
    out = os.path.join(HERE, "problems")
    os.makedirs(out, exist_ok=True)
    for filename, name in BENCH.items():
        text = problems.generate(name)
        path = os.path.join(out, filename + ".dlx")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"{path}: {text.count(chr(10))} lines")
    sys.path.insert(0, os.path.join(HERE, ".."))
    from core.dlx_format import format_dlx
    from core.library import load

    for filename, (name, count) in LIBRARY.items():
        problem = load(name)
        text = format_dlx(problem.exact_cover(), [f"solutions: {count}", problem.describe()])
        path = os.path.join(out, filename + ".dlx")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        print(f"{path}: {text.count(chr(10))} lines")


if __name__ == "__main__":
    main()
