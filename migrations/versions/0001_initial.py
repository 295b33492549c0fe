"""The initial ledger: runs, subproblems, solutions (exact counts as decimal text).

Revision ID: 0001
Revises: 
Create Date: 2026-11-26 02:49:06.243812
"""
from __future__ import annotations

from alembic import op
import sqlalchemy as sa


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None

#: BIGINT keys on PostgreSQL, rowid keys on SQLite
KEY = sa.BigInteger().with_variant(sa.Integer(), 'sqlite')


def upgrade() -> None:
    op.create_table('runs',
    sa.Column('id', KEY, autoincrement=True, nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=40), nullable=False),
    sa.Column('spec', sa.JSON(), nullable=False),
    sa.Column('spec_hash', sa.String(length=64), nullable=False),
    sa.Column('mode', sa.String(length=16), nullable=False),
    sa.Column('options', sa.JSON(), nullable=False),
    sa.Column('executor', sa.String(length=16), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('n_planned', sa.Integer(), nullable=False),
    sa.Column('solutions', sa.String(length=80), nullable=True),
    sa.Column('distinct', sa.String(length=80), nullable=True),
    sa.Column('nodes', sa.String(length=80), nullable=True),
    sa.Column('stats', sa.JSON(), nullable=True),
    sa.Column('plan_stats', sa.JSON(), nullable=True),
    sa.Column('cpu_seconds', sa.Float(), nullable=True),
    sa.Column('seconds', sa.Float(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_runs_spec_hash'), ['spec_hash'], unique=False)
        batch_op.create_index(batch_op.f('ix_runs_status'), ['status'], unique=False)

    op.create_table('subproblems',
    sa.Column('id', KEY, autoincrement=True, nullable=False),
    sa.Column('run_id', KEY, nullable=False),
    sa.Column('path', sa.Text(), nullable=False),
    sa.Column('depth', sa.Integer(), nullable=False),
    sa.Column('weight_num', sa.Text(), nullable=False),
    sa.Column('weight_den', sa.Text(), nullable=False),
    sa.Column('weight_f', sa.Float(), nullable=False),
    sa.Column('parent_id', KEY, nullable=True),
    sa.Column('state', sa.String(length=12), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('lease_owner', sa.String(length=200), nullable=True),
    sa.Column('lease_expires', sa.DateTime(), nullable=True),
    sa.Column('queued_at', sa.DateTime(), nullable=True),
    sa.Column('count', sa.String(length=80), nullable=True),
    sa.Column('distinct', sa.String(length=80), nullable=True),
    sa.Column('nodes', sa.BigInteger(), nullable=True),
    sa.Column('seconds', sa.Float(), nullable=True),
    sa.Column('done_num', sa.Text(), nullable=True),
    sa.Column('done_den', sa.Text(), nullable=True),
    sa.Column('done_f', sa.Float(), nullable=True),
    sa.Column('stopped_by', sa.String(length=16), nullable=True),
    sa.Column('n_donated', sa.Integer(), nullable=True),
    sa.Column('stats', sa.JSON(), nullable=True),
    sa.Column('worker', sa.String(length=200), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.ForeignKeyConstraint(['parent_id'], ['subproblems.id'], ),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id'),
    sa.UniqueConstraint('run_id', 'path', name='uq_subproblems_run_path')
    )
    with op.batch_alter_table('subproblems', schema=None) as batch_op:
        batch_op.create_index('ix_subproblems_run_state', ['run_id', 'state'], unique=False)

    op.create_table('solutions',
    sa.Column('id', KEY, autoincrement=True, nullable=False),
    sa.Column('run_id', KEY, nullable=False),
    sa.Column('subproblem_id', KEY, nullable=False),
    sa.Column('options', sa.LargeBinary(), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['subproblem_id'], ['subproblems.id'], ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id')
    )
    with op.batch_alter_table('solutions', schema=None) as batch_op:
        batch_op.create_index('ix_solutions_run_id', ['run_id', 'id'], unique=False)
        batch_op.create_index(batch_op.f('ix_solutions_subproblem_id'), ['subproblem_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('solutions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_solutions_subproblem_id'))
        batch_op.drop_index('ix_solutions_run_id')

    op.drop_table('solutions')
    with op.batch_alter_table('subproblems', schema=None) as batch_op:
        batch_op.drop_index('ix_subproblems_run_state')

    op.drop_table('subproblems')
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_runs_status'))
        batch_op.drop_index(batch_op.f('ix_runs_spec_hash'))

    op.drop_table('runs')
