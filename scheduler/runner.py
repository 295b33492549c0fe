"""Driving runs to completion.

* :func:`run_local` — the embedded executor: a local process pool solves, this process
  leases and records (so SQLite has a single writer).
* :class:`CeleryExecutor` — sends subproblem ids to a Celery queue, several to a message
  when they are estimated to be quick (:mod:`scheduler.batches`), a message for each
  worker serving the queue (:mod:`scheduler.workforce`); workers lease, solve and record
  themselves (:func:`execute_batch`), then stay on the run, pulling the rest of it from
  the ledger (:mod:`scheduler.ledger.pulls`), and verify the subproblems of a
  ``--verify`` run (:func:`scheduler.verification.execute_verification`).
* :func:`tick` — one round of the scheduler: re-queue expired leases and messages lost by
  the broker, verify what no other worker would take, close finished runs.  Safe to run
  anywhere, any number of times.
"""
from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import threading
import time
from contextlib import nullcontext
from fractions import Fraction
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable, Sequence

from core.errors import PathError

from .batches import (CLUSTER_WORKERS, GUIDED_SHARE, MESSAGE_FLOOR_SECONDS, MESSAGE_SECONDS, message_target, pack,
                      seconds_per_weight)
from .celery_config import SOLVE_TASK_NAME, VERIFY_TASK_NAME, checked_broker_url, make_app
from .ledger import (
    Parcel,
    RunBrief,
    close_run,
    exchange,
    expire_leases,
    fail_run,
    has_open,
    has_pending,
    interrupt_run,
    lease_message,
    lease_one,
    mark_queued,
    measured_rate,
    progress,
    pull,
    record_closing,
    record_results,
    release_leases,
    run_brief,
    run_spec,
    run_status,
    searched_by_others,
    stale_pending,
    unlease,
    weights_of,
)
from .db import Ledger, after_fork, safe_url
from .errors import BrokerError
from .interrupts import HANDOFF_SIGNAL, PoolProcessSignals, hurried_by, release_frames
from . import priority
from .parent_death import ParentWatch, die_with_parent
from .models import Run
from .run_options import ExecutorKind, Mode, RunOptions
from .states import RunStatus
from .ledger import verifications as V
from .verification import Verdict, judge, solve_again, verify_here
from .ledger.verifications import MAX_REFUSALS, VerificationTask
from .work import Outcome, Task, build_solver, cached_solver, is_cached, solve_task, worker_name
from .work_requests import WorkRequests

ProgressHook = Callable[[], None]
_log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- local pool
_POOL: dict[str, Any] = {}
#: how long an interrupted run waits for its pool processes' searches to end: they hear
#: the stop within a fraction of a second (a check every 16,384 nodes).  A process still
#: busy past this is sending a result (a frontier of up to 4 million ids, see
#: ``frontier_cap`` in core/_kernel.c) and is killed: what it was sending is lost, its
#: subproblems stay open, and the resume searches them again
STOP_WAIT = 0.5
#: a pool process with nothing to do asks the busy ones for work once their tasks have
#: run this long (seconds)
HANDOFF_AFTER = 0.02
#: an interrupted run records the results that came unless their frontiers hold more
#: than this many option ids in all: a deep tree's (2,000 new subproblems of 1,000 levels
#: a result on the 200x200 domino board) takes seconds to write.  Those left out keep
#: their subproblems open, searched again by the resume: a task's budget of work each
WIND_DOWN_IDS = 200_000
#: a pool process is handed several subproblems at once (a parcel) while together they
#: are estimated under this many seconds: each hand-over costs the parent a ledger
#: exchange and the process a round trip, a millisecond or so, where most subproblems a
#: budget stop donates take about as long (the pentacube box: half of its 120 took under
#: 1.3 ms, 2026-11-28)
PARCEL_SECONDS = 0.05
#: ... at most this many in one parcel, and the parent leases this many a free slot
PARCEL_MOST = 16
#: while the backlog feeds the pool, the outcomes collected are recorded together once
#: this many wait or the oldest has waited this long (seconds), or at once where one
#: holds a frontier or solutions: an exchange a parcel cost the parent's main thread
#: 80-120 ms of CPU in a 1.6 s run of the pentacube box on two workers (2026-12-01),
#: taken from the searches on a machine with two cores
RECORD_MOST = 256
RECORD_AFTER = 0.25


#: the planner's solver while a pool that inherits it is forked (see :class:`LocalPool`)
_INHERITED: dict[str, Any] = {}


def _pool_init(spec: dict | None, options: RunOptions, parent_pid: int, watch_fds: tuple[int, int]) -> None:
    die_with_parent(parent_pid, *watch_fds)
    after_fork()  # the parent's connections are the parent's
    _POOL.update(spec=spec, options=options, signals=PoolProcessSignals(), solver=_INHERITED.get("solver"))
    # forked with the request for work blocked (a request before its handler would have
    # ended the process); one that came meanwhile is heard now
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {HANDOFF_SIGNAL})


def _pool_solver(run_id: int):
    inherited = _POOL["solver"]
    return inherited if inherited is not None else cached_solver(("local", run_id), _POOL["spec"], _POOL["options"])


def _pool_solve(parcel: list[Task], mode: Mode) -> tuple[list[Outcome], list[Task]]:
    """A parcel's subproblems solved in order: their outcomes, and the ones not started
    because the parent asked for work meanwhile (they go to the idle process)."""
    signals = _POOL["signals"]
    outcomes = []
    for i, task in enumerate(parcel):
        if i and signals.work_asked():
            return outcomes, parcel[i:]
        with signals.searching():
            outcomes.append(solve_task(_pool_solver(task.run_id), task, mode, _POOL["options"]))
    return outcomes, []


def _pool_verify(task: VerificationTask, mode: Mode) -> Verdict | None:
    with _POOL["signals"].searching():
        return solve_again(_pool_solver(task.run_id), task, mode, _POOL["options"])


class LocalPool:
    """The local pool's processes, forked from this process at their first task: they
    inherit the planner's solver (``solver``; without one they build it from ``spec``),
    die with this process (:mod:`scheduler.parent_death`) and hear requests for work
    (:data:`HANDOFF_SIGNAL`).

    Measured and dropped (2026-12-01): forking the pool before the run is written, so
    that the forks and the processes' start would overlap the ledger's writes.  After a
    fork every page this process writes is copied first (copy-on-write): the run's
    creation took 12-19 ms instead of 6-7, and the first search began 33-46 ms after
    the method was chosen instead of 22-32 (the pentacube box on two workers, four runs
    each, alternating)."""

    def __init__(self, workers: int, options: RunOptions, solver: Any = None, spec: dict | None = None):
        self.workers = workers
        self.watch = ParentWatch()
        # the processes fork from this thread: they start with requests for work blocked
        # until their handler is in place (see _pool_init)
        self._mask = signal.pthread_sigmask(signal.SIG_BLOCK, {HANDOFF_SIGNAL})
        _INHERITED.clear()
        if solver is not None:
            _INHERITED["solver"] = solver
        self.executor = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                            initializer=_pool_init,
                                            initargs=(None if solver is not None else spec, options, os.getpid(),
                                                      (self.watch.read_fd, self.watch.write_fd)))
        self._closed = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> Future:
        """Run ``fn(*args)`` in one of the processes (the first call forks them)."""
        return self.executor.submit(fn, *args)

    def signal(self, signum: int) -> None:
        """Send ``signum`` to every process of the pool."""
        # the executor's own record of its processes (pid -> Process); it has no public one
        for pid in list(getattr(self.executor, "_processes", None) or {}):
            try:
                os.kill(pid, signum)
            except ProcessLookupError:  # exited already
                pass

    def kill(self) -> None:
        """SIGKILL every process of the pool.  A result one was sending when it died is
        lost, and the pool's reading thread, in the middle of reading it, would wait for
        the rest for ever: this process holds the writing end of the results' pipe too
        (the executor makes the pipe here), so no end of file comes.  That end is closed
        here: the reader gets its end of file, the pool breaks, and :meth:`close` returns.
        (Seen 2026-12-02: Ctrl-C during ``solve dominoes-200x200``, whose pool processes
        were sending a frontier of 611 MB each when the wait ran out; the command hung.)"""
        self.signal(signal.SIGKILL)
        results = getattr(self.executor, "_result_queue", None)  # (the executor's own; it has no public one)
        writer = getattr(results, "_writer", None)
        if writer is not None:
            writer.close()

    def close(self, wait: bool = True, cancel: bool | None = None) -> None:
        """Shut the processes down (``wait`` for them to exit; ``cancel`` the tasks not
        started, by default when not waiting) and give back what the pool took: the
        inherited solver, the watch pipe, the signal mask."""
        if self._closed:
            return
        self._closed = True
        try:
            self.executor.shutdown(wait=wait, cancel_futures=not wait if cancel is None else cancel)
        finally:
            self.watch.close()
            _INHERITED.clear()
            signal.pthread_sigmask(signal.SIG_SETMASK, self._mask)


class _LocalRun:
    """The parent of the local pool: leases work, hands it to the pool, records results.

    Subproblems go to the pool in parcels (:data:`PARCEL_SECONDS`, sized at the run's
    measured seconds per unit of weight as Celery messages are, :func:`~scheduler.batches.pack`):
    the parent keeps the ones leased but not yet handed on (``backlog``), and a parcel's
    process hands back the ones it has not started when another process asks for work.

    Verifications (``--verify``) go to the pool too; a pool process refuses one it
    recorded itself, and after a few refusals (at once with one process) this process
    solves it — so the verifier is always another process than the recording worker.
    """

    def __init__(self, ledger: Ledger, run: RunBrief, pool: LocalPool, solver: Any = None, step_back: bool = False):
        self.ledger, self.run, self.workers = ledger, run, pool.workers
        self.mode, self.options = run.mode, run.options
        self.sampling = run.sampling
        # a run that verifies a sample hands its subproblems on one by one (as planned),
        # and leases verifications first, one a free slot
        self.parcel_most = PARCEL_MOST if self.sampling is None else 1
        self.lease = self.options.lease_seconds()
        self.owner = f"local:{worker_name()}"
        self.pool = pool
        self.in_flight: dict[Future, list[Task] | VerificationTask] = {}
        self.backlog: list[Task] = []  # leased here, not handed to the pool yet
        self.rate = measured_rate(ledger, run.id)  # seconds per unit of weight (the planning trial's)
        self._solved = (0.0, 0.0)  # seconds and weight done by the pool
        self.submitted: dict[Future, float] = {}
        self.asked = False  # a request for work is out (see _ask_for_work)
        self.outcomes: list[Outcome] = []  # collected, not recorded yet
        self._collected_since = 0.0  # when the oldest of them came
        self.refusals: dict[int, int] = {}
        self.max_refusals = MAX_REFUSALS if self.workers > 1 else 1
        self.failed = False
        # the planner's solver, when given: the pool's processes inherit it (see LocalPool)
        # and start solving at once, instead of rebuilding the problem from the spec (the
        # pentacube box: about 0.1 s each while the other waits)
        self._solver = solver
        self._checked_status = time.monotonic()
        self._stepped_back = not step_back  # (see run_local)
        self._priorities: dict[int, int] = {}  # the threads' nice values before

    def drive(self, on_progress: ProgressHook | None) -> bool:
        """Work until nothing is open (True) or the run stops running (False)."""
        while True:
            if self.failed or not self._still_running():
                record_results(self.ledger, self.outcomes, sampling=self.sampling)
                return False
            got = self._fill()
            if not self.in_flight:
                return True
            if not self._stepped_back:
                self._stepped_back = True
                # the parent's bookkeeping — a ledger exchange a parcel, the pool's own threads
                # reading results — took 0.07-0.09 s of CPU in a 1.3 s run of two processes on
                # two cores (the pentacube box, 2026-11-28), each millisecond from a search
                self._priorities = priority.step_back()
            if not got:
                self._ask_for_work()
            self._collect()
            if on_progress is not None:
                on_progress()

    def _still_running(self) -> bool:
        if time.monotonic() - self._checked_status <= 1.0:
            return True
        self._checked_status = time.monotonic()
        return run_status(self.ledger, self.run.id) == RunStatus.RUNNING

    def _fill(self) -> int:
        """Hand on parcels from the backlog for the room the pool has (two parcels a
        process: one running, one waiting); where it falls short, or recording is due
        (:meth:`_recording_due`), record the outcomes collected and lease more in one
        exchange, and hand those on.  The number of parcels (and verifications) handed on."""
        free = 2 * self.workers - len(self.in_flight)
        now = time.monotonic()
        handed = 0
        if self.sampling is None:  # (a verified run leases its verifications first, in each exchange)
            handed = self._hand_on(free, now)
        if free - handed <= 0 and not self._recording_due(now):
            return handed
        free -= handed
        want = max(0, free * self.parcel_most - len(self.backlog)) if free > 0 else 0
        got = exchange(self.ledger, self.outcomes, self.run.id, self.owner, want, self.lease, self.sampling)
        self.outcomes = []
        self.backlog.extend(got.tasks)
        for verification in got.verifications:
            self._submit(self.pool.submit(_pool_verify, verification, self.mode), verification, now)
        return handed + len(got.verifications) + self._hand_on(free - len(got.verifications), now)

    def _hand_on(self, n: int, now: float) -> int:
        """Up to ``n`` parcels from the backlog handed to the pool; how many."""
        parcels = self._parcels(n)
        for parcel in parcels:
            self._submit(self.pool.submit(_pool_solve, parcel, self.mode), parcel, now)
        return len(parcels)

    def _recording_due(self, now: float) -> bool:
        """Whether the outcomes collected are recorded now although the backlog fed the
        pool: one holds a frontier (its subproblems become leasable only once recorded)
        or solutions, or :data:`RECORD_MOST` are waiting, or the oldest has waited
        :data:`RECORD_AFTER` (the progress shown, and what a crash of this process
        would make the pool search again)."""
        if not self.outcomes:
            return False
        if len(self.outcomes) >= RECORD_MOST or now - self._collected_since >= RECORD_AFTER:
            return True
        return any(o.frontier or o.solutions for o in self.outcomes)

    def _parcels(self, n: int) -> list[list[Task]]:
        """Up to ``n`` parcels from the front of the backlog."""
        if n <= 0 or not self.backlog:
            return []
        packed = pack(range(len(self.backlog)), [t.weight for t in self.backlog], self.rate, PARCEL_SECONDS,
                      self.parcel_most)
        parcels = [[self.backlog[k] for k in ks] for ks in packed[:n]]
        del self.backlog[:sum(len(p) for p in parcels)]
        return parcels

    def _submit(self, fut: Future, item: Task | VerificationTask, now: float) -> None:
        self.in_flight[fut] = item
        self.submitted[fut] = now

    def _ask_for_work(self) -> None:
        """Work stealing: when the ledger has nothing to hand out and a pool process has
        nothing to do (fewer tasks in flight than processes), ask the busy ones to hand
        back their frontier now (:data:`~scheduler.interrupts.HANDOFF_SIGNAL`; the
        search stops within some milliseconds, see :mod:`core.handoff`) rather than at
        the end of their budget.  One request at a time (the next once a result came), and
        none for a task younger than :data:`HANDOFF_AFTER`: its frontier would be
        crumbs.  Not in a run that verifies a sample: its subproblems stay as planned, so
        that the same ``--verify-seed`` samples the same ones every time."""
        if self.asked or self.sampling is not None or len(self.in_flight) >= self.workers:
            return
        now = time.monotonic()
        # a parcel holding more than one subproblem hands back the rest at once
        if not any(isinstance(item, list) and (len(item) > 1 or now - self.submitted[fut] >= HANDOFF_AFTER)
                   for fut, item in self.in_flight.items()):
            return
        self.asked = True
        self.pool.signal(HANDOFF_SIGNAL)

    def _collect(self) -> None:
        timeout = HANDOFF_AFTER if len(self.in_flight) < self.workers and not self.asked else 0.25
        done, _ = wait(self.in_flight, timeout=timeout, return_when=FIRST_COMPLETED)
        for fut in done:
            item = self.in_flight.pop(fut)
            self.submitted.pop(fut, None)
            self.asked = False
            if isinstance(item, VerificationTask):
                self._verified(item, self._result(fut, f"verification of subproblem {item.sub_id}"))
            else:
                outcomes, unstarted = self._result(fut, _subproblems(item))
                self._solved_by_pool(outcomes)
                self.backlog[:0] = unstarted

    def _solved_by_pool(self, outcomes: list[Outcome]) -> None:
        """Outcomes to record; the run's seconds per unit of weight measured on them."""
        if not self.outcomes:
            self._collected_since = time.monotonic()
        self.outcomes.extend(outcomes)
        seconds, weight = self._solved
        seconds += sum(o.seconds for o in outcomes)
        weight += sum(float(o.weight_done) for o in outcomes)
        self._solved = (seconds, weight)
        self.rate = seconds_per_weight(seconds, weight) or self.rate

    def _result(self, fut: Future, what: str) -> Any:
        try:
            return fut.result()
        except (PathError, ValueError, OverflowError) as exc:
            fail_run(self.ledger, self.run.id, f"{what}: {exc}")
            raise

    def _verified(self, task: VerificationTask, verdict: Verdict | None) -> None:
        if verdict is None:  # the pool process that recorded it
            self.refusals[task.sub_id] = self.refusals.get(task.sub_id, 0) + 1
            if self.refusals[task.sub_id] < self.max_refusals:
                self.in_flight[self.pool.submit(_pool_verify, task, self.mode)] = task
                return
            verdict = solve_again(self._own_solver(), task, self.mode, self.options)
        if judge(self.ledger, verdict, self.mode) is not None:
            self.failed = True

    def _own_solver(self):
        if self._solver is None:
            _, self._solver = build_solver(run_spec(self.ledger, self.run.id), self.options)
        return self._solver

    def stop(self, wait_for_pool: bool, cancel: bool | None = None) -> None:
        """Close the pool (see :meth:`LocalPool.close`) and set the threads' priorities back."""
        if not wait_for_pool:
            for fut in self.in_flight:
                fut.cancel()
        try:
            self.pool.close(wait=wait_for_pool, cancel=cancel)
        finally:
            priority.restore(self._priorities)

    def wind_down(self) -> None:
        """Interrupted: hand out nothing more, ask the pool processes to stop (their
        search ends with SearchStopped within a second), record the results that came
        meanwhile, and wait for the processes to exit (killed past :data:`STOP_WAIT`)."""
        for fut in self.in_flight:
            fut.cancel()
        self.pool.signal(signal.SIGTERM)
        running = {fut: item for fut, item in self.in_flight.items() if not fut.cancelled()}
        _, late = wait(running, timeout=STOP_WAIT)
        for fut, item in running.items():
            if fut not in late and isinstance(item, list) and fut.exception() is None:
                self.outcomes.extend(fut.result()[0])
        if late:
            self.pool.kill()
        record_results(self.ledger, _within(self.outcomes, WIND_DOWN_IDS), sampling=self.sampling)
        self.outcomes = []
        self.stop(wait_for_pool=True, cancel=True)

    def hurry(self) -> None:
        """A second signal while winding down: kill the pool processes now."""
        self.pool.kill()


def _within(outcomes: list[Outcome], ids: int) -> list[Outcome]:
    """The outcomes, in order, while their frontiers' paths hold at most ``ids`` ids in all."""
    kept = []
    for outcome in outcomes:
        ids -= sum(len(sub.path) for sub in outcome.frontier)
        if ids < 0:
            break
        kept.append(outcome)
    return kept


def _subproblems(parcel: list[Task]) -> str:
    """A parcel's subproblems, for a message."""
    ids = [t.sub_id for t in parcel]
    return f"subproblem {ids[0]}" if len(ids) == 1 else f"subproblems {', '.join(map(str, ids))}"


def run_local(ledger: Ledger, run_id: int, workers: int, on_progress: ProgressHook | None = None, *,
              solver: Any = None, step_back: bool = False) -> bool:
    """Solve a run's open subproblems (and verifications) on ``workers`` processes until
    none is left; close the run.  Returns False when the run was cancelled or failed
    meanwhile.  ``solver``: the run's solver, already built by the planner in this
    process (the pool's processes inherit it).  ``step_back``: once the pool runs, this
    process's threads yield the CPU to it (:func:`scheduler.priority.step_back`; for a command
    that ends with the run: a nice value cannot always be taken back).  A KeyboardInterrupt
    (:class:`scheduler.interrupts.Interrupted`) winds it down — results that came
    recorded, the pool stopped, leases released, the run marked ``interrupted`` — and goes
    on up."""
    release_leases(ledger, run_id)  # this process takes the run over
    if not has_open(ledger, run_id):  # planning finished it (or a resume finds it done): no pool
        close_run(ledger, run_id)
        if on_progress is not None:
            on_progress()
        return True
    with ledger.engine.connect() as conn:
        run = run_brief(conn, run_id)
    if run is None:  # cancelled or failed meanwhile
        return False
    # the spec, for processes that build the solver (a resumed run): not read when inherited
    pool = LocalPool(workers, run.options, solver, None if solver is not None else run_spec(ledger, run_id))
    driver = _LocalRun(ledger, run, pool, solver, step_back)
    with hurried_by(driver.hurry):
        try:
            finished = driver.drive(on_progress)
        except KeyboardInterrupt as exc:
            release_frames(exc)
            driver.wind_down()
            release_leases(ledger, run_id)
            interrupt_run(ledger, run_id)
            raise
        except BaseException:
            driver.stop(wait_for_pool=False)
            release_leases(ledger, run_id)
            raise
    if not finished:
        driver.stop(wait_for_pool=False)
        return False
    # every result is recorded: the run closes before the pool's processes have exited
    # (which takes them 5-6 ms that the run's time need not count)
    try:
        close_run(ledger, run_id)
    finally:
        driver.stop(wait_for_pool=True)
    if on_progress is not None:
        on_progress()
    return True


# ----------------------------------------------------------------------------- Celery
class CeleryExecutor:
    """Sends subproblems to a Celery queue (Redis) by task name; no import of ``worker``."""

    def __init__(self, url: str | None = None):
        self.url = checked_broker_url(url)
        self.app = make_app(self.url, name="tilecensus-sender")
        self._requests: WorkRequests | None | bool = False  # not made yet

    @property
    def requests(self) -> WorkRequests | None:
        """This process's requests for work over the broker (None without Redis), made on
        first use: only workers ask and listen."""
        if self._requests is False:
            self._requests = WorkRequests.for_broker(self.url)
        return self._requests  # type: ignore[return-value]

    def check(self, queue: str | None = None) -> None:
        """Raise :class:`BrokerError` when the broker does not answer.  The connection
        stays in the app's pool for the first message, and with ``queue`` that queue is
        declared and Celery's sending side loaded: ``submit``'s first message went out
        30 ms after the run was written, 5-8 ms once these were done before its planning
        (2026-11-28)."""
        try:
            with self.app.producer_or_acquire() as producer:
                producer.connection.ensure_connection(max_retries=1, interval_start=0.2, interval_step=0.2, timeout=3)
                if queue is not None:
                    producer.maybe_declare(self.app.amqp.queues[queue])
        except Exception as exc:  # kombu raises a variety of OSError / OperationalError types
            raise self._unreachable(exc) from exc
        self.app.backend  # noqa: B018 -- loaded on the first message otherwise (16 ms)

    def workforce(self, queue: str) -> int | None:
        """The worker processes serving ``queue`` now, as they announced themselves
        (:mod:`scheduler.workforce`); None where none did, or the broker is not Redis.
        Raises :class:`BrokerError` when the broker does not answer."""
        import redis

        from .workforce import workforce

        requests = self.requests
        if requests is None:
            return None
        try:
            return workforce(requests.redis, queue) or None
        except redis.RedisError as exc:
            raise self._unreachable(exc) from exc

    def hosts(self, queue: str) -> int:
        """The machines of the worker processes serving ``queue`` (1 where none announced)."""
        import redis

        from .workforce import workforce_hosts

        requests = self.requests
        if requests is None:
            return 1
        try:
            return workforce_hosts(requests.redis, queue) or 1
        except redis.RedisError as exc:
            raise self._unreachable(exc) from exc

    def _unreachable(self, exc: BaseException) -> BrokerError:
        """The broker did not answer: the one line a command prints."""
        return BrokerError(f"cannot reach the broker {safe_url(self.url)}: {str(exc).splitlines()[0]}")

    @property
    def outage_errors(self) -> tuple[type[BaseException], ...]:
        """What sending or sizing a queue raises while the broker is down or restarting:
        kombu's own ``OperationalError`` and the transport's connection errors, which kombu
        passes through unwrapped in places (redis-py's are not ``OSError``).  A caller that
        waits an outage out catches these and nothing broader."""
        from kombu.exceptions import OperationalError as BrokerDown

        with self.app.connection_for_write() as conn:  # no network: the transport's classes only
            known = (*conn.connection_errors, *conn.channel_errors)
        return tuple(dict.fromkeys(e for e in (BrokerDown, *known) if e is not KeyError))

    def dispatch(self, run_id: int, sub_ids: Sequence[int], queue: str, ledger: Ledger | None = None, *,
                 weights: Sequence[Fraction] | None = None, rate: float | None = None,
                 target: float = MESSAGE_SECONDS, share: int | None = None,
                 at_most: int | None = None) -> list[list[int]]:
        """Stamp the subproblems as queued (when given the ledger), then send them packed
        into messages by their estimated seconds (:func:`scheduler.batches.pack`: weight
        x ``rate`` up to ``target`` a message, guided by ``share``, the workers the run
        was planned for; no ``weights`` or ``rate``: one each) — the first ``at_most``
        messages only, where the workers pull the rest from the ledger
        (:func:`execute_batch`).  Returns the messages sent."""
        if not sub_ids:
            return []
        if ledger is not None:
            mark_queued(ledger, sub_ids)
        messages = pack(sub_ids, weights if weights is not None else [0] * len(sub_ids),
                        rate if weights is not None else None, target, share=share)[:at_most]
        self._send(SOLVE_TASK_NAME, [[run_id, m] for m in messages], queue)
        if self._requests:  # a worker: one of this run's may be waiting for work
            self._requests.fed(run_id)
        return messages

    def invite(self, run_id: int, queue: str) -> None:
        """Send a message of run ``run_id`` with no subproblems: its worker pulls the run's
        pending ones from the ledger (:func:`execute_batch`)."""
        self._send(SOLVE_TASK_NAME, [[run_id, []]], queue)

    def dispatch_verifications(self, run_id: int, sub_ids: Sequence[int], queue: str, ledger: Ledger | None = None) -> None:
        """Send the verifications of these subproblems (stamped as queued when given the ledger)."""
        if not sub_ids:
            return
        if ledger is not None:
            with ledger.engine.begin() as conn:
                V.mark_verifications_queued(conn, sub_ids)
        self._send(VERIFY_TASK_NAME, [[run_id, sub_id] for sub_id in sub_ids], queue)

    def _send(self, name: str, messages: Sequence[list], queue: str) -> None:
        """One message per argument list, over one producer.

        Right after the broker restarts, kombu's Redis transport may publish on a channel
        whose connection it has already dropped, and fails inside kombu with an
        ``AttributeError`` (``'NoneType' object has no attribute 'client'``; seen
        2026-12-02 in the Redis-restart test, where it ended the scheduler).  That is the
        outage it is: the producers and connections pooled are closed, so that the next
        send connects afresh, and kombu's ``OperationalError`` is raised from it, which
        callers that wait an outage out know (:attr:`outage_errors`)."""
        try:
            with self.app.producer_or_acquire() as producer:
                for args in messages:
                    self.app.send_task(name, args=args, queue=queue, producer=producer)
        except AttributeError as exc:
            if not _raised_in_kombu(exc):
                raise
            from kombu.exceptions import OperationalError as BrokerDown

            self.app.producer_pool.force_close_all()
            self.app.pool.force_close_all()
            raise BrokerDown(f"the broker's connection closed under a message ({exc})") from exc

    def queue_size(self, queue: str) -> int:
        """The messages waiting in ``queue``, asked over a connection of the app's pool: a
        worker waiting for work asks every :data:`~scheduler.work_requests.POLL_SECONDS`,
        and a new connection each time cost 3 ms of its CPU (a 16 s run on two workers:
        0.19 s).  A connection that failed is closed before it goes back to the pool (its
        next user connects again)."""
        with self.app.pool.acquire(block=True) as conn:
            try:
                return int(conn.default_channel.queue_declare(queue=queue, passive=False).message_count)
            except BaseException:
                conn.collect()
                raise


def _raised_in_kombu(exc: BaseException) -> bool:
    """Whether ``exc`` was raised by kombu's own code (its innermost frame's module)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and str(tb.tb_frame.f_globals.get("__name__", "")).startswith("kombu.")


#: the results of quick subproblems in one message are recorded together, once this much
#: solving is unrecorded (one transaction instead of one each; a crash loses at most this)
RECORD_SECONDS = 0.2


def execute_batch(ledger: Ledger, run_id: int, sub_ids: Sequence[int], executor: CeleryExecutor | None, *,
                  clock: Callable[[], float] = time.monotonic) -> list[str]:
    """A worker's message of run ``run_id``: the subproblems ``sub_ids``, leased together
    and solved in order, results recorded exactly once, quick ones together
    (:data:`RECORD_SECONDS`).  Returns what happened to each.

    Where the run pulls (:func:`_pulls`), the worker then stays on it: it trades its
    results for the next parcel of the run's pending subproblems
    (:func:`scheduler.ledger.pull`) until none is left, and then asks the workers still
    searching for part of their work (:mod:`scheduler.work_requests`), which they leave
    in the ledger for it to pull.  After :data:`~scheduler.batches.MESSAGE_SECONDS` on
    the run it hands back what it has not started, invites a worker back to the run (a
    message with no subproblems) and returns to the queue, so that other runs' messages
    get their turn.  Where the run does not pull (a verified run, ``--first``), the
    message's unstarted subproblems are sent back to the queue once
    :func:`scheduler.batches.message_target` seconds have passed."""
    owner = f"celery:{worker_name()}"
    run, tasks = lease_message(ledger, run_id, sub_ids, owner)
    if run is None:  # finished, cancelled or failed meanwhile: nothing to do
        return ["skipped"] * len(sub_ids)
    results = _Results(ledger, run, executor)
    requests = _requests(executor, run)
    pulls = _pulls(executor, run)
    limit = MESSAGE_SECONDS if pulls else message_target(run.options.task_seconds)
    rest = _Unstarted(tasks)

    def give_rest() -> bool:  # here, or in the listening thread during a search
        if executor is None:  # no queue to hand them back to
            return False
        given = rest.take_all()
        if not given:
            return False
        try:
            unlease(ledger, [t.sub_id for t in given], owner)
            if pulls:  # left in the ledger for whoever pulls next; a waiting worker is woken
                if requests is not None:
                    requests.fed(run_id)
            else:
                executor.dispatch(run_id, [t.sub_id for t in given], run.options.queue_name, ledger,
                                  weights=[t.weight for t in given], rate=results.rate, target=limit,
                                  share=run.options.workers)
        except BaseException:
            rest.put_back(given)
            raise
        results.happened.update((t.sub_id, "handed back") for t in given)
        return True

    started = clock()
    closed = timed_out = False
    with requests.serving(run_id, give_rest) if requests is not None else nullcontext():
        while True:
            while rest.left:
                if rest.started and executor is not None:
                    timed_out = clock() - started >= limit
                    if timed_out or (requests is not None and requests.asked()):
                        give_rest()
                        break
                task = rest.take()
                if task is None:  # the listening thread handed them back meanwhile
                    break
                if requests is not None:
                    requests.holding(rest.left)
                results.add(_solve(ledger, _solver_of(ledger, run), task, run, requests))
            if not pulls:
                break
            if timed_out or clock() - started >= limit:
                timed_out = True
                break
            parcel, closed = results.pull(owner)
            if closed:
                break
            if parcel:
                rest = rest.refilled(parcel)
                if requests is not None:
                    requests.answered()
                continue
            if requests is None:
                break
            if _wait_for_work(ledger, executor, run, owner) != "pullable":
                break
        if not closed:
            closed = results.flush(closing=True)  # the message may have held the run's last open subproblems
    if rest.left:  # a hand-back from the listening thread failed, and put them back: once more, here
        give_rest()
    if pulls and timed_out and not closed:  # back to the queue: a worker is invited back to the run
        executor.invite(run_id, run.options.queue_name)
    return [results.happened.get(sub_id, "skipped") for sub_id in sub_ids]


def pulls_from_ledger(mode: Mode, verified: bool) -> bool:
    """Whether the Celery workers of a run stay on it, pulling its pending subproblems
    from the ledger (:func:`execute_batch`): not for ``--first`` (the run is its root
    alone) nor a verified run (its subproblems stay as planned, the messages that carry
    them too: the same seed samples the same ones)."""
    return mode is not Mode.FIRST and not verified


def _pulls(executor: CeleryExecutor | None, run: RunBrief) -> bool:
    """:func:`pulls_from_ledger` for a worker with a queue to invite a worker back on."""
    return executor is not None and pulls_from_ledger(run.mode, run.sampling is not None)


class _Unstarted:
    """The subproblems of a message (or of a parcel pulled after it) not started yet, in
    order: the message's loop takes them one at a time; a request for work takes all that
    are left at once — from the listening thread while a search runs
    (:mod:`scheduler.work_requests`)."""

    def __init__(self, tasks: Sequence[Task]):
        self._tasks = list(tasks)
        self._next = 0          # tasks before it are started, or handed back
        self.started = 0        # how many the loop took
        self._lock = threading.Lock()

    @property
    def left(self) -> int:
        return len(self._tasks) - self._next

    def take(self) -> Task | None:
        with self._lock:
            if self._next == len(self._tasks):
                return None
            self._next += 1
            self.started += 1
            return self._tasks[self._next - 1]

    def take_all(self) -> list[Task]:
        with self._lock:
            given, self._next = self._tasks[self._next:], len(self._tasks)
            return given

    def put_back(self, given: list[Task]) -> None:
        """Undo a :meth:`take_all` whose hand-back failed."""
        with self._lock:
            self._next -= len(given)

    def refilled(self, tasks: Sequence[Task]) -> "_Unstarted":
        """The next parcel in place of this spent one (the same object: the listening
        thread's ``give_rest`` holds it), started ones counted on."""
        with self._lock:
            self._tasks, self._next = list(tasks), 0
        return self


def _requests(executor: CeleryExecutor | None, run: RunBrief) -> WorkRequests | None:
    """The requests for work of a run: none without Redis, and none in a run that verifies
    a sample (its subproblems stay as planned: the same seed samples the same ones)."""
    return None if executor is None or run.sampling is not None else executor.requests


def _wait_for_work(ledger: Ledger, executor: CeleryExecutor, run: RunBrief, owner: str) -> str:
    """Work stealing once nothing of the run is pending (:mod:`scheduler.work_requests`):
    while the run's queue is empty and another worker searches, ask for part of its
    subproblem; the waiting ends — ``"pullable"`` — once the run has pending subproblems
    in the ledger again, for the worker to pull (:func:`execute_batch`)."""
    queue = run.options.queue_name

    def others_searching() -> bool:
        with ledger.engine.connect() as conn:
            return searched_by_others(conn, run.id, owner)

    def pending() -> bool:
        with ledger.engine.connect() as conn:
            return has_pending(conn, run.id)

    import redis

    try:
        return executor.requests.wait_for_work(run.id, owner, lambda: executor.queue_size(queue), others_searching,
                                               pullable=pending)
    except (redis.RedisError, *executor.outage_errors) as exc:  # the message is done; asking is a bonus
        _log.warning("run %s: no request for work (the broker: %s)", run.id, str(exc).splitlines()[0])
        return "broker away"


class _Results:
    """The outcomes of one message, recorded a few at a time: at once for one that donates
    (its children should reach other workers now), else once :data:`RECORD_SECONDS` of
    solving are unrecorded, and at the end.

    Measured and dropped (2026-11-28): writing them from a thread of their own while the
    worker goes on to its next message — no gain out of the noise (B/A 0.934, then
    1.035) for a weaker guarantee (a message acknowledged before its results are
    written); docs/performance.md, "Distributed runs"."""

    def __init__(self, ledger: Ledger, run: RunBrief, executor: CeleryExecutor | None):
        self.ledger, self.run, self.executor = ledger, run, executor
        self.outcomes: list[Outcome] = []
        self.unrecorded = 0.0
        self.seconds, self.weight_done = 0.0, Fraction(0)
        self.happened: dict[int, str] = {}

    @property
    def rate(self) -> float | None:
        """Seconds per unit of weight, measured over this message so far."""
        return seconds_per_weight(self.seconds, self.weight_done)

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)
        self.unrecorded += outcome.seconds
        self.seconds += outcome.seconds
        self.weight_done += outcome.weight_done
        if outcome.frontier or self.unrecorded >= RECORD_SECONDS:
            self.flush()

    def pull(self, owner: str) -> tuple[list[Task], bool]:
        """Record the outcomes held and lease the run's next parcel
        (:func:`scheduler.ledger.pull`), sized by guided self-scheduling for the workers
        the run was planned for, at the rate measured here: its tasks, and whether this
        closed the run (nothing was pending, nothing is open)."""
        options = self.run.options
        parcel = Parcel.of_seconds(options.workers or GUIDED_SHARE, self.rate, message_target(options.task_seconds),
                                   MESSAGE_FLOOR_SECONDS, heaviest_first=self.run.mode is Mode.COUNT)
        pulled = pull(self.ledger, self.run.id, owner, self.outcomes, parcel, options.lease_seconds())
        self._recorded(pulled.recorded)
        return pulled.tasks, pulled.closed

    def flush(self, closing: bool = False) -> bool:
        """Record the outcomes held; ``closing`` (the message's end): and close the run,
        in the same transaction, if nothing of it is open any more — when this message
        recorded anything.  Whether the run was closed here."""
        closed = False
        if closing and (self.outcomes or "recorded" in self.happened.values()):
            recorded, closed = record_closing(self.ledger, self.run.id, self.outcomes, queued=True,
                                              sampling=self.run.sampling)
        elif self.outcomes:
            recorded = record_results(self.ledger, self.outcomes, queued=True, sampling=self.run.sampling)
        else:
            return False
        self._recorded(recorded)
        return closed

    def _recorded(self, recorded: list[list[int] | None]) -> None:
        """The outcomes held are recorded (``recorded``: what each wrote): their donated
        frontiers sent on, the outcomes let go."""
        for outcome, children in zip(self.outcomes, recorded):
            self.happened[outcome.sub_id] = "duplicate" if children is None else "recorded"
            if children is not None:
                _send_on(self.executor, self.run, outcome, children)
        self.outcomes, self.unrecorded = [], 0.0


def execute_one(ledger: Ledger, sub_id: int, executor: CeleryExecutor | None) -> str:
    """One subproblem, by itself: lease, solve, record (exactly once), send the donated
    frontier and a sampled verification on, close the run when it was the last.  Returns
    what happened."""
    leased = lease_one(ledger, sub_id, f"celery:{worker_name()}")
    if leased is None:
        return "skipped"
    task, run = leased
    outcome = _solve(ledger, _solver_of(ledger, run), task, run, _requests(executor, run))
    (children,), _ = record_closing(ledger, run.id, [outcome], queued=True, sampling=run.sampling)
    if children is None:
        return "duplicate"
    _send_on(executor, run, outcome, children)
    return "recorded"


def _solver_of(ledger: Ledger, run: RunBrief):
    """The run's solver, built once per process for each problem and solver options (the
    spec is read only the first time): a warm worker starts the next run of the same
    problem at once, where building it took 0.1-0.3 s (the pentacube box: compiling,
    the symmetry group, the orbit anchors)."""
    key = ("problem", run.spec_hash, repr(run.options.solver))
    return cached_solver(key, None if is_cached(key) else run_spec(ledger, run.id), run.options)


def _solve(ledger: Ledger, solver, task: Task, run: RunBrief, requests: WorkRequests | None = None) -> Outcome:
    """Solve a leased subproblem (handing back its frontier early when another worker
    asks for work, through ``requests``); a path the solver rejects fails the run."""
    try:
        if requests is None:
            return solve_task(solver, task, run.mode, run.options)
        with requests.searching(run.id):
            return solve_task(solver, task, run.mode, run.options)
    except (PathError, ValueError, OverflowError) as exc:
        fail_run(ledger, run.id, f"subproblem {task.sub_id}: {exc}")
        raise


def _send_on(executor: CeleryExecutor | None, run: RunBrief, outcome: Outcome, children: list[int]) -> None:
    """After a result is recorded: its donated frontier — left in the ledger for the run's
    workers to pull, the waiting ones woken, or (a run that does not pull) sent packed at
    the donating subproblem's measured rate — and its verification when sampled."""
    if executor is None:
        return
    queue = run.options.queue_name
    if _pulls(executor, run):  # left in the ledger for whoever pulls next; a waiting worker is woken
        if children and executor.requests is not None:
            executor.requests.fed(run.id)
    else:
        executor.dispatch(run.id, children, queue, weights=[s.weight for s in outcome.frontier],
                          rate=seconds_per_weight(outcome.seconds, outcome.weight_done),
                          target=message_target(run.options.task_seconds), share=run.options.workers)
    if V.wants_verification(run.sampling, outcome):
        executor.dispatch_verifications(run.id, [outcome.sub_id], queue)


def running_runs(ledger: Ledger, executor: ExecutorKind = ExecutorKind.CELERY, run_ids: Sequence[int] | None = None) -> list[Run]:
    from sqlalchemy import select

    with ledger.session() as session:
        q = select(Run).where(Run.status == RunStatus.RUNNING, Run.executor == executor)
        if run_ids is not None:
            q = q.where(Run.id.in_(list(run_ids)))
        runs = list(session.scalars(q))
        for r in runs:
            session.expunge(r)
        return runs


def tick(ledger: Ledger, executor: CeleryExecutor, *, grace: float = 10.0, run_ids: Sequence[int] | None = None) -> dict:
    """One scheduler round over the running Celery runs; returns what it did."""
    did = {"requeued": 0, "resent": 0, "verified": 0, "closed": 0}
    sizes: dict[str, int] = {}

    def idle(queue: str) -> bool:  # the broker is asked once a round, and only when it matters
        if queue not in sizes:
            sizes[queue] = executor.queue_size(queue)
        return sizes[queue] == 0

    for run in running_runs(ledger, ExecutorKind.CELERY, run_ids):
        options = RunOptions.from_json(run.options)
        queue = options.queue_name
        expired = expire_leases(ledger, run.id)
        _send_again(ledger, executor, run, expired, options)
        did["requeued"] += len(expired)
        lost = stale_pending(ledger, run.id, grace)
        if lost and idle(queue) and not _worked_on(ledger, run):
            _send_again(ledger, executor, run, lost, options)
            did["resent"] += len(lost)
        if run.verify_fraction:
            _tick_verifications(ledger, executor, run, queue, grace, idle(queue), did)
        if close_run(ledger, run.id):
            did["closed"] += 1
    return did


def _worked_on(ledger: Ledger, run: Run) -> bool:
    """Whether a worker is on a run that pulls (:func:`pulls_from_ledger`): one that holds
    a live lease pulls the run's pending subproblems itself, however long they have
    waited in the ledger, so they are not sent again."""
    if not pulls_from_ledger(Mode(run.mode), bool(run.verify_fraction)):
        return False
    with ledger.engine.connect() as conn:
        return searched_by_others(conn, run.id, None)


def _send_again(ledger: Ledger, executor: CeleryExecutor, run: Run, sub_ids: Sequence[int],
                options: RunOptions) -> None:
    """Send subproblems again (expired leases, lost messages, a resumed run), packed at
    the rate the run has shown so far — for a run that pulls, a message for each worker
    it was planned for: they pull the rest."""
    if not sub_ids:
        return
    with ledger.engine.connect() as conn:
        weights = weights_of(conn, sub_ids)
    pulls = pulls_from_ledger(Mode(run.mode), bool(run.verify_fraction))
    executor.dispatch(run.id, sub_ids, options.queue_name, ledger, weights=weights,
                      rate=measured_rate(ledger, run.id), target=message_target(options.task_seconds),
                      share=options.workers, at_most=(options.workers or CLUSTER_WORKERS) if pulls else None)


def _tick_verifications(ledger: Ledger, executor: CeleryExecutor, run: Run, queue: str, grace: float, idle: bool,
                 did: dict) -> None:
    """The verifications' share of a scheduler round: re-queue expired leases and lost
    messages, and solve here the ones that kept reaching the worker that recorded them."""
    with ledger.engine.begin() as conn:
        expired = V.expire_verifications(conn, run.id)
        lost = V.stale_verifications(conn, run.id, grace) if idle else []
        orphans = V.orphan_verifications(conn, run.id)
    executor.dispatch_verifications(run.id, sorted(set(expired) | set(lost)), queue, ledger)
    did["requeued"] += len(expired)
    did["resent"] += len(set(lost) - set(expired))
    owner = f"scheduler:{worker_name()}"
    did["verified"] += sum(verify_here(ledger, sub_id, owner) in ("verified", "mismatch") for sub_id in orphans)


def follow(
    ledger: Ledger,
    run_id: int,
    update: Callable[[Any], None] | None = None,
    *,
    interval: float = 1.0,
    each: Callable[[], None] | None = None,
    each_every: float = 5.0,
    each_first: bool = True,
    timeout: float | None = None,
) -> str:
    """Wait until a run is no longer running; returns its status.  Each round (every
    ``interval`` seconds) asks the ledger one thing: the run's status, or — when
    ``update`` shows it — its progress.  ``each`` (e.g. a scheduler tick) runs every
    ``each_every`` seconds, the first time at once (``each_first``) or after that long,
    so waiting costs next to no CPU."""
    started = time.monotonic()
    next_each = started if each_first else started + each_every
    while True:
        if each is not None and time.monotonic() >= next_each:
            each()
            next_each = time.monotonic() + each_every
        if update is not None:
            p = progress(ledger, run_id)
            update(p)
            status = p.status
        else:
            status = run_status(ledger, run_id)
        if status != RunStatus.RUNNING:
            return status
        if timeout is not None and time.monotonic() - started > timeout:
            return status
        time.sleep(interval)
