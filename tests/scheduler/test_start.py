"""A fast start: what the command line imports, and opening a ledger without Alembic
when its schema is already at the head (issue 21, point 4).  Times are measured in
bench/bench_start.py, not here."""
from __future__ import annotations

import subprocess
import sys

from scheduler.db import close_ledger, open_ledger
from scheduler.migrate import current_revision
from scheduler.migrate import head_revision as alembic_head
from scheduler.schema_head import head_revision

HEAVY = ("sqlalchemy", "alembic", "celery", "kombu", "rich", "puz", "ipuz", "xdformat")


def loaded_after(code: str) -> list[str]:
    """The heavy packages in ``sys.modules`` after running ``code`` in a fresh interpreter."""
    probe = f"{code}\nimport sys\nprint('loaded:', *(m for m in {HEAVY!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    last = out.stdout.splitlines()[-1].split()
    assert last[0] == "loaded:", out.stdout
    return last[1:]


def test_the_cli_imports_no_database_queue_or_rich():
    assert loaded_after("import scheduler.cli") == []


def test_help_loads_nothing_heavy():
    code = ("from scheduler.cli import cli\n"
            "try:\n    cli(['--help'], prog_name='tilecensus')\nexcept SystemExit:\n    pass")
    assert loaded_after(code) == []


def test_solve_does_not_load_celery(sqlite_url):
    code = (f"from scheduler.cli import cli\n"
            f"try:\n    cli(['solve', 'dominoes-2x3', '--db', {sqlite_url!r}, '--no-progress'], prog_name='tilecensus')\n"
            f"except SystemExit as exc:\n    assert not exc.code, exc.code")
    loaded = loaded_after(code)
    assert "sqlalchemy" in loaded  # it did open the ledger
    assert "celery" not in loaded and "kombu" not in loaded and "rich" not in loaded
    assert not {"puz", "ipuz", "xdformat"} & set(loaded)  # the crossword file libraries: for those files


def test_the_head_read_from_the_files_is_alembics():
    assert head_revision() == alembic_head()


def test_a_ledger_at_the_head_opens_without_alembic(sqlite_url):
    ledger = open_ledger(sqlite_url)  # a fresh one: migrated, here with Alembic
    assert current_revision(ledger.engine) == head_revision()
    assert ledger.schema_is_head()
    close_ledger(sqlite_url)
    code = f"from scheduler.db import open_ledger\nopen_ledger({sqlite_url!r})"
    assert "alembic" not in loaded_after(code)


def test_a_fresh_ledger_is_migrated(sqlite_url):
    code = (f"from scheduler.db import open_ledger\nfrom scheduler.migrate import current_revision, head_revision\n"
            f"assert current_revision(open_ledger({sqlite_url!r}).engine) == head_revision()")
    assert "alembic" in loaded_after(code)


def test_a_ledger_behind_the_head_is_not_at_the_head(sqlite_url):
    from scheduler.migrate import upgrade

    ledger = open_ledger(sqlite_url, upgrade=False)
    assert not ledger.schema_is_head()  # no alembic_version table yet
    upgrade(ledger.engine, "0001")
    assert not ledger.schema_is_head()
    upgrade(ledger.engine)
    assert ledger.schema_is_head()
    close_ledger(sqlite_url)
