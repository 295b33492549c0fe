"""A fast start: what the command line imports, and opening a ledger without Alembic
when its schema is already at the head (issue 21, point 4); each command loading only its
own module, ``--help`` printed without click (issue 43, part 2).  Times are measured in
bench/bench_start.py, not here."""
from __future__ import annotations

import os
import subprocess
import sys

from scheduler.cli import app as cli_app
from scheduler.cli import help_text

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


def _help_run(columns: str) -> tuple[str, bool]:
    """``tilecensus --help`` as the console script runs it, with ``$COLUMNS``: what it
    prints, and whether click was imported."""
    code = ("import sys\nsys.argv = ['tilecensus', '--help']\nfrom scheduler.cli import main\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code\n"
            "print('click loaded:', 'click' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "COLUMNS": columns}).stdout
    text, _, last = out.rstrip("\n").rpartition("\n")
    return text + "\n", last == "click loaded: True"


def test_the_stored_help_is_what_click_prints():
    with open(help_text.HELP_FILE, encoding="utf-8") as f:
        stored = f.read()
    assert stored == help_text.rendered(), "the commands' help changed: python -m scheduler.cli.help_text writes it"


def test_help_on_a_wide_terminal_is_printed_without_click():
    printed, click_loaded = _help_run("120")
    assert not click_loaded
    assert printed == help_text.rendered()


def test_help_on_a_narrow_terminal_is_clicks():
    printed, click_loaded = _help_run("60")
    assert click_loaded
    assert "Usage: tilecensus [OPTIONS] COMMAND [ARGS]..." in printed
    assert printed != help_text.rendered()  # wrapped at 58 columns
    assert max(len(line) for line in printed.splitlines()) <= 58


def test_the_command_table_names_each_commands_module():
    for module in set(cli_app.COMMANDS.values()):
        __import__(f"scheduler.cli.{module}")
    assert set(cli_app.cli.commands) == set(cli_app.COMMANDS)
    for name, command in cli_app.cli.commands.items():
        assert command.callback.__module__ == f"scheduler.cli.{cli_app.COMMANDS[name]}", name


def test_solve_does_not_load_celery(sqlite_url):
    code = (f"from scheduler.cli import cli\n"
            f"try:\n    cli(['solve', 'dominoes-2x3', '--db', {sqlite_url!r}, '--no-progress'], prog_name='tilecensus')\n"
            f"except SystemExit as exc:\n    assert not exc.code, exc.code")
    loaded = loaded_after(code)
    assert "sqlalchemy" in loaded  # it did open the ledger
    assert "celery" not in loaded and "kombu" not in loaded and "rich" not in loaded
    assert not {"puz", "ipuz", "xdformat"} & set(loaded)  # the crossword file libraries: for those files


def test_a_command_loads_its_own_module_only():
    code = ("from scheduler.cli import cli\n"
            "try:\n    cli(['problems'], prog_name='tilecensus')\nexcept SystemExit as exc:\n    assert not exc.code\n"
            "import sys\nprint('modules:', *sorted(m for m in sys.modules if m.startswith('scheduler.cli.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(out.splitlines()[-1].split()[1:])
    assert "scheduler.cli.reading" in loaded
    assert not {"scheduler.cli.running", "scheduler.cli.service", "scheduler.cli.web",
                "scheduler.cli.estimate_verify"} & loaded


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


def test_the_data_directory_is_platformdirs(monkeypatch, tmp_path):
    """On Linux the XDG rule is computed without platformdirs: the same answer for an
    absolute $XDG_DATA_HOME, a relative one (ignored), an empty one and none."""
    import platformdirs

    from scheduler.env import data_dir

    for value in (str(tmp_path / "xdg"), "relative/dir", "", None):
        if value is None:
            monkeypatch.delenv("XDG_DATA_HOME", raising=False)
        else:
            monkeypatch.setenv("XDG_DATA_HOME", value)
        assert data_dir() == platformdirs.user_data_dir("tilecensus"), value


def test_the_worker_name_is_the_host_and_process():
    import socket

    from scheduler.work import worker_name

    assert worker_name() == f"{socket.gethostname()}:{os.getpid()}"


def test_a_counted_solve_loads_neither_platformdirs_nor_socket(tmp_path):
    """A run its planning counts, on the default ledger (in $XDG_DATA_HOME) that exists."""
    env = {k: v for k, v in os.environ.items() if k != "TILECENSUS_DB_URL"}
    env["XDG_DATA_HOME"] = str(tmp_path)
    solve = ("from scheduler.cli import cli\n"
             "try:\n    cli(['solve', 'dominoes-2x3', '--workers', '1', '--no-progress'], prog_name='tilecensus')\n"
             "except SystemExit as exc:\n    assert not exc.code, exc.code\n")
    subprocess.run([sys.executable, "-c", solve], env=env, capture_output=True, text=True, check=True)
    assert (tmp_path / "tilecensus" / "ledger.sqlite").exists()  # the first made the ledger there
    probe = solve + "import sys\nprint('loaded:', *(m for m in ('platformdirs', 'socket') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.splitlines()[-1].split() == ["loaded:"], out.stdout
