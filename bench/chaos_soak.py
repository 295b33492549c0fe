"""Chaos soak: a long distributed count survives a random, seeded schedule of faults.

    .venv/bin/python bench/chaos_soak.py [--seed 1] [--minutes 10] [--workers 2] [--faults N]
        [--budget 1] [--lease 6] [--keep DIR] [--json]

The soak starts a cluster of its own — a PostgreSQL server (``initdb`` into a temporary
folder, ``postgres`` on a free port, run as the ``postgres`` user when the soak is root),
a Redis server (no persistence, a free port), ``--workers`` Celery workers
(``tilecensus worker --concurrency 1``) and a ``tilecensus scheduler`` — so that killing
and restarting them touches nobody else's.  It submits a domino count with ``tilecensus
submit`` (``--by-search --no-memo --no-symmetry``: every tiling visited; the board sized
from a short calibration to last the soak; should it end early, the next board is
submitted), and while it runs injects ``--faults`` faults at random times drawn from
``--seed``:

- ``kill9-worker``: a worker's main process killed with SIGKILL (its pool process must die
  with it), a new worker started 0-2 s later;
- ``kill9-pool-process``: a worker's pool process killed with SIGKILL (Celery starts
  another and delivers the message again);
- ``restart-redis``: the broker killed with SIGKILL, started again 0.5-4 s later, empty;
- ``restart-postgres``: the ledger's server stopped (fast or immediate shutdown) and
  started again 0.5-4 s later;
- ``restart-scheduler``: the scheduler killed with SIGKILL, started again 0-3 s later;
- ``sigstop-worker``: a worker (its process group) stopped with SIGSTOP for 2-5 s past the
  run's lease, then continued with SIGCONT;
- ``flush-queue``: the broker's database flushed (the queue, unacknowledged messages,
  the workforce and work requests).

Then the cluster is healed (everything continued and running) and every run must end.
Checks: each run's total equals Kasteleyn's formula (``tests/known_tilings.py``); its
finished weights sum to exactly 1 and each subproblem's weight is its searched part plus
its donated children (no result recorded twice, none lost); nothing is left open and no
run stalls; every process the soak started exited when it was told to and none is left
behind (a tag in their environment finds any orphan).  It prints the faults survived by
kind and the checks, and exits 1 if a check failed.  Ctrl-C or SIGTERM stops every child.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import pwd
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from known_tilings import kasteleyn  # noqa: E402

TAG_VAR = "TILECENSUS_CHAOS_TAG"
KINDS = ("kill9-worker", "kill9-pool-process", "restart-redis", "restart-postgres", "restart-scheduler",
         "sigstop-worker", "flush-queue")
WEIGHTS = (3, 2, 1.5, 1.5, 1.5, 2, 1.5)
RUN_FLAGS = ("--by-search", "--no-memo", "--no-symmetry", "--no-estimate")
PR_SET_PDEATHSIG = 1


def binaries() -> dict[str, str] | None:
    """The server binaries the soak needs (initdb, postgres, redis-server), or None."""
    found = {}
    pg_bins = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name)
                     if p.parent.name.isdigit() else 0)
    for name in ("initdb", "postgres"):
        path = shutil.which(name) or next((str(b / name) for b in reversed(pg_bins) if (b / name).exists()), None)
        if path is None:
            return None
        found[name] = path
    redis = shutil.which("redis-server")
    if redis is None:
        return None
    found["redis-server"] = redis
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_soak(uid: int | None = None):
    """A pre-exec function: the child changes user (``uid``), then gets SIGKILL when the
    soak dies, even by SIGKILL (after the user change, which would clear it)."""
    def pre() -> None:
        import ctypes

        if uid is not None:
            os.setgid(pwd.getpwuid(uid).pw_gid)
            os.setuid(uid)
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    return pre


def children_of(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError):
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def tagged(tag: str) -> list[tuple[int, str]]:
    """Every live process whose environment carries ``tag``: (pid, command line)."""
    needle = f"{TAG_VAR}={tag}".encode()
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            env = Path(f"/proc/{entry}/environ").read_bytes()
            if needle not in env.split(b"\0") or not alive(int(entry)):
                continue
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (FileNotFoundError, ProcessLookupError):
            continue
        except PermissionError:  # not the soak's: root reads its children's, postgres's too
            continue
        out.append((int(entry), cmd.strip()))
    return out


@dataclass
class Proc:
    """A process the soak started: its role, Popen and log."""

    role: str
    popen: subprocess.Popen
    log: Path
    stopped: bool = False  # by SIGSTOP, not continued yet
    expected_exit: bool = False  # the soak killed or stopped it


@dataclass
class Board:
    rows: int
    cols: int

    @property
    def name(self) -> str:
        return f"dominoes-{self.rows}x{self.cols}"

    @property
    def count(self) -> int:
        return kasteleyn(self.rows, self.cols)


@dataclass
class Report:
    faults: dict[str, int] = field(default_factory=lambda: {k: 0 for k in KINDS})
    events: list[str] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    unexpected_exits: list[str] = field(default_factory=list)
    supervised: list[str] = field(default_factory=list)  # exited at start, the ledger down: restarted
    ledger_errors: int = 0
    submit_retries: int = 0


class Cluster:
    """The soak's own PostgreSQL, Redis, workers and scheduler, all tagged."""

    def __init__(self, workdir: Path, bins: dict[str, str], tag: str, verbose: bool):
        self.dir, self.bins, self.tag, self.verbose = workdir, bins, tag, verbose
        self.procs: list[Proc] = []
        self.pg: Proc | None = None
        self.redis: Proc | None = None
        self.scheduler: Proc | None = None
        self.workers: list[Proc] = []
        self.pg_port, self.redis_port = free_port(), free_port()
        self.db_url = f"postgresql://postgres@127.0.0.1:{self.pg_port}/chaos"
        self.broker = f"redis://127.0.0.1:{self.redis_port}/0"
        self.queue = f"chaos-{tag}"
        self._n = 0
        self.pg_uid: int | None = None

    def say(self, text: str) -> None:
        if self.verbose:
            print(f"  [{time.strftime('%H:%M:%S')}] {text}", flush=True)

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update({TAG_VAR: self.tag, "TILECENSUS_DB_URL": self.db_url, "TILECENSUS_BROKER_URL": self.broker,
                    "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")})
        return env

    def spawn(self, role: str, argv: list[str], uid: int | None = None) -> Proc:
        """Start a process in a session of its own, its output in a log."""
        self._n += 1
        log = self.dir / f"{self._n:03d}-{role}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(argv, cwd=ROOT, env=self.env(), stdout=out, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_soak(uid))
        proc = Proc(role, popen, log)
        self.procs.append(proc)
        return proc

    def cli(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
        """``tilecensus ARGS`` as a user runs it, against the soak's ledger and broker."""
        return subprocess.run([sys.executable, "-m", "scheduler", *args], cwd=ROOT, env=self.env(),
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              preexec_fn=_die_with_soak())

    # --- PostgreSQL -------------------------------------------------------------------
    def init_pg(self) -> None:
        data = self.dir / "pg"
        data.mkdir()
        self.pg_uid = pwd.getpwnam("postgres").pw_uid if os.geteuid() == 0 else None  # initdb refuses root
        if self.pg_uid is not None:
            os.chown(data, self.pg_uid, -1)
        r = subprocess.run([self.bins["initdb"], "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8",
                            "--no-sync"], capture_output=True, text=True, env=self.env(),
                           preexec_fn=_die_with_soak(self.pg_uid))
        if r.returncode != 0:
            raise RuntimeError(f"initdb failed: {r.stderr}")
        self.start_pg()
        import psycopg

        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.pg_port}/postgres", autocommit=True) as conn:
            conn.execute("CREATE DATABASE chaos")

    def start_pg(self) -> None:
        data = self.dir / "pg"
        self.pg = self.spawn("postgres", [self.bins["postgres"], "-D", str(data), "-p", str(self.pg_port),
                                          "-k", str(data), "-c", "listen_addresses=127.0.0.1",
                                          "-c", "max_connections=200", "-c", "shared_buffers=64MB"],
                             uid=self.pg_uid)
        self._wait(self.pg_up, "postgres")

    def pg_up(self) -> bool:
        import psycopg

        try:
            psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.pg_port}/postgres", connect_timeout=1).close()
            return True
        except psycopg.OperationalError:
            return False

    def stop_pg(self, sig: int) -> None:
        assert self.pg is not None
        self.pg.expected_exit = True
        self.pg.popen.send_signal(sig)
        self.pg.popen.wait(timeout=60)

    # --- Redis ------------------------------------------------------------------------
    def start_redis(self) -> None:
        self.redis = self.spawn("redis", [self.bins["redis-server"], "--port", str(self.redis_port), "--bind",
                                          "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", str(self.dir)])
        self._wait(self.redis_up, "redis")

    def redis_client(self):
        import redis

        return redis.Redis(host="127.0.0.1", port=self.redis_port, socket_timeout=2)

    def redis_up(self) -> bool:
        import redis

        try:
            return bool(self.redis_client().ping())
        except redis.exceptions.RedisError:
            return False

    def _wait(self, up, what: str, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        while not up():
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} did not come up")
            time.sleep(0.05)

    # --- tilecensus processes ---------------------------------------------------------
    def start_worker(self) -> Proc:
        n = sum(p.role == "worker" for p in self.procs)
        w = self.spawn("worker", [sys.executable, "-m", "scheduler", "worker", "--concurrency", "1", "--queues",
                                  self.queue, "-n", f"chaos{n}@%h", "--loglevel", "WARNING"])
        self.workers.append(w)
        self.say(f"worker {w.popen.pid} started")
        return w

    def start_scheduler(self) -> None:
        self.scheduler = self.spawn("scheduler", [sys.executable, "-m", "scheduler", "scheduler", "--interval", "1",
                                                  "--grace", "3"])
        self.say(f"scheduler {self.scheduler.popen.pid} started")

    def kill(self, proc: Proc, sig: int = signal.SIGKILL) -> None:
        """Signal one process (not its group) the soak started, and reap it."""
        proc.expected_exit = True
        proc.popen.send_signal(sig)
        proc.popen.wait(timeout=60)

    def live_workers(self) -> list[Proc]:
        return [w for w in self.workers if w.popen.poll() is None]

    def teardown(self) -> None:
        """Stop everything still running: continue the stopped, SIGTERM each session, then
        SIGKILL what is left of it."""
        for proc in self.procs:
            proc.expected_exit = True
            if proc.popen.poll() is None:
                try:
                    os.killpg(proc.popen.pid, signal.SIGCONT)
                    os.killpg(proc.popen.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 20
        for proc in self.procs:
            try:
                proc.popen.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
        for proc in self.procs:
            try:
                os.killpg(proc.popen.pid, signal.SIGKILL)  # the group: orphans of a leader
            except ProcessLookupError:
                pass
            if proc.popen.poll() is None:
                proc.popen.wait(timeout=30)
        for pid, _cmd in tagged(self.tag):  # anything that left its session
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


class Soak:
    """One soak: the schedule, the faults, the runs and the checks."""

    def __init__(self, args: argparse.Namespace, cluster: Cluster):
        self.args, self.c = args, cluster
        self.rng = random.Random(args.seed)
        self.report = Report()
        self.runs: dict[int, Board] = {}
        self.resume_at: list[tuple[float, Proc]] = []  # (monotonic time, stopped worker) to SIGCONT
        self.rate = 0.0  # solutions per second on one worker, calibrated
        self.pg_down_until = -1e9  # when the ledger last came back

    # --- sizing -----------------------------------------------------------------------
    def calibrate(self) -> None:
        """Solutions a CPU second for this method on this machine: a 7x8 count, local pool."""
        sqlite = self.c.dir / "calibration.sqlite"
        r = subprocess.run([sys.executable, "-m", "scheduler", "solve", "dominoes-7x8", *RUN_FLAGS[:3], "--json",
                            "--no-progress", "--workers", "1", "--db", f"sqlite:///{sqlite}"],
                           cwd=ROOT, env=self.c.env(), capture_output=True, text=True, timeout=300)
        if r.returncode != 0:
            raise RuntimeError(f"calibration failed: {r.stderr}")
        out = json.loads(r.stdout.splitlines()[-1])
        self.rate = out["solutions"] / max(out["seconds"], 1e-3)  # wall: the machine's load counts

    def board_for(self, seconds: float) -> Board:
        """The board of 6-8 rows whose tilings, at the calibrated rate on the workers'
        share of the machine (60% of their cores: faults, the services), take closest to
        ``seconds`` (by ratio)."""
        cores = min(self.args.workers, os.cpu_count() or 1) * 0.6
        target = self.rate * seconds * cores
        boards = [Board(rows, cols) for rows in (6, 7, 8) for cols in range(rows, 80) if rows * cols % 2 == 0]
        return min(boards, key=lambda b: abs(math.log(b.count / target)))

    # --- runs -------------------------------------------------------------------------
    def submit(self, board: Board) -> None:
        """``tilecensus submit`` the board, again after an outage made it fail."""
        for attempt in range(60):
            t = time.monotonic()
            r = self.c.cli("submit", board.name, *RUN_FLAGS, "--budget", str(self.args.budget), "--lease",
                           str(self.args.lease), "--queue", self.c.queue, "--json", "--no-progress")
            if r.returncode == 0:
                run_id = json.loads(r.stdout.splitlines()[0])["run_id"]
                self.runs[run_id] = board
                self.c.say(f"run {run_id} {board.name} submitted ({board.count:,} tilings expected; "
                           f"submit took {time.monotonic() - t:.1f} s)")
                return
            self.report.submit_retries += 1
            self.c.say(f"submit failed ({r.stderr.strip()[-200:]}); again in 1 s")
            time.sleep(1)
        raise RuntimeError(f"submit failed 60 times: {r.stderr}")

    def ledger(self, sql: str, params: tuple = ()) -> list[tuple] | None:
        """Rows of a query on the soak's ledger; None (and counted) while it is down."""
        import psycopg

        try:
            with psycopg.connect(self.c.db_url, connect_timeout=2) as conn:
                return conn.execute(sql, params).fetchall()
        except psycopg.OperationalError as exc:
            self.report.ledger_errors += 1
            self.c.say(f"ledger unreachable: {str(exc).strip().splitlines()[0]}")
            return None

    def statuses(self) -> dict[int, str] | None:
        rows = self.ledger("SELECT id, status FROM runs")
        return None if rows is None else {r[0]: r[1] for r in rows}

    def progress(self) -> dict[int, float] | None:
        rows = self.ledger("SELECT run_id, coalesce(sum(done_f), 0) FROM subproblems WHERE state = 'done' "
                           "GROUP BY run_id")
        return None if rows is None else {r[0]: float(r[1]) for r in rows}

    # --- faults -----------------------------------------------------------------------
    def schedule(self) -> list[tuple[float, str]]:
        """``--faults`` (time, kind) pairs over the soak, each kind at least once."""
        span = self.args.minutes * 60
        n = self.args.faults
        kinds = list(KINDS)
        self.rng.shuffle(kinds)
        kinds = kinds[:n] + self.rng.choices(KINDS, WEIGHTS, k=max(0, n - len(KINDS)))
        self.rng.shuffle(kinds)
        start, end = min(10.0, span * 0.1), span - min(15.0, span * 0.1)
        step = (end - start) / n
        return [(start + i * step + self.rng.uniform(0, step * 0.8), kind) for i, kind in enumerate(kinds)]

    def inject(self, kind: str) -> bool:
        """One fault; False when it could not apply now (no worker to act on)."""
        c, rng = self.c, self.rng
        workers = [w for w in c.live_workers() if not w.stopped]
        if kind in ("kill9-worker", "kill9-pool-process", "sigstop-worker") and not workers:
            return False
        if kind == "kill9-worker":
            w = rng.choice(workers)
            pool = children_of(w.popen.pid)
            c.kill(w)
            c.workers.remove(w)
            time.sleep(rng.uniform(0, 2))
            c.start_worker()
            deadline = time.monotonic() + 10
            while any(alive(p) for p in pool) and time.monotonic() < deadline:
                time.sleep(0.1)
            for p in pool:
                if alive(p):
                    self.report.orphans.append(f"pool process {p} of worker {w.popen.pid} killed with -9 "
                                               f"still running 10 s later")
            c.say(f"kill -9 worker {w.popen.pid} (pool {pool})")
        elif kind == "kill9-pool-process":
            w = rng.choice(workers)
            pool = children_of(w.popen.pid)
            if not pool:
                return False
            victim = rng.choice(pool)
            try:
                os.kill(victim, signal.SIGKILL)
            except ProcessLookupError:
                return False
            c.say(f"kill -9 pool process {victim} of worker {w.popen.pid}")
        elif kind == "restart-redis":
            assert c.redis is not None
            c.kill(c.redis)
            time.sleep(rng.uniform(0.5, 4))
            c.start_redis()
            c.say("redis killed -9 and started again")
        elif kind == "restart-postgres":
            mode = rng.choice(["fast", "immediate"])
            c.stop_pg(signal.SIGINT if mode == "fast" else signal.SIGQUIT)
            time.sleep(rng.uniform(0.5, 4))
            c.start_pg()
            self.pg_down_until = time.monotonic()
            c.say(f"postgres stopped ({mode}) and started again")
        elif kind == "restart-scheduler":
            assert c.scheduler is not None
            c.kill(c.scheduler)
            time.sleep(rng.uniform(0, 3))
            c.start_scheduler()
        elif kind == "sigstop-worker":
            w = rng.choice(workers)
            os.killpg(w.popen.pid, signal.SIGSTOP)
            w.stopped = True
            pause = self.args.lease + rng.uniform(2, 5)
            self.resume_at.append((time.monotonic() + pause, w))
            c.say(f"worker {w.popen.pid} stopped for {pause:.1f} s")
        elif kind == "flush-queue":
            c.redis_client().flushdb()
            c.say("broker flushed")
        return True

    def resume_due(self, everything: bool = False) -> None:
        now = time.monotonic()
        for when, w in list(self.resume_at):
            if everything or when <= now:
                self.resume_at.remove((when, w))
                if w.popen.poll() is None:
                    os.killpg(w.popen.pid, signal.SIGCONT)
                w.stopped = False
                self.c.say(f"worker {w.popen.pid} continued")

    def reap(self) -> None:
        """Replace a process that exited without the soak asking, as a supervisor would;
        one that said the ledger did not answer when it started (exit 2, as documented)
        while the ledger was down is counted, anything else is a failure."""
        for proc in self.c.procs:
            if proc.popen.poll() is not None and not proc.expected_exit:
                proc.expected_exit = True
                tail = proc.log.read_text(errors="replace")[-1500:]
                if proc.popen.returncode == 2 and "cannot reach the database" in tail and \
                        time.monotonic() - self.pg_down_until < 30:
                    self.report.supervised.append(f"{proc.role} {proc.popen.pid}")
                else:
                    self.report.unexpected_exits.append(f"{proc.role} {proc.popen.pid} exited "
                                                        f"{proc.popen.returncode}: {tail}")
                if proc.role == "worker":
                    self.c.workers.remove(proc)
                    self.c.start_worker()
                elif proc.role == "scheduler":
                    self.c.start_scheduler()
                elif proc.role == "redis":
                    self.c.start_redis()
                elif proc.role == "postgres":
                    self.c.start_pg()

    # --- the soak ---------------------------------------------------------------------
    def run(self) -> dict:
        c, args = self.c, self.args
        started = time.monotonic()
        c.say(f"tag {c.tag}, logs in {c.dir}")
        c.start_redis()
        c.init_pg()
        r = c.cli("db", "upgrade")
        if r.returncode != 0:
            raise RuntimeError(f"db upgrade failed: {r.stderr}")
        self.calibrate()
        for _ in range(args.workers):
            c.start_worker()
        c.start_scheduler()
        span = args.minutes * 60
        self.submit(Board(*map(int, args.board.split("x"))) if args.board else self.board_for(span))
        t0 = time.monotonic()
        pending = self.schedule()
        last_look = 0.0
        while pending or time.monotonic() - t0 < span:
            now = time.monotonic() - t0
            self.resume_due()
            self.reap()
            if pending and pending[0][0] <= now:
                _, kind = pending.pop(0)
                if self.inject(kind):
                    self.report.faults[kind] += 1
                    self.report.events.append(f"{now:7.1f} s {kind}")
                else:
                    pending.insert(0, (now + 1, kind))  # later, when a worker is there to act on
            if time.monotonic() - last_look > 5:
                last_look = time.monotonic()
                status = self.statuses()
                left = span - (time.monotonic() - t0)
                if status is not None and all(s != "running" for s in status.values()) and left > 20:
                    self.submit(self.board_for(left))
                prog = self.progress()
                c.say(f"{now:6.0f} s: {sum(self.report.faults.values())} faults; runs {status}; progress {prog}")
            time.sleep(0.1)
        fault_seconds = time.monotonic() - t0
        # heal: continue the stopped, bring back what is down
        self.resume_due(everything=True)
        self.reap()
        while len(c.live_workers()) < args.workers:
            c.start_worker()
        healed = time.monotonic()
        stuck = self.drain()
        drain_seconds = time.monotonic() - healed
        checks = self.checks(stuck)
        runs = self.run_summaries()
        checks.append(self.accounting())
        return {
            "seed": args.seed, "minutes": args.minutes, "workers": args.workers, "tag": c.tag,
            "fault_seconds": round(fault_seconds, 1), "drain_seconds": round(drain_seconds, 1),
            "total_seconds": round(time.monotonic() - started, 1),
            "faults": self.report.faults, "faults_total": sum(self.report.faults.values()),
            "runs": runs, "checks": checks, "events": self.report.events,
            "ledger_unreachable_polls": self.report.ledger_errors, "restarted_after_start_failure": self.report.supervised, "submit_retries": self.report.submit_retries,
            "ok": all(ch["ok"] for ch in checks),
        }

    def drain(self) -> list[str]:
        """Wait for every run to end; the runs whose finished weight stood still for
        ``--stall`` seconds (stuck)."""
        last: dict[int, tuple[float, float]] = {}
        while True:
            self.reap()
            status = self.statuses()
            prog = self.progress()
            if status is not None and prog is not None:
                running = [i for i, s in status.items() if s == "running"]
                if not running:
                    return []
                now = time.monotonic()
                stuck = []
                for i in running:
                    p = prog.get(i, 0.0)
                    if i not in last or p > last[i][0]:
                        last[i] = (p, now)
                    elif now - last[i][1] > self.args.stall:
                        stuck.append(f"run {i} at {p:.6f} for {now - last[i][1]:.0f} s")
                if stuck:
                    return stuck
                self.c.say(f"draining: {[(i, round(prog.get(i, 0.0), 4)) for i in running]}")
            time.sleep(2)

    def run_summaries(self) -> list[dict]:
        out = []
        for run_id, board in sorted(self.runs.items()):
            r = self.c.cli("show", str(run_id), "--json")
            show = json.loads(r.stdout) if r.returncode == 0 else {}
            states = show.get("subproblem_states", {})
            leases = self.ledger("SELECT max(attempts), sum(deaths) FROM subproblems WHERE run_id = %s", (run_id,))
            most, deaths = leases[0] if leases else (None, None)
            out.append({"run": run_id, "board": board.name, "status": show.get("status"),
                        "solutions": show.get("solutions"), "expected": board.count,
                        "subproblems": show.get("subproblems"), "retried": states.get("retried"),
                        "most_leases": most, "deaths": deaths, "seconds": show.get("seconds")})
        return out

    def checks(self, stuck: list[str]) -> list[dict]:
        """The exact totals, the weights, each result once, nothing open, nothing stuck."""
        checks = []
        totals, weights, once, open_ = [], [], [], []
        runs = self.ledger("SELECT id, name, status, solutions, error FROM runs ORDER BY id") or []
        for run_id, name, status, solutions, error in runs:
            board = self.runs.get(run_id)
            expected = board.count if board else None
            r = self.c.cli("show", str(run_id), "--json")
            shown = json.loads(r.stdout).get("solutions") if r.returncode == 0 else None
            if status != "done" or expected is None or int(solutions or -1) != expected or shown != expected:
                totals.append(f"run {run_id} {name}: {status}, ledger {solutions}, show {shown}, "
                              f"Kasteleyn {expected}{'; ' + error if error else ''}")
            rows = self.ledger("SELECT id, parent_id, weight_num, weight_den, state, count, done_num, done_den, "
                               "n_donated FROM subproblems WHERE run_id = %s", (run_id,)) or []
            children: dict[int, list[Fraction]] = {}
            for row in rows:
                if row[1] is not None:
                    children.setdefault(row[1], []).append(Fraction(int(row[2]), int(row[3])))
            done_weight = Fraction(0)
            count = 0
            for sub_id, _parent, wn, wd, state, cnt, dn, dd, donated in rows:
                if state != "done":
                    open_.append(f"run {run_id} subproblem {sub_id} {state}")
                    continue
                done = Fraction(int(dn), int(dd))
                done_weight += done
                count += int(cnt)
                kids = children.get(sub_id, [])
                if len(kids) != (donated or 0) or Fraction(int(wn), int(wd)) != done + sum(kids, Fraction(0)):
                    once.append(f"run {run_id} subproblem {sub_id}: weight {wn}/{wd}, searched {dn}/{dd}, "
                                f"{len(kids)} children for {donated} donated")
            if done_weight != 1:
                weights.append(f"run {run_id}: finished weight {done_weight}")
            if status == "done" and count != int(solutions or -1):
                once.append(f"run {run_id}: subproblems sum to {count}, the run says {solutions}")
        if not runs:
            totals.append("no run in the ledger")
        checks.append({"check": "exact totals (Kasteleyn)", "ok": not totals, "detail": totals})
        checks.append({"check": "finished weights sum to 1", "ok": not weights, "detail": weights})
        checks.append({"check": "each result recorded once (weight = searched + donated)", "ok": not once,
                       "detail": once})
        checks.append({"check": "no run stuck, nothing left open", "ok": not stuck and not open_,
                       "detail": stuck + open_})
        return checks

    def accounting(self) -> dict:
        """Stop everything as an operator would (SIGTERM), and find what is left."""
        c = self.c
        order = [p for p in c.procs if p.role == "worker"] + [p for p in c.procs if p.role == "scheduler"]
        order += [p for p in (c.redis, c.pg) if p is not None]
        problems = list(self.report.orphans) + [f"unexpected exit: {u}" for u in self.report.unexpected_exits]
        for proc in order:
            if proc.popen.poll() is None:
                proc.expected_exit = True
                proc.popen.send_signal(signal.SIGINT if proc.role == "postgres" else signal.SIGTERM)
        for proc in order:
            try:
                proc.popen.wait(timeout=60)
            except subprocess.TimeoutExpired:
                problems.append(f"{proc.role} {proc.popen.pid} did not stop within 60 s of SIGTERM")
        time.sleep(1)
        for pid, cmd in tagged(c.tag):
            problems.append(f"left behind: {pid} {cmd[:120]}")
        unreaped = [p for p in c.procs if p.popen.poll() is None]
        problems += [f"still running: {p.role} {p.popen.pid}" for p in unreaped]
        return {"check": f"every process accounted for ({len(c.procs)} started)", "ok": not problems,
                "detail": problems}


def print_summary(result: dict) -> None:
    print(f"chaos soak, seed {result['seed']}: {result['minutes']:g} minutes of faults on {result['workers']} "
          f"workers ({result['fault_seconds']:.0f} s), drained in {result['drain_seconds']:.0f} s, "
          f"{result['total_seconds']:.0f} s in all")
    print(f"faults survived: {result['faults_total']} — " +
          ", ".join(f"{k} {v}" for k, v in result["faults"].items()))
    for r in result["runs"]:
        print(f"run {r['run']} {r['board']}: {r['status']}, {r['solutions']:,} solutions (Kasteleyn "
              f"{r['expected']:,}), {r['subproblems']} subproblems, {r['retried']} leased more than once "
              f"(one {r['most_leases']} times), {r['deaths']} pool deaths under a lease taken over, "
              f"{r['seconds'] or 0:.0f} s" if r["solutions"] is not None else f"run {r['run']} {r['board']}: {r}")
    print(f"ledger unreachable at {result['ledger_unreachable_polls']} of the soak's looks; "
          f"submit retried {result['submit_retries']} times; started again after exiting at start while "
          f"the ledger was down: {', '.join(result['restarted_after_start_failure']) or 'none'}")
    for ch in result["checks"]:
        print(f"  {'PASS' if ch['ok'] else 'FAIL'}  {ch['check']}")
        for d in ch["detail"][:10]:
            print(f"        {d}")
    print("all checks passed" if result["ok"] else "SOME CHECKS FAILED")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1, help="the fault schedule's seed")
    ap.add_argument("--minutes", type=float, default=10.0, help="how long faults are injected")
    ap.add_argument("--workers", type=int, default=2, help="Celery workers (one pool process each)")
    ap.add_argument("--faults", type=int, help="faults to inject (default: 5.5 a minute, at least 7)")
    ap.add_argument("--budget", type=float, default=1.0, help="the run's task budget, seconds")
    ap.add_argument("--lease", type=float, default=6.0, help="the run's lease, seconds (SIGSTOP outlasts it)")
    ap.add_argument("--board", metavar="RxC", help="the first run's domino board (default: sized to the soak)")
    ap.add_argument("--stall", type=float, default=120.0, help="seconds without progress that make a run stuck")
    ap.add_argument("--keep", type=Path, help="copy the processes' logs here")
    ap.add_argument("--json", action="store_true", help="print the result as JSON too (last line)")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    if args.faults is None:
        args.faults = max(len(KINDS), round(args.minutes * 5.5))
    bins = binaries()
    if bins is None:
        print("chaos soak: needs initdb, postgres (/usr/lib/postgresql/*/bin) and redis-server", file=sys.stderr)
        return 2

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")

    signal.signal(signal.SIGTERM, stop)
    workdir = Path(tempfile.mkdtemp(prefix="chaos-soak-"))
    os.chmod(workdir, 0o755)  # the postgres user reaches its data folder inside
    cluster = Cluster(workdir, bins, secrets.token_hex(6), verbose=not args.quiet)
    try:
        try:
            result = Soak(args, cluster).run()
        finally:
            cluster.teardown()
            if args.keep:
                args.keep.mkdir(parents=True, exist_ok=True)
                for log in workdir.glob("*.log"):
                    shutil.copy(log, args.keep / log.name)
            shutil.rmtree(workdir)
    except KeyboardInterrupt:
        print("chaos soak: interrupted; every process it started is stopped", file=sys.stderr)
        return 130
    print_summary(result)
    if args.json:
        print(json.dumps(result))
    return 0 if result["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
