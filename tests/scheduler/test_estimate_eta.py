"""The quick estimate before a run (stored on the run, shown by ``show``) and the ETA that
uses it, falling back to the finished weight."""
from __future__ import annotations

import json
import time

import pytest

from core.library import load
from scheduler.cli.app import App
from scheduler.db import open_ledger
from scheduler.ledger import Progress, get_run
from scheduler.planning import quick_estimate
from scheduler.progress import eta_seconds, eta_text, subproblems_text




def test_a_small_tree_is_measured_exactly():
    solver = load("dominoes-6x6").solver()
    est = quick_estimate(solver)
    truth = solver.solve(())
    assert est.samples == 0
    assert est.nodes.value == est.nodes.low == est.nodes.high == truth.stats.nodes
    assert est.solutions.value == 6728


def test_a_big_tree_is_sampled_in_bounded_time():
    solver = load("pentomino-6x10").solver()
    started = time.monotonic()
    est = quick_estimate(solver, rate_seconds=0.05, seconds=0.5)
    assert time.monotonic() - started < 3.0
    assert est.samples > 0 and est.nodes.low < est.nodes.value < est.nodes.high
    assert est.nodes_per_second > 0 and est.seconds.value > 0


def test_solve_with_a_progress_display_estimates_and_stores_it(tc, sqlite_url, monkeypatch):
    monkeypatch.setattr(App, "progress_shown", property(lambda app: app.progress))  # as on a terminal
    # without symmetry the tree (2.4 M nodes) is past what the estimate's 0.3 s timed search finishes
    r = tc("solve", "pentomino-6x10", "--no-symmetry", "--split-depth", "2", "--workers", "2", "--json")
    assert "estimate: " in r.stderr and "random paths" in r.stderr and "on one core here" in r.stderr
    run_id = json.loads(r.stdout)["run_id"]
    run = get_run(open_ledger(sqlite_url), run_id)
    assert run.estimated_nodes > 0
    shown = json.loads(tc("show", str(run_id), "--json").stdout)["estimate"]
    assert shown["estimated_nodes"] == run.estimated_nodes and shown["samples"] > 0
    assert shown["ratio"] == pytest.approx(run.nodes / run.estimated_nodes, rel=1e-3)
    assert "x the estimate" in tc("show", str(run_id)).stdout
    r = tc("solve", "dominoes-6x6", "--workers", "1", "--no-estimate", "--json")
    assert "estimate" not in r.stderr
    assert get_run(open_ledger(sqlite_url), json.loads(r.stdout)["run_id"]).estimated_nodes is None


def test_solve_without_a_progress_display_does_not_estimate(tc, sqlite_url):
    run_id = json.loads(tc("solve", "dominoes-6x6", "--workers", "1", "--json").stdout)["run_id"]
    assert get_run(open_ledger(sqlite_url), run_id).estimated_nodes is None
    assert json.loads(tc("show", str(run_id), "--json").stdout)["estimate"] is None


def progress(**kw) -> Progress:
    base = dict(run_id=1, status="running", weight_done=0.5, solutions=0, nodes=250, elapsed=10.0)
    return Progress(**{**base, **kw})


def test_eta_uses_nodes_against_the_estimate():
    # half the tree searched: 500 of the 1000 estimated nodes left, at 250 nodes in 10 s
    assert eta_seconds(progress(estimated_nodes=1000)) == pytest.approx(20.0)
    assert eta_text(progress(estimated_nodes=1000)) == "00:00:20"
    # more searched than estimated, within the trusted factor: half the estimate is left
    assert eta_seconds(progress(estimated_nodes=200)) == pytest.approx(4.0)
    # before 5% of the tree is done, the estimate holds whatever the density
    assert eta_seconds(progress(weight_done=0.01, estimated_nodes=10**9)) == pytest.approx(0.99 * 10**9 / 25)
    # --verify 1: the unfinished half twice over, plus 100 nodes of open verifications, at 500 nodes in 10 s
    p = progress(estimated_nodes=1000, verify_fraction=1.0, verifications={"nodes": 250, "done": 1, "open_nodes": 100})
    assert eta_seconds(p) == pytest.approx((500 * 2 + 100) / 50)
    open_verifications = progress(weight_done=1.0, estimated_nodes=1000, verify_fraction=1.0,
                           verifications={"pending": 3, "nodes": 250, "open_nodes": 250})
    assert eta_seconds(open_verifications) == pytest.approx(5.0)


def test_eta_falls_back_to_the_finished_weight():
    assert eta_seconds(progress()) == pytest.approx(10.0)  # half the weight in 10 s
    assert eta_text(progress(weight_done=0.0, nodes=0)) == "--:--:--"
    assert eta_text(progress(weight_done=0.0, nodes=0, estimated_nodes=1000)) == "--:--:--"
    assert eta_seconds(progress(status="done", estimated_nodes=1000)) == 0.0
    assert eta_seconds(progress(weight_done=1.0)) == 0.0
    # 250 nodes in half the tree: an estimate of 10,000 (memoised counting) or 50 is set aside
    assert eta_seconds(progress(estimated_nodes=10_000)) == pytest.approx(10.0)
    assert eta_seconds(progress(estimated_nodes=50)) == pytest.approx(10.0)


def test_the_bar_counts_verifications():
    p = progress(states={"done": 3, "pending": 2}, verify_fraction=0.5,
                 verifications={"pending": 1, "leased": 0, "done": 2, "mismatches": 1})
    assert subproblems_text(p) == "3/5 subproblems, verified 2/3 (1 MISMATCH)"
    assert subproblems_text(progress(states={"done": 1})) == "1/1 subproblems"
