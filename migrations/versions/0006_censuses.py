"""The census of a run (``--census``): one row per subproblem, its vector packed.

``censuses.counts`` holds, for every option, the solutions below the subproblem that use
it (scheduler/census_codec.py: varints, dense or sparse, the shorter); a run's census is
the sum of its rows.  Written in the transaction that records the subproblem's result.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-04 04:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0006'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'censuses',
        sa.Column('subproblem_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
        sa.Column('run_id', sa.BigInteger().with_variant(sa.Integer(), 'sqlite'), nullable=False),
        sa.Column('counts', sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['subproblem_id'], ['subproblems.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('subproblem_id'),
    )
    op.create_index('ix_censuses_run_id', 'censuses', ['run_id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_censuses_run_id', table_name='censuses')
    op.drop_table('censuses')
