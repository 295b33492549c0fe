"""Work stealing between Celery workers, through the broker's Redis.

A worker whose message is done while the run's queue is empty and another worker still
searches a subproblem of the run asks for work (:meth:`WorkRequests.wait_for_work`): it
keeps a token in the run's Redis list (``tilecensus:hungry:RUN``, expiring after
:data:`TOKEN_SECONDS`, renewed every :data:`POLL_SECONDS`) until a message reaches the
queue, nobody else searches, or :data:`WAIT_SECONDS` pass.  Each worker process listens
on the list of the run whose message it holds, in a thread, for the whole message
(:meth:`WorkRequests.serving`; the C search releases the GIL).  The one that pops a token
gives work away twice over: the subproblems of its message it has not started go back to
the queue at its next subproblem (:meth:`WorkRequests.asked`,
:func:`scheduler.celery_messages.execute_batch`), and its running search, once older than
:data:`HANDOFF_AFTER`, hands back its frontier now (:mod:`core.handoff`), recorded and
sent on as any donated frontier is.  A worker whose message holds unstarted subproblems
pops a token at once, however young its running search (:meth:`WorkRequests.holding`);
one whose message holds none, only once its search is old enough to be worth stopping.  Whoever sends a run's messages wakes the workers
waiting on it at once (:meth:`WorkRequests.fed`, the list ``tilecensus:fed:RUN``).
Without it the waiting worker would idle until the busy one's budget ran out: a second or
more at the end of every run.

Measured on the pentacube box (2026-11-28, two Celery workers): a worker asking between
two subproblems of the other's message waited 0.12-0.17 s — the other's next search had
to age, stop, be recorded and sent, and the asker looked at the queue every 0.05 s —
where the message's unstarted subproblems can go at once.  Later the same day: a message
of searches each under 50 ms never let its listener pop a token (it slept while each
search was young), so the asker waited for a longer search to age — 0.116 s in a traced
run; popped at once while unstarted subproblems remain, a steal took 11-30 ms from the
request to the asker's next message.

The local pool does the same with a signal (:class:`scheduler.local_pool._LocalRun`).  Only
a Redis broker carries the requests; with another, nobody asks and budgets alone split
the tail.
"""
from __future__ import annotations

import logging
import threading
import time
from contextlib import ExitStack, contextmanager
from typing import Callable, Iterator

from core import handoff

_log = logging.getLogger(__name__)

#: a waiting worker's token lives this long unless renewed (seconds)
TOKEN_SECONDS = 0.5
#: how often a waiting worker looks at the queue and renews its token, and how long a
#: listener blocks on the list at a time (seconds)
POLL_SECONDS = 0.05
#: a worker waits for work at most this long after its message (then Celery's queue decides)
WAIT_SECONDS = 5.0
#: a search younger than this is not asked for work: its frontier would be crumbs (seconds)
HANDOFF_AFTER = 0.05


def _no_client_info() -> dict:
    """redis-py's arguments for a connection that sends no ``CLIENT SETINFO``:
    ``driver_info=None`` where it has one (8.1; ``lib_name`` is deprecated there), else
    ``lib_name`` and ``lib_version`` None."""
    import inspect

    import redis.connection

    if "driver_info" in inspect.signature(redis.connection.AbstractConnection.__init__).parameters:
        return {"driver_info": None}
    return {"lib_name": None, "lib_version": None}


def token_key(run_id: int) -> str:
    return f"tilecensus:hungry:{run_id}"


def fed_key(run_id: int) -> str:
    """The list a sender of the run's messages pushes to, waking a waiting worker."""
    return f"tilecensus:fed:{run_id}"


class WorkRequests:
    """The requests for work of one worker process, over a Redis connection."""

    def __init__(self, client) -> None:
        self.redis = client
        self._run: int | None = None       # the run whose message this process holds
        self._asking = False               # this process is asking for work itself
        self._searching = False            # a search of it is running ...
        self._since = 0.0                  # ... since then (time.monotonic)
        self._asked = False                # a token was taken during this message
        self._pending = False              # ... and the running search is still to stop
        self._unstarted = 0                # subproblems of the message not started yet
        self._token: bytes | None = None   # the token taken during this message, not yet answered
        self._lock = threading.Lock()      # the message's end against a token being taken
        self._give_rest: Callable[[], bool] | None = None  # hands back the message's unstarted subproblems
        self._giving = threading.Lock()    # held while the listener hands them back
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def for_broker(cls, url: str) -> "WorkRequests | None":
        """Requests over the broker's Redis; None for another broker.  Its connections
        speak RESP2 and tell nothing about the client: a new one sends ``SELECT`` alone
        (its database) where redis-py 8 sent ``HELLO 3``, ``CLIENT MAINT_NOTIFICATIONS``
        and two ``CLIENT SETINFO`` first — five round trips, 0.5 s at 50 ms one way, each
        time a worker's threads needed one more connection (2026-12-07,
        ``bench/two_hosts.py --trace``)."""
        from .celery_config import is_redis_url

        if not is_redis_url(url):
            return None
        import redis

        return cls(redis.Redis.from_url(url, socket_timeout=5 + POLL_SECONDS, protocol=2, **_no_client_info()))

    @contextmanager
    def serving(self, run_id: int, give_rest: Callable[[], bool] | None = None) -> Iterator[None]:
        """Around one message of run ``run_id``: a request for work that comes meanwhile
        is taken (:meth:`asked` turns true).  While the message holds subproblems not
        started, ``give_rest`` hands them back at once, from the listening thread, while
        the running search goes on (True when it gave any); else the running search, if
        any, stops with its frontier."""
        self._asked = self._pending = False
        self._token = None
        self._give_rest = give_rest
        self._run = run_id
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._listen, name="tilecensus-work-requests", daemon=True)
            self._thread.start()
        self._wake.set()
        try:
            yield
        finally:
            with self._giving, self._lock:  # a hand-back under way ends first
                self._run = None
                self._give_rest = None
                token, self._token = self._token, None
            self._pending = False
            self._unstarted = 0
            if token is not None:  # taken, but nothing went out after it: the asker still waits
                self._give_back(run_id, token)

    def holding(self, unstarted: int) -> None:
        """How many subproblems of the message held are not started yet: while there are
        some, a request is taken at once, young search or not — they go back at the end
        of the running search (:meth:`asked`)."""
        self._unstarted = unstarted

    @contextmanager
    def searching(self, run_id: int) -> Iterator[None]:
        """Around the search of one subproblem of run ``run_id`` (within its message's
        :meth:`serving`, or serving for the search alone): a request for work stops it
        with its frontier once it is :data:`HANDOFF_AFTER` old."""
        with ExitStack() as stack:
            if self._run != run_id:
                stack.enter_context(self.serving(run_id))
            handoff.clear()  # a request that came for the search before was for that one
            self._since = time.monotonic()
            self._searching = True
            self._wake.set()
            try:
                yield
            finally:
                self._searching = False

    def answered(self) -> None:
        """A worker staying on its run took its next parcel: a request taken before was
        answered by what went back, or is asked again by its worker's next look (a waiting
        worker renews its token every :data:`POLL_SECONDS`), so the new parcel is not
        given away for it."""
        with self._lock:
            self._asked = self._pending = False
            self._token = None

    def asked(self) -> bool:
        """Whether another worker asked for work during this message: what it has not
        started should go back to the queue."""
        return self._asked

    def fed(self, run_id: int) -> None:
        """Wake a worker waiting for work of run ``run_id``: messages were just sent, or
        subproblems left in the ledger (which answers a token this process took).  With
        the broker away nobody is woken: a waiting worker looks again within
        :data:`POLL_SECONDS` anyway, so the work stays where it is and this only warns
        (it raised, and failed the message of a worker that had just recorded a donated
        frontier: the Redis-restart test, 2026-12-02)."""
        import redis

        self._token = None
        pipe = self.redis.pipeline()
        pipe.rpush(fed_key(run_id), 1)
        pipe.pexpire(fed_key(run_id), int(TOKEN_SECONDS * 1000))
        try:
            pipe.execute()
        except redis.RedisError as exc:
            _log.warning("run %s: waiting workers not woken (the broker: %s)", run_id, str(exc).splitlines()[0])

    def _give_back(self, run_id: int, token: bytes) -> None:
        """Put a token taken but not answered back at the head of the run's list, for
        another worker to answer.  Lost, its asker idled until its next look at the queue
        (2026-11-28, a traced box run: a listener still blocked on the list when its own
        message ended took the next asker's token, twice a run, 74 and 85 ms idle)."""
        import redis

        pipe = self.redis.pipeline()
        pipe.lpush(token_key(run_id), token)
        pipe.pexpire(token_key(run_id), int(TOKEN_SECONDS * 1000))
        try:
            pipe.execute()
        except redis.RedisError as exc:  # the broker is away: the asker's own look at the queue ends its wait
            _log.warning("run %s: a request for work not given back (the broker: %s)", run_id,
                         str(exc).splitlines()[0])

    def _listen(self) -> None:
        """The listening thread: while a message is held, take a token of its run — not
        while the running search is younger than :data:`HANDOFF_AFTER` and the message
        holds nothing unstarted (an older search elsewhere may give at once) — and stop
        the running search, once old enough, for a token taken."""
        import redis

        while True:
            run = self._run
            if run is None or self._asking:  # nothing held, or asking: a token is not for this process
                self._wake.wait()
                self._wake.clear()
                continue
            if self._searching:
                young = HANDOFF_AFTER - (time.monotonic() - self._since)
                if young > 0 and (self._pending or not self._unstarted):
                    time.sleep(young)
                    continue
                if self._pending:
                    self._pending = False
                    handoff.request()
                    continue
            elif self._pending:  # taken between searches: the message gives what it has not started
                self._wake.wait(POLL_SECONDS)
                self._wake.clear()
                continue
            try:
                got = self.redis.blpop([token_key(run)], timeout=POLL_SECONDS)
            except redis.RedisError:  # the broker is away: its outage is Celery's to report
                time.sleep(1.0)
                continue
            if got is None:
                continue
            with self._giving:
                with self._lock:
                    taken = self._run == run and not self._asking
                    if taken:
                        self._token = got[1]
                        self._asked = True
                if not taken:  # the message ended, or this process began asking, while it waited on the list
                    self._give_back(run, got[1])
                elif not self._gave_rest():  # nothing unstarted went: the running search gives
                    self._pending = True

    def _gave_rest(self) -> bool:
        """Hand back the message's unstarted subproblems now, if it holds any (the running
        search goes on): whether any went.  Before, they went at the end of the running
        search — up to 50 ms of the asker idling, as often as twice a box run."""
        if not self._unstarted or self._give_rest is None:
            return False
        try:
            return self._give_rest()
        except Exception as exc:  # the database or the broker: the message's loop hands them back
            _log.warning("run %s: unstarted subproblems not handed back from the listener (%s: %s)", self._run,
                         type(exc).__name__, str(exc).splitlines()[0] if str(exc) else "")
            return False

    def wait_for_work(self, run_id: int, owner: str, queued: Callable[[], int],
                      others_searching: Callable[[], bool], *, pullable: Callable[[], bool] | None = None,
                      clock: Callable[[], float] = time.monotonic, nap: Callable[[int], None] | None = None) -> str:
        """After a message: ask for work while the queue is empty (``queued``: the
        messages waiting) and another worker searches a subproblem of the run
        (``others_searching``) — and, for a worker that pulls the run's subproblems from
        the ledger, while none is pending there (``pullable``).  Returns why it stopped
        waiting: ``"pullable"``, ``"queued"``, ``"nobody searching"`` or ``"waited"``.
        Between looks it waits :data:`POLL_SECONDS`, or less when a sender wakes it
        (``nap``: how)."""
        nap = nap or self._nap
        key = token_key(run_id)
        until = clock() + WAIT_SECONDS
        why = "waited"
        # a worker staying on its run asks while it still serves it: its own listener must
        # not take its token (traced 2026-12-02: it did, and the asker idled to the run's end)
        self._asking = True
        try:
            while clock() < until:
                if pullable is not None and pullable():
                    why = "pullable"
                    break
                # nobody searching before the queue: the ledger's look has just said so, while a look
                # at the queue may open a connection (six round trips far from the broker: a worker
                # whose run had ended finished its wait 2 s into the next run, traced at 50 ms)
                if not others_searching():
                    why = "nobody searching"
                    break
                if queued() > 0:
                    why = "queued"
                    break
                pipe = self.redis.pipeline()
                pipe.lrem(key, 0, owner)
                pipe.rpush(key, owner)
                pipe.pexpire(key, int(TOKEN_SECONDS * 1000))
                pipe.execute()
                nap(run_id)
        finally:
            try:
                self.redis.lrem(key, 0, owner)  # not asking any more
            finally:
                self._asking = False
                self._wake.set()
        return why

    def _nap(self, run_id: int) -> None:
        """Up to :data:`POLL_SECONDS`, less when a sender wakes the run's waiters."""
        self.redis.blpop([fed_key(run_id)], timeout=POLL_SECONDS)
