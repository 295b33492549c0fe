"""The UPDATE that records a subproblem's result, as SQL text with ``:name`` parameters,
and its parameters for a result — without SQLAlchemy.

:mod:`scheduler.ledger.results` runs it on SQLite through the sqlite3 driver's own cursor
(beside SQLAlchemy's own statement, :data:`scheduler.ledger.results._RECORD`, which a test
holds it to row for row); :mod:`scheduler.direct_writes` runs it through sqlite3 or
psycopg for the root of a run that ``submit`` writes without SQLAlchemy.  It writes only a
subproblem still open (pending or leased), so a second write of the same result changes
nothing."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .codec import fraction_parts
from .states import SubproblemState

if TYPE_CHECKING:
    from .work import Outcome

RECORD = (
    "UPDATE subproblems SET state = :done, count = :r_count, \"distinct\" = :r_distinct, nodes = :r_nodes, "
    "seconds = :r_seconds, stats = :r_stats, done_num = :r_num, done_den = :r_den, done_f = :r_f, "
    "stopped_by = :r_stopped, n_donated = :r_donated, worker = :r_worker, finished_at = :now, "
    "lease_expires = NULL WHERE id = :sub_id AND state IN (:pending, :leased)"
)
#: the states :data:`RECORD` names, as its parameters
STATES = {"done": str(SubproblemState.DONE), "pending": str(SubproblemState.PENDING),
          "leased": str(SubproblemState.LEASED)}


def record_values(outcome: Outcome, now) -> dict[str, Any]:
    """The parameters of :data:`RECORD` (but its states, :data:`STATES`) for a result, in
    plain values: the caller binds them as the columns' types store them."""
    num, den, approx = fraction_parts(outcome.weight_done)
    return {
        "sub_id": outcome.sub_id, "r_count": outcome.count, "r_distinct": outcome.distinct,
        "r_nodes": outcome.nodes, "r_seconds": outcome.seconds, "r_stats": outcome.stats, "r_num": num,
        "r_den": den, "r_f": approx, "r_stopped": outcome.stopped_by, "r_donated": len(outcome.frontier),
        "r_worker": outcome.worker, "now": now,
    }
