"""Commands that weigh a run before and after: ``estimate`` (how big, how long) and
``verify`` (re-solve a sample of a finished run's subproblems and compare)."""
from __future__ import annotations

import sys
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
    solver_options,
)

if TYPE_CHECKING:
    from core.engines import Searchable, SolverOptions
    from core.estimate import Band
    from core.share_estimate import SharesEstimate


@cli.command()
@click.argument("name_or_file")
@kind_option
@click.option("--samples", type=click.IntRange(min=1), default=1000, show_default=True, help="random root-to-leaf paths")
@click.option("--seconds", "max_seconds", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="stop sampling after this long")
@click.option("--seed", type=int, default=0, show_default=True, help="which random paths (the same seed, the same estimate)")
@click.option("--shares", "share_samples", type=click.IntRange(min=1), default=4, show_default=True,
              help="where a whole count goes by levels: random shares of its root counted to time it (at least two, "
                   "then until --seconds)")
@distinct_option
@engine_option
@memo_option
@by_levels_option
@by_search_option
@by_bitboard_option
@json_option
@click.pass_obj
def estimate(app: App, name_or_file: str, kind: str | None, samples: int, max_seconds: float, seed: int,
             share_samples: int, distinct: bool, engine: str | None, no_memo: bool, by_levels: bool, by_search: bool,
             by_bitboard: bool) -> None:
    """Estimate a run before starting it: tree size, solutions and time on this machine
    (Knuth's random-path estimator, with a 95% band), and how a whole count would go —
    where it goes by levels, its time from a random sample of its shares."""
    from core.engines import Method, choose_method, solver_for
    from core.estimate import CannotEstimate
    from core.estimate import estimate as knuth_estimate
    from core.library import load

    problem = load(name_or_file, kind)
    asked = solver_options(engine, distinct, no_memo, by_levels, by_search, by_bitboard)
    whole = choose_method(problem, asked, whole_count=True)
    searched = whole.method if whole.method is Method.BITBOARD else Method.SEARCH  # the tree estimated
    solver = solver_for(problem, replace(whole.options, method=searched, symmetry=False))
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
        return f"{fmt.format(b.value)}  (95%: {fmt.format(b.low)} .. {fmt.format(b.high)})"

    click.echo(f"{problem.name}: estimate from {est.samples:,} random paths")
    click.echo(f"nodes      {band(est.nodes)}")
    if est.solutions_reached:
        click.echo(f"solutions  {band(est.solutions)}  ({est.solutions_reached:,} paths reached one)")
    else:  # a band of 0 .. 0 would claim a certainty the sample does not have
        click.echo(f"solutions  not estimated: none of the {est.samples:,} random paths reached one "
                   f"(so, at 95%, fewer than 1 in {max(1, est.samples // 3):,} does); more --samples")
    click.echo(f"time       {band(est.seconds, '{:,.1f} s')} on one core at {est.nodes_per_second:,.0f} nodes/s")
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
