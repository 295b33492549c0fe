"""A pool process opens its connections at its start (scheduler/connect_ahead.py): after
the thread, the ledger's pool holds two connections and the broker's pools one each
(kombu's, the work requests'), so the first message opens none; where the database or
the broker does not answer, the thread logs it and ends, raising nothing."""
from __future__ import annotations

import logging
import os

from scheduler.celery_executor import CeleryExecutor
from scheduler.connect_ahead import LEDGER_CONNECTIONS, connect_ahead
from scheduler.db import open_ledger


def test_the_connections_are_in_the_pools_when_the_first_message_comes(pg_url, broker_url):
    ledger = open_ledger(pg_url)
    ledger.engine.dispose()
    sender = CeleryExecutor(broker_url)
    connect_ahead(lambda: ledger, lambda: sender, ["connect-ahead-test"]).join(30)
    assert ledger.engine.pool.checkedin() == LEDGER_CONNECTIONS
    opened = _sockets_to(int(broker_url.rsplit(":", 1)[1].split("/")[0]))
    assert opened >= 2  # kombu's and the work requests'
    with ledger.engine.connect():  # the message's: one of those, no new one
        assert ledger.engine.pool.checkedin() == LEDGER_CONNECTIONS - 1
    sender.check("connect-ahead-test")  # the message's exchanges with the broker: no new connection
    sender.queue_size("connect-ahead-test")
    sender.requests.redis.ping()
    assert _sockets_to(int(broker_url.rsplit(":", 1)[1].split("/")[0])) == opened


def _sockets_to(port: int) -> int:
    """This process's TCP connections to ``port`` (its sockets' inodes in /proc/net/tcp)."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    n = 0
    for name in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with open(name) as table:
            for row in list(table)[1:]:
                fields = row.split()
                if int(fields[2].rsplit(":", 1)[1], 16) == port and fields[3] == "01" and fields[9] in inodes:
                    n += 1
    return n


def test_a_pool_of_one_connection_is_filled_without_waiting(pg_url):
    """No more connections held at once than the pool keeps: with one, a second checkout
    would wait out the pool's timeout while the message waited for the first."""
    from types import SimpleNamespace

    import sqlalchemy

    engine = sqlalchemy.create_engine(pg_url.replace("postgresql://", "postgresql+psycopg://"), pool_size=1,
                                      max_overflow=0, pool_timeout=30)
    with engine.connect():  # a message holds it
        thread = connect_ahead(lambda: SimpleNamespace(engine=engine), lambda: None, [])
        thread.join(0.5)
        assert thread.is_alive()  # it waits for that one, holding none
    thread.join(5)
    assert not thread.is_alive() and engine.pool.checkedin() == 1
    engine.dispose()


def test_nothing_answering_is_logged_not_raised(caplog):
    def down():
        raise OSError("connection refused")

    with caplog.at_level(logging.WARNING, logger="scheduler.connect_ahead"):
        thread = connect_ahead(down, down, ["q"])
        thread.join(10)
    assert not thread.is_alive()
    assert [r.getMessage() for r in caplog.records] == [
        "could not open the ledger's connections ahead: connection refused",
        "could not open the broker's connections ahead: connection refused"]
