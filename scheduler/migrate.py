"""Alembic, configured in code: the migrations package ships with the distribution, so
``tilecensus db upgrade`` works from an installed package without an alembic.ini.

These functions take a SQLAlchemy engine, not a ledger: :func:`scheduler.db.open_ledger`
calls :func:`ensure_schema`, and nothing here needs :mod:`scheduler.db`."""
from __future__ import annotations

import contextlib
import fcntl
from pathlib import Path
from typing import Iterator

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, text

import migrations

SCRIPT_LOCATION = str(Path(migrations.__file__).parent)
_ADVISORY_KEY = 74_657_342  # pg_advisory_lock key guarding concurrent upgrades


def alembic_config(engine: Engine | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", SCRIPT_LOCATION)
    if engine is not None:
        url = engine.url.render_as_string(hide_password=False)
        cfg.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    return cfg


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> str | None:
    """Bring the schema to ``revision``; returns the revision now current."""
    cfg = alembic_config(engine)
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": _ADVISORY_KEY})
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
    return current_revision(engine)


def ensure_schema(engine: Engine) -> None:
    """Upgrade to head when the schema is older (many processes may race: the loser of a
    SQLite race finds the schema already there)."""
    head = head_revision()
    if current_revision(engine) == head:
        return
    with _sqlite_file_lock(engine):
        if current_revision(engine) != head:
            upgrade(engine)


@contextlib.contextmanager
def _sqlite_file_lock(engine: Engine) -> Iterator[None]:
    """Serialise upgrades of one SQLite file across processes (PostgreSQL uses an
    advisory lock inside :func:`upgrade`)."""
    db = engine.url.database if engine.dialect.name == "sqlite" else None
    if not db or db == ":memory:" or db.startswith("file:"):
        yield
        return
    with open(f"{db}.migrate-lock", "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
