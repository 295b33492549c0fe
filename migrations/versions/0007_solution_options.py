"""The index of the options of each stored solution: ``solution_options``.

``solutions RUN --where`` asks which stored solutions use certain options (a piece at a
cell, ...).  ``solutions.options`` is a packed blob, which no database can index, so
answering meant reading every stored solution of the run.  This table holds one row per
(run, option, solution), its primary key in that order: the solutions of a run that use
an option are one range of the key (on SQLite a WITHOUT ROWID table, the key is the table).

Existing ledgers are backfilled here, in the migration, rather than lazily on a run's
first query: then every query can trust the index with no flag per run to look up (and no
write in a read-only command such as ``solutions``), and the cost is paid once, at the
upgrade, in proportion to the solutions stored (rows of ``--all`` / ``--first`` runs,
read and written 5,000 solutions at a time).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-04 04:00:00
"""
from __future__ import annotations

import struct

import sqlalchemy as sa
from alembic import op


revision = '0007'
down_revision = '0006'
branch_labels = None
depends_on = None

#: solutions read (and their option rows written) per step of the backfill
CHUNK = 5_000

_KEY = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        'solution_options',
        sa.Column('run_id', _KEY, nullable=False, autoincrement=False),
        sa.Column('option_id', sa.Integer(), nullable=False, autoincrement=False),
        sa.Column('solution_id', _KEY, nullable=False, autoincrement=False),
        sa.PrimaryKeyConstraint('run_id', 'option_id', 'solution_id'),
        sqlite_with_rowid=False,
    )
    _backfill(op.get_bind())


def downgrade() -> None:
    op.drop_table('solution_options')


def _backfill(conn) -> None:
    """One row per distinct option of every stored solution, read in id order."""
    solutions = sa.table('solutions', sa.column('id'), sa.column('run_id'), sa.column('options'))
    index = sa.table('solution_options', sa.column('run_id'), sa.column('option_id'), sa.column('solution_id'))
    last = -1
    while True:
        rows = conn.execute(sa.select(solutions.c.id, solutions.c.run_id, solutions.c.options)
                            .where(solutions.c.id > last).order_by(solutions.c.id).limit(CHUNK)).all()
        if not rows:
            return
        values = [{"run_id": run_id, "option_id": o, "solution_id": sid}
                  for sid, run_id, blob in rows
                  for o in sorted(set(struct.unpack(f"<{len(blob) // 4}I", bytes(blob))))]
        if values:  # (an empty solution has no options to index)
            conn.execute(sa.insert(index), values)
        last = rows[-1][0]
