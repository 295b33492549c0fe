"""Time the crossword search: library entries 23 (15x15) and 20 (14x14), whose seed
program took about 190 s and 130 s, and counting every 7x7 and 9x9 grid with
180-degree symmetry.  Run: ``.venv/bin/python bench/bench_crossword.py [--engine E]``.
Prints one line per case: count, nodes, seconds (best of ``--repeat``)."""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.crossword import Puzzle  # noqa: E402
from core.crossword.library import seed_rows  # noqa: E402
from core.crossword.search import CrosswordSolver  # noqa: E402


def library_puzzle(n: int) -> Puzzle:
    row = next(r for r in seed_rows() if int(r["number"]) == n)
    return Puzzle.build(int(row["rows"]), int(row["cols"]), symmetry=row["symmetry"], clues=row["clues"],
                        start=int(row["start"]))


CASES = [
    ("library 23 (15x15, seed ~190 s)", lambda: library_puzzle(23), 1),
    ("library 20 (14x14, seed ~130 s)", lambda: library_puzzle(20), 20),
    ("all 7x7 rotational grids", lambda: Puzzle.build(7, 7, symmetry="rotational"), None),
    ("all 9x9 rotational grids", lambda: Puzzle.build(9, 9, symmetry="rotational"), None),
]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--engine", default=None, help="c or python (default: c when built)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-9x9", action="store_true")
    args = ap.parse_args()
    for name, make, expected in CASES:
        if args.skip_9x9 and "9x9" in name:
            continue
        pz = make()
        best = None
        for _ in range(args.repeat if "9x9" not in name else 1):
            t = time.perf_counter()
            res = CrosswordSolver(pz, args.engine).solve()
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        if expected is not None and res.count != expected:
            raise SystemExit(f"{name}: counted {res.count}, expected {expected}")
        print(f"{name:34s} count {res.count:>12,}  nodes {res.stats.nodes:>12,}  {best:8.3f} s", flush=True)


if __name__ == "__main__":
    main()
