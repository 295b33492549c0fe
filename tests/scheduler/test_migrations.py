"""Alembic migrations: upgrade from nothing, idempotent, and matching the models."""
from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext

from scheduler.db import open_ledger
from scheduler.migrate import current_revision, head_revision, upgrade
from scheduler.models import Base


def test_upgrade_from_empty_matches_models(any_url):
    ledger = open_ledger(any_url, upgrade=False)
    assert current_revision(ledger.engine) is None
    assert upgrade(ledger.engine) == head_revision()
    assert upgrade(ledger.engine) == head_revision()  # twice is harmless
    with ledger.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    assert diff == []


def test_open_ledger_upgrades_automatically(sqlite_url):
    ledger = open_ledger(sqlite_url)
    assert current_revision(ledger.engine) == head_revision()


def test_0002_keeps_the_runs_of_0001(any_url):
    """A ledger at 0001 with a run in it upgrades to head: the run is still there and is
    neither verified nor estimated; the downgrade goes back cleanly."""
    from sqlalchemy import text

    from scheduler.ledger import get_run

    ledger = open_ledger(any_url, upgrade=False)
    assert upgrade(ledger.engine, "0001") == "0001"
    with ledger.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO runs (name, kind, spec, spec_hash, mode, options, executor, status, n_planned, created_at) "
            "VALUES ('old', 'polyform', '{}', 'h', 'count', '{}', 'local', 'done', 0, CURRENT_TIMESTAMP)"))
    assert upgrade(ledger.engine) == head_revision() == "0007"
    run = get_run(ledger, 1)
    assert (run.name, run.verify_fraction, run.estimated_nodes) == ("old", None, None)
    _downgrade(ledger, "0001")
    assert current_revision(ledger.engine) == "0001"
    with ledger.engine.connect() as conn:
        assert conn.execute(text("SELECT name FROM runs")).scalar_one() == "old"
    assert upgrade(ledger.engine) == head_revision()


def test_0003_indexes_the_pending_by_weight_and_goes_back(any_url):
    from sqlalchemy import inspect

    ledger = open_ledger(any_url)
    names = lambda: {ix["name"] for ix in inspect(ledger.engine).get_indexes("subproblems")}  # noqa: E731
    assert "ix_subproblems_run_state_weight" in names()
    _downgrade(ledger, "0002")
    assert "ix_subproblems_run_state_weight" not in names()
    assert upgrade(ledger.engine) == head_revision()


def test_0004_stores_counts_of_any_length_and_goes_back(any_url):
    """Counts past 80 digits (VARCHAR(80) refused them on PostgreSQL) and a run's modulus;
    the downgrade keeps the runs."""
    from sqlalchemy import inspect, text

    from scheduler.ledger import get_run

    ledger = open_ledger(any_url)
    count, modulus = 7 ** 5000, 2 ** 64 * 9223372036854775783
    with ledger.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO runs (name, kind, spec, spec_hash, mode, options, executor, status, n_planned, created_at, "
            "solutions, modulus) VALUES ('big', 'polyform', '{}', 'h', 'count', '{}', 'local', 'done', 0, "
            f"CURRENT_TIMESTAMP, '{count}', '{modulus}')"))
    run = get_run(ledger, 1)
    assert (run.solutions, run.modulus) == (count, modulus)
    with ledger.engine.begin() as conn:
        conn.execute(text("UPDATE runs SET solutions = '12', modulus = NULL"))  # 0003 held 80 digits at most
    _downgrade(ledger, "0003")
    assert "modulus" not in {c["name"] for c in inspect(ledger.engine).get_columns("runs")}
    with ledger.engine.connect() as conn:
        assert conn.execute(text("SELECT solutions FROM runs")).scalar_one() == "12"
    assert upgrade(ledger.engine) == head_revision()


def test_0005_counts_deaths_apart_and_goes_back(any_url):
    """A ledger at 0004 with a subproblem upgrades with no deaths counted for it; the
    downgrade drops the column and keeps the subproblem."""
    from sqlalchemy import inspect, text

    ledger = open_ledger(any_url, upgrade=False)
    assert upgrade(ledger.engine, "0004") == "0004"
    with ledger.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO runs (name, kind, spec, spec_hash, mode, options, executor, status, n_planned, created_at) "
            "VALUES ('old', 'polyform', '{}', 'h', 'count', '{}', 'celery', 'running', 1, CURRENT_TIMESTAMP)"))
        conn.execute(text(
            "INSERT INTO subproblems (run_id, path, depth, weight_num, weight_den, weight_f, state, attempts) "
            "VALUES (1, '[]', 0, '1', '1', 1.0, 'leased', 2)"))
    assert upgrade(ledger.engine) == head_revision()
    with ledger.engine.connect() as conn:
        assert conn.execute(text("SELECT attempts, deaths FROM subproblems")).one() == (2, 0)
    _downgrade(ledger, "0004")
    assert "deaths" not in {c["name"] for c in inspect(ledger.engine).get_columns("subproblems")}
    with ledger.engine.connect() as conn:
        assert conn.execute(text("SELECT attempts FROM subproblems")).scalar_one() == 2
    assert upgrade(ledger.engine) == head_revision()


def test_0006_adds_the_censuses_and_goes_back(any_url):
    """0006 adds the table of censuses (a packed vector per subproblem); the downgrade
    drops it and keeps the runs."""
    from sqlalchemy import inspect, text

    ledger = open_ledger(any_url)
    assert "censuses" in inspect(ledger.engine).get_table_names()
    with ledger.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO runs (name, kind, spec, spec_hash, mode, options, executor, status, n_planned, created_at) "
            "VALUES ('kept', 'polyform', '{}', 'h', 'count', '{}', 'local', 'done', 0, CURRENT_TIMESTAMP)"))
    _downgrade(ledger, "0005")
    assert "censuses" not in inspect(ledger.engine).get_table_names()
    with ledger.engine.connect() as conn:
        assert conn.execute(text("SELECT name FROM runs")).scalar_one() == "kept"
    assert upgrade(ledger.engine) == head_revision()
    assert "censuses" in inspect(ledger.engine).get_table_names()


def _downgrade(ledger, revision: str) -> None:
    from alembic import command

    from scheduler.migrate import alembic_config

    cfg = alembic_config(ledger.engine)
    with ledger.engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


def test_0007_backfills_the_options_of_stored_solutions_and_goes_back(any_url):
    """A ledger at 0006 with stored solutions upgrades with one index row per distinct
    option of each, read back from the packed blobs; the downgrade drops the index."""
    from sqlalchemy import inspect, text

    from scheduler.codec import pack

    ledger = open_ledger(any_url, upgrade=False)
    assert upgrade(ledger.engine, "0006") == "0006"
    solutions = {1: (7, 3, 900), 2: (3, 3, 12), 3: ()}
    with ledger.engine.begin() as conn:
        conn.execute(text(
            "INSERT INTO runs (name, kind, spec, spec_hash, mode, options, executor, status, n_planned, created_at) "
            "VALUES ('old', 'polyform', '{}', 'h', 'enumerate', '{}', 'local', 'done', 1, CURRENT_TIMESTAMP)"))
        conn.execute(text(
            "INSERT INTO subproblems (run_id, path, depth, weight_num, weight_den, weight_f, state, attempts) "
            "VALUES (1, '[]', 0, '1', '1', 1.0, 'done', 1)"))
        for sid, options in solutions.items():
            conn.execute(text("INSERT INTO solutions (id, run_id, subproblem_id, options) VALUES (:i, 1, 1, :o)"),
                         {"i": sid, "o": pack(options)})
    assert upgrade(ledger.engine) == head_revision()
    with ledger.engine.connect() as conn:
        rows = set(conn.execute(text("SELECT run_id, option_id, solution_id FROM solution_options")).all())
    assert rows == {(1, o, sid) for sid, options in solutions.items() for o in options}
    _downgrade(ledger, "0006")
    assert "solution_options" not in inspect(ledger.engine).get_table_names()
    assert upgrade(ledger.engine) == head_revision()
