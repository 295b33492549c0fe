"""A worker's pool process opens its connections when it starts, from a thread, not when
its first message needs them.

Far from the ledger and the broker each new connection costs round trips before it
carries anything: PostgreSQL's start-up packets, SQLAlchemy's first queries and the
schema check (about 18 at 50 ms one way: 1.8 s), kombu's ``PING``, ``HELLO``, ``CLIENT``
and ``SELECT`` (six), the work requests' ``SELECT`` (one).  A worker just started paid
them on its first run's path, one connection at a time as the run reached for it: cold
workers kept 63% of the no-latency speed-up at 20 ms, 44% at 50 ms, where warm ones kept
93% and 90% (docs/performance.md, "Two hosts").  Made here, while the worker waits for its
first message, they are in the pools when it comes.

Nothing here is needed: a connection that fails is logged and made again when a message
needs it (the database or the broker may be down when a worker starts; its messages wait
the outage out as ever).  The thread is a daemon, and a pool process that stops does not
wait for it.
"""
from __future__ import annotations

import logging
import threading
from typing import Callable, Sequence

_log = logging.getLogger(__name__)

#: the ledger connections opened ahead: the message's own and one for the thread that
#: pulls or records beside its search (``scheduler.celery_messages._InThread``)
LEDGER_CONNECTIONS = 2


def connect_ahead(open_ledger: Callable[[], object], executor: Callable[[], object],
                  queues: Sequence[str]) -> threading.Thread:
    """Start the thread that opens this process's connections: the ledger's
    (``open_ledger()``: checked and migrated as a message would, then
    :data:`LEDGER_CONNECTIONS` pooled connections), and the broker's (``executor()``:
    its sending connection with the first queue declared, its look at that queue's
    length, its work requests' client)."""
    thread = threading.Thread(target=_connect, args=(open_ledger, executor, list(queues)),
                              name="tilecensus-connect-ahead", daemon=True)
    thread.start()
    return thread


def _connect(open_ledger: Callable[[], object], executor: Callable[[], object], queues: list[str]) -> None:
    try:
        _fill_pool(open_ledger().engine, LEDGER_CONNECTIONS)
    except Exception as exc:  # made again by the first message that needs it
        _log.warning("could not open the ledger's connections ahead: %s", str(exc).splitlines()[0])
    try:
        sender = executor()
        if queues:
            sender.check(queues[0])
            sender.queue_size(queues[0])
        if sender.requests is not None:
            sender.requests.redis.ping()
    except Exception as exc:  # made again by the first message that needs it
        _log.warning("could not open the broker's connections ahead: %s", str(exc).splitlines()[0])


def _fill_pool(engine, n: int) -> None:
    """``n`` connections of an engine's pool checked out together (each a new one where
    the pool holds fewer), then all returned to it — no more than the pool keeps, so that
    this never waits for a connection a message holds (a pool of one: the capacity
    benchmark's workers)."""
    size = getattr(engine.pool, "size", None)
    if callable(size):
        n = min(n, size())
    held = []
    try:
        for _ in range(n):
            held.append(engine.connect())
    finally:
        for conn in held:
            conn.close()
