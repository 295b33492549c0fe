"""The worker processes that died holding a subproblem, counted apart from its leases.

A pool process killed under its task leaves its lease, which the message delivered again
takes over (scheduler/ledger/leases.py); the third death under one subproblem fails its
run.  Deaths were read from ``attempts``, which every lease raises — an expired lease, a
message sent again, a parcel handed back — so one death after two expired leases failed a
run (found by bench/chaos_soak.py).  ``subproblems.deaths`` counts the deaths alone.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-03 19:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('subproblems', schema=None) as batch_op:
        batch_op.add_column(sa.Column('deaths', sa.Integer(), nullable=False, server_default='0'))


def downgrade() -> None:
    with op.batch_alter_table('subproblems', schema=None) as batch_op:
        batch_op.drop_column('deaths')
