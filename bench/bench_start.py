"""Start-up and big-board build times, whole processes, beside their targets (issue 21,
points 4 and 5).  By hand, never in CI:

    .venv/bin/python bench/bench_start.py              # start-up, best of 5
    .venv/bin/python bench/bench_start.py --build      # also the 200x200 domino build
    .venv/bin/python bench/bench_start.py --repeat 9
    .venv/bin/python bench/bench_start.py --root /tmp/before   # another checkout (built in place)

Start-up, each the best of ``--repeat`` fresh processes (wall time, from fork to exit):

* ``tilecensus --help`` (target under 0.2 s);
* ``tilecensus solve pentomino-6x10 --no-progress`` on a SQLite ledger that already
  exists (target under 0.5 s) and on a fresh one each time (Alembic creates the schema);
* for scale, what the host sets under them: the interpreter doing nothing, and
  ``import sqlalchemy.orm`` (the ledger's library; on a slow host alone near the target).

Build (``--build``): ``dominoes-200x200`` read, its placements found and its cover
loaded into the kernel, in one fresh process, timed inside it; then what ``solve`` does
before its count starts (load again, choose the method, the symmetry group, the
planner's trial: :func:`scheduler.planning.prepare`).  The issue asks that 200x200
starts counting in seconds.

``--root DIR`` times the checkout in DIR instead (``python -m scheduler`` with DIR first on
the path; its C extensions built in place), to compare with the code before a change.

Python is run with bytecode caching on (the environment's PYTHONDONTWRITEBYTECODE is
dropped for the children), as an installed package runs; one unmeasured run of each
command first writes the caches.
"""
from __future__ import annotations

import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
TILECENSUS = str(BIN / "tilecensus")

TARGETS = {"--help": 0.2, "solve, ledger exists": 0.5, "solve, fresh ledger": None, "python, nothing": None,
           "import sqlalchemy": None}

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


ROOTED: str | None = None  # --root


def command() -> list[str]:
    """How ``tilecensus`` is started: the console script, or ``python -m scheduler`` of --root."""
    return [TILECENSUS] if ROOTED is None else [sys.executable, "-m", "scheduler"]


def child_env(db_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if ROOTED is not None:
        env["PYTHONPATH"] = ROOTED
    if db_url is not None:
        env["TILECENSUS_DB_URL"] = db_url
    return env


def wall(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Seconds one process takes, start to exit, and the CPU seconds it used (user and
    system: on a busy machine, the steadier figure); its failure ends the benchmark."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, cwd=ROOTED or ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)  # (the working directory comes first on the path of ``-m``)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best(argv: list[str], repeat: int, env_of) -> tuple[float, float]:
    """The least wall time and the least CPU time of ``repeat`` runs."""
    wall(argv, env_of(-1))  # writes the bytecode caches (and, for a kept ledger, the ledger)
    runs = [wall(argv, env_of(i)) for i in range(repeat)]
    return min(w for w, _ in runs), min(c for _, c in runs)


def start_up(repeat: int) -> dict[str, tuple[float, float]]:
    solve = [*command(), "solve", "pentomino-6x10", "--no-progress"]
    with tempfile.TemporaryDirectory(prefix="bench-start-") as tmp:
        kept = f"sqlite:///{tmp}/kept.sqlite"
        return {
            "--help": best([*command(), "--help"], repeat, lambda i: child_env()),
            "solve, ledger exists": best(solve, repeat, lambda i: child_env(kept)),
            "solve, fresh ledger": best(solve, repeat, lambda i: child_env(f"sqlite:///{tmp}/fresh{i + 1}.sqlite")),
            # what the host sets under any command: the interpreter, and the ledger's library
            # (the larger half of a solve's start; the host's speed moves both)
            "python, nothing": best([sys.executable, "-c", "pass"], repeat, lambda i: child_env()),
            "import sqlalchemy": best([sys.executable, "-c", "import sqlalchemy.orm"], repeat, lambda i: child_env()),
        }


def build() -> tuple[float, float, float]:
    out = subprocess.run([sys.executable, "-c", BUILD], env=child_env(), cwd=ROOTED or ROOT, check=True,
                         stdout=subprocess.PIPE, text=True).stdout.split()
    return float(out[0]), float(out[1]), float(out[2])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5, help="processes per command; the best counts")
    ap.add_argument("--build", action="store_true", help="also time building the 200x200 domino board")
    ap.add_argument("--root", metavar="DIR", help="time the checkout in DIR (python -m scheduler)")
    args = ap.parse_args()
    global ROOTED
    ROOTED = args.root
    load = os.getloadavg()[0]
    print(f"{time.strftime('%Y-%m-%d')}  {platform.machine()}, {os.cpu_count()} CPUs, load {load:.1f}, "
          f"Python {platform.python_version()}; best of {args.repeat}; {args.root or ROOT}")
    print(f"{'command':<24} {'wall s':>8} {'CPU s':>8}  target (wall)")
    for name, (seconds, cpu) in start_up(args.repeat).items():
        target = TARGETS[name]
        verdict = "" if target is None else f"< {target:g} s  {'met' if seconds < target else 'MISSED'}"
        print(f"{name:<24} {seconds:8.3f} {cpu:8.3f}  {verdict}")
    if args.build:
        placed, loaded, planned = build()
        print(f"{'dominoes-200x200 built':<24} {placed:8.2f}   (placements and cover; the kernel loaded at "
              f"{loaded:.2f} s; target: seconds)")
        print(f"{'  ... then planned':<24} {planned:8.2f}   (solve's planning, from a fresh load: the method "
              f"chosen, the symmetry, a trial; the count starts)")


if __name__ == "__main__":
    main()
