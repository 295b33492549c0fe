"""One consistent command line (issue 21): errors, JSON shapes, numbering, listings, help,
the ledger's place, the broker's URL and absence."""
from __future__ import annotations

import json
import re
import time
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from scheduler.cli import cli


# ---------------------------------------------------------------------------- errors
def test_json_errors_are_one_json_object_on_stderr(tc):
    for args in (["solve", "no-such-problem", "--json"], ["show", "999", "--json"],
                 ["solve", "dominoes-4x4", "--json", "--first", "0"], ["runs", "--json", "--no-such-flag"],
                 ["show", "x", "--json"]):
        r = tc(*args, code=2)
        assert r.stdout == "" and r.stderr.count("\n") == 1, args
        assert set(json.loads(r.stderr)) == {"error", "exit_code"} and json.loads(r.stderr)["exit_code"] == 2, args


def test_usage_errors_are_the_tools_one_line(tc):
    for args in (["--no-such-flag"], ["no-such-command"], ["show"], ["solve", "dominoes-4x4", "--first", "x"],
                 ["runs", "--status", "sleeping"], ["db", "downgrade"]):
        r = tc(*args, code=2)
        assert r.stderr.startswith("tilecensus: ") and r.stderr.count("\n") == 1, (args, r.stderr)
        assert "--help)" in r.stderr and "Usage:" not in r.stderr, args


# ---------------------------------------------------------------------------- shapes
def test_subproblems_is_an_integer_and_distinct_is_always_there(tc, broker_url, queue):
    counted = json.loads(tc("solve", "dominoes-4x5", "--json", "--workers", "1", "--split-depth", "2").stdout)
    by_symmetry = json.loads(tc("solve", "pentomino-3x20", "--distinct", "--json", "--workers", "1").stdout)
    run = str(counted["run_id"])
    shapes = [counted, by_symmetry, json.loads(tc("show", run, "--json").stdout),
              json.loads(tc("watch", run, "--json").stdout), json.loads(tc("resume", run, "--json").stdout),
              *json.loads(tc("runs", "--json").stdout)]
    for data in shapes:
        assert isinstance(data["subproblems"], int) and data["subproblems"] > 0, data
        assert "distinct" in data, data
    assert counted["distinct"] is None and by_symmetry["distinct"] == 2
    show = json.loads(tc("show", run, "--json").stdout)
    assert show["subproblems"] == show["subproblem_states"]["done"] > 1
    submitted = json.loads(tc("submit", "dominoes-4x5", "--json", "--broker", broker_url, "--queue", queue).stdout)
    assert isinstance(submitted["subproblems"], int)


def test_one_solution_is_singular(tc):
    assert re.search(r": 1 solution \(", tc("solve", "sudoku-9x9-seed", "--workers", "1").stdout)
    assert "1 subproblem," in tc("solve", "sudoku-9x9-seed", "--workers", "1").stdout


def test_problems_are_grouped_by_kind_in_natural_order_with_counts_labelled_alike(tc):
    out = tc("problems").stdout
    headers = [line for line in out.splitlines() if line and not line.startswith(" ")]
    assert headers[-1] == "patterns:" and headers[:-1] == sorted(headers[:-1])
    names = [line.split()[0] for line in out.splitlines() if line.startswith("  crossword-")]
    assert names.index("crossword-2") < names.index("crossword-10")
    labels = re.findall(r"\[(known[^\]]*)\]", out)
    # (a classic published up to symmetry only shows its distinct count alone)
    assert labels and all(re.fullmatch(r"known: ([\d,]+ solutions?(, [\d,]+ distinct)?|[\d,]+ distinct)", label)
                          for label in labels)
    assert "[known: 2,170 distinct]" in out
    assert "[known: 1 solution]" in out and "[known: 288 solutions]" in out  # a sudoku like any other kind
    data = json.loads(tc("problems", "--json").stdout)["problems"]
    assert all(set(p["known"] or {}) <= {"solutions", "distinct"} for p in data)


def test_solve_all_and_solutions_number_and_name_pictures_alike(tc, tmp_path):
    solved = tc("solve", "pentomino-3x20", "--all", "--workers", "1", "--svg", str(tmp_path / "a")).stdout
    run = re.search(r"run (\d+) ", solved).group(1)
    listed = tc("solutions", run, "--limit", "100").stdout
    assert solved.split("run ")[0] == listed  # the same numbers on the same solutions
    again = json.loads(tc("solve", "pentomino-3x20", "--all", "--workers", "1", "--json").stdout)["listing"]
    stored = json.loads(tc("solutions", run, "--json", "--limit", "100").stdout)
    assert [(s["index"], s["options"], s["text"]) for s in again] == [(s["index"], s["options"], s["text"]) for s in stored]
    tc("solutions", run, "--format", "svg", "--out", str(tmp_path / "b"), "--limit", "100")
    first = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert first == sorted(p.name for p in (tmp_path / "b").iterdir()) and first[0] == f"run{run}-solution-000001.svg"


def test_solutions_of_a_count_run_says_how_to_store_them(tc):
    run = str(json.loads(tc("solve", "dominoes-4x5", "--json", "--workers", "1").stdout)["run_id"])
    for args in (["solutions", run], ["export", run]):
        r = tc(*args, code=2)
        assert r.stderr.count("\n") == 1 and "stored no solutions" in r.stderr and "--all" in r.stderr, args
    assert tc("export", run, "--what", "subproblems").stdout


def test_a_broker_url_that_is_none_says_what_is_wrong(tc):
    for url, says in (("not-a-url", "is not a URL"), ("foo://host/0", "unknown transport 'foo'"),
                      ("redis://host:port/0", "the port is not a number")):
        r = tc("submit", "dominoes-4x4", "--broker", url, code=2)
        assert r.stderr.count("\n") == 1 and says in r.stderr, (url, r.stderr)
    assert "not a URL" in tc("submit", "dominoes-4x4", "--broker", "not-a-url", "--json", code=2).stderr


@pytest.mark.parametrize("command", [["scheduler", "--interval", "0.2"], ["worker", "--concurrency", "1"]])
def test_scheduler_and_worker_wait_for_a_broker_that_is_down(processes, sqlite_url, command):
    proc = processes.start(*command, db_url=sqlite_url, broker="redis://127.0.0.1:1/0", name=command[0])
    log = Path(proc.log_path)
    deadline = time.monotonic() + 60
    while "waiting for it" not in log.read_text() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.2)
    text = log.read_text()
    assert proc.poll() is None, text  # still there, waiting
    assert f"tilecensus {command[0]}: cannot reach the broker redis://127.0.0.1:1/0" in text and "waiting" in text
    processes.kill(proc)


# ---------------------------------------------------------------------------- help
def _commands(group: click.Group, path: tuple[str, ...] = ()):
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from _commands(command, (*path, name))
        else:
            yield (*path, name), command


def test_every_option_has_help_and_kind_lists_every_kind():
    from core.library import kinds

    missing = [(path, p.opts) for path, command in _commands(cli) for p in command.params
               if isinstance(p, click.Option) and not p.hidden and not p.help]
    assert missing == []
    text = " ".join(CliRunner().invoke(cli, ["solve", "--help"]).output.split()).replace("- ", "-")
    assert all(kind in text for kind in kinds())


# ---------------------------------------------------------------------------- the ledger
def test_runs_and_show_print_the_ledger_url(tc, sqlite_url):
    run = str(json.loads(tc("solve", "dominoes-4x4", "--json", "--workers", "1").stdout)["run_id"])
    assert tc("runs").stdout.splitlines()[0] == f"ledger {sqlite_url}: 1 run"
    assert tc("show", run).stdout.splitlines()[0] == f"ledger       {sqlite_url}"
    assert json.loads(tc("show", run, "--json").stdout)["ledger"] == sqlite_url


def test_a_read_only_command_on_a_missing_ledger_says_so_and_creates_nothing(tc, tmp_path):
    missing = tmp_path / "nowhere" / "ledger.sqlite"
    for args in (["runs"], ["show", "1"], ["solutions", "1"], ["export", "1"], ["watch", "1"], ["delete", "1"],
                 ["runs", "--prune"], ["show", "1", "--json"]):
        r = tc(*args, "--db", f"sqlite:///{missing}", code=2)
        assert r.stderr.count("\n") == 1 and f"no ledger at {missing}" in r.stderr, args
    assert list(tmp_path.iterdir()) == []  # no file, no .migrate-lock, no folder


def test_prune_lists_then_deletes_finished_runs_and_delete_removes_one_run(tc, sqlite_url):
    from sqlalchemy import create_engine, text

    from scheduler.db import open_ledger
    from tc_helpers import make_run

    kept = make_run(open_ledger(sqlite_url), "dominoes-4x5")  # planned, running: never pruned
    done = [json.loads(tc("solve", "dominoes-4x5", "--all", "--json", "--workers", "1").stdout)["run_id"]
            for _ in range(3)]
    listing = tc("runs", "--prune").stdout
    assert "would delete 3 runs" in listing and "--yes" in listing and f"run {kept} " not in listing
    assert len(json.loads(tc("runs", "--json").stdout)) == 4  # a listing deletes nothing
    assert f"deleted run {done[0]} " in tc("delete", str(done[0])).stdout
    engine = create_engine(sqlite_url)
    with engine.connect() as conn:
        for table in ("subproblems", "solutions"):
            assert conn.execute(text(f"SELECT count(*) FROM {table} WHERE run_id = :r"), {"r": done[0]}).scalar() == 0
    pruned = json.loads(tc("runs", "--prune", "--yes", "--json").stdout)
    assert pruned["deleted"] and [r["run_id"] for r in pruned["runs"]] == done[1:]
    assert [r["run_id"] for r in json.loads(tc("runs", "--json").stdout)] == [kept]
    r = tc("delete", str(kept), code=2)
    assert "is running: cancel it first" in r.stderr
    assert "no run 999" in tc("delete", "999", code=2).stderr
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM solutions")).scalar() == 0
    engine.dispose()
