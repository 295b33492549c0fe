"""``solve``'s run that its planning counted in full, written into a SQLite ledger with the
standard library's sqlite3, without SQLAlchemy.

Importing SQLAlchemy and the ledger's models takes 0.3-0.6 s on the project's 2-core
machine (2026-12-03), where the whole ``solve`` of a small problem — the 8x8 board less
its centre, pentominoes 6x10 by levels — takes less than that once the run is planned.  So
when the trial of the planning finished the tree, ``solve`` writes the run here: the run
row closed with its totals, the root subproblem done with the result, its solutions and
where the time went, in one transaction; and summarises it from what it wrote
(:func:`scheduler.summary.summarise`, as ``show`` does from the ledger).  The writing is
:meth:`scheduler.direct_writes.DirectWrites.record_counted` (``submit`` writes the same
way on PostgreSQL too).

Only where that is the same as the way through :mod:`scheduler.db`: a plain SQLite file
(``sqlite:///PATH``, no query string) that exists, with its schema at the newest revision
(``alembic_version`` against :func:`scheduler.schema_head.head_revision`).  A fresh file,
an older schema (migrated, or refused, by :func:`scheduler.db.open_ledger`), PostgreSQL, a
run that the pool counts: all go through SQLAlchemy as before.  The connection is set up
as :mod:`scheduler.db` sets up SQLite's (WAL, ``synchronous=NORMAL``, foreign keys, a 60 s
busy timeout, ``BEGIN IMMEDIATE``), and each value is stored as SQLAlchemy's SQLite dialect
stores it for the column's type in :mod:`scheduler.models` (JSON as ``json.dumps`` text, a
``None`` as ``null``; counts as decimal text; times to the microsecond); the rows the rows
built by :mod:`scheduler.rows` make are the same either way, which a test checks.
"""
from __future__ import annotations

from .direct_writes import COUNT_COLUMNS, JSON_COLUMNS, TIME_COLUMNS, DirectWrites, Recorded  # noqa: F401
from .read_direct import PREFIXES, sqlite_file  # noqa: F401  (re-exported)


class DirectLedger(DirectWrites):
    """A SQLite ledger at the newest schema, opened with sqlite3 (:meth:`open`)."""

    @classmethod
    def open(cls, url: str) -> DirectLedger | None:
        """The ledger at ``url`` when it is a SQLite file at the newest schema, else None
        (``url``'s database is then for :func:`scheduler.db.open_ledger` to open, check,
        migrate or refuse, as it always did)."""
        if sqlite_file(url) is None:
            return None
        return super().open(url)  # type: ignore[return-value]
