"""The ``tilecensus`` group, its context object and its errors.

Bad input — an unknown name, a bad problem file, a database or broker that does not
answer, an unknown run — is one line on stderr and exit status 2, before anything is
written to the ledger.  Every command gets the :class:`App` through ``@click.pass_obj``;
the shared options (``--db``, ``--json``, ``--broker``, ``--no-progress``) set it.
"""
from __future__ import annotations

import importlib
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any

import click

from core.build_progress import watching
from core.errors import ProblemError

from ..errors import BrokerError, LedgerError
from .build_line import BuildLine

ENV_PLUGINS = "TILECENSUS_PLUGINS"

#: the module (of this package) that attaches each command to the group, imported only
#: when that command runs or the commands are listed (``--help``): a command loads what it
#: uses and no other command's imports (``solve`` no web server, ``runs`` no planner)
COMMANDS = {
    "solve": "running", "submit": "running", "resume": "running", "cancel": "running", "watch": "running",
    "runs": "reading", "show": "reading", "solutions": "reading", "export": "reading", "delete": "reading",
    "problems": "reading",
    "estimate": "estimate_verify", "verify": "estimate_verify",
    "worker": "service", "scheduler": "service", "db": "service",
    "census": "census",
    "web": "web",
}


class CLIError(click.ClickException):
    """One line on stderr, exit status 2: ``tilecensus: <message>``, or with ``--json`` one
    JSON object ``{"error": <message>, "exit_code": 2}``."""

    exit_code = 2

    def __init__(self, message: str, *, as_json: bool = False):
        super().__init__(message)
        self.as_json = as_json

    def show(self, file=None) -> None:
        if self.as_json:
            click.echo(json.dumps({"error": self.format_message(), "exit_code": self.exit_code}), err=True)
        else:
            click.echo(f"tilecensus: {self.format_message()}", err=True)


@dataclass
class App:
    """What one command line asks beyond its own arguments, and the ledger, opened once."""

    db_url: str | None = None
    broker_url: str | None = None
    as_json: bool = False
    progress: bool = True
    _ledgers: dict[str | None, Any] = field(default_factory=dict)

    def ledger(self, *, existing: bool = False):
        """The ledger at ``--db`` (else ``TILECENSUS_DB_URL``, else the default file),
        checked and migrated.  ``existing``: for a command that reads runs already
        recorded, a SQLite file that is not there is an error and nothing is created."""
        from ..db import open_ledger

        if self.db_url not in self._ledgers:
            self._ledgers[self.db_url] = open_ledger(self.db_url, existing=existing)
        return self._ledgers[self.db_url]

    def direct_ledger(self):
        """The ledger as :class:`~scheduler.sqlite_direct.DirectLedger` — without
        SQLAlchemy — where it is a SQLite file at the newest schema, else None (then
        :meth:`ledger`).  A run that its planning counts in full is written there."""
        from ..env import resolve_url
        from ..sqlite_direct import DirectLedger

        return DirectLedger.open(resolve_url(self.db_url))

    def direct_writes(self):
        """The ledger for ``submit`` to write its run without SQLAlchemy
        (:class:`~scheduler.direct_writes.DirectWrites`), else None (then :meth:`ledger`)."""
        from ..direct_writes import DirectWrites
        from ..env import resolve_url

        return DirectWrites.open(resolve_url(self.db_url))

    def direct_reads(self):
        """The ledger for ``runs`` and ``show`` to read without SQLAlchemy
        (:class:`~scheduler.read_direct.DirectReads`), else None (then :meth:`ledger`)."""
        from ..env import resolve_url
        from ..read_direct import open_direct

        return open_direct(resolve_url(self.db_url))

    def ledger_url(self) -> str:
        """The URL of the ledger this command uses, without its password, for headers."""
        from ..db import resolve_url, safe_url

        return safe_url(resolve_url(self.db_url))

    def echo_json(self, data: Any) -> None:
        click.echo(json.dumps(data, default=str))

    @property
    def progress_shown(self) -> bool:
        """A progress bar, on a terminal only (``--no-progress`` to refuse it)."""
        return self.progress and sys.stderr.isatty()


def _json_asked(args: list[str]) -> bool:
    """Whether the command line asks for ``--json`` (before ``--``), so that even an error
    met while reading the options comes out as JSON."""
    return "--json" in args[:args.index("--")] if "--" in args else "--json" in args


def _usage_line(exc: click.UsageError, ctx: click.Context) -> str:
    """A usage error in the tool's one-line form, with where to read more."""
    where = exc.ctx.command_path if exc.ctx is not None else ctx.command_path
    return f"{exc.format_message()} (see {where} --help)"


class Group(click.Group):
    """Turns the known user-facing errors into :class:`CLIError`, as JSON under ``--json``;
    loads a command's module when the command is asked for (:data:`COMMANDS`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            importlib.import_module(f"{__package__}.{COMMANDS[cmd_name]}")  # it attaches its commands
        return super().get_command(ctx, cmd_name)

    def make_context(self, info_name: str | None, args: list[str], parent: click.Context | None = None,
                     **extra: Any) -> click.Context:
        as_json = _json_asked(list(args))
        try:
            ctx = super().make_context(info_name, args, parent=parent, **extra)
        except click.exceptions.NoArgsIsHelpError:  # no command: the help, as click prints it
            raise
        except click.UsageError as exc:  # an unknown option of the group itself
            raise CLIError(_usage_line(exc, exc.ctx or click.Context(self, info_name=info_name)),
                           as_json=as_json) from exc
        ctx.meta["json_asked"] = as_json
        return ctx

    def invoke(self, ctx: click.Context) -> Any:
        as_json = ctx.meta.get("json_asked", False)
        line = BuildLine(lambda: ctx.obj is None or ctx.obj.progress)
        try:
            with watching(line):
                return super().invoke(ctx)
        except CLIError as exc:
            exc.as_json = exc.as_json or as_json
            raise
        except click.exceptions.NoArgsIsHelpError:  # a group without its command: its help
            raise
        except click.UsageError as exc:  # one line too, with where to read more
            raise CLIError(_usage_line(exc, ctx), as_json=as_json) from exc
        except click.ClickException as exc:  # a file click could not open
            raise CLIError(exc.format_message(), as_json=as_json) from exc
        except (ProblemError, LedgerError, BrokerError) as exc:
            raise CLIError(str(exc), as_json=as_json) from exc
        except _database_errors() as exc:
            reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
            raise CLIError(f"the database stopped answering: {reason}", as_json=as_json) from exc
        except KeyboardInterrupt as exc:  # a signal before the command took them over (it was starting)
            click.echo("\ninterrupted", err=True)
            sys.exit(getattr(exc, "exit_status", 130))
        except OverflowError as exc:  # a subproblem's count past 2^128 (the run is marked failed)
            raise CLIError(f"{exc}: one subproblem's count is too big for the kernel; split the run "
                           "deeper (--split-depth D or --subproblems N)", as_json=as_json) from exc
        finally:
            line.close()


def _database_errors() -> tuple[type[BaseException], ...]:
    """SQLAlchemy's OperationalError, sqlite3's and psycopg's (a run written, or a ledger
    read, without SQLAlchemy: :mod:`scheduler.sqlite_direct`, :mod:`scheduler.read_direct`),
    where they are loaded: a command that never loaded one cannot have raised it, and
    ``--help`` should not pay for loading it."""
    return tuple(module.OperationalError for module in (sys.modules.get("sqlalchemy.exc"), sys.modules.get("sqlite3"),
                                                        sys.modules.get("psycopg"))
                 if module is not None)


def _load_plugins() -> None:
    """Import the modules named in ``TILECENSUS_PLUGINS`` (they register extra kinds)."""
    for name in filter(None, os.environ.get(ENV_PLUGINS, "").split(",")):
        importlib.import_module(name.strip())


@click.group(cls=Group)
@click.version_option(package_name="tilecensus", message="%(prog)s %(version)s")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """Count and enumerate every solution of tiling and exact-cover problems."""
    ctx.ensure_object(App)
    _load_plugins()


def main() -> None:
    # counts of any size are this program's business: a level count of a long strip prints
    # thousands of digits, past Python's guard against slow conversions of untrusted input
    sys.set_int_max_str_digits(0)
    cli(prog_name="tilecensus")
