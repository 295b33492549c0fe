"""The capacity benchmark, smallest: ``bench/capacity.py`` with four worker processes
(real Celery workers of the project on Redis, a PostgreSQL ledger) counts a small domino
board split into 79 subproblems, and the total is Kasteleyn's — so the script that the
figures in docs/performance.md ("Capacity") come from keeps running."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent

pytestmark = pytest.mark.e2e


def test_the_capacity_benchmark_counts_exactly_on_four_workers(pg_url, broker_url, queue):
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "capacity.py"), "--db", pg_url, "--broker", broker_url,
         "--queue", queue, "--workers", "4", "--board", "4x6", "--depth", "8", "--pad", "0.01",
         "--timeout", "90", "--json"],
        cwd=ROOT, capture_output=True, text=True, timeout=240,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    (row,) = json.loads(proc.stdout.splitlines()[-1])
    assert row["workers"] == 4 and row["status"] == "done", row
    assert row["total"] == row["expected"] == 281 and row["exact"] and row["weights_sum_1"], row
    assert row["done"] == row["subproblems"] >= 79, row
    assert row["pulls"] >= 1 and row["leases"] >= 1 and row["round_ms"][0] is not None, row
    assert "results/s" in proc.stdout and "281 == 281" in proc.stdout
