"""``tilecensus web``: a read-only page over the ledger, for watching runs and looking at
what they stored (docs/web.md).

* :mod:`.app` — the Starlette application: routes, templates, the token rule, headers.
* :mod:`.pages` — the HTML pages, a run's charts, solution pictures, downloads.
* :mod:`.api` — the JSON API (the data of the ``--json`` outputs).
* :mod:`.reading` — what both read, through :mod:`scheduler.queries`; the ETA; paging.
* :mod:`.charts` — charts as SVG text; :mod:`.pictures` — the models' pictures.

Starlette, Jinja2 and uvicorn are imported only by ``tilecensus web``, never by
``tilecensus --help``.
"""
from .app import create_app

__all__ = ["create_app"]
