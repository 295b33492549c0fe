"""Large tilings by hand (never in CI): the default count of each target board, its
estimate beside it, the counts against independent values, and a term past the published
tables computed twice by different splits.

    .venv/bin/python bench/bench_levels.py                      # the issue's targets
    .venv/bin/python bench/bench_levels.py --problems tetrominoes-12x12,pentominoes-10x12
    .venv/bin/python bench/bench_levels.py --beyond tetrominoes-12x16 --no-targets

For each problem, in fresh processes on fresh SQLite ledgers, side by side:

* ``estimate NAME --json``: the whole command's seconds (target: 5), and the seconds it
  projects for the count, with its band;
* ``solve NAME --json``: the run's own seconds (the ledger's, from the end of reading the
  problem to the run's close) and the whole command's, the count, and whether it equals
  the independent value where there is one (Kasteleyn's product for dominoes, A174248's
  generating function for tetrominoes on 4 x n, published terms: ``tests/known_tilings.py``);
* the estimate over the real run's seconds (target: within 3x either way).

``--beyond NAME`` counts NAME twice, by the default plan (one share on every core as
threads) and by ``--level-shares 2x3`` (two groups of its moduli x three slices of the
states at the middle level: six subproblems), and says whether the two agree.
Figures go to docs/performance.md ("Large tilings").
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
sys.path.insert(0, os.path.join(ROOT, "tests"))

from known_tilings import A174249, A230031_ROWS, A233427_ROW_10, a174248, kasteleyn  # noqa: E402

#: problem -> the run's seconds it must stay within (issue 39)
TARGETS = {
    "tetrominoes-10x10": 5.0,
    "pentominoes-8x10": 30.0,
    "pentominoes-10x10": 600.0,
    "tetrominoes-4x1000": 10.0,
    "dominoes-20x20": 10.0,
    "dominoes-24x24": 120.0,
}


def known(name: str) -> int | None:
    """The count computed or published independently of this code, where there is one."""
    family, size = name.split("-", 1)
    r, c = (int(x) for x in size.split("x"))
    if family == "dominoes":
        return kasteleyn(r, c)
    if family == "tetrominoes" and 4 in (r, c):
        return a174248(max(r, c) + 1)[max(r, c)]
    if family == "tetrominoes" and min(r, c) in A230031_ROWS and max(r, c) <= 8:
        return A230031_ROWS[min(r, c)][max(r, c)]
    if family == "pentominoes" and 5 in (r, c) and max(r, c) < len(A174249):
        return A174249[max(r, c)]
    if family == "pentominoes" and 10 in (r, c) and min(r, c) < len(A233427_ROW_10):
        return A233427_ROW_10[min(r, c)]
    return None


def run(*args: str, timeout: float = 3600) -> tuple[dict, float]:
    """A tilecensus command in a fresh process on a fresh ledger: its --json and the
    whole command's seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TILECENSUS_DB_URL=f"sqlite:///{tmp}/ledger.sqlite")
        started = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "scheduler", *args, "--json"], capture_output=True, text=True,
                              timeout=timeout, env=env, cwd=ROOT)
        took = time.perf_counter() - started
    if proc.returncode != 0:
        return {"failed": (proc.stderr.strip().splitlines() or ["?"])[-1]}, took
    sys.set_int_max_str_digits(0)
    return json.loads(proc.stdout), took


def target_row(name: str, limit: float | None) -> dict:
    est, est_took = run("estimate", name, timeout=120)
    solved, took = run("solve", name, "--no-progress")
    row = {"problem": name, "estimate_command_s": round(est_took, 2), "whole_s": round(took, 2)}
    if "failed" in solved:
        return {**row, "failed": solved["failed"]}
    row.update(run_s=solved["seconds"], digits=len(str(solved["solutions"])), count=solved["solutions"])
    expected = known(name)
    row["independent"] = None if expected is None else expected == solved["solutions"]
    levels = est.get("levels") or {}
    if levels:
        row.update(projected_s=levels["seconds"], projected_low=levels["seconds_low"],
                   projected_high=levels["seconds_high"], projected_ratio=levels["seconds"] / solved["seconds"])
    row["target_s"] = limit
    return row


def beyond(name: str) -> dict:
    """The count twice, by two splits: one share on every core, and 2 groups x 3 slices."""
    whole, t1 = run("solve", name, "--no-progress")
    shared, t2 = run("solve", name, "--no-progress", "--level-shares", "2x3")
    return {"problem": name, "default": whole.get("solutions"), "default_s": round(t1, 1),
            "shares_2x3": shared.get("solutions"), "shares_2x3_s": round(t2, 1),
            "subproblems": (whole.get("subproblems"), shared.get("subproblems")),
            "agree": whole.get("solutions") is not None and whole.get("solutions") == shared.get("solutions")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default=",".join(TARGETS), help="comma-separated names")
    parser.add_argument("--no-targets", action="store_true", help="only --beyond")
    parser.add_argument("--beyond", default=None, help="a term past the published tables, counted twice")
    args = parser.parse_args()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    out: dict = {"targets": [], "beyond": None}
    if not args.no_targets:
        print("| problem | digits | run s | whole s | target | estimate s (band) | est/real | estimate cmd s | "
              "independent |")
        print("|---|---|---|---|---|---|---|---|---|")
        for name in args.problems.split(","):
            row = target_row(name, TARGETS.get(name))
            out["targets"].append(row)
            if "failed" in row:
                print(f"| {name} | | | {row['whole_s']} | | | | | {row['failed']} |")
                continue
            band = (f"{row['projected_s']:.3g} ({row['projected_low']:.3g}-{row['projected_high']:.3g})"
                    if "projected_s" in row else "exact")
            ratio = f"{row['projected_ratio']:.2f}" if "projected_ratio" in row else ""
            check = {True: "equal", False: "DIFFERENT", None: "none published"}[row["independent"]]
            target = f"{row['target_s']:g}" if row["target_s"] else ""
            print(f"| {name} | {row['digits']} | {row['run_s']:.2f} | {row['whole_s']:.2f} | {target} | {band} | "
                  f"{ratio} | {row['estimate_command_s']:.2f} | {check} |", flush=True)
    if args.beyond:
        out["beyond"] = b = beyond(args.beyond)
        print(f"\n{b['problem']}: default {b['default']} ({b['default_s']} s), 2x3 shares {b['shares_2x3']} "
              f"({b['shares_2x3_s']} s); subproblems {b['subproblems']}; agree: {b['agree']}")
    os.makedirs(os.path.join(HERE, "out"), exist_ok=True)
    with open(os.path.join(HERE, "out", "bench_levels.json"), "w") as f:
        json.dump(out, f, indent=1, default=str)


if __name__ == "__main__":
    main()
