"""Counts of any length, and the modulus of a count in residues.

Counts were VARCHAR(80) (PostgreSQL refused a count of more than 80 digits: 2^265 and
up, where a level count of a big board reaches thousands of digits); they become TEXT.
``runs.modulus``: a count by levels shared out by groups of moduli records each share's
residue as its contribution to the count modulo this number, and the run's total is the
sum of the shares' counts modulo it (core/level_shares.py).  (SQLite keeps no lengths;
its tables are rebuilt with the new types all the same, so both ledgers match the models.)

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-03 16:00:00
"""
from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

#: the counts that were VARCHAR(80), by table
COUNTS = {'runs': ('solutions', 'distinct', 'nodes', 'estimated_nodes'), 'subproblems': ('count', 'distinct')}


def upgrade() -> None:
    for table, columns in COUNTS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            if table == 'runs':
                batch_op.add_column(sa.Column('modulus', sa.Text(), nullable=True))
            for column in columns:
                batch_op.alter_column(column, type_=sa.Text(), existing_type=sa.String(length=80),
                                      existing_nullable=True)


def downgrade() -> None:
    for table, columns in COUNTS.items():
        with op.batch_alter_table(table, schema=None) as batch_op:
            for column in columns:
                batch_op.alter_column(column, type_=sa.String(length=80), existing_type=sa.Text(),
                                      existing_nullable=True)
            if table == 'runs':
                batch_op.drop_column('modulus')
