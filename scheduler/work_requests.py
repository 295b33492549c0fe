"""Work stealing between Celery workers, through the broker's Redis.

A worker whose message is done while the run's queue is empty and another worker still
searches a subproblem of the run asks for work (:meth:`WorkRequests.wait_for_work`): it
keeps a token in the run's Redis list (``tilecensus:hungry:RUN``, expiring after
:data:`TOKEN_SECONDS`, renewed every :data:`POLL_SECONDS`) until a message reaches the
queue, nobody else searches, or :data:`WAIT_SECONDS` pass.  Each worker process listens
on the list of the run it searches, in a thread — the C search releases the GIL
(:meth:`WorkRequests.searching`); the one that pops a token asks its search to hand back
its frontier now (:mod:`core.handoff`), which is recorded and sent on as any donated
frontier is (:func:`scheduler.runner.execute_batch`), to the worker that waits.  Without
it the waiting worker would idle until the busy one's budget ran out: a second or more at
the end of every run.

The local pool does the same with a signal (:class:`scheduler.runner._LocalRun`).  Only
a Redis broker carries the requests; with another, nobody asks and budgets alone split
the tail.
"""
from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator

from core import handoff

#: a waiting worker's token lives this long unless renewed (seconds)
TOKEN_SECONDS = 0.5
#: how often a waiting worker looks at the queue and renews its token, and how long a
#: listener blocks on the list at a time (seconds)
POLL_SECONDS = 0.05
#: a worker waits for work at most this long after its message (then Celery's queue decides)
WAIT_SECONDS = 5.0
#: a search younger than this is not asked for work: its frontier would be crumbs (seconds)
HANDOFF_AFTER = 0.05


def token_key(run_id: int) -> str:
    return f"tilecensus:hungry:{run_id}"


class WorkRequests:
    """The requests for work of one worker process, over a Redis connection."""

    def __init__(self, client) -> None:
        self.redis = client
        self._run: int | None = None
        self._since = 0.0
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_broker(cls, url: str) -> "WorkRequests | None":
        """Requests over the broker's Redis; None for another broker."""
        if url.split("://", 1)[0].split("+", 1)[0] not in ("redis", "rediss"):
            return None
        import redis

        return cls(redis.Redis.from_url(url, socket_timeout=5 + POLL_SECONDS))

    @contextmanager
    def searching(self, run_id: int) -> Iterator[None]:
        """Around the search of one subproblem of run ``run_id``: a request for work that
        comes meanwhile stops it with its frontier."""
        handoff.clear()  # a request that came after the search before was for that one
        self._since = time.monotonic()
        self._run = run_id
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._listen, name="tilecensus-work-requests", daemon=True)
            self._thread.start()
        self._wake.set()
        try:
            yield
        finally:
            self._run = None

    def _listen(self) -> None:
        import redis

        while True:
            run = self._run
            if run is None:
                self._wake.wait()
                self._wake.clear()
                continue
            young = HANDOFF_AFTER - (time.monotonic() - self._since)
            if young > 0:
                time.sleep(young)
                continue
            try:
                got = self.redis.blpop([token_key(run)], timeout=POLL_SECONDS)
            except redis.RedisError:  # the broker is away: its outage is Celery's to report
                time.sleep(1.0)
                continue
            if got is not None and self._run == run:
                handoff.request()

    def wait_for_work(self, run_id: int, owner: str, queued: Callable[[], int],
                      others_searching: Callable[[], bool], *, clock: Callable[[], float] = time.monotonic,
                      sleep: Callable[[float], None] = time.sleep) -> str:
        """After a message: ask for work while the queue is empty (``queued``: the
        messages waiting) and another worker searches a subproblem of the run
        (``others_searching``).  Returns why it stopped waiting: ``"queued"``,
        ``"nobody searching"`` or ``"waited"``."""
        key = token_key(run_id)
        until = clock() + WAIT_SECONDS
        why = "waited"
        try:
            while clock() < until:
                if queued() > 0:
                    why = "queued"
                    break
                if not others_searching():
                    why = "nobody searching"
                    break
                pipe = self.redis.pipeline()
                pipe.lrem(key, 0, owner)
                pipe.rpush(key, owner)
                pipe.pexpire(key, int(TOKEN_SECONDS * 1000))
                pipe.execute()
                sleep(POLL_SECONDS)
        finally:
            self.redis.lrem(key, 0, owner)  # not asking any more
        return why
