"""The ledger's tables: runs, subproblems, solutions and the index of their options,
censuses, verifications.

Counts can exceed 64 bits, so exact integers are stored as decimal text of any length
(:class:`BigCount`); weights are exact fractions stored as numerator/denominator text,
with a float beside them for quick progress sums.  Times are naive UTC.
"""
from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

from .codec import count_of, count_text, fraction_of
from .clock import utcnow  # noqa: F401  (re-exported: the ledger's modules take it from here)
from .states import SubproblemState

#: an autoincrement key that is BIGINT on PostgreSQL and INTEGER (rowid) on SQLite
Key = BigInteger().with_variant(Integer(), "sqlite")


class BigCount(TypeDecorator):
    """An exact integer of any size, stored as decimal text."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Any) -> str | None:
        return None if value is None else count_text(value)

    def process_result_value(self, value: str | None, dialect: Any) -> int | None:
        return None if value is None else count_of(value)


class Base(DeclarativeBase):
    pass


class Run(Base):
    """One count or enumeration of one problem."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Key, primary_key=True, autoincrement=True)
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(40))
    spec: Mapped[dict] = mapped_column(JSON)
    spec_hash: Mapped[str] = mapped_column(String(64), index=True)
    mode: Mapped[str] = mapped_column(String(16))  # scheduler.run_options.Mode
    options: Mapped[dict] = mapped_column(JSON)  # scheduler.run_options.RunOptions.to_json()
    executor: Mapped[str] = mapped_column(String(16))  # scheduler.run_options.ExecutorKind
    status: Mapped[str] = mapped_column(String(16), index=True)  # scheduler.states.RunStatus
    n_planned: Mapped[int] = mapped_column(Integer, default=0)
    solutions: Mapped[int | None] = mapped_column(BigCount, nullable=True)
    distinct: Mapped[int | None] = mapped_column(BigCount, nullable=True)
    nodes: Mapped[int | None] = mapped_column(BigCount, nullable=True)
    stats: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    plan_stats: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    cpu_seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(DateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    #: ``--verify P``: the share of complete subproblems re-solved by another worker
    verify_fraction: Mapped[float | None] = mapped_column(Float, nullable=True)
    #: the tree size estimated before the run (Knuth), for the ETA
    estimated_nodes: Mapped[int | None] = mapped_column(BigCount, nullable=True)
    #: a count by levels in groups of moduli: the total is the sum of the subproblems'
    #: counts modulo this (core/level_shares.py); None: the plain sum
    modulus: Mapped[int | None] = mapped_column(BigCount, nullable=True)


class Subproblem(Base):
    """A path of a run, with its state, lease and result."""

    __tablename__ = "subproblems"
    __table_args__ = (
        UniqueConstraint("run_id", "path", name="uq_subproblems_run_path"),
        Index("ix_subproblems_run_state", "run_id", "state"),
        # a Celery worker's pull: the run's heaviest pending subproblems (scheduler/ledger/pulls.py)
        Index("ix_subproblems_run_state_weight", "run_id", "state", "weight_f", "id"),
    )

    id: Mapped[int] = mapped_column(Key, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    path: Mapped[str] = mapped_column(Text)  # canonical JSON list of option ids
    depth: Mapped[int] = mapped_column(Integer)
    weight_num: Mapped[str] = mapped_column(Text)
    weight_den: Mapped[str] = mapped_column(Text)
    weight_f: Mapped[float] = mapped_column(Float)
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("subproblems.id"), nullable=True)
    state: Mapped[str] = mapped_column(String(12), default=SubproblemState.PENDING)  # scheduler.states
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    #: worker processes of this host found dead holding its lease (the third fails the run)
    deaths: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    lease_owner: Mapped[str | None] = mapped_column(String(200), nullable=True)
    lease_expires: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    queued_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    # result
    count: Mapped[int | None] = mapped_column(BigCount, nullable=True)
    distinct: Mapped[int | None] = mapped_column(BigCount, nullable=True)
    nodes: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    done_num: Mapped[str | None] = mapped_column(Text, nullable=True)  # weight searched
    done_den: Mapped[str | None] = mapped_column(Text, nullable=True)
    done_f: Mapped[float | None] = mapped_column(Float, nullable=True)
    stopped_by: Mapped[str | None] = mapped_column(String(16), nullable=True)
    n_donated: Mapped[int | None] = mapped_column(Integer, nullable=True)
    stats: Mapped[dict | None] = mapped_column(JSON, nullable=True)
    worker: Mapped[str | None] = mapped_column(String(200), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)

    @property
    def weight(self) -> Fraction:
        return fraction_of(self.weight_num, self.weight_den)

    @property
    def weight_done(self) -> Fraction | None:
        if self.done_num is None:
            return None
        return fraction_of(self.done_num, self.done_den)


class Solution(Base):
    """One solution found by a run: its option ids, packed (``scheduler.codec``)."""

    __tablename__ = "solutions"
    __table_args__ = (Index("ix_solutions_run_id", "run_id", "id"),)

    id: Mapped[int] = mapped_column(Key, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    subproblem_id: Mapped[int] = mapped_column(ForeignKey("subproblems.id", ondelete="CASCADE"), index=True)
    options: Mapped[bytes] = mapped_column(LargeBinary)


class CensusRow(Base):
    """A subproblem's census (``--census``): for every option, the solutions below it
    that use it, packed (:mod:`scheduler.census_codec`); a run's census is the sum of its
    rows, as its count is the sum of its subproblems' counts."""

    __tablename__ = "censuses"

    subproblem_id: Mapped[int] = mapped_column(Key, ForeignKey("subproblems.id", ondelete="CASCADE"), primary_key=True,
                                               autoincrement=False)
    run_id: Mapped[int] = mapped_column(Key, ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    counts: Mapped[bytes] = mapped_column(LargeBinary)


class SolutionOption(Base):
    """The index of the options of each stored solution: one row per (run, option,
    solution), its key ordered so that the solutions of a run that use an option are one
    range of the primary key (``solutions RUN --where``, :mod:`scheduler.where_sql`).
    Written with the solutions; no foreign keys (a check per row on millions of rows):
    a run's rows go with it in :mod:`scheduler.ledger.removal`."""

    __tablename__ = "solution_options"
    __table_args__ = {"sqlite_with_rowid": False}

    run_id: Mapped[int] = mapped_column(Key, primary_key=True, autoincrement=False)
    option_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    solution_id: Mapped[int] = mapped_column(Key, primary_key=True, autoincrement=False)


class Verification(Base):
    """A complete subproblem of a ``--verify`` run, re-solved by a worker other than the
    one that recorded it (``worker``); ``ok`` is the verdict, ``detail`` a mismatch."""

    __tablename__ = "verifications"
    __table_args__ = (Index("ix_verifications_run_state", "run_id", "state"),)

    id: Mapped[int] = mapped_column(Key, primary_key=True, autoincrement=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    subproblem_id: Mapped[int] = mapped_column(ForeignKey("subproblems.id", ondelete="CASCADE"), unique=True)
    state: Mapped[str] = mapped_column(String(12), default=SubproblemState.PENDING)
    worker: Mapped[str | None] = mapped_column(String(200), nullable=True)
    refusals: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(200), nullable=True)
    lease_expires: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    queued_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
    verifier: Mapped[str | None] = mapped_column(String(200), nullable=True)
    ok: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    detail: Mapped[str | None] = mapped_column(Text, nullable=True)
    seconds: Mapped[float | None] = mapped_column(Float, nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(DateTime, nullable=True)
