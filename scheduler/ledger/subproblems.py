"""Subproblem rows: a frontier written as pending subproblems of a run; their weights."""
from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Iterable, Sequence

from sqlalchemy import Connection, insert, select
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


def weights_of(conn: Connection | Session, sub_ids: Sequence[int]) -> list[Fraction]:
    """The weights of these subproblems, in the order given, in one query (chunked past
    a thousand ids); an id not in the ledger weighs 0."""
    found: dict[int, Fraction] = {}
    for i in range(0, len(sub_ids), 1000):
        chunk = list(sub_ids[i : i + 1000])
        rows = conn.execute(select(SUB.c.id, SUB.c.weight_num, SUB.c.weight_den).where(SUB.c.id.in_(chunk)))
        found.update((sub_id, Fraction(int(num), int(den))) for sub_id, num, den in rows)
    return [found.get(sub_id, Fraction(0)) for sub_id in sub_ids]
