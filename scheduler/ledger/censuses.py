"""A run's census read back: the packed vectors of its subproblems (``censuses``, one row
each, written with their results by :mod:`.results`) summed, with their counts."""
from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, func, select

from core.census import Census

from ..census_codec import add_packed, unpack_census
from ..db import Ledger
from ..models import CensusRow, Subproblem
from ..states import SubproblemState

CEN = CensusRow.__table__
SUB = Subproblem.__table__

_ROWS = (select(CEN.c.counts, SUB.c.count).join(SUB, SUB.c.id == CEN.c.subproblem_id)
         .where(CEN.c.run_id == bindparam("run_id")))
_DONE = select(func.count()).select_from(SUB).where(SUB.c.run_id == bindparam("run_id"),
                                                    SUB.c.state == SubproblemState.DONE)


@dataclass
class RunCensus:
    """A run's census summed over the subproblems that hold one (``parts``); ``done``:
    its done subproblems — the census covers the whole run when the run is done and
    every done subproblem holds one."""

    census: Census
    parts: int
    done: int
    #: the bytes of the stored vectors, summed (docs/ledger.md measures the layouts)
    stored_bytes: int


def run_census(ledger: Ledger, run_id: int) -> RunCensus | None:
    """The sum of the run's stored censuses, or None when it holds none (a run without
    ``--census``)."""
    census: Census | None = None
    parts = stored = 0
    with ledger.engine.connect() as conn:
        for blob, count in conn.execute(_ROWS, {"run_id": run_id}):
            if census is None:
                census = Census.empty(len(unpack_census(blob)))
            add_packed(census.per_option, blob)
            census.total += int(count or 0)
            parts += 1
            stored += len(blob)
        done = conn.execute(_DONE, {"run_id": run_id}).scalar_one()
    return None if census is None else RunCensus(census, parts, done, stored)
