"""Time the two crossword counters: the search (``core/crossword/search.py``) and the
row-by-row transfer count (``core/crossword/transfer.py``).

Cases: library entries 23 (15x15) and 20 (14x14), whose seed program took about 190 s
and 130 s; the entries the seed did not count (21, 54, 57); counting every 7x7, 9x9 and
11x11 grid with 180-degree symmetry.  Each count is checked against the library's data
where it has one.  Run: ``.venv/bin/python bench/bench_crossword.py [--method M]``.
Prints one line per case and method: count, nodes or states, seconds (best of
``--repeat``).  ``bench_crossword.py counting`` times the transfer in C against its Python
reference side by side, ``counting --every 13`` times every 13x13 grid (rotational and
no symmetry), and ``counting --plan 15x15-rotational`` plans every grid of a size as a
distributed run (shares by the state at a middle row, a measured sample, ETA).  The search is skipped where it
takes half an hour or more (entry 57, 11x11) unless ``--long``."""
from __future__ import annotations

import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from core.crossword import Puzzle  # noqa: E402
from core.crossword.library import ALL_GRID_COUNTS, FOUND_COUNTS, seed_rows  # noqa: E402
from core.crossword.search import CrosswordSolver  # noqa: E402
from core.crossword.transfer import TransferCounter  # noqa: E402

ROWS = {int(r["number"]): r for r in seed_rows()}


def library_puzzle(n: int) -> Puzzle:
    row = ROWS[n]
    return Puzzle.build(int(row["rows"]), int(row["cols"]), symmetry=row["symmetry"], clues=row["clues"],
                        start=int(row["start"]))


def library_count(n: int) -> int | None:
    text = ROWS[n]["expected_grids"].strip()
    return int(text) if text else FOUND_COUNTS.get(n)


def all_grids(R: int, kind: str) -> Puzzle:
    return Puzzle.build(R, R, symmetry=kind)


#: name, puzzle, expected count (None: not known), how long the search takes where that
#: is too long for a benchmark (None: it runs)
CASES = [
    ("library 23 (15x15, seed ~190 s)", lambda: library_puzzle(23), library_count(23), None),
    ("library 20 (14x14, seed ~130 s)", lambda: library_puzzle(20), library_count(20), None),
    ("library 21 (17x17 left-right)", lambda: library_puzzle(21), library_count(21), None),
    ("library 54 (9x9 no symmetry)", lambda: library_puzzle(54), library_count(54), None),
    ("library 57 (13x13 no symmetry)", lambda: library_puzzle(57), library_count(57), "about 35 minutes"),
    ("all 7x7 rotational grids", lambda: all_grids(7, "rotational"), ALL_GRID_COUNTS.get((7, 7, "rotational")), None),
    ("all 9x9 rotational grids", lambda: all_grids(9, "rotational"), ALL_GRID_COUNTS.get((9, 9, "rotational")), None),
    ("all 11x11 rotational grids", lambda: all_grids(11, "rotational"), ALL_GRID_COUNTS.get((11, 11, "rotational")),
     "about 35 minutes"),
]


def run_search(pz: Puzzle) -> tuple[int, str]:
    res = CrosswordSolver(pz).solve()
    return res.count, f"nodes  {res.stats.nodes:>11,}"


def run_transfer(pz: Puzzle) -> tuple[int, str]:
    tc = TransferCounter(pz)
    return tc.count(), f"states {tc.max_states:>11,}"


def timed_best(run, repeat: int, clock=time.perf_counter):
    """``run()``'s result and its best time over ``repeat`` calls on ``clock``."""
    best, got = float("inf"), None
    for _ in range(repeat):
        t = clock()
        got = run()
        best = min(best, clock() - t)
    return got, best


def timed(run, pz: Puzzle, repeat: int) -> tuple[int, str, float]:
    """The count, the size column and the best time of ``repeat`` runs."""
    (count, size), best = timed_best(lambda: run(pz), repeat)
    return count, size, best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--method", choices=("search", "transfer", "both"), default="both")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--skip-9x9", action="store_true", help="skip the 9x9 and larger count-all cases")
    ap.add_argument("--long", action="store_true", help="also run the search where it takes half an hour")
    args = ap.parse_args()
    methods = [("search", run_search), ("transfer", run_transfer)]
    methods = [m for m in methods if args.method in (m[0], "both")]
    for name, make, expected, long_search in CASES:
        if args.skip_9x9 and name.startswith("all") and "7x7" not in name:
            continue
        pz = make()
        for method, run in methods:
            if method == "search" and long_search and not args.long:
                print(f"{name:32s} {method:8s} skipped ({long_search}; --long runs it)", flush=True)
                continue
            big = (name.startswith("all") and "7x7" not in name) or long_search is not None
            count, size, best = timed(run, pz, 1 if big else args.repeat)
            if expected is not None and count != expected:
                raise SystemExit(f"{name}, {method}: counted {count}, expected {expected}")
            print(f"{name:32s} {method:8s} count {count:>12,}  {size}  {best:8.3f} s", flush=True)


# -- the transfer method: C against the Python reference, and the planned big counts ----------
#: name, puzzle, expected count; every one counted by the C transfer and its Python reference
COUNTING_CASES = [
    ("library 57 (13x13 no symmetry)", lambda: library_puzzle(57), library_count(57)),
    ("library 21 (17x17 left-right)", lambda: library_puzzle(21), library_count(21)),
    ("library 23 (15x15 rotational)", lambda: library_puzzle(23), library_count(23)),
    ("library 20 (14x14 rotational)", lambda: library_puzzle(20), library_count(20)),
    ("library 54 (9x9 no symmetry)", lambda: library_puzzle(54), library_count(54)),
    ("all 9x9 rotational grids", lambda: all_grids(9, "rotational"), ALL_GRID_COUNTS.get((9, 9, "rotational"))),
    ("all 11x11 rotational grids", lambda: all_grids(11, "rotational"), ALL_GRID_COUNTS.get((11, 11, "rotational"))),
    ("all 9x9 left-right grids", lambda: all_grids(9, "left-right"), ALL_GRID_COUNTS.get((9, 9, "left-right"))),
]
#: the square kinds (the layer build: C in _peel.c, Python in peel.py): name, puzzle, and
#: whether the Python reference runs beside C (not where it takes minutes: 13x13 diagonal
#: took it 104 s); 15x15 diagonal is left out (C had not finished after more than a minute at load 7)
SQUARE_CASES = [(f"all {n}x{n} {kind} grids", lambda n=n, kind=kind: all_grids(n, kind), python)
                for n, kind, python in ((13, "full", True), (13, "quarter-turn", True), (15, "full", True),
                                        (9, "diagonal", True), (11, "diagonal", True), (13, "diagonal", False),
                                        (15, "quarter-turn", False), (17, "full", False))]


def bench_counting(repeat: int, square_only: bool = False) -> None:
    """The C transfer count against the Python reference, side by side (best of
    ``repeat``; one run where the reference takes more than a few seconds); then the
    square kinds' layer build, C against Python (``square_only``: those alone)."""
    from core.crossword.transfer_solver import c_count

    if not square_only:
        bench_rows(repeat, c_count)
    bench_square_kinds(repeat, c_count)


def bench_rows(repeat: int, c_count) -> None:
    """The row-by-row kinds: C against Python, wall seconds (Python once past 3 s)."""
    print(f"{'case':34s} {'count':>14s} {'C s':>9s} {'Python s':>9s} {'ratio':>7s}", flush=True)
    for name, make, expected in COUNTING_CASES:
        pz = make()
        got, c_best = timed_best(lambda: c_count(pz), repeat)
        ref, py_best = timed_best(lambda: TransferCounter(pz).count(), 1)
        if py_best <= 3 and repeat > 1:
            ref, again = timed_best(lambda: TransferCounter(pz).count(), repeat - 1)
            py_best = min(py_best, again)
        if got != ref or (expected is not None and got != expected):
            raise SystemExit(f"{name}: C {got}, Python {ref}, expected {expected}")
        print(f"{name:34s} {got:>14,} {c_best:9.3f} {py_best:9.3f} {py_best / c_best:6.1f}x", flush=True)


def bench_square_kinds(repeat: int, c_count) -> None:
    """The square kinds layer by layer: C against Python, CPU seconds."""
    from core.crossword.peel import count as peel_count

    print("the square kinds, layer by layer: CPU seconds (best of the repeats for C, one run for Python)", flush=True)
    for name, make, python in SQUARE_CASES:
        pz = make()
        got, c_best = timed_best(lambda: c_count(pz), repeat, time.process_time)
        if not python:
            print(f"{name:34s} {got:>20,} {c_best:9.3f} {'-':>9s}", flush=True)
            continue
        t = time.process_time()
        ref = peel_count(pz)
        py = time.process_time() - t
        if got != ref:
            raise SystemExit(f"{name}: C {got}, Python {ref}")
        print(f"{name:34s} {got:>20,} {c_best:9.3f} {py:9.3f} {py / max(c_best, 1e-6):6.0f}x", flush=True)


#: Every n x n grid with 180-degree symmetry, published: Michael Kleber, math-fun, February
#: 2019 (corrected values; rules: checked, words of 3 or more, connected, a white square),
#: keyed by (n, no_black_lines): True is "no black edges" (OEIS A323838), False "all
#: grids" (A323839), by Kleber's message and the akshayravikumar/crosswords README
#: (docs/models.md, "Every grid of a size")
KLEBER = {
    (3, True): 1, (5, True): 12, (7, True): 312, (9, True): 31_187, (11, True): 17_438_702,
    (13, True): 40_575_832_476, (15, True): 404_139_015_237_875,
    (3, False): 1, (5, False): 15, (7, False): 397, (9, False): 35_324, (11, False): 18_446_134,
    (13, False): 41_752_489_852, (15, False): 409_764_131_469_787,
}


def against_literature(n: int, kind: str, nbl: bool, got: int | None) -> str:
    """Kleber's value beside a count of his (rotational, default rules but the black lines),
    and whether it matches; "" where he gives none."""
    want = KLEBER.get((n, nbl)) if kind == "rotational" else None
    if want is None or got is None:
        return ""
    return f"  Kleber {want:,}: {'matches' if got == want else 'DIFFERS'}"


def load_text() -> str:
    """The machine's load (1-minute average) and cores, for the printed figures."""
    return f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"


def every_grid(n: int, kinds: list[str], seconds: float) -> None:
    """Every n x n grid of each symmetry kind by the C transfer, whole, under a time limit
    (a count the limit stops says so): count, largest layer, transitions, CPU and wall
    seconds; with and without the no-black-lines rule for the folded kinds; beside each
    count of Kleber's table (:data:`KLEBER`), his value and whether it matches."""
    from core.crossword import Rules
    from core.crossword._transfer import profile

    print(f"{'grid':28s} {'rules':16s} {'count':>22s} {'largest layer':>14s} {'transitions':>14s} "
          f"{'CPU s':>8s} {'wall s':>8s}", flush=True)
    for kind in kinds:
        for nbl in (True, False):
            pz = Puzzle.build(n, n, symmetry=kind, rules=Rules(no_black_lines=nbl))
            args = TransferCounter(pz).c_arguments()
            cpu, wall = time.process_time(), time.perf_counter()
            got, layers, moves, _ = profile(*args, seconds, -1)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            shown = f"{got:,}" if got is not None else f"not done in {seconds:.0f} s"
            rules = "default" if nbl else "black lines ok"
            print(f"{n}x{n} {kind:22s} {rules:16s} {shown:>22s} {max(layers):>14,} {sum(moves):>14,} "
                  f"{cpu:8.1f} {wall:8.1f}  ({load_text()}){against_literature(n, kind, nbl, got)}", flush=True)


def plan_all_grids(n: int, kind: str, sample: int, workers: int, split_row: int | None, shares: int | None,
                   seed: int = 0) -> None:
    """The plan of counting every n x n grid as a distributed run: the transfer tree's
    shares (slices of a middle row's patterns, core/crossword/middle_split.py), a random
    sample of them counted here, and the whole run's time from the sample: the mean share
    time times the shares, with two standard errors (shares differ in size; the
    estimator of core/share_estimate.py, which `tilecensus estimate` uses).  The sampled
    shares' counts, scaled the same way, estimate the count."""
    import random

    from core.crossword._transfer import profile
    from core.crossword.transfer_solver import TransferSolver
    from core.share_estimate import scaled_total

    solver = TransferSolver(all_grids(n, kind), split_row=split_row, shares=shares)
    tree = solver.tree
    k = len(tree.slices)
    print(f"every {n}x{n} {kind} grid: {k} shares of the {sum(map(len, tree.slices))} patterns of row {tree.row} "
          f"(rows built: {tree.rows}); {load_text()}", flush=True)
    rng = random.Random(seed)
    picked = sorted(rng.sample(range(k), min(sample, k)))
    times, counts = [], []
    for j in picked:
        args = solver.counter.c_arguments(restrict={tree.row: tree.slices[j]})
        t = time.process_time()
        got, layers, moves, _ = profile(*args, -1.0, -1)
        dt = time.process_time() - t
        times.append(dt)
        counts.append(got)
        print(f"  share {j:3d}: {len(tree.slices[j]):3d} patterns, layers {layers}, {sum(moves):,} transitions, "
              f"{dt:.1f} CPU s, {got:,} grids", flush=True)
    total, est = scaled_total(times, k), scaled_total(counts, k)  # as `tilecensus estimate` does
    print(f"ETA: {total.value / 3600:.2f} +- {(total.high - total.value) / 3600:.2f} core-hours; "
          f"{total.value / 3600 / workers:.2f} h on {workers} workers (CPU time under this load); "
          f"count about {est.value:.4g}", flush=True)


def main_counting(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description="the transfer method: C against Python, and planned big counts")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--plan", metavar="NxN[-KIND]", help="plan every grid of a size as a distributed run")
    ap.add_argument("--sample", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--split-row", type=int, help="the plan's split row (default: the tree's)")
    ap.add_argument("--shares", type=int, help="the plan's number of shares (default: the tree's)")
    ap.add_argument("--every", metavar="N", type=int, help="time every NxN grid (rotational and no symmetry)")
    ap.add_argument("--kinds", default="rotational,none", help="with --every: the symmetry kinds")
    ap.add_argument("--seconds", type=float, default=3600.0, help="with --every: the time limit of one count")
    ap.add_argument("--square", action="store_true", help="only the square kinds (layer by layer)")
    args = ap.parse_args(argv)
    if args.every:
        every_grid(args.every, args.kinds.split(","), args.seconds)
        return
    if args.plan:
        size, _, kind = args.plan.partition("-")
        n = int(size.split("x")[0])
        plan_all_grids(n, kind or "none", args.sample, args.workers, args.split_row, args.shares)
        return
    bench_counting(args.repeat, args.square)


# -- rebuilding published grids from their clue strings alone ------------------------------
NYT_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "core", "data",
                       "crossword", "nyt")
REBUILD_TARGET = 1.0  # seconds, one core: issue 22's target


def rebuild_cases() -> list[tuple[str, Puzzle, Puzzle]]:
    """Each NYT fixture: its name, the puzzle as read (its grid, no start) and the same
    clue string with no grid — what the search must find its way from."""
    from core.crossword.parse import from_grid_text

    out = []
    for name in sorted(os.listdir(NYT_DIR)):
        with open(os.path.join(NYT_DIR, name), encoding="utf-8") as fh:
            given = from_grid_text(fh.read(), name)
        bare = Puzzle.build(given.rows, given.cols, symmetry=given.symmetry, clues=given.clues)
        out.append((name.removesuffix(".txt"), given, bare))
    return out


def rebuild_main() -> None:
    """``bench_crossword.py --rebuild [--repeat N] [--python-seconds S] [--c-seconds C]
    [--only TEXT]``: every NYT fixture (or those whose name holds TEXT) rebuilt from its
    clue string with no start, listing every grid that fits — the C search (best of N:
    wall seconds, and CPU seconds, which the 1 s target on one core is judged by on a
    shared machine; stopped after C seconds, then shown as ``>C`` with the grids and nodes
    so far), the Python reference beside it (one run, stopped after S seconds), and
    whether the published grid was found (``path`` for a stopped search: its path replays
    to the grid).  ``--first N``: list only the first N grids (a count too big to list).
    ``--transfer``: also the C transfer count (best of N seconds) with the reachability
    table and, with ``--unpruned-seconds S``, without it (stopped after S seconds)."""
    from core.crossword.compiled import CompiledCrosswordSolver
    from core.search import SolveRequest

    ap = argparse.ArgumentParser(description=rebuild_main.__doc__)
    ap.add_argument("--rebuild", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python-seconds", type=float, default=20.0)
    ap.add_argument("--c-seconds", type=float, default=120.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--first", type=int, help="list only the first N grids")
    ap.add_argument("--transfer", action="store_true", help="also time the C transfer count")
    ap.add_argument("--unpruned-seconds", type=float, default=0.0,
                    help="with --transfer: also the count without the reachability table, stopped after S seconds")
    args = ap.parse_args()
    print(f"{'grid':44s} {'grids':>6s} {'nodes':>11s} {'C s':>7s} {'C cpu':>7s} {'<=1 s':>5s} {'Python s':>9s} "
          f"{'ratio':>6s} found")
    for name, given, bare in rebuild_cases():
        if args.only not in name:
            continue
        c = CompiledCrosswordSolver(bare)
        best, cpu, res = None, None, None
        for _ in range(args.repeat):
            t = time.process_time()
            res = c.solve((), SolveRequest(listing=True, seconds=args.c_seconds, limit=args.first))
            used = time.process_time() - t
            best = res.stats.seconds if best is None else min(best, res.stats.seconds)
            cpu = used if cpu is None else min(cpu, used)
            if not res.complete:
                break
        target = c.path_of(given.given)
        if args.transfer:
            transfer_line(name, bare, args.repeat, args.unpruned_seconds)
        if args.first is not None and res.stopped_by == "limit":
            ok = "yes" if cpu <= REBUILD_TARGET else "NO"
            print(f"{name:44s} {res.count:>6,} {res.stats.nodes:>11,} {best:7.3f} {cpu:7.3f} {ok:>5s} "
                  f"(the first {args.first} grids)", flush=True)
            continue
        if res.complete:
            found = "yes" if target in (res.solutions or []) else "NO"
        else:  # stopped: the published grid is still a leaf of the tree if its path replays to it
            found = "path" if target is not None and c.solve(target, SolveRequest()).count == 1 else "NO"
        py = CrosswordSolver(bare).solve((), SolveRequest(listing=True, seconds=args.python_seconds))
        if py.complete and res.complete:
            if py.count != res.count or py.stats.nodes != res.stats.nodes:
                raise SystemExit(f"{name}: Python {py.count} grids / {py.stats.nodes} nodes, C {res.count} / "
                                 f"{res.stats.nodes}")
            py_text, ratio = f"{py.stats.seconds:9.3f}", f"{py.stats.seconds / max(best, 1e-9):6.0f}"
        else:
            py_text, ratio = f">{args.python_seconds:8.0f}", "     -"
        ok = "yes" if cpu <= REBUILD_TARGET and res.complete else "NO"
        c_text = f"{best:7.3f}" if res.complete else f">{args.c_seconds:6.0f}"
        print(f"{name:44s} {res.count:>6,} {res.stats.nodes:>11,} {c_text} {cpu:7.3f} {ok:>5s} {py_text} {ratio} "
              f"{found}", flush=True)
        if not res.complete:  # where a stopped search spends its nodes
            per = res.stats.nodes_per_depth
            print(f"{'':44s} nodes by depth (0, 10, 20, ...): {per[::10]}; deepest {len(per) - 1}", flush=True)


def transfer_line(name: str, bare: Puzzle, repeat: int, unpruned_seconds: float) -> None:
    """One fixture's C transfer count: best of ``repeat`` wall and CPU seconds with the
    reachability table (no symmetry, left-right; the folded kinds count as before), the
    most states in a layer; without the table too when ``unpruned_seconds`` > 0."""
    from core.crossword import _transfer

    args = TransferCounter(bare).c_arguments()
    best = cpu = None
    for _ in range(repeat):
        t = time.process_time()
        got, states, _moves, secs = _transfer.count(*args, -1.0, -1, True)
        used = time.process_time() - t
        best = secs if best is None else min(best, secs)
        cpu = used if cpu is None else min(cpu, used)
    print(f"{name:44s} transfer {got:>13,} grids  {best:7.3f} s  {cpu:7.3f} cpu  {states:>9,} states at most",
          flush=True)
    if unpruned_seconds > 0:
        got, states, _moves, secs = _transfer.count(*args, unpruned_seconds, -1, False)
        shown = f"{got:>13,}" if got is not None else "      stopped"
        print(f"{name:44s} unpruned {shown} grids  {secs:7.3f} s  {states:>9,} states at most", flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["counting"]:
        main_counting(sys.argv[2:])
    elif "--rebuild" in sys.argv:
        rebuild_main()
    else:
        main()
