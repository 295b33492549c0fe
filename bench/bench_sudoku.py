"""Sudoku benchmark (run by hand): hard 9x9 puzzles per second, and counting every 6x6 grid,
with the exact-cover kernel beside the generic tile-reduction engine.

    PYTHONPATH=. .venv/bin/python bench/bench_sudoku.py [--full-6x6] [--cube]

Every answer is checked by an independent checker (not the model's own ``is_solution``).
Each puzzle is solved with ``limit=2``, so "unique" below is also checked.
"""
from __future__ import annotations

import argparse
import time

from core.library import from_spec
from core.search import SolveRequest

#: well-known hard 9x9 puzzles, one line each, '.' empty
HARD = {
    "Inkala 2012 (world's hardest)": "8..........36......7..9.2...5...7.......457.....1...3...1....68..85...1..9....4..",
    "AI Escargot": "1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
    "Easter Monster": "1.......2.9.4...5...6...7...5.9.3.......7.......85..4.7.....6...3...9.8...2.....1",
    "Norvig hardest #2": "85...24..72......9..4.........1.7..23.5...9...4...........8..7..17..........36.4.",
    "anti-brute-force (Wikipedia)": "..............3.85..1.2.......5.7.....4...1...9.......5......73..2.1........4...9",
    "top95 #1": "4.....8.5.3..........7......2.....6.....8.4......1.......6.3.7.5..2.....1.4......",
    "top95 #2": "52...6.........7.13...........4..8..6......5...........418.........3..2...87.....",
    "top95 #3": "6.....8.3.4.7.................5.4.7.3..2.....1.6.......2.....5.....8.6......1....",
    "top95 #4": "48.3............71.2.......7.5....6....2..8.............1.76...3.....4......5....",
    "top95 #5": "....14....3....2...7..........9...3.6.1.............8.2.....1.4....5.6.....7.8...",
    "Norvig hard1": "..53.....8......2..7..1.5..4....53...1..7...6..32...8..6.5....9..4....3......97..",
    "17 clues (Royle)": "...8.1..........435............7.8........1...2..3....6......75..34........2..6..",
}


def spec_of(line: str) -> dict:
    rows = [" ".join(line[r * 9 : r * 9 + 9].replace(".", "_")) for r in range(9)]
    return {"kind": "sudoku", "format": "text", "text": "\n".join(rows) + "\n", "source_name": "bench"}


def check(cells: list[int], side: int, box: tuple[int, int], givens: dict[int, int]) -> bool:
    """Independent checker: rows, columns and boxes each hold every symbol once."""
    full = set(range(side))
    rows = [cells[r * side : (r + 1) * side] for r in range(side)]
    if any(set(r) != full for r in rows) or any({rows[r][c] for r in range(side)} != full for c in range(side)):
        return False
    br, bc = box
    for r0 in range(0, side, br):
        for c0 in range(0, side, bc):
            if {rows[r0 + i][c0 + j] for i in range(br) for j in range(bc)} != full:
                return False
    return all(cells[c] == s for c, s in givens.items())


def bench_hard(engine: str) -> None:
    problems = [(name, from_spec(spec_of(line))) for name, line in HARD.items()]
    total, nodes = 0.0, 0
    print(f"\n== hard 9x9, engine={engine}")
    for name, p in problems:
        solver = p.solver(engine=engine)
        started = time.perf_counter()
        r = solver.solve((), SolveRequest(listing=True, limit=2))
        took = time.perf_counter() - started
        total += took
        nodes += r.stats.nodes
        ok = r.count >= 1 and check(p.grid(r.solutions[0]), 9, (3, 3), p.givens)
        print(f"  {name:32s} {r.count} solution{'s' if r.count != 1 else ' '} "
              f"{'checked' if ok else 'WRONG'}  {took * 1000:8.1f} ms  {r.stats.nodes:8d} nodes")
    print(f"  {len(problems)} puzzles in {total:.3f} s: {len(problems) / total:.1f} puzzles/s, {nodes} nodes")


def bench_6x6(full: bool) -> None:
    print("\n== every 6x6 grid with 2x3 boxes (28,200,960)")
    first_row = 'kind = "sudoku"\nbox = [2, 3]\ngrid = """\n1 2 3 4 5 6\n' + "_ _ _ _ _ _\n" * 5 + '"""\n'
    fixed = from_spec({"kind": "sudoku", "format": "toml", "text": first_row, "source_name": "6x6-row1"})
    for engine in ("kernel", "reduction"):
        started = time.perf_counter()
        r = fixed.solver(engine=engine).solve()
        took = time.perf_counter() - started
        print(f"  first row fixed, engine={engine:9s}: {r.count} x 6! = {r.count * 720}  {took:.2f} s, "
              f"{r.stats.nodes} nodes")
    if full:
        p = from_spec({"kind": "sudoku", "format": "toml", "source_name": "6x6",
                       "text": 'kind = "sudoku"\nsize = 6\nbox = [2, 3]\n'})
        started = time.perf_counter()
        r = p.solver().solve()
        print(f"  every grid, engine=kernel: {r.count}  {time.perf_counter() - started:.1f} s, {r.stats.nodes} nodes")


def bench_cube() -> None:
    from core.library import load

    p = load("sudoku-cube-k2n3-seed")
    started = time.perf_counter()
    r = p.solver().solve()
    print(f"\n== sudoku-cube-k2n3-seed, engine=kernel: {r.count}  {time.perf_counter() - started:.1f} s, "
          f"{r.stats.nodes} nodes")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--full-6x6", action="store_true", help="also count all 6x6 grids directly (minutes)")
    ap.add_argument("--cube", action="store_true", help="also count the 8x8x8 cube seed (about 30 s)")
    args = ap.parse_args()
    for engine in ("kernel", "reduction"):
        bench_hard(engine)
    bench_6x6(args.full_6x6)
    if args.cube:
        bench_cube()


if __name__ == "__main__":
    main()
