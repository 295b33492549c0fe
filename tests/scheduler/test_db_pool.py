"""The PostgreSQL pool (scheduler/db.py): a connection used a moment ago goes back to work
without a ping; one idle past PING_AFTER_IDLE is pinged, and replaced when the database
dropped it — on the real PostgreSQL."""
from __future__ import annotations

import time

import psycopg
from sqlalchemy import text

from scheduler import db
from scheduler.db import make_engine


def _backend_pid(engine) -> int:
    with engine.connect() as conn:
        return conn.execute(text("SELECT pg_backend_pid()")).scalar_one()


def test_a_connection_in_use_is_not_pinged(pg_url, monkeypatch):
    engine = make_engine(pg_url)
    pings = []
    real = engine.dialect.do_ping
    monkeypatch.setattr(engine.dialect, "do_ping", lambda c: pings.append(1) or real(c))
    pids = {_backend_pid(engine) for _ in range(20)}
    assert len(pids) == 1 and pings == []  # one pooled connection, checked out twenty times, no ping
    engine.dispose()


def test_an_idle_connection_the_database_dropped_is_replaced(pg_url, monkeypatch):
    monkeypatch.setattr(db, "PING_AFTER_IDLE", 0.05)
    engine = make_engine(pg_url)
    first = _backend_pid(engine)
    with psycopg.connect(pg_url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as admin:
        admin.execute("SELECT pg_terminate_backend(%s)", (first,))
    time.sleep(0.1)
    second = _backend_pid(engine)  # pinged, found dead, connected again: no error reaches the caller
    assert second != first
    engine.dispose()
