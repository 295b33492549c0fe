"""Waiting for a run's end (``submit --wait``, ``watch``, ``resume``), told by an event
rather than found by a look every second:

* a PostgreSQL ledger: ``LISTEN`` on the channel that the transaction ending a run
  notifies, whichever process wrote it (:mod:`scheduler.ledger.ends`);
* another ledger with a Redis broker: the broker's channel
  :data:`~scheduler.end_channels.REDIS_CHANNEL`, on which the workers and the scheduler's
  round publish the runs they close or fail
  (:meth:`scheduler.celery_executor.CeleryExecutor.announce_end`);
* otherwise (a SQLite ledger, a local run): a look at the run's status every
  :data:`POLL_SECONDS`, a fraction of a millisecond on SQLite.

An event only wakes the waiter, which then reads the run's status from the ledger (the
truth); a look every :data:`PATIENCE` seconds catches an end no event told (a listening
connection lost in an outage, a run cancelled on a SQLite ledger from elsewhere).

The waiter looks through a :class:`RunLook`: the ledger's own code (:class:`LedgerLook`,
SQLAlchemy), or the database's driver alone (:class:`scheduler.read_direct.DirectReads`:
``submit --wait`` follows its run without loading SQLAlchemy).  Both ask the same SQL
(:mod:`scheduler.reads`).
"""
from __future__ import annotations

import logging
import time
from typing import Any, Callable, Protocol

from .states import RunStatus
from .summary import Progress

#: seconds between looks at a run's status where no event can tell its end
POLL_SECONDS = 0.1
#: seconds between looks at a run's status where events tell its end: only an end that no
#: event told (see above) waits this long
PATIENCE = 5.0

_log = logging.getLogger(__name__)


class RunLook(Protocol):
    """How a waiter reads a run: its status, its progress, its summary at the end, and
    (PostgreSQL) a new connection of its own to ``LISTEN`` on."""

    dialect: str

    def status(self, run_id: int) -> str: ...

    def progress(self, run_id: int) -> Progress: ...

    def summary(self, run_id: int) -> dict[str, Any]: ...

    def executor_of(self, run_id: int) -> str: ...

    def listening_connection(self) -> Any: ...


class LedgerLook:
    """A :class:`RunLook` through the ledger's own code (SQLAlchemy)."""

    def __init__(self, ledger: Any):
        self.ledger = ledger
        self.dialect = ledger.dialect

    def status(self, run_id: int) -> str:
        from .ledger import run_status

        return run_status(self.ledger, run_id)

    def progress(self, run_id: int) -> Progress:
        from .ledger import progress

        return progress(self.ledger, run_id)

    def summary(self, run_id: int) -> dict[str, Any]:
        from .queries import run_summary

        return run_summary(self.ledger, run_id)

    def executor_of(self, run_id: int) -> str:
        from .ledger import get_run

        return get_run(self.ledger, run_id).executor

    def listening_connection(self) -> Any:
        import psycopg
        from sqlalchemy.engine import make_url

        dsn = make_url(self.ledger.url).set(drivername="postgresql").render_as_string(hide_password=False)
        return psycopg.connect(dsn, autocommit=True, connect_timeout=5)


class RunEnds:
    """Where the end of a run is told.  This one tells nothing: :meth:`wait` sleeps
    (:data:`POLL_SECONDS` at most a look)."""

    patience = POLL_SECONDS

    def __enter__(self) -> "RunEnds":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def wait(self, run_id: int, seconds: float) -> None:
        """Return once run ``run_id`` may have ended, or after ``seconds``."""
        time.sleep(max(0.0, seconds))

    def close(self) -> None:
        """Let go of the connection listened on."""


class PostgresEnds(RunEnds):
    """``LISTEN`` on :data:`scheduler.end_channels.CHANNEL` over a connection of its own
    (autocommit; ``connect`` opens one), listening before the first look at the run, so
    that no end slips between the look and the listening.  A connection lost (the
    database restarting) makes the waits sleeps until a new one listens again."""

    patience = PATIENCE

    def __init__(self, connect: Callable[[], Any]):
        self.connect = connect
        self.conn = None
        self._listen()

    def _listen(self) -> None:
        import psycopg

        from .end_channels import CHANNEL

        try:
            self.conn = self.connect()
            self.conn.execute(f"LISTEN {CHANNEL}")
        except psycopg.OperationalError as exc:  # the look every PATIENCE seconds goes on without it
            _log.warning("not listening for the run's end: %s", str(exc).strip().splitlines()[0])
            self.close()

    def wait(self, run_id: int, seconds: float) -> None:
        import psycopg

        if self.conn is None:
            time.sleep(max(0.0, min(seconds, 1.0)))
            self._listen()  # (the run may have ended meanwhile: the caller looks next)
            return
        deadline = time.monotonic() + seconds
        try:
            while (left := deadline - time.monotonic()) > 0:
                for note in self.conn.notifies(timeout=left, stop_after=1):
                    if note.payload == str(run_id):
                        return
        except psycopg.OperationalError as exc:
            _log.warning("listening for the run's end: %s", str(exc).strip().splitlines()[0])
            self.close()

    def close(self) -> None:
        if self.conn is not None:
            conn, self.conn = self.conn, None
            conn.close()


class RedisEnds(RunEnds):
    """A subscription to :data:`~scheduler.end_channels.REDIS_CHANNEL` on the broker,
    confirmed before the first look at the run."""

    patience = PATIENCE

    def __init__(self, client: Any):
        from .end_channels import REDIS_CHANNEL

        self.pubsub = client.pubsub()
        self.pubsub.subscribe(REDIS_CHANNEL)
        self.pubsub.get_message(timeout=5.0)  # the confirmation: subscribed from here on

    def wait(self, run_id: int, seconds: float) -> None:
        import redis

        deadline = time.monotonic() + seconds
        try:
            while (left := deadline - time.monotonic()) > 0:
                message = self.pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
                if message is not None and message.get("data") in (str(run_id).encode(), str(run_id)):
                    return
        except redis.RedisError as exc:  # the broker is away: its outage is reported by the round
            _log.warning("listening for the run's end: %s", str(exc).splitlines()[0])
            time.sleep(max(0.0, min(deadline - time.monotonic(), 1.0)))

    def close(self) -> None:
        self.pubsub.close()


def run_ends(look: RunLook, redis_client: Any = None) -> RunEnds:
    """How the end of a run that ``look`` reads is told: PostgreSQL's notifications, else
    the broker's channel (``redis_client``, None without a Redis broker), else looks."""
    if look.dialect == "postgresql":
        return PostgresEnds(look.listening_connection)
    if redis_client is not None:
        return RedisEnds(redis_client)
    return RunEnds()


def follow(
    look: RunLook,
    run_id: int,
    update: Callable[[Any], None] | None = None,
    *,
    interval: float = 1.0,
    each: Callable[[], None] | None = None,
    each_every: float = 5.0,
    each_first: bool = True,
    timeout: float | None = None,
    ends: RunEnds | None = None,
) -> str:
    """Wait until a run is no longer running; returns its status.  Between looks at the
    ledger — the run's status, and, when ``update`` shows it, its progress every
    ``interval`` seconds — it waits for the run's end to be told (``ends``, by default
    :func:`run_ends` of ``look``).  ``each`` (e.g. a scheduler tick) runs every
    ``each_every`` seconds, the first time at once (``each_first``) or after that long."""
    started = time.monotonic()
    next_each = started if each_first else started + each_every
    next_update = started
    owned = ends is None
    if ends is None:
        ends = run_ends(look)
    try:
        while True:
            if each is not None and time.monotonic() >= next_each:
                each()
                next_each = time.monotonic() + each_every
            if update is not None and time.monotonic() >= next_update:
                p = look.progress(run_id)
                update(p)
                status = p.status
                next_update = time.monotonic() + interval
            else:
                status = look.status(run_id)
            if status != RunStatus.RUNNING:
                return status
            now = time.monotonic()
            if timeout is not None and now - started > timeout:
                return status
            wake = now + ends.patience
            for then in (next_update if update is not None else None, next_each if each is not None else None,
                         started + timeout if timeout is not None else None):
                if then is not None:
                    wake = min(wake, then)
            ends.wait(run_id, wake - now)
    finally:
        if owned:
            ends.close()
