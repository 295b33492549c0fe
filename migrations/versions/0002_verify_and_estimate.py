"""Verified runs and estimates: runs.verify_fraction, runs.estimated_nodes, and the
verifications table (one row per complete subproblem re-solved by another worker).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-27 10:00:00
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

#: BIGINT keys on PostgreSQL, rowid keys on SQLite
KEY = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade() -> None:
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.add_column(sa.Column('verify_fraction', sa.Float(), nullable=True))
        batch_op.add_column(sa.Column('estimated_nodes', sa.String(length=80), nullable=True))

    op.create_table('verifications',
    sa.Column('id', KEY, autoincrement=True, nullable=False),
    sa.Column('run_id', KEY, nullable=False),
    sa.Column('subproblem_id', KEY, nullable=False),
    sa.Column('state', sa.String(length=12), nullable=False),
    sa.Column('worker', sa.String(length=200), nullable=True),
    sa.Column('refusals', sa.Integer(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('lease_owner', sa.String(length=200), nullable=True),
    sa.Column('lease_expires', sa.DateTime(), nullable=True),
    sa.Column('queued_at', sa.DateTime(), nullable=True),
    sa.Column('verifier', sa.String(length=200), nullable=True),
    sa.Column('ok', sa.Boolean(), nullable=True),
    sa.Column('detail', sa.Text(), nullable=True),
    sa.Column('seconds', sa.Float(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['subproblem_id'], ['subproblems.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('subproblem_id')
    )
    with op.batch_alter_table('verifications', schema=None) as batch_op:
        batch_op.create_index('ix_verifications_run_state', ['run_id', 'state'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('verifications', schema=None) as batch_op:
        batch_op.drop_index('ix_verifications_run_state')

    op.drop_table('verifications')
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_column('estimated_nodes')
        batch_op.drop_column('verify_fraction')
