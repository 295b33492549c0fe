"""Small problems and ledger helpers for the scheduler and worker tests: planned runs,
subproblem states, and a Celery executor that keeps its messages instead of sending them."""
from __future__ import annotations

from fractions import Fraction

from sqlalchemy import select

from core.library import load
from scheduler.ledger import create_run
from scheduler.models import Subproblem
from scheduler.planning import plan
from scheduler.run_options import ExecutorKind, Mode, RunOptions
from scheduler.celery_executor import CeleryExecutor
from scheduler.work import build_solver


def make_run(ledger, name: str = "dominoes-4x5", *, mode: str = "count", executor: str = "local",
             depth: int | None = 2, verify: float | None = None, **options) -> int:
    """A planned run of a built-in problem, not driven (``verify``: a ``--verify`` run);
    ``options`` as the ledger stores them (``RunOptions.to_json``)."""
    problem = load(name)
    opts = RunOptions.from_json({"engine": "kernel", "distinct": False, "budget": 60.0, "verify": verify, **options})
    _, solver = build_solver(problem.spec, opts)
    p = plan(solver, split_depth=depth, first=mode == "first")
    return create_run(ledger, problem=problem, mode=Mode(mode), options=opts, executor=ExecutorKind(executor),
                      frontier=p.frontier, plan_stats=p.to_json(), verify_fraction=verify).run_id


def finished_weight(ledger, run_id: int) -> Fraction:
    with ledger.session() as session:
        rows = session.execute(
            select(Subproblem.done_num, Subproblem.done_den).where(
                Subproblem.run_id == run_id, Subproblem.state == "done")
        ).all()
    return sum((Fraction(int(n), int(d)) for n, d in rows), Fraction(0))


def states(ledger, run_id: int) -> dict[str, int]:
    with ledger.session() as session:
        out: dict[str, int] = {}
        for (state,) in session.execute(select(Subproblem.state).where(Subproblem.run_id == run_id)):
            out[state] = out.get(state, 0) + 1
        return out


class SentMessages(CeleryExecutor):
    """The real executor (stamping, packing) with its messages kept here, not sent."""

    def __init__(self):
        super().__init__("redis://127.0.0.1:1/0")  # never connected
        self.sent: list[tuple[str, list]] = []
        self._requests = None  # no requests for work (tests/worker/test_work_requests.py has them)

    def _send(self, name, messages, queue):
        self.sent.extend((name, list(args)) for args in messages)


def sub_ids(ledger, run_id: int, **where) -> list[int]:
    with ledger.session() as s:
        q = select(Subproblem.id).where(Subproblem.run_id == run_id,
                                        *(getattr(Subproblem, k) == v for k, v in where.items()))
        return list(s.scalars(q.order_by(Subproblem.id)))
