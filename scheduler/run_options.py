"""What a run was asked to do: its mode, its executor and its options, as typed values
from the command line through the ledger (the ``options`` JSON column) to the workers."""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from core.solver_options import FoldMethod, LevelPlan, Method, SolverOptions

#: the default time budget of one task, in seconds
DEFAULT_BUDGET = 60.0
#: the Celery queue a run's tasks go to unless it names one
DEFAULT_QUEUE = "tilecensus"
#: the lease of a level count's task, which no time budget cuts short
LEVELS_LEASE = 3600.0


class Mode(StrEnum):
    """Count the solutions, list (enumerate and store) every one, or stop at the first N."""

    COUNT = "count"
    ENUMERATE = "enumerate"
    FIRST = "first"

    @property
    def listing(self) -> bool:
        """Whether the run stores its solutions."""
        return self is not Mode.COUNT


class ExecutorKind(StrEnum):
    """What drives a run's subproblems to workers: a local process pool, or Celery."""

    LOCAL = "local"
    CELERY = "celery"


@dataclass(frozen=True)
class RunOptions:
    """A run's options.  :meth:`to_json` is what the ledger stores; :meth:`from_json`
    also reads the options of runs recorded by earlier versions."""

    solver: SolverOptions = field(default_factory=SolverOptions)
    #: why the method was chosen, when it was chosen automatically (None: asked for)
    method_reason: str | None = None
    #: time budget of one task (seconds); then it donates its frontier.  None: chosen
    #: when the run is planned (see scheduler.planning)
    budget: float | None = None
    #: node budget of one task (tests: deterministic frontier donation)
    node_budget: int | None = None
    #: how long a worker owns a task (default: see :meth:`lease_seconds`)
    lease: float | None = None
    #: stop at the first ``limit`` solutions (``Mode.FIRST``)
    limit: int | None = None
    #: split the tree at this depth, or into at least this many subproblems
    split_depth: int | None = None
    subproblems: int | None = None
    #: ``--verify P``: the share of complete subproblems re-solved by another worker
    verify: float | None = None
    verify_seed: int | None = None
    #: local pool processes (``solve``), or the Celery worker processes serving the queue
    #: when the run was planned (``submit``; None: none had announced itself); and the
    #: Celery queue
    workers: int | None = None
    queue: str | None = None
    #: ``--memory``: the bytes a count by levels may hold at once, each share (None: a safe
    #: share of the machine, core.level_measure.default_memory)
    memory: int | None = None
    #: ``--census``: beside the count, for every option the solutions that use it, taken
    #: below each subproblem and stored with its result (core/census.py, scheduler/census_codec.py)
    census: bool = False

    @property
    def queue_name(self) -> str:
        return self.queue or DEFAULT_QUEUE

    @property
    def task_seconds(self) -> float:
        """The time budget of one task."""
        return DEFAULT_BUDGET if self.budget is None else float(self.budget)

    def lease_seconds(self) -> float:
        """How long a worker owns a subproblem: ``lease`` when given, else twice the
        budget plus half a minute — or, for a level count or a census (which no time
        budget cuts short either), at least an hour."""
        if self.lease is not None:
            return float(self.lease)
        default = 2 * self.task_seconds + 30.0
        return max(default, LEVELS_LEASE) if self.solver.method is Method.LEVELS or self.census else default

    def to_json(self) -> dict[str, Any]:
        s = self.solver
        return {
            "engine": s.engine, "distinct": s.distinct, "memo": s.memo, "method": str(s.method),
            "symmetry": s.symmetry,
            "method_reason": self.method_reason, "budget": self.budget, "node_budget": self.node_budget,
            "lease": self.lease, "limit": self.limit, "split_depth": self.split_depth,
            "subproblems": self.subproblems, "verify": self.verify, "verify_seed": self.verify_seed,
            "workers": self.workers, "queue": self.queue, "memory": self.memory,
            "level_plan": None if s.level_plan is None else s.level_plan.to_json(),
            "burnside": s.burnside,
            **({"census": True} if self.census else {}),
            **({"fold_methods": [f.to_json() for f in s.fold_methods]} if s.fold_methods else {}),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> "RunOptions":
        data = dict(data or {})
        method, reason = data.get("method"), data.get("method_reason")
        if method is None:  # recorded before methods had a name: levels True (asked) or "auto" (chosen)
            levels = data.get("levels")
            method = Method.LEVELS if levels else Method.SEARCH
            if levels == "auto":
                reason = "counting by levels (chosen automatically)"
        solver = SolverOptions(data.get("engine"), bool(data.get("distinct")), data.get("memo", True) is not False,
                               Method(method), bool(data.get("symmetry")),  # runs recorded before: no symmetry
                               LevelPlan.from_json(data.get("level_plan")), int(data.get("burnside") or 0),
                               tuple(FoldMethod.from_json(f) for f in data.get("fold_methods") or ()))
        budget = data.get("budget")
        return cls(
            solver=solver, method_reason=reason, budget=None if budget is None else float(budget),
            node_budget=data.get("node_budget"), lease=data.get("lease"), limit=data.get("limit"),
            split_depth=data.get("split_depth"), subproblems=data.get("subproblems"), verify=data.get("verify"),
            verify_seed=data.get("verify_seed"), workers=data.get("workers"), queue=data.get("queue"),
            memory=data.get("memory"), census=bool(data.get("census")),
        )
