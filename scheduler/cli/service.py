"""Commands that run the service: ``worker`` (a Celery worker), ``scheduler`` (keeps
Celery runs moving) and ``db upgrade`` (the ledger's schema)."""
from __future__ import annotations

import os
import sys
import time
from typing import Any

import click

from ..run_options import DEFAULT_QUEUE
from .app import App, cli
from .options import broker_option, db_option, json_option


#: seconds between tries while the broker does not answer at start
BROKER_RETRY = 2.0


def wait_for_broker(executor, who: str, retry: float = BROKER_RETRY) -> None:
    """Wait until the broker answers, saying so once on stderr (and again when it does):
    ``worker`` and ``scheduler`` both start this way when the broker is down."""
    from ..errors import BrokerError

    said = False
    while True:
        try:
            executor.check()
        except BrokerError as exc:
            if not said:
                click.echo(f"tilecensus {who}: {exc}; waiting for it (trying every {retry:g} s)", err=True)
                said = True
            time.sleep(retry)
            continue
        if said:
            click.echo(f"tilecensus {who}: the broker answers; starting", err=True)
        return


@cli.command()
@click.option("--concurrency", "-c", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              show_default="CPUs", help="worker processes solving subproblems side by side")
@click.option("--queues", "-Q", default=DEFAULT_QUEUE, show_default=True, help="comma-separated queues")
@click.option("--hostname", "-n", help="worker node name (default: celery@HOST)")
@click.option("--loglevel", "-l", default="INFO", show_default=True,
              help="Celery's log level (DEBUG, INFO, WARNING, ERROR)")
@click.option("--restart/--no-restart", default=True, show_default=True,
              help="start again when Celery stops the worker on an error (never when asked to stop)")
@db_option
@broker_option
@click.pass_obj
def worker(app: App, concurrency: int, queues: str, hostname: str | None, loglevel: str, restart: bool) -> None:
    """Start a Celery worker solving subproblems."""
    from celery import signals

    from ..celery_config import ENV_BROKER_URL
    from ..db import ENV_DB_URL
    from ..restarts import RestartPolicy, previous_failures, restart_in_place
    from ..celery_executor import CeleryExecutor

    ledger = app.ledger()  # answers, and has the schema
    executor = CeleryExecutor(app.broker_url)  # a URL that is no broker URL is an error here
    wait_for_broker(executor, "worker")
    os.environ[ENV_DB_URL] = ledger.url
    os.environ[ENV_BROKER_URL] = executor.url
    from worker.app import app as celery_app  # the one import of worker/ (import-linter allows it here)

    celery_app.conf.broker_url = executor.url
    argv = ["worker", f"--concurrency={concurrency}", "-Q", queues, f"--loglevel={loglevel}",
            "--without-gossip", "--without-mingle", "--pool=prefork"]
    if hostname:
        argv += ["-n", hostname]
    seen: dict[str, Any] = {"worker": None, "ready": False, "asked_to_stop": False}
    signals.worker_init.connect(lambda sender, **_: seen.update(worker=sender), weak=False)
    signals.worker_ready.connect(lambda **_: seen.update(ready=True), weak=False)
    signals.worker_shutting_down.connect(lambda **_: seen.update(asked_to_stop=True), weak=False)
    started = time.monotonic()
    celery_app.worker_main(argv)
    code = getattr(seen["worker"], "exitcode", None)  # worker_main keeps Celery's status to itself
    policy = RestartPolicy()
    if restart and policy.should_restart(code, seen["ready"], seen["asked_to_stop"]):
        failures = policy.failures(previous_failures(), time.monotonic() - started)
        pause = policy.pause(failures)
        click.echo(f"tilecensus worker: Celery stopped the worker (status {code}) without being asked to; "
                   f"starting again in {pause:g} s", err=True)
        restart_in_place(failures, pause)
    sys.exit(code or 0)


@cli.command()
@db_option
@broker_option
@click.option("--interval", type=click.FloatRange(min=0.05), default=5.0, show_default=True,
              help="seconds between rounds")
@click.option("--grace", type=click.FloatRange(min=0), default=10.0, show_default=True,
              help="seconds before an unstarted pending subproblem is sent again (when its queue is empty)")
@click.option("--once", is_flag=True, help="one round, then exit")
@json_option
@click.pass_obj
def scheduler(app: App, interval: float, grace: float, once: bool) -> None:
    """Keep Celery runs moving: re-queue expired leases and lost messages, close finished runs.
    A broker that does not answer at start is waited for, as ``worker`` does (``--once``:
    an error instead)."""
    from ..celery_executor import CeleryExecutor
    from ..scheduler_round import tick
    from .running import outages

    ledger = app.ledger()
    executor = CeleryExecutor(app.broker_url)
    if once:
        executor.check()
    else:
        wait_for_broker(executor, "scheduler")
    waited_out = outages(executor)
    while True:
        try:
            did = tick(ledger, executor, grace=grace)
        except waited_out as exc:
            if once:
                raise
            click.echo(f"tilecensus scheduler: {str(exc).splitlines()[0]}; retrying", err=True)
            did = None
        if did is not None and (app.as_json or any(did.values())):
            if app.as_json:
                app.echo_json(did)
            else:
                click.echo(f"requeued {did['requeued']}, resent {did['resent']}, verified {did['verified']} here, "
                           f"closed {did['closed']} runs")
        if once:
            return
        time.sleep(interval)


@cli.group()
def db() -> None:
    """The ledger database."""


@db.command("upgrade")
@db_option
@json_option
@click.pass_obj
def db_upgrade(app: App) -> None:
    """Create or upgrade the ledger's tables (Alembic) to the newest revision."""
    from ..db import open_ledger, safe_url
    from ..migrate import current_revision, head_revision, upgrade

    ledger = open_ledger(app.db_url, upgrade=False)
    before = current_revision(ledger.engine)
    after = upgrade(ledger.engine)
    if app.as_json:
        app.echo_json({"url": safe_url(ledger.url), "from": before, "revision": after, "head": head_revision()})
    else:
        click.echo(f"ledger {safe_url(ledger.url)}: revision {before or 'none'} -> {after}")
