"""``runs`` and ``show`` without SQLAlchemy (issue 40, point 4): read through sqlite3 or
psycopg (scheduler/read_direct.py) with the SQL and the summary code the SQLAlchemy path
runs (scheduler/reads.py), they print the same, on SQLite and on PostgreSQL, and load
neither SQLAlchemy nor the problem library.  Times are measured in bench/bench_answers.py."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from core.catalog import KIND_MODELS, SOLUTION_READERS
from scheduler.cli import cli
from scheduler.cli.app import App
from scheduler.db import safe_url
from scheduler.read_direct import open_direct


def _invoke(url: str, *args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--db", url], catch_exceptions=False)
    assert result.exit_code == 0, (result.output, result.stderr)
    return result.output


def _ledger_with_runs(url: str) -> None:
    """Runs of several shapes: counts, a listing, a run with verifications, a count by
    levels, the first solutions, a crossword's listing (read by its problem)."""
    for args in (["dominoes-4x4"], ["dominoes-4x4", "--all"], ["pentomino-6x10", "--subproblems", "40"],
                 ["dominoes-6x6", "--verify", "1", "--split-depth", "3", "--no-symmetry"], ["dominoes-2x6", "--by-levels"],
                 ["soma", "--first", "3"], ["crossword-3", "--all"]):
        _invoke(url, "solve", *args, "--no-progress", "--json")


def test_direct_reads_print_what_sqlalchemy_prints(any_url, monkeypatch):
    _ledger_with_runs(any_url)
    reader = open_direct(any_url)
    assert reader is not None, "the direct path refused a plain ledger at the newest schema"
    assert reader.shown_url == safe_url(any_url)
    reader.close()
    commands = [["runs", "--json"], ["runs"], ["runs", "--status", "done", "--json"], ["runs", "--limit", "2"]]
    commands += [["show", str(n), *extra] for n in range(1, 8) for extra in ([], ["--json"])]
    direct = [_invoke(any_url, *c) for c in commands]
    monkeypatch.setattr(App, "direct_reads", lambda self: None)  # the SQLAlchemy path
    through_sqlalchemy = [_invoke(any_url, *c) for c in commands]
    for c, a, b in zip(commands, direct, through_sqlalchemy):
        assert a == b, c
    shown = json.loads(direct[commands.index(["show", "4", "--json"])])
    assert shown["verification"]["verified"] >= 1  # (the verified run's figures were compared)
    assert len(json.loads(direct[0])) == 7


def test_direct_reads_refuse_what_they_do_not_read(tmp_path, any_url):
    assert open_direct(f"sqlite:///{tmp_path / 'missing.sqlite'}") is None  # open_ledger says so
    assert open_direct(any_url) is None  # no schema yet: open_ledger makes it
    assert open_direct("postgresql+psycopg://nobody@127.0.0.1:1/none") is None  # open_ledger says why
    assert open_direct(any_url + "?application_name=x") is None


def test_runs_and_show_load_no_sqlalchemy(any_url):
    _invoke(any_url, "solve", "pentomino-6x10", "--no-progress", "--json")
    for args in (["runs"], ["runs", "--json"], ["show", "1"], ["show", "1", "--json"]):
        code = ("import sys\nfrom scheduler.cli import main\n"
                f"sys.argv = ['tilecensus', *{args!r}, '--db', {any_url!r}]\n"
                "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n"
                "print(sorted(m for m in ('sqlalchemy', 'core.library', 'scheduler.work', 'scheduler.models') "
                "if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.splitlines()[-1] == "[]", (args, out)


def test_solution_readers_are_the_models_that_read_solutions():
    """``show`` builds a run's problem only for the kinds in SOLUTION_READERS: every other
    built-in kind's problems have neither ``summarise`` nor ``given_found``."""
    from core.library import from_spec, library

    seen = {}
    for e in library():
        kind = e.spec.get("kind")
        if kind not in seen:
            p = from_spec(e.spec)
            seen[kind] = hasattr(p, "summarise") or hasattr(p, "given_found")
    assert {k for k, reads in seen.items() if reads} == set(SOLUTION_READERS)
    assert set(SOLUTION_READERS) <= set(KIND_MODELS)
