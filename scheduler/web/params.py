"""Query parameters read strictly: a bad value is a 400 naming the parameter, never a
traceback."""
from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request

from ..states import RunStatus


def int_param(request: Request, name: str, default: int, low: int, high: int) -> int:
    """The integer ``name`` in ``low..high`` (``default`` when absent)."""
    text = request.query_params.get(name)
    if text is None or text == "":
        return default
    try:
        value = int(text)
    except ValueError:
        value = None
    if value is None or not low <= value <= high:
        raise HTTPException(400, f"{name} must be an integer in {low}..{high}, not {text!r}")
    return value


def status_param(request: Request) -> str | None:
    """``status``: one of the run statuses, or absent (every run)."""
    status = request.query_params.get("status") or None
    if status is not None and status not in set(RunStatus):
        raise HTTPException(400, f"status must be one of {', '.join(RunStatus)}, not {status!r}")
    return status


def run_id_of(request: Request) -> int:
    return int(request.path_params["run_id"])
