"""A worker whose Celery fails once, right after it is ready, with an error it cannot
recover from (a callback of its event loop raises), as celery 5.7.0 did when Redis went
away. Loaded through ``TILECENSUS_PLUGINS`` by one worker of the restart tests; the
worker it restarts into (``TILECENSUS_WORKER_RESTARTS`` set) stays up."""
from __future__ import annotations

import os

from celery import signals

from scheduler.restarts import ENV_RESTARTS


def _fail(*_args) -> None:
    raise RuntimeError("injected: an error Celery cannot recover from")


@signals.worker_ready.connect(weak=False)
def _fail_once_ready(sender, **_kwargs) -> None:
    if os.environ.get(ENV_RESTARTS):
        return
    readable, writable = os.pipe()
    sender.hub.add_reader(readable, _fail)
    os.write(writable, b"!")
