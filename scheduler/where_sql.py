"""``solutions RUN --where``: a resolved query (:mod:`core.where_options`) answered by
the ledger from ``solution_options``, the index of the options of each stored solution.

Each ``Uses`` condition is a range scan of the index's primary key (run, option,
solution) per option; ``and`` is ``INTERSECT``, ``or`` ``UNION``, ``not`` ``EXCEPT``.
Only the page asked for is read from ``solutions`` (by id).  A ``not`` with nothing
positive beside it is the run's solution ids less the others: a scan of the run's part of
the ``solutions`` id index, still no blob read.  The SQL is the same on SQLite and
PostgreSQL; docs/ledger.md shows it written by hand.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from sqlalchemy import text

from core.where_options import AllOf, AnyOf, NoneOf, Resolved, Uses

from .codec import unpack
from .db import Ledger


@dataclass(frozen=True)
class Match:
    """A stored solution that matches: its place among the matches (0-based, what
    ``--offset`` counts), its id in the ledger, subproblem and option ids."""

    index: int
    solution_id: int
    subproblem: int
    options: tuple[int, ...]


def matches_sql(run_id: int, q: Resolved) -> str:
    """A ``SELECT`` of the ids (column ``solution_id``) of the run's solutions that match."""
    run_id = int(run_id)
    if isinstance(q, Uses):
        if not q.options:
            return "SELECT solution_id FROM solution_options WHERE 1 = 0"
        ids = ", ".join(str(int(o)) for o in sorted(q.options))
        distinct = "" if q.disjoint else "DISTINCT "  # (each solution once: no doubles to remove)
        return f"SELECT {distinct}solution_id FROM solution_options WHERE run_id = {run_id} AND option_id IN ({ids})"
    if isinstance(q, AnyOf):
        return " UNION ".join(_wrapped(run_id, p, i) for i, p in enumerate(q.parts))
    if isinstance(q, NoneOf):
        return f"{_all_ids(run_id)} EXCEPT {_wrapped(run_id, q.part, 0)}"
    positive = [p for p in q.parts if not isinstance(p, NoneOf)]
    negative = [p.part for p in q.parts if isinstance(p, NoneOf)]
    sql = " INTERSECT ".join(_wrapped(run_id, p, i) for i, p in enumerate(positive)) or _all_ids(run_id)
    for i, p in enumerate(negative):
        sql += f" EXCEPT {_wrapped(run_id, p, len(positive) + i)}"
    return sql


def _wrapped(run_id: int, q: Resolved, i: int) -> str:
    """A part of a compound select, as a plain ``SELECT`` (SQLite takes no parentheses
    around the parts of a compound)."""
    return f"SELECT solution_id FROM ({matches_sql(run_id, q)}) AS q{i}"


def _all_ids(run_id: int) -> str:
    return f"SELECT id AS solution_id FROM solutions WHERE run_id = {run_id}"


def count_matches(ledger: Ledger, run_id: int, q: Resolved) -> int:
    """How many stored solutions of the run match."""
    with ledger.session() as session:
        return int(session.execute(text(f"SELECT count(*) FROM ({matches_sql(run_id, q)}) AS m")).scalar_one())


def page_sql(run_id: int, q: Resolved) -> str:
    """One page of matches (``:limit``, ``:offset``) with their rows, in id order: the
    page's ids first, from the index alone, then those rows of ``solutions``."""
    return (f"SELECT s.id, s.subproblem_id, s.options FROM solutions s JOIN "
            f"(SELECT solution_id FROM ({matches_sql(run_id, q)}) AS m ORDER BY solution_id "
            f"LIMIT :limit OFFSET :offset) AS page ON s.id = page.solution_id ORDER BY s.id")


def iter_matches(ledger: Ledger, run_id: int, q: Resolved, *, limit: int | None = None, offset: int = 0,
                 chunk: int = 5_000) -> Iterator[Match]:
    """The run's stored solutions that match, in ledger order, from the ``offset``-th."""
    index, left = offset, limit
    sql = text(page_sql(run_id, q))
    while left is None or left > 0:
        n = chunk if left is None else min(chunk, left)
        with ledger.session() as session:
            rows = session.execute(sql, {"limit": n, "offset": index}).all()
        for sid, sub, blob in rows:
            yield Match(index, sid, sub, unpack(blob))
            index += 1
        if len(rows) < n:
            return
        if left is not None:
            left -= len(rows)
