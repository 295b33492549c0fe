"""Names of the environment variables the ledger is configured by, in a module that
imports nothing, so the command line can show them in ``--help`` without loading
SQLAlchemy (:mod:`scheduler.db` reads them)."""
from __future__ import annotations

#: the ledger's database URL, when ``--db`` is not given
ENV_DB_URL = "TILECENSUS_DB_URL"
