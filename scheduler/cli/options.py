"""Options shared by several commands.

The service options (``--db``, ``--json``, ``--broker``, ``--no-progress``) write to the
:class:`~scheduler.cli.app.App` context object.  The options of the commands that start
a run (``solve``, ``submit``) are read into one :class:`~scheduler.planning.RunRequest`,
which the command receives as ``request``.
"""
from __future__ import annotations

import functools
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Callable

import click

from core.solver_options import LevelPlan, Method, SolverOptions

from ..celery_config import ENV_BROKER_URL
from ..env import ENV_DB_URL
from ..run_options import DEFAULT_BUDGET, Mode, RunOptions
from .app import App, CLIError

if TYPE_CHECKING:
    from ..planning import RunRequest


def _set(attribute: str, transform: Callable[[Any], Any] = lambda v: v):
    """A callback that writes an option's value on the context object."""

    def callback(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        setattr(ctx.ensure_object(App), attribute, transform(value))

    return callback


db_option = click.option("--db", metavar="URL", expose_value=False, callback=_set("db_url"),
                         help=f"ledger database URL (default: ${ENV_DB_URL} or a SQLite file)")
json_option = click.option("--json", is_flag=True, expose_value=False, callback=_set("as_json"), help="print JSON")
broker_option = click.option("--broker", metavar="URL", expose_value=False, callback=_set("broker_url"),
                             help=f"Celery broker URL (default: ${ENV_BROKER_URL} or redis://localhost:6379/0)")
progress_option = click.option("--no-progress", is_flag=True, expose_value=False,
                               callback=_set("progress", lambda v: not v), help="no progress bar")


def _verify_fraction(ctx: click.Context, param: click.Parameter, value: str | None) -> float | None:
    """``--verify P``: a fraction in (0, 1], else one line and exit status 2."""
    if value is None:
        return None
    try:
        fraction = float(value)
    except ValueError:
        raise CLIError(f"--verify takes a fraction in (0, 1], not {value!r}") from None
    if not 0 < fraction <= 1:
        raise CLIError(f"--verify takes a fraction in (0, 1], not {value}")
    return fraction


class KindOption(click.Option):
    """``--kind``, whose help lists every registered kind: read when the help is shown, so
    the models (and plugins) are imported only then."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from core.library import kinds

        self.help = (f"read the file as this model ({', '.join(kinds())}); "
                     "default: told from the file's content")
        return super().get_help_record(ctx)


kind_option = click.option("--kind", metavar="K", cls=KindOption,
                           help="read the file as this model; default: told from the file's content")
engine_option = click.option("--engine", metavar="NAME",
                             help="kernel or reference for exact covers; a model's own search (reduction, crossword) "
                                  "(default: the problem's first)")
distinct_option = click.option("--distinct", is_flag=True, help="also count solutions up to symmetry")
memo_option = click.option("--no-memo", is_flag=True,
                           help="count by visiting every solution (the kernel's counting memo off)")
by_levels_option = click.option("--by-levels", is_flag=True,
                                help="count level by level over frontier states instead of searching "
                                     "(plain covers whose states fit 1,024 bits)")


#: the units --memory takes (powers of 1024)
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kb": 1 << 10, "m": 1 << 20, "mb": 1 << 20, "g": 1 << 30, "gb": 1 << 30,
          "t": 1 << 40, "tb": 1 << 40}


def _level_shares(ctx: click.Context, param: click.Parameter, value: str | None):
    """``--level-shares 3x2``: groups of moduli x slices of a count by levels."""
    if value is None:
        return None
    import re

    m = re.fullmatch(r"\s*(\d+)\s*(?:x\s*(\d+))?\s*", value)
    if m is None or int(m.group(1)) < 1 or (m.group(2) is not None and int(m.group(2)) < 1):
        raise click.BadParameter(f"{value!r} is not GROUPS or GROUPSxSLICES, such as 3 or 2x4", ctx=ctx, param=param)
    return int(m.group(1)), int(m.group(2) or 1)


def memory_size(ctx: click.Context, param: click.Parameter, value: str | None) -> int | None:
    """``--memory 8G``: bytes, with an optional unit K, M, G or T (powers of 1024)."""
    if value is None:
        return None
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value)
    unit = m.group(2).lower() if m else None
    if m is None or unit not in _UNITS or float(m.group(1)) <= 0:
        raise click.BadParameter(f"{value!r} is not a size such as 512M, 8G or 1.5T", ctx=ctx, param=param)
    return int(float(m.group(1)) * _UNITS[unit])
symmetry_option = click.option("--no-symmetry", is_flag=True,
                                help="count every symmetric copy by search instead of one per orbit of the problem's "
                                     "symmetry group (counts only; the default uses the group where the model has one)")
by_bitboard_option = click.option("--by-bitboard", is_flag=True,
                                  help="count by the cheap-node search on a bitboard (plain polyform covers of at "
                                       "most 128 cells and 64 pieces)")
by_search_option = click.option("--by-search", is_flag=True,
                                help="count by searching even where counting by levels is expected to pay "
                                     "(the default chooses)")

#: the options of a command that starts a run, in the order --help shows them
_RUN_OPTIONS = [
    click.argument("name_or_file"),
    kind_option,
    click.option("--count", "count_flag", is_flag=True, help="count the solutions (default)"),
    click.option("--all", "all_flag", is_flag=True, help="enumerate and store every solution"),
    click.option("--first", type=click.IntRange(min=1), metavar="N", help="stop at the first N solutions"),
    distinct_option,
    engine_option,
    memo_option,
    by_levels_option,
    by_search_option,
    by_bitboard_option,
    symmetry_option,
    click.option("--split-depth", type=click.IntRange(min=0), metavar="D", help="split at this depth"),
    click.option("--subproblems", type=click.IntRange(min=1), metavar="N", help="split into at least N subproblems"),
    click.option("--budget", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
                 help=f"time budget of one task; then it donates its frontier (default: sized from the first "
                      f"half second's progress, at most {DEFAULT_BUDGET:g})"),
    click.option("--node-budget", type=click.IntRange(min=1), metavar="NODES", hidden=True,
                 help="node budget of one task (for tests: deterministic frontier donation)"),
    click.option("--lease", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS", hidden=True,
                 help="lease time of a task (default 2*budget+30)"),
    click.option("--verify", metavar="P", callback=_verify_fraction,
                 help="re-solve a random fraction P of the complete subproblems on another worker and compare; "
                      "a mismatch fails the run"),
    click.option("--verify-seed", type=int, default=0, show_default=True, metavar="N",
                 help="which random sample --verify takes"),
    click.option("--memory", callback=memory_size, metavar="SIZE",
                 help="the memory a count by levels may hold at once, each share (512M, 8G, 1.5T; default 60% of "
                      "this machine's): past it the count is shared out in more parts, or refused"),
    click.option("--level-shares", callback=_level_shares, metavar="GxS", hidden=True,
                 help="a count by levels in G groups of its moduli x S slices of its states at the middle level "
                      "(for tests and benchmarks; default: fitted to the memory and the machines)"),
    click.option("--census", is_flag=True,
                 help="also record, for every placement (option), the solutions that use it: "
                      "`tilecensus census RUN` shows them (counts only)"),
    click.option("--no-estimate", is_flag=True, help="no tree-size estimate before the run"),
    db_option,
    json_option,
    progress_option,
]
_RUN_NAMES = ("name_or_file", "kind", "count_flag", "all_flag", "first", "distinct", "engine", "no_memo", "by_levels",
              "by_search", "by_bitboard", "no_symmetry", "split_depth", "subproblems", "budget", "node_budget", "lease", "verify", "verify_seed",
              "no_estimate", "memory", "level_shares", "census")


def solver_options(engine: str | None, distinct: bool, no_memo: bool, by_levels: bool, by_search: bool,
                   by_bitboard: bool = False, no_symmetry: bool = False) -> SolverOptions:
    """The solver options the flags ask for: the method is chosen unless one is named; a
    count goes by orbits of the symmetry group unless --no-symmetry (planning keeps it to
    the counts it applies to)."""
    if by_levels + by_search + by_bitboard > 1:
        raise click.UsageError("give one of --by-levels, --by-search, --by-bitboard, not both")
    method = (Method.LEVELS if by_levels else Method.SEARCH if by_search else Method.BITBOARD if by_bitboard
              else Method.AUTO)
    return SolverOptions(engine, distinct, not no_memo, method, not no_symmetry)


def _request(v: dict[str, Any]) -> RunRequest:
    from ..planning import RunRequest  # SQLAlchemy and the models: only for a command that runs

    if sum([v["count_flag"], v["all_flag"], v["first"] is not None]) > 1:
        raise click.UsageError("choose one of --count, --all, --first N")
    if v["split_depth"] is not None and v["subproblems"] is not None:
        raise click.UsageError("give --split-depth or --subproblems, not both")
    mode = Mode.ENUMERATE if v["all_flag"] else Mode.FIRST if v["first"] is not None else Mode.COUNT
    solver = solver_options(v["engine"], v["distinct"], v["no_memo"], v["by_levels"], v["by_search"],
                            v["by_bitboard"], v["no_symmetry"])
    if v["level_shares"] is not None:
        groups, slices = v["level_shares"]
        solver = replace(solver, level_plan=LevelPlan(groups=groups, slices=slices))
    options = RunOptions(
        solver=solver,
        budget=v["budget"], node_budget=v["node_budget"], lease=v["lease"], limit=v["first"],
        split_depth=v["split_depth"], subproblems=v["subproblems"], verify=v["verify"],
        verify_seed=v["verify_seed"] if v["verify"] else None, memory=v["memory"], census=v["census"],
    )
    return RunRequest(v["name_or_file"], v["kind"], mode, options, estimate=not v["no_estimate"])


def run_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """The options of a command that starts a run, read into one ``request``."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kw: Any) -> Any:
        values = {name: kw.pop(name) for name in _RUN_NAMES}
        return command(*args, request=_request(values), **kw)

    for option in reversed(_RUN_OPTIONS):
        wrapper = option(wrapper)
    return wrapper
