"""CPU seconds of the kernel's search, for comparing two kernels or its two MRV layouts
(run by hand, never in CI).

    .venv/bin/python bench/bench_kernel_layouts.py problems                 # this checkout
    PYTHONPATH=/other/checkout .venv/bin/python bench/bench_kernel_layouts.py problems
    .venv/bin/python bench/bench_kernel_layouts.py layouts                  # copies vs trail

``problems``: the plain MRV search (no memo, no symmetry: the by-search tree from the root)
of each named problem under a node budget, the best CPU seconds of three runs (CPU
seconds, not wall time: the machine is shared). Run it once per checkout, alternating, and
compare the columns: the node counts must agree.

``layouts``: tilings of growing rectangles by dominoes and L and I trominoes with a counted
domino (multiplicities, so MRV takes the generic path), each searched under a node budget
with the layout forced to copies, to the trail, and as chosen (``choose_mrv_layout`` in
core/_kernel.c): where the trail starts to pay, and the state each keeps.
"""
from __future__ import annotations

import argparse
import os
import sys
import time

from core import _kernel
from core.kernel import KernelSolver, compile_problem
from core.library import load

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: the library's problems the speed must hold on (lanes), then covers the generic MRV path takes
PROBLEMS = ("pentomino-6x10,soma,pentomino-8x8-centre,pentacubes-3x4x5,"
            "sudoku-cube-k2n3-seed,dominoes-20x20,dominoes-2x300")


def cpu_seconds(problem, budget: int, given=()) -> tuple[float, object]:
    """The best of three CPU times of one search from the root, and its result."""
    best, out = float("inf"), None
    for _ in range(3):
        started = time.process_time()
        out = _kernel.solve(problem, [], False, -1, budget, -1.0, -1, 0, tuple(given))
        best = min(best, time.process_time() - started)
    return best, out


def bench_problems(names: list[str], budget: int) -> None:
    for name in names:
        solver = load(name).solver()
        if not isinstance(solver, KernelSolver):
            print(f"{name:24} not searched by the kernel ({type(solver).__name__})")
            continue
        seconds, out = cpu_seconds(solver._problem, budget, solver.given)
        print(f"{name:24} {out.nodes:>12,} nodes  {seconds:8.3f} s CPU  {1e9 * seconds / max(out.nodes, 1):6.0f} ns/node")


def bench_layouts(budget: int) -> None:
    sys.path.insert(0, os.path.join(ROOT, "tests", "core"))
    from test_kernel_properties import DOMINO, I_TROMINO, L_TROMINO, _grid_tiling

    for rows, cols in [(5, 6), (8, 10), (12, 16), (20, 20), (30, 40)]:
        ec, _ = _grid_tiling(rows, cols, set(), [DOMINO, L_TROMINO, I_TROMINO], {0: (0, rows * cols // 6)})
        cells = []
        for layout in ("copies", "trail", "auto"):
            seconds, out = cpu_seconds(compile_problem(ec, "mrv", None, mrv_layout=layout), budget)
            cells.append(f"{layout} {seconds:.3f} s, {out.state_bytes / 1e6:.1f} MB")
        print(f"{rows}x{cols} ({ec.n_items} items, {ec.n_options} options, {out.nodes:,} nodes): " + "; ".join(cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["problems", "layouts"])
    parser.add_argument("--problems", default=PROBLEMS, help="comma-separated built-in names (problems)")
    parser.add_argument("--budget", type=int, default=10_000_000, help="nodes per search")
    args = parser.parse_args()
    if args.what == "problems":
        bench_problems(args.problems.split(","), args.budget)
    else:
        bench_layouts(min(args.budget, 500_000))


if __name__ == "__main__":
    main()
