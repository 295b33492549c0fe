"""Small problems without the machinery (issue 43, part 2): a run whose planning trial
counted the whole tree is written on a SQLite ledger at the newest schema without
SQLAlchemy and without a pool, in one transaction, with the rows the ledger's own code
writes; ``show`` says where the command's time went.  Times are measured in
bench/bench_start.py, not here."""
from __future__ import annotations

import datetime as dt
import json
import re
import sqlite3
import subprocess
import sys

import pytest
from sqlalchemy import DateTime
from sqlalchemy.types import JSON

import core.burnside as burnside
import scheduler.rows as rows_module
from core.solver_options import SolverOptions
from scheduler.db import close_ledger, open_ledger
from scheduler.migrate import current_revision, upgrade
from scheduler.models import BigCount, Run, Subproblem, Verification
from scheduler.phases import PHASES
from scheduler.planning import RunRequest, prepare
from scheduler.queries import run_summary
from scheduler.run_options import ExecutorKind, Mode, RunOptions
from scheduler.schema_head import head_revision
from scheduler.sqlite_direct import COUNT_COLUMNS, JSON_COLUMNS, TIME_COLUMNS, DirectLedger, sqlite_file

#: the Soma cube: 11,520 solutions, 240 up to its 48 symmetries (Conway and Guy), counted
#: whole in the method choice's trial of a fixed number of nodes, however busy the machine
#: (the 8x8 board less its centre ends its trial by time: on a loaded machine it went to
#: the pool, 2026-12-03); the 2x4 board's domino tilings: 5 (the Fibonacci number F(5))
SCOTT = ("soma", 11_520, 240)


def _ledger_at_head(url: str) -> None:
    """A ledger file at the newest schema, as a first run leaves it (no connection kept)."""
    open_ledger(url)
    close_ledger(url)


def _solve_in_a_process(url: str, *args: str) -> tuple[dict, int, bool]:
    """``tilecensus solve ARGS --json`` in a fresh interpreter: what it printed, how many
    times the process forked, and whether SQLAlchemy was imported."""
    code = ("import os, sys, json\nforks = []\nos.register_at_fork(before=lambda: forks.append(1))\n"
            "from scheduler.cli import cli\n"
            f"try:\n    cli(['solve', *{list(args)!r}, '--db', {url!r}, '--no-progress', '--json'], prog_name='tilecensus')\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print(json.dumps([len(forks), 'sqlalchemy' in sys.modules]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    forks, alchemy = json.loads(out[-1])
    return json.loads(out[-2]), forks, alchemy


def test_a_run_its_planning_counts_in_full_forks_no_pool_and_loads_no_sqlalchemy(sqlite_url):
    _ledger_at_head(sqlite_url)
    name, solutions, distinct = SCOTT
    out, forks, alchemy = _solve_in_a_process(sqlite_url, name, "--distinct")
    assert (out["solutions"], out["distinct"], out["status"], out["subproblems"]) == (solutions, distinct, "done", 1)
    assert forks == 0 and not alchemy
    ledger = open_ledger(sqlite_url)  # and the ledger's own reading finds it whole
    s = run_summary(ledger, out["run_id"])
    assert (s["solutions"], s["distinct"], s["status"], s["subproblems"]["done"]) == (solutions, distinct, "done", 1)


def test_a_run_the_pool_counts_forks_and_goes_through_sqlalchemy(sqlite_url):
    """The other side of the test above: split at depth 2, the same run needs the pool."""
    _ledger_at_head(sqlite_url)
    name, solutions, distinct = SCOTT
    out, forks, alchemy = _solve_in_a_process(sqlite_url, name, "--distinct", "--split-depth", "2", "--workers", "2")
    assert (out["solutions"], out["distinct"], out["status"]) == (solutions, distinct, "done")
    assert out["subproblems"] > 1 and forks >= 1 and alchemy


def _raw(url: str, run_id: int) -> dict[str, list[tuple]]:
    """A run's rows as SQLite holds them (ids left out: they differ)."""
    conn = sqlite3.connect(sqlite_file(url))
    try:
        run = conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchall()
        subs = conn.execute("SELECT * FROM subproblems WHERE run_id = ? ORDER BY id", (run_id,)).fetchall()
        sols = conn.execute("SELECT options FROM solutions WHERE run_id = ? ORDER BY id", (run_id,)).fetchall()
    finally:
        conn.close()
    return {"runs": [r[1:] for r in run], "subproblems": [r[2:] for r in subs], "solutions": sols}


@pytest.mark.parametrize("name,mode,distinct", [("soma", Mode.COUNT, True),  # counted in a trial of nodes, whatever the load
                                                ("dominoes-2x4", Mode.ENUMERATE, False),
                                                ("pentomino-6x10", Mode.FIRST, False)])
def test_the_rows_written_directly_are_the_ledgers_own(sqlite_url, monkeypatch, name, mode, distinct):
    """One prepared run, written by scheduler.ledger (SQLAlchemy) and by sqlite3: the same
    rows, byte for byte, and the same summary read back through the ledger's code."""
    _ledger_at_head(sqlite_url)
    # the folds of soma's classes counted in planning however loaded the machine (at load 8
    # one took past the 0.05 s allowed, and the run went to the pool: nothing to compare)
    monkeypatch.setattr(burnside, "FOLD_SECONDS", 60.0)
    options = RunOptions(solver=SolverOptions(distinct=distinct), limit=3 if mode is Mode.FIRST else None)
    prepared = prepare(RunRequest(name, None, mode, options, estimate=False), workers=1)
    counted = prepared.counted()
    assert counted is not None
    now = dt.datetime(2026, 12, 3, 12, 0, 0, 123456)
    monkeypatch.setattr(rows_module, "utcnow", lambda: now)
    times = {"start": 0.05, "plan": 0.04, "count": 0.03, "write": 0.002}
    ledger = open_ledger(sqlite_url)
    by_alchemy = prepared.create(ledger, ExecutorKind.LOCAL, times=lambda: times).run_id
    direct = DirectLedger.open(sqlite_url)
    assert direct is not None
    try:
        recorded = direct.record_counted(prepared, ExecutorKind.LOCAL, counted, lambda: times)
    finally:
        direct.close()
    assert _raw(sqlite_url, recorded.run_id) == _raw(sqlite_url, by_alchemy)
    assert recorded.summary == run_summary(ledger, recorded.run_id)
    assert recorded.summary["times"] == times


def test_the_run_is_written_in_one_transaction(sqlite_url):
    _ledger_at_head(sqlite_url)
    prepared = prepare(RunRequest("dominoes-2x4", None, Mode.ENUMERATE, RunOptions(), estimate=False), workers=1)
    direct = DirectLedger.open(sqlite_url)
    statements: list[str] = []
    direct.conn.set_trace_callback(statements.append)
    try:
        recorded = direct.record_counted(prepared, ExecutorKind.LOCAL, prepared.counted(), lambda: {})
    finally:
        direct.close()
    assert len(recorded.solutions) == 5
    assert statements[0] == "BEGIN IMMEDIATE" and statements[-1] == "COMMIT"
    assert not [s for s in statements[1:-1] if s.split()[0] in ("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT")]
    # the run, its root, 5 solutions, their 20 index rows (4 dominoes each), the plan's times
    assert [" ".join(s.split()[:3]) for s in statements[1:-1]] == [
        "INSERT INTO runs", "INSERT INTO subproblems", *["INSERT INTO solutions"] * 5,
        *["INSERT INTO solution_options"] * 20, "UPDATE runs SET"]


def test_an_interruption_inside_the_transaction_leaves_nothing(sqlite_url):
    _ledger_at_head(sqlite_url)
    prepared = prepare(RunRequest("dominoes-2x4", None, Mode.ENUMERATE, RunOptions(), estimate=False), workers=1)
    direct = DirectLedger.open(sqlite_url)

    def interrupted() -> dict:
        raise KeyboardInterrupt  # the last step: the rows are written, not committed

    try:
        with pytest.raises(KeyboardInterrupt):
            direct.record_counted(prepared, ExecutorKind.LOCAL, prepared.counted(), interrupted)
    finally:
        direct.close()
    conn = sqlite3.connect(sqlite_file(sqlite_url))
    assert [conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("runs", "subproblems", "solutions")] \
        == [0, 0, 0]
    conn.close()


def test_the_columns_stored_otherwise_are_the_models(sqlite_url):
    """The columns sqlite_direct converts are those whose type in scheduler.models stores
    them otherwise than as they are."""
    for model in (Run, Subproblem, Verification):
        table = model.__tablename__
        columns = model.__table__.columns
        assert {c.name for c in columns if isinstance(c.type, JSON)} == JSON_COLUMNS.get(table, set())
        assert {c.name for c in columns if isinstance(c.type, BigCount)} == COUNT_COLUMNS.get(table, set())
        assert {c.name for c in columns if isinstance(c.type, DateTime)} == TIME_COLUMNS[table]


def test_only_a_sqlite_file_at_the_newest_schema_is_written_directly(sqlite_url, tmp_path):
    assert DirectLedger.open(sqlite_url) is None  # no file yet: Alembic makes it
    ledger = open_ledger(sqlite_url, upgrade=False)
    assert DirectLedger.open(sqlite_url) is None  # no schema
    upgrade(ledger.engine, "0001")
    assert DirectLedger.open(sqlite_url) is None  # an older schema: open_ledger upgrades it
    upgrade(ledger.engine)
    close_ledger(sqlite_url)
    direct = DirectLedger.open(sqlite_url)
    assert direct is not None
    direct.close()
    for url in (f"{sqlite_url}?timeout=5", "sqlite://", "sqlite:///:memory:", "postgresql://u@localhost/x",
                f"sqlite:///{tmp_path / 'not a %20 file'}"):
        assert sqlite_file(url) is None, url
    (tmp_path / "junk.sqlite").write_text("not a database")
    assert DirectLedger.open(f"sqlite:///{tmp_path / 'junk.sqlite'}") is None


def test_a_ledger_of_an_older_schema_is_still_upgraded_by_solve(sqlite_url, tc):
    ledger = open_ledger(sqlite_url, upgrade=False)
    upgrade(ledger.engine, "0001")
    close_ledger(sqlite_url)
    out = json.loads(tc("solve", SCOTT[0], "--distinct", "--no-progress", "--json").output)
    assert (out["solutions"], out["distinct"]) == SCOTT[1:]
    assert current_revision(open_ledger(sqlite_url).engine) == head_revision()


def _times(tc, run_id: int) -> tuple[dict, str]:
    shown = json.loads(tc("show", str(run_id), "--json").output)
    line = [x for x in tc("show", str(run_id)).output.splitlines() if x.startswith("times ")]
    assert len(line) == 1
    return shown["times"], line[0]


@pytest.mark.parametrize("split", [[], ["--split-depth", "2"]], ids=["counted-in-planning", "by-the-pool"])
def test_show_says_where_the_time_went(sqlite_url, tc, split):
    _ledger_at_head(sqlite_url)
    run_id = json.loads(tc("solve", SCOTT[0], "--no-progress", "--json", *split).output)["run_id"]
    times, line = _times(tc, run_id)
    assert list(times) == list(PHASES)
    assert times["start"] is not None and times["start"] > 0  # (Linux: from /proc/self/stat)
    assert all(times[p] >= 0 for p in PHASES[1:]) and times["plan"] > 0 and times["count"] > 0
    assert line == (f"times        start {times['start']:.3f} s, plan {times['plan']:.3f} s, "
                    f"count {times['count']:.3f} s, write {times['write']:.3f} s")


@pytest.mark.parametrize("args", [["dominoes-2x4", "--all", "--limit", "3"], ["pentomino-6x10", "--first", "2"],
                                  ["tests/core/data/crossword/files/example_v2.ipuz"]],
                         ids=["all", "first", "crossword-file"])
def test_solve_prints_the_same_written_either_way(sqlite_url, tc, args):
    """The first run on a fresh ledger goes through SQLAlchemy (Alembic creates the file),
    the second is written directly: the same listing, headline and given grid."""
    outs = []
    for _ in range(2):
        data = json.loads(tc("solve", *args, "--no-progress", "--json").output)
        text = tc("solve", *args, "--no-progress").output
        outs.append((data, text))
    (first, first_text), (second, second_text) = outs
    assert first["run_id"] == 1 and second["run_id"] == 3
    for key in ("solutions", "distinct", "status", "given_found"):
        assert first.get(key) == second.get(key), key
    # each run one subproblem, numbered as the runs are: the listing's differ by their ids alone
    assert {e.pop("subproblem") for e in first.get("listing", [])} <= {1}
    assert {e.pop("subproblem") for e in second.get("listing", [])} <= {3}
    assert first.get("listing") == second.get("listing")
    # the listing and the headline up to its parenthesis (nodes, subproblems and seconds vary)
    assert re.sub(r"^run 2 (.*?) \(.*\)", r"\1", first_text, flags=re.M) \
        == re.sub(r"^run 4 (.*?) \(.*\)", r"\1", second_text, flags=re.M)
