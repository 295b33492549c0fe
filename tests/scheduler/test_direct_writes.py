"""``submit`` writes its run without SQLAlchemy (scheduler/direct_writes.py): one prepared
run, written by the ledger's own code (``PreparedRun.create(..., queued=True)``) and
through the driver (sqlite3, psycopg), leaves the same rows on SQLite and PostgreSQL — the
run, its subproblems stamped as sent, the root's recorded trial and the frontier it
handed on, a sampled verification, the solutions and their options index — and the same
estimate recorded afterwards.  Ids are compared as positions; times as set or not."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sqlalchemy import text

from core.solver_options import SolverOptions
from scheduler.db import close_ledger, open_ledger
from scheduler.direct_writes import DirectWrites
from scheduler.planning import RunRequest, estimate_json, prepare, quick_estimate
from scheduler.run_options import ExecutorKind, Mode, RunOptions
from scheduler import ledger as L

TIMES = {"queued_at", "finished_at", "lease_expires"}


def rows(ledger, run_id: int) -> dict[str, list[dict]]:
    """A run's rows in every table, ids as positions (a subproblem's, a solution's)."""
    with ledger.engine.connect() as conn:
        def read(sql: str) -> list[dict]:
            return [dict(r._mapping) for r in conn.execute(text(sql), {"r": run_id})]

        subs = read("SELECT * FROM subproblems WHERE run_id = :r ORDER BY id")
        vers = read("SELECT * FROM verifications WHERE run_id = :r ORDER BY id")
        sols = read("SELECT * FROM solutions WHERE run_id = :r ORDER BY id")
        index = read("SELECT * FROM solution_options WHERE run_id = :r ORDER BY option_id, solution_id")
        run = read("SELECT * FROM runs WHERE id = :r")
    at = {s["id"]: i for i, s in enumerate(subs)}
    sol_at = {s["id"]: i for i, s in enumerate(sols)}

    def plain(row: dict, **ids) -> dict:
        out = {k: (v is not None if k in TIMES else v) for k, v in row.items() if k not in ("id", "run_id")}
        out.update({k: None if row[k] is None else m[row[k]] for k, m in ids.items()})
        if isinstance(out.get("stats"), str):
            out["stats"] = json.loads(out["stats"])
        if isinstance(out.get("options"), memoryview):
            out["options"] = bytes(out["options"])
        return out

    for r in run:
        for k in ("spec", "options", "stats", "plan_stats"):
            if isinstance(r[k], str):
                r[k] = json.loads(r[k])
    return {"runs": [plain(r) for r in run], "subproblems": [plain(s, parent_id=at) for s in subs],
            "verifications": [plain(v, subproblem_id=at) for v in vers],
            "solutions": [plain(s, subproblem_id=at) for s in sols],
            "solution_options": [plain(o, solution_id=sol_at) for o in index]}


CASES = {
    "the trial's frontier": ("pentomino-6x10", Mode.COUNT, RunOptions()),
    "split, no trial": ("pentomino-6x10", Mode.COUNT, RunOptions(split_depth=2)),
    "a verified root": ("dominoes-4x4", Mode.COUNT, RunOptions(verify=1.0)),
    "a listing's solutions": ("pentomino-6x10", Mode.ENUMERATE, RunOptions(solver=SolverOptions(symmetry=False))),
    "a verified split": ("dominoes-4x5", Mode.COUNT, RunOptions(split_depth=2, verify=0.5)),
}


@pytest.mark.parametrize("case", list(CASES))
def test_both_ways_leave_the_same_rows(any_url, case):
    name, mode, options = CASES[case]
    ledger = open_ledger(any_url)  # at the newest schema
    prepared = prepare(RunRequest(name, None, mode, options, estimate=False), workers=8, cluster=True,
                       defer_estimate=True)
    assert prepared.counted() is None  # (counted runs are written closed, the old way)
    by_alchemy = prepared.create(ledger, ExecutorKind.CELERY, queued=True)
    direct = DirectWrites.open(any_url)
    assert direct is not None
    try:
        created = direct.create_run(prepared, ExecutorKind.CELERY)
    finally:
        direct.close()
    assert created.run_id != by_alchemy.run_id
    assert len(created.pending) == len(by_alchemy.pending) and created.weights == by_alchemy.weights
    ours, theirs = rows(ledger, created.run_id), rows(ledger, by_alchemy.run_id)
    assert ours == theirs
    subs = ours["subproblems"]
    assert sum(s["state"] == "pending" for s in subs) == len(created.pending)
    assert all(s["queued_at"] for s in subs if s["state"] == "pending")  # stamped as sent
    if case == "a verified root":
        assert subs[0]["state"] == "done" and len(subs) == 1 and len(created.verifications) == 1
        assert len(ours["verifications"]) == 1 and ours["verifications"][0]["queued_at"]
    if case == "a listing's solutions":
        assert len(ours["solutions"]) == int(subs[0]["count"]) and len(ours["solution_options"]) == \
            12 * len(ours["solutions"])  # (twelve pentominoes a solution)
    close_ledger(any_url)


def test_an_estimate_recorded_afterwards_is_the_same(any_url):
    ledger = open_ledger(any_url)
    prepared = prepare(RunRequest("dominoes-4x5", None, Mode.COUNT, RunOptions(split_depth=2), estimate=False),
                       workers=2, cluster=True)
    a = prepared.create(ledger, ExecutorKind.CELERY, queued=True).run_id
    direct = DirectWrites.open(any_url)
    try:
        b = direct.create_run(prepared, ExecutorKind.CELERY).run_id
        est = quick_estimate(prepared.solver, rate_seconds=0.01, seconds=0.01, samples=20)
        L.record_estimate(ledger, a, estimate_json(est), 12345)
        direct.record_estimate(b, estimate_json(est), 12345)
    finally:
        direct.close()
    assert rows(ledger, a)["runs"] == rows(ledger, b)["runs"]
    assert rows(ledger, b)["runs"][0]["plan_stats"]["estimate"] == json.loads(json.dumps(estimate_json(est)))
    close_ledger(any_url)


def test_an_interruption_leaves_nothing(any_url, monkeypatch):
    import scheduler.direct_writes as D

    open_ledger(any_url)
    close_ledger(any_url)
    prepared = prepare(RunRequest("pentomino-6x10", None, Mode.COUNT, RunOptions(), estimate=False), workers=8,
                       cluster=True, defer_estimate=True)

    def interrupted(*args):
        raise KeyboardInterrupt  # after the run's row and its root are written

    monkeypatch.setattr(D, "wants_verification", interrupted)
    direct = DirectWrites.open(any_url)
    try:
        with pytest.raises(KeyboardInterrupt):
            direct.create_run(prepared, ExecutorKind.CELERY)
        assert [direct(f"SELECT COUNT(*) FROM {t}")[0][0] for t in ("runs", "subproblems")] == [0, 0]
    finally:
        direct.close()


@pytest.mark.parametrize("name,mode", [("dominoes-4x4", Mode.COUNT), ("dominoes-2x4", Mode.ENUMERATE)])
def test_a_run_counted_in_planning_is_written_closed_the_same(any_url, monkeypatch, name, mode):
    """Counted in the planning's trial: the rows of the ledger's own counted branch, and
    the summary it reads back (the run's end at one time, so its seconds are the same)."""
    import datetime as dt

    import scheduler.rows as rows_module
    from scheduler.queries import run_summary

    now = dt.datetime(2026, 12, 7, 12, 0, 0, 123456)
    monkeypatch.setattr(rows_module, "utcnow", lambda: now)
    ledger = open_ledger(any_url)
    prepared = prepare(RunRequest(name, None, mode, RunOptions(), estimate=False), workers=8, cluster=True,
                       defer_estimate=True)
    counted = prepared.counted()
    assert counted is not None
    by_alchemy = prepared.create(ledger, ExecutorKind.CELERY, queued=True).run_id
    direct = DirectWrites.open(any_url)
    try:
        with pytest.raises(ValueError):
            direct.create_run(prepared, ExecutorKind.CELERY)
        recorded = direct.record_counted(prepared, ExecutorKind.CELERY, counted)
    finally:
        direct.close()
    ours = rows(ledger, recorded.run_id)
    assert ours == rows(ledger, by_alchemy)
    assert ours["runs"][0]["status"] == "done" and int(ours["runs"][0]["solutions"]) == (5 if mode is Mode.ENUMERATE
                                                                                          else 36)
    assert len(ours["solutions"]) == (5 if mode is Mode.ENUMERATE else 0)  # F(5) tilings of 2x4; 36 of 4x4
    assert recorded.summary == run_summary(ledger, recorded.run_id)
    close_ledger(any_url)


@pytest.mark.parametrize("args", [["pentomino-6x10", "--split-depth", "2"],  # written open, its messages sent
                                  ["dominoes-2x4"]])  # counted while planning: written closed, no message
def test_submit_loads_neither_sqlalchemy_nor_celery(any_url, broker_url, queue, args):
    """``submit`` on a ledger at the newest schema and a Redis broker, in a fresh process."""
    import redis

    open_ledger(any_url)
    close_ledger(any_url)
    code = ("import sys, json\nfrom scheduler.cli import cli\n"
            f"try:\n    cli(['submit', *{args!r}, '--db', {any_url!r}, '--broker', {broker_url!r}, "
            f"'--queue', {queue!r}, '--json', '--no-progress'], prog_name='tilecensus')\n"
            "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
            "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'sqlalchemy', 'celery', 'kombu', 'alembic'})))")
    try:
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    finally:
        client = redis.Redis.from_url(broker_url)
        queued = client.llen(queue)
        client.delete(queue)
    submitted, loaded = (json.loads(line) for line in out.splitlines()[-2:])
    assert loaded == []
    assert submitted["messages"] == queued
    ledger = open_ledger(any_url)
    if len(args) > 1:
        assert submitted["status"] == "running" and queued >= 1
        assert L.progress(ledger, submitted["run_id"]).status == "running"
    else:
        assert submitted["status"] == "done" and queued == 0
        assert L.progress(ledger, submitted["run_id"]).status == "done"
    close_ledger(any_url)
