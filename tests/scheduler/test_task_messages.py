"""A task message written by :mod:`scheduler.task_messages` is the one Celery and kombu
write for the same task on the same queue: both are sent to scratch queues of the real
Redis and read back raw, field by field; only what Celery draws afresh for each message
(its ids, kombu's delivery tag) or for each app (``reply_to``) differs."""
from __future__ import annotations

import base64
import json
import uuid

import pytest
import redis

from scheduler.celery_config import SOLVE_TASK_NAME, VERIFY_TASK_NAME, make_app
from scheduler.task_messages import ARGSREPR_MAXSIZE, TaskMessages, binding_keys


@pytest.fixture
def client(broker_url, queue):
    r = redis.Redis.from_url(broker_url)
    yield r
    for q in (queue, queue + "-celery"):
        r.delete(q, *binding_keys(q))


def raw(client, queue: str) -> list[dict]:
    """The messages on ``queue``, first sent first, as JSON read back from Redis."""
    return [json.loads(m) for m in reversed(client.lrange(queue, 0, -1))]


def celery_sent(broker_url: str, queue: str, sent: list[tuple[str, list]]) -> None:
    app = make_app(broker_url, name="tilecensus-sender")  # as scheduler.celery_executor makes it
    with app.producer_or_acquire() as producer:
        for name, args in sent:
            app.send_task(name, args=args, queue=queue, producer=producer)


def drawn(message: dict) -> dict:
    """A message with the fields drawn afresh per message or per app replaced by their
    shape (a UUID), checked to be one."""
    m = json.loads(json.dumps(message))
    task_id = m["headers"]["id"]
    for where, key in (("headers", "id"), ("headers", "root_id"), ("properties", "correlation_id")):
        assert m[where][key] == task_id
        m[where][key] = "TASK-ID"
    for key in ("reply_to", "delivery_tag"):
        uuid.UUID(m["properties"][key])
        m["properties"][key] = key.upper()
    uuid.UUID(task_id)
    return m


ARGS = [
    (SOLVE_TASK_NAME, [7, [1, 2, 30000]]),
    (SOLVE_TASK_NAME, [7, []]),                                   # an invitation to pull
    (SOLVE_TASK_NAME, [123456, list(range(10**11, 10**11 + 64))]),  # 64 long ids: under the limit
    (SOLVE_TASK_NAME, [9, list(range(10**14, 10**14 + 80))]),     # past it: Celery's shortened repr
    (VERIFY_TASK_NAME, [7, 42]),
]


def test_messages_equal_celerys_field_by_field(client, broker_url, queue):
    celery_queue = queue + "-celery"
    celery_sent(broker_url, celery_queue, ARGS)
    sender = TaskMessages(client)
    sender.send(SOLVE_TASK_NAME, [a for n, a in ARGS if n == SOLVE_TASK_NAME], queue)
    sender.send(VERIFY_TASK_NAME, [a for n, a in ARGS if n == VERIFY_TASK_NAME], queue)
    ours, theirs = raw(client, queue), raw(client, celery_queue)
    assert len(ours) == len(theirs) == len(ARGS)
    for (name, args), mine, celerys in zip(ARGS, ours, theirs):
        celerys["properties"]["delivery_info"]["routing_key"] = queue  # the one queue name
        assert list(mine) == list(celerys) and list(mine["headers"]) == list(celerys["headers"])
        assert list(mine["properties"]) == list(celerys["properties"])
        assert drawn(mine) == drawn(celerys)
        assert json.loads(base64.b64decode(mine["body"]))[0] == args
        assert mine["headers"]["task"] == name
    assert len(ours[3]["headers"]["argsrepr"]) < len(repr(ARGS[3][1]))  # shortened, as Celery's
    assert ours[0]["headers"]["origin"] == theirs[0]["headers"]["origin"]  # gen<pid>@<host>
    assert len({m["headers"]["id"] for m in ours}) == len(ours)
    for mine, celerys in zip(binding_keys(queue), binding_keys(celery_queue)):
        assert {m.replace(queue.encode(), b"Q") for m in client.smembers(mine)} == \
            {m.replace(celery_queue.encode(), b"Q") for m in client.smembers(celerys)}


def test_the_limit_is_celerys():
    from celery.app.amqp import AMQP

    assert ARGSREPR_MAXSIZE == AMQP.argsrepr_maxsize
