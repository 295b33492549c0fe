"""A run's end, told to whoever waits for it (``submit --wait``, ``watch``;
:mod:`scheduler.waiting`).

On PostgreSQL the transaction that takes a run out of ``running`` — closed, failed,
interrupted, cancelled — also sends ``NOTIFY`` on :data:`CHANNEL` with the run's id: it is
delivered when that transaction commits, never for one rolled back, whichever process
wrote it.  Other databases have no such thing: their waiters are told over the broker or
look again shortly (:mod:`scheduler.waiting`).
"""
from __future__ import annotations

from typing import Any

from sqlalchemy import text

from ..end_channels import CHANNEL

_NOTIFY = text("SELECT pg_notify(:channel, :run_id)")


def announce_end(conn: Any, run_id: int) -> None:
    """In the transaction that ends run ``run_id`` (a Connection or a Session): on
    PostgreSQL, its notification, sent at commit."""
    dialect = conn.dialect if hasattr(conn, "dialect") else conn.get_bind().dialect  # a Connection, a Session
    if dialect.name == "postgresql":
        conn.execute(_NOTIFY, {"channel": CHANNEL, "run_id": str(run_id)})
