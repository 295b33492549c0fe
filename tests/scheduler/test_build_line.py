"""The progress line shown while a big problem is built (issue 21, point 5)."""
from __future__ import annotations

import io

from core import build_progress
from core.polyform import placing
from scheduler.cli import build_line
from scheduler.cli.build_line import BuildLine


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_quick_build_shows_nothing():
    out = io.StringIO()
    line = BuildLine(stream=out)
    for done in (0, 500, 1000):
        line("placing pieces", done, 1000)
    line.close()
    assert out.getvalue() == ""


def test_a_long_build_writes_plain_lines_in_a_log(monkeypatch):
    monkeypatch.setattr(build_line, "DELAY", 0.0)
    monkeypatch.setattr(build_line, "LOG_INTERVAL", 0.0)
    out = io.StringIO()
    line = BuildLine(stream=out)
    line("placing pieces", 0, 80_000)
    line("placing pieces", 36_864, 80_000)
    line("placing pieces", 80_000, 80_000)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("building the problem: placing pieces 36,864 of 80,000 (46%)")
    assert lines[1].startswith("building the problem: placing pieces done in")


def test_on_a_terminal_the_line_is_cleared_when_the_stage_ends(monkeypatch):
    monkeypatch.setattr(build_line, "DELAY", 0.0)
    monkeypatch.setattr(build_line, "REDRAW", 0.0)
    out = Terminal()
    line = BuildLine(stream=out)
    line("placing pieces", 0, 10)
    line("placing pieces", 5, 10)
    assert "placing pieces 5 of 10 (50%)" in out.getvalue()
    line("placing pieces", 10, 10)
    assert out.getvalue().endswith("\r")
    assert line.shown == 0


def test_no_progress_turns_it_off(monkeypatch):
    monkeypatch.setattr(build_line, "DELAY", 0.0)
    out = io.StringIO()
    line = BuildLine(lambda: False, stream=out)
    line("placing pieces", 0, 10)
    line("placing pieces", 5, 10)
    assert out.getvalue() == ""


def test_solve_shows_the_line_on_stderr(tc, monkeypatch):
    """Through the command line: a build that takes longer than DELAY (here 0) shows it."""
    monkeypatch.setattr(build_line, "DELAY", 0.0)
    monkeypatch.setattr(build_line, "LOG_INTERVAL", 0.0)
    monkeypatch.setattr(placing, "REPORT_EVERY", 0)  # a report for each placement tried
    result = tc("solve", "dominoes-4x5", "--workers", "1")
    assert "building the problem: placing pieces" in result.stderr
    assert "95 solutions" in result.output
    assert build_progress._watchers == []  # the command removed its watcher
