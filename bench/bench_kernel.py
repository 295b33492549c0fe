"""Time exact cover solvers side by side on the same DLX files (run by hand, never in CI).

    .venv/bin/python bench/bench_kernel.py                      # everything, 120 s cap each
    .venv/bin/python bench/bench_kernel.py --problems soma,pentomino-6x10 --solvers kernel,xcover
    .venv/bin/python bench/bench_kernel.py --timeout 30 --files my.dlx

Solvers: ``kernel`` (our C kernel, count), ``cheap`` (the bitboard engine,
core/bitboard.py: MRV near the root, first empty cell below; plain polyform covers of at
most 128 cells and 64 pieces), ``levels`` (the kernel counting level by level,
``KernelSolver(levels=True)``: core/frontier.py; plain covers of at most 128 items or
fitting one window),
``auto`` (the kernel choosing between the two, ``levels="auto"``, the command line's
default for a whole count), ``reference`` (our pure-Python reference),
``naive`` (a plain Python backtracker: first uncovered item, try its options),
``bitboard`` (bench/bitboard.c, the textbook special-purpose packing counter: the board in
one 64-bit word, pieces as a bit mask, fill the first empty cell; only for problems of at
most 64 cells plus piece items),
``xcover`` (PyPI, numba dancing cells: enumerates to count) and ``exact-cover``
(PyPI, C dancing links on a dense 0/1 matrix; secondary items become slack rows).
The kernel and cheap cells also show the nodes searched and the time per node.
``--budget N`` stops the kernel and cheap after N nodes instead, and shows the share of
the tree done and the whole count's time estimated from it (for counts of hours).
Problem files: DLX, or polyform TOML (``--files bench/problems/one-sided-pentominoes-6x15.toml``).
Each run is a fresh subprocess with a time cap; the time shown is the count alone
(reading the file, building the solver's input and numba's JIT warm-up excluded).
A count that disagrees with the file's ``| solutions: N`` comment is flagged WRONG.
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SOLVERS = ["kernel", "cheap", "levels", "auto", "reference", "naive", "bitboard", "xcover", "exact-cover"]


# ---------------------------------------------------------------------------- the solvers
def naive_count(ec) -> int:
    """Backtrack: cover the first uncovered primary item with each option that fits."""
    by_item = [[] for _ in range(ec.n_items)]
    for option in ec.options:
        items = [i for i, _ in option]
        for i in items:
            by_item[i].append(items)
    used = [False] * ec.n_items
    n = ec.n_primary

    def count(i: int) -> int:
        while i < n and used[i]:
            i += 1
        if i == n:
            return 1
        total = 0
        for items in by_item[i]:
            if not any(used[j] for j in items):
                for j in items:
                    used[j] = True
                total += count(i + 1)
                for j in items:
                    used[j] = False
        return total

    return count(0)


def bitboard_input(ec) -> str | None:
    """The problem as bench/bitboard.c reads it, or None when it does not fit: every item
    primary, and the items split into at most 64 cells followed by piece items, each
    option holding exactly one piece item (or no piece items at all)."""
    if len(ec.colors) != 1 or ec.bounds is not None or ec.n_primary != ec.n_items or not ec.options:
        return None
    sets = [sorted(i for i, _ in opt) for opt in ec.options]
    n = ec.n_items
    for k in range(1, min(31, n - 1) + 1):
        if n - k <= 64 and all(sum(1 for i in s if i >= n - k) == 1 for s in sets):
            break
    else:
        if n > 64:
            return None
        k = 0
    cells = n - k
    lines = [f"{cells} {k} {len(sets)}"]
    for s in sets:
        own = [i for i in s if i < cells]
        if not own:
            return None
        piece = next((i - cells for i in s if i >= cells), -1)
        lines.append(f"{own[0]} {piece} {sum(1 << i for i in own):x}")
    return "\n".join(lines) + "\n"


def bitboard_binary() -> str:
    """bench/bitboard.c compiled with gcc -O2 (cached beside the temp files by mtime)."""
    import tempfile

    src = os.path.join(HERE, "bitboard.c")
    exe = os.path.join(tempfile.gettempdir(), f"tilecensus-bitboard-{int(os.path.getmtime(src))}")
    if not os.path.exists(exe):
        subprocess.run(["gcc", "-O2", "-o", exe + ".tmp", src], check=True)
        os.replace(exe + ".tmp", exe)
    return exe


def searched(s, budget: int | None):
    """Count with a Solver, as a dict with its nodes (and under a budget the share done)."""
    from core.search import SolveRequest

    def run():
        r = s.solve((), SolveRequest(node_budget=budget)) if budget else s.solve()
        out = {"count": r.count, "nodes": r.stats.nodes, "seconds": r.stats.seconds}
        if budget:
            out["done"] = float(r.weight_done)
        return out

    return run


def prepare(solver: str, ec, budget: int | None = None):
    """The solver's own input, and a function counting its solutions."""
    plain = len(ec.colors) == 1 and ec.bounds is None
    if solver == "kernel":
        from core.kernel import KernelSolver

        return searched(KernelSolver(ec), budget)
    if solver == "cheap":
        from core.bitboard import BitboardSolver, accepts

        if not accepts(ec):
            return None
        return searched(BitboardSolver(ec), budget)
    if solver == "levels":
        from core.frontier import accepts
        from core.kernel import KernelSolver

        if not accepts(ec):
            return None
        s = KernelSolver(ec, levels=True)
        return s.count
    if solver == "auto":
        from core.kernel import KernelSolver

        s = KernelSolver(ec, levels="auto")
        return s.count
    if solver == "reference":
        from core.reference import ReferenceSolver

        s = ReferenceSolver(ec)
        return s.count
    if solver == "naive":
        if not plain:
            return None
        return lambda: naive_count(ec)
    if solver == "bitboard":
        text = bitboard_input(ec)
        if text is None:
            return None
        exe = bitboard_binary()

        def run_bitboard():  # the program times its own count
            out = subprocess.run([exe], input=text, capture_output=True, text=True, check=True).stdout.split()
            return int(out[0]), float(out[2])

        return run_bitboard
    if solver == "xcover":
        if ec.bounds is not None:
            return None
        import xcover

        options = [[ec.items[i] + (":" + ec.colors[c] if c else "") for i, c in opt] for opt in ec.options]
        colored = len(ec.colors) > 1
        primary, secondary = list(ec.primary), list(ec.secondary)
        # numba compiles on the first call: warm up on a tiny problem first
        # (a problem with a single option trips an IndexError inside xcover 0.2.6)
        tiny = [["a", "b"], ["a"], ["b"]]
        sum(1 for _ in xcover.covers(tiny, primary=["a", "b"], secondary=[]))
        tiny = [["a", "x:1"], ["b", "x:1"], ["a", "b"], ["b", "x"]]
        sum(1 for _ in xcover.covers(tiny, primary=["a", "b"], secondary=["x"], colored=True))
        return lambda: sum(1 for _ in xcover.covers(options, primary=primary, secondary=secondary, colored=colored))
    if solver == "exact-cover":
        if not plain:
            return None
        import numpy as np
        import exact_cover

        rows = len(ec.options) + len(ec.secondary)
        matrix = np.zeros((rows, ec.n_items), dtype=bool)
        for k, opt in enumerate(ec.options):
            for i, _ in opt:
                matrix[k, i] = True
        for j in range(ec.n_primary, ec.n_items):  # at most once -> exactly once, with slack
            matrix[len(ec.options) + j - ec.n_primary, j] = True
        return lambda: int(exact_cover.get_solution_count(matrix))
    raise SystemExit(f"unknown solver {solver!r}")


def read_cover(path: str):
    """The exact cover of a DLX file or a polyform TOML file."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if path.endswith(".toml"):
        from core.polyform.problem import problem_from_text

        return problem_from_text(text, source_name=path, format="toml").exact_cover()
    from core.dlx_format import parse_dlx

    return parse_dlx(text, source=path)


def run_one(solver: str, path: str, repeat: int = 1, budget: int | None = None) -> dict:
    """In the subprocess: read the file, prepare, time the count (the best of `repeat`)."""
    sys.path.insert(0, ROOT)
    ec = read_cover(path)
    count = prepare(solver, ec, budget)
    if count is None:
        return {"status": "n/a"}
    if budget and solver not in ("kernel", "cheap"):
        return {"status": "n/a"}
    best = None
    for _ in range(max(1, repeat)):
        start = time.perf_counter()
        n = count()
        seconds = time.perf_counter() - start
        extra = {}
        if isinstance(n, tuple):  # (count, seconds timed by the solver itself)
            n, seconds = n
        elif isinstance(n, dict):  # a Solver's count, nodes and own time
            extra = n
            n, seconds = extra.pop("count"), extra.pop("seconds")
        if best is None or seconds < best["seconds"]:
            best = {"status": "ok", "count": n, "seconds": seconds, **extra}
    return best


# ---------------------------------------------------------------------------- the table
def expected_count(path: str) -> int | None:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"\|\s*solutions:\s*(\d+)", line)
            if m:
                return int(m.group(1))
    return None


def measure(solver: str, path: str, timeout: float, repeat: int = 1, budget: int | None = None) -> dict:
    cmd = [sys.executable, os.path.abspath(__file__), "--repeat", str(repeat), "--worker", solver, path]
    if budget:
        cmd += ["--budget", str(budget)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])[-1]
        return {"status": "error", "message": last}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cell(result: dict, base: float | None, expected: int | None, timeout: float) -> str:
    status = result["status"]
    if status == "timeout":
        return f">{timeout:g}s"
    if status == "n/a":
        return "n/a"
    if status == "error":
        return "error"
    text = f"{result['seconds']:.3f}s"
    if base:
        text += f" ({result['seconds'] / base:.1f}x)"
    if "nodes" in result:
        nodes = result["nodes"]
        text += f" {nodes / 1e6:.2f}M nodes {1e9 * result['seconds'] / max(1, nodes):.0f} ns/node"
    if "done" in result:
        share = result["done"]
        text += f", {share:.2e} done, whole ~{result['seconds'] / share / 3600:.2f} h" if share else ", 0 done"
        return text
    if expected is not None and result["count"] != expected:
        text += f" WRONG {result['count']}"
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default="", help="comma-separated names in bench/problems (default: all)")
    parser.add_argument("--files", nargs="*", default=[], help="other DLX files to time")
    parser.add_argument("--solvers", default=",".join(SOLVERS), help=f"comma-separated, from {','.join(SOLVERS)}")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per solver and problem")
    parser.add_argument("--json", action="store_true", help="print the raw results as JSON too")
    parser.add_argument("--repeat", type=int, default=1,
                        help="count this many times per solver and keep the best (a shared machine is noisy)")
    parser.add_argument("--budget", type=int, default=None,
                        help="kernel and cheap only: stop after this many nodes and estimate the whole count's time")
    parser.add_argument("--worker", nargs=2, metavar=("SOLVER", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(run_one(*args.worker, repeat=args.repeat, budget=args.budget)))
        return

    solvers = [s for s in args.solvers.split(",") if s]
    for s in solvers:
        if s not in SOLVERS:
            parser.error(f"unknown solver {s!r} (choose from {', '.join(SOLVERS)})")
    files = sorted(glob.glob(os.path.join(HERE, "problems", "*.dlx")))
    if args.problems:
        wanted = args.problems.split(",")
        files = [os.path.join(HERE, "problems", w + ".dlx") for w in wanted]
    files += args.files
    for f in files:
        if not os.path.exists(f):
            parser.error(f"no such problem file {f} (run bench/make_problems.py)")

    rows, raw = [], {}
    for path in files:
        name = os.path.splitext(os.path.basename(path))[0]
        expected = expected_count(path)
        results = {}
        for s in solvers:
            results[s] = measure(s, path, args.timeout, args.repeat, args.budget)
            print(f"  {name:22} {s:12} {results[s]}", file=sys.stderr, flush=True)
        raw[name] = results
        base = results.get("kernel", {}).get("seconds")
        counts = {r.get("count") for r in results.values() if r["status"] == "ok"}
        shown = expected if expected is not None else (counts.pop() if len(counts) == 1 else "?")
        rows.append([name, f"{shown:,}" if isinstance(shown, int) else shown]
                    + [cell(results[s], base if s != "kernel" else None, expected, args.timeout) for s in solvers])

    header = ["problem", "solutions"] + solvers
    widths = [max(len(str(r[k])) for r in rows + [header]) for k in range(len(header))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    best = f", best of {args.repeat}" if args.repeat > 1 else ""
    print(f"\ntimes: the count alone{best}, per solver, in a fresh process; (Nx) = time / kernel time; cap {args.timeout:g}s")
    print("kernel and cheap: nodes entered, and the count's time per node")
    if args.json:
        print(json.dumps(raw, indent=1))


if __name__ == "__main__":
    main()
