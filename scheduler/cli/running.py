"""Commands that run: ``solve`` (here, on a local process pool), ``submit`` (to Celery
workers), ``resume``, ``cancel`` and ``watch``."""
from __future__ import annotations

import contextlib
import datetime as dt
import os
import sys
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import click

from ..background_rounds import BackgroundRounds
from ..interrupts import Interrupted, interruptible, leave_now, release_frames
from ..phases import Phases
from ..run_options import DEFAULT_QUEUE, ExecutorKind
from ..states import RunStatus
from ..summary import found_in
from . import listing, render
from .app import App, CLIError, cli
from .options import broker_option, db_option, json_option, progress_option, run_options

if TYPE_CHECKING:
    from ..planning import PreparedRun, RunRequest

_workers_option = click.option("--workers", type=click.IntRange(min=1), default=lambda: os.cpu_count() or 1,
                               show_default="CPUs", help="processes in the local pool solving subproblems side by side")


def _prepare(app: App, request: RunRequest, workers: int, phases: Phases) -> tuple[Any, Any, PreparedRun]:
    """The ledger (it must answer before any work) and the prepared run.  The ledger is a
    :class:`~scheduler.sqlite_direct.DirectLedger` (the first of the two) where it is a
    SQLite file at the newest schema — a run that its planning counts in full is written
    there without loading SQLAlchemy — else :meth:`App.ledger` (the second).

    Measured and dropped (2026-11-28): opening the ledger in a thread while the run is
    planned, a failing ledger stopping the planning by SIGUSR1.  Importing SQLAlchemy is
    Python work that holds the GIL, so it slowed the planning beside it (Soma's run 0.009
    -> 0.017 s, the 8x8 less its centre 0.024 -> 0.040 s) and the whole `solve
    pentomino-6x10` process gained nothing measurable (0.54-0.63 s either way, best of 7)."""
    from ..planning import prepare

    with phases.timing("write"):
        direct = app.direct_ledger()
        ledger = app.ledger() if direct is None else None
    try:
        with phases.timing("plan"):
            prepared = prepare(request, workers=workers)
    except BaseException:
        if direct is not None:
            direct.close()
        raise
    trial = prepared.plan.first
    if trial is not None:  # the planner's trial was counting
        phases.move(trial.stats.seconds, "plan", "count")
    return direct, ledger, prepared


@cli.command()
@run_options
@click.option("--limit", type=click.IntRange(min=0), metavar="N", help="with --all: print at most N solutions")
@click.option("--stats", "show_stats", is_flag=True, help="print search statistics")
@click.option("--svg", "svg_dir", type=click.Path(file_okay=False), metavar="DIR", help="write solutions as SVG files")
@_workers_option
@click.pass_obj
def solve(app: App, request: RunRequest, limit: int | None, show_stats: bool, svg_dir: str | None,
          workers: int) -> None:
    """Solve a problem on this machine (a local process pool) and record the run."""
    phases = Phases()  # the command's work starts
    if svg_dir is not None and not request.mode.listing:
        raise click.UsageError("--svg needs --all or --first N")
    shown = app.progress_shown
    request = replace(request, options=replace(request.options, workers=workers),
                      estimate=request.estimate and shown)  # the estimate is for the person watching
    ledger, run_id, recorded = None, None, None
    with interruptible():
        try:
            direct, ledger, prepared = _prepare(app, request, workers, phases)
            with contextlib.closing(direct) if direct is not None else contextlib.nullcontext():
                if svg_dir is not None and not prepared.problem.has_pictures:
                    raise CLIError(f"{prepared.problem.kind} problems have no SVG pictures")
                if shown:
                    line = render.before_the_run(prepared)
                    if line:
                        click.echo(line, err=True)
                counted = prepared.counted()
                if direct is not None and counted is not None:  # no pool, no SQLAlchemy, one transaction
                    with phases.timing("write"):
                        recorded = direct.record_counted(prepared, ExecutorKind.LOCAL, counted, phases.to_json)
                    run_id = recorded.run_id
                else:
                    if ledger is None:  # a SQLite file at the newest schema answered sqlite3 before
                        ledger = _open_late(app, prepared, phases)
                    with phases.timing("write"):
                        run_id = prepared.create(ledger, ExecutorKind.LOCAL,
                                                 times=phases.to_json if prepared.done_in_planning else None).run_id
                    _run_here(ledger, run_id, prepared, workers, phases, shown)
        except Interrupted as exc:
            _interrupted(ledger, run_id, exc)
    if recorded is not None:
        s, solutions = recorded.summary, recorded.solutions
        rows = [(i, recorded.sub_id, options) for i, options in enumerate(solutions[:limit])] \
            if prepared.mode.listing else []
        found = found_in(prepared.problem, s, lambda: iter(solutions))
    else:
        from ..queries import given_found, iter_solutions, run_summary

        s = run_summary(ledger, run_id)
        rows = list(iter_solutions(ledger, run_id, limit=limit)) if prepared.mode.listing else []
        found = given_found(ledger, run_id, s, prepared.problem)
    _report(app, s, prepared, rows, found, show_stats, svg_dir)


def _open_late(app: App, prepared: PreparedRun, phases: Phases):
    """The ledger through SQLAlchemy, for a run the pool counts, opened after its planning:
    the run's seconds count its planning and its count, not this import (as when the
    ledger was opened first), so its start moves by as long."""
    opened = time.perf_counter()
    with phases.timing("write"):
        ledger = app.ledger()
    if prepared.started is not None:
        prepared.started += dt.timedelta(seconds=time.perf_counter() - opened)
    return ledger


def _run_here(ledger, run_id: int, prepared: PreparedRun, workers: int, phases: Phases, shown: bool) -> None:
    """Unless planning counted it all, solve the run written through SQLAlchemy on the
    local pool, and keep where the time went."""
    from ..ledger import progress, record_times
    from ..progress import ProgressView
    from ..local_pool import run_local

    done = prepared.done_in_planning
    with ProgressView(run_id, enabled=shown) as view:
        last = [0.0]

        def tick() -> None:
            if time.monotonic() - last[0] > 0.3:
                last[0] = time.monotonic()
                view.update(progress(ledger, run_id))

        if not done:
            with phases.timing("count"):
                run_local(ledger, run_id, workers, on_progress=tick if view.enabled else None,
                          solver=prepared.solver, step_back=True)
            record_times(ledger, run_id, phases.to_json())
        if view.enabled:
            view.update(progress(ledger, run_id))


def _interrupted(ledger, run_id: int | None, exc: Interrupted) -> None:
    """The first SIGINT/SIGTERM of a local run: it is ``interrupted`` (run_local recorded
    what finished; marked here too when the signal came before or after it), one line
    says how to go on, exit 130 / 143 at once (:func:`~scheduler.interrupts.leave_now`)."""
    from ..ledger import interrupt_run

    release_frames(exc)
    if run_id is None:
        click.echo("\ninterrupted while planning: no run recorded", err=True)
    elif ledger is None:  # written whole, done, without SQLAlchemy (scheduler.sqlite_direct)
        click.echo(f"\ninterrupted: run {run_id} is recorded", err=True)
    else:
        interrupt_run(ledger, run_id)
        click.echo(f"\ninterrupted: run {run_id} stopped; go on with `tilecensus resume {run_id}`", err=True)
    if ledger is not None:
        ledger.dispose()  # its connections closed as on a normal exit
    leave_now(exc.exit_status)


def _report(app: App, s: dict[str, Any], prepared: PreparedRun, rows: list[listing.Row], found: bool | None,
            show_stats: bool, svg_dir: str | None) -> None:
    """Print a finished local run (its summary ``s``): its solutions (when listing, the
    ``rows`` read), headline and statistics; ``found``: whether a crossword file's own
    grid is among its solutions (:func:`scheduler.summary.found_in`)."""
    problem = prepared.problem
    if svg_dir is not None:
        listing.write_svgs(problem, s["run_id"], rows, svg_dir)
    if app.as_json:
        data = render.short(s)
        data["stats"] = s["stats"]
        if found is not None:
            data["given_found"] = found
        if prepared.mode.listing:
            data["listing"] = listing.json_entries(problem, rows)
        app.echo_json(data)
    else:
        listing.echo_text(problem, rows)
        click.echo(render.headline(s) + render.given_note(found))
        if show_stats:
            render.print_stats(s)
    if s["status"] != RunStatus.DONE:
        sys.exit(1)


@cli.command()
@run_options
@broker_option
@click.option("--queue", default=None, metavar="NAME", help="Celery queue (default: tilecensus)")
@click.option("--wait", is_flag=True, help="follow the run to the end (and keep it moving)")
@click.pass_obj
def submit(app: App, request: RunRequest, queue: str | None, wait: bool) -> None:
    """Plan a run and queue its subproblems for Celery workers."""
    from ..batches import CLUSTER_WORKERS, message_target
    from ..direct_writes import Created
    from ..planning import prepare
    from ..pulling import pulls_from_ledger

    executor = _sender(app)
    queue_name = queue or DEFAULT_QUEUE
    executor.check(queue_name)
    serving = executor.workforce(queue_name)  # the worker processes there are: the run is planned for them
    request = replace(request, options=replace(request.options, queue=queue, workers=serving))
    direct = app.direct_writes()  # it must answer before any work: without SQLAlchemy where it can
    ledger = app.ledger() if direct is None else None
    with contextlib.closing(direct) if direct is not None else contextlib.nullcontext():
        prepared = prepare(request, workers=serving or CLUSTER_WORKERS, defer_estimate=True, cluster=True,
                           hosts=executor.hosts(queue_name) if serving else 1)
        counted = prepared.counted() if direct is not None else None
        summary = None  # of a run that planning counted in full, written closed
        if counted is not None:
            recorded = direct.record_counted(prepared, ExecutorKind.CELERY, counted)
            created, verifications, summary = Created(recorded.run_id, [], []), [], recorded.summary
        elif direct is not None:  # stamped as sent: sent next
            created = direct.create_run(prepared, ExecutorKind.CELERY)
            verifications = created.verifications
        else:
            created = prepared.create(ledger, ExecutorKind.CELERY, queued=True)
            verifications = open_verifications(ledger, created.run_id)
        run_id, pending = created.run_id, created.pending
        # a message for each worker; where they pull, the rest of the plan waits in the ledger for them
        at_most = (serving or CLUSTER_WORKERS) if pulls_from_ledger(prepared.mode, bool(prepared.options.verify)) else None
        sent = executor.dispatch(run_id, pending, queue_name, weights=created.weights, rate=prepared.seconds_per_weight,
                                 target=message_target(prepared.options.task_seconds), share=serving, at_most=at_most)
        messages, held = len(sent), len(pending) - sum(len(m) for m in sent)
        executor.dispatch_verifications(run_id, verifications, queue_name)
        # planning may have counted everything; a verified run's root may have been all there was
        finished = (summary is not None or prepared.done_in_planning
                    or (not pending and not verifications and _closed(app, run_id)))
        if prepared.estimate_deferred or wait:  # work still to do here (a process only printing and exiting
            _step_back()                        # does so at once: at the lowest priority it waited its turn)
        if prepared.estimate_deferred:  # sampled while the workers start on the subproblems
            prepared.estimate_later(direct if direct is not None else ledger, run_id)
        if app.as_json:
            data: dict[str, Any] = {"run_id": run_id, "status": RunStatus.DONE if finished else RunStatus.RUNNING,
                                    "subproblems": len(pending), "messages": messages, "held": held,
                                    "workers": serving}
            if prepared.estimate is not None:
                data["estimate"] = prepared.estimate.to_json()
            app.echo_json(data)
            sys.stdout.flush()
        else:
            _submitted(prepared, run_id, summary or (_summary(app, run_id) if finished else None), queue_name, serving,
                       executor.counts_workers, len(pending), messages, held)
        if wait:  # its messages were just sent: the first scheduler round can wait its turn
            from ..waiting import LedgerLook

            rounds = BackgroundRounds(run_id, lambda: (app.ledger(), _sender(app, celery=True)), outages,
                                      lambda line: click.echo(line, err=True))
            follow(app, direct if direct is not None else LedgerLook(ledger), run_id, rounds,
                   redis_client=getattr(executor, "redis", None))


def _sender(app: App, *, celery: bool = False):
    """What sends ``submit``'s messages: on a Redis broker its own messages over redis-py
    (:class:`~scheduler.redis_sender.RedisSender`: no Celery, no kombu), else, or asked
    for ``celery``, Celery's app (:class:`~scheduler.celery_executor.CeleryExecutor`)."""
    from ..celery_config import checked_broker_url

    url = checked_broker_url(app.broker_url)
    if not celery:
        from ..redis_sender import RedisSender

        sender = RedisSender.for_broker(url)
        if sender is not None:
            return sender
    from ..celery_executor import CeleryExecutor

    return CeleryExecutor(url)


def _closed(app: App, run_id: int) -> bool:
    """Close a run of which nothing is open (its totals, by the ledger's own code)."""
    from ..ledger import close_run

    return close_run(app.ledger(), run_id)


def _summary(app: App, run_id: int) -> dict[str, Any]:
    """A run's summary, read by the ledger's own code."""
    from ..queries import run_summary

    return run_summary(app.ledger(), run_id)


def _submitted(prepared: PreparedRun, run_id: int, finished: dict[str, Any] | None, queue_name: str,
               serving: int | None, counts_workers: bool, n: int, messages: int, held: int) -> None:
    """What ``submit`` prints without ``--json``: the estimate, then the run queued, or
    counted while planning (``finished``: its summary)."""
    from ..batches import CLUSTER_WORKERS

    line = render.before_the_run(prepared)
    if line:
        click.echo(line)
    if finished is not None:
        click.echo(render.headline(finished) + " (while planning: nothing left to queue)")
        return
    verify = prepared.options.verify
    notes = [f"{render.plural(serving, 'worker process', 'worker processes')} serving it" if serving
             else f"no worker has announced itself on it: planned for {CLUSTER_WORKERS}" if counts_workers
             else f"workers are counted on a Redis broker only: planned for {CLUSTER_WORKERS}"]
    if held:
        notes.append(f"the other {held:,} wait in the ledger for the workers to pull")
    if verify:
        notes.append(f"verifying a random {100 * verify:g}% of the complete ones")
    click.echo(f"run {run_id} submitted: {n:,} subproblem{'' if n == 1 else 's'} in {messages} "
               f"message{'' if messages == 1 else 's'} on queue {queue_name} ({'; '.join(notes)})")


def _step_back() -> None:
    """Once its messages are out, the submitting process yields the CPU to the workers:
    what it does next — the deferred estimate (random paths for up to a second, bounded
    in wall time, so it only samples less), following the run — must not slow workers on
    the same machine (two workers and the estimate on two cores: the workers got a third
    less CPU while it ran).  Its threads' nice values (:mod:`scheduler.priority`), and its
    session's autogroup's, by which Linux shares a busy machine between sessions.  Best
    effort: a system without either keeps the priority it had."""
    from ..priority import STEP_BACK, step_back

    step_back(STEP_BACK)
    try:
        with open("/proc/self/autogroup", "w") as f:
            f.write(str(STEP_BACK))
    except OSError:  # no autogroup scheduling (not Linux, or turned off)
        pass


def open_verifications(ledger, run_id: int) -> list[int]:
    """The subproblems whose verification waits for a worker (planning records one)."""
    from ..ledger import verifications

    with ledger.engine.begin() as conn:
        return verifications.stale_verifications(conn, run_id, 0.0)


def outages(executor) -> tuple[type[BaseException], ...]:
    """What a scheduling round raises while the database or the broker is down: a round
    that meets one of these is reported and tried again, anything else ends the command."""
    from sqlalchemy.exc import OperationalError

    return (OperationalError, *executor.outage_errors)


def follow(app: App, look, run_id: int, rounds: BackgroundRounds | None = None, interval: float = 1.0, *,
           progress: bool = True, redis_client: Any = None) -> None:
    """Show progress until the run ends, read through ``look``
    (:class:`scheduler.waiting.RunLook`), with the scheduler's ``rounds`` going on in
    their thread where given; then its headline, exit status 1 unless it is done.  The end
    is told by an event where there is one (:mod:`scheduler.waiting`: PostgreSQL's
    notifications, else the broker's channel on ``redis_client``), so the command returns
    within milliseconds of it; without a progress bar, between events, it asks the ledger
    only for the run's status, seldom."""
    from ..progress import ProgressView
    from ..waiting import follow as poll
    from ..waiting import run_ends

    with rounds if rounds is not None else contextlib.nullcontext():
        with interruptible(), run_ends(look, redis_client) as ends, \
                ProgressView(run_id, enabled=progress and app.progress_shown) as view:
            try:
                poll(look, run_id, view.update if view.enabled else None, interval=interval,
                     each=rounds.raise_failure if rounds is not None else None, each_first=False, ends=ends)
            except Interrupted as exc:
                where = " in the cluster" if look.executor_of(run_id) == ExecutorKind.CELERY else ""
                click.echo(f"\nstopped following: run {run_id} goes on{where}; `tilecensus watch {run_id}` "
                           "follows it", err=True)
                _leave(rounds, exc.exit_status)
        s = look.summary(run_id)
        if app.as_json:
            app.echo_json(render.short(s))
        else:
            click.echo(render.headline(s))
        _leave(rounds, 0 if s["status"] == RunStatus.DONE else 1)


def _leave(rounds: BackgroundRounds | None, status: int) -> None:
    """Exit with ``status`` (returning for 0), without waiting for a round still loading
    or under way (:meth:`BackgroundRounds.leave`)."""
    if rounds is not None:
        rounds.leave(status)
    if status:
        sys.exit(status)


@cli.command()
@click.argument("run_id", type=int)
@_workers_option
@click.option("--executor", type=click.Choice([e.value for e in ExecutorKind]), help="default: the run's own")
@db_option
@broker_option
@json_option
@progress_option
@click.pass_obj
def resume(app: App, run_id: int, workers: int, executor: str | None) -> None:
    """Finish an interrupted, cancelled or stalled run."""
    from sqlalchemy import update

    from ..ledger import progress, revive_run
    from ..models import Run
    from ..celery_executor import CeleryExecutor
    from ..local_pool import run_local
    from ..progress import ProgressView
    from ..waiting import LedgerLook

    ledger = app.ledger(existing=True)
    run = revive_run(ledger, run_id)
    if run.status == RunStatus.DONE:
        follow(app, LedgerLook(ledger), run_id, progress=False)
        return
    kind = ExecutorKind(executor or run.executor)
    if kind != run.executor:
        with ledger.session() as session:
            session.execute(update(Run).where(Run.id == run_id).values(executor=str(kind)))
    if kind is ExecutorKind.CELERY:
        celery = CeleryExecutor(app.broker_url)
        celery.check()
        rounds = BackgroundRounds(run_id, lambda: (ledger, celery), outages, lambda line: click.echo(line, err=True),
                                  first=0.0)
        requests = celery.requests
        follow(app, LedgerLook(ledger), run_id, rounds, redis_client=requests.redis if requests is not None else None)
        return
    with interruptible():
        try:
            with ProgressView(run_id, enabled=app.progress_shown) as view:
                run_local(ledger, run_id, workers, step_back=True,
                          on_progress=(lambda: view.update(progress(ledger, run_id))) if view.enabled else None)
        except Interrupted as exc:
            _interrupted(ledger, run_id, exc)
    follow(app, LedgerLook(ledger), run_id, progress=False)


@cli.command()
@click.argument("run_id", type=int)
@db_option
@json_option
@click.pass_obj
def cancel(app: App, run_id: int) -> None:
    """Stop a run: its open subproblems are cancelled, late results refused."""
    from ..ledger import cancel_run, get_run

    ledger = app.ledger(existing=True)
    n = cancel_run(ledger, run_id)
    status = get_run(ledger, run_id).status
    if app.as_json:
        app.echo_json({"run_id": run_id, "status": status, "cancelled_subproblems": n})
    else:
        click.echo(f"run {run_id}: {status} ({render.plural(n, 'open subproblem')} cancelled)")


@cli.command()
@click.argument("run_id", type=int)
@click.option("--interval", type=click.FloatRange(min=0.05), default=1.0, show_default=True, metavar="SECONDS",
              help="seconds between progress updates (the end is shown when it comes)")
@db_option
@json_option
@progress_option
@click.pass_obj
def watch(app: App, run_id: int, interval: float) -> None:
    """Follow a run's progress: finished weight, solutions so far, nodes/s, ETA."""
    from ..waiting import LedgerLook

    direct = app.direct_reads()  # without SQLAlchemy where it can (scheduler.read_direct)
    with contextlib.closing(direct) if direct is not None else contextlib.nullcontext():
        follow(app, direct if direct is not None else LedgerLook(app.ledger(existing=True)), run_id, None, interval)

