"""How a cluster answers at the command line (issue 40, point 4), whole processes on a
real PostgreSQL ledger and Redis broker.  By hand, never in CI:

    .venv/bin/python bench/bench_answers.py                 # runs, show, submit, submit --wait's lag
    .venv/bin/python bench/bench_answers.py --ratio         # and two Celery workers against one local worker
    .venv/bin/python bench/bench_answers.py --pg postgresql://postgres@127.0.0.1:5432/test --repeat 7
    .venv/bin/python bench/bench_answers.py --reads --against /other/checkout/.venv/bin/tilecensus
    .venv/bin/python bench/bench_answers.py --submits --against /other/checkout/.venv/bin/tilecensus

It makes a fresh database beside ``--pg``'s, starts two workers (concurrency 1 each) on
a queue of its own, and prints, best and median of ``--repeat`` fresh processes:

* ``runs`` and ``show N`` (target 0.4 s), ``submit`` without ``--wait`` (target 0.5 s);
* ``submit --wait``'s lag: the process's exit (wall clock) less the run's recorded end
  (``finished_at``), target 0.2 s;
* with ``--reads``: only ``runs`` and ``show N`` (no workers: two runs solved here), best
  and median wall time and the CPU time of the process; with ``--against EXE`` (another
  checkout's ``tilecensus``, say the one before a change) the two alternate, side by side;
* with ``--submits``: only ``submit`` without ``--wait`` (no workers: the messages wait
  on a queue of the bench's, emptied at the end), of the default count of
  ``pentomino-6x10`` (counted by levels) and of ``pentacubes-3x4x5`` (searched: its
  estimate sampled after the messages are out), best and median wall time and the CPU
  time of the process, alternating with ``--against`` where given (target 0.5 s);
* with ``--ratio``: the pentacube box (``pentacubes-3x4x5``, default and ``--no-symmetry``)
  as the user waits, ``solve --workers 1`` against ``submit --wait`` on the two workers,
  alternating (targets 1.5x and 1.8x).
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import resource
import secrets
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TILECENSUS = str(Path(sys.executable).parent / "tilecensus")


def timed(args: list[str], env: dict) -> tuple[float, float, str]:
    """(wall seconds, the exit as a Unix time, stdout) of ``tilecensus ARGS``."""
    started = time.perf_counter()
    proc = subprocess.run([TILECENSUS, *args], env=env, capture_output=True, text=True, timeout=600)
    exited = time.time()
    if proc.returncode != 0:
        raise SystemExit(f"tilecensus {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
    return time.perf_counter() - started, exited, proc.stdout


def timed_cpu(exe: str, args: list[str], env: dict, statuses: list[str] | None = None) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of the process ``EXE ARGS``; with ``statuses``, the
    ``status`` its ``--json`` printed is added to them."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([exe, *args], env=env, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{exe} {' '.join(args)} exited {proc.returncode}: {proc.stderr.strip()}")
    if statuses is not None:
        statuses.append(json.loads(proc.stdout.splitlines()[-1])["status"])
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def reads(env: dict, repeat: int, against: str | None) -> None:
    """``runs`` and ``show N``, alternating with ``against`` where given."""
    timed(["solve", "pentomino-6x10", "--json", "--no-progress"], env)
    run_id = json.loads(timed(["solve", "dominoes-4x4", "--all", "--json", "--no-progress"], env)[2])["run_id"]
    exes = {"this": TILECENSUS, **({"against": against} if against else {})}
    for args in (["runs"], ["runs", "--json"], ["show", str(run_id)], ["show", str(run_id), "--json"]):
        got: dict[str, list[tuple[float, float]]] = {k: [] for k in exes}
        for _ in range(repeat):
            for k, exe in exes.items():
                got[k].append(timed_cpu(exe, args, env))
        for k, xs in got.items():
            walls = [w for w, _ in xs]
            print(f"{' '.join(args):20s} {k:8s} best {min(walls):6.3f} s  median {statistics.median(walls):6.3f} s"
                  f"  CPU best {min(c for _, c in xs):6.3f} s  (target 0.4 s)")


SUBMITTED = ("pentomino-6x10", "pentacubes-3x4x5")


def submits(env: dict, broker: str, queue: str, repeat: int, against: str | None) -> None:
    """``submit NAME`` without workers, alternating with ``against`` where given."""
    import redis

    exes = {"this": TILECENSUS, **({"against": against} if against else {})}
    try:
        for name in SUBMITTED:
            args = ["submit", name, "--queue", queue, "--json", "--no-progress"]
            got: dict[str, list[tuple[float, float]]] = {k: [] for k in exes}
            ends: dict[str, list[str]] = {k: [] for k in exes}  # done in planning, or running
            for _ in range(repeat):
                for k, exe in exes.items():
                    got[k].append(timed_cpu(exe, args, env, ends[k]))
            for k, xs in got.items():
                walls = [w for w, _ in xs]
                print(f"submit {name:18s} {k:8s} best {min(walls):6.3f} s  median {statistics.median(walls):6.3f} s"
                      f"  CPU best {min(c for _, c in xs):6.3f} s  median {statistics.median(c for _, c in xs):6.3f} s"
                      f"  (target 0.5 s)  {', '.join(f'{ends[k].count(e)} {e}' for e in sorted(set(ends[k])))}")
    finally:
        redis.Redis.from_url(broker).delete(queue)


def finished_at(url: str, run_id: int) -> float:
    import psycopg

    with psycopg.connect(url.replace("+psycopg", "")) as conn:
        (finished,) = conn.execute("SELECT finished_at FROM runs WHERE id = %s", (run_id,)).fetchone()
    return finished.replace(tzinfo=dt.timezone.utc).timestamp()


def figures(name: str, xs: list[float], target: float | None) -> None:
    aim = f"  (target {target} s)" if target is not None else ""
    print(f"{name:40s} best {min(xs):6.3f} s  median {statistics.median(xs):6.3f} s{aim}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--broker", default="redis://127.0.0.1:6379/13")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--ratio", action="store_true")
    ap.add_argument("--reads", action="store_true", help="only runs and show N, without workers")
    ap.add_argument("--submits", action="store_true", help="only submit without --wait, without workers")
    ap.add_argument("--against", metavar="EXE", help="with --reads or --submits: another tilecensus, alternating")
    args = ap.parse_args()
    import psycopg

    name = f"tc_bench_answers_{secrets.token_hex(3)}"
    with psycopg.connect(args.pg, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    url = args.pg.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://") + "/" + name
    queue = f"bench-answers-{secrets.token_hex(3)}"
    env = {**os.environ, "TILECENSUS_DB_URL": url, "TILECENSUS_BROKER_URL": args.broker}
    workers = []
    try:
        timed(["db", "upgrade"], env)
        if args.reads:
            print(f"{dt.datetime.now():%Y-%m-%d %H:%M}, load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
            reads(env, args.repeat, args.against)
            return
        if args.submits:
            print(f"{dt.datetime.now():%Y-%m-%d %H:%M}, load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
            submits(env, args.broker, queue, args.repeat, args.against)
            print(f"{dt.datetime.now():%Y-%m-%d %H:%M}, load average {os.getloadavg()[0]:.1f} at the end")
            return
        workers = [subprocess.Popen([TILECENSUS, "worker", "--concurrency", "1", "--queues", queue, "--loglevel",
                                     "WARNING", "-n", f"{queue}-{i}@%h"], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True) for i in range(2)]
        submit = ["submit", "--queue", queue, "--json", "--no-progress"]
        timed(submit + ["dominoes-4x4", "--wait"], env)  # the workers are up and warm
        print(f"{dt.datetime.now():%Y-%m-%d %H:%M}, load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
        lags, waits, subs = [], [], []
        for _ in range(args.repeat):
            wall, exited, out = timed(submit + ["pentomino-6x10", "--wait"], env)
            lines = out.splitlines()
            run_id = json.loads(lines[0])["run_id"]
            assert json.loads(lines[-1])["solutions"] == 9356
            lags.append(exited - finished_at(url, run_id))
            waits.append(wall)
            subs.append(timed(submit + ["pentomino-6x10"], env)[0])
        time.sleep(3)  # the last submitted run finishes
        figures("submit --wait: exit less the run's end", lags, 0.2)
        figures("submit (no --wait)", subs, 0.5)
        figures("runs", [timed(["runs"], env)[0] for _ in range(args.repeat)], 0.4)
        figures("show N", [timed(["show", str(run_id)], env)[0] for _ in range(args.repeat)], 0.4)
        if args.ratio:
            for label, extra, target in (("default", [], 1.5), ("--no-symmetry", ["--no-symmetry"], 1.8)):
                local, celery = [], []
                for _ in range(max(2, args.repeat // 2)):
                    local.append(timed(["solve", "pentacubes-3x4x5", "--workers", "1", "--json", "--no-progress",
                                        *extra], env)[0])
                    celery.append(timed(submit + ["pentacubes-3x4x5", "--wait", *extra], env)[0])
                figures(f"pentacubes-3x4x5 {label}: solve --workers 1", local, None)
                figures(f"pentacubes-3x4x5 {label}: submit --wait, 2 workers", celery, None)
                print(f"{'':40s} speed-up (median) {statistics.median(local) / statistics.median(celery):.2f}x "
                      f"(target {target}x)")
    finally:
        for w in workers:
            os.killpg(w.pid, signal.SIGTERM)
        for w in workers:
            w.wait(timeout=30)
        from sqlalchemy import create_engine

        create_engine(url).dispose()
        with psycopg.connect(args.pg, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


if __name__ == "__main__":
    main()
