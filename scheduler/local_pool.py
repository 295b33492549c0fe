"""The embedded executor: a local process pool solves a run's subproblems, and this
process, the pool's parent, leases them, hands them on in parcels and records the
results (so a SQLite ledger has a single writer).  :func:`run_local` drives a run to its
end; :class:`LocalPool` owns the processes; the parent's loop is :class:`_LocalRun`.
"""
from __future__ import annotations

import multiprocessing
import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any, Callable

from core.errors import PathError

from . import priority
from .batches import pack, seconds_per_weight
from .db import Ledger, after_fork
from .interrupts import HANDOFF_SIGNAL, PoolProcessSignals, hurried_by, release_frames
from .ledger import (
    RunBrief,
    close_run,
    exchange,
    fail_run,
    has_open,
    interrupt_run,
    measured_rate,
    record_results,
    release_leases,
    run_brief,
    run_spec,
    run_status,
)
from .ledger.verifications import MAX_REFUSALS, VerificationTask
from .parent_death import ParentWatch, die_with_parent
from .run_options import Mode, RunOptions
from .states import RunStatus
from .verification import Verdict, judge, solve_again
from .work import Outcome, Task, build_solver, cached_solver, solve_task, worker_name

ProgressHook = Callable[[], None]

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
