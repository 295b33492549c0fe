"""The Celery application of tilecensus workers (``tilecensus worker`` starts it).

Settings for long batch work come from :mod:`scheduler.celery_config`: late acks,
prefetch 1, re-queue when a worker is lost, a long visibility timeout, JSON only, no
result backend — results live in the ledger.

Each pool process announces itself on the queues it serves while it lives
(:mod:`scheduler.workforce`), so that ``submit`` plans a run for the workers there are.
"""
from __future__ import annotations

import sys

from celery import signals

from scheduler.celery_config import is_redis_url, make_app
from scheduler.workforce import Announcement

# counts of any size are this program's business (see scheduler.cli.app.main)
sys.set_int_max_str_digits(0)

app = make_app()
app.conf.imports = ("worker.tasks",)

_announcement: list[Announcement] = []


@signals.worker_process_init.connect(weak=False)
def _announce(**_) -> None:
    """A pool process starts: announce it on its worker's queues (a Redis broker only)."""
    url = app.conf.broker_url or ""
    if not is_redis_url(url):
        return
    import redis

    client = redis.Redis.from_url(url, socket_timeout=5)
    _announcement.append(Announcement(client, _served_queues()).start())


@signals.worker_process_init.connect(weak=False)
def _connect_ahead(**_) -> None:
    """A pool process starts: its connections to the ledger and the broker are opened now,
    from a thread (:mod:`scheduler.connect_ahead`), not on its first run's path."""
    from scheduler.celery_executor import process_executor
    from scheduler.connect_ahead import connect_ahead
    from scheduler.db import open_ledger

    connect_ahead(open_ledger, lambda: process_executor(app.conf.broker_url), _served_queues())


def _served_queues() -> list[str]:
    """The queues this worker consumes from (all the app knows where none was named)."""
    return list(app.amqp.queues.consume_from or app.amqp.queues)


@signals.worker_process_shutdown.connect(weak=False)
def _withdraw(**_) -> None:
    """A pool process stops: it serves no queue any more."""
    while _announcement:
        _announcement.pop().stop()
