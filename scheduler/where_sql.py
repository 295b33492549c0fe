"""``solutions RUN --where``: a resolved query (:mod:`core.where_options`) answered by
the ledger from ``solution_options``, the index of the options of each stored solution.

One condition (``X@2,2``) is SQL: a range scan of the index's primary key (run, option,
solution) per option, counted as it lies, its page read in id order.  A combined query
(``and``, ``or``, ``not``) is answered with bitmaps (:mod:`core.where_bits`): each
condition's solution ids read by the same range scans, aggregated into one text
(SQLite's ``group_concat``, PostgreSQL's ``string_agg``), turned into a Python int whose
bit k is the id ``lo + k`` (``lo``..``hi``: the run's lowest and highest stored id), and
combined with ``&``, ``|`` and ``& ~``; the count is the int's ``bit_count()`` and a page
the positions of its set bits.  At a million stored solutions this is several times
faster than ``INTERSECT`` / ``UNION`` / ``EXCEPT`` (:func:`matches_sql`, which answers any
query in SQL alone: docs/ledger.md and docs/performance.md).  A ``not`` with nothing
positive beside it needs every stored id of the run: when the run's ids are contiguous
(its count is ``hi - lo + 1``) that is every bit; otherwise (another run stored solutions
meanwhile) they are read too.  Where ``hi - lo`` passes 2**24 the ids are read in slices of
that many, so that no text passes the databases' limit.  Only the page asked for is read from
``solutions`` (by id).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from typing import Callable, Iterator

from sqlalchemy import bindparam, text

from core.where_bits import Bits, bits_of_ids, evaluate, positions
from core.where_options import AnyOf, NoneOf, Resolved, Uses

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
    """A ``SELECT`` of the ids (column ``solution_id``) of the run's solutions that match,
    in SQL alone (what a single condition runs; a combined query is answered with bitmaps,
    :func:`find_matches`)."""
    run_id = int(run_id)
    if isinstance(q, Uses):
        if not q.options:
            return "SELECT solution_id FROM solution_options WHERE 1 = 0"
        distinct = "" if q.disjoint else "DISTINCT "  # (each solution once: no doubles to remove)
        return f"SELECT {distinct}solution_id FROM solution_options WHERE run_id = {run_id} AND {_options_in(q)}"
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


def _options_in(q: Uses) -> str:
    return f"option_id IN ({', '.join(str(int(o)) for o in sorted(q.options))})"


def _wrapped(run_id: int, q: Resolved, i: int) -> str:
    """A part of a compound select, as a plain ``SELECT`` (SQLite takes no parentheses
    around the parts of a compound)."""
    return f"SELECT solution_id FROM ({matches_sql(run_id, q)}) AS q{i}"


def _all_ids(run_id: int) -> str:
    return f"SELECT id AS solution_id FROM solutions WHERE run_id = {run_id}"


class Matches:
    """The run's stored solutions that match one query: ``count``, and ``ids(offset,
    limit)``, a page of their ids in id order."""

    count: int

    def ids(self, offset: int, limit: int) -> list[int]:
        raise NotImplementedError


class SqlMatches(Matches):
    """One condition, answered in SQL: counted, and paged in id order, by the index."""

    def __init__(self, ledger: Ledger, run_id: int, q: Uses):
        self.ledger, self.sql = ledger, matches_sql(run_id, q)

    @cached_property
    def count(self) -> int:  # type: ignore[override]
        with self.ledger.session() as session:
            return int(session.execute(text(f"SELECT count(*) FROM ({self.sql}) AS m")).scalar_one())

    def ids(self, offset: int, limit: int) -> list[int]:
        page = text(f"SELECT solution_id FROM ({self.sql}) AS m ORDER BY solution_id LIMIT :limit OFFSET :offset")
        with self.ledger.session() as session:
            return list(session.execute(page, {"limit": limit, "offset": offset}).scalars())


class BitMatches(Matches):
    """A combined query, answered with a bitmap over the run's ids ``lo``, ``lo + 1``, ..."""

    def __init__(self, lo: int, bits: Bits):
        self.lo, self.bits = lo, bits
        self.count = bits.bit_count()

    def ids(self, offset: int, limit: int) -> list[int]:
        return [self.lo + k for k in positions(self.bits, offset, limit)]


def find_matches(ledger: Ledger, run_id: int, q: Resolved) -> Matches:
    """The run's stored solutions that match: one condition in SQL, a combined query with
    bitmaps (read in one transaction)."""
    run_id = int(run_id)
    if isinstance(q, Uses):
        return SqlMatches(ledger, run_id, q)
    with ledger.session() as session:
        lo, hi = session.execute(text(bounds_sql(run_id))).one()
        if lo is None:
            return BitMatches(0, 0)
        dialect = ledger.dialect
        read: dict[frozenset[int], Bits] = {}

        def bits_of(u: Uses) -> Bits:
            if u.options not in read:
                read[u.options] = _read_bits(session, lambda a, b: condition_ids_sql(run_id, u, a, b, dialect),
                                             lo, hi) if u.options else 0
            return read[u.options]

        @cache
        def universe() -> Bits:
            return _run_ids(session, run_id, lo, hi, dialect)

        return BitMatches(lo, evaluate(q, bits_of, universe))


def bounds_sql(run_id: int) -> str:
    """The run's lowest and highest stored solution id (each one end of an index range)."""
    return (f"SELECT (SELECT min(id) FROM solutions WHERE run_id = {run_id}), "
            f"(SELECT max(id) FROM solutions WHERE run_id = {run_id})")


def _joined_ids(dialect: str, column: str = "solution_id") -> str:
    """The aggregate that joins a column of ids into one text, decimal, with commas."""
    return f"string_agg({column}::text, ',')" if dialect == "postgresql" else f"group_concat({column})"


def condition_ids_sql(run_id: int, u: Uses, lo: int, hi: int, dialect: str) -> str:
    """One condition's solution ids between ``lo`` and ``hi`` as one text; bounded, so
    that solutions stored since the bounds were read stay out of the bitmap."""
    return (f"SELECT {_joined_ids(dialect)} FROM solution_options WHERE run_id = {run_id} AND {_options_in(u)} "
            f"AND solution_id BETWEEN {lo} AND {hi}")


def _run_ids(session, run_id: int, lo: int, hi: int, dialect: str) -> Bits:
    """Every stored solution of the run between ``lo`` and ``hi``: all the bits when
    there are ``hi - lo + 1`` of them, else their ids read."""
    count = f"SELECT count(*) FROM solutions WHERE run_id = {run_id} AND id BETWEEN {lo} AND {hi}"
    if session.execute(text(count)).scalar_one() == hi - lo + 1:
        return (1 << (hi - lo + 1)) - 1
    return _read_bits(session, lambda a, b: f"SELECT {_joined_ids(dialect, 'id')} FROM solutions "
                      f"WHERE run_id = {run_id} AND id BETWEEN {a} AND {b}", lo, hi)


#: the most ids one statement joins into a text: 2**24 ids of at most 20 characters each
#: stay well under the 1 GB that SQLite and PostgreSQL allow a value
SLICE = 1 << 24


def _read_bits(session, ids_between: Callable[[int, int], str], lo: int, hi: int) -> Bits:
    """The bitmap over ``lo``..``hi`` of the ids that the SQL ``ids_between(a, b)`` joins
    into a text, read in slices of at most :data:`SLICE` ids (one statement below that)."""
    bits = 0
    for a in range(lo, hi + 1, SLICE):
        b = min(a + SLICE - 1, hi)
        bits |= bits_of_ids(session.execute(text(ids_between(a, b))).scalar(), a, b - a + 1) << (a - lo)
    return bits


def count_matches(ledger: Ledger, run_id: int, q: Resolved) -> int:
    """How many stored solutions of the run match."""
    return find_matches(ledger, run_id, q).count


def iter_matches(ledger: Ledger, run_id: int, q: Resolved, *, limit: int | None = None, offset: int = 0,
                 chunk: int = 5_000, found: Matches | None = None) -> Iterator[Match]:
    """The run's stored solutions that match, in ledger order, from the ``offset``-th
    (``found``: the query already answered by :func:`find_matches`)."""
    found = find_matches(ledger, run_id, q) if found is None else found
    index, left = offset, limit
    rows_sql = text("SELECT id, subproblem_id, options FROM solutions WHERE id IN :ids ORDER BY id")
    while left is None or left > 0:
        n = chunk if left is None else min(chunk, left)
        ids = found.ids(index, n)
        if ids:
            with ledger.session() as session:
                rows = session.execute(rows_sql.bindparams(bindparam("ids", expanding=True)), {"ids": ids}).all()
            for sid, sub, blob in rows:
                yield Match(index, sid, sub, unpack(blob))
                index += 1
        if len(ids) < n:
            return
        if left is not None:
            left -= len(ids)

