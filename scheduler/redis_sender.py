"""``submit``'s side of a Redis broker, without Celery or kombu: check that the broker
answers, count the worker processes serving a queue (:mod:`scheduler.workforce`), and
send a run's messages (:mod:`scheduler.task_messages`) — over one redis-py connection.

Loading Celery's application with kombu and kombu's check of the broker took 0.25 s of
``submit``'s CPU (2026-12-03).  The messages are the ones
:class:`scheduler.celery_executor.CeleryExecutor` sends for the same run, packed the same
way (:func:`scheduler.batches.messages_of`); the rows are stamped as sent by whoever wrote
them (:mod:`scheduler.direct_writes`).  A ``redis://`` or ``rediss://`` broker only
(:meth:`RedisSender.for_broker`); another goes through Celery.
"""
from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from .batches import MESSAGE_SECONDS, messages_of
from .celery_config import SOLVE_TASK_NAME, VERIFY_TASK_NAME, without_password
from .errors import BrokerError
from .task_messages import TaskMessages

#: the broker URLs redis-py reads as kombu's Redis transport does
SCHEMES = ("redis", "rediss")
#: seconds to connect, and to wait for an answer
CONNECT_SECONDS = 3
ANSWER_SECONDS = 10


class RedisSender:
    """Sends subproblems of runs to Celery queues on a Redis broker, by task name."""

    #: the workers serving a queue announce themselves on a Redis broker
    counts_workers = True

    def __init__(self, url: str):
        import redis

        self.url = url
        self.redis = redis.Redis.from_url(url, socket_connect_timeout=CONNECT_SECONDS, socket_timeout=ANSWER_SECONDS)
        self.messages = TaskMessages(self.redis)

    @classmethod
    def for_broker(cls, url: str) -> RedisSender | None:
        """A sender for a ``redis://`` or ``rediss://`` broker URL, else None."""
        return cls(url) if url.split("://", 1)[0] in SCHEMES else None

    def check(self, queue: str | None = None) -> None:
        """Raise :class:`BrokerError` when the broker does not answer."""
        self._asked(self.redis.ping)

    def workforce(self, queue: str) -> int | None:
        """The worker processes serving ``queue`` now, as they announced themselves; None
        where none did."""
        from .workforce import workforce

        return self._asked(workforce, self.redis, queue) or None

    def hosts(self, queue: str) -> int:
        """The machines of the worker processes serving ``queue`` (1 where none announced)."""
        from .workforce import workforce_hosts

        return self._asked(workforce_hosts, self.redis, queue) or 1

    def dispatch(self, run_id: int, sub_ids: Sequence[int], queue: str, *,
                 weights: Sequence[Fraction] | None = None, rate: float | None = None,
                 target: float = MESSAGE_SECONDS, share: int | None = None,
                 at_most: int | None = None) -> list[list[int]]:
        """Send the subproblems packed into messages (:func:`scheduler.batches.messages_of`);
        the messages sent."""
        if not sub_ids:
            return []
        messages = messages_of(sub_ids, weights, rate, target, share, at_most)
        self._asked(self.messages.send, SOLVE_TASK_NAME, [[run_id, m] for m in messages], queue)
        return messages

    def dispatch_verifications(self, run_id: int, sub_ids: Sequence[int], queue: str) -> None:
        """Send the verifications of these subproblems, one message each."""
        if sub_ids:
            self._asked(self.messages.send, VERIFY_TASK_NAME, [[run_id, sub_id] for sub_id in sub_ids], queue)

    def _asked(self, question, *args):
        """``question(*args)``; a broker that does not answer is a :class:`BrokerError`."""
        import redis

        try:
            return question(*args)
        except redis.RedisError as exc:
            raise BrokerError(f"cannot reach the broker {without_password(self.url)}: {str(exc).splitlines()[0]}") \
                from exc

    def close(self) -> None:
        self.redis.close()
