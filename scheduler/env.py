"""The environment variables the ledger is configured by, and the ledger's URL they
give, in a module that imports nothing at the top, so the command line can show them in
``--help``, and find the ledger, without loading SQLAlchemy (:mod:`scheduler.db`)."""
from __future__ import annotations

import os

#: the ledger's database URL, when ``--db`` is not given
ENV_DB_URL = "TILECENSUS_DB_URL"


def default_url() -> str:
    """The embedded default: a SQLite file in the user's data directory."""
    import platformdirs

    return f"sqlite:///{os.path.join(platformdirs.user_data_dir('tilecensus'), 'ledger.sqlite')}"


def resolve_url(url: str | None = None) -> str:
    """The ledger's URL: ``url`` (``--db``), else ``$TILECENSUS_DB_URL``, else the default."""
    return url or os.environ.get(ENV_DB_URL) or default_url()
