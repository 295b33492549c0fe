"""The ledger's operations: runs and their subproblems, leases, results recorded exactly
once, verifications, progress.  The tables are :mod:`scheduler.models`; the connection
is :mod:`scheduler.db`.

* :mod:`.runs` — create, read, close (exact totals), fail, cancel, interrupt, revive;
  progress (and the status shown of a local run whose process died).
* :mod:`.subproblems` — a frontier written as pending subproblems; their weights.
* :mod:`.leases` — lease subproblems to workers; expire and release leases.
* :mod:`.pulls` — a Celery worker staying on its run: its results for the next parcel of
  the run's pending subproblems, in one transaction.
* :mod:`.results` — record a result exactly once, with its donated frontier, solutions
  and sampled verification, in one transaction.
* :mod:`.verifications` — the verifications of a ``--verify`` run (the sample, leases,
  refusals, verdicts); re-solving and comparing is :mod:`scheduler.verification`.
"""
from .leases import (
    Exchange,
    RunBrief,
    brief_of,
    exchange,
    expire_leases,
    has_pending,
    lease_batch,
    lease_message,
    lease_one,
    pending_and_searched,
    mark_queued,
    release_leases,
    run_brief,
    searched_by_others,
    stale_pending,
    unlease,
)
from .pulls import Parcel, Pull, pull
from .results import record, record_results
from .runs import (
    CreatedRun,
    Progress,
    cancel_run,
    close_run,
    create_run,
    fail_run,
    get_run,
    has_open,
    interrupt_run,
    measured_rate,
    progress,
    record_closing,
    record_estimate,
    record_times,
    revive_run,
    run_spec,
    run_status,
)
from .subproblems import subproblem_rows, weights_of

__all__ = [
    "CreatedRun", "Exchange", "Parcel", "Progress", "Pull", "RunBrief", "brief_of", "cancel_run", "close_run", "create_run", "exchange",
    "expire_leases", "fail_run", "get_run", "has_open", "has_pending", "interrupt_run", "lease_batch", "lease_message", "lease_one", "pending_and_searched",
    "mark_queued", "measured_rate", "progress", "pull", "record", "record_closing", "record_estimate", "record_results", "record_times", "release_leases",
    "revive_run", "run_brief", "run_spec", "run_status", "searched_by_others", "stale_pending", "subproblem_rows", "unlease", "weights_of",
]
