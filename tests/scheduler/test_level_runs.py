"""Counts by levels as runs: chosen by measuring, counted at once or as shares in the
local pool, in groups of moduli whose sum the ledger takes modulo their product, within
``--memory`` or refused in one line; ``estimate`` on any board."""
from __future__ import annotations

import json

import pytest

import core.engines as engines
from core.solver_options import LevelPlan
from scheduler.db import open_ledger
from scheduler.ledger import get_run

from known_tilings import a174248, kasteleyn


def test_a_tiling_the_probe_counts_is_answered_at_once(tc):
    data = json.loads(tc("solve", "dominoes-12x12", "--json", "--no-progress").stdout)
    assert (data["status"], data["solutions"], data["subproblems"]) == ("done", kasteleyn(12, 12), 1)
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    assert show["options"]["method"] == "levels" and show["options"]["level_plan"]["threads"] >= 1
    assert "counted whole in its" in show["options"]["method_reason"]


@pytest.fixture
def tiny_probe(monkeypatch):
    """The method choice's probe cut short (10 ms: a few rows of these boards), and nothing
    counted at once: the count goes to the pool as shares."""
    monkeypatch.setattr(engines, "PROBE_LEAST", 0.01)
    monkeypatch.setattr(engines, "PROBE_MOST", 0.01)
    monkeypatch.setattr(engines, "LEVELS_AT_ONCE", 0.0)


def test_a_level_count_runs_as_a_share_in_the_pool(tc, tiny_probe):
    data = json.loads(tc("solve", "dominoes-16x16", "--json", "--no-progress", "--workers", "2").stdout)
    assert (data["status"], data["solutions"]) == ("done", kasteleyn(16, 16))
    assert data["subproblems"] == 2  # the root, handing on its one share
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    assert "projecting" in show["options"]["method_reason"] and show["options"]["lease"] >= 3600


@pytest.mark.parametrize("groups, slices", [(3, 1), (2, 3)])
def test_shares_in_groups_of_moduli_add_up_in_the_ledger(tc, tiny_probe, monkeypatch, sqlite_url, groups, slices):
    monkeypatch.setattr(engines, "plan_for", lambda *a, **k: LevelPlan(threads=1, groups=groups, slices=slices))
    data = json.loads(tc("solve", "dominoes-18x18", "--json", "--no-progress", "--workers", "2").stdout)
    assert (data["status"], data["solutions"]) == ("done", kasteleyn(18, 18))  # past 2^128
    assert data["subproblems"] == 1 + groups * slices
    run = get_run(open_ledger(sqlite_url), data["run_id"])
    assert run.modulus is not None and run.modulus > run.solutions


def test_a_long_strip_past_thousands_of_digits(tc):
    data = json.loads(tc("solve", "tetrominoes-4x600", "--json", "--no-progress").stdout)
    assert data["solutions"] == a174248(601)[600] and len(str(data["solutions"])) > 300


def test_memory_too_small_is_a_one_line_refusal_and_nothing_is_written(tc):
    out = tc("solve", "dominoes-20x20", "--memory", "1K", "--no-progress", code=2).output
    assert out.startswith("tilecensus: dominoes-20x20: out of reach:") and out.count("\n") == 1
    assert "--memory" in out
    assert json.loads(tc("runs", "--json").stdout) == []  # no run written


def test_memory_sizes_are_read_with_units(tc):
    for bad in ("abc", "0", "12Q", "-1G"):
        out = tc("solve", "dominoes-4x4", "--memory", bad, code=2).output
        assert "is not a size such as" in out and out.count("\n") == 1


def test_estimate_of_a_tiling_by_levels_and_one_out_of_reach(tc):
    data = json.loads(tc("estimate", "pentominoes-9x10", "--json", "--seconds", "0.5").stdout)
    assert data["whole_count"] == "levels" and data["levels"]["seconds"] > 0
    levels = data["levels"]
    assert levels["seconds_low"] <= levels["seconds"] <= levels["seconds_high"]
    assert levels["bytes_low"] <= levels["peak_bytes"] <= levels["bytes_high"]
    counted = json.loads(tc("estimate", "tetrominoes-4x20", "--json").stdout)
    assert counted["levels"]["exact"] and counted["solutions"] == a174248(21)[20]
    far = json.loads(tc("estimate", "dominoes-100x100", "--json").stdout)
    assert "out of reach" in far["out_of_reach"]
    text = tc("estimate", "dominoes-100x100").stdout
    assert text.count("\n") == 1 and "out of reach" in text


def test_a_count_by_levels_is_timed_by_its_projection_until_a_share_ends(tc, tiny_probe):
    from scheduler.ledger import Progress
    from scheduler.progress import eta_seconds

    data = json.loads(tc("solve", "dominoes-16x16", "--json", "--no-progress").stdout)
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    projected = show["plan"]["levels"]["seconds"]
    assert projected > 0 and show["plan"]["levels"]["seconds_low"] <= projected
    running = Progress(run_id=1, status="running", weight_done=0.0, solutions=0, nodes=0, elapsed=0.1,
                       projected_seconds=5.0)
    assert eta_seconds(running) == pytest.approx(4.9)
    assert eta_seconds(Progress(run_id=1, status="running", weight_done=0.5, solutions=0, nodes=0, elapsed=2.0,
                                projected_seconds=5.0)) == pytest.approx(2.0)  # a share ended: by weight


def test_a_level_count_past_its_guard_is_counted_by_the_search_and_show_says_so(tc, tiny_probe, monkeypatch):
    """The guard a projection's count carries (O'Beirne's hexagon passed 14 GB where 60 MB
    was projected): set at 0 s here, the count gives up at its first level and the run
    goes on by search, exactly, in the same ledger run."""
    monkeypatch.setattr(engines, "GUARD_LEAST_SECONDS", 0.0)
    monkeypatch.setattr(engines, "GUARD_OVER_HIGH", 0.0)
    # a probe of 1 ms: the whole 14x14 count (255,218 states) took 10 ms on a quiet machine,
    # so the 10 ms probe counted it all there, and nothing was projected or guarded
    monkeypatch.setattr(engines, "PROBE_LEAST", 0.001)
    monkeypatch.setattr(engines, "PROBE_MOST", 0.001)
    data = json.loads(tc("solve", "dominoes-14x14", "--json", "--no-progress", "--workers", "2").stdout)
    assert (data["status"], data["solutions"]) == ("done", kasteleyn(14, 14))
    show = json.loads(tc("show", str(data["run_id"]), "--json").stdout)
    assert show["options"]["level_plan"]["guard_seconds"] == 0.0
    assert "given up for the search past" in show["options"]["method_reason"]
    assert show["stats"]["gave_up"].startswith("the count by levels passed its guard of 0 s")
    text = tc("show", str(data["run_id"])).stdout
    assert "then: the count by levels passed its guard" in text
    distinct = json.loads(tc("solve", "dominoes-14x14", "--distinct", "--json", "--no-progress", "--workers",
                             "2").stdout)  # the total's count below Burnside's lemma says it too
    assert distinct["solutions"] == kasteleyn(14, 14)
    show = json.loads(tc("show", str(distinct["run_id"]), "--json").stdout)
    assert show["stats"]["gave_up"].startswith("the count by levels passed its guard of 0 s")
