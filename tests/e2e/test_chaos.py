"""The chaos soak, short: ``bench/chaos_soak.py`` runs a domino count on a cluster of its
own (PostgreSQL, Redis, two workers, a scheduler) for about 1.5 minutes while a dozen
seeded faults of every kind hit it, and every check holds: the exact total (Kasteleyn),
weights summing to 1, each result recorded once, no run stuck, no process left behind."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import chaos_soak  # noqa: E402

pytestmark = pytest.mark.e2e


def test_a_short_chaos_soak_survives_every_kind_of_fault(tmp_path):
    if chaos_soak.binaries() is None:
        pytest.skip("the chaos soak needs initdb and postgres (/usr/lib/postgresql/*/bin) and redis-server")
    proc = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "chaos_soak.py"), "--seed", "7", "--minutes", "1.5", "--faults", "12",
         "--workers", "2", "--json", "--quiet", "--keep", str(tmp_path / "logs")],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    result = json.loads(proc.stdout.splitlines()[-1])
    assert proc.returncode == 0 and result["ok"], proc.stdout + proc.stderr[-3000:]
    assert result["faults_total"] >= 12
    assert all(result["faults"][kind] >= 1 for kind in chaos_soak.KINDS), result["faults"]
    assert {c["check"].split(" (")[0] for c in result["checks"]} >= {
        "exact totals", "finished weights sum to 1", "each result recorded once", "no run stuck, nothing left open",
        "every process accounted for"}
    for run in result["runs"]:
        assert run["status"] == "done" and run["solutions"] == run["expected"], run
    assert not chaos_soak.tagged(result["tag"])  # nothing of the soak runs on
