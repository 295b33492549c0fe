"""Celery settings for long batch work, shared by the sending side (``submit``, the
scheduler) and the worker application (``worker.app``).  Celery itself is imported only
when an application is made: the commands that never talk to a broker do not pay for it."""
from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from celery import Celery

from .run_options import DEFAULT_QUEUE

ENV_BROKER_URL = "TILECENSUS_BROKER_URL"
DEFAULT_BROKER_URL = "redis://localhost:6379/0"
#: solve a subproblem
SOLVE_TASK_NAME = "tilecensus.solve"
#: verify a subproblem of a ``--verify`` run: re-solve it on another worker, compare
VERIFY_TASK_NAME = "tilecensus.verify"
#: seconds an unacknowledged message stays invisible in Redis: longer than any task
VISIBILITY_TIMEOUT = 12 * 3600


def broker_url(url: str | None = None) -> str:
    return url or os.environ.get(ENV_BROKER_URL) or DEFAULT_BROKER_URL


def checked_broker_url(url: str | None = None) -> str:
    """The broker URL (resolved as :func:`broker_url`), or :class:`BrokerError` saying what
    is wrong with it: no ``scheme://``, a transport kombu does not know, a port that is
    not a number."""
    from urllib.parse import urlsplit

    from .errors import BrokerError

    url = broker_url(url)
    example = "e.g. redis://localhost:6379/0 or amqp://guest@localhost//"
    if "://" not in url:
        raise BrokerError(f"broker URL {url!r} is not a URL: it needs a transport and a host ({example})")
    scheme = url.split("://", 1)[0]
    if scheme not in ("redis", "rediss") and scheme.split("+", 1)[0] not in _kombu_transports():
        known = ", ".join(t for t in ("redis", "rediss", "amqp", "amqps", "sqs", "memory") if t in _kombu_transports())
        raise BrokerError(f"broker URL {without_password(url)!r}: unknown transport {scheme!r} (known: {known}, ...)")
    try:
        urlsplit(url).port
    except ValueError:
        raise BrokerError(f"broker URL {without_password(url)!r}: the port is not a number in 0..65535") from None
    return url


def _kombu_transports():
    """The transports kombu knows (loaded only for a broker other than plain Redis:
    ``submit`` to Redis goes without kombu)."""
    from kombu.transport import TRANSPORT_ALIASES

    return TRANSPORT_ALIASES


def is_redis_url(url: str) -> bool:
    """Whether the broker URL is a Redis one (``redis://``, ``rediss://``, ``redis+socket://``):
    work requests and worker announcements go through the broker's Redis."""
    return url.split("://", 1)[0].split("+", 1)[0] in ("redis", "rediss")


def without_password(url: str) -> str:
    """The URL with its password replaced by ``***``, for messages."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.password is None:
        return url
    return url.replace(f":{parts.password}@", ":***@", 1)


def settings(url: str | None = None) -> dict:
    return dict(
        broker_url=broker_url(url),
        broker_connection_retry_on_startup=True,
        broker_connection_max_retries=None,
        broker_transport_options={"visibility_timeout": VISIBILITY_TIMEOUT},
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,  # results live in the ledger
        result_backend=None,
        task_serializer="json",
        accept_content=["json"],
        result_accept_content=["json"],
        task_default_queue=DEFAULT_QUEUE,
        worker_send_task_events=False,
        # a lost connection leaves running tasks alone: their leases keep results exactly once
        worker_cancel_long_running_tasks_on_connection_loss=False,
        task_publish_retry=True,
        task_publish_retry_policy={"max_retries": 10, "interval_start": 0.2, "interval_step": 0.5, "interval_max": 3},
    )


def make_app(url: str | None = None, name: str = "tilecensus") -> "Celery":
    from celery import Celery

    app = Celery(name)
    app.conf.update(settings(url))
    return app
