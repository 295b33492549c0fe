"""The Celery application of tilecensus workers (``tilecensus worker`` starts it).

Settings for long batch work come from :mod:`scheduler.celery_config`: late acks,
prefetch 1, re-queue when a worker is lost, a long visibility timeout, JSON only, no
result backend — results live in the ledger.
"""
from __future__ import annotations

from scheduler.celery_config import make_app

app = make_app()
app.conf.imports = ("worker.tasks",)
