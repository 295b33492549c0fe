"""Where a run's end is told: the names both sides agree on, without the ledger's code
(a waiter on :mod:`scheduler.read_direct` loads no SQLAlchemy).  The telling is
:mod:`scheduler.ledger.ends` (PostgreSQL's ``NOTIFY``) and
:meth:`scheduler.celery_executor.CeleryExecutor.announce_end` (the broker's channel); the
listening is :mod:`scheduler.waiting`."""

#: the PostgreSQL notification channel; the payload is the run's id
CHANNEL = "tilecensus_run_end"
#: the Redis channel on which the workers and the scheduler's round publish the runs they
#: close or fail, for waiters on a ledger that notifies nothing (the payload: the run's id;
#: :meth:`scheduler.celery_executor.CeleryExecutor.announce_end`)
REDIS_CHANNEL = "tilecensus:run-end"
