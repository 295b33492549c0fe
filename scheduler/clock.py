"""The ledger's clock: naive UTC datetimes, as every timestamp column stores them.

Its own module so that planning can stamp a run's start without importing SQLAlchemy
(``scheduler.models`` re-exports it)."""
from __future__ import annotations

import datetime as dt


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
