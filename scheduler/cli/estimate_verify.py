"""Commands that weigh a run before and after: ``estimate`` (how big, how long) and
``verify`` (re-solve a sample of a finished run's subproblems and compare)."""
from __future__ import annotations

import os
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING

import click

from .app import App, cli
from .options import (
    by_bitboard_option,
    by_levels_option,
    by_search_option,
    db_option,
    distinct_option,
    engine_option,
    json_option,
    kind_option,
    memo_option,
    memory_size,
    solver_options,
)

if TYPE_CHECKING:
    from core.engines import MethodChoice, Searchable, SolverOptions
    from core.estimate import Band
    from core.share_estimate import SharesEstimate


@cli.command()
@click.argument("name_or_file")
@kind_option
@click.option("--samples", type=click.IntRange(min=1), default=1000, show_default=True, help="random root-to-leaf paths")
@click.option("--seconds", "max_seconds", type=click.FloatRange(min=0, min_open=True), default=3.0, show_default=True,
              help="how long to measure: the random paths of a search, the probe of a count by levels")
@click.option("--seed", type=int, default=0, show_default=True, help="which random paths (the same seed, the same estimate)")
@click.option("--shares", "share_samples", type=click.IntRange(min=1), default=4, show_default=True,
              help="where a count goes by levels below the orbits' units: random units counted to time it (at least "
                   "two, then until --seconds)")
@click.option("--workers", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
              help="the workers the run would have  [default: this machine's cores]")
@click.option("--memory", callback=memory_size, metavar="SIZE",
              help="the memory a count by levels may hold (512M, 8G; default 60% of this machine's)")
@distinct_option
@engine_option
@memo_option
@by_levels_option
@by_search_option
@by_bitboard_option
@json_option
@click.pass_obj
def estimate(app: App, name_or_file: str, kind: str | None, samples: int, max_seconds: float, seed: int,
             share_samples: int, workers: int, memory: int | None, distinct: bool, engine: str | None, no_memo: bool,
             by_levels: bool, by_search: bool, by_bitboard: bool) -> None:
    """Estimate a run before starting it, by the method ``solve`` would use: a count by
    levels from a probe of its first levels (states, time, memory at the peak, each with a
    band), a search from Knuth's random paths (tree size, solutions, time, with a 95%
    band); one line where the problem is out of reach."""
    from core.engines import Method, choose_method
    from core.errors import ProblemError
    from core.library import load

    started = time.perf_counter()
    problem = load(name_or_file, kind)
    asked = solver_options(engine, distinct, no_memo, by_levels, by_search, by_bitboard)
    try:
        whole = choose_method(problem, asked, whole_count=True, workers=workers, memory=memory)
    except ProblemError as exc:
        if "out of reach" not in str(exc):
            raise
        if app.as_json:
            app.echo_json({"problem": problem.name, "out_of_reach": str(exc)})
        else:
            click.echo(str(exc))
        return
    if whole.method is Method.LEVELS and whole.projection is not None:
        left = max(0.5, max_seconds - (time.perf_counter() - started))
        _print_levels(app, problem, whole, left, workers, memory)
        return
    _print_search(app, problem, whole, samples, seed, max_seconds, share_samples)


def _print_levels(app: App, problem: Searchable, whole: MethodChoice, seconds: float, workers: int,
                  memory: int | None) -> None:
    """A whole count by levels: its projection from a probe of ``seconds`` (longer than the
    method choice's own), or its count where the probe finished it."""
    from core.level_measure import human_bytes, human_seconds, measure

    proj = whole.projection
    assert proj is not None and whole.solver is not None
    count = whole.trial.count if whole.trial is not None else None
    if not proj.exact:
        hints = problem.search_hints()
        measured = measure(problem.exact_cover(), hints.board or hints.region, seconds, threads=proj.threads,
                           memory=memory)
        if measured.projection is not None:
            proj = measured.projection
            if measured.complete and measured.probe is not None:
                count = measured.probe.count
    how = getattr(whole.solver, "description", "")
    if app.as_json:
        data = {"problem": problem.name, "whole_count": "levels", "plan": how, "reason": whole.reason,
                "levels": proj.to_json()}
        if proj.exact and count is not None:
            data["solutions"] = count
        app.echo_json(data)
        return
    click.echo(f"{problem.name}: counted by levels ({how})")
    if proj.exact and count is not None:
        click.echo(f"solutions  {count:,}  (counted: the probe finished the count in {human_seconds(proj.seconds)})")
        click.echo(f"states     {proj.states:,.0f}, at most {proj.level_states:,.0f} in a level")
        return
    click.echo(f"states     {_amount(proj.states)}  ({_amount(proj.states / proj.band)} .. "
               f"{_amount(proj.states * proj.band)}), about {_amount(proj.level_states)} a level at the most")
    threads = f"{proj.threads} thread{'' if proj.threads == 1 else 's'}"
    click.echo(f"time       {human_seconds(proj.seconds)}  ({human_seconds(proj.seconds_low)} .. "
               f"{human_seconds(proj.seconds_high)}) on {threads}")
    click.echo(f"memory     {human_bytes(proj.peak_bytes)} at the peak  ({human_bytes(proj.bytes_low)} .. "
               f"{human_bytes(proj.bytes_high)})")
    click.echo(f"measured   {proj.basis}")


def _amount(x: float) -> str:
    """A count of states in words: 5,926,171; 3.2e+12."""
    return f"{x:,.0f}" if x < 1e9 else f"{x:.2g}"


def _print_search(app: App, problem: Searchable, whole: MethodChoice, samples: int, seed: int, max_seconds: float,
                  share_samples: int) -> None:
    """A search (or levels below its orbits' units): Knuth's random paths."""
    from core.engines import Method, solver_for
    from core.estimate import CannotEstimate
    from core.estimate import estimate as knuth_estimate

    searched = whole.method if whole.method is Method.BITBOARD else Method.SEARCH  # the tree estimated
    solver = solver_for(problem, replace(whole.options, method=searched, symmetry=False, level_plan=None))
    try:
        est = knuth_estimate(solver, samples, seed=seed, max_seconds=max_seconds)
    except CannotEstimate as exc:  # a plain answer, not a wrong figure
        if app.as_json:
            app.echo_json({"problem": problem.name, "cannot_estimate": str(exc), "whole_count": str(whole.method)})
        else:
            click.echo(f"{problem.name}: cannot estimate this model: {exc}")
        return
    by_levels_here = whole.method is Method.LEVELS
    shares = _shares_estimate(problem, whole.options, share_samples, seed, max_seconds) if by_levels_here else None
    if app.as_json:
        extra = {"by_levels": shares.to_json()} if shares is not None else {}
        app.echo_json({"problem": problem.name, **est.to_json(), "whole_count": str(whole.method), **extra})
        return

    def band(b: Band, fmt: str = "{:,.0f}") -> str:
        return f"{_big(b.value, fmt)}  (95%: {_big(b.low, fmt)} .. {_big(b.high, fmt)})"

    click.echo(f"{problem.name}: estimate from {est.samples:,} random paths")
    click.echo(f"nodes      {band(est.nodes)}")
    if est.solutions_reached:
        click.echo(f"solutions  {band(est.solutions)}  ({est.solutions_reached:,} paths reached one)")
    else:  # a band of 0 .. 0 would claim a certainty the sample does not have
        click.echo(f"solutions  not estimated: none of the {est.samples:,} random paths reached one "
                   f"(so, at 95%, fewer than 1 in {max(1, est.samples // 3):,} does); more --samples")
    click.echo(f"time       {_time_band(est.seconds)} on one core at {est.nodes_per_second:,.0f} nodes/s")
    if by_levels_here:
        click.echo("note       this is the search; a whole count (solve, submit) goes by levels here, which "
                   "walks no tree (--by-search to search)")
    if shares is not None:
        counted = sum(s for _, s, _ in shares.sampled)
        seconds = shares.seconds
        click.echo(f"by levels  {shares.shares:,} shares of the root, {len(shares.sampled)} counted in "
                   f"{_seconds(counted)}: {_seconds(seconds.value)}  (95%: {_seconds(seconds.low)} .. "
                   f"{_seconds(seconds.high)}) on one core")
        click.echo(f"           count about {band(shares.count, '{:,.4g}')}")


def _big(x: float, fmt: str) -> str:
    """A figure in ``fmt``, or in powers of ten past a billion (or "more than 10^308")."""
    if x == float("inf"):
        return "more than 1e308"
    return fmt.format(x) if x < 1e9 else f"{x:.3g}"


def _time_band(b: Band) -> str:
    from core.level_measure import human_seconds

    return f"{human_seconds(b.value)}  (95%: {human_seconds(b.low)} .. {human_seconds(b.high)})"


def _seconds(x: float) -> str:
    return f"{x:,.1f} s" if x >= 1 else f"{x:.2g} s"


def _shares_estimate(problem: Searchable, options: SolverOptions, samples: int, seed: int,
                     max_seconds: float) -> SharesEstimate:
    """The whole count by levels timed from a random sample of its root's shares
    (:mod:`core.share_estimate`), on a solver of its own: the method choice's keeps the
    level count of the unit it measured, which would time as nothing."""
    from core.engines import solver_for
    from core.share_estimate import estimate_by_shares

    return estimate_by_shares(solver_for(problem, options), samples, seed=seed, max_seconds=max_seconds)


@cli.command()
@click.argument("run_id", type=int)
@click.option("--fraction", type=click.FloatRange(min=0, max=1, min_open=True), default=0.1, show_default=True,
              help="share of the complete subproblems to re-solve")
@click.option("--seed", type=int, default=0, show_default=True, help="which random sample")
@db_option
@json_option
@click.pass_obj
def verify(app: App, run_id: int, fraction: float, seed: int) -> None:
    """Re-solve a random sample of a run's subproblems here and compare counts, node counts
    and solutions with what the workers recorded; a mismatch is written on the run, names
    the subproblem and the worker, and exits with status 1."""
    from ..verification import summary, verify_run

    report = verify_run(app.ledger(existing=True), run_id, fraction, seed=seed)
    if app.as_json:
        app.echo_json(report.to_json())
    else:
        click.echo(summary(report))
        for m in report.mismatches:
            click.echo("  " + m.describe(report.verifier))
    if not report.ok:
        sys.exit(1)
