"""A Celery worker's messages: :func:`execute_batch` leases a message's subproblems,
solves them, records each result exactly once, then stays on the run, pulling the rest
of it from the ledger (:mod:`scheduler.ledger.pulls`) and asking the workers still
searching for part of theirs (:mod:`scheduler.work_requests`); :func:`execute_one`
solves one subproblem by itself.  (A ``--verify`` run's verifications:
:func:`scheduler.verification.execute_verification`.)
"""
from __future__ import annotations

import logging
import threading
import time
from contextlib import nullcontext
from fractions import Fraction
from typing import Callable, Sequence

from core.errors import PathError

from .batches import GUIDED_SHARE, MESSAGE_FLOOR_SECONDS, MESSAGE_SECONDS, message_target, seconds_per_weight
from .celery_executor import CeleryExecutor
from .db import Ledger
from .ledger import (
    Parcel,
    RunBrief,
    fail_run,
    lease_message,
    lease_one,
    pending_and_searched,
    pull,
    record_closing,
    record_results,
    run_spec,
    unlease,
)
from .ledger import verifications as V
from .pulling import pulls_from_ledger
from .round_trips import ROUND_TRIPS
from .run_options import Mode
from .work import Outcome, Task, cached_keys, cached_solver, is_cached, solve_task, worker_name
from .work_requests import WorkRequests

_log = logging.getLogger(__name__)


#: the results of quick subproblems in one message are recorded together, once this much
#: solving is unrecorded (one transaction instead of one each; a crash loses at most this)
#: — or :data:`RECORD_TRIPS` of the ledger's round trips, where that is longer
RECORD_SECONDS = 0.2
#: ... so that a worker far from its ledger spends at most about 1/20 of its time
#: recording (one round trip a record on PostgreSQL): at 20 ms one way, a record every
#: 0.9 s of solving rather than every 0.2 s, when one took 0.16-0.2 s (2026-12-07)
RECORD_TRIPS = 20
#: a pulled parcel is not sized under this many of the ledger's round trips (nor under
#: :data:`~scheduler.batches.MESSAGE_FLOOR_SECONDS`): a pull costs one
FLOOR_TRIPS = 10


def record_seconds() -> float:
    """How much solving a worker holds unrecorded: :data:`RECORD_SECONDS`, or
    :data:`RECORD_TRIPS` round trips to the ledger as this process measured them."""
    return ROUND_TRIPS.at_least(RECORD_SECONDS, RECORD_TRIPS)


def parcel_floor() -> float:
    """The least a pulled parcel is sized to, in seconds: :data:`MESSAGE_FLOOR_SECONDS`,
    or :data:`FLOOR_TRIPS` round trips to the ledger as this process measured them."""
    return ROUND_TRIPS.at_least(MESSAGE_FLOOR_SECONDS, FLOOR_TRIPS)


def execute_batch(ledger: Ledger, run_id: int, sub_ids: Sequence[int], executor: CeleryExecutor | None, *,
                  clock: Callable[[], float] = time.monotonic) -> list[str]:
    """A worker's message of run ``run_id``: the subproblems ``sub_ids``, leased together
    and solved in order, results recorded exactly once, quick ones together
    (:func:`record_seconds`).  Returns what happened to each.

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
    run, tasks = lease_message(ledger, run_id, sub_ids, owner, known_specs=_known_specs())
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

    deadline = clock() + limit
    closed = timed_out = False
    prefetch: _InThread | None = None
    queue_look: _InThread | None = None

    def time_is_up() -> bool:
        """Whether the worker's time on the run (or the message's) is up: ``limit``
        seconds passed — and, for a worker staying on its run, a message waits on the
        queue (with none waiting it stays another ``limit``: a round through the queue
        costs its hand-back, an invitation, Celery's hand-over and a lease, 2.5 s at
        50 ms from the ledger and the broker, measured 2026-12-07).  Far from the broker
        the queue is looked at from a thread (its first look opens a connection: six
        round trips), the worker searching on meanwhile."""
        nonlocal deadline, queue_look
        if clock() < deadline:
            return False
        if not pulls or requests is None:
            return True
        if queue_look is None:
            queue_look = _InThread(lambda: _messages_wait(executor, run), "queue")
        if in_threads() and not queue_look.done():
            return False
        waiting, queue_look = queue_look.result(), None
        if waiting:
            return True
        deadline = clock() + limit
        return False

    with requests.serving(run_id, give_rest) if requests is not None else nullcontext():
        while True:
            while rest.left:
                if rest.started and executor is not None:
                    timed_out = time_is_up()
                    if timed_out or (requests is not None and requests.asked()):
                        give_rest()
                        break
                task = rest.take()
                if task is None:  # the listening thread handed them back meanwhile
                    break
                if requests is not None:
                    requests.holding(rest.left)
                # the solver first: where the lease did not bring the spec (SQLite, or other solver
                # options), a run's first message reads it on the pooled connection, one round trip,
                # before the pulling thread takes that connection (beside it, the read opened a
                # connection of its own: three round trips, 2026-12-07 trace at 50 ms)
                solver = _solver_of(ledger, run)
                if pulls and not rest.left and in_threads() and clock() < deadline:
                    held = results.take_held()
                    prefetch = _InThread(lambda: results.pull_with(held, owner)[0], "pull")
                results.add(_solve(ledger, solver, task, run, requests, executor))
            if prefetch is not None:  # the next parcel, pulled while the last subproblem was searched
                parcel, prefetch = prefetch.result(), None
                if parcel:
                    rest = rest.refilled(parcel)  # handed back at the loop's top if the time is up
                    if requests is not None:
                        requests.answered()
                    continue
            if not pulls:
                break
            if timed_out or time_is_up():
                timed_out = True
                break
            parcel, closed = results.pull(owner)
            if closed:
                _announce_end(executor, run_id)
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
            if closed:
                _announce_end(executor, run_id)
    if rest.left:  # a hand-back from the listening thread failed, and put them back: once more, here
        give_rest()
    if pulls and timed_out and not closed:  # back to the queue: a worker is invited back to the run
        executor.invite(run_id, run.options.queue_name)
    return [results.happened.get(sub_id, "skipped") for sub_id in sub_ids]



def _messages_wait(executor: CeleryExecutor, run: RunBrief) -> bool:
    """Whether a message waits on the run's queue (another run's, or an invitation to
    this one); a broker that does not answer: as if one did (the worker leaves the run at
    its time, as it always did)."""
    import redis

    try:
        return executor.queue_size(run.options.queue_name) > 0
    except (redis.RedisError, *executor.outage_errors) as exc:
        _log.warning("run %s: the queue's length unknown (the broker: %s)", run.id, str(exc).splitlines()[0])
        return True


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

    look = _Look(ledger, run.id, owner)

    import redis

    try:
        return executor.requests.wait_for_work(run.id, owner, lambda: executor.queue_size(queue),
                                               look.others_searching, pullable=look.pending)
    except (redis.RedisError, *executor.outage_errors) as exc:  # the message is done; asking is a bonus
        _log.warning("run %s: no request for work (the broker: %s)", run.id, str(exc).splitlines()[0])
        return "broker away"


class _Look:
    """A waiting worker's looks at the ledger: whether the run has a pending subproblem,
    and whether another worker searches one of it, read together
    (:func:`scheduler.ledger.pending_and_searched`; on PostgreSQL one round trip, where
    the two were three each: ``BEGIN``, the query, ``ROLLBACK``) — :meth:`pending` reads,
    :meth:`others_searching` answers from the same read (``wait_for_work`` asks it
    second, in the same look)."""

    def __init__(self, ledger: Ledger, run_id: int, owner: str):
        self.ledger, self.run_id, self.owner = ledger, run_id, owner
        self._searched: bool | None = None

    def pending(self) -> bool:
        pending, self._searched = pending_and_searched(self.ledger, self.run_id, self.owner)
        return pending

    def others_searching(self) -> bool:
        searched, self._searched = self._searched, None
        return pending_and_searched(self.ledger, self.run_id, self.owner)[1] if searched is None else searched


class _Results:
    """The outcomes of one message, recorded a few at a time: at once for one that donates
    (its children should reach other workers now), else once :func:`record_seconds` of
    solving are unrecorded, and at the end.

    Measured and dropped (2026-11-28): writing them from a thread of their own while the
    worker goes on to its next message — no gain out of the noise (B/A 0.934, then
    1.035) for a weaker guarantee (a message acknowledged before its results are
    written); docs/performance.md, "Distributed runs".  Far from the ledger (a round
    trip of :data:`THREADS_AFTER` or more) a record goes from a thread while the next
    subproblems of the same message are searched (:class:`_InThread`), and the message
    ends once it is written."""

    def __init__(self, ledger: Ledger, run: RunBrief, executor: CeleryExecutor | None):
        self.ledger, self.run, self.executor = ledger, run, executor
        self.outcomes: list[Outcome] = []
        self.unrecorded = 0.0
        self.seconds, self.weight_done = 0.0, Fraction(0)
        self.happened: dict[int, str] = {}
        self._writing: _InThread | None = None  # a record from a thread (:func:`in_threads`)

    @property
    def rate(self) -> float | None:
        """Seconds per unit of weight, measured over this message so far."""
        return seconds_per_weight(self.seconds, self.weight_done)

    def add(self, outcome: Outcome) -> None:
        self.outcomes.append(outcome)
        self.unrecorded += outcome.seconds
        self.seconds += outcome.seconds
        self.weight_done += outcome.weight_done
        if outcome.frontier or self.unrecorded >= record_seconds():
            self.flush()

    def pull(self, owner: str) -> tuple[list[Task], bool]:
        """Record the outcomes held and lease the run's next parcel
        (:func:`scheduler.ledger.pull`), sized by guided self-scheduling for the workers
        the run was planned for, at the rate measured here: its tasks, and whether this
        closed the run (nothing was pending, nothing is open)."""
        self.written()
        return self.pull_with(self.take_held(), owner)

    def written(self) -> None:
        """Wait for the record in flight from a thread, if any (raising its error)."""
        writing, self._writing = self._writing, None
        if writing is not None:
            writing.result()

    def take_held(self) -> list[Outcome]:
        """The outcomes held, let go of here: the caller records them."""
        held, self.outcomes, self.unrecorded = self.outcomes, [], 0.0
        return held

    def pull_with(self, outcomes: list[Outcome], owner: str) -> tuple[list[Task], bool]:
        """:meth:`pull` recording ``outcomes`` (taken by :meth:`take_held`): also from
        a thread of its own (:class:`_InThread`), while this one solves and holds the next."""
        options = self.run.options
        parcel = Parcel.of_seconds(options.workers or GUIDED_SHARE, self.rate, message_target(options.task_seconds),
                                   parcel_floor(), heaviest_first=self.run.mode is Mode.COUNT)
        pulled = pull(self.ledger, self.run.id, owner, outcomes, parcel, options.lease_seconds())
        self._recorded(outcomes, pulled.recorded)
        return pulled.tasks, pulled.closed

    def flush(self, closing: bool = False) -> bool:
        """Record the outcomes held; ``closing`` (the message's end): and close the run,
        in the same transaction, if nothing of it is open any more — when this message
        recorded anything.  Whether the run was closed here."""
        closed = False
        self.written()
        if closing and (self.outcomes or "recorded" in self.happened.values()):
            held = self.take_held()
            recorded, closed = record_closing(self.ledger, self.run.id, held, queued=True, sampling=self.run.sampling)
        elif self.outcomes:
            held = self.take_held()
            if in_threads():  # far from the ledger: written while the next subproblems are searched
                self._writing = _InThread(lambda: self._recorded(held, record_results(
                    self.ledger, held, queued=True, sampling=self.run.sampling)), "record")
                return False
            recorded = record_results(self.ledger, held, queued=True, sampling=self.run.sampling)
        else:
            return False
        self._recorded(held, recorded)
        return closed

    def _recorded(self, outcomes: list[Outcome], recorded: list[list[int] | None]) -> None:
        """These outcomes are recorded (``recorded``: what each wrote): their donated
        frontiers sent on."""
        for outcome, children in zip(outcomes, recorded):
            self.happened[outcome.sub_id] = "duplicate" if children is None else "recorded"
            if children is not None:
                _send_on(self.executor, self.run, outcome, children)


#: a worker pulls its next parcel while it searches the last subproblem of the one before,
#: and records its results while it searches the next, only where its ledger's round trip
#: is at least this long (seconds): on a local network nothing changes (a thread of its
#: own for the ledger's writes measured no gain there, see :class:`_Results`)
THREADS_AFTER = 0.004


def in_threads() -> bool:
    """Whether the ledger's exchanges go from threads (:class:`_InThread`): where the
    ledger's round trip as measured here is :data:`THREADS_AFTER` or longer."""
    return (ROUND_TRIPS.seconds or 0.0) >= THREADS_AFTER


class _InThread:
    """An exchange with the ledger run in a thread of its own while the message's thread
    searches (the C search releases the GIL): its round trip hidden behind the search.
    :meth:`result` waits for it and raises its error in the message's thread.  Three: the
    run's next parcel pulled while the last subproblem of a parcel is searched (the pull
    records the outcomes held when it starts; the last one's waits for the next record; a
    pull that finds nothing pending closes nothing, the worker's own subproblem being
    open, and the loop pulls again after it), and a record while the next subproblems are
    searched (one at a time: the next record, pull or closing record waits for it), and
    the look at the queue past the worker's time on its run.  The
    message ends only once both are done, so it is acknowledged after its results are
    written, as ever; should a search fail meanwhile, what the thread leased expires as a
    crashed worker's would, and what it recorded stays recorded once."""

    def __init__(self, exchange: Callable[[], object], name: str):
        self._value: object = None
        self._error: BaseException | None = None

        def run() -> None:
            try:
                self._value = exchange()
            except BaseException as exc:  # raised again in the message's thread (result())
                self._error = exc

        self._thread = threading.Thread(target=run, name=f"tilecensus-{name}", daemon=True)
        self._thread.start()

    def done(self) -> bool:
        return not self._thread.is_alive()

    def result(self):
        """What the exchange returned, once it is done; its error, raised here."""
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._value


def execute_one(ledger: Ledger, sub_id: int, executor: CeleryExecutor | None) -> str:
    """One subproblem, by itself: lease, solve, record (exactly once), send the donated
    frontier and a sampled verification on, close the run when it was the last.  Returns
    what happened."""
    leased = lease_one(ledger, sub_id, f"celery:{worker_name()}")
    if leased is None:
        return "skipped"
    task, run = leased
    outcome = _solve(ledger, _solver_of(ledger, run), task, run, _requests(executor, run), executor)
    (children,), closed = record_closing(ledger, run.id, [outcome], queued=True, sampling=run.sampling)
    if closed:
        _announce_end(executor, run.id)
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
    if is_cached(key):
        return cached_solver(key, None, run.options)
    return cached_solver(key, run.spec if run.spec is not None else run_spec(ledger, run.id), run.options)


def _known_specs() -> list[str]:
    """The spec hashes of the problems this process holds a solver of (under some
    options: one whose options differ reads the spec, :func:`_solver_of`)."""
    return sorted({key[1] for key in cached_keys() if isinstance(key, tuple) and key[0] == "problem"})


def _solve(ledger: Ledger, solver, task: Task, run: RunBrief, requests: WorkRequests | None = None,
           executor: CeleryExecutor | None = None) -> Outcome:
    """Solve a leased subproblem (handing back its frontier early when another worker
    asks for work, through ``requests``); a path the solver rejects fails the run."""
    try:
        if requests is None:
            return solve_task(solver, task, run.mode, run.options)
        with requests.searching(run.id):
            return solve_task(solver, task, run.mode, run.options)
    except (PathError, ValueError, OverflowError) as exc:
        if fail_run(ledger, run.id, f"subproblem {task.sub_id}: {exc}"):
            _announce_end(executor, run.id)
        raise


def _announce_end(executor: CeleryExecutor | None, run_id: int) -> None:
    """This worker ended the run: told on the broker (:meth:`CeleryExecutor.announce_end`)."""
    if executor is not None:
        executor.announce_end(run_id)


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
