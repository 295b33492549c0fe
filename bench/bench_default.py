"""The default `tilecensus solve NAME --json` against xcover and exact-cover, side by side
in one run (by hand, never in CI): what a user waits for, against the peers' count of the
same exact cover.

    .venv/bin/pip install -c constraints.txt -e '.[bench]'
    .venv/bin/python bench/bench_default.py                       # the issue's targets
    .venv/bin/python bench/bench_default.py --problems soma,pentomino-6x10 --methods
    .venv/bin/python bench/bench_default.py --library --methods   # every polyform in the library

For each problem, best of ``--repeat``:

* ``default``: ``tilecensus solve NAME --json --no-progress`` in a fresh process on a fresh
  SQLite ledger, timed as the run's own ``seconds`` (the ledger's: from the end of
  reading the problem to the run's close — planning, the workers and the ledger
  included, the process start and reading the file left out);
* with ``--methods``: the same with ``--by-search``, ``--by-levels`` and each other
  method named by hand, and the ratio of the default to the best of them (the automatic
  choice must stay within 1.5x of the best);
* ``xcover`` (numba dancing cells, enumerating to count) and ``exact-cover`` (C dancing
  links), each counting the problem's exact cover written out as a DLX file, timed as
  bench_kernel.py times them (the count alone, in a fresh process).

Targets (issue 20): pentacubes-3x4x5 at least 20x xcover, pentomino-8x8-centre 10x, soma
20x, pentomino-6x10 25x; the one-sided pentominoes in 6x15 within 10 minutes, 5x18 within
30 s, 3x30 under a second.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import bench_kernel  # noqa: E402  (xcover and exact-cover, run in fresh processes)

#: problem -> the ratio to xcover it must reach (None: a time limit instead)
TARGETS = {
    "pentacubes-3x4x5": 20.0,
    "pentomino-8x8-centre": 10.0,
    "soma": 20.0,
    "pentomino-6x10": 25.0,
    "pentomino-one-sided-3x30": None,
    "pentomino-one-sided-5x18": None,
    "pentomino-one-sided-6x15": None,
}
#: seconds the default run may take (where the target is a time)
TIME_LIMITS = {"pentomino-one-sided-3x30": 1.0, "pentomino-one-sided-5x18": 30.0, "pentomino-one-sided-6x15": 600.0}
#: the methods named by hand, compared with the default's automatic choice
METHODS = {"search": ["--by-search"], "bitboard": ["--by-bitboard"], "levels": ["--by-levels"]}


def tilecensus(name: str, flags: list[str], timeout: float) -> dict:
    """One ``tilecensus solve`` in a fresh process on a fresh ledger: its --json, or a
    status."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TILECENSUS_DB_URL=f"sqlite:///{tmp}/ledger.sqlite")
        cmd = [sys.executable, "-m", "scheduler", "solve", name, "--json", "--no-progress", *flags]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=ROOT)
        except subprocess.TimeoutExpired:
            return {"status": "timeout"}
    if proc.returncode == 2:
        return {"status": "n/a", "message": proc.stderr.strip()}
    if proc.returncode != 0:
        return {"status": "error", "message": (proc.stderr.strip().splitlines() or ["?"])[-1]}
    data = json.loads(proc.stdout)
    return {"status": "ok", "count": data["solutions"], "distinct": data.get("distinct"), "seconds": data["seconds"],
            "cpu_seconds": data["cpu_seconds"], "nodes": data["nodes"], "subproblems": data["subproblems"]}


def best_of(repeat: int, run) -> dict:
    best: dict | None = None
    for _ in range(repeat):
        result = run()
        if result["status"] != "ok":
            return result
        if best is None or result["seconds"] < best["seconds"]:
            best = result
    return best or {"status": "error"}


def dlx_file(name: str, folder: str) -> str:
    """The problem's exact cover as a DLX file (what the peers read)."""
    from core.dlx_format import format_dlx
    from core.library import load

    path = os.path.join(folder, f"{name}.dlx")
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(format_dlx(load(name).exact_cover()))
    return path


def machine() -> str:
    cpu = "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            cpu = next(line.split(":", 1)[1].strip() for line in fh if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return (f"{platform.machine()}, {os.cpu_count()} cores ({cpu}), Python {platform.python_version()}, "
            f"{time.strftime('%Y-%m-%d')}")


def seconds(result: dict, timeout: float) -> str:
    status = result["status"]
    if status == "timeout":
        return f">{timeout:g} s"
    if status != "ok":
        return status
    return f"{result['seconds']:.3f} s"


def print_table(header: list[str], table: list[list]) -> None:
    """A Markdown table, its columns padded to their widest cell."""
    widths = [max(len(str(r[k])) for r in table + [header]) for k in range(len(header))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in table:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default=",".join(TARGETS), help="comma-separated built-in names")
    parser.add_argument("--library", action="store_true", help="every polyform problem of the library too")
    parser.add_argument("--methods", action="store_true", help="each method by hand too, and the default's ratio")
    parser.add_argument("--peers", default="xcover,exact-cover", help="comma-separated: xcover, exact-cover, or none")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--peer-timeout", type=float, default=300.0, help="seconds per peer count")
    args = parser.parse_args()

    names = [n for n in args.problems.split(",") if n]
    if args.library:
        from core.library import library

        names += [e.name for e in library() if e.spec.get("kind") == "polyform" and e.name not in names]
    peers = [p for p in args.peers.split(",") if p and p != "none"]
    print(f"machine: {machine()}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            row: dict = {"problem": name, "default": best_of(args.repeat, lambda: tilecensus(name, [], args.timeout))}
            print(f"  {name:28} default  {row['default']}", file=sys.stderr, flush=True)
            if args.methods:
                for method, flags in METHODS.items():
                    row[method] = best_of(args.repeat, lambda: tilecensus(name, flags, args.timeout))
                    print(f"  {name:28} {method:8} {row[method]}", file=sys.stderr, flush=True)
            if peers:
                path = dlx_file(name, folder)
                for peer in peers:
                    row[peer] = bench_kernel.measure(peer, path, args.peer_timeout, args.repeat)
                    print(f"  {name:28} {peer:8} {row[peer]}", file=sys.stderr, flush=True)
            rows.append(row)

    header = ["problem", "solutions", "default"] + (list(METHODS) + ["default/best"] if args.methods else []) + peers
    if "xcover" in peers:
        header.append("xcover/default")
    header.append("target")
    table = []
    for row in rows:
        d = row["default"]
        line = [row["problem"], f"{d['count']:,}" if d["status"] == "ok" else "?", seconds(d, args.timeout)]
        if args.methods:
            line += [seconds(row[m], args.timeout) for m in METHODS]
            times = [row[m]["seconds"] for m in METHODS if row[m]["status"] == "ok"]
            line.append(f"{d['seconds'] / min(times):.2f}x" if times and d["status"] == "ok" else "?")
        line += [seconds(row[p], args.peer_timeout) for p in peers]
        ratio = None
        if "xcover" in peers:
            x = row["xcover"]
            ratio = x["seconds"] / d["seconds"] if x["status"] == "ok" and d["status"] == "ok" else None
            line.append(f"{ratio:.1f}x" if ratio is not None else "?")
        want = TARGETS.get(row["problem"])
        if want is not None and "xcover" not in peers:
            line.append(f">= {want:g}x xcover: not measured (--peers)")
        elif want is not None:
            line.append(f">= {want:g}x: {'met' if ratio is not None and ratio >= want else 'NOT met'}")
        elif row["problem"] in TIME_LIMITS:
            limit = TIME_LIMITS[row["problem"]]
            met = d["status"] == "ok" and d["seconds"] <= limit
            line.append(f"<= {limit:g} s: {'met' if met else 'NOT met'}")
        else:
            line.append("")
        table.append(line)
    print_table(header, table)
    print(f"\nbest of {args.repeat}; default = `tilecensus solve NAME --json` (the run's own seconds); "
          f"peers: the count alone of the same exact cover as a DLX file, in a fresh process")


if __name__ == "__main__":
    main()
