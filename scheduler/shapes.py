"""The one JSON shape of a run's summary, shared by every command's ``--json`` and the web
page's API, so that the two never drift apart."""
from __future__ import annotations

from typing import Any


def run_json(s: dict[str, Any]) -> dict[str, Any]:
    """A run's summary (:func:`scheduler.queries.run_summary`) as JSON: ``subproblems`` the
    total as an integer, the breakdown by state under ``subproblem_states``, and
    ``distinct`` always present (null when the run did not count up to symmetry)."""
    out = dict(s)
    breakdown = dict(s["subproblems"])
    out["subproblems"] = breakdown.pop("total")
    out["subproblem_states"] = breakdown
    out.setdefault("distinct", None)
    return out
