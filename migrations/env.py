"""Alembic environment for the tilecensus ledger.

Run through :mod:`scheduler.migrate` (``tilecensus db upgrade``), which hands over an
open connection in ``config.attributes["connection"]``; ``alembic`` on the command line
works too, with ``-x url=...`` or ``TILECENSUS_DB_URL``.
"""
from __future__ import annotations

from alembic import context

from scheduler.models import Base

config = context.config
target_metadata = Base.metadata


def run_migrations_offline() -> None:
    url = config.get_main_option("sqlalchemy.url")
    context.configure(url=url, target_metadata=target_metadata, literal_binds=True, render_as_batch=True)
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    from scheduler.db import make_engine, resolve_url

    url = context.get_x_argument(as_dictionary=True).get("url") or config.get_main_option("sqlalchemy.url")
    engine = make_engine(resolve_url(url))
    with engine.begin() as conn:
        _run(conn)
    engine.dispose()


def _run(connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
