"""The command line under random use: any command, any problem kind (or a file that is no
problem), any mix of flags, with or without --json.  It answers (exit 0, or 1 for a run
that did not finish) or says what is wrong in one line (exit 2) — never a traceback."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from scheduler.cli import cli

ROOT = Path(__file__).resolve().parents[2]
#: sudokus on one line, small as any model --kind may read them as (a 9x9 puzzle of 17
#: givens read as a Latin square has astronomically many completions): a 4x4, and a 9x9
#: grid with its diagonal empty
ONE_LINE_SUDOKU = "1..2.3.........4"
ONE_LINE_9X9 = "".join("." if i % 10 == 0 else c for i, c in enumerate(
    "165374829924185367873962514238496751547218693691753482489531276316827945752649138"))

#: small problems of every kind, and inputs that are no problem
PROBLEMS = ["dominoes-4x4", "pentomino-3x20", "sudoku-4x4", "latin-4", "queens-6", "roads-seed", "crossword-1",
            str(ROOT / "examples" / "queens8.dlx"), str(ROOT / "examples" / "wang-3x3.toml"),
            str(ROOT / "examples" / "roads-seed.txt"), "-", "page.html", "sudoku81.txt", "no-such-problem",
            "empty.txt"]
KINDS = ["polyform", "sudoku", "latin", "exact-cover", "reduction", "roads", "edges", "crossword", "no-such-kind"]
PROBLEM_FLAGS = st.sampled_from([
    ["--distinct"], ["--by-levels"], ["--by-search"], ["--by-bitboard"], ["--no-memo"], ["--no-symmetry"],
    ["--all"], ["--first", "2"], ["--count"], ["--split-depth", "1"], ["--subproblems", "3"], ["--engine", "reference"],
    ["--engine", "crossword"], ["--engine", "nothing"], ["--verify", "0.5"], ["--verify", "2"], ["--no-estimate"],
    ["--limit", "1"], ["--stats"], ["--first", "0"], ["--split-depth", "-1"], ["--no-such-flag"],
])
RUN_FLAGS = st.sampled_from([
    ["--limit", "2"], ["--offset", "1"], ["--format", "json"], ["--format", "svg"], ["--format", "csv"],
    ["--what", "subproblems"], ["--fraction", "1"], ["--interval", "0.05"], ["--status", "done"], ["--prune"],
    ["--yes"], ["--no-such-flag"], ["--limit", "-1"],
])


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder with the non-problems, and a ledger holding a counted and a listed run."""
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "page.html").write_text("<!DOCTYPE html>\n<html><body>Not found</body></html>\n")
    (folder / "sudoku81.txt").write_text(ONE_LINE_9X9 + "\n")
    (folder / "empty.txt").write_text("")
    env = {"TILECENSUS_DB_URL": f"sqlite:///{folder / 'ledger.sqlite'}"}
    runner = CliRunner(env=env)
    for args in (["solve", "dominoes-4x4", "--workers", "1"], ["solve", "dominoes-4x4", "--all", "--workers", "1"]):
        assert runner.invoke(cli, args).exit_code == 0
    return folder, env


def _check(result, args: list[str]) -> None:
    what = " ".join(args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (what, repr(result.exception))
    assert "Traceback" not in result.output and "Traceback" not in result.stderr, what
    assert result.exit_code in (0, 1, 2), (what, result.exit_code)
    if result.exit_code == 2:
        assert result.stderr.count("\n") == 1, (what, result.stderr)
        if "--json" in args:
            assert set(json.loads(result.stderr)) == {"error", "exit_code"}, (what, result.stderr)
        else:
            assert result.stderr.startswith("tilecensus: "), (what, result.stderr)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command=st.sampled_from(["solve", "estimate"]), problem=st.sampled_from(PROBLEMS),
       kind=st.sampled_from([None, None, None, *KINDS]), flags=st.lists(PROBLEM_FLAGS, max_size=3), as_json=st.booleans())
def test_commands_on_problems_never_show_a_traceback(workdir, monkeypatch, command, problem, kind, flags, as_json):
    folder, env = workdir
    monkeypatch.chdir(folder)
    args = [command, problem, *(["--kind", kind] if kind else []), *[f for group in flags for f in group],
            *(["--json"] if as_json else [])]
    args += ["--workers", "1"] if command == "solve" else ["--samples", "5"]
    result = CliRunner(env=env).invoke(cli, args, input=ONE_LINE_SUDOKU + "\n", catch_exceptions=True)
    _check(result, args)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(command=st.sampled_from(["show", "solutions", "export", "verify", "watch", "runs", "delete", "problems",
                                "cancel"]),
       run=st.sampled_from(["1", "2", "999", "x"]), flags=st.lists(RUN_FLAGS, max_size=2), as_json=st.booleans())
def test_commands_on_runs_never_show_a_traceback(workdir, command, run, flags, as_json):
    folder, env = workdir
    takes_run = command not in ("runs", "problems")
    args = [command, *([run] if takes_run and command != "delete" else []), *[f for group in flags for f in group],
            *(["--json"] if as_json else [])]
    if command == "delete":
        args.insert(1, "999")  # keep the two runs for the other examples
    result = CliRunner(env=env).invoke(cli, args, catch_exceptions=True)
    _check(result, args)
