"""The services the tests talk to, and the tests' own processes: the PostgreSQL admin
connection and a fresh database per test, Redis (up, or started as CI starts it), the
CLI run as a real process, and the workers and schedulers a test starts.  Imported by
``conftest.py`` (its fixtures) and by the end-to-end tests (``from services import ...``:
a module of this name is found whichever conftest pytest loaded first)."""
from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN_URL = os.environ.get("TILECENSUS_TEST_PG", "postgresql://postgres@127.0.0.1:5432/test")
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
REDIS_TEST_DB = int(os.environ.get("TILECENSUS_TEST_REDIS_DB", "11"))
REDIS_RESTART = [
    "redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "-::1", "--port", "6379", "--save", "",
    "--appendonly", "no", "--dir", "/var/lib/redis", "--logfile", "/var/log/redis/ci.log",
]
SESSION_TAG = secrets.token_hex(3)


def pg_admin():
    import psycopg

    return psycopg.connect(PG_ADMIN_URL.replace("postgresql+psycopg", "postgresql"), autocommit=True, connect_timeout=3)


_DB_COUNTER = iter(range(1, 1_000_000))


def create_pg_database() -> tuple[str, str]:
    """A fresh database ``tilecensus_test_<session>_<n>``: (name, URL)."""
    name = f"tilecensus_test_{SESSION_TAG}_{next(_DB_COUNTER)}"
    with pg_admin() as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name, f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}"


def drop_pg_database(name: str) -> None:
    from scheduler.db import close_ledger

    close_ledger(f"{PG_ADMIN_URL.rsplit('/', 1)[0]}/{name}")
    with pg_admin() as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def redis_up() -> bool:
    import redis

    try:
        return bool(redis.Redis(REDIS_HOST, REDIS_PORT, socket_timeout=1).ping())
    except redis.exceptions.RedisError:
        return False


def start_redis() -> None:
    """Start Redis the way this machine's CI does, and wait until it answers."""
    if redis_up():
        return
    subprocess.run(REDIS_RESTART, check=True, capture_output=True)
    for _ in range(100):
        if redis_up():
            return
        time.sleep(0.05)
    raise RuntimeError("redis did not come back")


def cli_env(db_url: str | None = None, broker: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    if db_url:
        env["TILECENSUS_DB_URL"] = db_url
    if broker:
        env["TILECENSUS_BROKER_URL"] = broker
    return env


def run_cli(*args: str, db_url: str | None = None, broker: str | None = None, timeout: float = 120,
            check: bool = False) -> subprocess.CompletedProcess:
    """``tilecensus ARGS`` as a real process (``python -m scheduler``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "scheduler", *args], cwd=ROOT, env=cli_env(db_url, broker),
        capture_output=True, text=True, timeout=timeout,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"tilecensus {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    return proc


class Processes:
    """Background processes of one test (workers, schedulers), each in its own process
    group so a test can kill -9 one with its pool, and everything is stopped at the end."""

    def __init__(self, tmp_path: Path):
        self.tmp_path = tmp_path
        self.procs: list[subprocess.Popen] = []

    def start(self, *args: str, db_url: str | None = None, broker: str | None = None, name: str = "proc") -> subprocess.Popen:
        log = open(self.tmp_path / f"{name}-{len(self.procs)}.log", "w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "scheduler", *args], cwd=ROOT, env=cli_env(db_url, broker),
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        proc.log_path = log.name  # type: ignore[attr-defined]
        self.procs.append(proc)
        return proc

    def worker(self, db_url: str, broker: str, queue: str, concurrency: int = 2) -> subprocess.Popen:
        return self.start("worker", "--concurrency", str(concurrency), "--queues", queue, "--loglevel", "WARNING",
                          "-n", f"{queue}-{len(self.procs)}@%h", db_url=db_url, broker=broker, name="worker")

    def scheduler(self, db_url: str, broker: str, interval: float = 0.3, grace: float = 1.0) -> subprocess.Popen:
        return self.start("scheduler", "--interval", str(interval), "--grace", str(grace),
                          db_url=db_url, broker=broker, name="scheduler")

    @staticmethod
    def kill(proc: subprocess.Popen, sig: int = signal.SIGKILL) -> None:
        """Signal a process and its children (its process group), by id."""
        try:
            os.killpg(proc.pid, sig)  # the group outlives a leader killed alone
        except ProcessLookupError:
            pass
        proc.wait(timeout=30)

    def stop_all(self) -> None:
        for proc in self.procs:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        for proc in self.procs:
            try:
                proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            self.kill(proc)
