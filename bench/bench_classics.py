"""The classics (issue 42, point 3): each entry of core/polyform/classics.py counted by
the default `tilecensus solve NAME --json`, and with `--distinct`, beside xcover on the
same exact cover; every count checked against the entry's published one (by hand, never
in CI).

    .venv/bin/pip install -c constraints.txt -e '.[bench]'
    .venv/bin/python bench/bench_classics.py                          # every classic
    .venv/bin/python bench/bench_classics.py --problems soma-steps,bedlam-cube --repeat 3

For each problem, best of ``--repeat``, each in a fresh process (bench_default.py's
runs): ``run`` is the default solve's own seconds (from the end of reading the problem to
the run's close: planning, the workers and the ledger included), ``distinct`` the run with
``--distinct``; ``kernel`` and ``xcover`` the count alone of the problem's exact cover as a
DLX file (bench_kernel.py's runs: our kernel's plain search, and xcover with numba's
warm-up left out; ``n/a`` where the cover has piece counts, which xcover does not take).
A count that differs from the published one, or from ours, is marked WRONG.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import bench_default  # noqa: E402  (the default run in a fresh process, the DLX file, the machine)
import bench_kernel  # noqa: E402  (xcover in a fresh process)
from core.polyform.classics import CLASSICS  # noqa: E402


def checked(result: dict, key: str, want: int | None) -> str:
    """The count ``key`` of a run, marked WRONG where it is not ``want``."""
    if result["status"] != "ok":
        return "?"
    got = result[key]
    return f"{got:,}" + ("" if want is None or got == want else f" WRONG (published {want:,})")


def peer_cell(result: dict, total: dict, timeout: float) -> str:
    """A count alone's seconds, marked WRONG where it is not the default run's count."""
    if result["status"] != "ok":
        return bench_default.seconds(result, timeout)
    wrong = total["status"] == "ok" and result["count"] != total["count"]
    return f"{result['seconds']:.3f} s" + (" WRONG" if wrong else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", default=",".join(name for name, _, _ in CLASSICS),
                        help="comma-separated names (default: every classic)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per run")
    parser.add_argument("--peer-timeout", type=float, default=600.0, help="seconds per count alone (kernel, xcover)")
    args = parser.parse_args()
    known = {name: k for name, _, k in CLASSICS}
    print(f"machine: {bench_default.machine()}; load average {os.getloadavg()[0]:.2f}", flush=True)
    header = ["problem", "solutions", "run", "distinct", "--distinct run", "kernel", "xcover", "xcover/run",
              "xcover/kernel"]
    table = []
    with tempfile.TemporaryDirectory() as folder:
        for name in [n for n in args.problems.split(",") if n]:
            want = known.get(name, {})
            total = bench_default.best_of(args.repeat, lambda: bench_default.tilecensus(name, [], args.timeout))
            distinct = bench_default.best_of(
                args.repeat, lambda: bench_default.tilecensus(name, ["--distinct"], args.timeout))
            path = bench_default.dlx_file(name, folder)
            kernel, peer = (bench_kernel.measure(solver, path, args.peer_timeout, args.repeat)
                            for solver in ("kernel", "xcover"))
            line = [name, checked(total, "count", want.get("solutions")),
                    bench_default.seconds(total, args.timeout),
                    checked(distinct, "distinct", want.get("distinct")),
                    bench_default.seconds(distinct, args.timeout),
                    peer_cell(kernel, total, args.peer_timeout), peer_cell(peer, total, args.peer_timeout)]
            ok = peer["status"] == "ok" and total["status"] == "ok"
            line.append(f"{peer['seconds'] / total['seconds']:.1f}x" if ok else "")
            line.append(f"{peer['seconds'] / kernel['seconds']:.1f}x" if ok and kernel["status"] == "ok" else "")
            print("  " + " | ".join(line), file=sys.stderr, flush=True)
            table.append(line)
    bench_default.print_table(header, table)
    print(f"\nbest of {args.repeat}; load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
