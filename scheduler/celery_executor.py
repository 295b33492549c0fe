"""The Celery executor's sending side: :class:`CeleryExecutor` sends subproblem ids to a
Celery queue (Redis) by task name, several to a message when they are estimated to be
quick (:mod:`scheduler.batches`), and asks the broker about the workers serving a queue
(:mod:`scheduler.workforce`).  What a worker does with a message is
:mod:`scheduler.celery_messages`; the scheduler's round, :mod:`scheduler.scheduler_round`.
"""
from __future__ import annotations

import logging
import threading
from fractions import Fraction
from typing import Sequence

from .batches import MESSAGE_SECONDS, messages_of
from .celery_config import SOLVE_TASK_NAME, VERIFY_TASK_NAME, checked_broker_url, make_app
from .db import Ledger, safe_url
from .end_channels import REDIS_CHANNEL
from .errors import BrokerError
from .ledger import mark_queued
from .ledger import verifications as V
from .work_requests import WorkRequests

_log = logging.getLogger(__name__)

class CeleryExecutor:
    """Sends subproblems to a Celery queue (Redis) by task name; no import of ``worker``."""

    def __init__(self, url: str | None = None):
        self.url = checked_broker_url(url)
        self.app = make_app(self.url, name="tilecensus-sender")
        self._requests: WorkRequests | None | bool = False  # not made yet

    @property
    def requests(self) -> WorkRequests | None:
        """This process's requests for work over the broker (None without Redis), made on
        first use: only workers ask and listen."""
        if self._requests is False:
            self._requests = WorkRequests.for_broker(self.url)
        return self._requests  # type: ignore[return-value]

    @property
    def counts_workers(self) -> bool:
        """Whether the workers serving a queue announce themselves here (a Redis broker)."""
        return self.requests is not None

    def check(self, queue: str | None = None) -> None:
        """Raise :class:`BrokerError` when the broker does not answer.  The connection
        stays in the app's pool for the first message, and with ``queue`` that queue is
        declared and Celery's sending side loaded: ``submit``'s first message went out
        30 ms after the run was written, 5-8 ms once these were done before its planning
        (2026-11-28)."""
        try:
            with self.app.producer_or_acquire() as producer:
                producer.connection.ensure_connection(max_retries=1, interval_start=0.2, interval_step=0.2, timeout=3)
                if queue is not None:
                    producer.maybe_declare(self.app.amqp.queues[queue])
        except Exception as exc:  # kombu raises a variety of OSError / OperationalError types
            raise self._unreachable(exc) from exc
        self.app.backend  # noqa: B018 -- loaded on the first message otherwise (16 ms)

    def workforce(self, queue: str) -> int | None:
        """The worker processes serving ``queue`` now, as they announced themselves
        (:mod:`scheduler.workforce`); None where none did, or the broker is not Redis.
        Raises :class:`BrokerError` when the broker does not answer."""
        import redis

        from .workforce import workforce

        requests = self.requests
        if requests is None:
            return None
        try:
            return workforce(requests.redis, queue) or None
        except redis.RedisError as exc:
            raise self._unreachable(exc) from exc

    def hosts(self, queue: str) -> int:
        """The machines of the worker processes serving ``queue`` (1 where none announced)."""
        import redis

        from .workforce import workforce_hosts

        requests = self.requests
        if requests is None:
            return 1
        try:
            return workforce_hosts(requests.redis, queue) or 1
        except redis.RedisError as exc:
            raise self._unreachable(exc) from exc

    def announce_end(self, run_id: int) -> None:
        """Publish that run ``run_id`` ended (closed or failed here) on the broker's channel
        :data:`~scheduler.end_channels.REDIS_CHANNEL`, for a waiter whose ledger sends no
        notification of its own (:mod:`scheduler.waiting`); a Redis broker only.  A
        broker away is a warning: the waiter's next look at the ledger sees the end."""
        requests = self.requests
        if requests is None:
            return
        import redis

        try:
            requests.redis.publish(REDIS_CHANNEL, str(run_id))
        except redis.RedisError as exc:
            _log.warning("run %s ended; not announced on the broker: %s", run_id, str(exc).splitlines()[0])

    def _unreachable(self, exc: BaseException) -> BrokerError:
        """The broker did not answer: the one line a command prints."""
        return BrokerError(f"cannot reach the broker {safe_url(self.url)}: {str(exc).splitlines()[0]}")

    @property
    def outage_errors(self) -> tuple[type[BaseException], ...]:
        """What sending or sizing a queue raises while the broker is down or restarting:
        kombu's own ``OperationalError`` and the transport's connection errors, which kombu
        passes through unwrapped in places (redis-py's are not ``OSError``).  A caller that
        waits an outage out catches these and nothing broader."""
        from kombu.exceptions import OperationalError as BrokerDown

        with self.app.connection_for_write() as conn:  # no network: the transport's classes only
            known = (*conn.connection_errors, *conn.channel_errors)
        return tuple(dict.fromkeys(e for e in (BrokerDown, *known) if e is not KeyError))

    def dispatch(self, run_id: int, sub_ids: Sequence[int], queue: str, ledger: Ledger | None = None, *,
                 weights: Sequence[Fraction] | None = None, rate: float | None = None,
                 target: float = MESSAGE_SECONDS, share: int | None = None,
                 at_most: int | None = None) -> list[list[int]]:
        """Stamp the subproblems as queued (when given the ledger), then send them packed
        into messages by their estimated seconds (:func:`scheduler.batches.pack`: weight
        x ``rate`` up to ``target`` a message, guided by ``share``, the workers the run
        was planned for; no ``weights`` or ``rate``: one each) — the first ``at_most``
        messages only, where the workers pull the rest from the ledger
        (:func:`scheduler.celery_messages.execute_batch`).  Returns the messages sent."""
        if not sub_ids:
            return []
        if ledger is not None:
            mark_queued(ledger, sub_ids)
        messages = messages_of(sub_ids, weights, rate, target, share, at_most)
        self._send(SOLVE_TASK_NAME, [[run_id, m] for m in messages], queue)
        if self._requests:  # a worker: one of this run's may be waiting for work
            self._requests.fed(run_id)
        return messages

    def invite(self, run_id: int, queue: str) -> None:
        """Send a message of run ``run_id`` with no subproblems: its worker pulls the run's
        pending ones from the ledger (:func:`scheduler.celery_messages.execute_batch`)."""
        self._send(SOLVE_TASK_NAME, [[run_id, []]], queue)

    def dispatch_verifications(self, run_id: int, sub_ids: Sequence[int], queue: str, ledger: Ledger | None = None) -> None:
        """Send the verifications of these subproblems (stamped as queued when given the ledger)."""
        if not sub_ids:
            return
        if ledger is not None:
            with ledger.engine.begin() as conn:
                V.mark_verifications_queued(conn, sub_ids)
        self._send(VERIFY_TASK_NAME, [[run_id, sub_id] for sub_id in sub_ids], queue)

    def _send(self, name: str, messages: Sequence[list], queue: str) -> None:
        """One message per argument list, over one producer.

        Right after the broker restarts, kombu's Redis transport may publish on a channel
        whose connection it has already dropped, and fails inside kombu with an
        ``AttributeError`` (``'NoneType' object has no attribute 'client'``; seen
        2026-12-02 in the Redis-restart test, where it ended the scheduler).  That is the
        outage it is: the producers and connections pooled are closed, so that the next
        send connects afresh, and kombu's ``OperationalError`` is raised from it, which
        callers that wait an outage out know (:attr:`outage_errors`)."""
        try:
            with self.app.producer_or_acquire() as producer:
                for args in messages:
                    self.app.send_task(name, args=args, queue=queue, producer=producer)
        except AttributeError as exc:
            if not _raised_in_kombu(exc):
                raise
            from kombu.exceptions import OperationalError as BrokerDown

            self.app.producer_pool.force_close_all()
            self.app.pool.force_close_all()
            raise BrokerDown(f"the broker's connection closed under a message ({exc})") from exc

    def queue_size(self, queue: str) -> int:
        """The messages waiting in ``queue``, asked over a connection of the app's pool: a
        worker waiting for work asks every :data:`~scheduler.work_requests.POLL_SECONDS`,
        and a new connection each time cost 3 ms of its CPU (a 16 s run on two workers:
        0.19 s).  A connection that failed is closed before it goes back to the pool (its
        next user connects again)."""
        with self.app.pool.acquire(block=True) as conn:
            try:
                return int(conn.default_channel.queue_declare(queue=queue, passive=False).message_count)
            except BaseException:
                conn.collect()
                raise


_PER_PROCESS: dict[str, CeleryExecutor] = {}
_MAKING = threading.Lock()  # a pool process's connect-ahead thread and its first message


def process_executor(url: str) -> CeleryExecutor:
    """This process's executor on the broker at ``url``, made once (a worker's pool
    process: its tasks, and the thread that opens its connections at its start,
    :mod:`scheduler.connect_ahead`)."""
    with _MAKING:
        if url not in _PER_PROCESS:
            _PER_PROCESS[url] = CeleryExecutor(url)
        return _PER_PROCESS[url]


def _raised_in_kombu(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by kombu's own code (its innermost frame's module)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and str(tb.tb_frame.f_globals.get("__name__", "")).startswith("kombu.")
