"""What a caller may ask of a solver: the :class:`Method` of a count and the
:class:`SolverOptions` beside the engine.

Plain values with no import beyond the standard library, so the command line can build
them without loading the engines (:mod:`core.engines` re-exports both)."""
from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum


class Method(StrEnum):
    """How a count goes: the kernel's tree search (MRV), the cheap-node search on a
    bitboard (:mod:`core.bitboard`: plain polyform covers), counting by levels
    (:mod:`core.frontier`), or chosen automatically (:func:`core.engines.choose_method`)."""

    SEARCH = "search"
    BITBOARD = "bitboard"
    LEVELS = "levels"
    AUTO = "auto"


@dataclass(frozen=True)
class LevelPlan:
    """How a whole count by levels is shared out (:class:`core.level_shares.LevelShares`):
    the threads of each share, the groups of its moduli, the slices of its states at the
    cut level (None: the middle level), the memory a share may hold (None: a safe share of
    its machine's).

    A count chosen on a projection (not asked for with ``--by-levels``) carries a guard: a
    count by levels that passes ``guard_bytes`` of memory or ``guard_seconds`` has left its
    projection's band behind (a board whose rows widen past what the probe saw: O'Beirne's
    hexagon), so it stops and the search counts the tree instead (one share only), by orbits
    of the problem's group where ``guard_orbits`` (as the run was asked)."""

    threads: int = 1
    groups: int = 1
    slices: int = 1
    cut: int | None = None
    memory: int | None = None
    guard_bytes: int | None = None
    guard_seconds: float | None = None
    guard_orbits: bool = False

    @property
    def guarded(self) -> bool:
        return self.guard_bytes is not None or self.guard_seconds is not None

    def to_json(self) -> dict:
        out = {"threads": self.threads, "groups": self.groups, "slices": self.slices, "cut": self.cut,
               "memory": self.memory}
        if self.guarded:
            out.update(guard_bytes=self.guard_bytes, guard_seconds=self.guard_seconds, guard_orbits=self.guard_orbits)
        return out

    @classmethod
    def from_json(cls, data: dict | None) -> "LevelPlan | None":
        if not data:
            return None
        return cls(int(data.get("threads", 1)), int(data.get("groups", 1)), int(data.get("slices", 1)),
                   data.get("cut"), data.get("memory"), data.get("guard_bytes"), data.get("guard_seconds"),
                   bool(data.get("guard_orbits", False)))


@dataclass(frozen=True)
class FoldMethod:
    """How one folded cover of a count by Burnside's lemma is counted: its method and,
    counted by levels in shares, their plan."""

    method: "Method" = Method.SEARCH
    level_plan: LevelPlan | None = None

    def to_json(self) -> dict:
        return {"method": str(self.method), "level_plan": None if self.level_plan is None else self.level_plan.to_json()}

    @classmethod
    def from_json(cls, data: dict) -> "FoldMethod":
        return cls(Method(data.get("method", "search")), LevelPlan.from_json(data.get("level_plan")))


@dataclass(frozen=True)
class SolverOptions:
    """What a caller asks of a solver.  The field metadata names each option as the
    command line spells it, for messages."""

    #: the engine's name; None for the problem's default
    engine: str | None = None
    #: also count the solutions once per symmetry class (``SolveResult.distinct``)
    distinct: bool = False
    #: the kernel's counting memo (off: every solution is visited)
    memo: bool = True
    method: Method = Method.SEARCH
    #: count by orbits of the problem's symmetry group, where it has one (counting only)
    symmetry: bool = False
    #: a whole count by levels in shares (None: by levels below the search's nodes, as
    #: units of a count by orbits or the root alone)
    level_plan: LevelPlan | None = None
    #: ``distinct`` counted by Burnside's lemma (:mod:`core.burnside`): the order of the
    #: group whose sum the parts' ``distinct`` add up to (0: canonical checks); the
    #: planner's choice, like ``level_plan``
    burnside: int = 0
    #: with ``burnside``, how each folded cover that is counted is (in the order of the
    #: classes): chosen by measuring each, like the total's method — a fold can be as big
    #: as a board's half (the 16x16 domino board's half-turn: 32 s searched, 0.01 s by
    #: levels); empty: every one searched
    fold_methods: tuple["FoldMethod", ...] = ()

    def asked(self) -> list[str]:
        """The options given a value other than their default (the engine aside)."""
        default = SolverOptions()
        return [f.name for f in fields(self) if f.name not in ("engine", "level_plan", "burnside", "fold_methods")
                and getattr(self, f.name) != getattr(default, f.name)]

    @classmethod
    def of(cls, engine: str | None = None, distinct: bool = False, memo: bool = True,
           levels: bool | str = False, method: Method | str | None = None, symmetry: bool = False) -> "SolverOptions":
        """From the Python API's keywords: ``levels=True`` counts by levels,
        ``levels="auto"`` lets each count choose, ``False`` searches."""
        if method is None:
            method = {True: Method.LEVELS, "auto": Method.AUTO, False: Method.SEARCH}.get(levels)  # type: ignore[arg-type]
            if method is None:
                raise ValueError(f"levels must be True, False or 'auto', not {levels!r}")
        return cls(engine, bool(distinct), bool(memo), Method(method), bool(symmetry))


#: how the command line spells each option (for messages)
FLAGS = {"distinct": "--distinct", "memo": "--no-memo", "method": "--by-levels", "symmetry": "--symmetry"}


def flag(option: str, options: "SolverOptions") -> str:
    """The command-line flag that asked for ``option``'s value."""
    return f"--by-{options.method}" if option == "method" else FLAGS.get(option, option)
