"""Distributed speed-up, the cost of waiting, and solutions persisted, by hand:

    .venv/bin/python bench/bench_distributed.py [--problem pentacubes-3x4x5] [--workers 2]
        [--pg postgresql://postgres@127.0.0.1:5432/test] [--broker redis://127.0.0.1:6379/12]
        [--enumerate dominoes-6x8 | --no-enumerate] [--repeat 3] [--cold] [--no-symmetry]
        [-- extra run flags, e.g. --subproblems 8 --budget 3]

``--no-symmetry`` counts the box's whole tree in every run, the baseline included: the
tree the speed-up targets were set on (one worker took 23.6 s then; 16 s now), where the
default count by orbits takes 2 s and a fixed start of about 0.1 s — choosing the method,
the planning trial, the run written — weighs on any speed-up (see docs/performance.md).

1. the baseline: ``solve --workers 1`` (a local pool of one, SQLite), the run's seconds
   from the start of planning to the end;
2. the machine's ceiling: the baseline run twice at the same time, each in a session of
   its own — what two processes lose to each other here (a memory-bound search on this
   machine's shared caches and memory) caps any speed-up, whatever the scheduling;
3. the same run on two worker processes, default flags: the local pool (``solve
   --workers 2``) and Celery (two ``tilecensus worker --concurrency 1`` processes on
   PostgreSQL + Redis, ``submit --wait``); speed-up = baseline / run, printed beside the
   targets (local 1.9, Celery 1.8), with the subproblems, the messages that carried the
   run to the workers announced on the queue, and the serial planning (load, method,
   trial: from the run's start to its first message);
4. CPU seconds (load-proof where wall times are not): each local command's process tree,
   and the Celery workers' process trees over a run;
   the CPU of the waiting ``submit --wait`` process, from ``/proc/PID/stat`` between the
   moment it printed the submitted run and the moment the ledger marked the run finished,
   as a share of one core (target < 2%), and the same to its exit (the final summary's
   queries, a fixed 20-40 ms, included);
5. solutions persisted per second by an enumeration run, into SQLite and PostgreSQL.

``--repeat N`` runs the baseline, the local pool, the Celery run and the side-by-side
pair N times, in turn — each round a few seconds, so a machine whose speed drifts over
minutes (this one's: 15-40%) affects each alike — and keeps the fastest of each (the
waiting CPU: the highest), for a machine that other work shares; "paired" is the median
over the rounds of the baseline's time over the run's, both of the same round.  Each
command runs in a session of its own, as from a shell.  Linux's autogroup scheduler shares a busy machine's CPU
between sessions, not processes, so under load a local pool of two gets no more CPU than
one process (its wall speed-up reads about 1x), while each Celery worker — a session of
its own — gets a share: only on a quiet machine do the wall ratios test the targets; the
CPU seconds say what the parallel run cost either way.  The Celery workers serve all N runs
(warm: the problem's solver built once, as a long-lived worker keeps it) unless ``--cold``
starts new ones for each: a warm worker also keeps the level counts it made, so a count by
levels run again is mostly looked up (the one-sided 5x18: 5.0, 3.8, 2.7 s in three warm
runs; 2026-11-28) — use ``--cold`` for a problem counted by levels.

Results go to stdout and bench/out/bench_distributed.json.  Needs PostgreSQL and Redis
for the Celery and PostgreSQL parts (skipped with --no-celery / --no-pg).
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TARGET_LOCAL = 1.9
TARGET_CELERY = 1.8
TARGET_WAIT_CPU = 0.02
TICKS = os.sysconf("SC_CLK_TCK")


def tc(*args: str, env: dict) -> dict:
    """One command's JSON result, with ``process_cpu``: the CPU seconds of its process tree."""
    before = children_cpu()
    out = subprocess.run([sys.executable, "-m", "scheduler", *args, "--json", "--no-progress"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True, start_new_session=True).stdout
    return {**json.loads(out.strip().splitlines()[-1]), "process_cpu": children_cpu() - before}


def method_of(db: str, run_id: int) -> str:
    """The method a run counted by (its options in the ledger ``db``): the default count
    races the search against the bitboard, and on the box the two are close enough that
    the choice flips run by run, so a best baseline and a best parallel run may differ."""
    query = "SELECT options FROM runs WHERE id = %s"
    if db.startswith("sqlite:///"):
        import sqlite3

        with sqlite3.connect(db.removeprefix("sqlite:///")) as conn:
            (options,) = conn.execute(query.replace("%s", "?"), (run_id,)).fetchone()
    else:
        import psycopg

        with psycopg.connect(db.replace("+psycopg", "")) as conn:
            (options,) = conn.execute(query, (run_id,)).fetchone()
    options = json.loads(options) if isinstance(options, str) else options
    return str(options.get("solver", {}).get("method") or options.get("method") or "?")


def children_cpu() -> float:
    """User + system CPU of this process's waited-for children and their own children."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tree_cpu(root: int) -> float:
    """User + system CPU of a live process and its live descendants (``/proc``)."""
    parent: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
                continue
    tree, total = {root}, 0.0
    for pid in sorted(parent):  # children have higher ids here (no pid wrap-around in a bench)
        if parent[pid] in tree:
            tree.add(pid)
    for pid in tree:
        try:
            total += cpu_seconds(pid)
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def env_for(db: str, broker: str | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TILECENSUS_DB_URL=db)
    if broker:
        env["TILECENSUS_BROKER_URL"] = broker
    return env


def side_by_side(problem: str, copies: int, tmp: Path, tree: list[str]) -> list[dict]:
    """The baseline run (``solve --workers 1``) ``copies`` times at once, each in a session
    and ledger of its own: their run seconds."""
    procs = [subprocess.Popen([sys.executable, "-m", "scheduler", "solve", problem, *tree, "--workers", "1", "--json",
                               "--no-progress"], cwd=ROOT, env=env_for(f"sqlite:///{tmp / f'pair{i}.sqlite'}"),
                              stdout=subprocess.PIPE, text=True, start_new_session=True)
             for i in range(copies)]
    return [json.loads(p.communicate()[0].strip().splitlines()[-1]) for p in procs]


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a live process (``/proc/PID/stat``, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def submit_and_wait(args: list[str], env: dict, pg: str) -> tuple[dict, dict, float, float]:
    """``submit --wait``: (the submitted line, the finished run, the waiting process's CPU
    as a share of one core while it waited — from its submitted line to the last sample
    before the ledger marked the run finished —, and the same to its exit, the final
    summary included).  CPU from ``/proc/PID/stat`` every 0.1 s (10 ms ticks)."""
    proc = subprocess.Popen([sys.executable, "-m", "scheduler", "submit", *args, "--wait", "--json", "--no-progress"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True)
    assert proc.stdout is not None
    submitted = json.loads(proc.stdout.readline())
    t0, c0 = time.time(), cpu_seconds(proc.pid)
    samples = [(t0, c0)]
    while proc.poll() is None:
        time.sleep(0.1)
        try:
            samples.append((time.time(), cpu_seconds(proc.pid)))
        except (FileNotFoundError, ProcessLookupError):  # it exited between poll and read
            break
    finished = json.loads(proc.stdout.read().strip().splitlines()[-1])
    if proc.wait() != 0:
        raise SystemExit(f"submit --wait failed: {finished}")
    ended = finished_at(pg, submitted["run_id"])
    waited = [(t, c) for t, c in samples if t <= ended] or samples[:1]
    (t1, c1), (t2, c2) = waited[-1], samples[-1]
    return submitted, finished, (c1 - c0) / max(t1 - t0, 1e-9), (c2 - c0) / max(t2 - t0, 1e-9)


def finished_at(pg: str, run_id: int) -> float:
    """When the ledger marked the run finished (seconds since the epoch)."""
    import psycopg

    with psycopg.connect(pg) as conn:
        row = conn.execute("SELECT EXTRACT(EPOCH FROM finished_at AT TIME ZONE 'UTC') FROM runs WHERE id = %s",
                           (run_id,)).fetchone()
    return float(row[0]) if row and row[0] is not None else float("inf")


def planning_seconds(pg: str, run_id: int) -> float:
    """From the run's start to its first queued subproblem: the serial part of a Celery run."""
    import psycopg

    with psycopg.connect(pg) as conn:
        row = conn.execute("SELECT EXTRACT(EPOCH FROM MIN(s.queued_at) - r.created_at) FROM runs r "
                           "JOIN subproblems s ON s.run_id = r.id WHERE r.id = %s GROUP BY r.created_at",
                           (run_id,)).fetchone()
    return float(row[0]) if row and row[0] is not None else 0.0


def fresh_pg(admin: str) -> tuple[str, str]:
    import psycopg

    name = f"tilecensus_bench_{secrets.token_hex(3)}"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, admin.rsplit("/", 1)[0] + "/" + name


def drop_pg(admin: str, name: str) -> None:
    import psycopg

    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def beside(value: float, target: float) -> str:
    return f"{value:.2f}x (target {target:g}x: {'met' if value >= target else 'NOT met'})"


class CeleryWorkers:
    """``args.workers`` Celery worker processes (``tilecensus worker -c 1``) on a queue of
    their own, warm across runs unless ``--cold``; :meth:`run` submits one run and waits."""

    def __init__(self, args, pg: str):
        self.args, self.pg = args, pg
        self.queue = f"bench-{secrets.token_hex(3)}"
        self.env = env_for(pg, args.broker)
        subprocess.run([sys.executable, "-m", "scheduler", "db", "upgrade"], cwd=ROOT, env=self.env, check=True,
                       capture_output=True)
        self.tries: list[tuple[dict, dict, float, float]] = []
        self.cpu: list[float] = []
        self.procs = self._start()

    def _start(self) -> list[subprocess.Popen]:
        started = [subprocess.Popen([sys.executable, "-m", "scheduler", "worker", "-c", "1", "-Q", self.queue,
                                     "-l", "WARNING", "-n", f"bench{i}@%h"], cwd=ROOT, env=self.env,
                                    start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                   for i in range(self.args.workers)]
        time.sleep(3)  # the workers connect (and announce themselves) before the clock starts
        return started

    def stop(self) -> None:
        for w in self.procs:
            os.killpg(w.pid, signal.SIGTERM)
        for w in self.procs:
            w.wait(timeout=60)

    def run(self) -> dict:
        """One run (``submit --wait``): the finished run's JSON with its method."""
        if self.tries and self.args.cold:  # new processes: no solver, no level count kept from the run before
            self.stop()
            self.procs = self._start()
        cpu_before = sum(tree_cpu(w.pid) for w in self.procs)
        submitted, run, waiting_cpu, exit_cpu = submit_and_wait([self.args.problem, "--queue", self.queue,
                                                                 *self.args.tree, *self.args.flags], self.env, self.pg)
        run = {**run, "method": method_of(self.pg, run["run_id"])}
        self.tries.append((submitted, run, waiting_cpu, exit_cpu))
        self.cpu.append(sum(tree_cpu(w.pid) for w in self.procs) - cpu_before)
        return run

    def report(self, results: dict, baseline: float, count: int, paired: float) -> None:
        submitted, run, _, _ = min(self.tries, key=lambda t: t[1]["seconds"])
        waiting = max(t[2] for t in self.tries)
        to_exit = max(t[3] for t in self.tries)
        worker_cpu = sum(self.cpu) / len(self.cpu)
        if run["solutions"] != count:
            raise SystemExit(f"celery run counted {run['solutions']}, the baseline {count}")
        speedup = baseline / run["seconds"]
        planning = planning_seconds(self.pg, run["run_id"])
        results["celery"] = {**run, "speedup": speedup, "paired_speedup": paired,
                             "messages": submitted.get("messages"), "workers_announced": submitted.get("workers"),
                             "planning_seconds": planning, "waiting_cpu": waiting, "to_exit_cpu": to_exit,
                             "worker_cpu": worker_cpu}
        print(f"celery x{self.args.workers} (PostgreSQL + Redis): {run['subproblems']} subproblems "
              f"({submitted['subproblems']} planned, {submitted.get('messages')} messages for the "
              f"{submitted.get('workers')} workers announced), {run['seconds']:.2f} s, "
              f"speed-up {beside(speedup, TARGET_CELERY)}, paired {paired:.2f}x; serial planning {planning:.2f} s "
              f"(caps the speed-up at {baseline / (planning + (baseline - planning) / self.args.workers):.2f}x); "
              f"by {run['method']} (the repeats by {', '.join(t[1]['method'] for t in self.tries)})")
        print(f"CPU of the Celery workers: {worker_cpu:.2f} s a run (the baseline's whole process: "
              f"{results['baseline']['process_cpu']:.2f} s)")
        print(f"waiting (submit --wait, until the run finished): {100 * waiting:.2f}% of a core "
              f"(target < {100 * TARGET_WAIT_CPU:g}%: {'met' if waiting < TARGET_WAIT_CPU else 'NOT met'}); "
              f"to its exit, the final summary included: {100 * to_exit:.2f}%")


def paired_speedup(bases: list[dict], runs: list[dict]) -> float:
    """The median over the rounds of baseline / run, each pair measured minutes apart at
    most: a figure that a machine whose speed drifts between rounds moves less than the
    best of each."""
    import statistics

    return statistics.median(b["seconds"] / r["seconds"] for b, r in zip(bases, runs))


def enumerate_part(args, tmp: Path, pg: str | None, results: dict) -> None:
    targets = [("sqlite", f"sqlite:///{tmp / 'enum.sqlite'}")] + ([] if pg is None else [("postgresql", pg)])
    for label, url in targets:
        count = tc("solve", args.enumerate, "--workers", str(args.workers), env=env_for(url))
        enum = tc("solve", args.enumerate, "--all", "--limit", "0", "--workers", str(args.workers), env=env_for(url))
        extra = enum["seconds"] - count["seconds"]
        results[f"enumerate_{label}"] = {
            "solutions": enum["solutions"], "seconds": enum["seconds"], "count_seconds": count["seconds"],
            "solutions_per_second": enum["solutions"] / enum["seconds"],
            "persist_per_second": enum["solutions"] / extra if extra > 0 else None,
        }
        print(f"enumerate {args.enumerate} into {label}: {enum['solutions']} solutions in {enum['seconds']:.2f} s "
              f"({enum['solutions'] / enum['seconds']:,.0f}/s overall; counting alone {count['seconds']:.2f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--problem", default="pentacubes-3x4x5")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--enumerate", default="dominoes-6x8", help="problem for the solutions-per-second part")
    ap.add_argument("--no-enumerate", action="store_true")
    ap.add_argument("--pg", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--broker", default="redis://127.0.0.1:6379/12")
    ap.add_argument("--no-celery", action="store_true")
    ap.add_argument("--no-pg", action="store_true")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each kind; the fastest is kept")
    ap.add_argument("--cold", action="store_true",
                    help="new Celery workers for each run: a warm worker keeps the problem's solver, and with it "
                         "the level counts it made (a count by levels run again is then mostly looked up)")
    ap.add_argument("--no-symmetry", action="store_true",
                    help="every run, the baseline too, counts the whole tree (solve --no-symmetry): on the "
                         "pentacube box, the tree the speed-up targets were set on (23.6 s for one worker then, "
                         "16 s now; the default count by orbits takes 2 s)")
    ap.add_argument("flags", nargs="*", help="run flags for the distributed runs (after --)")
    args = ap.parse_args()
    args.tree = ["--no-symmetry"] if args.no_symmetry else []
    results: dict = {"problem": args.problem, "tree": args.tree, "workers": args.workers, "flags": args.flags,
                     "load": os.getloadavg()}

    tmp = Path(tempfile.mkdtemp(prefix="tc-bench-"))
    pg_name = pg = None
    if not args.no_pg:
        pg_name, pg = fresh_pg(args.pg)
    try:
        celery = CeleryWorkers(args, pg) if not args.no_celery and pg is not None else None
        bases, locals_, celeries, pairs = [], [], [], []
        try:
            for _ in range(args.repeat):  # in turn, so that a machine whose speed drifts affects each alike
                for runs, db, workers, flags in ((bases, f"sqlite:///{tmp / 'base.sqlite'}", 1, []),
                                                 (locals_, f"sqlite:///{tmp / 'local.sqlite'}", args.workers,
                                                  args.flags)):
                    run = tc("solve", args.problem, *args.tree, "--workers", str(workers), *flags, env=env_for(db))
                    runs.append({**run, "method": method_of(db, run["run_id"])})
                if celery is not None:
                    celeries.append(celery.run())
                pairs.append(side_by_side(args.problem, args.workers, tmp, args.tree))
        finally:
            if celery is not None:
                celery.stop()
        base = min(bases, key=lambda r: r["seconds"])
        baseline = base["seconds"]
        results["baseline"] = base
        print(f"baseline (solve {' '.join([args.problem, *args.tree])} --workers 1): {base['solutions']} solutions in "
              f"{baseline:.2f} s "
              f"({base['subproblems']} subproblems, by {base['method']}; the repeats by "
              f"{', '.join(r['method'] for r in bases)})")
        # the machine's own ceiling: the baseline run, once in each of `workers` sessions at
        # the same time — what they lose to each other (memory, caches) no scheduling recovers
        slowdown = min(sum(r["seconds"] for r in pair) / len(pair) for pair in pairs) / baseline
        results["side_by_side"] = {"runs": pairs, "slowdown": slowdown, "ceiling": args.workers / slowdown}
        print(f"the baseline run {args.workers} times side by side: each {slowdown:.2f}x as long as alone, so "
              f"{args.workers} processes can reach at most {args.workers / slowdown:.2f}x on this machine now")

        local = min(locals_, key=lambda r: r["seconds"])
        if local["solutions"] != base["solutions"]:
            raise SystemExit(f"local run counted {local['solutions']}, the baseline {base['solutions']}")
        paired = paired_speedup(bases, locals_)
        results["local"] = {**local, "speedup": baseline / local["seconds"], "paired_speedup": paired}
        print(f"local pool x{args.workers}: {local['subproblems']} subproblems, {local['seconds']:.2f} s, "
              f"speed-up {beside(results['local']['speedup'], TARGET_LOCAL)}, paired {paired:.2f}x; "
              f"CPU {local['process_cpu']:.2f} s against the baseline's {base['process_cpu']:.2f} s; "
              f"by {local['method']} (the repeats by {', '.join(r['method'] for r in locals_)})")
        if celery is not None:
            celery.report(results, baseline, base["solutions"], paired_speedup(bases, celeries))
        if not args.no_enumerate:
            enumerate_part(args, tmp, pg, results)
    finally:
        if pg_name:
            drop_pg(args.pg, pg_name)
    results["load_after"] = os.getloadavg()
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    (out / "bench_distributed.json").write_text(json.dumps(results, indent=2, default=str))


if __name__ == "__main__":
    main()
