"""The census against the plain count, side by side (issue 41: at most 3x). By hand,
never in CI:

    .venv/bin/python bench/bench_census.py                 # the three problems, best of 3
    .venv/bin/python bench/bench_census.py --repeat 1 --only pentomino-6x10
    .venv/bin/python bench/bench_census.py --search-5x18   # also the 5x18 by search (many minutes)

For each problem and each method that takes it — the search and counting by levels, both
by orbits of the symmetry group, as the default count goes — the plain count
(``solver.count()``) and the census (``solver.census()``), each of a fresh solver (a
solver keeps the level counts it made; the compiled kernel and level plans, kept with the
cover, are built before), run in turn (A B A B ..., so a drifting machine moves both alike) and the least CPU time of
each is printed with their ratio.  The line "fastest count" sets the best census against
the fastest plain count measured for the problem, the cheap-node bitboard search included
where it is quick (it takes no census).  Every total is checked against the library's published
count and every census against the sum rules (the options covering each cell, and each
piece, share out the total), so a fast wrong answer fails the benchmark.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core.catalog import ENTRIES  # noqa: E402
from core.census import Census  # noqa: E402
from core.library import import_models, load  # noqa: E402

PROBLEMS = ["pentomino-6x10", "pentacubes-3x4x5", "pentomino-one-sided-5x18"]
TARGET = 3.0  # the census within this many times the plain count
#: the methods of each problem: the 3x4x5 box is not counted by levels (over 3 GB of
#: states: core/frontier.py), the 5x18's search takes many minutes (--search-5x18)
METHODS = {"pentomino-6x10": ["search", "levels"], "pentacubes-3x4x5": ["search"],
           "pentomino-one-sided-5x18": ["levels"]}
#: the problems whose fastest count may be the bitboard's (on the 5x18 it takes minutes)
BITBOARD_TOO = ("pentomino-6x10", "pentacubes-3x4x5")


def cpu(call) -> tuple[float, object]:
    started = time.process_time()
    out = call()
    return time.process_time() - started, out


def check(name: str, ec, census: Census) -> None:
    known = (ENTRIES[name].known or {}).get("solutions")
    if census.total != known:
        sys.exit(f"{name}: the census's total {census.total} is not the published {known}")
    for i in range(ec.n_primary):
        if ec.bound(i) == (1, 1) and sum(census.per_option[k] for k in ec.covering[i]) != census.total:
            sys.exit(f"{name}: the census of the options covering {ec.items[i]} does not sum to the total")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--search-5x18", action="store_true", help="also the one-sided 5x18 by search")
    args = ap.parse_args()
    import_models()
    print(f"# {platform.processor() or platform.machine()}, load average {os.getloadavg()[0]:.2f}; CPU seconds, "
          f"least of {args.repeat}")
    print("| problem | method | count | census | census / count |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.only or PROBLEMS:
        p = load(name)
        ec = p.exact_cover()
        methods = list(METHODS.get(name, ["search", "levels"]))
        if args.search_5x18 and name == "pentomino-one-sided-5x18":
            methods.append("search")
        best_census = float("inf")
        for method in methods:
            p.solver(method=method, symmetry=True).count()  # (the kernel and level plans built, kept with the cover)
            counts, censuses = [], []
            for _ in range(args.repeat):  # a fresh solver each time: a solver keeps the level counts it made
                seconds, n = cpu(p.solver(method=method, symmetry=True).count)
                counts.append(seconds)
                seconds, census = cpu(p.solver(method=method, symmetry=True).census)
                censuses.append(seconds)
                if n != census.total:
                    sys.exit(f"{name} by {method}: the count {n} and the census's total {census.total} differ")
                check(name, ec, census)
            best_census = min(best_census, min(censuses))
            print(f"| {name} | {method}, by orbits | {min(counts):.3f} s | {min(censuses):.3f} s | "
                  f"**{min(censuses) / min(counts):.2f}x** |", flush=True)
        others = ["bitboard"] if name in BITBOARD_TOO else []
        for m in others:
            p.solver(method=m, symmetry=True).count()
        fastest = min(min(cpu(p.solver(method=m, symmetry=True).count)[0] for _ in range(args.repeat))
                      for m in [*others, *methods])
        verdict = "met" if best_census <= TARGET * fastest else "NOT met"
        print(f"| {name} | fastest count (bitboard included) | {fastest:.3f} s | {best_census:.3f} s | "
              f"**{best_census / fastest:.2f}x** ({TARGET:g}x: {verdict}) |", flush=True)


if __name__ == "__main__":
    main()
