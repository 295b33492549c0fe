"""How many worker processes serve a Celery queue, so that a run is planned for them.

Each pool process of a tilecensus worker announces itself in the broker's Redis while it
lives: a sorted set per queue (``tilecensus:workforce:QUEUE``), one member per process
(``host:pid``), scored by the broker's clock at its last announcement, renewed every
:data:`ANNOUNCE_SECONDS` by a thread of its own and removed when the process stops.  A
member not renewed for :data:`STALE_SECONDS` is a process that died without saying so
(SIGKILL, a lost machine) and is not counted.  The broker's clock, not each host's,
scores them, so machines whose clocks disagree still agree on who is gone.

``submit`` counts them (:func:`workforce`) and plans the run for that many workers: the
trial's frontier in pieces for them, and its messages by guided self-scheduling with
their number as the share (:func:`scheduler.batches.pack`).  Planned for the default of
eight where nobody has announced (a broker that is not Redis, workers of an earlier
version, or none started yet), the pentacube box went to two workers in 18-20 messages,
most of them 20-100 ms long against about 10 ms of Celery and the ledger around each;
planned for the two there were, in 10-11 (2026-12-02, docs/performance.md).
"""
from __future__ import annotations

import logging
import os
import socket
import threading
from typing import Iterable

_log = logging.getLogger(__name__)

#: how often a worker process renews its announcement (seconds)
ANNOUNCE_SECONDS = 5.0
#: an announcement older than this is a process gone (seconds)
STALE_SECONDS = 3 * ANNOUNCE_SECONDS


def workforce_key(queue: str) -> str:
    """The sorted set of the worker processes serving ``queue``."""
    return f"tilecensus:workforce:{queue}"


def member_name() -> str:
    """This process, as it announces itself: ``host:pid``."""
    return f"{socket.gethostname()}:{os.getpid()}"


def _broker_now(client) -> float:
    seconds, micros = client.time()
    return seconds + micros / 1e6


def workforce(client, queue: str) -> int:
    """The worker processes serving ``queue`` now (0: none announced), forgetting the
    announcements gone stale."""
    now = _broker_now(client)
    pipe = client.pipeline(transaction=True)
    pipe.zremrangebyscore(workforce_key(queue), "-inf", now - STALE_SECONDS)
    pipe.zcard(workforce_key(queue))
    return int(pipe.execute()[1])


def workforce_hosts(client, queue: str) -> int:
    """The machines whose worker processes serve ``queue`` now (a member is ``host:pid``):
    a count by levels takes one share a machine, on its processes as threads."""
    members = client.zrangebyscore(workforce_key(queue), _broker_now(client) - STALE_SECONDS, "+inf")
    names = (m.decode() if isinstance(m, bytes) else str(m) for m in members)
    return len({name.rsplit(":", 1)[0] for name in names})


class Announcement:
    """One worker process's announcement on the queues it serves: :meth:`start` says so
    now and renews it from a daemon thread; :meth:`stop` withdraws it."""

    def __init__(self, client, queues: Iterable[str], member: str | None = None):
        self.redis = client
        self.queues = sorted(set(queues))
        self.member = member or member_name()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def announce(self) -> None:
        """Say now that this process serves its queues."""
        now = _broker_now(self.redis)
        pipe = self.redis.pipeline(transaction=False)
        for queue in self.queues:
            pipe.zadd(workforce_key(queue), {self.member: now})
            # a queue nobody serves any more is forgotten with its last member
            pipe.expire(workforce_key(queue), int(STALE_SECONDS) + 1)
        pipe.execute()

    def start(self) -> "Announcement":
        self._safely(self.announce)
        self._thread = threading.Thread(target=self._renew, name="tilecensus-workforce", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(1.0)
        pipe = self.redis.pipeline(transaction=False)
        for queue in self.queues:
            pipe.zrem(workforce_key(queue), self.member)
        self._safely(pipe.execute)

    def _renew(self) -> None:
        while not self._stop.wait(ANNOUNCE_SECONDS):
            self._safely(self.announce)

    def _safely(self, call) -> None:
        """A broker away is Celery's to report; its workers go on, and the next
        announcement catches up."""
        import redis

        try:
            call()
        except redis.RedisError as exc:
            _log.warning("worker %s: not announced on %s (the broker: %s)", self.member, ", ".join(self.queues),
                         str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
