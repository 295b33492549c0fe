"""The rows of the index of options per stored solution (``solution_options``), written
in the same transaction as the solutions they index, so a ``--where`` query
(:mod:`scheduler.where_sql`) always sees exactly the stored solutions."""
from __future__ import annotations

from typing import Iterable, Sequence


def option_rows(run_id: int, solution_ids: Sequence[int], solutions: Iterable[Sequence[int]]) -> list[dict[str, int]]:
    """One row per distinct option of each solution, beside the solution's id."""
    return [{"run_id": run_id, "option_id": int(o), "solution_id": sid}
            for sid, options in zip(solution_ids, solutions) for o in sorted(set(options))]


def option_tuples(run_id: int, solution_ids: Sequence[int],
                  solutions: Iterable[Sequence[int]]) -> list[tuple[int, int, int]]:
    """:func:`option_rows` as ``(run_id, option_id, solution_id)`` tuples, for a driver's
    own ``executemany`` (:mod:`scheduler.sqlite_direct`)."""
    return [(r["run_id"], r["option_id"], r["solution_id"]) for r in option_rows(run_id, solution_ids, solutions)]
