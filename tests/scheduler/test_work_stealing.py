"""Work stealing in the local pool (scheduler/local_pool.py, core/handoff.py): a run planned
as one subproblem with a budget far longer than the count still ends up shared by both
pool processes — the idle one's request makes the busy one hand back its frontier — and
the count is exact."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine, text

from known_tilings import kasteleyn

ROOT = Path(__file__).resolve().parents[2]


def test_an_idle_pool_process_gets_part_of_the_only_subproblem(tmp_path):
    url = f"sqlite:///{tmp_path / 'ledger.db'}"
    # one subproblem (split depth 0), a 60 s budget: without a request for work the first
    # process would search the whole tree (50 million nodes, 3.6 s) while the second waits.
    # (The pentomino 6x10's 2.4 million, 1.2 s, were once searched whole before the second
    # process, starting on a machine busy with other tests, asked.)
    out = subprocess.run([sys.executable, "-m", "scheduler", "solve", "dominoes-8x8", "--no-symmetry", "--by-search",
                          "--no-memo", "--split-depth", "0", "--budget", "60", "--workers", "2", "--json",
                          "--no-progress", "--db", url], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1])["solutions"] == kasteleyn(8, 8)
    with create_engine(url).connect() as conn:
        root = conn.execute(text("select stopped_by, n_donated from subproblems where depth = 0")).one()
        workers = conn.execute(text("select count(distinct worker) from subproblems where seconds is not null")).scalar()
    assert root.stopped_by == "budget" and root.n_donated > 0
    assert workers == 2
