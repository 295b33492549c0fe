"""How fast a signal ends a local run, and what the C searches' signal check costs, by hand:

    .venv/bin/python bench/bench_interrupts.py [--problem dominoes-7x10] [--repeat 3]

1. ``tilecensus solve PROBLEM --no-memo --by-search --no-symmetry --workers 2`` (every
   solution visited: a long count), sent SIGINT and then, in another run, SIGTERM 2 s
   after its pool started: the seconds from the signal to the command's exit (its pool
   processes stopped, what finished recorded, the run marked interrupted), against the
   target of 1 s;
2. the kernel's node rate (per CPU second) counting dominoes-8x8 without the memo, in
   this process (the signal check: a GIL round trip per 16,384 nodes), best of
   ``--repeat``; compare it with the same line on a build without the check.

Results go to stdout and bench/out/bench_interrupts.json.
"""
from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: the issue's target: the first Ctrl-C or SIGTERM stops the run within a second
TARGET_SECONDS = 1.0


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True)
    return [int(p) for p in out.stdout.split()]


def seconds_to_exit(problem: str, signum: int) -> tuple[float, int]:
    """Start the count, signal it 2 s after its pool started; (seconds to exit, status)."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, TILECENSUS_DB_URL=f"sqlite:///{tmp}/ledger.sqlite")
        proc = subprocess.Popen([sys.executable, "-m", "scheduler", "solve", problem, "--no-memo", "--by-search",
                                 "--no-symmetry", "--workers", "2", "--no-progress"], cwd=ROOT, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while len(_children(proc.pid)) < 2 and proc.poll() is None:
            time.sleep(0.05)
        time.sleep(2)
        if proc.poll() is not None:
            raise SystemExit(f"{problem} ended before the signal: pick a bigger one")
        sent = time.perf_counter()
        proc.send_signal(signum)
        status = proc.wait()
        return time.perf_counter() - sent, status


def kernel_rate(repeat: int) -> float:
    """Nodes per second of the kernel counting dominoes-8x8 by visiting every tiling."""
    from core.kernel import KernelSolver
    from core.library import load

    solver = KernelSolver(load("dominoes-8x8").exact_cover(), memo=False)
    best = 0.0
    for _ in range(repeat):  # CPU seconds: the machine's other load does not count
        started = time.process_time()
        result = solver.solve(())
        best = max(best, result.stats.nodes / (time.process_time() - started))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--problem", default="dominoes-7x10")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    out: dict = {"problem": args.problem, "target_seconds": TARGET_SECONDS}
    for signum in (signal.SIGINT, signal.SIGTERM):
        took, status = seconds_to_exit(args.problem, signum)
        name = signal.Signals(signum).name
        out[name] = {"seconds": round(took, 3), "exit_status": status}
        print(f"{name}: exit {status} after {took:.2f} s (target <= {TARGET_SECONDS:.0f} s: "
              f"{took / TARGET_SECONDS:.2f} of it)")
    rate = kernel_rate(args.repeat)
    out["kernel_nodes_per_second"] = round(rate)
    print(f"kernel, dominoes-8x8 without the memo: {rate / 1e6:.1f} M nodes per CPU second (best of {args.repeat})")
    dest = ROOT / "bench" / "out"
    dest.mkdir(exist_ok=True)
    (dest / "bench_interrupts.json").write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
