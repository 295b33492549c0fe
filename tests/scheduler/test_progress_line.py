"""The progress line at any terminal width: whole fields, the least important dropped first."""
from __future__ import annotations

import io

from hypothesis import given, strategies as st
from rich.console import Console

from scheduler.ledger import Progress
from scheduler.progress import BAR, FIELD_ORDER, ProgressView, bar_fields, bar_line


def progress(**kw) -> Progress:
    base = dict(run_id=17, status="running", weight_done=0.5123, solutions=1244, nodes=12_345_678, elapsed=10.0,
                states={"done": 51, "pending": 60})
    return Progress(**{**base, **kw})


def shown(p: Progress, width: int) -> str:
    line, bar = bar_line(p, width)
    return line.replace(BAR, "━" * bar)


def test_at_80_columns_no_field_is_cut_and_the_least_important_go():
    line = shown(progress(), 79)
    assert len(line) <= 79
    assert line.startswith("run 17  ━") and "51.2%" in line and "1,244 solutions" in line
    assert "51/111 subproblems" in line and "ETA 00:00:09" in line
    assert "nodes/s" not in line  # the rate goes first
    assert "…" not in line


@given(width=st.integers(min_value=1, max_value=250), weight=st.floats(0, 1), solutions=st.integers(0, 10**15),
       done=st.integers(0, 10**6))
def test_every_width_gets_whole_fields_in_order_of_importance(width, weight, solutions, done):
    p = progress(weight_done=weight, solutions=solutions, states={"done": done, "pending": 3})
    line, bar = bar_line(p, width)
    texts = bar_fields(p)
    parts = line.split("  ")
    assert len(shown(p, width)) <= width or parts == [""]
    kept = {name for name, text in texts.items() if text in parts} | ({"bar"} if BAR in parts else set())
    assert set(parts) <= set(texts.values()) | {BAR, ""}  # every field whole
    # what is kept is a prefix of the order of importance
    assert kept == set(FIELD_ORDER[:len(kept)])
    assert (bar > 0) == (BAR in parts)


def test_one_solution_and_the_view_draws_one_line_at_the_console_width():
    assert "1 solution " in shown(progress(solutions=1), 200) + " "
    console = Console(file=io.StringIO(), width=80, force_terminal=True)
    with ProgressView(17, enabled=True, console=console) as view:
        view.update(progress())
    last = console.file.getvalue().rsplit("\r", 1)[-1]
    assert "51/111 subproblems" in last and "ETA 00:00:09" in last and "solutio…" not in last
