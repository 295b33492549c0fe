"""Peak memory of one deep kernel search (run by hand, never in CI).

    .venv/bin/python bench/bench_kernel_memory.py                            # dominoes-200x200, 60 s
    .venv/bin/python bench/bench_kernel_memory.py --problem dominoes-2x3000 --seconds 10

Builds the problem's kernel solver (``load(NAME).solver()``, the default search), then
counts from the root under a time budget, and prints the process's resident memory after
the build, its largest value while the search ran (a thread reads ``/proc/self/status``
every 50 ms while the kernel, which releases the GIL, searches — until 0.2 s before the
budget ends), and the peak after the call returned
(``resource.getrusage``): a budget stop hands back the frontier — the untried siblings
of every level, each as its whole path — which on a search 20,000 levels deep is itself
large.  With the nodes searched, the deepest level reached and, where the kernel reports
it, its own state's size (``state_bytes``).  Run it against another checkout
with ``PYTHONPATH=/that/checkout`` to compare two kernels.
"""
from __future__ import annotations

import argparse
import resource
import threading
import time

from core import _kernel
from core.library import load


def peak_rss_mb() -> float:
    """The process's peak resident set so far, in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mb() -> float:
    """The process's resident set now, in MB."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class RssSampler(threading.Thread):
    """The largest resident set seen every 50 ms until ``until`` (a perf_counter time)."""

    def __init__(self, until: float) -> None:
        super().__init__(daemon=True)
        self.peak = rss_mb()
        self.until = until
        self.done = threading.Event()

    def run(self) -> None:
        while not self.done.wait(0.05) and time.perf_counter() < self.until:
            self.peak = max(self.peak, rss_mb())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problem", default="dominoes-200x200", help="a built-in name or a problem file")
    parser.add_argument("--seconds", type=float, default=60.0, help="the search's time budget")
    parser.add_argument("--memo", action="store_true", help="let the counting memo run too (off by default: it "
                        "takes up to 256 MB of its own, which would hide the search's growth)")
    args = parser.parse_args()
    started = time.perf_counter()
    solver = load(args.problem).solver()
    built = time.perf_counter() - started
    before = rss_mb()
    sampler = RssSampler(time.perf_counter() + args.seconds - 0.2)
    sampler.start()
    out = _kernel.solve(solver._problem, [], False, -1, -1, args.seconds, -1,
                        (256 << 20) if args.memo else 0, solver.given)
    sampler.done.set()
    sampler.join()
    after = peak_rss_mb()
    state = getattr(out, "state_bytes", None)
    # a search that ended before the sampler's window (a count that would pass 2^128 hands
    # the rest on early) was sampled while its frontier was converted too
    early = " (it stopped early: frontier included)" if out.seconds < args.seconds - 0.2 else ""
    print(f"{args.problem}: built in {built:.1f} s, RSS {before:.0f} MB; "
          f"{out.seconds:.1f} s of search: {out.nodes:,} nodes, deepest level {len(out.nodes_per_depth) - 1:,}, "
          f"RSS at most {sampler.peak:.0f} MB while searching{early} (+{sampler.peak - before:.0f} MB), "
          f"peak {after:.0f} MB with the frontier handed back ({len(out.frontier):,} paths)"
          + (f"; the search's own state {state / 1e6:.1f} MB" if state is not None else ""))


if __name__ == "__main__":
    main()
