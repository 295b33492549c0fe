"""Every command, with every solver flag, on a problem of every kind: it either runs
(exit 0) or says why not in one line (exit 2) — never a traceback."""
from __future__ import annotations

import json

import pytest
import redis
from click.testing import CliRunner

from scheduler.cli import cli

#: one small problem of every kind
PROBLEMS = {
    "polyform": "pentomino-3x20",
    "exact-cover": "examples/queens8.dlx",
    "sudoku": "sudoku-4x4",
    "latin": "latin-4",
    "reduction": "queens-6",
    "roads": "roads-seed",
    "edges": "examples/wang-3x3.toml",
    "crossword": "crossword-23",
}
FLAGS = ["--distinct", "--by-levels", "--no-memo"]
#: the commands that take a problem, and those that take a run
PROBLEM_COMMANDS = ["solve", "submit", "estimate"]
RUN_COMMANDS = [["show"], ["solutions"], ["export"], ["census"], ["verify"], ["cancel"], ["resume"], ["watch"]]
OTHER_COMMANDS = [["runs"], ["problems"], ["db", "upgrade"], ["worker"], ["scheduler", "--once"]]


def _one_line_or_ok(result, what: str) -> None:
    """Exit 0, or exit 2 with one line on stderr (one JSON object under --json) and no
    traceback."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (what, result.exception)
    assert result.exit_code in (0, 2), (what, result.exit_code, result.output)
    if result.exit_code == 2:
        assert result.stderr.count("\n") == 1, (what, result.stderr)
        if "--json" in what.split():
            assert json.loads(result.stderr) == {"error": json.loads(result.stderr)["error"], "exit_code": 2}, what
        else:
            assert result.stderr.startswith("tilecensus: "), (what, result.stderr)
    assert "Traceback" not in result.output, what


@pytest.fixture
def invoke(sqlite_url, monkeypatch, broker_url, queue):
    monkeypatch.setenv("TILECENSUS_DB_URL", sqlite_url)
    monkeypatch.setenv("TILECENSUS_BROKER_URL", broker_url)
    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(cli, list(args), catch_exceptions=True)

    yield run
    redis.Redis.from_url(broker_url).delete(queue)  # what submit queued, no worker will take


@pytest.mark.parametrize("kind", sorted(PROBLEMS))
def test_every_flag_on_every_kind_runs_or_says_why_in_one_line(invoke, kind, queue):
    problem = PROBLEMS[kind]
    for flag in FLAGS:
        for command in PROBLEM_COMMANDS:
            extra = {"solve": ["--workers", "1", "--json"], "submit": ["--queue", queue, "--json"],
                     "estimate": ["--samples", "20", "--json"]}[command]
            result = invoke(command, problem, flag, *extra)
            _one_line_or_ok(result, f"{command} {problem} {flag} {' '.join(extra)}")
            if result.exit_code == 0 and command != "estimate":
                assert json.loads(result.stdout)["run_id"] > 0


def test_every_command_given_a_flag_it_does_not_take_says_so_in_one_line(invoke):
    run_id = json.loads(invoke("solve", "pentomino-3x20", "--workers", "1", "--json").stdout)["run_id"]
    for flag in FLAGS:
        for args in RUN_COMMANDS:
            _one_line_or_ok(invoke(*args, str(run_id), flag), f"{args} {flag}")
        for args in OTHER_COMMANDS:
            result = invoke(*args, flag)
            _one_line_or_ok(result, f"{args} {flag}")
            assert result.exit_code == 2 and "no such option" in result.stderr.lower()
