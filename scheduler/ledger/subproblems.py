"""Subproblem rows: a frontier written as pending subproblems of a run."""
from __future__ import annotations

import datetime as dt
from typing import Iterable

from sqlalchemy import Connection, insert
from sqlalchemy.orm import Session

from core.search import Subpath

from ..codec import fraction_parts, path_text
from ..models import Subproblem
from ..states import SubproblemState

SUB = Subproblem.__table__
_INSERT_SUBS = insert(SUB).returning(SUB.c.id, sort_by_parameter_order=True)


def subproblem_rows(run_id: int, frontier: Iterable[Subpath], parent_id: int | None, now: dt.datetime | None):
    rows = []
    for sub in frontier:
        num, den, approx = fraction_parts(sub.weight)
        rows.append(
            dict(
                run_id=run_id,
                path=path_text(sub.path),
                depth=len(sub.path),
                weight_num=num,
                weight_den=den,
                weight_f=approx,
                parent_id=parent_id,
                state=SubproblemState.PENDING,
                attempts=0,
                queued_at=now,
            )
        )
    return rows


def insert_subproblems(conn: Connection | Session, rows: list[dict]) -> list[int]:
    if not rows:
        return []
    return [r[0] for r in conn.execute(_INSERT_SUBS, rows)]
