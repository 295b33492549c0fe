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


def test_the_soaks_checks_fail_on_a_wrong_ledger(pg_url, tmp_path):
    """The checks pass on a run counted right, and each fails where the ledger is wrong: a
    subproblem's count changed, a donated child inserted twice, a subproblem left open."""
    import argparse

    import psycopg

    cluster = chaos_soak.Cluster(tmp_path, {}, "unit", verbose=False)
    cluster.db_url = pg_url
    r = cluster.cli("solve", "dominoes-4x6", "--by-search", "--no-memo", "--no-symmetry", "--node-budget", "20",
                    "--workers", "1", "--json", "--no-progress")
    assert r.returncode == 0, r.stderr
    run_id = json.loads(r.stdout.splitlines()[-1])["run_id"]
    soak = chaos_soak.Soak(argparse.Namespace(seed=0), cluster)
    soak.runs[run_id] = chaos_soak.Board(4, 6)

    def failed() -> set[str]:
        return {c["check"].split(" (")[0] for c in soak.checks([]) if not c["ok"]}

    assert failed() == set()
    with psycopg.connect(pg_url, autocommit=True) as conn:
        sub, parent, count = conn.execute(
            "SELECT id, parent_id, count FROM subproblems WHERE run_id = %s AND parent_id IS NOT NULL "
            "AND n_donated = 0 ORDER BY id LIMIT 1", (run_id,)).fetchone()
        conn.execute("UPDATE subproblems SET count = %s WHERE id = %s", (str(int(count) + 1), sub))
        assert failed() == {"each result recorded once"}
        conn.execute("UPDATE subproblems SET count = %s WHERE id = %s", (count, sub))
        conn.execute("INSERT INTO subproblems (run_id, path, depth, weight_num, weight_den, weight_f, parent_id, "
                     "state, attempts, count, done_num, done_den, done_f, n_donated) SELECT run_id, path || ' ', "
                     "depth, weight_num, weight_den, weight_f, parent_id, state, attempts, count, done_num, "
                     "done_den, done_f, n_donated FROM subproblems WHERE id = %s", (sub,))
        assert failed() == {"finished weights sum to 1", "each result recorded once"}
        conn.execute("DELETE FROM subproblems WHERE run_id = %s AND path LIKE '%% '", (run_id,))
        conn.execute("UPDATE subproblems SET state = 'pending' WHERE id = %s", (sub,))
        assert failed() == {"finished weights sum to 1", "each result recorded once", "no run stuck, nothing left open"}
        conn.execute("UPDATE subproblems SET state = 'done' WHERE id = %s", (sub,))
        conn.execute("UPDATE runs SET solutions = '1' WHERE id = %s", (run_id,))
        assert failed() == {"exact totals", "each result recorded once"}


def test_ctrl_c_stops_every_process_of_the_soak():
    """Ctrl-C once the count runs: the soak exits, and nothing it started is left."""
    import re
    import signal
    import time

    if chaos_soak.binaries() is None:
        pytest.skip("the chaos soak needs initdb and postgres (/usr/lib/postgresql/*/bin) and redis-server")
    proc = subprocess.Popen([sys.executable, str(ROOT / "bench" / "chaos_soak.py"), "--minutes", "5"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines, tag = [], None
    try:
        for line in proc.stdout:
            lines.append(line)
            tag = tag or (re.search(r"tag (\w+), logs in", line) or [None, None])[1]
            if " submitted (" in line:
                break
        assert tag is not None and chaos_soak.tagged(tag), "".join(lines)
        time.sleep(2)
        proc.send_signal(signal.SIGINT)
        rest = proc.communicate(timeout=120)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and "interrupted; every process it started is stopped" in rest, rest[-2000:]
    assert chaos_soak.tagged(tag) == []
