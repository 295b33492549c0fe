"""Start-up and small problems, whole processes, beside their targets (issue 21, points
4 and 5; issue 43, part 2), and side by side with another checkout.  By hand, never in CI:

    .venv/bin/python bench/bench_start.py              # start-up, best of 5
    .venv/bin/python bench/bench_start.py --before /tmp/prev   # and the previous release, runs alternating
    .venv/bin/python bench/bench_start.py --build      # also the 200x200 domino board's build
    .venv/bin/python bench/bench_start.py --repeat 9
    .venv/bin/python bench/bench_start.py --root /tmp/prev     # another checkout alone

Each command is the best of ``--repeat`` fresh processes (wall time, from fork to exit,
and CPU time, user and system: on a busy machine, the steadier figure):

* ``tilecensus --help`` (target under 0.1 s);
* ``tilecensus solve pentomino-8x8-centre --distinct`` on a SQLite ledger that already
  exists (target under 0.3 s): its planning's trial counts the whole tree;
* ``tilecensus solve pentomino-6x10`` on a ledger that exists (target under 0.35 s), and
  on a fresh one each time (Alembic creates the schema);
* for scale, what the host sets under them: the interpreter doing nothing, and
  ``import sqlalchemy.orm`` (the ledger's library, which a small run no longer loads).

``--before DIR`` times the checkout in DIR beside this one — the previous release, say
``git worktree add /tmp/prev <commit>`` with its C extensions built in place (``python
setup.py build_ext --inplace``, or the same ``.so`` files where the C is unchanged) — each
command's runs alternating, this checkout then DIR, each with its own ledger; both are
started as ``python -P -m scheduler`` from their own directory, and the ratio is the median
of the pairs' (this / DIR).  ``--root DIR`` times DIR alone in place of this checkout.

Build (``--build``): ``dominoes-200x200`` read, its placements found and its cover
loaded into the kernel, in one fresh process, timed inside it; then what ``solve`` does
before its count starts (load again, choose the method, the symmetry group, the
planner's trial: :func:`scheduler.planning.prepare`).  The issue asks that 200x200
starts counting in seconds.

Python is run with bytecode caching on (the environment's PYTHONDONTWRITEBYTECODE is
dropped for the children), as an installed package runs; one unmeasured run of each
command first writes the caches (and the kept ledger).
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TILECENSUS = str(BIN / "tilecensus")

#: name: (the command's arguments, its ledger — None, "kept" (one that exists) or
#: "fresh" (a new file each run) — and its target in seconds, wall, or None)
COMMANDS: dict[str, tuple[list[str], str | None, float | None]] = {
    "--help": (["--help"], None, 0.1),
    "solve 8x8-centre --distinct": (["solve", "pentomino-8x8-centre", "--distinct", "--no-progress"], "kept", 0.3),
    "solve 6x10, ledger exists": (["solve", "pentomino-6x10", "--no-progress"], "kept", 0.35),
    "solve 6x10, fresh ledger": (["solve", "pentomino-6x10", "--no-progress"], "fresh", None),
}
#: what the host sets under any command: the interpreter, and the ledger's library
HOST = {"python, nothing": ["-c", "pass"], "import sqlalchemy.orm": ["-c", "import sqlalchemy.orm"]}

BUILD = """
import time
from core.library import load
from core.engines import solver_for
from scheduler.planning import RunRequest, prepare
from scheduler.run_options import Mode, RunOptions
from core.solver_options import Method, SolverOptions
started = time.perf_counter()
problem = load("dominoes-200x200")
problem.exact_cover()
built = time.perf_counter()
solver_for(problem)
loaded = time.perf_counter()
asked = RunOptions(solver=SolverOptions(method=Method.AUTO, symmetry=True))  # what solve asks by default
prepare(RunRequest("dominoes-200x200", None, Mode.COUNT, asked, estimate=False), workers=2)
print(f"{built - started:.2f} {loaded - started:.2f} {time.perf_counter() - loaded:.2f}")
"""


class Checkout:
    """How one checkout's ``tilecensus`` is started: the console script of this
    environment, or ``python -P -m scheduler`` from the checkout's directory (``root``)."""

    def __init__(self, root: str | None, module: bool):
        self.root = root
        self.module = module or root is not None

    def command(self, args: list[str]) -> list[str]:
        return [sys.executable, "-P", "-m", "scheduler", *args] if self.module else [TILECENSUS, *args]

    def env(self, db_url: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "TILECENSUS_DB_URL")}
        env["PYTHONPATH"] = str(self.root or ROOT)
        if db_url is not None:
            env["TILECENSUS_DB_URL"] = db_url
        return env

    @property
    def cwd(self) -> str:
        return str(self.root or ROOT)


def wall(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, float]:
    """Seconds one process takes, start to exit, and the CPU seconds it used (user and
    system); its failure ends the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timed(checkouts: list[Checkout], repeat: int, tmp: str) -> dict[str, list[list[tuple[float, float]]]]:
    """Each command's runs for each checkout, ``repeat`` of each, the checkouts in turn
    within each round (after one unmeasured run of each)."""
    out: dict[str, list[list[tuple[float, float]]]] = {}
    for name, (args, ledger, _) in COMMANDS.items():
        runs: list[list[tuple[float, float]]] = [[] for _ in checkouts]
        for i in range(-1, repeat):
            for k, c in enumerate(checkouts):
                url = None if ledger is None else (f"sqlite:///{tmp}/kept{k}.sqlite" if ledger == "kept"
                                                   else f"sqlite:///{tmp}/fresh{k}-{i + 1}.sqlite")
                measured = wall(c.command(args), c.env(url), c.cwd)
                if i >= 0:
                    runs[k].append(measured)
        out[name] = runs
    for name, args in HOST.items():
        out[name] = [[wall([sys.executable, *args], checkouts[0].env(), checkouts[0].cwd) for _ in range(repeat)]]
    return out


def build(checkout: Checkout) -> tuple[float, float, float]:
    out = subprocess.run([sys.executable, "-c", BUILD], env=checkout.env(), cwd=checkout.cwd, check=True,
                         stdout=subprocess.PIPE, text=True).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="processes per command; the best counts")
    ap.add_argument("--build", action="store_true", help="also time building the 200x200 domino board")
    ap.add_argument("--root", metavar="DIR", help="time the checkout in DIR (python -P -m scheduler) instead")
    ap.add_argument("--before", metavar="DIR", help="and the checkout in DIR beside it, runs alternating")
    args = ap.parse_args()
    here = Checkout(args.root, module=args.before is not None)
    checkouts = [here] + ([Checkout(args.before, module=True)] if args.before else [])
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d')}  {platform.machine()}, {os.cpu_count()} CPUs, load {load:.1f}, "
          f"Python {platform.python_version()}; best of {args.repeat}; {args.root or ROOT}"
          + (f" beside {args.before}" if args.before else ""))
    before = f" {'before s':>9} {'CPU s':>7} {'ratio':>6}" if args.before else ""
    print(f"{'command':<30} {'wall s':>7} {'CPU s':>7}{before}  target (wall)")
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        results = timed(checkouts, args.repeat, tmp)
    for name, runs in results.items():
        target = COMMANDS[name][2] if name in COMMANDS else None
        seconds, cpu = min(w for w, _ in runs[0]), min(c for _, c in runs[0])
        line = f"{name:<30} {seconds:7.3f} {cpu:7.3f}"
        if args.before:
            if len(runs) > 1:
                ratio = statistics.median(a[0] / b[0] for a, b in zip(runs[0], runs[1]))
                line += f" {min(w for w, _ in runs[1]):9.3f} {min(c for _, c in runs[1]):7.3f} {ratio:6.2f}"
            else:
                line += " " * len(before)
        verdict = "" if target is None else f"< {target:g} s  {'met' if seconds < target else 'MISSED'}"
        print(f"{line}  {verdict}".rstrip())
    if args.build:
        placed, loaded, planned = build(here)
        print(f"{'dominoes-200x200 built':<30} {placed:7.2f}   (placements and cover; the kernel loaded at "
              f"{loaded:.2f} s; target: seconds)")
        print(f"{'  ... then planned':<30} {planned:7.2f}   (solve's planning, from a fresh load: the method "
              f"chosen, the symmetry, a trial; the count starts)")


if __name__ == "__main__":
    main()
