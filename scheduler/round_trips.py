"""The ledger's round trip as this process measures it (:data:`ROUND_TRIPS`), and the
sizes that grow with it: how much solving a worker holds unrecorded, the least parcel it
pulls (:mod:`scheduler.celery_messages`), how long a pooled connection may idle before it
is pinged (:mod:`scheduler.db`).  On a local network (well under a millisecond) each
stays at its fixed floor; over a link with latency each grows with it, so that a worker
does not spend its time waiting for the ledger (docs/performance.md, "Two hosts")."""
from __future__ import annotations

import statistics
from collections import deque


class RoundTrips:
    """The ledger's round trip as this process measures it: the median of the last
    :data:`KEPT` whole transactions sent in one flush (:func:`pipelined` with ``BEGIN``
    and ``COMMIT``), the database's own time included.  Sizes that should not be spent
    waiting for the ledger grow with it (:mod:`scheduler.celery_messages`)."""

    KEPT = 15

    def __init__(self) -> None:
        self._seconds: deque[float] = deque(maxlen=self.KEPT)
        self.observed = 0  # how many, in all

    def observe(self, seconds: float) -> None:
        self._seconds.append(seconds)
        self.observed += 1

    @property
    def seconds(self) -> float | None:
        """The median round trip, None before the first."""
        return statistics.median(self._seconds) if self._seconds else None

    def at_least(self, floor: float, trips: float) -> float:
        """``trips`` round trips, but not under ``floor`` seconds (all of ``floor`` before
        any round trip is measured, and on a local network, where one is well under a
        millisecond)."""
        seconds = self.seconds
        return floor if seconds is None else max(floor, trips * seconds)


#: this process's ledger round trips
ROUND_TRIPS = RoundTrips()
