#!/usr/bin/env python3
"""Two hosts for real (issue 40, point 3): a distributed count on workers in two network
namespaces of their own, each a "host" with its own address and hostname, reaching Redis
and PostgreSQL over virtual links with added latency.

    sudo .venv/bin/python bench/two_hosts.py                       # the sweep 0, 5, 20, 50 ms
    sudo .venv/bin/python bench/two_hosts.py --latency-ms 20 --repeats 1 --board 8x8

Each host is a network namespace joined to the root namespace by a veth pair
(10.77.X.1 on the root side, 10.77.X.2 inside). The root namespace runs a relay (asyncio,
in this process) on each host's link for Redis and for PostgreSQL: it forwards every
connection to the real server and holds back each chunk, in order per direction, for the
one-way latency (a new connection's first bytes also wait the two one-way trips of TCP's
handshake). The netem qdisc would do this in the kernel; the relay needs none.

A run: fresh workers (``tilecensus worker --concurrency 1``, one per host, each started with
``ip netns exec HOST unshare --uts`` under its own hostname, so the ledger's ``worker``
field names the host), then ``tilecensus submit dominoes-RxC --by-search --no-memo
--no-symmetry --wait`` from the root namespace, next to the services, timed as the user
waits (the whole process). The total is checked against Kasteleyn's formula
(``tests/known_tilings.py``). The baseline is one worker on one host without latency (over
the relay all the same); the speed-up of each two-host run is against it. Runs interleave
(baseline, then each latency, repeated) so that the machine's load drifts over all of them
alike; the figures are medians.

Everything it makes — namespaces, veths, relays, workers — goes on exit, Ctrl-C and SIGTERM
included (each worker also dies with this process: PR_SET_PDEATHSIG); namespaces left by a
run killed with -9 are removed by the next. Needs root (``ip netns add``).
"""
from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from known_tilings import kasteleyn  # noqa: E402

PREFIX = "t2h"  # namespaces t2h-PID-a, veths t2hPIDa / t2hPIDap
PR_SET_PDEATHSIG = 1
RUN_FLAGS = ("--by-search", "--no-memo", "--no-symmetry", "--no-estimate")
WARM_UP = "dominoes-7x8"  # 1,292,697 tilings: a second's work, enough to reach every worker


def _die_with_parent() -> None:
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def sh(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, check=check)


def namespaces_possible() -> str | None:
    """None where network namespaces can be made here, else why not."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    for tool in ("ip", "unshare"):
        if subprocess.run(["which", tool], capture_output=True).returncode != 0:
            return f"{tool} is not installed"
    name = f"{PREFIX}-probe-{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if r.returncode != 0:
        return f"ip netns add fails: {r.stderr.strip()}"
    subprocess.run(["ip", "netns", "del", name], capture_output=True)
    return None


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def remove_stale() -> None:
    """Namespaces and veths of an earlier run whose process is gone (killed with -9)."""
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    for m in re.finditer(rf"^{PREFIX}-(\d+)-\w+", out, re.M):
        if not _pid_alive(int(m.group(1))):
            subprocess.run(["ip", "netns", "del", m.group(0)], capture_output=True)
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    for m in re.finditer(rf"^\d+: ({PREFIX}(\d+)[a-z])[@:]", links, re.M):
        if not _pid_alive(int(m.group(2))):
            subprocess.run(["ip", "link", "del", m.group(1)], capture_output=True)


def free_subnets(n: int) -> list[int]:
    """n third octets X with no 10.77.X.0/24 address on this machine."""
    used = set(int(x) for x in re.findall(r"inet 10\.77\.(\d+)\.", sh("ip", "-o", "-4", "addr").stdout))
    free = [x for x in range(1, 255) if x not in used]
    if len(free) < n:
        raise RuntimeError("no free 10.77.X.0/24 subnets")
    return free[:n]


# --- the latency relay ----------------------------------------------------------------
class Relay:
    """TCP relays in a thread of this process: each forwards to its target and delays each
    chunk by ``latency`` seconds one way, keeping the order of each direction. Counts the
    chunks each way (``chunks``: client to server, ``replies``: server to client), about
    the exchanges the clients made."""

    def __init__(self) -> None:
        self.latency = 0.0
        self.chunks = self.replies = self.connections = 0
        self.by_target: dict[int, int] = {}  # requests by the target's port
        self.trace = None  # a file: each request's time, connection, target and first bytes
        self._n = 0
        self.loop = asyncio.new_event_loop()
        self.servers: list[asyncio.AbstractServer] = []
        self.thread = threading.Thread(target=self.loop.run_forever, name="relay", daemon=True)
        self.thread.start()

    def listen(self, host: str, target: tuple[str, int]) -> int:
        """Relay ``host``:(a free port) to ``target``; the port."""
        async def start() -> asyncio.AbstractServer:
            return await asyncio.start_server(lambda r, w: self._serve(r, w, target), host, 0)
        server = asyncio.run_coroutine_threadsafe(start(), self.loop).result(10)
        self.servers.append(server)
        return server.sockets[0].getsockname()[1]

    def reset_counts(self) -> None:
        self.chunks = self.replies = self.connections = 0
        self.by_target = {}

    async def _serve(self, reader, writer, target) -> None:
        loop = asyncio.get_running_loop()
        accepted = loop.time()
        self.connections += 1
        self._n += 1
        conn = self._n
        try:
            up_reader, up_writer = await asyncio.open_connection(*target)
        except OSError:
            writer.close()
            return
        # TCP's handshake takes a round trip before the client's first bytes leave: they
        # reach the server three one-way trips after the client's connect began.
        pipes = [asyncio.create_task(self._pipe(reader, up_writer, accepted + 3 * self.latency, target[1], conn)),
                 asyncio.create_task(self._pipe(up_reader, writer, 0.0, None, conn))]
        try:  # (either side's end, a reset included, ends both: the pipes' errors are the connection's end)
            await asyncio.gather(*pipes, return_exceptions=True)
        except asyncio.CancelledError:  # the relay closing: this connection ends here.  Not re-raised:
            pass  # Python 3.11's streams ask a cancelled client task for its exception, and print that
        finally:
            for p in pipes:
                p.cancel()
            for w in (writer, up_writer):
                w.close()

    async def _pipe(self, reader, writer, not_before: float, upstream: int | None, conn: int) -> None:
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue = asyncio.Queue()

        async def pump() -> None:
            while True:
                try:
                    data = await reader.read(1 << 16)
                except OSError:
                    data = b""
                queue.put_nowait((max(loop.time() + self.latency, not_before), data))
                if not data:
                    return

        pumping = asyncio.create_task(pump())
        try:
            while True:
                due, data = await queue.get()
                wait = due - loop.time()
                if wait > 0:
                    await asyncio.sleep(wait)
                if not data:
                    if writer.can_write_eof():
                        writer.write_eof()
                    return
                if upstream is not None:
                    self.chunks += 1
                    self.by_target[upstream] = self.by_target.get(upstream, 0) + 1
                    if self.trace is not None:
                        self.trace.write(f"{time.time():.4f} {conn} {upstream} {data[:160]!r}\n")
                else:
                    self.replies += 1
                writer.write(data)
                await writer.drain()
        finally:
            pumping.cancel()

    def close(self) -> None:
        """Stop serving: every connection's tasks cancelled and waited for (a task left
        pending when the loop stops is reported as destroyed at the interpreter's exit)."""
        async def stop() -> None:
            for s in self.servers:
                s.close()
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        asyncio.run_coroutine_threadsafe(stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        if not self.thread.is_alive():
            self.loop.close()


# --- the hosts ------------------------------------------------------------------------
class Host:
    def __init__(self, letter: str, subnet: int):
        self.letter = letter
        self.ns = f"{PREFIX}-{os.getpid()}-{letter}"
        self.veth = f"{PREFIX}{os.getpid()}{letter}"
        self.hostname = f"host-{letter}"
        self.root_ip, self.ip = f"10.77.{subnet}.1", f"10.77.{subnet}.2"
        self.made = False

    def make(self) -> None:
        sh("ip", "netns", "add", self.ns)
        self.made = True
        sh("ip", "link", "add", self.veth, "type", "veth", "peer", "name", self.veth + "p")
        sh("ip", "link", "set", self.veth + "p", "netns", self.ns)
        sh("ip", "addr", "add", f"{self.root_ip}/24", "dev", self.veth)
        sh("ip", "link", "set", self.veth, "up")
        for cmd in (("addr", "add", f"{self.ip}/24", "dev", self.veth + "p"), ("link", "set", self.veth + "p", "up"),
                    ("link", "set", "lo", "up")):
            sh("ip", "netns", "exec", self.ns, "ip", *cmd)

    def remove(self) -> None:
        if self.made:
            subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
        subprocess.run(["ip", "link", "del", self.veth], capture_output=True)  # gone with the namespace, else


def _relayed(url: str, host: str, port: int) -> str:
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)
    netloc[-1] = f"{host}:{port}"
    return urlunsplit(parts._replace(netloc="@".join(netloc)))


def _address(url: str, default_port: int) -> tuple[str, int]:
    parts = urlsplit(url)
    return parts.hostname or "127.0.0.1", parts.port or default_port


class Bench:
    def __init__(self, db_url: str, broker_url: str, queue: str, logdir: Path, verbose: bool):
        self.db_url, self.broker_url, self.queue, self.logdir, self.verbose = db_url, broker_url, queue, logdir, verbose
        self.hosts: list[Host] = []
        self.relay: Relay | None = None
        self.urls: dict[str, tuple[str, str]] = {}  # host letter: (db, broker) through the relay
        self.workers: list[subprocess.Popen] = []
        self.n_runs = 0
        self.warm_up = True

    def say(self, text: str) -> None:
        if self.verbose:
            print(f"  [{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)

    def setup(self) -> None:
        remove_stale()
        self.relay = Relay()
        for letter, subnet in zip("ab", free_subnets(2)):
            host = Host(letter, subnet)
            self.hosts.append(host)
            host.make()
            db_port = self.relay.listen(host.root_ip, _address(self.db_url, 5432))
            broker_port = self.relay.listen(host.root_ip, _address(self.broker_url, 6379))
            self.urls[letter] = (_relayed(self.db_url, host.root_ip, db_port),
                                 _relayed(self.broker_url, host.root_ip, broker_port))
            self.say(f"{host.ns}: {host.ip} ({host.hostname}), ledger {self.urls[letter][0]}, "
                     f"broker {self.urls[letter][1]}")

    def env(self, db: str, broker: str) -> dict[str, str]:
        env = dict(os.environ)
        env.update({"TILECENSUS_DB_URL": db, "TILECENSUS_BROKER_URL": broker,
                    "PYTHONPATH": str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")})
        return env

    def start_worker(self, host: Host, queue: str) -> subprocess.Popen:
        db, broker = self.urls[host.letter]
        argv = ["ip", "netns", "exec", host.ns, "unshare", "--uts", "--", "sh", "-c", 'hostname "$0" && exec "$@"',
                host.hostname, sys.executable, "-m", "scheduler", "worker", "--concurrency", "1", "--queues", queue,
                "-n", f"{queue}-{host.letter}@%h", "--loglevel", "WARNING", "--no-restart"]
        log = open(self.logdir / f"worker-{queue}-{host.letter}.log", "wb")
        p = subprocess.Popen(argv, cwd=ROOT, env=self.env(db, broker), stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, start_new_session=True, preexec_fn=_die_with_parent)
        log.close()
        self.workers.append(p)
        return p

    def stop_workers(self) -> None:
        for p in self.workers:
            if p.poll() is None:
                try:
                    os.killpg(p.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 15
        for p in self.workers:
            try:
                p.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(p.pid, signal.SIGKILL)  # whatever of its group is left
            except ProcessLookupError:
                pass
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                pass
        self.workers = []

    def wait_announced(self, queue: str, n: int, timeout: float = 90) -> None:
        import redis

        from scheduler.workforce import workforce

        client = redis.Redis.from_url(self.broker_url)
        deadline = time.monotonic() + timeout
        while workforce(client, queue) < n:
            for p in self.workers:
                if p.poll() is not None:
                    raise RuntimeError(f"a worker exited ({p.returncode}) before it announced itself; "
                                       f"logs in {self.logdir}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{n} workers did not announce themselves in {timeout:.0f} s; logs in {self.logdir}")
            time.sleep(0.1)
        client.close()

    def run(self, rows: int, cols: int, hosts: int, latency_ms: float) -> dict:
        """One timed count on ``hosts`` fresh workers (one per host) at this latency."""
        self.n_runs += 1
        queue = f"{self.queue}-{self.n_runs}"
        self.relay.latency = latency_ms / 1000
        for host in self.hosts[:hosts]:
            self.start_worker(host, queue)
        try:
            self.wait_announced(queue, hosts)
            if self.warm_up:  # connections made, the worker's first-task start-up done: a cluster's steady state
                w = subprocess.run([sys.executable, "-m", "scheduler", "submit", WARM_UP, *RUN_FLAGS, "--queue", queue,
                                    "--wait", "--json", "--no-progress"], cwd=ROOT,
                                   env=self.env(self.db_url, self.broker_url), capture_output=True, text=True,
                                   timeout=600, preexec_fn=_die_with_parent)
                if w.returncode != 0:
                    raise RuntimeError(f"the warm-up count failed ({w.returncode}): {w.stderr[-2000:]}")
            self.relay.reset_counts()
            load = os.getloadavg()[0]
            t = time.monotonic()
            r = subprocess.run([sys.executable, "-m", "scheduler", "submit", f"dominoes-{rows}x{cols}", *RUN_FLAGS,
                                "--queue", queue, "--wait", "--json", "--no-progress"],
                               cwd=ROOT, env=self.env(self.db_url, self.broker_url), capture_output=True, text=True,
                               timeout=1800, preexec_fn=_die_with_parent)
            wall = time.monotonic() - t
            chunks, replies, conns = self.relay.chunks, self.relay.replies, self.relay.connections
            db_port, broker_port = _address(self.db_url, 5432)[1], _address(self.broker_url, 6379)[1]
            to_db, to_broker = self.relay.by_target.get(db_port, 0), self.relay.by_target.get(broker_port, 0)
        finally:
            self.stop_workers()
        if r.returncode != 0:
            raise RuntimeError(f"submit failed ({r.returncode}): {r.stderr[-2000:]}")
        out = json.loads(r.stdout.strip().splitlines()[-1])
        run_id = out["run_id"]
        expected = kasteleyn(rows, cols)
        workers = self.workers_of(run_id)
        result = {"run_id": run_id, "hosts": hosts, "latency_ms": latency_ms, "wall": round(wall, 3),
                  "run_seconds": out.get("seconds"), "solutions": int(out["solutions"]), "expected": expected,
                  "exact": int(out["solutions"]) == expected and out.get("status") == "done",
                  "subproblems": out.get("subproblems"), "workers": workers, "load": round(load, 2),
                  "exchanges": chunks, "to_db": to_db, "to_broker": to_broker, "replies": replies,
                  "connections": conns}
        self.say(f"run {run_id}: {hosts} host(s), {latency_ms:g} ms: {wall:.2f} s, "
                 f"{result['solutions']:,} solutions ({'exact' if result['exact'] else 'WRONG'}), "
                 f"{result['subproblems']} subproblems, {chunks} requests through the relay ({to_db} to the ledger, {to_broker} to the broker; {conns} connections), load {load:.1f}, "
                 f"by {workers}")
        return result

    def workers_of(self, run_id: int) -> dict[str, int]:
        """Subproblems recorded, by the host of the ``worker`` (host:pid) that recorded them."""
        import psycopg

        with psycopg.connect(self.db_url, autocommit=True) as conn:
            rows = conn.execute("SELECT worker, count(*) FROM subproblems WHERE run_id = %s AND state = 'done' "
                                "GROUP BY worker", (run_id,)).fetchall()
        by_host: dict[str, int] = {}
        for worker, n in rows:
            host = (worker or "?").rsplit(":", 1)[0]
            by_host[host] = by_host.get(host, 0) + n
        return by_host

    def teardown(self) -> None:
        self.stop_workers()
        if self.relay is not None:
            self.relay.close()
            self.relay = None
        for host in self.hosts:
            host.remove()
        self.hosts = []


def summarize(runs: list[dict], latencies: list[float]) -> dict:
    base = [r["wall"] for r in runs if r["hosts"] == 1]
    t1 = statistics.median(base)
    rows = []
    for lat in latencies:
        walls = [r["wall"] for r in runs if r["hosts"] == 2 and r["latency_ms"] == lat]
        ex = [r["exchanges"] for r in runs if r["hosts"] == 2 and r["latency_ms"] == lat]
        t2 = statistics.median(walls)
        rows.append({"latency_ms": lat, "walls": walls, "median": round(t2, 3), "speedup": round(t1 / t2, 3),
                     "exchanges": int(statistics.median(ex))})
    zero = next((row for row in rows if row["latency_ms"] == 0), None)
    for row in rows:
        row["vs_no_latency"] = round(row["speedup"] / zero["speedup"], 3) if zero else None
    return {"one_worker": {"walls": base, "median": round(t1, 3)}, "two_hosts": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--latency-ms", type=float, action="append",
                    help="one-way latency of the hosts' links (repeatable; default the sweep 0, 5, 20, 50)")
    ap.add_argument("--board", default="7x10", help="the domino board RxC counted (default 7x10: 53,175,517 tilings)")
    ap.add_argument("--repeats", type=int, default=2, help="runs per latency and of the baseline (default 2)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the one-worker baseline (no speed-ups)")
    ap.add_argument("--db", default=os.environ.get("TILECENSUS_DB_URL", "postgresql://postgres@127.0.0.1:5432/hosts40"),
                    help="the PostgreSQL ledger (default $TILECENSUS_DB_URL or .../hosts40)")
    ap.add_argument("--broker", default=os.environ.get("TILECENSUS_BROKER_URL", "redis://127.0.0.1:6379/9"),
                    help="the Redis broker (default $TILECENSUS_BROKER_URL or redis://127.0.0.1:6379/9)")
    ap.add_argument("--queue", default=f"two-hosts-{os.getpid()}", help="prefix of the runs' queues")
    ap.add_argument("--cold", action="store_true",
                    help="time each count on workers just started (no warm-up count before it)")
    ap.add_argument("--keep", type=Path, help="keep the workers' logs in this folder")
    ap.add_argument("--trace", type=Path, help="write each request through the relay (time, connection, port, "
                    "first bytes) to this file")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON line, last")
    ap.add_argument("--quiet", action="store_true", help="no progress lines")
    args = ap.parse_args(argv)
    latencies = args.latency_ms or [0.0, 5.0, 20.0, 50.0]
    rows, cols = (int(x) for x in args.board.lower().split("x"))
    why = namespaces_possible()
    if why is not None:
        print(f"two_hosts: cannot make network namespaces: {why}", file=sys.stderr)
        return 3

    def stop(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)

    logdir = args.keep or Path(tempfile.mkdtemp(prefix="two-hosts-"))
    logdir.mkdir(parents=True, exist_ok=True)
    bench = Bench(args.db, args.broker, args.queue, logdir, not args.quiet)
    bench.warm_up = not args.cold
    runs: list[dict] = []
    try:
        bench.setup()
        if args.trace:
            bench.relay.trace = open(args.trace, "w", buffering=1)
        for _ in range(args.repeats):
            if not args.no_baseline:
                runs.append(bench.run(rows, cols, 1, 0.0))
            for lat in latencies:
                runs.append(bench.run(rows, cols, 2, lat))
    except KeyboardInterrupt:
        print("two_hosts: interrupted; cleaning up", file=sys.stderr)
        return 130
    finally:
        bench.teardown()
        if args.keep is None:
            import shutil

            shutil.rmtree(logdir, ignore_errors=True)
    exact = all(r["exact"] for r in runs)
    both = all({"host-a", "host-b"} <= set(r["workers"]) for r in runs if r["hosts"] == 2)
    result = {"board": args.board, "expected": kasteleyn(rows, cols), "exact": exact, "both_hosts_recorded": both,
              "cpus": os.cpu_count(), "warm": not args.cold, "runs": runs, "date": time.strftime("%Y-%m-%d")}
    if not args.no_baseline:
        result.update(summarize(runs, latencies))
        print(f"dominoes-{args.board} ({result['expected']:,} tilings), medians of {args.repeats}:")
        print(f"  one worker, no latency   {result['one_worker']['median']:7.2f} s")
        for row in result["two_hosts"]:
            print(f"  two hosts, {row['latency_ms']:4g} ms one way {row['median']:7.2f} s  speed-up "
                  f"{row['speedup']:.2f}x  "
                  + (f"({row['vs_no_latency']:.0%} of no latency's)  " if row["vs_no_latency"] else "") +
                  f"{row['exchanges']} requests through the relay")
    else:
        for r in runs:
            print(f"  {r['hosts']} host(s), {r['latency_ms']:g} ms: {r['wall']:.2f} s")
    print(f"totals {'exact' if exact else 'WRONG'}; both hosts recorded results: {'yes' if both else 'NO'}")
    if args.json:
        print(json.dumps(result))
    return 0 if exact and both else 1


if __name__ == "__main__":
    sys.exit(main())
