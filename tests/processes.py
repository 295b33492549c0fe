"""Helpers for tests that look at processes through /proc (Linux)."""
from __future__ import annotations

from pathlib import Path


def process_running(pid: int) -> bool:
    """Whether the process exists and is not a zombie (dead, waiting for its reaper)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
