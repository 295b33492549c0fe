"""The environment variables the ledger is configured by, and the ledger's URL they
give, in a module that imports nothing at the top, so the command line can show them in
``--help``, and find the ledger, without loading SQLAlchemy (:mod:`scheduler.db`)."""
from __future__ import annotations

import os
import sys

#: the ledger's database URL, when ``--db`` is not given
ENV_DB_URL = "TILECENSUS_DB_URL"


def data_dir() -> str:
    """The user's data directory for tilecensus: on Linux the XDG rule computed here
    (``$XDG_DATA_HOME`` where it is an absolute path, else ``~/.local/share``), as
    platformdirs gives it (a test says so) without importing it (about 3 ms a command);
    elsewhere platformdirs'."""
    if sys.platform.startswith("linux"):
        base = os.environ.get("XDG_DATA_HOME", "")
        if not os.path.isabs(base):
            base = os.path.expanduser("~/.local/share")
        return os.path.join(base, "tilecensus")
    import platformdirs

    return platformdirs.user_data_dir("tilecensus")


def default_url() -> str:
    """The embedded default: a SQLite file in the user's data directory."""
    return f"sqlite:///{os.path.join(data_dir(), 'ledger.sqlite')}"


def resolve_url(url: str | None = None) -> str:
    """The ledger's URL: ``url`` (``--db``), else ``$TILECENSUS_DB_URL``, else the default."""
    return url or os.environ.get(ENV_DB_URL) or default_url()
