"""Celery task messages written to a Redis broker with redis-py, without Celery or kombu.

``submit`` sends a run's first messages and exits; loading Celery's application with
kombu, and kombu's check of the broker, took 0.25 s of its CPU (2026-12-03).  A message
is what ``app.send_task(name, args=..., queue=...)`` of :func:`scheduler.celery_config.make_app`
writes — Celery's task protocol 2 in kombu's envelope for its Redis transport, JSON,
the body in base64, pushed (``LPUSH``) on the list named after the queue, priority 0 —
so a stock Celery worker consumes it as it consumes Celery's own; a test compares the
two field by field (tests/scheduler/test_task_messages.py) and one has a real worker
run it (tests/e2e/test_task_messages_run.py).  The queue's binding is declared as
kombu's ``maybe_declare`` declares it (the two ``SADD``), for whoever asks the broker
about the queue.

What differs from message to message is drawn as Celery draws it: the task id (which is
also its root id and correlation id) and kombu's delivery tag, fresh UUIDs; the origin,
``gen<pid>@<host>``; ``reply_to``, one UUID of this sender (Celery's per-thread id of
its app; nothing replies, results live in the ledger).
"""
from __future__ import annotations

import base64
import json
import os
import threading
import uuid
from typing import Any, Sequence

#: what Celery writes in ``argsrepr`` for arguments whose ``repr`` reaches this length
#: is cut short by its ``saferepr`` (``celery.app.amqp.AMQP.argsrepr_maxsize``)
ARGSREPR_MAXSIZE = 1024
#: kombu's separator in a binding's member (``routing_key``, pattern, queue)
BINDING_SEP = "\x06\x16"


def binding_keys(queue: str) -> tuple[str, str]:
    """The two sets kombu's Redis transport keeps a queue's binding in (its exchange is
    named after the queue, as Celery declares a queue it is given by name)."""
    return f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}"


def binding_member(queue: str) -> str:
    return BINDING_SEP.join([queue, "", queue])


def args_repr(args: Sequence[Any]) -> str:
    """``argsrepr`` as Celery writes it: the arguments' ``repr``, or past
    :data:`ARGSREPR_MAXSIZE` Celery's own shortened form (a message of 64 subproblem
    ids stays under it; the shortening is Celery's, loaded only then)."""
    text = repr(args)
    if len(text) < ARGSREPR_MAXSIZE:
        return text
    from celery.utils.saferepr import saferepr

    return saferepr(args, ARGSREPR_MAXSIZE)


class TaskMessages:
    """Builds the envelopes of one sender process (:meth:`envelope`) and pushes them on
    a queue over a redis-py client (:meth:`send`)."""

    def __init__(self, client) -> None:
        self.redis = client
        self.origin = f"gen{os.getpid()}@{os.uname().nodename}"
        ent = f"{uuid.uuid4().int:x}-{os.getpid():x}-{threading.get_ident():x}-{id(self):x}"
        self.reply_to = str(uuid.uuid3(uuid.NAMESPACE_OID, ent))

    def envelope(self, name: str, args: Sequence[Any], queue: str) -> dict[str, Any]:
        """The message of task ``name`` with positional ``args`` for ``queue``, as kombu
        writes it to Redis (before its JSON)."""
        task_id = str(uuid.uuid4())
        args = list(args)
        headers = {
            "lang": "py", "task": name, "id": task_id, "shadow": None, "eta": None, "expires": None,
            "group": None, "group_index": None, "retries": 0, "timelimit": [None, None], "root_id": task_id,
            "parent_id": None, "argsrepr": args_repr(args), "kwargsrepr": "{}", "origin": self.origin,
            "ignore_result": False, "replaced_task_nesting": 0, "stamped_headers": None, "stamps": {},
        }
        body = json.dumps([args, {}, {"callbacks": None, "errbacks": None, "chain": None, "chord": None}])
        return {
            "body": base64.b64encode(body.encode("utf-8")).decode("ascii"),
            "content-encoding": "utf-8",
            "content-type": "application/json",
            "headers": headers,
            "properties": {
                "correlation_id": task_id, "reply_to": self.reply_to, "delivery_mode": 2,
                "delivery_info": {"exchange": "", "routing_key": queue}, "priority": 0,
                "body_encoding": "base64", "delivery_tag": str(uuid.uuid4()),
            },
        }

    def send(self, name: str, messages: Sequence[Sequence[Any]], queue: str) -> None:
        """One message of task ``name`` per argument list, pushed in order on ``queue``
        (a worker takes the first first), with the queue's binding, in one round trip.
        redis-py's errors pass through (a broker away is the caller's to say)."""
        member = binding_member(queue)
        with self.redis.pipeline(transaction=False) as pipe:
            for key in binding_keys(queue):
                pipe.sadd(key, member)
            for args in messages:
                pipe.lpush(queue, json.dumps(self.envelope(name, args, queue)))
            pipe.execute()
