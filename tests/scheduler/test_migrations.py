"""Alembic migrations: upgrade from nothing, idempotent, and matching the models."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from scheduler.db import open_ledger
from scheduler.migrate import current_revision, head_revision, upgrade
from scheduler.models import Base


def test_upgrade_from_empty_matches_models(any_url):
    ledger = open_ledger(any_url, upgrade=False)
    assert current_revision(ledger) is None
    assert upgrade(ledger) == head_revision()
    assert upgrade(ledger) == head_revision()  # twice is harmless
    with ledger.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_open_ledger_upgrades_automatically(sqlite_url):
    ledger = open_ledger(sqlite_url)
    assert current_revision(ledger) == head_revision()
