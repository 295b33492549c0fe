"""The ``tilecensus`` command line.

Bad input — an unknown name, a bad problem file, a database or broker that does not
answer, an unknown run — is one line on stderr and exit status 2, before anything is
written to the ledger.
"""
from __future__ import annotations

import csv
import importlib
import json
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click
from sqlalchemy.exc import OperationalError

from core.errors import ProblemError
from core.problem import Problem

from .db import ENV_DB_URL, LedgerError, open_ledger, resolve_url, safe_url
from .celery_config import DEFAULT_QUEUE, ENV_BROKER_URL, broker_url
from .models import DONE, RUNNING

ENV_PLUGINS = "TILECENSUS_PLUGINS"


class CLIError(click.ClickException):
    """One line on stderr, exit status 2."""

    exit_code = 2

    def show(self, file=None) -> None:
        click.echo(f"tilecensus: {self.format_message()}", err=True)


class Group(click.Group):
    """Turns the known user-facing errors into :class:`CLIError`."""

    def invoke(self, ctx: click.Context) -> Any:
        from .runner import BrokerError

        try:
            return super().invoke(ctx)
        except (ProblemError, LedgerError, BrokerError) as exc:
            raise CLIError(str(exc)) from exc
        except OperationalError as exc:
            reason = str(exc.orig or exc).strip().splitlines()[0]
            raise CLIError(f"the database stopped answering: {reason}") from exc
        except OverflowError as exc:  # a subproblem's count past 2^128 (the run is marked failed)
            raise CLIError(f"{exc}: one subproblem's count is too big for the kernel; split the run "
                           "deeper (--split-depth D or --subproblems N)") from exc


def _load_plugins() -> None:
    """Import the modules named in ``TILECENSUS_PLUGINS`` (they register extra kinds)."""
    for name in filter(None, os.environ.get(ENV_PLUGINS, "").split(",")):
        importlib.import_module(name.strip())


def _echo_json(data: Any) -> None:
    click.echo(json.dumps(data, default=str))


def _ledger(db: str | None):
    return open_ledger(db)


db_option = click.option("--db", metavar="URL", help=f"ledger database URL (default: ${ENV_DB_URL} or a SQLite file)")
json_option = click.option("--json", "as_json", is_flag=True, help="print JSON")
broker_option = click.option("--broker", metavar="URL", help=f"Celery broker URL (default: ${ENV_BROKER_URL} or redis://localhost:6379/0)")
progress_option = click.option("--no-progress", is_flag=True, help="no progress bar")


@click.group(cls=Group)
@click.version_option(package_name="tilecensus", message="%(prog)s %(version)s")
def cli() -> None:
    """Count and enumerate every solution of tiling and exact-cover problems."""
    _load_plugins()


def main() -> None:
    cli(prog_name="tilecensus")


# --------------------------------------------------------------------------- problem options
def _verify_fraction(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """``--verify P``: a fraction in (0, 1], else one line and exit status 2."""
    if value is None:
        return None
    try:
        fraction = float(value)
    except ValueError:
        raise CLIError(f"--verify takes a fraction in (0, 1], not {value!r}") from None
    if not 0 < fraction <= 1:
        raise CLIError(f"--verify takes a fraction in (0, 1], not {value}")
    return fraction


def problem_options(f):
    for opt in reversed(
        [
            click.argument("name_or_file"),
            click.option("--kind", metavar="K", help="the model of a problem file (polyform, sudoku, ...)"),
            click.option("--count", "count_flag", is_flag=True, help="count the solutions (default)"),
            click.option("--all", "all_flag", is_flag=True, help="enumerate and store every solution"),
            click.option("--first", type=click.IntRange(min=1), metavar="N", help="stop at the first N solutions"),
            click.option("--distinct", is_flag=True, help="also count solutions up to symmetry"),
            click.option("--engine", type=click.Choice(["kernel", "reference"]), default="kernel", show_default=True),
            click.option("--no-memo", is_flag=True,
                         help="count by visiting every solution (the kernel's counting memo off)"),
            click.option("--by-levels", is_flag=True,
                         help="count level by level over frontier states instead of searching "
                              "(plain covers of at most 128 items, or whose options fit one window; see README)"),
            click.option("--by-search", is_flag=True,
                         help="count by searching even where counting by levels is expected to pay "
                              "(the default chooses; see README)"),
            click.option("--split-depth", type=click.IntRange(min=0), metavar="D", help="split at this depth"),
            click.option("--subproblems", type=click.IntRange(min=1), metavar="N", help="split into at least N subproblems"),
            click.option("--budget", type=click.FloatRange(min=0, min_open=True), default=60.0, show_default=True,
                         metavar="SECONDS", help="time budget of one task; then it donates its frontier"),
            click.option("--node-budget", type=click.IntRange(min=1), metavar="NODES", hidden=True,
                         help="node budget of one task (for tests: deterministic frontier donation)"),
            click.option("--lease", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS", hidden=True,
                         help="lease time of a task (default 2*budget+30)"),
            click.option("--verify", metavar="P", callback=_verify_fraction,
                         help="re-solve a random fraction P of the complete subproblems on another worker and "
                              "compare; a mismatch fails the run"),
            click.option("--verify-seed", type=int, default=0, show_default=True, metavar="N",
                         help="which random sample --verify takes"),
            click.option("--no-estimate", is_flag=True, help="no tree-size estimate before the run"),
            db_option,
            json_option,
            progress_option,
        ]
    ):
        f = opt(f)
    return f


def _mode(count_flag: bool, all_flag: bool, first: int | None) -> str:
    if sum([count_flag, all_flag, first is not None]) > 1:
        raise click.UsageError("choose one of --count, --all, --first N")
    return "enumerate" if all_flag else "first" if first is not None else "count"


@dataclass
class Prepared:
    """A run ready to be written: everything that can fail on bad input has happened."""

    problem: Problem
    mode: str
    options: dict[str, Any]
    ledger: Any
    plan: Any
    solver: Any
    estimate: Any = None

    def create(self, executor: str) -> int:
        """Write the run and its subproblems; the run id."""
        from .ledger import create_run
        from .planning import estimate_json

        plan_stats = self.plan.to_json()
        estimated = None
        if self.estimate is not None:
            plan_stats["estimate"] = estimate_json(self.estimate)
            estimated = round(self.estimate.nodes.value)
        return create_run(self.ledger, problem=self.problem, mode=self.mode, options=self.options,
                          executor=executor, frontier=self.plan.frontier, plan_stats=plan_stats,
                          verify_fraction=self.options.get("verify"), estimated_nodes=estimated)


def _prepare(p: dict[str, Any], workers: int, executor: str, extra: dict[str, Any] | None = None) -> Prepared:
    """Load the problem and its solver, open the ledger, plan: everything that can fail on
    bad input happens before the run is written."""
    from core.library import load

    from .planning import plan
    from .work import solver_options

    if p["split_depth"] is not None and p["subproblems"] is not None:
        raise click.UsageError("give --split-depth or --subproblems, not both")
    mode = _mode(p["count_flag"], p["all_flag"], p["first"])
    problem = load(p["name_or_file"], p["kind"])
    options: dict[str, Any] = {
        "engine": p["engine"],
        "distinct": bool(p["distinct"]),
        "budget": p["budget"],
        "lease": p["lease"],
        "node_budget": p["node_budget"],
        "limit": p["first"],
        "split_depth": p["split_depth"],
        "subproblems": p["subproblems"],
        "verify": p["verify"],
        "verify_seed": p["verify_seed"] if p["verify"] else None,
        **({"memo": False} if p["no_memo"] else {}),
        **({"levels": True} if p["by_levels"] else {}),
        **(extra or {}),
    }
    if p["no_memo"] and p["engine"] != "kernel":
        raise CLIError("--no-memo is an option of the kernel engine")
    if p["by_levels"] and (p["engine"] != "kernel" or mode != "count"):
        raise CLIError("--by-levels counts (no --all or --first) with the kernel engine")
    if p["by_levels"] and p["by_search"]:
        raise click.UsageError("give --by-levels or --by-search, not both")
    try:
        solver = problem.solver(**solver_options(options))
    except ImportError as exc:
        raise CLIError(f"the {p['engine']} engine is not available here: {exc}") from exc
    except ValueError as exc:
        if not p["by_levels"]:
            raise
        raise CLIError(f"--by-levels: {exc}") from exc
    except TypeError as exc:
        if not (p["no_memo"] or p["by_levels"]):
            raise
        flag = "--no-memo" if p["no_memo"] else "--by-levels"
        raise CLIError(f"{flag}: the {problem.kind} model brings its own search") from exc
    if _levels_pay(p, mode, options, solver):
        options["levels"] = "auto"  # chosen, not asked for: shown as such
        solver = problem.solver(**solver_options(options))
    ledger = _ledger(p["db"])
    split_depth = p["split_depth"]
    if options.get("levels") and split_depth is None and p["subproblems"] is None:
        split_depth = 0  # one level count shares its states; split ones would not
    the_plan = plan(solver, workers=workers, split_depth=split_depth, subproblems=p["subproblems"],
                    first=mode == "first")
    return Prepared(problem, mode, options, ledger, the_plan, solver)


def _levels_pay(p: dict[str, Any], mode: str, options: dict[str, Any], solver: Any) -> bool:
    """Count by levels without being asked?  Only a whole count with the kernel (no
    --by-search or --by-levels, no split, node budget, --verify or --distinct) of a cover that
    :meth:`core.kernel.KernelSolver.levels_pay` expects it to pay for."""
    asked = (p["by_levels"] or p["by_search"] or p["no_memo"] or p["distinct"] or p["verify"]
             or p["node_budget"] is not None
             or p["split_depth"] is not None or p["subproblems"] is not None)
    if asked or mode != "count" or p["engine"] != "kernel":
        return False
    levels_pay = getattr(solver, "levels_pay", None)
    return levels_pay is not None and levels_pay()


def _estimate(prep: Prepared) -> None:
    """A quick estimate of the run's size (not for ``--first``: it stops early; not for
    ``--by-levels``: it estimates the search tree, which a level count does not walk)."""
    from .planning import quick_estimate

    if prep.mode != "first" and not prep.options.get("levels"):
        prep.estimate = quick_estimate(prep.solver)


def levels_line(prep: Prepared) -> str | None:
    """What stands in for the estimate when the run counts by levels: why, and how not to."""
    chosen = prep.options.get("levels")
    if not chosen:
        return None
    if chosen == "auto":
        from core.frontier import AUTO_MAX_BAND, band

        return (f"counting by levels: band {band(prep.problem.exact_cover())} (at most {AUTO_MAX_BAND}) and a "
                "search tree past its trial; --by-search to search instead")
    return "counting by levels (--by-levels): no search-tree estimate"


def estimate_line(est) -> str:
    """The estimate in one line: nodes, solutions and time on one core here, with bands."""
    def banded(b, unit: str, fmt: str = "{:,.0f}") -> str:
        text = f"{fmt.format(b.value)} {unit}"
        if b.low != b.high:
            text += f" (95% {fmt.format(b.low)}..{fmt.format(b.high)}{' s' if unit == 's' else ''})"
        return text

    source = "exact: searched in full while timing" if est.samples == 0 else f"from {est.samples:,} random paths"
    solutions = banded(est.solutions, "solutions")
    if est.samples and not est.solutions_reached:
        solutions = "solutions not estimated (no random path reached one)"
    return (f"estimate: {banded(est.nodes, 'nodes')}, {solutions}, "
            f"{banded(est.seconds, 's', '{:,.1f}')} on one core here; {source}")


def _progress_enabled(no_progress: bool) -> bool:
    return not no_progress and sys.stderr.isatty()


# --------------------------------------------------------------------------- solve
@cli.command()
@problem_options
@click.option("--limit", type=click.IntRange(min=0), metavar="N", help="with --all: print at most N solutions")
@click.option("--stats", "show_stats", is_flag=True, help="print search statistics")
@click.option("--svg", "svg_dir", type=click.Path(file_okay=False), metavar="DIR", help="write solutions as SVG files")
@click.option("--workers", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1, show_default="CPUs")
def solve(limit, show_stats, svg_dir, workers, **p) -> None:
    """Solve a problem on this machine (a local process pool) and record the run."""
    from .ledger import progress
    from .progress import ProgressView
    from .runner import run_local

    if svg_dir is not None and not (p["all_flag"] or p["first"]):
        raise click.UsageError("--svg needs --all or --first N")
    prep = _prepare(p, workers, "local", {"workers": workers})
    problem, mode, ledger = prep.problem, prep.mode, prep.ledger
    if svg_dir is not None and type(problem).render_svg is Problem.render_svg:
        raise CLIError(f"{problem.kind} problems have no SVG pictures")
    shown = _progress_enabled(p["no_progress"])
    if shown and not p["no_estimate"]:
        _estimate(prep)
        if prep.estimate is not None:
            click.echo(estimate_line(prep.estimate), err=True)
        elif levels_line(prep):
            click.echo(levels_line(prep), err=True)
    run_id = prep.create("local")
    with ProgressView(run_id, enabled=shown) as view:
        last = [0.0]

        def tick() -> None:
            if time.monotonic() - last[0] > 0.3:
                last[0] = time.monotonic()
                view.update(progress(ledger, run_id))

        try:
            run_local(ledger, run_id, workers, on_progress=tick if view.enabled else None)
        except KeyboardInterrupt:
            click.echo(f"\ninterrupted: run {run_id} can go on with `tilecensus resume {run_id}`", err=True)
            sys.exit(130)
        if view.enabled:
            view.update(progress(ledger, run_id))
    _report(ledger, problem, run_id, p["as_json"], show_stats, limit, svg_dir, mode)


def _report(ledger, problem: Problem, run_id: int, as_json: bool, show_stats: bool, limit: int | None,
            svg_dir: str | None, mode: str) -> None:
    from .queries import iter_solutions, run_summary

    s = run_summary(ledger, run_id)
    listing: list[tuple[int, ...]] = []
    if mode in ("enumerate", "first"):
        listing = sorted(sol for _, _, sol in iter_solutions(ledger, run_id))
        if limit is not None:
            listing = listing[:limit]
    if svg_dir is not None:
        out = Path(svg_dir)
        out.mkdir(parents=True, exist_ok=True)
        for i, sol in enumerate(listing, 1):
            (out / f"solution-{i:06d}.svg").write_text(problem.render_svg(sol) or "", encoding="utf-8")
    if as_json:
        data = _short(s)
        if show_stats or True:
            data["stats"] = s["stats"]
        if mode in ("enumerate", "first"):
            data["listing"] = [{"options": list(sol), "text": problem.render_text(sol)} for sol in listing]
        _echo_json(data)
    else:
        for i, sol in enumerate(listing, 1):
            click.echo(f"solution {i}:")
            click.echo(problem.render_text(sol))
            click.echo()
        click.echo(_headline(s))
        if show_stats:
            _print_stats(s)
    if s["status"] != DONE:
        sys.exit(1)


def _short(s: dict[str, Any]) -> dict[str, Any]:
    keys = ["run_id", "problem", "mode", "status", "solutions", "distinct", "nodes", "seconds", "cpu_seconds",
            "progress", "error"]
    out = {k: s[k] for k in keys if k in s}
    out["subproblems"] = s["subproblems"]["total"]
    if s.get("verification"):
        out["verified"] = s["verification"]["verified"]
        out["mismatches"] = s["verification"]["mismatches"]
    return out


def _node_unit(s: dict[str, Any]) -> str:
    """What a run's node total counts: search-tree nodes, level-count states, or both.
    A finished run's stats say how many subproblems were counted by levels (one that was
    meant to go by levels may have fallen back to the search); before that, or for a run
    recorded before the stats said so, the run's options tell what was meant."""
    by_levels = (s.get("stats") or {}).get("by_levels")
    if by_levels is None:
        return "states, by levels" if (s.get("options") or {}).get("levels") else "nodes"
    done = s["subproblems"].get("done", 0)
    if by_levels == 0:
        return "nodes"
    if by_levels >= done:
        return "states, by levels"
    return f"nodes and states ({by_levels} of {done} subproblems by levels)"


def _headline(s: dict[str, Any]) -> str:
    parts = [f"{s['solutions']:,} solutions"]
    if s.get("distinct") is not None:
        parts.append(f"{s['distinct']:,} distinct")
    verified = f", {s['verification']['verified']} verified" if s.get("verification") else ""
    nodes = f"{s['nodes']:,} {_node_unit(s)}"
    total = s["subproblems"]["total"]
    line = (f"run {s['run_id']} {s['problem']}: {', '.join(parts)} "
            f"({nodes}, {total} subproblem{'' if total == 1 else 's'}{verified}, {s['seconds']:.2f} s)"
            f" — {s['status']}")
    if s.get("error"):
        line += f": {s['error']}"
    return line


def _print_stats(s: dict[str, Any]) -> None:
    st = s.get("stats") or {}
    click.echo(f"nodes            {st.get('nodes', s['nodes']):,}")
    if "leaves" in st:  # (runs recorded before leaves were counted have none)
        click.echo(f"leaves           {st['leaves']:,} (solutions and dead ends reached)")
    click.echo(f"solutions        {s['solutions']:,}")
    click.echo(f"updates          {st.get('updates', 0):,}")
    per_depth = st.get("nodes_per_depth", [])
    if any(per_depth) or not st.get("nodes"):
        click.echo(f"nodes per depth  {' '.join(str(n) for n in per_depth)}")
    else:  # a level count (--by-levels): its "nodes" are distinct states, with no depth
        click.echo("nodes per depth  none: counted by levels (the nodes are distinct states)")
    click.echo(f"seconds          {s['seconds']:.3f} wall, {s['cpu_seconds']:.3f} in workers")


# --------------------------------------------------------------------------- Celery
@cli.command()
@problem_options
@broker_option
@click.option("--queue", default=DEFAULT_QUEUE, show_default=True, help="Celery queue")
@click.option("--wait", is_flag=True, help="follow the run to the end (and keep it moving)")
def submit(broker, queue, wait, **p) -> None:
    """Plan a run and queue its subproblems for Celery workers."""
    from .ledger import stale_pending
    from .runner import CeleryExecutor

    executor = CeleryExecutor(broker)
    executor.check()
    prep = _prepare(p, 8, "celery", {"queue": queue})
    if not p["no_estimate"]:
        _estimate(prep)
    run_id = prep.create("celery")
    ledger = prep.ledger
    executor.dispatch(run_id, stale_pending(ledger, run_id, 0.0), queue, ledger)
    n = len(prep.plan.frontier)
    if p["as_json"]:
        data: dict[str, Any] = {"run_id": run_id, "status": RUNNING, "subproblems": n}
        if prep.estimate is not None:
            data["estimate"] = prep.estimate.to_json()
        _echo_json(data)
        sys.stdout.flush()
    else:
        if prep.estimate is not None:
            click.echo(estimate_line(prep.estimate))
        elif levels_line(prep):
            click.echo(levels_line(prep))
        verified = f" (verifying a random {100 * p['verify']:g}% of the complete ones)" if p["verify"] else ""
        click.echo(f"run {run_id} submitted: {n} subproblem{'' if n == 1 else 's'} on queue {queue}{verified}")
    if wait:
        _follow(ledger, run_id, p["as_json"], p["no_progress"], executor)


def _outages(executor) -> tuple[type[BaseException], ...]:
    """What a scheduling round raises while the database or the broker is down: a round
    that meets one of these is reported and tried again, anything else ends the command."""
    return (OperationalError, *executor.outage_errors)


def _follow(ledger, run_id: int, as_json: bool, no_progress: bool, executor=None, interval: float = 0.5) -> None:
    """Show progress until the run ends (ticking the scheduler when given an executor)."""
    from .progress import ProgressView
    from .queries import run_summary
    from .runner import tick, follow

    each = None
    if executor is not None:
        outages = _outages(executor)

        def each() -> None:
            try:
                tick(ledger, executor, run_ids=[run_id])
            except outages as exc:  # the workers keep going; the next round catches up
                click.echo(f"tilecensus: {str(exc).splitlines()[0]}; retrying", err=True)
    with ProgressView(run_id, enabled=_progress_enabled(no_progress)) as view:
        follow(ledger, run_id, view.update, interval=interval, each=each)
    s = run_summary(ledger, run_id)
    if as_json:
        _echo_json(_short(s))
    else:
        click.echo(_headline(s))
    if s["status"] != DONE:
        sys.exit(1)


@cli.command()
@click.option("--concurrency", "-c", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1, show_default="CPUs")
@click.option("--queues", "-Q", default=DEFAULT_QUEUE, show_default=True, help="comma-separated queues")
@click.option("--hostname", "-n", help="worker node name (default: celery@HOST)")
@click.option("--loglevel", "-l", default="INFO", show_default=True)
@click.option("--restart/--no-restart", default=True, show_default=True,
              help="start again when Celery stops the worker on an error (never when asked to stop)")
@db_option
@broker_option
def worker(concurrency, queues, hostname, loglevel, restart, db, broker) -> None:
    """Start a Celery worker solving subproblems."""
    from celery import signals

    from .restarts import RestartPolicy, previous_failures, restart_in_place

    url = resolve_url(db)
    _ledger(url)  # answers, and has the schema
    os.environ[ENV_DB_URL] = url
    os.environ[ENV_BROKER_URL] = broker_url(broker)
    from worker.app import app

    app.conf.broker_url = broker_url(broker)
    argv = ["worker", f"--concurrency={concurrency}", "-Q", queues, f"--loglevel={loglevel}",
            "--without-gossip", "--without-mingle", "--pool=prefork"]
    if hostname:
        argv += ["-n", hostname]
    seen: dict[str, Any] = {"worker": None, "ready": False, "asked_to_stop": False}
    signals.worker_init.connect(lambda sender, **_: seen.update(worker=sender), weak=False)
    signals.worker_ready.connect(lambda **_: seen.update(ready=True), weak=False)
    signals.worker_shutting_down.connect(lambda **_: seen.update(asked_to_stop=True), weak=False)
    started = time.monotonic()
    app.worker_main(argv)
    code = getattr(seen["worker"], "exitcode", None)  # worker_main keeps Celery's status to itself
    policy = RestartPolicy()
    if restart and policy.should_restart(code, seen["ready"], seen["asked_to_stop"]):
        failures = policy.failures(previous_failures(), time.monotonic() - started)
        pause = policy.pause(failures)
        click.echo(f"tilecensus worker: Celery stopped the worker (status {code}) without being asked to; "
                   f"starting again in {pause:g} s", err=True)
        restart_in_place(failures, pause)
    sys.exit(code or 0)


@cli.command()
@db_option
@broker_option
@click.option("--interval", type=click.FloatRange(min=0.05), default=5.0, show_default=True, help="seconds between rounds")
@click.option("--grace", type=click.FloatRange(min=0), default=10.0, show_default=True,
              help="seconds before an unstarted pending subproblem is sent again (when its queue is empty)")
@click.option("--once", is_flag=True, help="one round, then exit")
@json_option
def scheduler(db, broker, interval, grace, once, as_json) -> None:
    """Keep Celery runs moving: re-queue expired leases and lost messages, close finished runs."""
    from .runner import CeleryExecutor, tick

    ledger = _ledger(db)
    executor = CeleryExecutor(broker)
    executor.check()
    outages = _outages(executor)
    while True:
        try:
            did = tick(ledger, executor, grace=grace)
        except outages as exc:
            if once:
                raise
            click.echo(f"tilecensus scheduler: {str(exc).splitlines()[0]}; retrying", err=True)
            did = None
        if did is not None and (as_json or any(did.values())):
            if as_json:
                _echo_json(did)
            else:
                click.echo(f"requeued {did['requeued']}, resent {did['resent']}, verified {did['verified']} here, "
                           f"closed {did['closed']} runs")
        if once:
            return
        time.sleep(interval)


# --------------------------------------------------------------------------- run control
@cli.command()
@click.argument("run_id", type=int)
@click.option("--workers", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1, show_default="CPUs")
@click.option("--executor", type=click.Choice(["local", "celery"]), help="default: the run's own")
@db_option
@broker_option
@json_option
@progress_option
def resume(run_id, workers, executor, db, broker, as_json, no_progress) -> None:
    """Finish an interrupted, cancelled or stalled run."""
    from sqlalchemy import update

    from .ledger import progress, revive_run
    from .models import Run
    from .progress import ProgressView
    from .runner import CeleryExecutor, run_local

    ledger = _ledger(db)
    run = revive_run(ledger, run_id)
    if run.status == DONE:
        _follow(ledger, run_id, as_json, True)
        return
    executor = executor or run.executor
    if executor != run.executor:
        with ledger.session() as session:
            session.execute(update(Run).where(Run.id == run_id).values(executor=executor))
    if executor == "celery":
        celery = CeleryExecutor(broker)
        celery.check()
        _follow(ledger, run_id, as_json, no_progress, celery)
        return
    with ProgressView(run_id, enabled=_progress_enabled(no_progress)) as view:
        run_local(ledger, run_id, workers, on_progress=(lambda: view.update(progress(ledger, run_id))) if view.enabled else None)
    _follow(ledger, run_id, as_json, True)


@cli.command()
@click.argument("run_id", type=int)
@db_option
@json_option
def cancel(run_id, db, as_json) -> None:
    """Stop a run: its open subproblems are cancelled, late results refused."""
    from .ledger import cancel_run, get_run

    ledger = _ledger(db)
    n = cancel_run(ledger, run_id)
    status = get_run(ledger, run_id).status
    if as_json:
        _echo_json({"run_id": run_id, "status": status, "cancelled_subproblems": n})
    else:
        click.echo(f"run {run_id}: {status} ({n} open subproblems cancelled)")


@cli.command()
@click.argument("run_id", type=int)
@click.option("--interval", type=click.FloatRange(min=0.05), default=1.0, show_default=True)
@db_option
@json_option
@progress_option
def watch(run_id, interval, db, as_json, no_progress) -> None:
    """Follow a run's progress: finished weight, solutions so far, nodes/s, ETA."""
    ledger = _ledger(db)
    _follow(ledger, run_id, as_json, no_progress, None, interval)


# --------------------------------------------------------------------------- queries
@cli.command()
@click.option("--limit", type=click.IntRange(min=1), default=30, show_default=True)
@click.option("--status", type=click.Choice(["running", "done", "cancelled", "failed"]))
@db_option
@json_option
def runs(limit, status, db, as_json) -> None:
    """The runs in the ledger, newest first."""
    from rich.console import Console
    from rich.table import Table

    from .queries import list_runs

    rows = list_runs(_ledger(db), limit=limit, status=status)
    if as_json:
        _echo_json(rows)
        return
    table = Table("run", "problem", "mode", "status", "solutions", "distinct", "done", "subproblems", "verified",
                  "seconds", "created")
    for r in rows:
        table.add_row(str(r["run_id"]), r["problem"], r["mode"], r["status"], f"{r['solutions']:,}",
                      "" if r["distinct"] is None else f"{r['distinct']:,}", f"{100 * r['progress']:.1f}%",
                      str(r["subproblems"]), _verified_cell(r), f"{r['seconds']:.2f}", r["created"] or "")
    console = Console()
    if not console.is_terminal:
        console = Console(width=200)
    console.print(table)


def _verified_cell(r: dict[str, Any]) -> str:
    """The ``runs`` table's verified column: how many, and the mismatches."""
    if r["verified"] is None:
        return ""
    return f"{r['verified']}" + (f" ({r['mismatches']} MISMATCH)" if r["mismatches"] else "")


def _show_estimate(s: dict[str, Any]) -> None:
    e = s.get("estimate")
    if not e:
        return
    n = e["nodes"]
    how = "exact" if e.get("exact") else f"95% {n['low']:,.0f}..{n['high']:,.0f}, {e['samples']:,} paths"
    line = f"estimate     {n['estimate']:,.0f} nodes ({how}), {e['seconds']['estimate']:,.1f} s on one core"
    if e.get("ratio") is not None:
        line += f"; searched {s['nodes']:,} = {e['ratio']:.2f}x the estimate"
    click.echo(line)


def _show_verification(s: dict[str, Any]) -> None:
    v = s.get("verification")
    if not v:
        return
    n = v["verified"]
    click.echo(f"verified     {n} subproblem{'' if n == 1 else 's'} re-solved by another worker "
               f"({100 * v['fraction']:g}% sampled, seed {v['seed']}): {v['agree']} agree, "
               f"{v['mismatches']} mismatch, {v['open']} open")
    for m in v["mismatched"]:
        click.echo(f"  MISMATCH {m['detail']}")


@cli.command()
@click.argument("run_id", type=int)
@db_option
@json_option
def show(run_id, db, as_json) -> None:
    """One run: totals, status, timings, throughput, slowest subproblems, sizes."""
    from .queries import run_summary

    ledger = _ledger(db)
    s = run_summary(ledger, run_id)
    summary = _model_summary(ledger, run_id, s)
    if summary is not None:
        s["summary"] = summary
    if as_json:
        _echo_json(s)
        return
    click.echo(_headline(s))
    click.echo(f"problem      {s['problem']} ({s['kind']}, spec {s['spec_hash'][:12]})")
    click.echo(f"mode         {s['mode']} on {s['executor']}; options {json.dumps({k: v for k, v in s['options'].items() if v is not None})}")
    click.echo(f"status       {s['status']}" + (f": {s['error']}" if s["error"] else ""))
    click.echo(f"progress     {100 * s['progress']:.2f}% of the tree")
    _show_estimate(s)
    _show_verification(s)
    click.echo(f"timings      created {s['created']}, finished {s['finished'] or '-'}; {s['seconds']:.3f} s wall, {s['cpu_seconds']:.3f} s in workers")
    t = s["throughput"]
    unit = {"nodes": "nodes", "states, by levels": "states"}.get(_node_unit(s), "nodes and states")
    click.echo(f"throughput   {t['nodes_per_second'] or 0:,.0f} {unit}/s, {t['subproblems_per_second'] or 0:,.1f} subproblems/s")
    sp = s["subproblems"]
    click.echo("subproblems  " + ", ".join(f"{k} {v}" for k, v in sp.items()))
    for what, q in s["sizes"].items():
        if q:
            click.echo(f"sizes ({what:7s}) " + ", ".join(f"{k} {v}" for k, v in q.items()))
    if s["slowest"]:
        click.echo("slowest subproblems:")
        for r in s["slowest"]:
            click.echo(f"  #{r['id']:<6} {r['seconds']:9.4f} s {r['nodes'] or 0:>12,} {unit} {r['solutions'] or 0:>8,} solutions  path {r['path']}")
    if summary is not None:
        click.echo(f"what every stored solution agrees on ({summary.get('grids', '?')} solutions):")
        picture = summary.get("picture")
        if picture:
            click.echo(picture if isinstance(picture, str) else "\n".join(picture))
        for key in ("black_in_every", "white_in_every"):
            if key in summary:
                click.echo(f"{key.replace('_', ' '):15s} {len(summary[key])} squares")


#: at most this many stored solutions are read to summarise a run
SUMMARY_LIMIT = 200_000


def _model_summary(ledger, run_id: int, s: dict[str, Any]) -> dict[str, Any] | None:
    """The model's own summary of a finished run's stored solutions (crosswords: which
    squares are black, or white, in every grid), where the model has one."""
    if s["status"] != DONE or s["mode"] not in ("enumerate", "first"):
        return None
    from core.problem import from_spec

    from .ledger import get_run
    from .queries import iter_solutions

    problem = from_spec(get_run(ledger, run_id).spec)
    summarise = getattr(problem, "summarise", None)
    if summarise is None:
        return None
    return summarise(options for _, _, options in iter_solutions(ledger, run_id, limit=SUMMARY_LIMIT))


@cli.command()
@click.argument("run_id", type=int)
@click.option("--limit", type=click.IntRange(min=0), default=10, show_default=True)
@click.option("--offset", type=click.IntRange(min=0), default=0)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "svg"]), default="text", show_default=True)
@click.option("--out", type=click.Path(file_okay=False), metavar="DIR", help="with --format svg: write files here")
@db_option
@click.option("--json", "as_json", is_flag=True, help="same as --format json")
def solutions(run_id, limit, offset, fmt, out, db, as_json) -> None:
    """A run's stored solutions (from --all / --first)."""
    from core.problem import from_spec

    from .ledger import get_run
    from .queries import iter_solutions

    ledger = _ledger(db)
    problem = from_spec(get_run(ledger, run_id).spec)
    fmt = "json" if as_json else fmt
    if fmt == "svg" and type(problem).render_svg is Problem.render_svg:
        raise CLIError(f"{problem.kind} problems have no SVG pictures")
    rows = list(iter_solutions(ledger, run_id, limit=limit, offset=offset))
    if fmt == "json":
        _echo_json([{"index": i, "subproblem": sub, "options": list(sol), "text": problem.render_text(sol)}
                    for i, sub, sol in rows])
    elif fmt == "text":
        for i, _, sol in rows:
            click.echo(f"solution {i + 1}:")
            click.echo(problem.render_text(sol))
            click.echo()
    else:
        for i, _, sol in rows:
            svg = problem.render_svg(sol) or ""
            if out:
                Path(out).mkdir(parents=True, exist_ok=True)
                (Path(out) / f"run{run_id}-{i + 1:06d}.svg").write_text(svg, encoding="utf-8")
            else:
                click.echo(svg)
        if out:
            click.echo(f"{len(rows)} SVG files in {out}")


@cli.command()
@click.argument("run_id", type=int)
@click.option("--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True)
@click.option("--what", type=click.Choice(["solutions", "subproblems"]), default="solutions", show_default=True)
@click.option("--output", "-o", type=click.File("w"), default="-", help="file (default: stdout)")
@db_option
def export(run_id, fmt, what, output, db) -> None:
    """Export a run's solutions (option ids) or subproblems as JSON lines or CSV."""
    from .ledger import get_run
    from .queries import iter_solutions, iter_subproblems

    ledger = _ledger(db)
    get_run(ledger, run_id)
    if what == "solutions":
        rows = ({"index": i, "subproblem": sub, "options": list(sol)} for i, sub, sol in iter_solutions(ledger, run_id))
        columns = ["index", "subproblem", "options"]
    else:
        rows = iter_subproblems(ledger, run_id)
        columns = ["id", "path", "weight", "parent", "state", "attempts", "solutions", "distinct", "nodes",
                   "seconds", "stopped_by", "donated", "worker"]
    if fmt == "jsonl":
        for row in rows:
            output.write(json.dumps(row) + "\n")
    else:
        w = csv.writer(output)
        w.writerow(columns)
        for row in rows:
            w.writerow([" ".join(map(str, row[c])) if isinstance(row[c], list) else row[c] for c in columns])


@cli.command()
@json_option
def problems(as_json) -> None:
    """The built-in named problems (name, description, known counts) and name patterns."""
    from core.problem import library, library_patterns

    entries = library()
    patterns = library_patterns()
    if as_json:
        _echo_json({"problems": [{"name": e.name, "description": e.description, "known": e.known} for e in entries],
                    "patterns": [{"pattern": p, "description": d} for p, d in patterns]})
        return
    width = max((len(e.name) for e in entries), default=10)
    for e in entries:
        known = ", ".join(f"{k} {v:,}" for k, v in (e.known or {}).items())
        click.echo(f"{e.name:<{width}}  {e.description}" + (f"  [{known}]" if known else ""))
    if patterns:
        click.echo("\npatterns:")
        for pat, desc in patterns:
            click.echo(f"{pat:<{width}}  {desc}")


@cli.command()
@click.argument("name_or_file")
@click.option("--kind", metavar="K", help="the model of a problem file (polyform, sudoku, ...)")
@click.option("--samples", type=click.IntRange(min=1), default=1000, show_default=True, help="random root-to-leaf paths")
@click.option("--seconds", "max_seconds", type=click.FloatRange(min=0, min_open=True), default=30.0, show_default=True,
              help="stop sampling after this long")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--distinct", is_flag=True, help="estimate the symmetry-broken search")
@click.option("--engine", type=click.Choice(["kernel", "reference"]), default="kernel", show_default=True)
@json_option
def estimate(name_or_file, kind, samples, max_seconds, seed, distinct, engine, as_json) -> None:
    """Estimate a run before starting it: tree size, solutions and time on this machine
    (Knuth's random-path estimator, with a 95% band)."""
    from core.estimate import estimate as knuth_estimate
    from core.library import load

    problem = load(name_or_file, kind)
    options = {"engine": engine}
    if distinct:
        options["distinct"] = True
    solver = problem.solver(**options)
    est = knuth_estimate(solver, samples, seed=seed, max_seconds=max_seconds)
    # a whole count with `solve` or `submit` may not search at all (see _levels_pay)
    by_levels = not distinct and getattr(solver, "levels_pay", None) is not None and solver.levels_pay()
    if as_json:
        _echo_json({"problem": problem.name, **est.to_json(), "whole_count": "levels" if by_levels else "search"})
        return

    def band(b, fmt="{:,.0f}"):
        return f"{fmt.format(b.value)}  (95%: {fmt.format(b.low)} .. {fmt.format(b.high)})"

    click.echo(f"{problem.name}: estimate from {est.samples:,} random paths")
    click.echo(f"nodes      {band(est.nodes)}")
    if est.solutions_reached:
        click.echo(f"solutions  {band(est.solutions)}  ({est.solutions_reached:,} paths reached one)")
    else:  # a band of 0 .. 0 would claim a certainty the sample does not have
        click.echo(f"solutions  not estimated: none of the {est.samples:,} random paths reached one "
                   f"(so, at 95%, fewer than 1 in {max(1, est.samples // 3):,} does); more --samples")
    click.echo(f"time       {band(est.seconds, '{:,.1f} s')} on one core at {est.nodes_per_second:,.0f} nodes/s")
    if by_levels:
        click.echo("note       this is the search; a whole count (solve, submit) goes by levels here, which "
                   "walks no tree (--by-search to search)")


@cli.command()
@click.argument("run_id", type=int)
@click.option("--fraction", type=click.FloatRange(min=0, max=1, min_open=True), default=0.1, show_default=True,
              help="share of the complete subproblems to re-solve")
@click.option("--seed", type=int, default=0, show_default=True, help="which random sample")
@db_option
@json_option
def verify(run_id, fraction, seed, db, as_json) -> None:
    """Re-solve a random sample of a run's subproblems here and compare counts, node counts
    and solutions with what the workers recorded; a mismatch is written on the run, names
    the subproblem and the worker, and exits with status 1."""
    from .verify import summary, verify_run

    report = verify_run(_ledger(db), run_id, fraction, seed=seed)
    if as_json:
        _echo_json(report.to_json())
    else:
        click.echo(summary(report))
        for m in report.mismatches:
            click.echo("  " + m.describe(report.verifier))
    if not report.ok:
        sys.exit(1)


@cli.group()
def db() -> None:
    """The ledger database."""


@db.command("upgrade")
@db_option
@json_option
def db_upgrade(db, as_json) -> None:
    """Create or upgrade the ledger's tables (Alembic) to the newest revision."""
    from .migrate import current_revision, head_revision, upgrade

    ledger = open_ledger(db, upgrade=False)
    before = current_revision(ledger)
    after = upgrade(ledger)
    if as_json:
        _echo_json({"url": safe_url(ledger.url), "from": before, "revision": after, "head": head_revision()})
    else:
        click.echo(f"ledger {safe_url(ledger.url)}: revision {before or 'none'} -> {after}")


if __name__ == "__main__":  # pragma: no cover
    main()
