"""Distinct counts against plain counts, whole commands as the user waits (issue 43,
point 1). By hand, never in CI:

    .venv/bin/python bench/bench_distinct.py                    # the five problems, best of 3
    .venv/bin/python bench/bench_distinct.py --before /tmp/prev # and the previous release's --distinct
    .venv/bin/python bench/bench_distinct.py --repeat 5 --only pentomino-6x10 soma

For each problem, in turn (A B A B ... so that a drifting machine moves both alike): ``tilecensus
solve NAME --no-progress`` and ``tilecensus solve NAME --distinct --no-progress`` on a SQLite
ledger that exists, the least wall time of each and their ratio beside the target (the
distinct count within 1.2x of the plain one); with ``--before DIR`` also the ``--distinct``
command of the checkout in DIR (``python -m scheduler`` with DIR first on the path, its C
extensions built in place), and how many times faster this one is.  Every count is checked
against the library's published values (``problems``: the known solutions and distinct
counts), so a fast wrong answer fails the benchmark.

``--boards`` adds the big domino boards (``dominoes-16x16``, ``dominoes-20x20``), whose
folds are half a board and more (their distinct counts measure how each fold's method is
chosen): their totals are checked against Kasteleyn's formula (``tests/known_tilings.py``),
their classes against the previous release's where it finishes (``--before``; it searched
every fold: the 20x20's would not end, so leave it out there with ``--only``).
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TILECENSUS = str(Path(sys.executable).parent / "tilecensus")
PROBLEMS = ["pentomino-8x8-centre", "pentomino-6x10", "soma", "pentacubes-3x4x5", "pentomino-one-sided-5x18"]
TARGET = 1.2  # --distinct within this many times the plain count, whole command


def run(argv: list[str], db: str, root: str | None) -> tuple[float, dict]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["TILECENSUS_DB_URL"] = db
    if root is not None:
        env["PYTHONPATH"] = root
    started = time.perf_counter()
    done = subprocess.run([*argv, "--json"], env=env, cwd=root or ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, json.loads(done.stdout.strip().splitlines()[-1])


BOARDS = ["dominoes-16x16", "dominoes-20x20"]


def known() -> dict[str, dict]:
    out = subprocess.run([TILECENSUS, "problems", "--json"], capture_output=True, text=True, check=True).stdout
    found = {p["name"]: p.get("known") or {} for p in json.loads(out)["problems"]}
    sys.path.insert(0, str(ROOT / "tests"))
    from known_tilings import kasteleyn

    for name in BOARDS:
        rows, cols = (int(d) for d in name.split("-")[1].split("x"))
        found[name] = {"solutions": kasteleyn(rows, cols)}
    return found


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--before", metavar="DIR", help="a checkout of the previous release, built in place")
    ap.add_argument("--only", nargs="+", default=None)
    ap.add_argument("--boards", action="store_true", help="also the 16x16 and 20x20 domino boards")
    args = ap.parse_args()
    names = args.only or PROBLEMS + (BOARDS if args.boards else [])
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {platform.machine()}, {os.cpu_count()} cores, "
          f"best of {args.repeat} whole commands")
    published = known()
    header = f"{'problem':26} {'solve':>8} {'--distinct':>11} {'ratio':>6} {'target':>7}"
    print(header + (f" {'before':>8} {'faster':>7}" if args.before else ""))
    with tempfile.TemporaryDirectory(prefix="bench-distinct-") as tmp:
        now_db, before_db = f"sqlite:///{tmp}/now.sqlite", f"sqlite:///{tmp}/before.sqlite"
        for name in names:
            plain = [TILECENSUS, "solve", name, "--no-progress"]
            distinct = [*plain, "--distinct"]
            before = [sys.executable, "-m", "scheduler", "solve", name, "--no-progress", "--distinct"]
            times: dict[str, list[float]] = {"plain": [], "distinct": [], "before": []}
            for _ in range(args.repeat + 1):  # the first of each writes caches and the ledger: not counted
                for key, argv, db, root in (("plain", plain, now_db, None), ("distinct", distinct, now_db, None),
                                            ("before", before, before_db, args.before)):
                    if key == "before" and not args.before:
                        continue
                    seconds, out = run(argv, db, root)
                    want = published.get(name, {})
                    got = {"solutions": out["solutions"], "distinct": out.get("distinct")}
                    if "distinct" not in want and key != "plain":  # the first --distinct's classes, the other's checked
                        want["distinct"] = got["distinct"]
                    if got["solutions"] != want.get("solutions") or (key != "plain" and got["distinct"] != want.get("distinct")):
                        sys.exit(f"{name} ({key}): {got}, published {want}")
                    times[key].append(seconds)
            p, d = min(times["plain"][1:]), min(times["distinct"][1:])
            line = f"{name:26} {p:7.2f}s {d:10.2f}s {d / p:5.2f}x {TARGET:6.1f}x"
            if args.before:
                b = min(times["before"][1:])
                line += f" {b:7.2f}s {b / d:6.2f}x"
            print(line, flush=True)


if __name__ == "__main__":
    main()
